#include "converters/report/report_text.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ReportInput SampleInput(int hosts) {
  ReportInput input;
  input.source = "/some/very/long/path/to/a/profile/directory/that/does/not/fit/in/eighty/"
                 "columns/at/all/worker0.pt.trace.json.gz";
  for (int i = 0; i < hosts; ++i) {
    input.hosts.push_back({"worker" + std::to_string(i), testing::MakeSampleViews()});
  }
  return input;
}

void ExpectLinesFit(const std::string& text, int width) {
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    EXPECT_LE(DisplayWidth(line), width) << "line " << line_number << ": " << line;
  }
}

TEST(ReportTextTest, EveryLineFitsEightyColumns) {
  const std::string text = RenderTextReport(SampleInput(1));
  ExpectLinesFit(text, 80);
  EXPECT_THAT(text, HasSubstr("Step time"));
  EXPECT_THAT(text, HasSubstr("Device compute"));
  EXPECT_THAT(text, HasSubstr("Kernels"));
  EXPECT_THAT(text, HasSubstr("Input "));
  EXPECT_THAT(text, HasSubstr("GPU_0_bfc: peak 3.00 GiB at 22.500 ms"));
  EXPECT_THAT(text, HasSubstr("aten::empty [float [4096, 65536]]"));
  EXPECT_THAT(text, HasSubstr("MODERATELY input-bound"));
}

TEST(ReportTextTest, NarrowerWidthsAreRespected) {
  TextReportOptions options;
  options.width = 64;
  ExpectLinesFit(RenderTextReport(SampleInput(2), options), 64);
}

TEST(ReportTextTest, StepBreakdownShowsAverageAndPercent) {
  const std::string text = RenderTextReport(SampleInput(1));
  // Device compute averages 8 ms of a 12 ms step.
  EXPECT_THAT(text, HasSubstr("Device compute            8.000  66.7%"));
  EXPECT_THAT(text, HasSubstr("avg 12.000 ms over 4 steps (min 10.000, max 14.000"));
}

TEST(ReportTextTest, KernelRowsShowCountTimeAndOccupancy) {
  const std::string text = RenderTextReport(SampleInput(1));
  // 40 launches, 24 ms, 600 us each, 78.9% of 30.4 ms, occupancy 12.5 -> "12".
  EXPECT_THAT(text, HasSubstr("    40    24.000    600.00  78.9%   12 yes"));
}

TEST(ReportTextTest, AsciiModeUsesOnlyAscii) {
  TextReportOptions options;
  options.ascii = true;
  const std::string text = RenderTextReport(SampleInput(2), options);
  for (char c : text) ASSERT_LT(static_cast<unsigned char>(c), 0x80) << text;
  EXPECT_THAT(text, HasSubstr("Avg us"));
  EXPECT_THAT(text, HasSubstr("##"));
}

TEST(ReportTextTest, MultiHostReportComparesHosts) {
  const std::string text = RenderTextReport(SampleInput(3));
  EXPECT_THAT(text, HasSubstr("== Host worker2 "));
  EXPECT_THAT(text, HasSubstr("== Hosts compared "));
  EXPECT_THAT(text, HasSubstr("tbprof report: 3 hosts"));
  ExpectLinesFit(text, 80);
}

TEST(ReportTextTest, EmptyViewsSayWhatIsMissing) {
  ReportInput input;
  input.source = "empty.json";
  input.hosts.push_back({"localhost", AllViews{}});
  const std::string text = RenderTextReport(input);
  EXPECT_THAT(text, HasSubstr("no steps found"));
  EXPECT_THAT(text, HasSubstr("no GPU kernels"));
  EXPECT_THAT(text, HasSubstr("no memory allocation events"));
  EXPECT_THAT(text, Not(HasSubstr("Hosts compared")));
  ExpectLinesFit(text, 80);
}

