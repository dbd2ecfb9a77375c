#include "converters/views/steps/op_stats_to_input_pipeline_analysis.h"

#include <cmath>
#include <map>

#include "converters/views/steps/event_type_span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/steps_db.pb.h"

namespace tbprof::views {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::Not;
using tensorflow::profiler::BottleneckAnalysis;
using tensorflow::profiler::GenericStepBreakdown;
using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::OpStats;
using tensorflow::profiler::PerGenericStepDetails;

constexpr uint64_t kMs = 1000000000;  // Picoseconds per millisecond.

// Adds a step whose breakdown is `type_ms` (the rest of `step_ms` is unknown).
void AddStep(OpStats* s, uint32_t step_num, double step_ms, std::map<EventType, double> type_ms) {
  GenericStepBreakdown b;
  double known = 0;
  for (const auto& [type, ms] : type_ms) {
    (*b.mutable_type_ps())[type] = static_cast<uint64_t>(ms * kMs);
    known += ms;
  }
  (*b.mutable_type_ps())[kUnknownTime] += static_cast<uint64_t>((step_ms - known) * kMs);
  auto* step = s->mutable_step_db()->add_step_sequence();
  step->set_step_num(step_num);
  auto& info = (*step->mutable_step_info_per_core())[1];
  info.set_step_num(step_num);
  info.set_duration_ps(static_cast<uint64_t>(step_ms * kMs));
  info.mutable_step_breakdown()->PackFrom(b);
}

BottleneckAnalysis Bottleneck(const InputPipelineAnalysisResult& r) {
  BottleneckAnalysis b;
  EXPECT_TRUE(r.recommendation().bottleneck_analysis().UnpackTo(&b));
  return b;
}

struct Case {
  double input_ms;         // Wait-for-input per 100 ms step.
  double unknown_ms;       // All-others per 100 ms step.
  const char* classification;
  const char* statement_word;
};

TEST(InputPipelineAnalysisTest, InputClassificationThresholds) {
  const Case cases[] = {
      {25, 0, "host", "HIGHLY"},     {20, 0, "host", "HIGHLY"},
      {19.9, 0, "both", "MODERATELY"}, {5, 0, "both", "MODERATELY"},
      {4.9, 3, "both", "POTENTIALLY"}, {1, 2.9, "device", "NOT"},
  };
  // Input as host-to-device copies (GPU events): host activity is not
  // counted, as in the device-only breakdown, so the plugin's rules apply.
  for (const Case& c : cases) {
    OpStats s;
    AddStep(&s, 1, 100, {{kHostToDevice, c.input_ms},
                         {kDeviceCompute32, 100 - c.input_ms - c.unknown_ms}});
    InputPipelineAnalysisResult r = ConvertOpStatsToInputPipelineAnalysis(s);
    BottleneckAnalysis b = Bottleneck(r);
    EXPECT_EQ(b.input_classification(), c.classification) << c.input_ms << " " << c.unknown_ms;
    EXPECT_THAT(b.input_statement(), HasSubstr(c.statement_word));
    EXPECT_THAT(r.input_percent(), DoubleNear(c.input_ms, 1e-6));
  }
}

// With host activity counted (the with-host breakdown), All Others is not
// taken for input: 4.1% unknown with 80% host compute is NOT input-bound
// but CPU-bound, and All Others gets its own (moderate) verdict.
TEST(InputPipelineAnalysisTest, WithHostActivityAllOthersIsNotInput) {
  OpStats s;
  AddStep(&s, 1, 100, {{kHostCompute, 80}, {kHostPrepare, 8.6}, {kDeviceCompute16, 7.3}});
  BottleneckAnalysis b = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(s));
  EXPECT_EQ(b.input_classification(), "device");
  EXPECT_THAT(b.input_statement(), HasSubstr("NOT input-bound"));
  EXPECT_THAT(b.input_statement(), HasSubstr("CPU-bound: 80.0%"));
  EXPECT_EQ(b.all_other_classification(), "moderate");
  EXPECT_EQ(b.kernel_launch_classification(), "moderate");
  // Host compute below kHostBoundPercent: no CPU-bound sentence.
  OpStats t;
  AddStep(&t, 1, 100, {{kHostCompute, 14.9}, {kDeviceCompute32, 80}});
  BottleneckAnalysis tb = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(t));
  EXPECT_EQ(tb.input_classification(), "device");
  EXPECT_THAT(tb.input_statement(), Not(HasSubstr("CPU-bound")));
}

TEST(InputPipelineAnalysisTest, HostToDeviceCountsAsInput) {
  OpStats s;
  AddStep(&s, 1, 100, {{kHostToDevice, 12}, {kHostWaitInput, 10}, {kDeviceCompute16, 78}});
  InputPipelineAnalysisResult r = ConvertOpStatsToInputPipelineAnalysis(s);
  EXPECT_EQ(Bottleneck(r).input_classification(), "host");
  EXPECT_THAT(r.input_percent(), DoubleNear(22, 1e-6));
  EXPECT_THAT(r.compute_percent(), DoubleNear(78, 1e-6));
  PerGenericStepDetails d;
  ASSERT_TRUE(r.step_details(0).UnpackTo(&d));
  EXPECT_THAT(d.host_to_device_ms(), DoubleNear(12, 1e-9));
  EXPECT_THAT(d.device_compute_ms(), DoubleNear(78, 1e-9));
}

