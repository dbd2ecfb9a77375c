#include "tools/convert/convert_split.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::cli {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

TEST(ConvertSplitTest, ModelAndBudget) {
  // docs/tensorboard_limits.md: 30 x the file + 100 MiB.
  EXPECT_EQ(EstimateXprofPeakBytes(0), 100 * kMiB);
  EXPECT_EQ(EstimateXprofPeakBytes(100 * kMiB), 3100 * kMiB);
  // 8 GiB: files up to (8192 - 100) / 30 MiB ~ 270 MiB.
  uint64_t max = MaxXPlaneBytesForBudget(8192 * kMiB, 1);
  EXPECT_LE(EstimateXprofPeakBytes(max), 8192 * kMiB);
  EXPECT_GT(EstimateXprofPeakBytes(max + kMiB), 8192 * kMiB);
  // Hosts of a run share the budget.
  EXPECT_NEAR(static_cast<double>(MaxXPlaneBytesForBudget(8192 * kMiB, 4)), max / 4.0, 4);
  // Never below 1 MiB, whatever the budget.
  EXPECT_EQ(MaxXPlaneBytesForBudget(1 * kMiB, 1), kMiB);
  EXPECT_EQ(MaxXPlaneBytesForBudget(0, 0), kMiB);
}

TEST(ConvertSplitTest, PartRunNamesSortInOrder) {
  EXPECT_EQ(PartRunName("r", 0, 3), "r_part1");
  EXPECT_EQ(PartRunName("r", 2, 3), "r_part3");
  EXPECT_EQ(PartRunName("2025_01_31", 0, 12), "2025_01_31_part01");
  EXPECT_EQ(PartRunName("r", 11, 12), "r_part12");
  EXPECT_EQ(PartRunName("r", 99, 100), "r_part100");
  EXPECT_EQ(PartRunName("r", 8, 100), "r_part009");
}

SplitReport MakeReport(bool by_steps, std::vector<int64_t> steps) {
  SplitReport report;
  report.host = "worker0";
  report.whole_bytes = 1000 * kMiB;
  report.budget_bytes = 8192 * kMiB;
  report.by_steps = by_steps;
  report.steps_per_part = by_steps ? *std::max_element(steps.begin(), steps.end()) : 0;
  int64_t next_step = 10;
  for (size_t i = 0; i < steps.size(); ++i) {
    SplitReport::Part& part = report.parts.emplace_back();
    part.run = PartRunName("r", i, steps.size());
    part.path = "tb/plugins/profile/" + part.run + "/worker0.xplane.pb";
    part.bytes = 250 * kMiB;
    part.plan.num_steps = by_steps ? steps[i] : 0;
    part.plan.first_step_num = by_steps ? next_step : -1;
    part.plan.last_step_num = by_steps ? next_step + steps[i] - 1 : -1;
    part.plan.begin_ps = static_cast<int64_t>(i) * 2'000'000'000'000;
    part.plan.end_ps = part.plan.begin_ps + 1'500'000'000'000;
    next_step += steps[i];
  }
  return report;
}

TEST(ConvertSplitTest, TellsWhatItDid) {
  SplitReport report = MakeReport(true, {8, 8, 8, 6});
  std::string line = FormatSplitOneLine(report);
  EXPECT_EQ(line,
            "worker0: split into 4 runs of 8 steps each (r_part1..4), because one file would "
            "need ~29.4 GiB in TensorBoard (budget 8.0 GiB); --tensorboard-budget-mb 0 keeps "
            "one file");
  std::string text = FormatSplitReports({report});
  EXPECT_NE(text.find("r_part2"), std::string::npos);
  EXPECT_NE(text.find("8 steps (18-25)"), std::string::npos);
  EXPECT_NE(text.find("~7.4 GiB in TensorBoard"), std::string::npos);

  EXPECT_NE(FormatSplitOneLine(MakeReport(true, {8, 5, 8})).find("3 runs of up to 8 steps"),
            std::string::npos);
  SplitReport small = MakeReport(true, {2, 2});
  small.whole_bytes = 2 * kMiB;
  small.budget_bytes = 300 * kMiB;
  EXPECT_NE(FormatSplitOneLine(small).find("would need ~160 MiB in TensorBoard (budget 300 MiB)"),
            std::string::npos)
      << FormatSplitOneLine(small);
  SplitReport by_time = MakeReport(false, {0, 0});
  EXPECT_NE(FormatSplitOneLine(by_time).find("split by time into 2 runs (r_part1..2)"),
            std::string::npos);
  EXPECT_NE(FormatSplitReports({by_time}).find("2.000-3.500 s"), std::string::npos);
}

}  // namespace
}  // namespace tbprof::cli
