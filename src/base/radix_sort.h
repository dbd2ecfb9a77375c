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

// Sorts `keys` stably by bits [first_bit, end_bit) alone (least significant
// digit first, 11 bits per pass): keys equal in those bits keep their order,
// whatever their other bits hold. `scratch` is working memory, resized as
// needed. A digit that every key shares costs one counting pass, no move.
inline void RadixSortUint64Bits(std::vector<uint64_t>* keys, std::vector<uint64_t>* scratch,
                                int first_bit, int end_bit) {
  const size_t n = keys->size();
  if (n < 2) return;
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  scratch->resize(n);
  uint64_t* from = keys->data();
  uint64_t* to = scratch->data();
  for (int shift = first_bit; shift < end_bit && shift < 64; shift += kDigitBits) {
    // The last digit may reach past end_bit: mask it off so that bits at or
    // above end_bit never order the keys.
    const int width = std::min(kDigitBits, end_bit - shift);
    const uint64_t mask = (uint64_t{1} << width) - 1;
    std::array<size_t, kBuckets> count{};
    for (size_t i = 0; i < n; ++i) ++count[(from[i] >> shift) & mask];
    if (count[(from[0] >> shift) & mask] == n) continue;  // One digit: no move.
    size_t sum = 0;
    for (size_t& c : count) {
      const size_t c0 = c;
      c = sum;
      sum += c0;
    }
    for (size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys->data()) keys->swap(*scratch);  // The sorted keys are in scratch.
}

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
  int end_bit = 0;
  while (end_bit < 64 && (all_bits >> end_bit) != 0) ++end_bit;
  RadixSortUint64Bits(keys, scratch, 0, end_bit);
}

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_RADIX_SORT_H_
