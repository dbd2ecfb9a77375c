// Precision hints for kernels whose names name no element type, from the op
// input types that Kineto records (`Input type`, stat `input_types`, with
// record_shapes=True): a kernel launched inside an op whose inputs are
// c10::BFloat16 / c10::Half / Float8 is reduced-precision compute.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "converters/views/common/precision.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

// The stat the Kineto converter writes an op's `Input type` list to.
inline constexpr absl::string_view kInputTypesStat = "input_types";

// Launch correlation id -> what the input types of the innermost op around
// the launch (on the launch's host line) say about precision.
class LaunchPrecisionHints {
 public:
  // Walks the host plane's thread lines (derived lines excluded) once; empty
  // without an `input_types` stat on the plane (no pass at all then).
  static LaunchPrecisionHints Build(const xplane::XPlaneVisitor& host);

  bool empty() const { return hints_.empty(); }
  // kUnknown when the launch is unknown or no op around it has input types
  // that name a type.
  PrecisionHint Find(int64_t correlation_id) const;

 private:
  std::vector<std::pair<int64_t, PrecisionHint>> hints_;  // Sorted by id.
};

// LaunchPrecisionHints built on the first Find(): most traces' kernels name
// their precision, and then the host plane is never walked for hints.
// Borrows `host` (may be null: no hints), which must outlive this.
class LazyLaunchPrecisionHints {
 public:
  explicit LazyLaunchPrecisionHints(const xplane::XPlaneVisitor* host)
      : host_(host && host->FindStatMetadata(kInputTypesStat).has_value() ? host : nullptr) {}

  // False when no hint can exist (no host plane, or no `input_types` stat on
  // it): Find() would always return kUnknown.
  bool possible() const { return host_ != nullptr; }
  // As LaunchPrecisionHints::Find; the first call builds the hints.
  PrecisionHint Find(int64_t correlation_id) {
    if (!host_) return PrecisionHint::kUnknown;
    if (!hints_.has_value()) hints_ = LaunchPrecisionHints::Build(*host_);
    return hints_->Find(correlation_id);
  }

 private:
  const xplane::XPlaneVisitor* host_;
  std::optional<LaunchPrecisionHints> hints_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_
