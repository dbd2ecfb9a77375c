#include "converters/views/summary/report_model.h"

#include <string>

#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const StepCategoryRow* FindCategory(const HostReport& r, const std::string& key) {
  for (const auto& c : r.categories) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

TEST(ReportModelTest, StepCategoriesAverageTheSteps) {
  HostViews host{"worker0", testing::MakeSampleViews()};
  const HostReport r = BuildHostReport(host);
  int n = 0;
  const testing::SampleStep* steps = testing::SampleSteps(&n);
  double step = 0, compute = 0, h2d = 0, idle = 0;
  for (int i = 0; i < n; ++i) {
    step += steps[i].step_ms;
    compute += steps[i].compute_ms;
    h2d += steps[i].h2d_ms;
    idle += steps[i].idle_ms;
  }
  ASSERT_EQ(r.steps.size(), static_cast<size_t>(n));
  // Only categories with time (plus compute and idle) are listed, in order.
  std::vector<std::string> keys;
  for (const auto& c : r.categories) keys.push_back(c.key);
  EXPECT_THAT(keys, ElementsAre("device_compute", "host_to_device", "unknown"));
  EXPECT_DOUBLE_EQ(FindCategory(r, "device_compute")->avg_ms, compute / n);
  EXPECT_DOUBLE_EQ(FindCategory(r, "host_to_device")->avg_ms, h2d / n);
  EXPECT_DOUBLE_EQ(FindCategory(r, "unknown")->percent, 100.0 * idle / step);
  EXPECT_DOUBLE_EQ(r.avg_step_ms, step / n);
  // Per-step values line up with the categories.
  EXPECT_THAT(r.steps[2].category_ms,
              ElementsAre(steps[2].compute_ms, steps[2].h2d_ms, steps[2].idle_ms));
  EXPECT_EQ(r.steps[0].step_number, 10);
}

TEST(ReportModelTest, StepsFallBackToTheOverviewsInputAnalysis) {
  AllViews views = testing::MakeSampleViews();
  views.input_pipeline.Clear();
  const HostReport r = BuildHostReport({"h", views});
  int n = 0;
  testing::SampleSteps(&n);
  EXPECT_EQ(r.steps.size(), static_cast<size_t>(n));
}

TEST(ReportModelTest, VerdictsArePlainText) {
  const HostReport r = BuildHostReport({"h", testing::MakeSampleViews()});
  EXPECT_EQ(r.bottleneck, "both");
  EXPECT_EQ(r.input_classification, "both");
  EXPECT_THAT(r.input_next_step, HasSubstr("Look at the DataLoader: raise num_workers & use"));
  ASSERT_EQ(r.recommendations.size(), 2u);
  EXPECT_THAT(r.recommendations[0], HasSubstr("spent on All Others time"));
  EXPECT_THAT(r.recommendations[1], HasSubstr("(e.g. torch.autocast) to"));
  for (const std::string& rec : r.recommendations) EXPECT_THAT(rec, Not(HasSubstr("<")));
  EXPECT_THAT(r.warnings, ElementsAre("2 device events without a step were ignored"));
}

TEST(ReportModelTest, KernelsCarryTheirShareOfKernelTime) {
  const HostReport r = BuildHostReport({"h", testing::MakeSampleViews()});
  ASSERT_EQ(r.kernels.size(), 3u);
  double total_pct = 0;
  for (const auto& k : r.kernels) total_pct += k.percent;
  EXPECT_NEAR(total_pct, 100.0, 1e-9);
  EXPECT_NEAR(r.kernels[0].percent, 100.0 * 24.0 / 30.4, 1e-9);
  EXPECT_DOUBLE_EQ(r.kernels[0].avg_us, 24000000.0 / 40 / 1000);
  EXPECT_EQ(r.kernels[0].grid, "80,2,1");
  EXPECT_EQ(r.total_kernel_launches, 444u);
  EXPECT_TRUE(r.kernels[0].uses_tensor_core);
}

