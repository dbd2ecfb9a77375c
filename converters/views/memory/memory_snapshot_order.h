// The order of the memory profile's snapshots (internal to
// xspace_to_memory_profile.cc and its helpers), as indices into one vector
// of all snapshots in plane order; the snapshots themselves never move.
//  * OrderByAllocator(): each allocator's snapshots as one run of indices,
//    allocator 0 first, in plane order within a run (a stable counting sort).
//  * SortByTime(): one run sorted by time_ps, stably (equal times keep plane
//    order), whatever path it takes: nothing for an ascending run, merges
//    for a few ascending runs (one per thread line), else a radix sort.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAPSHOT_ORDER_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAPSHOT_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "converters/views/memory/memory_snap.h"

namespace tbprof::views::memory_profile {

// Fills `order` with the indices of `snaps` grouped by Snap::allocator
// (each < num_allocators), and `first` (num_allocators + 1 entries) with
// where each allocator's run begins: allocator a's indices are
// order[first[a]] .. order[first[a + 1] - 1], ascending.
void OrderByAllocator(absl::Span<const Snap> snaps, size_t num_allocators,
                      std::vector<uint32_t>* order, std::vector<size_t>* first);

// Sorts `order` (indices into `snaps`, ascending) by the snapshots' time,
// stably: by (time, place in plane order). Events of one line are already
// in time order, so the common single-thread case costs one check and a few
// threads a merge of their runs; otherwise a radix sort of packed
// (time - min) / unit << index bits | position keys (the unit 1000 when
// every time difference is a multiple of it), or of (time, position) pairs
// when those do not fit in 64 bits.
void SortByTime(const Snap* snaps, absl::Span<uint32_t> order);

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAPSHOT_ORDER_H_
