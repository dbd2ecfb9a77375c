#include "converters/report/report_html.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ReportInput SampleInput(int hosts) {
  ReportInput input;
  input.source = "trace <1>.json";
  for (int i = 0; i < hosts; ++i) {
    input.hosts.push_back({absl::StrCat("rank", i), testing::MakeSampleViews()});
  }
  return input;
}

// The text between the data <script> tags.
std::string EmbeddedData(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"tbprof-data\">";
  const size_t begin = page.find(open);
  if (begin == std::string::npos) return "";
  const size_t start = begin + open.size();
  return page.substr(start, page.find("</script>", start) - start);
}

TEST(ReportHtmlTest, PageIsSelfContained) {
  const std::string page = RenderHtmlReport(SampleInput(1));
  EXPECT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>"));
  EXPECT_THAT(page, HasSubstr("<div id=\"render-status\""));
  EXPECT_THAT(page, HasSubstr("Content-Security-Policy"));
  // Nothing is loaded from elsewhere.
  for (const char* fetch : {"<link", " src=", "@import", "url(", "https://", "//cdn"}) {
    EXPECT_THAT(page, Not(HasSubstr(fetch))) << fetch;
  }
  // The only URL is the SVG namespace (a name, not a fetch).
  size_t pos = 0, urls = 0;
  while ((pos = page.find("http://", pos)) != std::string::npos) {
    EXPECT_EQ(page.compare(pos, 26, "http://www.w3.org/2000/svg"), 0) << page.substr(pos, 40);
    ++pos;
    ++urls;
  }
  EXPECT_EQ(urls, 1u);
}

TEST(ReportHtmlTest, DataCannotCloseTheScriptElement) {
  const std::string page = RenderHtmlReport(SampleInput(1));
  // The sample has a kernel named "</script><script>alert(1)</script>".
  EXPECT_THAT(page, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(page, HasSubstr("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
  // The source is escaped in the title.
  EXPECT_THAT(page, HasSubstr("<title>tbprof report: trace &lt;1&gt;.json</title>"));
}

TEST(ReportHtmlTest, EmbeddedDataIsJsonWithEveryHost) {
  const std::string page = RenderHtmlReport(SampleInput(2));
  const std::string data = EmbeddedData(page);
  ASSERT_FALSE(data.empty());
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(data, &object);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const auto& hosts = object.fields().at("hosts").list_value();
  ASSERT_EQ(hosts.values_size(), 2);
  const auto& host = hosts.values(1).struct_value().fields();
  EXPECT_EQ(host.at("host").string_value(), "rank1");
  EXPECT_EQ(host.at("steps").list_value().values_size(), 4);
  EXPECT_EQ(host.at("kernels").list_value().values_size(), 3);
  const auto& allocator = host.at("allocators").list_value().values(0).struct_value().fields();
  EXPECT_DOUBLE_EQ(allocator.at("peakMs").number_value(), 22.5);
  EXPECT_EQ(allocator.at("timeline").list_value().values_size(), 5);
  EXPECT_EQ(object.fields().at("source").string_value(), "trace <1>.json");
}

TEST(ReportHtmlTest, EmbedsOperatorModuleAndGemmViews) {
  const std::string data = EmbeddedData(RenderHtmlReport(SampleInput(1)));
  google::protobuf::Struct object;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(data, &object).ok());
  const auto& host = object.fields().at("hosts").list_value().values(0).struct_value().fields();
  const auto& ops = host.at("ops").struct_value().fields();
  EXPECT_EQ(ops.at("noData").string_value(), "");
  EXPECT_DOUBLE_EQ(ops.at("deviceMs").number_value(), 32);
  const auto& addmm = ops.at("rows").list_value().values(0).struct_value().fields();
  EXPECT_EQ(addmm.at("name").string_value(), "aten::addmm");
  EXPECT_DOUBLE_EQ(addmm.at("devSelfMs").number_value(), 24);
  EXPECT_DOUBLE_EQ(addmm.at("tcPct").number_value(), 100);
  EXPECT_EQ(addmm.at("stacks").list_value().values_size(), 1);
  // Not eligible for Tensor Cores: -1.
  const auto& fill = ops.at("rows").list_value().values(1).struct_value().fields();
  EXPECT_DOUBLE_EQ(fill.at("tcPct").number_value(), -1);
  EXPECT_EQ(ops.at("unattributed").list_value().values_size(), 1);
  EXPECT_EQ(ops.at("shapes").list_value().values_size(), 1);
  const auto& modules = host.at("modules").struct_value().fields();
  EXPECT_EQ(modules.at("nodes").list_value().values_size(), 2);
  const auto& gemm = host.at("gemm").struct_value().fields();
  EXPECT_EQ(gemm.at("worst").list_value().values_size(), 1);
  EXPECT_EQ(gemm.at("devices").list_value().values(0).struct_value().fields().at("sms")
                .number_value(),
            132);
  // An op named like markup stays text.
  EXPECT_THAT(data, Not(HasSubstr("<b>op</b>")));
}

TEST(ReportHtmlTest, ViewsWithoutDataCarryTheirReason) {
  ReportInput input;
  AllViews views;
  views.modules.set_no_data_reason("no module events");
  input.hosts.push_back({"h", views});
  const std::string data = EmbeddedData(RenderHtmlReport(input));
  EXPECT_THAT(data, HasSubstr("\"modules\":{\"noData\":\"no module events\""));
}

TEST(ReportHtmlTest, KernelRowsAreCapped) {
  HtmlReportOptions options;
  options.max_kernels = 2;
  const HostReport report = BuildHostReport({"h", testing::MakeSampleViews()});
  const std::string data = RenderHtmlReportData("s", {report}, options);
  google::protobuf::Struct object;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(data, &object).ok());
  const auto& host = object.fields().at("hosts").list_value().values(0).struct_value().fields();
  EXPECT_EQ(host.at("kernels").list_value().values_size(), 2);
  EXPECT_EQ(host.at("kernelReports").number_value(), 3);
}

}  // namespace
}  // namespace tbprof::views