TEST(ReportModelTest, MemoryPeakAndLiveAllocations) {
  const HostReport r = BuildHostReport({"h", testing::MakeSampleViews()});
  ASSERT_EQ(r.allocators.size(), 1u);
  const AllocatorReport& a = r.allocators[0];
  const int64_t gib = int64_t{1} << 30;
  EXPECT_EQ(a.id, "GPU_0_bfc");
  EXPECT_EQ(a.peak_bytes, 3 * gib);
  EXPECT_EQ(a.peak_time_ps, 22500000000);
  EXPECT_EQ(a.timeline.size(), 5u);
  ASSERT_EQ(a.allocations_at_peak.size(), 2u);
  // The snapshot row (2 x 1 GiB) sorts before the special row (1 GiB).
  EXPECT_EQ(a.allocations_at_peak[0].op_name, "aten::empty");
  EXPECT_EQ(a.allocations_at_peak[0].occurrences, 2);
  EXPECT_EQ(a.allocations_at_peak[1].op_name, "unused preallocated device memory");
}

TEST(ReportModelTest, EmptyViewsGiveEmptySections) {
  const HostReport r = BuildHostReport({"h", AllViews{}});
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(r.categories.empty());
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_TRUE(r.allocators.empty());
  EXPECT_FALSE(r.has_overview_analysis);
}

TEST(ReportModelTest, DescribeBreakdownGivesBothNumbers) {
  BreakdownSummary with_host{Breakdown::kWithHost, 4, 150.8, 33.9, 22.5};
  BreakdownSummary device_only{Breakdown::kDeviceOnly, 4, 118.3, 1.7, 1.5};
  EXPECT_EQ(DescribeBreakdown(with_host, &device_only),
            "Step time includes host activity (tbprof's default): 150.8 ms per step, input "
            "33.9 ms (22.5%); xprof's overview counts device events only: 118.3 ms per step, "
            "input 1.7 ms (1.5%).");
  EXPECT_EQ(DescribeBreakdown(device_only, &with_host),
            "Step time counts device events only, as xprof's overview does: 118.3 ms per step, "
            "input 1.7 ms (1.5%); with host activity (tbprof's default): 150.8 ms per step, "
            "input 33.9 ms (22.5%).");
  EXPECT_THAT(DescribeBreakdown(with_host, nullptr), HasSubstr("--breakdown=device-only"));
  EXPECT_EQ(DescribeBreakdown(BreakdownSummary{}, &device_only), "");
}

TEST(ReportModelTest, BreakdownNoteFromTheViews) {
  HostViews host{"worker0", testing::MakeSampleViews()};
  EXPECT_EQ(BuildHostReport(host).breakdown_note, "");  // Not computed: no note.
  host.views.breakdown = {Breakdown::kWithHost, 4, 150.8, 33.9, 22.5};
  host.views.has_other_breakdown = true;
  host.views.other_breakdown = {Breakdown::kDeviceOnly, 4, 118.3, 1.7, 1.5};
  const HostReport r = BuildHostReport(host);
  EXPECT_EQ(r.breakdown, "with-host");
  EXPECT_THAT(r.breakdown_note, HasSubstr("118.3 ms per step"));
}

TEST(ReportModelTest, HtmlToPlainText) {
  EXPECT_EQ(HtmlToPlainText("a <b>bold</b> &amp; <a href=\"x\">link</a>."), "a bold & link.");
  EXPECT_EQ(HtmlToPlainText("line<br>next<p>para</p>"), "line next para");
  EXPECT_EQ(HtmlToPlainText("  spaced \n\t out  "), "spaced out");
  EXPECT_EQ(HtmlToPlainText("1 &lt; 2 &gt; 0 &quot;q&quot; &#39;s&#39;&nbsp;x &unknown;"),
            "1 < 2 > 0 \"q\" 's' x &unknown;");
}

TEST(ReportModelTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(int64_t{3} << 30), "3.00 GiB");
  EXPECT_EQ(FormatBytes(int64_t{80} << 30), "80.0 GiB");
  EXPECT_EQ(FormatBytes(-(int64_t{512} << 20)), "-512 MiB");
  EXPECT_EQ(FormatBytes((int64_t{1} << 30) - 512), "1.00 GiB");
}

}  // namespace
}  // namespace tbprof::views
