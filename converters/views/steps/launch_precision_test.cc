#include "converters/views/steps/launch_precision.h"

#include <string>

#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using xplane::StatType;

// One host thread: op(types) [ launch(corr) ], times in ns.
class HostBuilder {
 public:
  HostBuilder() : builder_(&space_) {
    host_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    line_ = host_->GetOrCreateLine(1);
    types_ = host_->GetOrCreateStatMetadata(kInputTypesStat);
    corr_ = host_->GetOrCreateStatMetadata(StatType::kCorrelationId);
  }
  void Op(const std::string& name, int64_t begin, int64_t dur, const std::string& types) {
    xplane::XEventBuilder e =
        line_->AddEvent(host_->GetOrCreateEventMetadata(name), begin * 1000, dur * 1000);
    if (!types.empty()) e.AddRef(types_, types);
  }
  void Launch(int64_t begin, int64_t correlation) {
    line_->AddEvent(host_->GetOrCreateEventMetadata("cudaLaunchKernel"), begin * 1000, 1000)
        .AddInt64(corr_, correlation);
  }
  LaunchPrecisionHints Build() {
    builder_.Finalize({.normalize_timestamps = false});
    const xplane::Plane* p = xplane::FindPlaneWithName(space_, xplane::kHostThreadsPlaneName);
    xplane::XPlaneVisitor plane(&space_, p, xplane::SpaceBaseNs(space_));
    return LaunchPrecisionHints::Build(plane);
  }

 private:
  xplane::XSpaceData space_;
  xplane::XSpaceBuilder builder_;
  xplane::XPlaneBuilder* host_;
  xplane::XLineBuilder* line_;
  uint32_t types_, corr_;
};

TEST(LaunchPrecisionHintsTest, InnermostTypedOpAroundTheLaunch) {
  HostBuilder b;
  b.Op("aten::linear", 0, 100, "[\"c10::BFloat16\",\"c10::BFloat16\"]");
  b.Op("aten::t", 10, 10, "");  // Untyped: the linear's types count.
  b.Launch(12, 1);
  b.Op("aten::to", 30, 20, "[\"float\"]");  // Innermost typed op: float.
  b.Launch(35, 2);
  b.Launch(60, 3);  // Directly in aten::linear.
  b.Op("aten::relu", 200, 10, "");
  b.Launch(202, 4);  // No typed op around it.
  b.Launch(300, 5);  // Outside every op.
  const LaunchPrecisionHints hints = b.Build();
  EXPECT_EQ(hints.Find(1), PrecisionHint::kReduced);
  EXPECT_EQ(hints.Find(2), PrecisionHint::kFull);
  EXPECT_EQ(hints.Find(3), PrecisionHint::kReduced);
  EXPECT_EQ(hints.Find(4), PrecisionHint::kUnknown);
  EXPECT_EQ(hints.Find(5), PrecisionHint::kUnknown);
  EXPECT_EQ(hints.Find(99), PrecisionHint::kUnknown);
}

TEST(LaunchPrecisionHintsTest, EmptyWithoutInputTypes) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host->GetOrCreateLine(1)
      ->AddEvent(host->GetOrCreateEventMetadata("cudaLaunchKernel"), 0, 1000)
      .AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId), 1);
  builder.Finalize({.normalize_timestamps = false});
  xplane::XPlaneVisitor plane(&space, &space.planes[0], xplane::SpaceBaseNs(space));
  EXPECT_TRUE(LaunchPrecisionHints::Build(plane).empty());
}

}  // namespace
}  // namespace tbprof::views
