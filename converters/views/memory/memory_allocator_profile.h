// One allocator's PerAllocatorMemoryProfile (internal to
// xspace_to_memory_profile.cc): its summary (lifetime peak, peak stats and
// capacity), sampled timeline snapshots and active allocations at the peak,
// with the step ids and deallocation texts of its snapshots filled in, as
// documented for ConvertXSpaceToMemoryProfile() in
// xspace_to_memory_profile.h.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_ALLOCATOR_PROFILE_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_ALLOCATOR_PROFILE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "converters/views/memory/memory_snap.h"
#include "converters/views/memory/memory_step_finder.h"
#include "converters/views/memory/xspace_to_memory_profile.h"
#include "proto/memory_profile.pb.h"

namespace tbprof::views::memory_profile {

// What one allocator's events give in plane order, as the plugin visits
// them: the lifetime peak is the last event's peak_bytes_in_use; the peak
// is the last event whose stack + heap reaches the largest value seen so
// far (the first event if none does).
struct AllocatorSummary {
  int64_t lifetime_peak = 0;
  uint32_t peak_snap = 0;  // Index (in plane order) of the peak event.
  int64_t peak_in_use = 0;
  int64_t peak_snap_in_use = 0;  // The in_use of the peak event.
  bool seen = false;

  // `s` is snapshot `snap`.
  void Add(uint32_t snap, const Snap& s, int64_t peak_bytes_in_use) {
    if (!seen) {
      peak_snap = snap;
      peak_snap_in_use = s.in_use;
    }
    seen = true;
    lifetime_peak = peak_bytes_in_use;
    if (s.in_use >= peak_in_use) {
      peak_in_use = s.in_use;
      peak_snap = snap;
      peak_snap_in_use = s.in_use;
    }
  }
};

// `order` holds the indices into `all_snaps` of one allocator's snapshots,
// in plane order; sorted by time here (SortByTime()). Sets the snapshots'
// step ids (from `steps` where they have none) and gives deallocations their
// allocation's texts, then fills `out`. `summary_in`: AllocatorSummary of
// the same snapshots, added in plane order.
void BuildAllocatorProfile(Snap* all_snaps, absl::Span<uint32_t> order,
                           const AllocatorSummary& summary_in, const SnapContext& context,
                           const StepFinder& steps, const MemoryProfileOptions& options,
                           tensorflow::profiler::PerAllocatorMemoryProfile* out);

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_ALLOCATOR_PROFILE_H_
