#include "converters/views/steps/xspace_to_step_db.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "converters/views/steps/event_type_span.h"
#include "converters/views/common/steps_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/steps_db.pb.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tensorflow::profiler::GenericStepBreakdown;
using tensorflow::profiler::OpStats;
using tensorflow::profiler::StepInfoResult;
using testing::StepSpaceBuilder;

StepAnalysis Analyze(const xplane::XSpaceData& space, Breakdown mode) {
  StepOptions options;
  options.breakdown = mode;
  absl::StatusOr<StepAnalysis> a = ConvertXSpaceToStepAnalysis(space, options);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *std::move(a) : StepAnalysis{};
}

const StepInfoResult& Step(const OpStats& s, int i) {
  return s.step_db().step_sequence(i).step_info_per_core().at(1);
}

std::map<int, uint64_t> TypePs(const OpStats& s, int i) {
  GenericStepBreakdown b;
  EXPECT_TRUE(Step(s, i).step_breakdown().UnpackTo(&b));
  std::map<int, uint64_t> out;
  for (const auto& [type, ps] : b.type_ps()) {
    if (ps > 0) out[type] = ps;
  }
  return out;
}

// The plugin's GpuStepDbTest shape: one step, one launch, one kernel.
TEST(ConvertXSpaceToStepAnalysisTest, SingleStepDeviceOnly) {
  StepSpaceBuilder b;
  b.Root(/*tid=*/1, "ProfilerStep#123", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/123);
  b.Launch(1, /*begin_ps=*/30, /*duration_ps=*/10, /*correlation_id=*/100);
  b.Device(/*gpu=*/0, /*stream=*/7, "matmul", /*begin_ps=*/50, /*duration_ps=*/40, 100);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).step_num(), 123u);
  EXPECT_EQ(Step(a.op_stats, 0).step_name(), "ProfilerStep#123 123");
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 50u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 40u);
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kDeviceCompute32, 40}}));
  EXPECT_EQ(a.op_stats.device_op_metrics_db().precision_stats().compute_32bit_ps(), 40u);
}

TEST(ConvertXSpaceToStepAnalysisTest, SingleStepWithHost) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#123", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/123);
  b.HostEvent(1, "aten::mm", /*begin_ps=*/20, /*duration_ps=*/25);
  b.Launch(1, /*begin_ps=*/30, /*duration_ps=*/10, /*correlation_id=*/100);
  b.Device(0, 7, "matmul", /*begin_ps=*/50, /*duration_ps=*/40, 100);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 0u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 100u);
  // Host compute [20,30) and [40,45); launch [30,40); device [50,90); the rest unknown.
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 35},
                                                             {kHostCompute, 15},
                                                             {kHostPrepare, 10},
                                                             {kDeviceCompute32, 40}}));
}

// Nested host events: one strictly inside an op of the same type adds no
// span (it cannot change the breakdown), one that ends with its op and a
// launch of higher type inside it do; the breakdown, zero entries included,
// is the one of all spans.
TEST(ConvertXSpaceToStepAnalysisTest, NestedHostEventsGiveTheBreakdownOfAllTheirSpans) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#1", /*begin_ps=*/0, /*duration_ps=*/1000, /*step_num=*/1);
  b.HostEvent(1, "aten::outer", /*begin_ps=*/100, /*duration_ps=*/500);
  b.HostEvent(1, "aten::inner", /*begin_ps=*/200, /*duration_ps=*/100);
  b.Launch(1, /*begin_ps=*/250, /*duration_ps=*/10, /*correlation_id=*/5);
  b.HostEvent(1, "aten::tail", /*begin_ps=*/400, /*duration_ps=*/200);
  b.Device(0, 7, "matmul", /*begin_ps=*/700, /*duration_ps=*/100, 5);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  GenericStepBreakdown breakdown;
  ASSERT_TRUE(Step(a.op_stats, 0).step_breakdown().UnpackTo(&breakdown));
  const std::map<int, uint64_t> all(breakdown.type_ps().begin(), breakdown.type_ps().end());
  EXPECT_EQ(all, (std::map<int, uint64_t>{{kUnknownTime, 400},
                                          {kHostCompute, 490},
                                          {kHostPrepare, 10},
                                          {kDeviceCompute32, 100}}));
}

