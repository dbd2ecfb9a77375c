// PyTorch CUDA memory snapshot (pickle, plain or gzip) -> XSpace memory
// events that the profile plugin's memory_profile tool shows.
//
// On `/host:CPU`, one line per device ("GPU:<d> memory snapshot"):
// - first, one `MemoryAllocation` per block live before recording began, at
//   the time of the device's first event (region_type "before recording");
// - then one `MemoryAllocation` per `alloc` and one `MemoryDeallocation`
//   per `free_completed`, at the event's time_us (or, when the snapshot has
//   no times, 1 us apart in trace order, with a warning).
// Each carries stats allocator_name ("GPU_<d>_caching"), int64
// bytes_allocated (running total after the event, rules in
// memory_snapshot_analysis.h), bytes_available (PyTorch's reserved minus
// allocated bytes: the free part of the segments), bytes_reserved 0 (the
// plugin counts it as stack memory on top of bytes_allocated), double
// fragmentation (available / (allocated + available)),
// peak_bytes_in_use (running maximum), requested_bytes and
// allocation_bytes (the block size), addr, plus ref stats tf_op (the
// innermost user frame "file:line:function") and kStackStatName (every
// frame, innermost first, one per line). OOM events become XSpace warnings.
#ifndef TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_TO_XSPACE_H_
#define TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_TO_XSPACE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/memory_snapshot/memory_snapshot.h"
#include "converters/memory_snapshot/memory_snapshot_analysis.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

// Name of the stat holding an allocation's stack frames.
inline constexpr absl::string_view kStackStatName = "stack_frames";
// region_type of the allocations live before recording began.
inline constexpr absl::string_view kBeforeRecordingRegion = "before recording";

struct MemorySnapshotOptions {
  uint64_t max_inflated_bytes = 0;  // gzip-bomb guard; 0 = unlimited.
};

// What the snapshot says (for `report` and `inspect`), besides the XSpace.
struct MemorySnapshotSummary {
  memory_snapshot::SnapshotAnalysis analysis;
  // The stacks of the blocks live at each device's peak, as text (frames
  // innermost first, one per line), indexed by stack id
  // (LiveBlock::stack); "" for the stacks of no such block.
  std::vector<std::string> stack_texts;
  int64_t trace_events = 0;
  int64_t memory_events = 0;  // XSpace events written.
  int64_t segments = 0;
  int64_t distinct_stacks = 0;

  // The stack text of block `block` of analysis.devices[device].live_at_peak
  // ("" when out of range or without frames).
  absl::string_view LiveAtPeakStack(size_t device, size_t block) const {
    if (device >= analysis.devices.size()) return "";
    if (block >= analysis.devices[device].live_at_peak.size()) return "";
    const uint32_t stack = analysis.devices[device].live_at_peak[block].stack;
    return stack < stack_texts.size() ? absl::string_view(stack_texts[stack]) : "";
  }
};

// Reads `path` and fills `space` (through XSpaceBuilder, finalized). Errors
// name `path`: kNotFound / kPermissionDenied, those of ReadMemorySnapshot
// (byte offsets), kInvalidArgument for a snapshot with no data.
absl::StatusOr<MemorySnapshotSummary> ConvertMemorySnapshotToXSpace(
    const std::string& path, const MemorySnapshotOptions& options, xplane::XSpaceData* space);

// The same from a snapshot already read (`source` names it in warnings).
MemorySnapshotSummary ConvertSnapshotToXSpace(const memory_snapshot::Snapshot& snapshot,
                                              xplane::XSpaceData* space);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_TO_XSPACE_H_
