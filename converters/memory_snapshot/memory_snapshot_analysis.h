// What a memory snapshot says about each device: allocated and reserved
// bytes over the trace, the peak, the blocks live at the peak with their
// stacks, and the segments and fragmentation at dump time.
//
// Rules (those of PyTorch's memory_viz "Active Memory Timeline"):
// - Allocated bytes change at `alloc` (+size) and `free_completed` (-size);
//   `free_requested` changes nothing (the block stays in use until its
//   streams are done with it). Reserved bytes change at `segment_alloc` /
//   `segment_map` (+size) and `segment_free` / `segment_unmap` (-size).
// - Blocks live before recording began count from the start: a
//   `free_completed` whose address was not allocated earlier in the trace,
//   and a block still active (allocated or pending free) in `segments` at
//   dump time that the trace did not allocate. Likewise for segments.
// - The peak is the largest running allocated value, at its first event
//   (index -1 when the start state is the peak).
#ifndef TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_ANALYSIS_H_
#define TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "converters/memory_snapshot/memory_snapshot.h"

namespace tbprof::converters::memory_snapshot {

struct LiveBlock {
  uint64_t addr = 0;
  int64_t size = 0;
  int64_t stream = 0;
  uint32_t stack = 0;           // Of its alloc (or of its free / dump block if before recording).
  bool before_recording = false;
  int64_t alloc_event = -1;     // Index in the device trace; -1 before recording.
};

struct DeviceMemory {
  int64_t device = 0;
  int64_t trace_events = 0;
  int64_t allocs = 0;
  int64_t frees = 0;  // free_completed.
  int64_t ooms = 0;
  int64_t initial_allocated_bytes = 0;  // Live before recording began.
  int64_t initial_reserved_bytes = 0;
  std::vector<LiveBlock> initial_blocks;  // Those blocks, in address order.
  int64_t peak_allocated_bytes = 0;
  int64_t peak_event = -1;       // Index in the device trace; -1 = the start.
  int64_t peak_time_us = 0;      // Of the peak event (0 without times).
  int64_t reserved_at_peak_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  std::vector<LiveBlock> live_at_peak;  // Largest first; sums to the peak.
  int64_t final_allocated_bytes = 0;    // After the last event.
  int64_t final_reserved_bytes = 0;
  // At dump time, from `segments`.
  int64_t segments = 0;
  int64_t segment_reserved_bytes = 0;
  int64_t segment_active_bytes = 0;
  int64_t fragmentation_bytes = 0;  // Reserved but not active.
  int64_t largest_free_block_bytes = 0;
  int64_t free_blocks = 0;
};

struct SnapshotAnalysis {
  std::vector<DeviceMemory> devices;  // By device number.
  bool has_times = true;  // Every allocator event has time_us.
  int64_t events_without_time = 0;
  std::vector<std::string> warnings;
};

SnapshotAnalysis AnalyzeSnapshot(const Snapshot& snapshot);

// AnalyzeSnapshot() in two steps, for a caller that needs each device's
// state before recording began first (the converter emits the memory events
// from it while the peaks are found on another thread).
// AnalyzeStartState() fills `devices` (device, trace_events, allocs, frees,
// ooms, initial_*, and the segment fields at dump time), has_times and
// events_without_time. FinishAnalysis() then fills the peak fields,
// live_at_peak and final_* of each device and the warnings; it writes no
// other field, so another thread may read those of the first step (and
// the snapshot) meanwhile.
SnapshotAnalysis AnalyzeStartState(const Snapshot& snapshot);
void FinishAnalysis(const Snapshot& snapshot, SnapshotAnalysis* analysis);

// Running allocated bytes after each event of `device`'s trace, starting
// from `memory.initial_allocated_bytes` (reserved likewise). Used by the
// converter and the tests.
struct RunningBytes {
  int64_t allocated = 0;
  int64_t reserved = 0;
  bool changed_allocated = false;  // The event was an alloc or free_completed.
};
// Calls `fn(index, event, running)` for every event of the device's trace.
template <typename Fn>
void ForEachRunning(const Snapshot& snapshot, const DeviceMemory& memory, Fn fn);

// "filename:line:name" of frame `f`.
std::string FrameText(const Snapshot& snapshot, const Frame& f);
// The frames of `stack`, innermost first, one per line.
std::string StackText(const Snapshot& snapshot, uint32_t stack);
// The innermost frame of user code (a .py file outside torch's own
// package), else the innermost Python frame, else the innermost frame;
// "" for an empty stack.
std::string UserFrameText(const Snapshot& snapshot, uint32_t stack);

// Sizes above this are malformed (a snapshot field out of any real range).
inline constexpr int64_t kMaxSizeBytes = int64_t{1} << 52;

// a + b, held at the int64 range instead of overflowing.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

// ---- implementation ----

template <typename Fn>
void ForEachRunning(const Snapshot& snapshot, const DeviceMemory& memory, Fn fn) {
  if (memory.device < 0 || static_cast<size_t>(memory.device) >= snapshot.device_traces.size()) {
    return;
  }
  RunningBytes r{memory.initial_allocated_bytes, memory.initial_reserved_bytes, false};
  const std::vector<uint32_t>& trace = snapshot.device_traces[memory.device];
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceEvent& e = snapshot.events[trace[i]];
    r.changed_allocated = false;
    switch (e.action) {
      case Action::kAlloc: r.allocated = SaturatingAdd(r.allocated, e.size); r.changed_allocated = true; break;
      case Action::kFreeCompleted: r.allocated = SaturatingAdd(r.allocated, -e.size); r.changed_allocated = true; break;
      case Action::kSegmentAlloc:
      case Action::kSegmentMap: r.reserved = SaturatingAdd(r.reserved, e.size); break;
      case Action::kSegmentFree:
      case Action::kSegmentUnmap: r.reserved = SaturatingAdd(r.reserved, -e.size); break;
      default: break;
    }
    fn(i, e, r);
  }
}

}  // namespace tbprof::converters::memory_snapshot

#endif  // TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_ANALYSIS_H_
