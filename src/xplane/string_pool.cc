#include <cstring>
#include <memory>

#include "src/xplane/xspace_data.h"

namespace tbprof::xplane {
namespace {
constexpr size_t kBlockSize = 1 << 20;
}  // namespace

StringPool::StringPool() { strings_.push_back(absl::string_view()); index_.emplace(absl::string_view(), 0); }

char* StringPool::Allocate(size_t n) {
  if (n > kBlockSize / 4) {  // Large strings get a block of their own.
    blocks_.push_back(std::make_unique<char[]>(n));
    return blocks_.back().get();
  }
  if (n > block_left_) {
    blocks_.push_back(std::make_unique<char[]>(kBlockSize));
    block_pos_ = blocks_.back().get();
    block_left_ = kBlockSize;
  }
  char* out = block_pos_;
  block_pos_ += n;
  block_left_ -= n;
  return out;
}

uint32_t StringPool::Intern(absl::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  char* copy = Allocate(s.size());
  if (!s.empty()) std::memcpy(copy, s.data(), s.size());
  absl::string_view stored(copy, s.size());
  uint32_t id = static_cast<uint32_t>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  content_bytes_ += s.size();
  return id;
}

}  // namespace tbprof::xplane
