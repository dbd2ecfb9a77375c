// The text tables of the memory profile (internal to
// xspace_to_memory_profile.cc and its helpers):
//  * SnapTextTable interns the texts of a memory event (tf_op, region_type,
//    data_type, shape) as a small index, so that millions of snapshots keep
//    4 bytes instead of four string_views. Index 0 is all "". Texts are
//    keyed by where they are: equal indices mean the same texts; equal texts
//    at different places may get different indices (never a wrong text).
//  * DataTypeNames gives the names of TensorFlow DataType values
//    (TensorflowDataTypeName()), each built once and kept alive.
// The string_views stored or returned live as long as what they view: the
// XSpace's string pool, static storage, or the DataTypeNames object.
// Not thread-safe.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_TEXT_TABLES_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_TEXT_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/string_view.h"

namespace tbprof::views::memory_profile {

// The texts of a memory event. Strings view the XSpace's string pool (or
// static storage).
struct SnapTexts {
  absl::string_view tf_op;
  absl::string_view region_type;
  absl::string_view data_type;
  absl::string_view tensor_shape;
};

// The distinct SnapTexts of a space's memory events; index 0 is all "".
// Events repeat a few texts millions of times, so a snapshot keeps an index.
class SnapTextTable {
 public:
  SnapTextTable() : texts_(1) {}
  const SnapTexts& operator[](uint32_t index) const { return texts_[index]; }

  // Keyed by where the texts are: equal texts at different places only cost
  // an extra entry, never a wrong one.
  uint32_t Intern(const SnapTexts& t) {
    if (t.tf_op.empty() && t.region_type.empty() && t.data_type.empty() &&
        t.tensor_shape.empty()) {
      return 0;
    }
    // A small direct-mapped cache of recent keys answers most calls without
    // hashing the whole key; it only remembers what the map would answer.
    CacheEntry& cached = cache_[CacheSlot(t)];
    if (cached.index != 0 && SamePlaces(cached.texts, t)) return cached.index;
    auto at = [](absl::string_view v) { return std::make_pair(v.data(), v.size()); };
    auto [it, inserted] = index_.try_emplace(
        std::make_tuple(at(t.tf_op), at(t.region_type), at(t.data_type), at(t.tensor_shape)),
        static_cast<uint32_t>(texts_.size()));
    if (inserted) texts_.push_back(t);
    cached = {t, it->second};
    return it->second;
  }

 private:
  struct CacheEntry {
    SnapTexts texts;
    uint32_t index = 0;  // 0: empty (index 0 is never cached).
  };
  static constexpr int kCacheBits = 10;
  static bool SamePlaces(const SnapTexts& a, const SnapTexts& b) {
    auto same = [](absl::string_view x, absl::string_view y) {
      return x.data() == y.data() && x.size() == y.size();
    };
    return same(a.tf_op, b.tf_op) && same(a.region_type, b.region_type) &&
           same(a.data_type, b.data_type) && same(a.tensor_shape, b.tensor_shape);
  }
  static size_t CacheSlot(const SnapTexts& t) {
    auto bits = [](absl::string_view v) {
      return reinterpret_cast<uintptr_t>(v.data()) ^ (static_cast<uint64_t>(v.size()) << 48);
    };
    const uint64_t mix = bits(t.tf_op) + 3 * bits(t.region_type) + 5 * bits(t.data_type) +
                         7 * bits(t.tensor_shape);
    return static_cast<size_t>((mix * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits));
  }

  std::vector<CacheEntry> cache_ = std::vector<CacheEntry>(size_t{1} << kCacheBits);
  using TextAt = std::pair<const char*, size_t>;
  std::vector<SnapTexts> texts_;
  absl::flat_hash_map<std::tuple<TextAt, TextAt, TextAt, TextAt>, uint32_t> index_;
};

// Names of TensorFlow DataType values, kept alive for the snapshots.
class DataTypeNames {
 public:
  absl::string_view Get(int64_t data_type) {
    if (data_type >= 0 && data_type < kCached) {
      absl::string_view& cached = cache_[data_type];
      if (cached.data() == nullptr) cached = Lookup(data_type);
      return cached;
    }
    return Lookup(data_type);
  }

 private:
  static constexpr int64_t kCached = 256;
  absl::string_view Lookup(int64_t data_type);

  absl::string_view cache_[kCached] = {};  // names_ entries of small values.
  absl::node_hash_map<int64_t, std::string> names_;  // Stable addresses.
};

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_TEXT_TABLES_H_