TEST(ConvertXSpaceToStepAnalysisTest, MemcpyAndCollectivesAreClassifiedByName) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 1000, 0);
  for (int i = 0; i < 5; ++i) b.Launch(1, 10 + 10 * i, 5, /*correlation_id=*/i);
  b.Device(0, 1, "MemcpyHToD", /*begin_ps=*/100, /*duration_ps=*/10, /*correlation_id=*/0)
      .AddString(b.Gpu(0)->GetOrCreateStatMetadata(xplane::StatType::kMemcpyDetails),
                 "num_bytes:4096");
  b.Device(0, 1, "volta_sgemm", 110, 20, 1);
  b.Device(0, 2, "MemcpyDToD", 130, 5, 2);
  b.Device(0, 1, "ncclKernel_AllReduce", 140, 30, 3);
  b.Device(0, 3, "MemcpyDToH", 170, 30, 4);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  // [135, 140) is a gap: nothing runs there.
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 5},
                                                             {kHostToDevice, 10},
                                                             {kDeviceCompute32, 20},
                                                             {kDeviceToDevice, 5},
                                                             {kDeviceCollectives, 30},
                                                             {kDeviceToHost, 30}}));
  const auto& transfers = a.op_stats.step_db().step_sequence(0).device_memory_transfers();
  ASSERT_EQ(transfers.size(), 3);
  EXPECT_EQ(transfers[0].occurrence(), 1u);
  EXPECT_EQ(transfers[0].bytes_transferred(), 4096u);
  EXPECT_EQ(transfers[1].occurrence(), 1u);
  EXPECT_EQ(transfers[2].occurrence(), 1u);
}

TEST(ConvertXSpaceToStepAnalysisTest, StepsWithoutDeviceComputeAreDropped) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 100, 0);
  b.Launch(1, 10, 5, /*correlation_id=*/1);
  b.Root(1, "ProfilerStep#1", 200, 100, 1);
  b.Launch(1, 210, 5, /*correlation_id=*/2);
  b.Device(0, 1, "MemcpyHToD", 20, 10, 1);  // Step 0: a copy only.
  b.Device(0, 1, "kernel", 220, 10, 2);     // Step 1: compute.
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).step_num(), 1u);
  EXPECT_EQ(a.op_stats.step_db().num_steps_dropped(), 1u);
  EXPECT_THAT(a.op_stats.diagnostics().info(0), HasSubstr("1 step(s) without device compute"));
}

TEST(ConvertXSpaceToStepAnalysisTest, UngroupedDeviceEventsJoinThePreviousGroupedEvent) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 100, 0);
  b.Launch(1, 10, 5, /*correlation_id=*/1);
  // Launched from a thread without a root (autograd's backward thread).
  b.Launch(2, 20, 5, /*correlation_id=*/2);
  b.Device(0, 1, "forward", /*begin_ps=*/30, /*duration_ps=*/10, 1);
  b.Device(0, 2, "backward", /*begin_ps=*/45, /*duration_ps=*/20, 2);
  // No correlation id: extends the step's span but is not an event of it.
  b.Device(0, 1, "untracked", /*begin_ps=*/70, /*duration_ps=*/30, -1);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 30u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 70u);
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kDeviceCompute32, 30},
                                                             {kUnknownTime, 40}}));
}

TEST(ConvertXSpaceToStepAnalysisTest, DeviceEventsBeforeAnyGroupedEventStayUngrouped) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 100, 100, 0);
  b.Launch(1, 110, 5, /*correlation_id=*/1);
  b.Device(0, 1, "early", /*begin_ps=*/0, /*duration_ps=*/50, /*correlation_id=*/99);
  b.Device(0, 1, "kernel", /*begin_ps=*/120, /*duration_ps=*/10, 1);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 120u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 10u);
}

