// GEMM and convolution efficiency: achieved TFLOP/s of matmul-family and
// convolution ops and their fraction of the GPU's peak.
//
// Per op call c whose op has a FLOP formula (gemm_flops.h) and no call of
// such an op inside it (aten::linear -> aten::addmm counts once, at addmm;
// conv2d -> convolution -> _convolution -> cudnn_convolution at the last):
//   flops(c)    = CountFlops(name, input shapes / types / concrete inputs)
//   time(c)     = device total time of c (op_tree.h)
// Calls are grouped by (op name, input shapes, input types):
//   achieved TFLOP/s  = sum flops / sum time   (FLOP per ps = TFLOP/s)
//   peak TFLOP/s      = PeakFlopsOf(GPU of the calls' first device event),
//                       unit PeakUnitForDtype(dtype, any call used Tensor
//                       Core kernels) (gpu_peak_flops.h)
//   fraction of peak  = achieved / peak (above 1 for Winograd / FFT
//                       convolutions, which do fewer FLOPs than counted).
// Calls without device time or without a FLOP count are left out and
// counted in notes.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_EFFICIENCY_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_EFFICIENCY_H_

#include "converters/views/operators/op_tree.h"
#include "converters/views/operators/xspace_to_operator_stats.h"
#include "proto/operator_stats.pb.h"

namespace tbprof::views {

// The GEMM efficiency view of a tree: rows by device time (options.max_rows),
// the options.worst_rows lowest fractions of peak among rows with at least
// options.expensive_percent of all device time, and the peaks of the GPUs.
// Never fails; without input shapes or GEMMs it has a no_data_reason.
tbprof::GemmEfficiency GemmEfficiencyFromTree(const OpTree& tree,
                                              const OperatorStatsOptions& options);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_EFFICIENCY_H_
