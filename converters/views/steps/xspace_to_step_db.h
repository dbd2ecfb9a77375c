// XSpace -> step analysis (the OpStats the overview page and the
// input-pipeline view are computed from).
//
// What it computes, in single passes over the events:
//  * step grouping (xspace_step_grouping.h), the device step markers, and
//    device events without a group given the group of the previous grouped
//    event of the same GPU in time (the plugin's ProcessUngroupedEvents);
//  * per step a breakdown of the step time into EventTypes where, at every
//    instant, the highest EventType wins (event_type_span.h); steps without
//    device compute are dropped;
//  * device time per framework op (`tf_op` stat, else kernel name), with
//    16/32-bit precision stats and TensorCore use;
//  * host input-pipeline ops (PyTorch DataLoader iterations, `_ipl_stage_*`);
//  * the run environment and diagnostics.
//
// Two breakdown modes (StepOptions::breakdown):
//  * Breakdown::kDeviceOnly gives the profile plugin's own numbers: only GPU
//    events count, and a step lasts from its first to its last device event
//    (the longest such span over GPUs). Time the GPU waits between steps,
//    e.g. for the DataLoader, falls outside every step, so the input-bound
//    verdict cannot see it.
//  * Breakdown::kWithHost (default) also merges host events, as TensorFlow's
//    pre-2025 converters did: PyTorch `enumerate(DataLoader)#...` iterations,
//    `IteratorGetNext*` and root `_ipl_stage_*` events count as waiting for
//    input, host events with a `correlation_id` as kernel launch, other host
//    ops as host compute; host events count only inside the step's host root
//    span (events on other threads without a group are attributed to the
//    root span they fall in). A step then lasts from the start of its host
//    root (but not before the previous step ended) to the later of the root's
//    end and its last device event, so time the GPU idles while the host
//    loads data is inside the step. Device events still win over host events
//    at every instant, so GPU busy time is classified the same in both modes.
//
// CPU-only profiles (no /device:GPU planes) use host events in both modes:
// a step is its host root span and needs host compute.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_TO_STEP_DB_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_TO_STEP_DB_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "converters/views/steps/view_metrics.h"
#include "proto/op_stats.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

enum class Breakdown {
  kWithHost,    // Device + host events (tbprof default, see above).
  kDeviceOnly,  // Device events only (= the profile plugin).
};

struct StepOptions {
  Breakdown breakdown = Breakdown::kWithHost;
  // Drop the first and last step when there are more than 5, as the profile
  // plugin does (xprof's `maybe_drop_incomplete_steps`, on in every xprof
  // tool that shows steps: checked with xprof 2.24 in tests/xprof). The
  // first step often carries warm-up and the last may be cut by the profiler.
  bool drop_incomplete_steps = true;
};

struct StepAnalysis {
  // step_db, device_op_metrics_db (with precision_stats), host_op_metrics_db
  // (input ops), run_environment, diagnostics.
  tensorflow::profiler::OpStats op_stats;
  // TensorCore eligibility/use of the ops in device_op_metrics_db.
  OpTensorCoreMap tensor_core_by_op;
  Breakdown breakdown = Breakdown::kWithHost;
};

// Analyses `space` (not modified). Does not fail on odd input: what cannot be
// grouped or classified is left out and noted in op_stats.diagnostics.
// Returns kInvalidArgument only for a space without any plane.
absl::StatusOr<StepAnalysis> ConvertXSpaceToStepAnalysis(const xplane::XSpaceData& space,
                                                         const StepOptions& options);

// The analysis of options.breakdown and, when `with_other_breakdown`, the
// step database of the other breakdown, from the same passes over the events
// (the grouping, the device events and the host events are read once; only
// the steps are built twice).
struct StepAnalyses {
  StepAnalysis analysis;  // As ConvertXSpaceToStepAnalysis(space, options).
  bool has_other = false;
  // The other breakdown's analysis, as ConvertXSpaceToStepAnalysis() with
  // that breakdown gives it except that its device_op_metrics_db (which
  // does not depend on the breakdown) and tensor_core_by_op are left empty:
  // step_db, the precision_stats of device_op_metrics_db,
  // host_op_metrics_db, run_environment and diagnostics are set.
  StepAnalysis other;
};
absl::StatusOr<StepAnalyses> ConvertXSpaceToStepAnalyses(const xplane::XSpaceData& space,
                                                         const StepOptions& options,
                                                         bool with_other_breakdown);

// True for plugin-derived lines (Steps, XLA Ops, TensorFlow Ops, ...; line
// ids at or above 0xdeadbeef, also when written as negative int32) which
// must not be read as streams.
bool IsDerivedLine(int64_t line_id, absl::string_view line_name);

// True for GPU-plane lines that hold no device activity: the GPU-side copies
// of user annotations ("GPU annotations ...") and synchronization waits
// ("CUDA sync ...") that tbprof's Kineto converter writes. They are left out
// of the steps and the top ops (the plugin would read them as streams).
bool IsDeviceAnnotationLine(absl::string_view line_name);

// One step of the step database as a time span: the step's span on its
// lowest-numbered core (times relative to xplane::SpaceBaseNs()).
struct StepSpan {
  int64_t step_num = 0;
  int64_t begin_ps = 0;
  int64_t duration_ps = 0;
};
// The steps of `step_db` in its order; steps without a span (no core, or
// zero duration) are left out.
std::vector<StepSpan> StepSpansOnFirstCore(
    const tensorflow::profiler::StepDatabaseResult& step_db);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_TO_STEP_DB_H_