TEST(ConvertXSpaceToStepAnalysisTest, StepTimeIsTheLongestPerGpuSpan) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 1000, 0);
  b.Launch(1, 10, 5, 1);
  b.Launch(1, 20, 5, 2);
  b.Launch(1, 30, 5, 3);
  b.Device(0, 1, "k0", 100, 50, 1);   // GPU0 span 50.
  b.Device(1, 1, "k1", 120, 60, 2);   // GPU1 span [120, 300): 180.
  b.Device(1, 1, "k2", 280, 20, 3);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 120u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 180u);
  EXPECT_EQ(a.op_stats.run_environment().device_core_count(), 2);
}

// A step whose device work starts only after the DataLoader returned, and
// runs past the end of the host step.
void BuildInputBoundSteps(StepSpaceBuilder* b) {
  for (int s = 0; s < 2; ++s) {
    const int64_t t0 = s * 1000;
    b->Root(1, s == 0 ? "ProfilerStep#0" : "ProfilerStep#1", t0, 800, s);
    b->HostEvent(1, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10, 490);
    b->Launch(1, t0 + 550, 10, /*correlation_id=*/s);
    b->Device(0, 1, "volta_sgemm", t0 + 600, 300, s);
  }
}

TEST(ConvertXSpaceToStepAnalysisTest, DeviceOnlyModeCannotSeeTheDataLoader) {
  StepSpaceBuilder b;
  BuildInputBoundSteps(&b);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 2);
  EXPECT_EQ(Step(a.op_stats, 1).duration_ps(), 300u);
  EXPECT_EQ(TypePs(a.op_stats, 1), (std::map<int, uint64_t>{{kDeviceCompute32, 300}}));
  EXPECT_EQ(a.breakdown, Breakdown::kDeviceOnly);
}

TEST(ConvertXSpaceToStepAnalysisTest, WithHostModeCountsTheDataLoaderWait) {
  StepSpaceBuilder b;
  BuildInputBoundSteps(&b);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 2);
  // Step 0: [0, 900) = host root [0, 800) + device [600, 900).
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 0u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 900u);
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 100},
                                                             {kHostWaitInput, 490},
                                                             {kHostPrepare, 10},
                                                             {kDeviceCompute32, 300}}));
  // Step 1: host root [1000, 1800), device up to 1900.
  EXPECT_EQ(Step(a.op_stats, 1).begin_ps(), 1000u);
  EXPECT_EQ(Step(a.op_stats, 1).duration_ps(), 900u);
}

// Per step: step number, begin, duration and nonzero type_ps (the breakdown
// is a map, whose serialized order is not fixed).
std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::map<int, uint64_t>>> Steps(
    const OpStats& s) {
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::map<int, uint64_t>>> out;
  for (int i = 0; i < s.step_db().step_sequence_size(); ++i) {
    out.emplace_back(s.step_db().step_sequence(i).step_num(), Step(s, i).begin_ps(),
                     Step(s, i).duration_ps(), TypePs(s, i));
  }
  return out;
}

// Both breakdowns from one pass give what two separate analyses give.
TEST(ConvertXSpaceToStepAnalysisTest, OtherBreakdownFromTheSamePassMatchesItsOwnAnalysis) {
  StepSpaceBuilder b;
  BuildInputBoundSteps(&b);
  const xplane::XSpaceData& space = b.Finish();
  for (Breakdown shown : {Breakdown::kWithHost, Breakdown::kDeviceOnly}) {
    const Breakdown other =
        shown == Breakdown::kWithHost ? Breakdown::kDeviceOnly : Breakdown::kWithHost;
    StepOptions options;
    options.breakdown = shown;
    absl::StatusOr<StepAnalyses> both =
        ConvertXSpaceToStepAnalyses(space, options, /*with_other_breakdown=*/true);
    ASSERT_TRUE(both.ok()) << both.status();
    ASSERT_TRUE(both->has_other);
    const StepAnalysis alone = Analyze(space, shown);
    const StepAnalysis other_alone = Analyze(space, other);
    EXPECT_EQ(both->analysis.breakdown, shown);
    EXPECT_EQ(both->other.breakdown, other);
    EXPECT_EQ(Steps(both->analysis.op_stats), Steps(alone.op_stats));
    EXPECT_EQ(both->analysis.op_stats.device_op_metrics_db().SerializeAsString(),
              alone.op_stats.device_op_metrics_db().SerializeAsString());
    EXPECT_EQ(both->analysis.op_stats.diagnostics().SerializeAsString(),
              alone.op_stats.diagnostics().SerializeAsString());
    EXPECT_EQ(Steps(both->other.op_stats), Steps(other_alone.op_stats));
    EXPECT_EQ(both->other.op_stats.device_op_metrics_db().precision_stats().SerializeAsString(),
              other_alone.op_stats.device_op_metrics_db().precision_stats().SerializeAsString());
    EXPECT_EQ(both->other.op_stats.diagnostics().SerializeAsString(),
              other_alone.op_stats.diagnostics().SerializeAsString());
    EXPECT_EQ(both->other.op_stats.host_op_metrics_db().SerializeAsString(),
              other_alone.op_stats.host_op_metrics_db().SerializeAsString());
  }
}

