// OpStats -> OverviewPage (the overview page, generic/GPU layout).
//
// Contents: run environment; the input-pipeline analysis (step-time graph
// and verdict, op_stats_to_input_pipeline_analysis.h); the top 10 device ops
// by self time with TensorCore eligibility/use; the 16-/32-bit split of
// device compute; the bottleneck statement and recommendations phrased for
// PyTorch users (DataLoader workers and pinned memory when input-bound, CUDA
// graphs / torch.compile when launch-bound, avoiding sync points when much
// time is unexplained, mixed precision when little compute is 16-bit,
// DistributedDataParallel tuning when collectives dominate); diagnostics.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_OVERVIEW_PAGE_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_OVERVIEW_PAGE_H_

#include "converters/views/steps/view_metrics.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "proto/op_stats.pb.h"
#include "proto/overview_page.pb.h"

namespace tbprof::views {

// Top device ops shown.
inline constexpr int kNumTopDeviceOps = 10;
// Below this share of 16-bit device compute, mixed precision is suggested.
inline constexpr double kLowPrecisionPercentThreshold = 10;

// `tensor_core` (may be null) gives TensorCore eligibility/use by op name.
tensorflow::profiler::OverviewPage ConvertOpStatsToOverviewPage(
    const tensorflow::profiler::OpStats& op_stats, const OpTensorCoreMap* tensor_core = nullptr);

inline tensorflow::profiler::OverviewPage ConvertStepAnalysisToOverviewPage(
    const StepAnalysis& analysis) {
  return ConvertOpStatsToOverviewPage(analysis.op_stats, &analysis.tensor_core_by_op);
}

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_OVERVIEW_PAGE_H_
