#include "converters/common/step_inference.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using ::testing::HasSubstr;
using xplane::StatType;

constexpr int64_t kUs = 1000 * 1000;  // ps

// A host thread (line 1) and one GPU stream; times in µs.
class TraceBuilder {
 public:
  TraceBuilder() : builder_(&space_) {
    host_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    gpu_ = builder_.GetOrCreatePlane(xplane::GpuPlaneName(0));
    thread_ = host_->GetOrCreateLine(1);
    thread_->SetName("thread 1");
    stream_ = gpu_->GetOrCreateLine(7);
    stream_->SetName("Stream #7");
    host_corr_ = host_->GetOrCreateStatMetadata(StatType::kCorrelationId);
    gpu_corr_ = gpu_->GetOrCreateStatMetadata(StatType::kCorrelationId);
  }
  void Host(const std::string& name, int64_t begin_us, int64_t dur_us) {
    thread_->AddEvent(host_->GetOrCreateEventMetadata(name), begin_us * kUs, dur_us * kUs);
  }
  void Root(int64_t begin_us, int64_t dur_us, int64_t step) {
    xplane::XEventBuilder ev = thread_->AddEvent(
        host_->GetOrCreateEventMetadata("ProfilerStep#" + std::to_string(step)), begin_us * kUs,
        dur_us * kUs);
    ev.AddInt64(host_->GetOrCreateStatMetadata(StatType::kIsRoot), 1);
    ev.AddInt64(host_->GetOrCreateStatMetadata(StatType::kStepNum), step);
  }
  // A launch at `launch_us` and its kernel at `kernel_us`.
  void Kernel(const std::string& name, int64_t launch_us, int64_t kernel_us, int64_t dur_us) {
    ++corr_;
    thread_->AddEvent(host_->GetOrCreateEventMetadata("cudaLaunchKernel"), launch_us * kUs, kUs)
        .AddInt64(host_corr_, corr_);
    stream_->AddEvent(gpu_->GetOrCreateEventMetadata(name), kernel_us * kUs, dur_us * kUs)
        .AddInt64(gpu_corr_, corr_);
  }
  xplane::XSpaceData* Finish() {
    builder_.Finalize({.normalize_timestamps = false});
    return &space_;
  }

 private:
  xplane::XSpaceData space_;
  xplane::XSpaceBuilder builder_;
  xplane::XPlaneBuilder* host_;
  xplane::XPlaneBuilder* gpu_;
  xplane::XLineBuilder* thread_;
  xplane::XLineBuilder* stream_;
  uint32_t host_corr_, gpu_corr_;
  int64_t corr_ = 0;
};

struct RootSeen {
  std::string name;
  int64_t begin_us, end_us, step_num;
};

std::vector<RootSeen> Roots(const xplane::XSpaceData& space) {
  std::vector<RootSeen> roots;
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  xplane::XPlaneVisitor plane(&space, host, xplane::SpaceBaseNs(space));
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      auto r = e.GetStat(StatType::kIsRoot);
      if (!r || r->IntValue() == 0) return;
      auto n = e.GetStat(StatType::kStepNum);
      roots.push_back({std::string(e.name()), e.begin_ps() / kUs, e.end_ps() / kUs,
                       n ? n->IntValue() : -1});
    });
  });
  return roots;
}

