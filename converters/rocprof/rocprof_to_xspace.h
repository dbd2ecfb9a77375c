// Converts rocprofv3 JSON (rocprofiler-sdk's `rocprofv3 --output-format
// json`, a {"rocprofiler-sdk-tool": [...]} document, plain or gzip) into the
// post-processed XSpace the TensorBoard profile plugin expects:
//   /device:GPU:<n>  one plane per GPU agent (agent type 2; CPU agents are
//                    not GPUs), n = the agent's gpu_index (else its
//                    logical_node_type_id), with device stats (AMD, product
//                    name, clock, CU count, memory size); one line
//                    "Queue #<id>" per HSA queue with the kernel dispatches
//                    (name from kernel_symbols: formatted, else demangled,
//                    else mangled name), `correlation_id` (the internal
//                    correlation id) and `kernel_details` (see below); one
//                    line "Memory copies" with MemcpyHToD/DToH/DToD/PToP
//                    events (direction from the agents' types) and
//                    `memcpy_details` num_bytes;
//   /host:CPU        one line per thread: HIP, HSA, RCCL, rocDecode and
//                    rocJPEG API calls named by `strings.buffer_records`,
//                    with `correlation_id` (so launches meet their
//                    kernels); roctx markers named by their message;
//                    MemoryAllocation / MemoryDeallocation events from
//                    memory_allocation records with running totals per
//                    allocator ("GPU_<n>_hip", "hip_host").
// kernel_details: regs = arch + accumulation VGPRs per work-item,
// static_shared = the symbol's group segment (LDS) size, dynamic_shared =
// the dispatch's group segment size minus it, grid = workgroups per
// dimension (rocprofiler's grid_size counts work-items), block = workgroup
// size, then `sgpr:`, `agpr:` and `scratch:` (private segment bytes per
// work-item), which the plugin ignores. No occ_pct: ROCm has no occupancy
// in the plugin's (CUDA) sense.
// Time: rocprofiler's timestamps are nanoseconds of the profiled node's
// monotonic clock; they are kept as they are (the Task Environment's epoch
// is that clock). Records with inverted times, kernels of unknown agents
// and copies between two CPU agents are skipped and counted in
// XSpace.warnings.
#ifndef TBPROF_CONVERTERS_ROCPROF_ROCPROF_TO_XSPACE_H_
#define TBPROF_CONVERTERS_ROCPROF_ROCPROF_TO_XSPACE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/rocprof/rocprof_json.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

struct RocprofOptions {
  // Gzip-bomb guard: inflated bytes allowed (0 = unlimited).
  uint64_t max_inflated_bytes = 0;
  // Stop with kResourceExhausted once the process's resident memory passes
  // this many bytes (0 = no limit); checked while reading and after parsing.
  uint64_t max_memory_bytes = 0;
  // Called now and then with (input file bytes consumed, input file size).
  std::function<void(uint64_t, uint64_t)> progress;
};

struct RocprofSummary {
  int64_t processes = 0;
  int64_t gpus = 0;             // GPU agents (planes).
  int64_t kernels = 0;          // Kernel dispatches written.
  int64_t api_events = 0;       // HIP/HSA/RCCL/... API calls written.
  int64_t markers = 0;          // roctx markers written.
  int64_t memory_copies = 0;
  int64_t memory_events = 0;    // MemoryAllocation + MemoryDeallocation.
  int64_t records_bad_time = 0;        // end < start, or times out of range.
  int64_t kernels_unknown_agent = 0;   // Not on a GPU agent of the file.
  int64_t kernels_unknown_symbol = 0;  // kernel_id without a kernel symbol.
  int64_t copies_without_gpu = 0;      // Neither side a GPU agent.
  int64_t frees_unmatched = 0;         // Frees of addresses never allocated.
  int64_t records_not_shown = 0;       // Arrays with no XSpace form (scratch, ...).
  int64_t events_moved = 0;            // Partial overlaps moved to "(overlapping)" lines.
  std::string hostname;
};

// Reads `path` (plain or gzip) and fills `out` (must be empty) with a
// finalized XSpace. Errors: those of OpenInputStream (kNotFound, kDataLoss
// for damaged gzip, kResourceExhausted past max_inflated_bytes or
// max_memory_bytes), and
// kInvalidArgument naming `path` and the byte offset for text that is not
// JSON or not of rocprofv3's shape (ParseRocprofJson).
absl::StatusOr<RocprofSummary> ConvertRocprofToXSpace(const std::string& path,
                                                      const RocprofOptions& options,
                                                      xplane::XSpaceData* out);

// The same for JSON text in memory (copied once to add simdjson's padding);
// `source` names it in errors.
absl::StatusOr<RocprofSummary> ConvertRocprofJsonTextToXSpace(absl::string_view text,
                                                              absl::string_view source,
                                                              xplane::XSpaceData* out);

// The mapping alone, from a parsed profile; never fails.
RocprofSummary MapRocprofToXSpace(const RocprofProfile& profile, xplane::XSpaceData* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_ROCPROF_ROCPROF_TO_XSPACE_H_
