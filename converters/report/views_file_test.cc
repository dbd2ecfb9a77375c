#include "converters/report/views_file.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "converters/report/report_html.h"
#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::util::JsonStringToMessage;
using ::testing::HasSubstr;

ReportInput SampleInput(int hosts) {
  ReportInput input;
  input.source = "run \"dir\"";
  for (int i = 0; i < hosts; ++i) {
    input.hosts.push_back({absl::StrCat("rank", i), testing::MakeSampleViews()});
  }
  return input;
}

Struct Parse(const std::string& json) {
  Struct object;
  EXPECT_TRUE(JsonStringToMessage(json, &object).ok()) << json.substr(0, 400);
  return object;
}

TEST(ViewsFileTest, OneHostHasTheReportPageData) {
  absl::StatusOr<std::string> document = RenderViewsFile(SampleInput(1));
  ASSERT_TRUE(document.ok()) << document.status();
  const Struct object = Parse(*document);
  const auto& f = object.fields();
  EXPECT_EQ(f.at("schema").string_value(), "tbprof.views");
  EXPECT_EQ(f.at("version").number_value(), kViewsFileVersion);
  EXPECT_EQ(f.at("source").string_value(), "run \"dir\"");
  EXPECT_THAT(f.at("xprofNote").string_value(), HasSubstr("All Others"));
  EXPECT_EQ(f.at("distributedHtml").string_value(), "");
  EXPECT_EQ(f.count("distributed"), 0u);  // One host: no run view.
  ASSERT_EQ(f.at("hosts").list_value().values_size(), 1);

  // The host object is the one the HTML report draws, member for member.
  const Struct page = Parse(RenderHtmlReportData("x", {BuildHostReport(SampleInput(1).hosts[0])}));
  const auto& host = f.at("hosts").list_value().values(0).struct_value();
  const auto& page_host = page.fields().at("hosts").list_value().values(0).struct_value();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(host, page_host));
  for (const char* member : {"step", "categories", "steps", "kernels", "allocators", "ops",
                             "modules", "gemm", "recommendations"}) {
    EXPECT_EQ(host.fields().count(member), 1u) << member;
  }
}

TEST(ViewsFileTest, SeveralHostsAlsoHoldTheRunsDistributedView) {
  absl::StatusOr<std::string> document = RenderViewsFile(SampleInput(3));
  ASSERT_TRUE(document.ok()) << document.status();
  const Struct object = Parse(*document);
  const auto& f = object.fields();
  EXPECT_EQ(f.at("hosts").list_value().values_size(), 3);
  EXPECT_THAT(f.at("distributedHtml").string_value(), HasSubstr("<main id=\"distributed\">"));
  EXPECT_EQ(f.count("distributed"), 1u);
}

TEST(ViewsFileTest, AppendicesKeepTheirHtml) {
  ReportInput input = SampleInput(1);
  input.appendices.push_back({"rank0", "memory_snapshot", "memory snapshot", "text\n", "{}",
                              "<section>peak</section>"});
  absl::StatusOr<std::string> document = RenderViewsFile(input);
  ASSERT_TRUE(document.ok());
  const Struct object = Parse(*document);
  const auto& appendices = object.fields().at("appendices").list_value();
  ASSERT_EQ(appendices.values_size(), 1);
  const auto& a = appendices.values(0).struct_value().fields();
  EXPECT_EQ(a.at("key").string_value(), "memory_snapshot");
  EXPECT_EQ(a.at("host").string_value(), "rank0");
  EXPECT_EQ(a.at("html").string_value(), "<section>peak</section>");
}

}  // namespace
}  // namespace tbprof::views
