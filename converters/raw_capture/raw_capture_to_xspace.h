// Converts a raw capture of our CUPTI collector (docs/raw_capture_format.md)
// into the post-processed XSpace the TensorBoard profile plugin expects:
//   /host:CPU         one line per host thread: CUDA runtime/driver API events
//                     (correlation_id), NVTX ranges (a range matching the
//                     capture's step pattern, default "ProfilerStep#*", is a
//                     step root: _r = 1, step_num = N; tbprof_step() markers
//                     become "ProfilerStep#N" roots when there are no NVTX
//                     steps), MemoryAllocation/MemoryDeallocation events from
//                     MEMORY2 records with running totals per allocator, and a
//                     "CUPTI overhead" line;
//   /device:GPU:<n>   one plane per device, device stats from the captured
//                     device properties, one "Stream #<id>" line per stream
//                     with kernels (kernel_details with occupancy,
//                     theoretical_occupancy_pct), memcpys (MemcpyHToD-style
//                     names, memcpy_details) and memsets (Memset_details), all
//                     with correlation_id; synchronizations on
//                     "CUDA sync (stream <id>)" lines.
// Timestamps are CUPTI's (CLOCK_REALTIME on Linux) mapped to epoch time with
// the capture's calibration. Records with zero, inverted or out-of-window
// times are skipped and counted; capture damage, drops and collection errors
// become XSpace warnings/errors. No CUDA needed.
#ifndef TBPROF_CONVERTERS_RAW_CAPTURE_RAW_CAPTURE_TO_XSPACE_H_
#define TBPROF_CONVERTERS_RAW_CAPTURE_RAW_CAPTURE_TO_XSPACE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "src/capture/raw_capture.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

struct RawCaptureOptions {
  // Records may start this long before the capture's start or end after its
  // stop and still count as inside the window.
  int64_t window_slack_ns = 1000000000;
};

struct RawCaptureSummary {
  int64_t activity_buffers = 0;
  int64_t records = 0;
  int64_t api_events = 0, kernels = 0, memcpys = 0, memsets = 0, syncs = 0;
  int64_t nvtx_ranges = 0, memory_events = 0, overheads = 0;
  int64_t step_roots = 0;
  int64_t records_bad_time = 0;     // zero, inverted or outside the window
  int64_t records_not_shown = 0;    // kinds with no XSpace form (MARKER_DATA, ...)
  int64_t unmatched_markers = 0;    // NVTX starts without end (or ends without start)
  int64_t buffers_cut_short = 0;    // walks that stopped at an unknown kind
  int64_t events_moved = 0;     // partial overlaps moved to "(overlapping)" lines
  std::string hostname;
};

// Reads `path` and fills `out` (must be empty) with a finalized XSpace.
// Errors: those of capture::LoadRawCapture (kNotFound, kInvalidArgument,
// kDataLoss for a broken header, kUnimplemented). Damage after the header is
// reported in XSpace.warnings, never an error.
absl::StatusOr<RawCaptureSummary> ConvertRawCaptureToXSpace(const std::string& path,
                                                            const RawCaptureOptions& options,
                                                            xplane::XSpaceData* out);

// Same for a capture already in memory.
RawCaptureSummary ConvertLoadedRawCaptureToXSpace(const capture::RawCapture& capture,
                                                  const RawCaptureOptions& options,
                                                  xplane::XSpaceData* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_RAW_CAPTURE_RAW_CAPTURE_TO_XSPACE_H_