TEST(ReportTextTest, OperatorModuleAndGemmSections) {
  const std::string text = RenderTextReport(SampleInput(1));
  ExpectLinesFit(text, 80);
  EXPECT_THAT(text, HasSubstr("Operators   4 ops, 4 calls; device time 32.000 ms, of which ops "
                              "launched"));
  // addmm: 40 calls, 24 ms self and total, 1 ms host self, all on Tensor Cores.
  EXPECT_THAT(text, HasSubstr("aten::addmm                              40    24.000    24.000"
                              "     1.000  100"));
  EXPECT_THAT(text, HasSubstr("aten::fill_"));
  EXPECT_THAT(text, HasSubstr("No op: 3 device events (2.000 ms) were launched by calls that"));
  EXPECT_THAT(text, HasSubstr("Note: no call stacks"));
  EXPECT_THAT(text, HasSubstr("aten::addmm [[512],[128,256],[256,512]] fp32"));
  EXPECT_THAT(text, HasSubstr("40x  model.py(10): forward < train.py(3): <module>"));
  EXPECT_THAT(text, HasSubstr("Modules     2 module paths"));
  EXPECT_THAT(text, HasSubstr("\n    Linear_0 "));
  EXPECT_THAT(text, HasSubstr("GPU 0 NVIDIA H100 80GB HBM3, Hopper (sm_90), 132 SMs x 1830 MHz"));
  EXPECT_THAT(text, HasSubstr("Least efficient"));
  TextReportOptions narrow;
  narrow.width = 60;
  ExpectLinesFit(RenderTextReport(SampleInput(1), narrow), 60);
}

TEST(ReportTextTest, OperatorViewsWithoutDataSayWhyInOneLine) {
  ReportInput input;
  input.source = "x.json";
  AllViews views;
  views.operators.set_no_data_reason("no framework ops on the host threads");
  views.modules.set_no_data_reason("no module events: profile with with_modules=True");
  views.gemm_efficiency.set_no_data_reason("no input shapes: profile with record_shapes=True");
  input.hosts.push_back({"h", views});
  const std::string text = RenderTextReport(input);
  EXPECT_THAT(text, HasSubstr("Operators   no framework ops on the host threads\n"));
  EXPECT_THAT(text, HasSubstr("Modules     no module events: profile with with_modules=True\n"));
  EXPECT_THAT(text, HasSubstr("GEMM        no input shapes: profile with record_shapes=True\n"));
}

TEST(ReportTextTest, ShortenKernelName) {
  EXPECT_EQ(ShortenKernelName("short_kernel", 20), "short_kernel");
  // Parameters, "void " and the anonymous namespace go first.
  EXPECT_EQ(ShortenKernelName("void ns::(anonymous namespace)::k<int>(float*, int)", 20),
            "ns::k<int>");
  // Then namespaces inside template arguments.
  EXPECT_EQ(ShortenKernelName(testing::kLongKernelName, 81, /*ascii=*/true),
            "at::native::vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 1>>");
  // Then outer namespaces, then the middle of the template arguments.
  EXPECT_EQ(ShortenKernelName(testing::kLongKernelName, 60, /*ascii=*/true),
            "vectorized_elementwise_kernel<4, FillFunctor<flo...har*, 1>>");
  EXPECT_EQ(ShortenKernelName(testing::kLongKernelName, 40, /*ascii=*/true),
            "vectorized_elementwise_kernel<4, F...1>>");
  // Kernels that differ only in template arguments stay apart.
  EXPECT_NE(ShortenKernelName("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm>"
                              "(Params)", 35),
            ShortenKernelName("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu>"
                              "(Params)", 35));
}

TEST(ReportTextTest, ShortenKernelNameCutsTheMiddleLast) {
  const std::string name(testing::kLongKernelName);
  for (int width : {12, 30, 35, 60}) {
    const std::string s = ShortenKernelName(name, width);
    EXPECT_LE(DisplayWidth(s), width) << s;
  }
  EXPECT_EQ(ShortenKernelName("abcdefghijklmnopqrstuvwxyz", 10, /*ascii=*/true), "abcde...yz");
}

}  // namespace
}  // namespace tbprof::views
