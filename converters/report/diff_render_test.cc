// The text, JSON and HTML forms of `tbprof diff`.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "converters/report/report_text.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "converters/report/diff_html.h"
#include "converters/report/diff_json.h"
#include "converters/report/diff_text.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ProfileDiff SampleDiff() {
  ProfileSummary base, next;
  base.source = "base/worker0.pt.trace.json.gz";
  next.source = "new/worker0.pt.trace.json.gz";
  base.hosts = next.hosts = {"worker0"};
  base.steps = ComputeStepStats({150, 152, 148});
  next.steps = ComputeStepStats({120, 121, 119});
  base.categories = {{"device_compute", "Device compute", 100, 66},
                     {"input", "Input (host wait)", 40, 26}};
  next.categories = {{"device_compute", "Device compute", 101, 84},
                     {"input", "Input (host wait)", 9, 7}};
  const std::string long_name =
      "void at::native::(anonymous namespace)::vectorized_elementwise_kernel<4, "
      "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
      "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  base.kernels = {{long_name, {10, 5}}, {"ncclKernel_AllReduce</script>", {4, 2}}};
  next.kernels = {{long_name, {10, 4}}, {"ncclKernel_AllReduce</script>", {4, 3}}};
  base.operators = {{"aten::fill_", {10, 5}}};
  next.operators = {{"aten::fill_", {10, 4}}};
  base.all_kernels = {14, 7};
  next.all_kernels = {14, 7};
  base.communication = {4, 2};
  next.communication = {4, 3};
  base.memory_peak_bytes = {{"GPU_0_bfc", int64_t{2} << 30}};
  next.memory_peak_bytes = {{"GPU_0_bfc", int64_t{3} << 30}};
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(base, next);
  EXPECT_TRUE(diff.ok()) << diff.status();
  return *diff;
}

TEST(DiffTextTest, ShowsEverySectionWithinTheWidth) {
  const ProfileDiff diff = SampleDiff();
  for (int width : {60, 80, 132}) {
    DiffTextOptions options;
    options.width = width;
    const std::string text = RenderDiffText(diff, options);
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      EXPECT_LE(views::DisplayWidth(line), width) << line;
    }
    EXPECT_THAT(text, HasSubstr("== Step time"));
    EXPECT_THAT(text, HasSubstr("-30.000 (-20.0%)"));
    EXPECT_THAT(text, HasSubstr("== Step-time breakdown"));
    EXPECT_THAT(text, HasSubstr("-31.000"));
    EXPECT_THAT(text, HasSubstr("== Kernels"));
    EXPECT_THAT(text, HasSubstr("== Operators"));
    EXPECT_THAT(text, HasSubstr("aten::fill_"));
    EXPECT_THAT(text, HasSubstr("== Communication"));
    EXPECT_THAT(text, HasSubstr("== Memory peak"));
    EXPECT_THAT(text, HasSubstr("+1.00 GiB (+50.0%)"));
    EXPECT_THAT(text, HasSubstr("new is 20.0% faster"));
    EXPECT_THAT(text, HasSubstr("outside noise"));
  }
}

TEST(DiffTextTest, AsciiHasNoMultibyteCharacters) {
  DiffTextOptions options;
  options.ascii = true;
  options.width = 120;
  const std::string text = RenderDiffText(SampleDiff(), options);
  for (char c : text) EXPECT_GE(static_cast<signed char>(c), 0) << text;
}

TEST(DiffTextTest, VerdictWithoutSteps) {
  ProfileDiff diff = SampleDiff();
  diff.step.available = false;
  diff.step.base.count = 0;
  EXPECT_THAT(DiffVerdict(diff), HasSubstr("step time not compared (no steps in base)"));
  EXPECT_THAT(RenderDiffText(diff), HasSubstr("not compared: the base profile has no steps"));
}

TEST(DiffJsonTest, IsValidJsonWithTheDocumentedKeys) {
  DiffJsonOptions options;
  options.gate = CheckSlower(SampleDiff().step, 5, false);
  options.gate_pct = 5;
  const std::string json = RenderDiffJson(SampleDiff(), options);
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok()) << json;
  const auto& f = parsed.fields();
  for (const char* key : {"base", "new", "stepTime", "verdict", "categories", "kernels",
                          "operators", "communication", "memory", "gate"}) {
    EXPECT_TRUE(f.count(key)) << key;
  }
  EXPECT_EQ(f.at("stepTime").struct_value().fields().at("noise").string_value(), "outside");
  EXPECT_DOUBLE_EQ(f.at("stepTime").struct_value().fields().at("deltaMs").number_value(), -30);
  EXPECT_FALSE(f.at("gate").struct_value().fields().at("tripped").bool_value());
  const auto& rows = f.at("kernels").struct_value().fields().at("rows").list_value();
  ASSERT_EQ(rows.values_size(), 2);
  EXPECT_DOUBLE_EQ(
      rows.values(0).struct_value().fields().at("base").struct_value().fields().at("count")
          .number_value(),
      10);
  EXPECT_EQ(f.at("memory").list_value().values(0).struct_value().fields().at("deltaBytes")
                .number_value(),
            double(int64_t{1} << 30));
}

TEST(DiffHtmlTest, SelfContainedPageWithEscapedData) {
  const std::string page = RenderDiffHtml(SampleDiff());
  EXPECT_THAT(page, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(page, HasSubstr("id=\"render-status\""));
  EXPECT_THAT(page, HasSubstr("id=\"tbprof-data\""));
  EXPECT_THAT(page, HasSubstr("default-src 'none'"));
  // The kernel name's "</script>" cannot end the data element.
  EXPECT_THAT(page, HasSubstr("ncclKernel_AllReduce\\u003c/script\\u003e"));
  // Nothing is fetched (the SVG namespace URI is only a name).
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("src=")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
}

}  // namespace
}  // namespace tbprof::views
