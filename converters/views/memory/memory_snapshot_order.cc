#include "converters/views/memory/memory_snapshot_order.h"

#include <algorithm>
#include <utility>

#include "src/base/radix_sort.h"
#include "src/base/radix_sort_pairs.h"

namespace tbprof::views::memory_profile {
namespace {

// x % 1000 == 0, by multiplying with the inverse of 125 modulo 2^64 (the
// multiples of 125 are exactly the x that map to at most max / 125).
bool DivisibleBy1000(uint64_t x) {
  constexpr uint64_t kInv125 = [] {
    uint64_t a = 125, inv = a;  // Newton's iteration doubles the correct low bits.
    for (int i = 0; i < 6; ++i) inv *= 2 - a * inv;
    return inv;
  }();
  return (x & 7) == 0 && x * kInv125 <= UINT64_MAX / 125;
}

}  // namespace

void OrderByAllocator(absl::Span<const Snap> snaps, size_t num_allocators,
                      std::vector<uint32_t>* order, std::vector<size_t>* first) {
  std::vector<size_t>& first_snap = *first;  // Of allocator a: [a], [a + 1].
  first_snap.assign(num_allocators + 1, 0);
  for (const Snap& s : snaps) ++first_snap[s.allocator + 1];
  for (size_t a = 0; a < num_allocators; ++a) first_snap[a + 1] += first_snap[a];
  order->resize(snaps.size());
  std::vector<size_t> next(first_snap.begin(), first_snap.end() - 1);
  for (size_t i = 0; i < snaps.size(); ++i) {
    (*order)[next[snaps[i].allocator]++] = static_cast<uint32_t>(i);
  }
}

void SortByTime(const Snap* snaps, absl::Span<uint32_t> order) {
  const size_t n = order.size();
  // Where each ascending run starts (up to kMaxMergedRuns + 1 of them).
  constexpr size_t kMaxMergedRuns = 8;
  std::vector<size_t> run_begin = {0};
  for (size_t i = 1; i < n && run_begin.size() <= kMaxMergedRuns; ++i) {
    if (snaps[order[i]].time_ps < snaps[order[i - 1]].time_ps) run_begin.push_back(i);
  }
  if (run_begin.size() == 1) return;
  auto earlier = [snaps](uint32_t a, uint32_t b) { return snaps[a].time_ps < snaps[b].time_ps; };
  if (run_begin.size() <= kMaxMergedRuns) {
    // Few runs (one per thread line): merge neighbours pairwise, in place
    // (std::inplace_merge is stable: the first range's element goes first
    // on ties).
    run_begin.push_back(n);
    while (run_begin.size() > 2) {
      std::vector<size_t> merged = {0};
      for (size_t r = 0; r + 1 < run_begin.size(); r += 2) {
        const size_t begin = run_begin[r], mid = run_begin[r + 1];
        const size_t end = r + 2 < run_begin.size() ? run_begin[r + 2] : mid;
        std::inplace_merge(order.begin() + begin, order.begin() + mid, order.begin() + end,
                           earlier);
        merged.push_back(end);
      }
      run_begin = std::move(merged);
    }
    return;
  }
  int64_t min_ps = snaps[order[0]].time_ps, max_ps = min_ps;
  for (uint32_t index : order) {
    min_ps = std::min(min_ps, snaps[index].time_ps);
    max_ps = std::max(max_ps, snaps[index].time_ps);
  }
  const uint64_t base = static_cast<uint64_t>(min_ps);
  bool whole_ns = true;
  for (uint32_t index : order) {
    whole_ns &= DivisibleBy1000(static_cast<uint64_t>(snaps[index].time_ps) - base);
  }
  const uint64_t unit = whole_ns ? 1000 : 1;
  const uint64_t range = (static_cast<uint64_t>(max_ps) - base) / unit;
  int range_bits = 0, index_bits = 0;
  while (range_bits < 64 && (range >> range_bits) != 0) ++range_bits;
  while (index_bits < 64 && ((n - 1) >> index_bits) != 0) ++index_bits;
  std::vector<uint32_t> by_position(order.begin(), order.end());
  if (range_bits + index_bits <= 64) {
    std::vector<uint64_t> keys(n), scratch;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t time = (static_cast<uint64_t>(snaps[by_position[i]].time_ps) - base) / unit;
      keys[i] = index_bits == 0 ? time : time << index_bits | i;
    }
    RadixSortUint64(&keys, &scratch);  // Keys are unique: the order is total.
    const uint64_t mask = index_bits == 0 ? 0 : UINT64_MAX >> (64 - index_bits);
    for (size_t i = 0; i < n; ++i) order[i] = by_position[keys[i] & mask];
    return;
  }
  std::vector<KeyValue> items(n), scratch;
  for (size_t i = 0; i < n; ++i) {
    items[i] = {(static_cast<uint64_t>(snaps[by_position[i]].time_ps) - base) / unit,
                static_cast<uint32_t>(i)};
  }
  RadixSortPairs(&items, &scratch);  // Stable: equal times keep their positions.
  for (size_t i = 0; i < n; ++i) order[i] = by_position[items[i].value];
}

}  // namespace tbprof::views::memory_profile
