#include "converters/views/steps/launch_precision.h"

#include <optional>
#include <string>

#include "converters/views/steps/xspace_step_grouping.h"
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
  // An op whose input types are a string value, not a ref.
  void OpStr(const std::string& name, int64_t begin, int64_t dur, const std::string& types) {
    line_->AddEvent(host_->GetOrCreateEventMetadata(name), begin * 1000, dur * 1000)
        .AddString(types_, types);
  }
  // Following events go to the line with `id` (created on first use).
  void UseLine(int64_t id, const std::string& name = "") {
    line_ = host_->GetOrCreateLine(id);
    if (!name.empty()) line_->SetName(name);
  }
  void Launch(int64_t begin, int64_t correlation) {
    line_->AddEvent(host_->GetOrCreateEventMetadata("cudaLaunchKernel"), begin * 1000, 1000)
        .AddInt64(corr_, correlation);
  }
  // The host plane, finalized on the first call (add nothing after it).
  const xplane::XPlaneVisitor& Plane() {
    if (!plane_.has_value()) {
      builder_.Finalize({.normalize_timestamps = false});
      const xplane::Plane* p = xplane::FindPlaneWithName(space_, xplane::kHostThreadsPlaneName);
      plane_.emplace(&space_, p, xplane::SpaceBaseNs(space_));
    }
    return *plane_;
  }
  LaunchPrecisionHints Build() { return LaunchPrecisionHints::Build(Plane()); }

 private:
  std::optional<xplane::XPlaneVisitor> plane_;
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

TEST(LaunchPrecisionHintsTest, RepeatedTypeTextsKeepTheirAnswer) {
  // The classification of a text is cached: the same texts around many
  // launches, in any order, give each launch its own op's answer.
  HostBuilder b;
  for (int i = 0; i < 6; ++i) {
    b.Op("aten::mm", i * 100, 50, i % 2 == 0 ? "[\"c10::Half\"]" : "[\"double\"]");
    b.Launch(i * 100 + 10, 10 + i);
  }
  const LaunchPrecisionHints hints = b.Build();
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(hints.Find(10 + i), i % 2 == 0 ? PrecisionHint::kReduced : PrecisionHint::kFull)
        << "launch " << i;
  }
}

TEST(LaunchPrecisionHintsBuilderTest, GroupingPassBuildsTheSameHints) {
  // GroupXSpaceSteps() walking the host events through a builder gives the
  // hints of Build(): derived lines left out, ops that overlap without
  // nesting, ref and string type texts, repeated texts.
  HostBuilder b;
  b.Op("ProfilerStep#1", 0, 1000, "");
  b.Op("aten::linear", 10, 100, "[\"c10::BFloat16\"]");
  b.Launch(20, 1);
  b.OpStr("aten::mm", 50, 100, "[\"float\"]");  // Overlaps linear's end.
  b.Launch(105, 2);
  b.Launch(130, 3);  // After linear's end: in mm only.
  b.Op("aten::linear", 300, 50, "[\"c10::BFloat16\"]");
  b.Launch(310, 4);
  b.Launch(310, 1);  // A repeated id.
  b.UseLine(2);
  b.Op("aten::to", 0, 100, "[\"c10::Half\"]");
  b.Launch(5, 5);
  b.UseLine(3, "Steps");  // Derived: no hints from it.
  b.Op("aten::to", 0, 100, "[\"c10::Half\"]");
  b.Launch(5, 6);
  const xplane::XPlaneVisitor& plane = b.Plane();
  LaunchPrecisionHintsBuilder builder(*plane.FindStatMetadata(kInputTypesStat));
  GroupXSpaceSteps(plane.space(), &plane, &builder);
  const LaunchPrecisionHints fused = builder.Finish();
  const LaunchPrecisionHints built = b.Build();
  EXPECT_EQ(built.Find(5), PrecisionHint::kReduced);
  EXPECT_EQ(built.Find(6), PrecisionHint::kUnknown);
  for (int64_t id = 0; id <= 7; ++id) EXPECT_EQ(fused.Find(id), built.Find(id)) << id;
}

TEST(LazyLaunchPrecisionHintsTest, SameAnswersAsBuild) {
  HostBuilder b;
  b.Op("aten::linear", 0, 100, "[\"c10::BFloat16\"]");
  b.Launch(12, 1);
  b.Op("aten::to", 200, 20, "[\"float\"]");
  b.Launch(205, 2);
  b.Launch(300, 3);
  LazyLaunchPrecisionHints lazy(&b.Plane());
  EXPECT_TRUE(lazy.possible());
  const LaunchPrecisionHints built = b.Build();
  for (int64_t id : {1, 2, 3, 99}) EXPECT_EQ(lazy.Find(id), built.Find(id)) << id;
}

TEST(LazyLaunchPrecisionHintsTest, NotPossibleWithoutHostOrInputTypes) {
  LazyLaunchPrecisionHints none(nullptr);
  EXPECT_FALSE(none.possible());
  EXPECT_EQ(none.Find(1), PrecisionHint::kUnknown);

  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host->GetOrCreateLine(1)
      ->AddEvent(host->GetOrCreateEventMetadata("cudaLaunchKernel"), 0, 1000)
      .AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId), 1);
  builder.Finalize({.normalize_timestamps = false});
  xplane::XPlaneVisitor plane(&space, &space.planes[0], xplane::SpaceBaseNs(space));
  LazyLaunchPrecisionHints untyped(&plane);
  EXPECT_FALSE(untyped.possible());
  EXPECT_EQ(untyped.Find(1), PrecisionHint::kUnknown);
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