TEST(StepInferenceTest, DataLoaderIterationsBecomeSteps) {
  TraceBuilder t;
  for (int i = 0; i < 4; ++i) {
    const int64_t s = i * 1000;
    t.Host("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, 100);
    t.Host("aten::conv2d", s + 200, 300);
    t.Kernel("conv", s + 210, s + 220, 400);
    t.Host("Optimizer.step#SGD.step", s + 600, 100);
  }
  xplane::XSpaceData* space = t.Finish();
  StepsResult r = ApplyStepsMode(space, StepsMode::kAuto);
  EXPECT_TRUE(r.inferred);
  EXPECT_EQ(r.method, kStepsFromDataLoader);
  EXPECT_EQ(r.steps, 4);
  std::vector<RootSeen> roots = Roots(*space);
  ASSERT_EQ(roots.size(), 4u);
  EXPECT_EQ(roots[0].name, "Step#1");
  EXPECT_EQ(roots[0].begin_us, 0);
  EXPECT_EQ(roots[0].end_us, 1000);
  EXPECT_EQ(roots[3].begin_us, 3000);
  EXPECT_EQ(roots[3].end_us, 3700);  // The end of the last top-level work.
  EXPECT_EQ(roots[3].step_num, 4);
  EXPECT_THAT(space->warnings.back(), HasSubstr("steps inferred by tbprof"));
  // The roots nest: nothing moved to an "(overlapping)" line.
  for (const xplane::Line& line : space->planes[0].lines) {
    EXPECT_THAT(space->strings.Get(line.name), ::testing::Not(HasSubstr("overlapping")));
  }
}

TEST(StepInferenceTest, OptimizerStepsWithoutDataLoader) {
  TraceBuilder t;
  for (int i = 0; i < 4; ++i) {
    const int64_t s = i * 1000;
    t.Host("aten::mm", s + 200, 300);
    t.Kernel("gemm", s + 210, s + 220, 400);
    t.Host("Optimizer.step#Adam.step", s + 600, 100);
  }
  xplane::XSpaceData* space = t.Finish();
  StepsResult r = ApplyStepsMode(space, StepsMode::kAuto);
  EXPECT_EQ(r.method, kStepsFromOptimizer);
  ASSERT_EQ(r.steps, 3);  // Between the ends of 4 optimizer steps.
  std::vector<RootSeen> roots = Roots(*space);
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_EQ(roots[0].begin_us, 700);
  EXPECT_EQ(roots[0].end_us, 1700);
}

TEST(StepInferenceTest, RepeatingKernelSequenceGivesSteps) {
  TraceBuilder t;
  // 5 iterations of kernels A B C B' with an idle GPU gap before A; the
  // trace starts in the middle of an iteration (B C B' first).
  t.Kernel("B", 10, 20, 10);
  t.Kernel("C", 40, 50, 10);
  t.Kernel("B2", 70, 80, 10);
  for (int i = 0; i < 5; ++i) {
    const int64_t s = 1000 + i * 1000;
    t.Kernel("A", s, s + 10, 100);
    t.Kernel("B", s + 20, s + 120, 100);
    t.Kernel("C", s + 40, s + 230, 100);
    t.Kernel("B2", s + 60, s + 340, 100);
  }
  xplane::XSpaceData* space = t.Finish();
  StepsResult r = ApplyStepsMode(space, StepsMode::kAuto);
  EXPECT_EQ(r.method, kStepsFromKernelPeriod);
  ASSERT_EQ(r.steps, 5);
  std::vector<RootSeen> roots = Roots(*space);
  ASSERT_EQ(roots.size(), 5u);
  EXPECT_EQ(roots[0].begin_us, 1000);  // At the launch of A: the phase after the idle gap.
  EXPECT_EQ(roots[1].begin_us, 2000);
  EXPECT_EQ(roots[4].end_us, 5061);  // The last launch's end.
}

TEST(StepInferenceTest, NothingRepeatsNothingInferred) {
  TraceBuilder t;
  for (int i = 0; i < 12; ++i) t.Kernel("k" + std::to_string(i), i * 100, i * 100 + 10, 50);
  xplane::XSpaceData* space = t.Finish();
  StepsResult r = ApplyStepsMode(space, StepsMode::kAuto);
  EXPECT_FALSE(r.inferred);
  EXPECT_EQ(r.steps, 0);
  EXPECT_THAT(r.message, HasSubstr("does not repeat"));
  EXPECT_TRUE(Roots(*space).empty());
  EXPECT_THAT(space->warnings.back(), HasSubstr("none inferred"));
}

TEST(StepInferenceTest, MarkersWinUnlessInferIsAsked) {
  auto make = [](TraceBuilder& t) {
    for (int i = 0; i < 3; ++i) {
      const int64_t s = i * 1000;
      t.Root(s, 900, 10 + i);
      t.Host("enumerate(DataLoader)#x", s + 5, 50);
      t.Kernel("k", s + 100, s + 110, 100);
    }
  };
  {
    TraceBuilder t;
    make(t);
    xplane::XSpaceData* space = t.Finish();
    StepsResult r = ApplyStepsMode(space, StepsMode::kAuto);
    EXPECT_FALSE(r.inferred);
    EXPECT_EQ(r.method, kStepsFromMarkers);
    EXPECT_EQ(Roots(*space).size(), 3u);
  }
  {
    TraceBuilder t;
    make(t);
    xplane::XSpaceData* space = t.Finish();
    StepsResult r = ApplyStepsMode(space, StepsMode::kInfer);
    EXPECT_TRUE(r.inferred);
    std::vector<RootSeen> roots = Roots(*space);
    ASSERT_EQ(roots.size(), 3u);
    EXPECT_EQ(roots[0].name, "Step#1");  // The ProfilerStep roots are roots no more.
  }
  {
    TraceBuilder t;
    make(t);
    xplane::XSpaceData* space = t.Finish();
    ApplyStepsMode(space, StepsMode::kNone);
    EXPECT_TRUE(Roots(*space).empty());
  }
}

TEST(StepInferenceTest, ParsesModes) {
  EXPECT_EQ(*ParseStepsMode("markers"), StepsMode::kMarkers);
  EXPECT_EQ(*ParseStepsMode("INFER"), StepsMode::kInfer);
  EXPECT_EQ(*ParseStepsMode(""), StepsMode::kAuto);
  EXPECT_FALSE(ParseStepsMode("sometimes").ok());
}

}  // namespace
}  // namespace tbprof::converters
