// Reading side of rocprofv3 JSON (rocprofiler-sdk's `--output-format json`,
// the `rocprofiler-sdk-tool` document): one On-Demand pass (simdjson) over
// the text that keeps only what the XSpace mapping needs, as compact records.
//
// The document is {"rocprofiler-sdk-tool": [<process>, ...]}; each process
// object holds `metadata` (pid, node.hostname, init_time), `agents` (type
// 1 = CPU, 2 = GPU), `strings.buffer_records` (per buffer-tracing kind, at
// its kind's index, the names of its operations), `strings.marker_api`
// ({key: correlation id, value: message}), `kernel_symbols` and
// `buffer_records` with arrays `kernel_dispatch`, `memory_copy`,
// `memory_allocation` and the API arrays `hip_api`, `hsa_api`, `rccl_api`,
// `marker_api`, `rocdecode_api`, `rocjpeg_api`. Members may come in any
// order; unknown members are skipped, so newer files still read.
#ifndef TBPROF_CONVERTERS_ROCPROF_ROCPROF_JSON_H_
#define TBPROF_CONVERTERS_ROCPROF_ROCPROF_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::converters {

// Agent `type` values of rocprofiler_agent_type_t.
inline constexpr int64_t kRocprofAgentCpu = 1;
inline constexpr int64_t kRocprofAgentGpu = 2;

struct RocprofAgent {
  uint64_t handle = 0;          // id.handle: what records refer to.
  int64_t type = 0;             // kRocprofAgentCpu / kRocprofAgentGpu.
  int64_t gpu_index = -1;       // gpu_index (or logical_node_type_id for GPUs).
  int64_t logical_node_type_id = -1;
  std::string name;             // "gfx950"
  std::string product_name;     // "AMD Instinct MI350X"
  int64_t cu_count = 0;
  int64_t simd_per_cu = 0;
  int64_t wave_front_size = 0;
  int64_t max_waves_per_cu = 0;
  int64_t lds_size_in_kb = 0;
  int64_t workgroup_max_size = 0;
  int64_t max_engine_clk_fcompute_mhz = 0;
  int64_t memory_bytes = 0;     // Sum of mem_banks[].size_in_bytes.
};

struct RocprofKernelSymbol {
  // formatted_kernel_name, else demangled_kernel_name, else kernel_name
  // (the first non-empty one).
  std::string name;
  int64_t group_segment_size = 0;    // Static LDS bytes per workgroup.
  int64_t private_segment_size = 0;  // Scratch bytes per work-item.
  int64_t sgpr_count = 0;
  int64_t arch_vgpr_count = 0;
  int64_t accum_vgpr_count = 0;
};

struct RocprofDispatch {
  uint64_t kernel_id = 0;
  uint64_t agent = 0;      // dispatch_info.agent_id.handle
  uint64_t queue = 0;      // dispatch_info.queue_id.handle
  uint64_t stream = 0;     // stream_id.handle (0 when absent)
  uint64_t correlation = 0;  // correlation_id.internal
  uint64_t thread_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  int64_t grid[3] = {1, 1, 1};       // grid_size: work-items, not workgroups.
  int64_t workgroup[3] = {1, 1, 1};  // workgroup_size
  int64_t lds_bytes = 0;      // dispatch_info.group_segment_size (static + dynamic)
  int64_t scratch_bytes = 0;  // dispatch_info.private_segment_size
};

// A record of an API array (hip_api, hsa_api, rccl_api, marker_api, ...).
struct RocprofApiCall {
  int64_t kind = 0;       // Buffer-tracing kind (index into the kind names).
  int64_t operation = 0;  // Index into that kind's operation names.
  uint64_t correlation = 0;
  uint64_t thread_id = 0;
  int64_t start_ns = 0, end_ns = 0;
};

struct RocprofMemoryCopy {
  int64_t kind = 0, operation = 0;
  uint64_t correlation = 0, thread_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t src_agent = 0, dst_agent = 0;
  uint64_t bytes = 0;
};

struct RocprofMemoryAllocation {
  int64_t kind = 0, operation = 0;
  uint64_t correlation = 0, thread_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t agent = 0;
  uint64_t address = 0;  // "0x..." in the file.
  uint64_t bytes = 0;    // allocation_size (0 on frees).
};

struct RocprofProcess {
  int64_t pid = 0;
  std::string hostname;
  std::vector<RocprofAgent> agents;
  // strings.buffer_records: names of kinds and of their operations, by kind.
  std::vector<std::string> kind_names;
  std::vector<std::vector<std::string>> operation_names;
  absl::flat_hash_map<uint64_t, std::string> marker_messages;  // By correlation id.
  absl::flat_hash_map<uint64_t, RocprofKernelSymbol> kernel_symbols;  // By kernel_id.
  std::vector<RocprofDispatch> dispatches;
  std::vector<RocprofApiCall> api_calls;
  std::vector<RocprofMemoryCopy> copies;
  std::vector<RocprofMemoryAllocation> allocations;
  int64_t records_skipped = 0;  // Records of arrays with no XSpace form.

  // Name of `operation` of `kind`, or "" if the file has none.
  absl::string_view OperationName(int64_t kind, int64_t operation) const;
  absl::string_view KindName(int64_t kind) const;
};

struct RocprofProfile {
  std::vector<RocprofProcess> processes;
};

// True if `head` (the first bytes of a file, after gzip) starts a JSON
// object whose first member is "rocprofiler-sdk-tool" (leading whitespace
// and a UTF-8 BOM allowed).
bool LooksLikeRocprofJson(absl::string_view head);

// Parses a whole rocprofv3 JSON document. `text` must be followed by at
// least kRocprofJsonPadding readable bytes (simdjson reads past the end);
// `source` names the input in errors. Errors: kInvalidArgument naming
// `source`, the byte offset and what was expected ("a rocprofv3 JSON of
// another shape": a missing or mistyped member, a truncated document).
inline constexpr size_t kRocprofJsonPadding = 64;
absl::StatusOr<RocprofProfile> ParseRocprofJson(absl::string_view text, size_t capacity,
                                                absl::string_view source);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_ROCPROF_ROCPROF_JSON_H_