TEST(ConvertXSpaceToStepAnalysisTest, WithHostStepStartsAfterPreviousStepEnds) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 100, 0);
  b.Launch(1, 10, 5, 0);
  b.Device(0, 1, "k0", 50, 200, 0);  // Runs until 250, past the next root's start.
  b.Root(1, "ProfilerStep#1", 150, 100, 1);
  b.HostEvent(1, "enumerate(DataLoader)#x", 160, 80);
  b.Launch(1, 241, 5, 1);
  b.Device(0, 1, "k1", 260, 40, 1);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 2);
  EXPECT_EQ(Step(a.op_stats, 0).begin_ps(), 0u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 250u);
  EXPECT_EQ(Step(a.op_stats, 1).begin_ps(), 250u);
  EXPECT_EQ(Step(a.op_stats, 1).duration_ps(), 50u);
  // The DataLoader and the launch ended before the step began; [250, 260) is idle.
  EXPECT_EQ(TypePs(a.op_stats, 1), (std::map<int, uint64_t>{{kUnknownTime, 10},
                                                             {kDeviceCompute32, 40}}));
}

TEST(ConvertXSpaceToStepAnalysisTest, WithHostAttributesRootlessThreadsByTime) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 100, 0);
  b.Launch(1, 10, 5, 0);
  b.Device(0, 1, "k0", 20, 10, 0);
  b.Launch(/*tid=*/2, /*begin_ps=*/40, /*duration_ps=*/20, /*correlation_id=*/55);
  b.HostEvent(/*tid=*/2, "outside", /*begin_ps=*/150, /*duration_ps=*/20);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 65},
                                                             {kHostPrepare, 25},
                                                             {kDeviceCompute32, 10}}));
}

TEST(ConvertXSpaceToStepAnalysisTest, WithHostACopyIsNotHiddenByItsHostCall) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 100, 0);
  // A synchronous copy: the host call lasts until the copy is done.
  b.Launch(1, /*begin_ps=*/10, /*duration_ps=*/30, /*correlation_id=*/1, "cudaMemcpyAsync");
  b.Device(0, 2, "MemcpyHToD", /*begin_ps=*/20, /*duration_ps=*/15, 1);
  b.Launch(1, /*begin_ps=*/40, /*duration_ps=*/5, /*correlation_id=*/2);
  b.Device(0, 1, "kernel", /*begin_ps=*/50, /*duration_ps=*/40, 2);
  const xplane::XSpaceData& space = b.Finish();
  StepAnalysis with_host = Analyze(space, Breakdown::kWithHost);
  ASSERT_EQ(with_host.op_stats.step_db().step_sequence_size(), 1);
  // The call [10, 40) is a launch except while its copy [20, 35) runs.
  EXPECT_EQ(TypePs(with_host.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 25},
                                                                     {kHostToDevice, 15},
                                                                     {kHostPrepare, 20},
                                                                     {kDeviceCompute32, 40}}));
  StepAnalysis device_only = Analyze(space, Breakdown::kDeviceOnly);
  ASSERT_EQ(device_only.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(TypePs(device_only.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 15},
                                                                       {kHostToDevice, 15},
                                                                       {kDeviceCompute32, 40}}));
}

