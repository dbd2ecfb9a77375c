// How values of an Nsight Systems export are named in the XSpace: NVTX range
// texts, CUDA API names, CUPTI enums (memcpy kinds, memory kinds,
// synchronization types) and the serialized global thread ids.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_NAMES_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_NAMES_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "converters/common/gpu_memcpy_kinds.h"

namespace tbprof::converters::nsys {

// Serialized GlobalId (globalTid / globalPid columns): the pid is bits 24-47,
// the thread id bits 0-23.
inline int64_t PidOfGlobalId(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
inline int64_t TidOfGlobalId(int64_t global_id) { return global_id & 0xFFFFFF; }

// What an NVTX range text says.
struct NvtxRangeName {
  absl::string_view name;  // The op or range name.
  bool pytorch_op = false;  // Written by torch.autograd.profiler.emit_nvtx.
  bool is_step = false;     // "ProfilerStep#N"
  int64_t step = 0;
};
// PyTorch's emit_nvtx writes "<op>, seq = <n>, op_id = <n>, sizes = [...]"
// (any of the three suffixes): the name is the text before the first of
// them. "ProfilerStep#12" (possibly with those suffixes) is step 12.
NvtxRangeName ParseNvtxRangeName(absl::string_view text);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
absl::string_view StripApiVersionSuffix(absl::string_view name);

// CUPTI_ActivityMemcpyKind (copyKind) as the plugin's direction.
MemcpyDirection MemcpyDirectionOfCopyKind(int64_t copy_kind);
// CUPTI_ActivityMemoryKind (srcKind, dstKind, memKind): "pageable", "pinned",
// "device", "array", "managed", "device_static", "managed_static",
// "unknown".
absl::string_view MemoryKindName(int64_t kind);
// CUPTI_ActivitySynchronizationType (syncType): "cuEventSynchronize",
// "cuStreamWaitEvent", "cuStreamSynchronize", "cuCtxSynchronize",
// "CUDA synchronization" (unknown).
absl::string_view SyncTypeName(int64_t sync_type);

// True for names that xprof reads as TensorFlow/JAX op names ("name:Type"):
// such host events must not also carry a tf_op (it would count them twice).
bool XprofParsesAsOpName(absl::string_view name);

}  // namespace tbprof::converters::nsys

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_NAMES_H_
