// GPU kernel statistics from an XSpace, computed the way the profile plugin
// computes its kernel_stats tool (KernelStatsDb), for our reports and for the
// legacy <host>.kernel_stats.pb file.
//
// Input contract: every "/device:GPU:<n>" plane; lines with ids below
// xplane::kThreadIdStepInfo (derived lines are skipped); events of at least
// 1 ns (durations are truncated to whole ns, as the plugin does) that carry
// a non-empty `kernel_details` stat (str or ref). The op name is the plugin's:
//  * the name part of the `tf_op` stat ("name:Type" -> name; PyTorch names
//    such as "aten::mm" stay whole; "" without tf_op -- TensorFlow <= 2.4
//    files, which name the op in a `level 0` stat, get no op name);
//  * for XLA kernels (stats `hlo_op` and `program_id`) whose instruction is
//    found in the HLO protos of the /host:metadata plane (hlo_op_names.h):
//    the name part of that instruction's framework op
//    (OpMetadata "op_name:op_type"), replacing the tf_op name (which is
//    "XlaModule" for JAX kernels).
// The einsum equation comes from `equation`.
#ifndef TBPROF_CONVERTERS_VIEWS_KERNELS_XSPACE_TO_KERNEL_STATS_H_
#define TBPROF_CONVERTERS_VIEWS_KERNELS_XSPACE_TO_KERNEL_STATS_H_

#include "absl/strings/string_view.h"
#include "proto/kernel_stats.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

struct KernelStatsOptions {
  // Reports kept after sorting by total duration (the plugin shows 1000).
  int max_kernels = 1000;
};

// Aggregates kernels by (name, grid, block, registers, static and dynamic
// shared memory, kernel-uses-Tensor-Core, op-eligible, op name) into reports
// with occurrences and total/min/max duration in ns; occupancy_pct is the
// value of the first occurrence. Reports are sorted by total duration
// descending (ties by the key, ascending) and cut to options.max_kernels.
//
// is_op_tensor_core_eligible is consistent per op name: an op is eligible
// for all its kernels if its name matches IsOpTensorCoreEligible(), any of
// its events has a two-input einsum equation, or any of its kernels uses
// Tensor Cores (the plugin CHECK-fails on inconsistent ops, xprof #1267).
// Kernels without an op name are never eligible.
//
// Single pass over the GPU events; never fails (an XSpace without GPU
// planes gives an empty db).
tensorflow::profiler::KernelStatsDb ConvertXSpaceToKernelStatsDb(
    const xplane::XSpaceData& space, const KernelStatsOptions& options = {});

// Tensor Core rules: converters/views/common/tensor_core.h.

// The op name part of a `tf_op` value: "scope/MatMul:MatMul" -> "scope/MatMul",
// JAX "jit_f/dot_general:dot_general" -> "jit_f/dot_general"; anything that
// is neither a TensorFlow nor a JAX op ("aten::mm", "Iterator::Map") is
// returned whole. The result views `tf_op_fullname`.
absl::string_view OpNameFromTfOp(absl::string_view tf_op_fullname);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_KERNELS_XSPACE_TO_KERNEL_STATS_H_
