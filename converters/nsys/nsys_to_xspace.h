// Converts an Nsight Systems SQLite export (`nsys export --type sqlite`, any
// schema from 2.x to 3.x; tables and columns are read by name) into the
// post-processed XSpace the TensorBoard profile plugin and tbprof's views read
// (docs/nsys.md has the full mapping):
//   /host:CPU        one line per host thread (named from ThreadNames, with
//                    the pid when the export holds several processes): CUDA
//                    runtime and driver API calls (CUPTI_ACTIVITY_KIND_RUNTIME
//                    / _DRIVER, names without "_v<N>", correlation_id) and
//                    NVTX ranges. PyTorch `emit_nvtx` ranges
//                    ("aten::mm, op_id = 12, sizes = [...]") become ops named
//                    "aten::mm" with a tf_op stat; "ProfilerStep#N" ranges
//                    become step roots (_r = 1, step_num = N).
//   /device:GPU:<n>  one plane per deviceId, device stats from TARGET_INFO_GPU
//                    when present, one "Stream #<streamId>" line per stream:
//                    kernels (demangled name, kernel_details from the launch
//                    configuration, theoretical_occupancy_pct when the device
//                    properties are known, cuda_graph_id, tf_op of the NVTX op
//                    around the launch), memcpys ("MemcpyHToD"... with
//                    memcpy_details) and memsets ("Memset", Memset_details),
//                    all with correlation_id.
//   "/device:CUSTOM:GPU <n> annotations"  CUDA synchronizations and CUDA
//                    graph launches (GRAPH_TRACE), off the stream lines.
// Times are absolute: TARGET_INFO_SESSION_START_TIME.utcEpochNs + the
// export's nanoseconds. Rows with NULL or inverted times are skipped and
// counted in a warning; so is everything a missing column hides.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_TO_XSPACE_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_TO_XSPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

struct NsysOptions {
  // Only the events of this process (PROCESSES.pid); -1: every process.
  int64_t pid = -1;
};

struct NsysProcess {
  int64_t pid = 0;
  std::string name;
  int64_t kernels = 0;  // Kernels it launched (all devices).
};

struct NsysSummary {
  std::string product_version;  // "2026.2.1.210", "" if not recorded.
  std::string schema_version;   // "3.25.0", "" if not recorded.
  std::string hostname;         // TARGET_INFO_SYSTEM_ENV Hostname, "" if none.
  int64_t session_start_epoch_ns = 0;
  int64_t api_calls = 0, kernels = 0, memcpys = 0, memsets = 0, syncs = 0;
  int64_t graph_launches = 0, nvtx_ranges = 0, ops = 0, step_roots = 0;
  int64_t rows_bad_time = 0;  // NULL or inverted start/end.
  int64_t events_moved = 0;   // Partial overlaps moved to "(overlapping)" lines.
  // Processes that ran GPU work or called CUDA, by pid.
  std::vector<NsysProcess> processes;
};

// Reads the export at `path` and fills `out` (must be empty) with a finalized
// XSpace. Errors, each naming `path` (and the table where there is one):
// kNotFound, kInvalidArgument (not an SQLite database, or an SQLite database
// that is not an Nsight Systems export), kDataLoss (truncated or corrupt).
// An unknown schema version or missing columns are warnings in
// `out->warnings`, never silently wrong numbers.
absl::StatusOr<NsysSummary> ConvertNsysSqliteToXSpace(const std::string& path,
                                                      const NsysOptions& options,
                                                      xplane::XSpaceData* out);

// The processes of the export that ran GPU work or called CUDA (to convert
// one host per process with NsysOptions::pid). Errors as above.
absl::StatusOr<std::vector<NsysProcess>> ListNsysProcesses(const std::string& path);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_TO_XSPACE_H_
