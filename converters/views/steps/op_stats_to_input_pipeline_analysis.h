// OpStats -> InputPipelineAnalysisResult (the input-pipeline analyzer view,
// generic/GPU layout).
//
// Follows the profile plugin's formulas: per step, input = wait-for-input +
// host-to-device time; summaries are average / sample standard deviation /
// min / max over steps; the verdict uses the totals over all steps:
//   input% >= 20  -> "host"   ("HIGHLY input-bound")
//   input% >= 5   -> "both"   ("MODERATELY input-bound")
//   all-others% >= 3, host activity not counted -> "both" ("POTENTIALLY
//                    input-bound"; the plugin's rule, where the DataLoader
//                    wait can only show as All Others)
//   otherwise     -> "device" ("NOT input-bound"; "CPU-bound" added when
//                    host activity is counted and host compute% >= 15)
// Host activity is counted when any step has host compute, kernel launch
// or input-wait time (the with-host breakdown, CPU-only profiles); the
// device-only breakdown keeps the plugin's verdicts exactly.
// kernel launch / all others / device collectives: >= 15% "high",
// >= 3% "moderate", else "no" (all others: "no" when the input verdict is
// POTENTIALLY, which already names it). No steps -> "unknown".
// Statements and recommendations are phrased for PyTorch users.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_INPUT_PIPELINE_ANALYSIS_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_INPUT_PIPELINE_ANALYSIS_H_

#include "google/protobuf/any.pb.h"
#include "google/protobuf/repeated_field.h"
#include "proto/input_pipeline.pb.h"
#include "proto/op_stats.pb.h"

namespace tbprof::views {

// Thresholds (percent of step time).
inline constexpr double kHighlyInputBoundPercent = 20;
inline constexpr double kModeratelyInputBoundPercent = 5;
inline constexpr double kModeratelyAllOtherPercent = 3;
inline constexpr double kHighlyBoundPercent = 15;     // kernel launch, all others, collectives
inline constexpr double kModeratelyBoundPercent = 3;
inline constexpr double kHostBoundPercent = 15;       // host compute: "CPU-bound"

tensorflow::profiler::InputPipelineAnalysisResult ConvertOpStatsToInputPipelineAnalysis(
    const tensorflow::profiler::OpStats& op_stats);

// The verdicts from per-step details (PerGenericStepDetails packed in Any).
// `input_time_breakdown` tells whether a data-loading pipeline was traced.
tensorflow::profiler::BottleneckAnalysis ComputeBottleneckAnalysis(
    const tensorflow::profiler::InputTimeBreakdown& input_time_breakdown,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& step_details);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_OP_STATS_TO_INPUT_PIPELINE_ANALYSIS_H_
