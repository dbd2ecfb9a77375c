// tbprof's views of framework ops, computed from one host's XSpace through
// its op tree (op_tree.h, which says how ops are recognised and how device
// time is attributed to them):
//  * the operator view (OperatorStats): per op name, and per op name and
//    input shapes, the calls, host self/total time, device self/total time
//    and the Tensor Core part of it, the op's kernels and its most expensive
//    call stacks, and the device time no op launched, by reason;
//  * the module view (ModuleStats, module_tree.h): time per nn.Module path;
//  * GEMM / convolution efficiency (GemmEfficiency, gemm_efficiency.h).
//
// Operator view formulas, per op call c (op_tree.h OpCall):
//   host total   = duration(c)
//   host self    = duration(c) - sum of duration(d) over the calls d directly
//                  inside c (runtime calls such as cudaLaunchKernel are not
//                  ops: their time is the op's self time, as in xprof)
//   device self  = sum of the device events attributed to c
//   device total = device self(c) + sum of device total(d), d directly inside
// and a row sums its calls; time attributed to an op by name only is added
// to that op's row (self and total). Invariant, in integer picoseconds:
//   sum over rows of device_self_ps + sum of unattributed = device_time_ps.
// Totals of nested calls of the same op count once per call (as in xprof
// and torch-tb-profiler).
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_XSPACE_TO_OPERATOR_STATS_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_XSPACE_TO_OPERATOR_STATS_H_

#include "converters/views/operators/op_tree.h"
#include "proto/operator_stats.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

struct OperatorStatsOptions {
  int max_rows = 1000;       // ops_by_input_shape and GEMM rows kept.
  int kernels_per_op = 10;   // OpRow.kernels.
  int unattributed_kernels = 50;  // UnattributedDeviceTime.kernels, per reason.
  int stacks_per_op = 3;     // OpRow.call_stacks.
  int stack_depth = 5;       // Frames per call stack, innermost first.
  // GEMM rows taking at least this share of all device time are
  // "expensive"; GemmEfficiency.worst lists the worst_rows least efficient.
  double expensive_percent = 1.0;
  int worst_rows = 10;
};

// The three views of one host.
struct OperatorViews {
  tbprof::OperatorStats operators;
  tbprof::ModuleStats modules;
  tbprof::GemmEfficiency gemm_efficiency;
};

// Builds the op tree once and derives the three views. Never fails: views
// without data carry a one-line no_data_reason, partial ones counted notes.
OperatorViews ConvertXSpaceToOperatorViews(const xplane::XSpaceData& space,
                                           const OperatorStatsOptions& options = {});

// The operator view of a tree (see the file comment).
tbprof::OperatorStats OperatorStatsFromTree(const OpTree& tree,
                                            const OperatorStatsOptions& options = {});

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_XSPACE_TO_OPERATOR_STATS_H_