TEST(ConvertXSpaceToStepAnalysisTest, DropIncompleteStepsDropsFirstAndLastOfMoreThanFive) {
  StepSpaceBuilder b;
  for (int s = 0; s < 7; ++s) {
    b.Root(1, "ProfilerStep", s * 100, 90, s);
    b.Launch(1, s * 100 + 10, 5, s);
    b.Device(0, 1, "kernel", s * 100 + 20, 50, s);
  }
  const xplane::XSpaceData& space = b.Finish();
  StepOptions options;
  options.drop_incomplete_steps = true;
  absl::StatusOr<StepAnalysis> dropped = ConvertXSpaceToStepAnalysis(space, options);
  ASSERT_TRUE(dropped.ok());
  ASSERT_EQ(dropped->op_stats.step_db().step_sequence_size(), 5);
  EXPECT_EQ(Step(dropped->op_stats, 0).step_num(), 1u);
  EXPECT_EQ(Step(dropped->op_stats, 4).step_num(), 5u);
  options.drop_incomplete_steps = false;
  absl::StatusOr<StepAnalysis> kept = ConvertXSpaceToStepAnalysis(space, options);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->op_stats.step_db().step_sequence_size(), 7);
  // The default is the plugin's: drop.
  EXPECT_EQ(Analyze(space, Breakdown::kWithHost).op_stats.step_db().step_sequence_size(), 5);
}

TEST(ConvertXSpaceToStepAnalysisTest, CpuOnlyProfileUsesHostSteps) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#5", 0, 100, 5);
  b.HostEvent(1, "aten::mm", 10, 60);
  b.HostEvent(1, "enumerate(DataLoader)#x", 70, 20);
  b.Root(1, "ProfilerStep#6", 200, 100, 6);  // Nothing inside: dropped.
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).step_num(), 5u);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 100u);
  EXPECT_EQ(TypePs(a.op_stats, 0), (std::map<int, uint64_t>{{kUnknownTime, 20},
                                                             {kHostCompute, 60},
                                                             {kHostWaitInput, 20}}));
  EXPECT_EQ(a.op_stats.run_environment().device_type(), "CPU");
  EXPECT_EQ(a.op_stats.run_environment().device_core_count(), 0);
}

TEST(ConvertXSpaceToStepAnalysisTest, NoStepsGivesADiagnostic) {
  StepSpaceBuilder b;
  b.Device(0, 1, "kernel", 0, 10, 1);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  EXPECT_EQ(a.op_stats.step_db().step_sequence_size(), 0);
  ASSERT_GT(a.op_stats.diagnostics().warnings_size(), 0);
  EXPECT_THAT(a.op_stats.diagnostics().warnings(0), HasSubstr("prof.step()"));
}

