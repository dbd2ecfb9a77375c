// Training steps for traces that have no step markers.
//
// The profile plugin shows a step-time graph only when a /host:CPU event is a
// step root (int64 stat `_r`, plus `step_num`) with the kernel launches of its
// step nested inside it on the same line. PyTorch writes such roots
// (ProfilerStep#N) only under torch.profiler's schedule; a plain training
// script recorded by the collector, or a trace exported without prof.step(),
// has none. InferSteps() finds the iterations from what repeats, in this
// order of trust:
//   1. "enumerate(DataLoader)..." events: one per iteration on the training
//      thread; a step runs from one to the next (the last one to the end of
//      the top-level work after it);
//   2. "Optimizer.step..." events: a step runs from the end of one to the end
//      of the next (the work before the first is not a whole step);
//   3. the GPU kernel sequence: the smallest period P (in kernels) such that
//      kernel i and kernel i+P have the same name for >= 95% of the kernels,
//      found from kernels that occur once per period at a regular interval;
//      a step starts where the GPU idles longest before a period start, and
//      its host root spans the top-level host work around the launches.
// Inferred roots are written into the XSpace: events "Step#N" on the
// launching thread's line with `_r` = 1, `step_num` = N, the plane stat
// `tbprof_steps_inferred` = the method on /host:CPU, and an XSpace warning
// that says what was done. Where nothing repeats, nothing is inferred and the
// result says why.
#ifndef TBPROF_CONVERTERS_COMMON_STEP_INFERENCE_H_
#define TBPROF_CONVERTERS_COMMON_STEP_INFERENCE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

// `--steps`: kAuto (markers when the trace has them, else inference),
// kMarkers (only the trace's own markers), kInfer (inference even where
// markers exist; the markers stop being roots), kNone (no steps at all).
enum class StepsMode { kAuto, kMarkers, kInfer, kNone };

// "auto", "markers", "infer", "none"; kInvalidArgument otherwise.
absl::StatusOr<StepsMode> ParseStepsMode(absl::string_view text);

// Names of the inference methods (StepsResult::method).
inline constexpr absl::string_view kStepsFromMarkers = "markers";
inline constexpr absl::string_view kStepsFromDataLoader = "enumerate(DataLoader)";
inline constexpr absl::string_view kStepsFromOptimizer = "Optimizer.step";
inline constexpr absl::string_view kStepsFromKernelPeriod = "kernel sequence period";
// Plane stat on /host:CPU naming the method of inferred steps.
inline constexpr absl::string_view kStepsInferredStatName = "tbprof_steps_inferred";

struct StepsResult {
  // kStepsFrom*, or "" when the profile has no steps.
  std::string method;
  bool inferred = false;
  int64_t steps = 0;
  // One line for the user: what was found or done, or why there are no steps.
  std::string message;
};

// Applies `mode` to a finalized XSpace (as the converters leave it): may add
// step roots to /host:CPU lines, or stop existing roots from being roots
// (their `_r` stat metadata is renamed `tbprof_disabled_r`). Never fails:
// what cannot be inferred is explained in the result.
StepsResult ApplyStepsMode(xplane::XSpaceData* space, StepsMode mode);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_STEP_INFERENCE_H_
