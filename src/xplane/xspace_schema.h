// Every plane, line, event and stat name tbprof reads or writes, spelled
// exactly as TensorBoard's profile plugin (xprof / TSL xplane_schema) expects.
//
// Names are the contract with the plugin; ids are free. Analysis code uses the
// StatType / HostEventType enums; the string tables live in xspace_schema.cc
// and are round-trip tested.
#ifndef TBPROF_SRC_XPLANE_XSPACE_SCHEMA_H_
#define TBPROF_SRC_XPLANE_XSPACE_SCHEMA_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::xplane {

// ---- Planes ----------------------------------------------------------------
inline constexpr absl::string_view kHostThreadsPlaneName = "/host:CPU";
inline constexpr absl::string_view kGpuPlanePrefix = "/device:GPU:";
inline constexpr absl::string_view kCustomPlanePrefix = "/device:CUSTOM:";
inline constexpr absl::string_view kMetadataPlaneName = "/host:metadata";
inline constexpr absl::string_view kTaskEnvPlaneName = "Task Environment";
// Collection-time host planes that post-processing merges into /host:CPU.
inline constexpr absl::string_view kCuptiDriverApiPlaneName = "/host:CUPTI";

// "/device:GPU:<ordinal>".
std::string GpuPlaneName(int64_t ordinal);
// "/device:CUSTOM:GPU <ordinal> annotations": the plane that holds the GPU-side
// copies of user annotations and the CUDA synchronization waits of GPU
// <ordinal>. They are not device activity: on a "/device:GPU:" plane the
// plugin reads every line as a stream and a sync wait stretches the step
// (checked with xprof 2.24). Custom planes are shown by the trace viewer and
// ignored by the step, op and kernel analyses.
std::string GpuAnnotationPlaneName(int64_t ordinal);
// Plane id of GpuAnnotationPlaneName(n): this base + n (GPU planes use n).
inline constexpr int64_t kGpuAnnotationPlaneIdBase = 1000;
// Ordinal of a "/device:GPU:<n>" plane name; nullopt for other names.
std::optional<int64_t> ParseGpuPlaneOrdinal(absl::string_view plane_name);

// Start of the XSpace warning written when [memory] events carry no address
// (PyTorch before 1.10): allocations cannot be paired with their frees, so no
// view can say which allocations were live at the memory peak.
inline constexpr absl::string_view kMemoryWithoutAddressWarning =
    "memory events without an address";

// ---- Lines -----------------------------------------------------------------
inline constexpr absl::string_view kStepLineName = "Steps";
// Line ids at or above this are derived lines created by the plugin.
inline constexpr int64_t kThreadIdStepInfo = 0xdeadbeef;

// ---- Events ----------------------------------------------------------------
inline constexpr absl::string_view kMemoryAllocationEventName = "MemoryAllocation";
inline constexpr absl::string_view kMemoryDeallocationEventName = "MemoryDeallocation";
inline constexpr absl::string_view kTraceContextEventName = "TraceContext";
// Device memcpy event names the plugin classifies by (case-insensitive) prefix.
inline constexpr absl::string_view kMemcpyHToDName = "MemcpyHToD";
inline constexpr absl::string_view kMemcpyDToHName = "MemcpyDToH";
inline constexpr absl::string_view kMemcpyDToDName = "MemcpyDToD";
inline constexpr absl::string_view kMemcpyHToHName = "MemcpyHToH";
inline constexpr absl::string_view kMemcpyPToPName = "MemcpyPToP";
// Device collectives: event names starting with this prefix.
inline constexpr absl::string_view kNcclPrefix = "nccl";

enum class HostEventType : uint8_t {
  kUnknown = 0,
  kTraceContext,
  kMemoryAllocation,
  kMemoryDeallocation,
  kSessionRun,
  kFunctionRun,
  kRunGraph,
  kExecutorStateProcess,
  kEagerExecute,
  kIteratorGetNextOp,
  kProcessBatch,
  kBatchingSessionRun,
  kNumTypes,  // Keep last.
};
absl::string_view HostEventTypeName(HostEventType type);
HostEventType FindHostEventType(absl::string_view name);

