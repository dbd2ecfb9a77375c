#include "src/collector/string_interner.h"

#include <cstring>
#include <string_view>

namespace tbprof::collector {
namespace {

constexpr char kOverflowText[] = "<tbprof: string table full>";

uint64_t HashBytes(const char* s, size_t n) {
  // Word-at-a-time mix (names are long: mangled kernel names).
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, s, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

size_t HashPtr(const void* p) {
  return static_cast<size_t>((reinterpret_cast<uintptr_t>(p) >> 3) * 0x9E3779B97F4A7C15ull >> 17);
}

}  // namespace

StringInterner::StringInterner(size_t arena_bytes, uint32_t max_strings)
    : arena_(new char[arena_bytes + sizeof(kOverflowText)]),
      arena_capacity_(arena_bytes + sizeof(kOverflowText)),
      entries_(new Entry[max_strings + 1]),
      max_entries_(max_strings + 1) {
  size_t slots = 16;
  while (slots < 2 * static_cast<size_t>(max_entries_)) slots <<= 1;
  table_mask_ = slots - 1;
  by_content_.reset(new uint32_t[slots]());
  by_ptr_.reset(new PtrSlot[slots]());
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(kOverflowText, sizeof(kOverflowText) - 1,
            HashBytes(kOverflowText, sizeof(kOverflowText) - 1));
}

uint32_t StringInterner::AddLocked(const char* s, size_t len, uint64_t hash) {
  uint32_t n = count_.load(std::memory_order_relaxed);
  if (n >= max_entries_ || arena_capacity_ - arena_used_ < len + 1) return kNoEntry;
  std::memcpy(&arena_[arena_used_], s, len);
  arena_[arena_used_ + len] = '\0';
  entries_[n] = Entry{static_cast<uint32_t>(arena_used_), static_cast<uint32_t>(len), hash};
  arena_used_ += len + 1;
  for (size_t i = hash & table_mask_;; i = (i + 1) & table_mask_) {
    if (by_content_[i] == 0) {
      by_content_[i] = n + 1;
      break;
    }
  }
  count_.store(n + 1, std::memory_order_release);
  return n;
}

uint64_t StringInterner::Intern(const char* s) {
  if (s == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  // Fast path: the same pointer as before, with unchanged content.
  size_t ptr_slot = HashPtr(s) & table_mask_;
  bool ptr_found = false;
  for (;; ptr_slot = (ptr_slot + 1) & table_mask_) {
    const PtrSlot& slot = by_ptr_[ptr_slot];
    if (slot.ptr == nullptr) break;
    if (slot.ptr == s) {
      const Entry& e = entries_[slot.entry];
      if (std::memcmp(s, &arena_[e.offset], e.length) == 0 &&
          (s[e.length] == '\0' || e.length == kMaxStringLength)) {
        return slot.entry + 1;
      }
      ptr_found = true;
      break;
    }
  }
  size_t len = strnlen(s, kMaxStringLength);
  uint64_t hash = HashBytes(s, len);
  uint32_t entry = kNoEntry;
  for (size_t i = hash & table_mask_;; i = (i + 1) & table_mask_) {
    uint32_t v = by_content_[i];
    if (v == 0) break;
    const Entry& e = entries_[v - 1];
    if (e.hash == hash && e.length == len && std::memcmp(&arena_[e.offset], s, len) == 0) {
      entry = v - 1;
      break;
    }
  }
  if (entry == kNoEntry) entry = AddLocked(s, len, hash);
  if (entry == kNoEntry) {
    overflows_.fetch_add(1, std::memory_order_relaxed);
    return kOverflowId;
  }
  if (!ptr_found) {
    if (ptr_used_ * 4 >= (table_mask_ + 1) * 3) {  // a cache: start over when 3/4 full
      std::memset(by_ptr_.get(), 0, sizeof(PtrSlot) * (table_mask_ + 1));
      ptr_used_ = 0;
      ptr_slot = HashPtr(s) & table_mask_;
    }
    ++ptr_used_;
  }
  by_ptr_[ptr_slot] = PtrSlot{s, entry};
  return entry + 1;
}

void StringInterner::TakePending(std::vector<capture::StringEntry>* out) {
  uint32_t n = count_.load(std::memory_order_acquire);
  for (uint32_t i = taken_; i < n; ++i) {
    const Entry& e = entries_[i];
    out->push_back({i + 1, std::string_view(&arena_[e.offset], e.length)});
  }
  taken_ = n;
}

}  // namespace tbprof::collector