TEST(InputPipelineAnalysisTest, KernelLaunchAndAllOtherThresholds) {
  struct LaunchCase {
    double launch_ms;
    const char* classification;
  } cases[] = {{15, "high"}, {14.9, "moderate"}, {3, "moderate"}, {2.9, "no"}};
  for (const LaunchCase& c : cases) {
    OpStats s;
    AddStep(&s, 1, 100, {{kHostPrepare, c.launch_ms}, {kDeviceCompute32, 100 - c.launch_ms}});
    BottleneckAnalysis b = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(s));
    EXPECT_EQ(b.kernel_launch_classification(), c.classification) << c.launch_ms;
    if (std::string(c.classification) != "no") {
      EXPECT_THAT(b.kernel_launch_statement(), HasSubstr("CUDA graphs"));
    }
  }
  // All-others high, but below the input thresholds the input verdict
  // already reports it ("POTENTIALLY") and the all-others verdict stays "no".
  OpStats s;
  AddStep(&s, 1, 100, {{kHostWaitInput, 6}, {kDeviceCompute32, 74}});  // 20 unknown.
  BottleneckAnalysis b = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(s));
  EXPECT_EQ(b.input_classification(), "both");
  EXPECT_EQ(b.all_other_classification(), "high");
  EXPECT_THAT(b.all_other_statement(), HasSubstr(".item()"));
  OpStats p;
  AddStep(&p, 1, 100, {{kDeviceCompute32, 80}});  // 20 unknown.
  BottleneckAnalysis pb = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(p));
  EXPECT_EQ(pb.input_classification(), "both");
  EXPECT_EQ(pb.all_other_classification(), "no");
}

TEST(InputPipelineAnalysisTest, CollectivesThresholds) {
  OpStats s;
  AddStep(&s, 1, 100, {{kDeviceCollectives, 16}, {kDeviceCompute32, 84}});
  BottleneckAnalysis b = Bottleneck(ConvertOpStatsToInputPipelineAnalysis(s));
  EXPECT_EQ(b.device_collectives_classification(), "high");
  EXPECT_THAT(b.idle_percent(), DoubleNear(0, 1e-9));
}

TEST(InputPipelineAnalysisTest, VerdictUsesTotalsOverSteps) {
  OpStats s;
  // 30% input in a 100 ms step and 0% in a 300 ms step: 30/400 = 7.5%.
  AddStep(&s, 1, 100, {{kHostWaitInput, 30}, {kDeviceCompute32, 70}});
  AddStep(&s, 2, 300, {{kDeviceCompute32, 300}});
  InputPipelineAnalysisResult r = ConvertOpStatsToInputPipelineAnalysis(s);
  EXPECT_THAT(r.input_percent(), DoubleNear(7.5, 1e-6));
  EXPECT_EQ(Bottleneck(r).input_classification(), "both");
  // Per-step input percent: 30 and 0.
  EXPECT_THAT(r.input_percent_summary().average(), DoubleNear(15, 1e-6));
  EXPECT_THAT(r.input_percent_summary().maximum(), DoubleNear(30, 1e-6));
  // Step time: 100 and 300 ms; sample standard deviation sqrt(20000).
  EXPECT_THAT(r.step_time_summary().average(), DoubleNear(200, 1e-6));
  EXPECT_THAT(r.step_time_summary().standard_deviation(), DoubleNear(std::sqrt(20000.0), 1e-6));
  EXPECT_THAT(r.step_time_summary().minimum(), DoubleNear(100, 1e-6));
  EXPECT_EQ(r.step_details_size(), 2);
}

TEST(InputPipelineAnalysisTest, NoStepsIsUnknown) {
  OpStats s;
  InputPipelineAnalysisResult r = ConvertOpStatsToInputPipelineAnalysis(s);
  BottleneckAnalysis b = Bottleneck(r);
  EXPECT_EQ(b.input_classification(), "unknown");
  EXPECT_THAT(b.input_statement(), HasSubstr("No step time measured"));
  EXPECT_EQ(r.step_time_summary().average(), 0);
}

TEST(InputPipelineAnalysisTest, HostInputOpTable) {
  OpStats s;
  AddStep(&s, 1, 100, {{kHostWaitInput, 40}, {kDeviceCompute32, 60}});
  auto* op = s.mutable_host_op_metrics_db()->add_metrics_db();
  op->set_name("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  op->set_category("Preprocessing");
  op->set_occurrences(4);
  op->set_time_ps(200 * kMs);
  op->set_self_time_ps(150 * kMs);
  auto* stage = s.mutable_host_op_metrics_db()->add_metrics_db();
  stage->set_name("read_shard");
  stage->set_category("Demanded file read");
  stage->set_occurrences(1);
  stage->set_time_ps(50 * kMs);
  stage->set_self_time_ps(50 * kMs);
  InputPipelineAnalysisResult r = ConvertOpStatsToInputPipelineAnalysis(s);
  ASSERT_EQ(r.input_op_details_size(), 2);
  EXPECT_EQ(r.input_op_details(0).count(), 4u);
  EXPECT_THAT(r.input_op_details(0).self_time_in_percent(), DoubleNear(75, 1e-6));
  EXPECT_THAT(r.input_time_breakdown().preprocessing_us(), DoubleNear(150000, 1e-3));
  EXPECT_THAT(r.input_time_breakdown().demanded_file_read_us(), DoubleNear(50000, 1e-3));
  EXPECT_THAT(r.recommendation().summary_next_step(), HasSubstr("input-op table"));
  EXPECT_THAT(r.recommendation().details(0), HasSubstr("num_workers"));
}

}  // namespace
}  // namespace tbprof::views
