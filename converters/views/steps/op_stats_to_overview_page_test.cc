#include "converters/views/steps/op_stats_to_overview_page.h"

#include <string>

#include "converters/views/steps/event_type_span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/steps_db.pb.h"

namespace tbprof::views {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tensorflow::profiler::GenericRecommendation;
using tensorflow::profiler::GenericStepBreakdown;
using tensorflow::profiler::OpStats;
using tensorflow::profiler::OverviewPage;

constexpr uint64_t kMs = 1000000000;

void AddStep(OpStats* s, EventType type, double type_ms, double step_ms) {
  GenericStepBreakdown b;
  (*b.mutable_type_ps())[type] = static_cast<uint64_t>(type_ms * kMs);
  (*b.mutable_type_ps())[kDeviceCompute32] += static_cast<uint64_t>((step_ms - type_ms) * kMs);
  auto* step = s->mutable_step_db()->add_step_sequence();
  auto& info = (*step->mutable_step_info_per_core())[1];
  info.set_duration_ps(static_cast<uint64_t>(step_ms * kMs));
  info.mutable_step_breakdown()->PackFrom(b);
}

void AddDeviceOp(OpStats* s, const std::string& name, uint64_t self_ps) {
  auto* m = s->mutable_device_op_metrics_db()->add_metrics_db();
  m->set_name(name);
  m->set_category("aten");
  m->set_self_time_ps(self_ps);
  m->set_time_ps(self_ps);
  auto* db = s->mutable_device_op_metrics_db();
  db->set_total_op_time_ps(db->total_op_time_ps() + self_ps);
}

std::string AllTips(const OverviewPage& page) {
  std::string all;
  for (const auto& t : page.recommendation().input_tips()) all += t.link() + "\n";
  for (const auto& t : page.recommendation().host_tips()) all += t.link() + "\n";
  for (const auto& t : page.recommendation().device_tips()) all += t.link() + "\n";
  return all;
}

GenericRecommendation Generic(const OverviewPage& page) {
  GenericRecommendation g;
  EXPECT_TRUE(page.recommendation().recommendation().UnpackTo(&g));
  return g;
}

TEST(OverviewPageTest, TopDeviceOpsWithCumulativeFractionAndTensorCores) {
  OpStats s;
  for (int i = 0; i < 12; ++i) AddDeviceOp(&s, "op" + std::to_string(i), (12 - i) * 10);
  OpTensorCoreMap tc;
  tc["op0"] = {/*eligible=*/true, /*using_tensor_core=*/false};
  OverviewPage page = ConvertOpStatsToOverviewPage(s, &tc);
  const auto& ops = page.analysis().top_device_ops();
  ASSERT_EQ(ops.size(), kNumTopDeviceOps);
  const double total = 10.0 * (12 * 13 / 2);
  EXPECT_EQ(ops[0].name(), "op0");
  EXPECT_THAT(ops[0].self_time_fraction(), DoubleNear(120 / total, 1e-12));
  EXPECT_THAT(ops[1].cumulative_time_fraction(), DoubleNear(230 / total, 1e-12));
  EXPECT_TRUE(ops[0].is_op_tensorcore_eligible());
  EXPECT_FALSE(ops[0].is_op_using_tensorcore());
  EXPECT_FALSE(ops[1].is_op_tensorcore_eligible());
}

TEST(OverviewPageTest, PrecisionPercentAndMixedPrecisionAdvice) {
  OpStats s;
  AddStep(&s, kDeviceCompute32, 0, 100);
  auto* p = s.mutable_device_op_metrics_db()->mutable_precision_stats();
  p->set_compute_16bit_ps(5);
  p->set_compute_32bit_ps(95);
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_THAT(page.analysis().device_compute_16bit_percent(), DoubleNear(5, 1e-9));
  EXPECT_THAT(page.analysis().device_compute_32bit_percent(), DoubleNear(95, 1e-9));
  EXPECT_THAT(Generic(page).precision_statement(), HasSubstr("torch.autocast"));
  EXPECT_THAT(AllTips(page), HasSubstr("mixed precision"));

  p->set_compute_16bit_ps(10);
  p->set_compute_32bit_ps(90);
  EXPECT_THAT(Generic(ConvertOpStatsToOverviewPage(s)).precision_statement(), IsEmpty());
}

TEST(OverviewPageTest, InputBoundGivesDataLoaderTips) {
  OpStats s;
  AddStep(&s, kHostWaitInput, 30, 100);
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_EQ(page.recommendation().bottleneck(), "host");
  EXPECT_THAT(page.recommendation().statement(), HasSubstr("HIGHLY input-bound"));
  EXPECT_THAT(AllTips(page), HasSubstr("num_workers"));
  EXPECT_THAT(AllTips(page), HasSubstr("pin_memory=True"));
  EXPECT_EQ(page.input_analysis().step_details_size(), 1);
}

TEST(OverviewPageTest, LaunchBoundGivesCudaGraphTips) {
  OpStats s;
  AddStep(&s, kHostPrepare, 20, 100);
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_EQ(page.recommendation().bottleneck(), "device");
  EXPECT_EQ(Generic(page).kernel_launch_bottleneck(), "high");
  EXPECT_THAT(AllTips(page), HasSubstr("CUDA graphs"));
  EXPECT_THAT(AllTips(page), HasSubstr("torch.compile"));
  EXPECT_THAT(AllTips(page), ::testing::Not(HasSubstr("num_workers")));
}

TEST(OverviewPageTest, UnexplainedTimeGivesSyncPointTips) {
  OpStats s;
  AddStep(&s, kHostWaitInput, 6, 100);
  // Make 20 ms of the step unexplained.
  GenericStepBreakdown b;
  auto& info = (*s.mutable_step_db()->mutable_step_sequence(0)->mutable_step_info_per_core())[1];
  ASSERT_TRUE(info.step_breakdown().UnpackTo(&b));
  (*b.mutable_type_ps())[kDeviceCompute32] -= 20 * kMs;
  (*b.mutable_type_ps())[kUnknownTime] = 20 * kMs;
  info.mutable_step_breakdown()->PackFrom(b);
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_EQ(Generic(page).all_other_bottleneck(), "high");
  EXPECT_THAT(AllTips(page), HasSubstr(".item()"));
}

TEST(OverviewPageTest, OutputStatementWhenCopyingBack) {
  OpStats s;
  AddStep(&s, kDeviceToHost, 8, 100);
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_THAT(page.recommendation().output_statement(), HasSubstr("MODERATELY output-bound"));
}

TEST(OverviewPageTest, RunEnvironmentAndDiagnosticsAreCopied) {
  OpStats s;
  s.mutable_run_environment()->set_device_type("Nvidia GPU (Ampere)");
  s.mutable_run_environment()->set_device_core_count(4);
  (*s.mutable_run_environment()->mutable_hostnames())["node1"] = true;
  s.mutable_run_environment()->set_is_training(true);
  s.mutable_diagnostics()->add_warnings("something");
  OverviewPage page = ConvertOpStatsToOverviewPage(s);
  EXPECT_EQ(page.run_environment().device_type(), "Nvidia GPU (Ampere)");
  EXPECT_EQ(page.run_environment().device_core_count(), 4);
  EXPECT_TRUE(page.run_environment().hostnames().contains("node1"));
  EXPECT_TRUE(page.run_environment().is_training());
  EXPECT_EQ(page.diagnostics().warnings(0), "something");
  EXPECT_EQ(page.recommendation().bottleneck(), "unknown");
}

}  // namespace
}  // namespace tbprof::views
