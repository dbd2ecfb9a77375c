// Stable sorting of (key, value) pairs by unsigned 64-bit keys (least
// significant digit radix sort), for large arrays of records sorted through
// an index: several times faster than std::stable_sort.
#ifndef TBPROF_SRC_BASE_RADIX_SORT_PAIRS_H_
#define TBPROF_SRC_BASE_RADIX_SORT_PAIRS_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof {

struct KeyValue {
  uint64_t key;
  uint32_t value;
};

// Sorts `items` by key ascending; items with equal keys keep their order,
// exactly as std::stable_sort by key would. `scratch` is working memory,
// resized as needed. The histograms of all digits are counted in one pass,
// and only the digits below the highest set bit of any key are sorted on.
inline void RadixSortPairs(std::vector<KeyValue>* items, std::vector<KeyValue>* scratch) {
  const size_t n = items->size();
  if (n < 512) {  // Counting passes cost more than they save on small inputs.
    std::stable_sort(items->begin(), items->end(),
                     [](const KeyValue& a, const KeyValue& b) { return a.key < b.key; });
    return;
  }
  uint64_t all_bits = 0;
  for (const KeyValue& item : *items) all_bits |= item.key;
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  int num_digits = 0;
  while (num_digits * kDigitBits < 64 && (all_bits >> (num_digits * kDigitBits)) != 0) {
    ++num_digits;
  }
  std::vector<std::array<size_t, kBuckets>> count(static_cast<size_t>(num_digits));
  for (auto& c : count) c.fill(0);
  for (const KeyValue& item : *items) {
    for (int d = 0; d < num_digits; ++d) {
      ++count[d][(item.key >> (d * kDigitBits)) & (kBuckets - 1)];
    }
  }
  scratch->resize(n);
  KeyValue* from = items->data();
  KeyValue* to = scratch->data();
  for (int d = 0; d < num_digits; ++d) {
    const int shift = d * kDigitBits;
    std::array<size_t, kBuckets>& c = count[d];
    if (c[(from[0].key >> shift) & (kBuckets - 1)] == n) continue;  // One digit: no move.
    size_t sum = 0;
    for (size_t& bucket : c) {
      const size_t c0 = bucket;
      bucket = sum;
      sum += c0;
    }
    for (size_t i = 0; i < n; ++i) to[c[(from[i].key >> shift) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != items->data()) items->swap(*scratch);  // The sorted items are in scratch.
}

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_RADIX_SORT_PAIRS_H_
