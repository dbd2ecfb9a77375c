#include "src/xplane/xspace_schema.h"

#include <array>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"

namespace tbprof::xplane {
namespace {

struct StatName {
  StatType type;
  absl::string_view name;
};

// The plugin's spelling of every stat we know; order is irrelevant.
constexpr StatName kStatNames[] = {
    {StatType::kIsRoot, "_r"},
    {StatType::kProducerType, "_pt"},
    {StatType::kProducerId, "_p"},
    {StatType::kConsumerType, "_ct"},
    {StatType::kConsumerId, "_c"},
    {StatType::kIsAsync, "_a"},
    {StatType::kStepId, "id"},
    {StatType::kIterNum, "iter_num"},
    {StatType::kStepNum, "step_num"},
    {StatType::kStepName, "step_name"},
    {StatType::kGroupId, "group_id"},
    {StatType::kGraphType, "graph_type"},
    {StatType::kDeviceId, "device_id"},
    {StatType::kContextId, "context_id"},
    {StatType::kCorrelationId, "correlation_id"},
    {StatType::kStreamId, "stream"},
    {StatType::kKernelDetails, "kernel_details"},
    {StatType::kMemcpyDetails, "memcpy_details"},
    {StatType::kMemallocDetails, "memalloc_details"},
    {StatType::kMemFreeDetails, "MemFree_details"},
    {StatType::kMemsetDetails, "Memset_details"},
    {StatType::kNVTXRange, "nvtx_range"},
    {StatType::kCudaGraphId, "cuda_graph_id"},
    {StatType::kCudaGraphExecId, "cuda_graph_exec_id"},
    {StatType::kTheoreticalOccupancyPct, "theoretical_occupancy_pct"},
    {StatType::kEstAchievedOccupancyPct, "est_achieved_occupancy_pct"},
    {StatType::kTfOp, "tf_op"},
    {StatType::kHloOp, "hlo_op"},
    {StatType::kHloModule, "hlo_module"},
    {StatType::kProgramId, "program_id"},
    {StatType::kEquation, "equation"},
    {StatType::kTensorShapes, "shape"},
    {StatType::kFlops, "flops"},
    {StatType::kBytesAccessed, "bytes_accessed"},
    {StatType::kSourceInfo, "source"},
    {StatType::kAllocatorName, "allocator_name"},
    {StatType::kBytesReserved, "bytes_reserved"},
    {StatType::kBytesAllocated, "bytes_allocated"},
    {StatType::kBytesAvailable, "bytes_available"},
    {StatType::kFragmentation, "fragmentation"},
    {StatType::kPeakBytesInUse, "peak_bytes_in_use"},
    {StatType::kRequestedBytes, "requested_bytes"},
    {StatType::kAllocationBytes, "allocation_bytes"},
    {StatType::kAddress, "addr"},
    {StatType::kRegionType, "region_type"},
    {StatType::kDataType, "data_type"},
    {StatType::kIndexOnHost, "index_on_host"},
    {StatType::kDeviceOrdinal, "device_ordinal"},
    {StatType::kIplStageId, "_ipl_stage_id"},
    {StatType::kIplStageName, "_ipl_stage_name"},
    {StatType::kIplStageCategory, "_ipl_stage_cat"},
    {StatType::kDevVendor, "device_vendor"},
    {StatType::kGpuDeviceName, "gpu_device_name"},
    {StatType::kDevCapClockRateKHz, "clock_rate"},
    {StatType::kDevCapCoreCount, "core_count"},
    {StatType::kDevCapMemoryBandwidth, "memory_bandwidth"},
    {StatType::kDevCapMemorySize, "memory_size"},
    {StatType::kDevCapComputeCapMajor, "compute_cap_major"},
    {StatType::kDevCapComputeCapMinor, "compute_cap_minor"},
    {StatType::kDevCapPeakTeraflopsPerSecond, "peak_teraflops_per_second"},
    {StatType::kProfileStartTime, "profile_start_time"},
    {StatType::kProfileStopTime, "profile_stop_time"},
    {StatType::kCudaVersion, "cuda_version"},
    {StatType::kCudaRuntimeVersion, "cuda_runtime_version"},
    {StatType::kCudaDriverVersion, "cuda_driver_version"},
};
static_assert(sizeof(kStatNames) / sizeof(kStatNames[0]) ==
                  static_cast<size_t>(StatType::kNumTypes) - 1,
              "every StatType needs a name");

struct HostEventName {
  HostEventType type;
  absl::string_view name;
};

constexpr HostEventName kHostEventNames[] = {
    {HostEventType::kTraceContext, "TraceContext"},
    {HostEventType::kMemoryAllocation, "MemoryAllocation"},
    {HostEventType::kMemoryDeallocation, "MemoryDeallocation"},
    {HostEventType::kSessionRun, "SessionRun"},
    {HostEventType::kFunctionRun, "FunctionRun"},
    {HostEventType::kRunGraph, "RunGraph"},
    {HostEventType::kExecutorStateProcess, "ExecutorState::Process"},
    {HostEventType::kEagerExecute, "EagerExecute"},
    {HostEventType::kIteratorGetNextOp, "IteratorGetNextOp::DoCompute"},
    {HostEventType::kProcessBatch, "ProcessBatch"},
    {HostEventType::kBatchingSessionRun, "BatchingSessionRun"},
};
static_assert(sizeof(kHostEventNames) / sizeof(kHostEventNames[0]) ==
                  static_cast<size_t>(HostEventType::kNumTypes) - 1,
              "every HostEventType needs a name");

template <typename Enum, typename Entry, size_t N>
struct NameTables {
  std::array<absl::string_view, N + 1> by_type{};
  absl::flat_hash_map<absl::string_view, Enum> by_name;
  explicit NameTables(const Entry (&entries)[N]) {
    for (const Entry& e : entries) {
      by_type[static_cast<size_t>(e.type)] = e.name;
      by_name.emplace(e.name, e.type);
    }
  }
};

const auto& StatTables() {
  static const auto* tables =
      new NameTables<StatType, StatName, sizeof(kStatNames) / sizeof(kStatNames[0])>(kStatNames);
  return *tables;
}

const auto& HostEventTables() {
  static const auto* tables =
      new NameTables<HostEventType, HostEventName,
                     sizeof(kHostEventNames) / sizeof(kHostEventNames[0])>(kHostEventNames);
  return *tables;
}

}  // namespace

std::string GpuPlaneName(int64_t ordinal) { return absl::StrCat(kGpuPlanePrefix, ordinal); }

std::string GpuAnnotationPlaneName(int64_t ordinal) {
  return absl::StrCat(kCustomPlanePrefix, "GPU ", ordinal, " annotations");
}

std::optional<int64_t> ParseGpuPlaneOrdinal(absl::string_view plane_name) {
  if (!absl::StartsWith(plane_name, kGpuPlanePrefix)) return std::nullopt;
  int64_t ordinal;
  if (!absl::SimpleAtoi(plane_name.substr(kGpuPlanePrefix.size()), &ordinal) || ordinal < 0) {
    return std::nullopt;
  }
  return ordinal;
}

absl::string_view StatTypeName(StatType type) {
  return StatTables().by_type[static_cast<size_t>(type)];
}

StatType FindStatType(absl::string_view name) {
  const auto& map = StatTables().by_name;
  auto it = map.find(name);
  return it == map.end() ? StatType::kUnknown : it->second;
}

absl::string_view HostEventTypeName(HostEventType type) {
  return HostEventTables().by_type[static_cast<size_t>(type)];
}

HostEventType FindHostEventType(absl::string_view name) {
  const auto& map = HostEventTables().by_name;
  auto it = map.find(name);
  return it == map.end() ? HostEventType::kUnknown : it->second;
}

}  // namespace tbprof::xplane