// ---- Stats -----------------------------------------------------------------
enum class StatType : uint8_t {
  kUnknown = 0,
  // Grouping / TraceMe 2.0.
  kIsRoot,            // "_r": root level of a step (int64).
  kProducerType,      // "_pt"
  kProducerId,        // "_p"
  kConsumerType,      // "_ct"
  kConsumerId,        // "_c"
  kIsAsync,           // "_a"
  kStepId,            // "id"
  kIterNum,           // "iter_num"
  kStepNum,           // "step_num"
  kStepName,          // "step_name"
  kGroupId,           // "group_id": written only by the plugin, never by us.
  kGraphType,         // "graph_type"
  // Device trace.
  kDeviceId,          // "device_id"
  kContextId,         // "context_id"
  kCorrelationId,     // "correlation_id"
  kStreamId,          // "stream"
  kKernelDetails,     // "kernel_details"
  kMemcpyDetails,     // "memcpy_details"
  kMemallocDetails,   // "memalloc_details"
  kMemFreeDetails,    // "MemFree_details"
  kMemsetDetails,     // "Memset_details"
  kNVTXRange,         // "nvtx_range"
  kCudaGraphId,       // "cuda_graph_id"
  kCudaGraphExecId,   // "cuda_graph_exec_id"
  kTheoreticalOccupancyPct,  // "theoretical_occupancy_pct"
  kEstAchievedOccupancyPct,  // "est_achieved_occupancy_pct" (ours, from Kineto)
  // Op attribution.
  kTfOp,              // "tf_op"
  kHloOp,             // "hlo_op"
  kHloModule,         // "hlo_module"
  kProgramId,         // "program_id"
  kEquation,          // "equation"
  kTensorShapes,      // "shape"
  kFlops,             // "flops"
  kBytesAccessed,     // "bytes_accessed"
  kSourceInfo,        // "source"
  // Memory profile.
  kAllocatorName,     // "allocator_name"
  kBytesReserved,     // "bytes_reserved"
  kBytesAllocated,    // "bytes_allocated"
  kBytesAvailable,    // "bytes_available"
  kFragmentation,     // "fragmentation"
  kPeakBytesInUse,    // "peak_bytes_in_use"
  kRequestedBytes,    // "requested_bytes"
  kAllocationBytes,   // "allocation_bytes"
  kAddress,           // "addr"
  kRegionType,        // "region_type"
  kDataType,          // "data_type"
  kIndexOnHost,       // "index_on_host"
  kDeviceOrdinal,     // "device_ordinal"
  // Input pipeline (framework-neutral).
  kIplStageId,        // "_ipl_stage_id"
  kIplStageName,      // "_ipl_stage_name"
  kIplStageCategory,  // "_ipl_stage_cat"
  // GPU plane capabilities.
  kDevVendor,         // "device_vendor"
  kGpuDeviceName,     // "gpu_device_name"
  kDevCapClockRateKHz,        // "clock_rate"
  kDevCapCoreCount,           // "core_count"
  kDevCapMemoryBandwidth,     // "memory_bandwidth" (bytes/s)
  kDevCapMemorySize,          // "memory_size" (bytes)
  kDevCapComputeCapMajor,     // "compute_cap_major"
  kDevCapComputeCapMinor,     // "compute_cap_minor"
  kDevCapPeakTeraflopsPerSecond,  // "peak_teraflops_per_second"
  // Task environment.
  kProfileStartTime,  // "profile_start_time" (epoch ns)
  kProfileStopTime,   // "profile_stop_time" (epoch ns)
  // Metadata plane.
  kCudaVersion,       // "cuda_version"
  kCudaRuntimeVersion,  // "cuda_runtime_version"
  kCudaDriverVersion,   // "cuda_driver_version"
  kNumTypes,  // Keep last.
};
absl::string_view StatTypeName(StatType type);
StatType FindStatType(absl::string_view name);

// Vendor strings for kDevVendor.
inline constexpr absl::string_view kDeviceVendorNvidia = "Nvidia";
inline constexpr absl::string_view kDeviceVendorAMD = "AMD";

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_SCHEMA_H_