TEST(ConvertXSpaceToStepAnalysisTest, EmptySpaceIsInvalid) {
  xplane::XSpaceData space;
  EXPECT_EQ(ConvertXSpaceToStepAnalysis(space, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ConvertXSpaceToStepAnalysisTest, TopDeviceOpsUseTfOpThenKernelName) {
  StepSpaceBuilder b;
  const uint32_t tf_op = b.Gpu(0)->GetOrCreateStatMetadata(xplane::StatType::kTfOp);
  b.Device(0, 1, "volta_h884gemm", 0, 30, 1).AddRef(tf_op, "aten::mm");
  b.Device(0, 1, "volta_sgemm", 40, 20, 2).AddRef(tf_op, "aten::mm");
  b.Device(0, 1, "elementwise_kernel", 70, 25, 3);
  b.Device(0, 2, "MemcpyHToD", 100, 5, 4);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  const auto& db = a.op_stats.device_op_metrics_db();
  ASSERT_EQ(db.metrics_db_size(), 3);
  EXPECT_EQ(db.metrics_db(0).name(), "aten::mm");
  EXPECT_EQ(db.metrics_db(0).category(), "aten");
  EXPECT_EQ(db.metrics_db(0).occurrences(), 2u);
  EXPECT_EQ(db.metrics_db(0).self_time_ps(), 50u);
  EXPECT_EQ(db.metrics_db(1).name(), "elementwise_kernel");
  EXPECT_EQ(db.metrics_db(1).category(), "Kernel");
  EXPECT_EQ(db.metrics_db(2).category(), "MemcpyHToD");
  EXPECT_EQ(db.total_op_time_ps(), 80u);
  EXPECT_TRUE(a.tensor_core_by_op.at("aten::mm").using_tensor_core);
  EXPECT_TRUE(a.tensor_core_by_op.at("aten::mm").eligible);
  EXPECT_FALSE(a.tensor_core_by_op.at("elementwise_kernel").eligible);
}

TEST(ConvertXSpaceToStepAnalysisTest, TensorFlowAnnotationNamesTheOp) {
  StepSpaceBuilder b;
  const uint32_t annotation = b.Gpu(0)->GetOrCreateStatMetadata("annotation");
  b.Device(0, 1, "void tensorflow::BiasNHWCKernel<float>", 0, 30, 1)
      .AddRef(annotation, "model/dense/BiasAdd:BiasAdd#shape=(float[4,8])#::#edge_name=x#");
  b.Device(0, 1, "void tensorflow::BiasNHWCKernel<float>", 40, 10, 2)
      .AddRef(annotation, "model/dense/BiasAdd:BiasAdd#shape=(float[2,8])#");
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  const auto& db = a.op_stats.device_op_metrics_db();
  ASSERT_EQ(db.metrics_db_size(), 1);
  EXPECT_EQ(db.metrics_db(0).name(), "model/dense/BiasAdd");
  EXPECT_EQ(db.metrics_db(0).category(), "BiasAdd");
  EXPECT_EQ(db.metrics_db(0).occurrences(), 2u);
}

TEST(OpNameOfAnnotationTest, FirstNamedLevelWithoutMetadata) {
  EXPECT_EQ(OpNameOfAnnotation("a/b:MatMul#shape=(float[2])#"), "a/b:MatMul");
  EXPECT_EQ(OpNameOfAnnotation("#edge_name=x#::a:Recv"), "a:Recv");
  EXPECT_EQ(OpNameOfAnnotation("a:Recv#from=x#::#edge_name=y#"), "a:Recv");
  EXPECT_EQ(OpNameOfAnnotation("##"), "");
}

TEST(ParseFrameworkOpTest, TensorFlowPyTorchAndOther) {
  FrameworkOp tf = ParseFrameworkOp("replica_4/Tile:Tile");
  EXPECT_EQ(tf.name, "replica_4/Tile");
  EXPECT_EQ(tf.category, "Tile");
  FrameworkOp pt = ParseFrameworkOp("aten::convolution_backward");
  EXPECT_EQ(pt.name, "aten::convolution_backward");
  EXPECT_EQ(pt.category, "aten");
  FrameworkOp other = ParseFrameworkOp("my op");
  EXPECT_EQ(other.name, "my op");
  EXPECT_EQ(other.category, "Unknown");
}

TEST(ConvertXSpaceToStepAnalysisTest, InputOpsAggregateDataLoaderIterations) {
  StepSpaceBuilder b;
  const std::string name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  b.HostEvent(1, name, 0, 100);
  b.HostEvent(1, "aten::stack", 10, 30);  // Child: not self time.
  b.HostEvent(1, name, 200, 50);
  b.HostEvent(1, "aten::mm", 300, 50);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  const auto& db = a.op_stats.host_op_metrics_db();
  ASSERT_EQ(db.metrics_db_size(), 1);
  EXPECT_EQ(db.metrics_db(0).name(), name);
  EXPECT_EQ(db.metrics_db(0).category(), "Preprocessing");
  EXPECT_EQ(db.metrics_db(0).occurrences(), 2u);
  EXPECT_EQ(db.metrics_db(0).time_ps(), 150u);
  EXPECT_EQ(db.metrics_db(0).self_time_ps(), 120u);
}

TEST(ConvertXSpaceToStepAnalysisTest, RunEnvironmentFromGpuPlaneStats) {
  StepSpaceBuilder b;
  b.GpuStatString(0, xplane::StatType::kDevVendor, "Nvidia");
  b.GpuStatInt(0, xplane::StatType::kDevCapComputeCapMajor, 9);
  b.GpuStatInt(0, xplane::StatType::kDevCapComputeCapMinor, 0);
  b.Gpu(1);
  b.Device(0, 1, "k", 0, 1, -1);
  b.space().hostnames.push_back("worker-0");
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kWithHost);
  const auto& env = a.op_stats.run_environment();
  EXPECT_EQ(env.device_type(), "Nvidia GPU (Hopper)");
  EXPECT_EQ(env.device_core_count(), 2);
  EXPECT_TRUE(env.hostnames().contains("worker-0"));
  EXPECT_EQ(env.hardware_type(), tensorflow::profiler::GPU);
}

TEST(GpuModelNameTest, ArchitecturesByComputeCapability) {
  EXPECT_EQ(GpuModelName("Nvidia", 7, 0, ""), "Nvidia GPU (Volta)");
  EXPECT_EQ(GpuModelName("Nvidia", 7, 5, ""), "Nvidia GPU (Turing)");
  EXPECT_EQ(GpuModelName("Nvidia", 8, 0, ""), "Nvidia GPU (Ampere)");
  EXPECT_EQ(GpuModelName("Nvidia", 8, 9, ""), "Nvidia GPU (Ada Lovelace)");
  EXPECT_EQ(GpuModelName("Nvidia", 9, 0, ""), "Nvidia GPU (Hopper)");
  EXPECT_EQ(GpuModelName("Nvidia", 10, 0, ""), "Nvidia GPU (Blackwell)");
  EXPECT_EQ(GpuModelName("", 7, 0, ""), "Nvidia GPU (Volta)");  // Old TF files: no vendor.
  EXPECT_EQ(GpuModelName("AMD", 9, 4, ""), "AMD GPU - gfx942");
  EXPECT_EQ(GpuModelName("AMD", 9, 0, "gfx90a:sramecc+"), "AMD GPU - gfx90a");
  EXPECT_EQ(GpuModelName("", 0, 0, ""), "GPU");
}

TEST(IsDerivedLineTest, DerivedIdsAndNames) {
  EXPECT_TRUE(IsDerivedLine(0xdeadbeef, ""));
  EXPECT_TRUE(IsDerivedLine(-559038737, "Steps"));  // 0xdeadbeef as int32.
  EXPECT_TRUE(IsDerivedLine(-559038734, "TensorFlow Ops"));
  EXPECT_TRUE(IsDerivedLine(5, "XLA Ops"));
  EXPECT_FALSE(IsDerivedLine(7, "Stream #7(Compute)"));
  EXPECT_FALSE(IsDerivedLine(-1, "stream -1"));
}

TEST(ConvertXSpaceToStepAnalysisTest, GpuAnnotationLinesAreNotDeviceActivity) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", 0, 1000, 0);
  b.Launch(1, 10, 5, 1);
  b.Device(0, 7, "kernel", 100, 50, 1);
  // Kineto's gpu_user_annotation copy of the step, on its own line.
  b.Gpu(0)->GetOrCreateLine(0x10000007)->SetName("GPU annotations (stream 7)");
  b.Device(0, 0x10000007, "ProfilerStep#0", 90, 800, -1);
  StepAnalysis a = Analyze(b.Finish(), Breakdown::kDeviceOnly);
  ASSERT_EQ(a.op_stats.step_db().step_sequence_size(), 1);
  EXPECT_EQ(Step(a.op_stats, 0).duration_ps(), 50u);
  ASSERT_EQ(a.op_stats.device_op_metrics_db().metrics_db_size(), 1);
  EXPECT_EQ(a.op_stats.device_op_metrics_db().metrics_db(0).name(), "kernel");
}

}  // namespace
}  // namespace tbprof::views
