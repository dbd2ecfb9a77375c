// What `tbprof report` shows of a memory snapshot beyond the memory profile
// view (which already has the peak and the blocks live at it by tf_op): per
// device the peak with reserved bytes then, the blocks live before
// recording, the segments and fragmentation at dump time, and the blocks
// live at the peak with their stack frames (Python and C++).
//
// For the report's integrator: text for the terminal, a JSON object for
// `--json` (put under "memory_snapshot"), and an HTML fragment for
// `--html`; each from the MemorySnapshotSummary of LoadedInput.
#ifndef TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_REPORT_H_
#define TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_REPORT_H_

#include <string>

#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"

namespace tbprof::converters {

struct MemorySnapshotReportOptions {
  int max_blocks = 10;  // Blocks live at the peak shown per device (largest first).
  int max_frames = 12;  // Frames shown per block (innermost first).
};

// The devices the snapshot recorded, for the report's "Device" line (the
// XSpace has no GPU planes, so the run environment alone would say CPU):
// "CUDA GPU <d>, <d>... (memory snapshot)" with the device numbers in
// order, e.g. "CUDA GPU 0, 1 (memory snapshot)"; "CUDA GPU (memory
// snapshot)" when it names none.
std::string MemorySnapshotDeviceType(const MemorySnapshotSummary& summary);

// Terminal text, one section per device, lines of at most ~100 columns.
std::string FormatMemorySnapshotText(const MemorySnapshotSummary& summary,
                                     const MemorySnapshotReportOptions& options = {});

// One JSON object: {"devices": [{"device", "peak_allocated_bytes",
// "peak_event", "peak_time_us", "reserved_at_peak_bytes",
// "peak_reserved_bytes", "initial_allocated_bytes",
// "initial_reserved_bytes", "final_allocated_bytes", "allocs", "frees",
// "ooms", "segments", "segment_reserved_bytes", "segment_active_bytes",
// "fragmentation_bytes", "largest_free_block_bytes", "free_blocks",
// "live_at_peak": [{"addr", "size", "stream", "before_recording",
// "alloc_event", "frames": ["file:line:name", ...]}]}], "has_times",
// "warnings": [...]}. Every block live at the peak is listed (no limit).
std::string MemorySnapshotToJson(const MemorySnapshotSummary& summary);

// An HTML fragment (<section>, escaped text, tables), self-contained.
std::string MemorySnapshotToHtml(const MemorySnapshotSummary& summary,
                                 const MemorySnapshotReportOptions& options = {});

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_REPORT_H_
