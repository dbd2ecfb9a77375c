// Test-only helpers: small XSpaces with host steps, launches and GPU events,
// built with XSpaceBuilder. Times are picoseconds from 0 (no normalization).
#ifndef TBPROF_CONVERTERS_VIEWS_COMMON_STEPS_TEST_UTIL_H_
#define TBPROF_CONVERTERS_VIEWS_COMMON_STEPS_TEST_UTIL_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views::testing {

class StepSpaceBuilder {
 public:
  StepSpaceBuilder() : builder_(&space_) {}

  xplane::XPlaneBuilder* Host() { return builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName); }
  xplane::XPlaneBuilder* Gpu(int64_t ordinal) {
    return builder_.GetOrCreatePlane(xplane::GpuPlaneName(ordinal));
  }

  // Any host event on thread `tid`.
  xplane::XEventBuilder HostEvent(int64_t tid, absl::string_view name, int64_t begin_ps,
                                  int64_t duration_ps) {
    xplane::XPlaneBuilder* host = Host();
    return host->GetOrCreateLine(tid)->AddEvent(host->GetOrCreateEventMetadata(name), begin_ps,
                                                duration_ps);
  }
  // A step root (`_r` = 1, `step_num`).
  void Root(int64_t tid, absl::string_view name, int64_t begin_ps, int64_t duration_ps,
            int64_t step_num) {
    xplane::XEventBuilder e = HostEvent(tid, name, begin_ps, duration_ps);
    e.AddInt64(Host()->GetOrCreateStatMetadata(xplane::StatType::kIsRoot), 1);
    e.AddInt64(Host()->GetOrCreateStatMetadata(xplane::StatType::kStepNum), step_num);
  }
  // A launch (host event with `correlation_id`).
  void Launch(int64_t tid, int64_t begin_ps, int64_t duration_ps, int64_t correlation_id,
              absl::string_view name = "cudaLaunchKernel") {
    xplane::XEventBuilder e = HostEvent(tid, name, begin_ps, duration_ps);
    e.AddInt64(Host()->GetOrCreateStatMetadata(xplane::StatType::kCorrelationId),
               correlation_id);
  }
  // A device event on stream `stream`; correlation_id < 0: none.
  xplane::XEventBuilder Device(int64_t gpu, int64_t stream, absl::string_view name,
                               int64_t begin_ps, int64_t duration_ps, int64_t correlation_id) {
    xplane::XPlaneBuilder* plane = Gpu(gpu);
    xplane::XEventBuilder e = plane->GetOrCreateLine(stream)->AddEvent(
        plane->GetOrCreateEventMetadata(name), begin_ps, duration_ps);
    if (correlation_id >= 0) {
      e.AddInt64(plane->GetOrCreateStatMetadata(xplane::StatType::kCorrelationId),
                 correlation_id);
    }
    return e;
  }
  void GpuStatInt(int64_t gpu, xplane::StatType type, int64_t value) {
    Gpu(gpu)->SetStatInt64(Gpu(gpu)->GetOrCreateStatMetadata(type), value);
  }
  void GpuStatString(int64_t gpu, xplane::StatType type, absl::string_view value) {
    Gpu(gpu)->SetStatString(Gpu(gpu)->GetOrCreateStatMetadata(type), value);
  }

  // Sorts and enforces nesting, without moving time; the space is then
  // ready to analyse. Call once.
  xplane::XSpaceData& Finish() {
    xplane::FinalizeOptions options;
    options.normalize_timestamps = false;
    builder_.Finalize(options);
    return space_;
  }
  xplane::XSpaceData& space() { return space_; }

 private:
  xplane::XSpaceData space_;
  xplane::XSpaceBuilder builder_;
};

}  // namespace tbprof::views::testing

#endif  // TBPROF_CONVERTERS_VIEWS_COMMON_STEPS_TEST_UTIL_H_
