// Sorting of unsigned 64-bit keys by their bits (least significant digit
// radix sort), for the large key arrays of the views (packed time keys of
// span boundaries), where it is several times faster than std::sort.
#ifndef TBPROF_SRC_BASE_RADIX_SORT_H_
#define TBPROF_SRC_BASE_RADIX_SORT_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof {

// Sorts `keys` ascending, exactly as std::sort would. `scratch` is working
// memory, resized as needed (keep it between calls to avoid allocating).
// Only the digits below the highest set bit of any key are passed over, so
// keys that span few bits (times relative to a minimum) take few passes.
inline void RadixSortUint64(std::vector<uint64_t>* keys, std::vector<uint64_t>* scratch) {
  const size_t n = keys->size();
  if (n < 512) {  // Counting passes cost more than they save on small inputs.
    std::sort(keys->begin(), keys->end());
    return;
  }
  uint64_t all_bits = 0;
  for (uint64_t k : *keys) all_bits |= k;
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  scratch->resize(n);
  uint64_t* from = keys->data();
  uint64_t* to = scratch->data();
  for (int shift = 0; shift < 64 && (all_bits >> shift) != 0; shift += kDigitBits) {
    std::array<size_t, kBuckets> count{};
    for (size_t i = 0; i < n; ++i) ++count[(from[i] >> shift) & (kBuckets - 1)];
    if (count[(from[0] >> shift) & (kBuckets - 1)] == n) continue;  // One digit: no move.
    size_t sum = 0;
    for (size_t& c : count) {
      const size_t c0 = c;
      c = sum;
      sum += c0;
    }
    for (size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys->data()) keys->swap(*scratch);  // The sorted keys are in scratch.
}

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_RADIX_SORT_H_
