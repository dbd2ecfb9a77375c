#include "converters/report/report_stream.h"

#include <string>

#include "converters/report/report_html.h"
#include "converters/report/report_json.h"
#include "converters/report/report_text.h"
#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;

ReportInput Hosts(int n) {
  ReportInput input;
  input.source = "run </script> & co";
  for (int i = 0; i < n; ++i) {
    HostViews host{"host-" + std::to_string(i), testing::MakeSampleViews()};
    host.views.rank_comms.set_rank(i);
    host.views.rank_comms.set_world_size(n);
    input.hosts.push_back(std::move(host));
  }
  if (n > 0) input.appendices.push_back({"host-0", "memory_snapshot", "memory snapshot",
                                         "snapshot text\n", "{\"segments\":1}", "<p>seg</p>"});
  return input;
}

// Every form streamed through spools of `spool_bytes` (1: every host
// section goes through the temporary file).
struct Streamed {
  std::string text, json, html;
};
Streamed Stream(const ReportInput& input, size_t spool_bytes) {
  ReportStreamOptions o;
  o.text = o.json = o.html = true;
  o.spool_memory_bytes = spool_bytes;
  ReportStream stream(o);
  for (const HostViews& host : input.hosts) EXPECT_TRUE(stream.AddHost(host).ok());
  for (const ReportAppendix& a : input.appendices) stream.AddAppendix(a);
  Streamed out;
  auto to = [](std::string* s) {
    return [s](absl::string_view piece) {
      s->append(piece.data(), piece.size());
      return absl::OkStatus();
    };
  };
  EXPECT_TRUE(stream.FinishText(input.source, to(&out.text)).ok());
  EXPECT_TRUE(stream.FinishJson(to(&out.json)).ok());
  EXPECT_TRUE(stream.FinishHtml(input.source, to(&out.html)).ok());
  return out;
}

TEST(ReportStreamTest, SameBytesInMemoryAndThroughTheTemporaryFile) {
  for (int hosts : {0, 1, 2, 5}) {
    SCOPED_TRACE(hosts);
    const ReportInput input = Hosts(hosts);
    const Streamed memory = Stream(input, size_t{64} << 20);
    const Streamed spilled = Stream(input, 1);
    EXPECT_EQ(memory.text, spilled.text);
    EXPECT_EQ(memory.json, spilled.json);
    EXPECT_EQ(memory.html, spilled.html);
    // The whole-report renderers are this stream.
    EXPECT_EQ(memory.text, RenderTextReport(input));
    EXPECT_EQ(memory.json, *RenderJsonReport(input));
    EXPECT_EQ(memory.html, RenderHtmlReport(input));
  }
}

TEST(ReportStreamTest, ShapesOfOneAndSeveralHosts) {
  const Streamed one = Stream(Hosts(1), 1);
  EXPECT_EQ(one.json.rfind("{\"overview\":", 0), 0u) << one.json.substr(0, 40);
  EXPECT_THAT(one.json, HasSubstr(",\"distributed\":{"));
  EXPECT_THAT(one.json, HasSubstr(",\"appendices\":[{\"host\":\"host-0\",\"memory_snapshot\":"));
  EXPECT_EQ(one.json.back(), '\n');
  EXPECT_THAT(one.text, HasSubstr("tbprof report: 1 host, "));
  EXPECT_THAT(one.text, ::testing::Not(HasSubstr("Hosts compared")));

  const Streamed three = Stream(Hosts(3), 1);
  EXPECT_EQ(three.json.rfind("{\"hosts\":[{\"host\":\"host-0\",\"overview\":", 0), 0u);
  EXPECT_THAT(three.json, HasSubstr("},{\"host\":\"host-2\",\"overview\":"));
  EXPECT_THAT(three.json, HasSubstr("}],\"distributed\":{"));
  EXPECT_THAT(three.text, HasSubstr("tbprof report: 3 hosts, "));
  EXPECT_THAT(three.text, HasSubstr("Hosts compared"));
  EXPECT_THAT(three.html, HasSubstr("\"hosts\":[{\"host\":\"host-0\""));
  // The source is script-safe in the data and escaped in the title.
  EXPECT_THAT(three.html, HasSubstr("run \\u003c/script\\u003e \\u0026 co"));
  EXPECT_THAT(three.html, HasSubstr("<title>tbprof report: run &lt;/script&gt; &amp; co"));
}

TEST(ReportStreamTest, FormNotEnabledIsRefused) {
  ReportStreamOptions o;
  o.text = true;
  ReportStream stream(o);
  auto sink = [](absl::string_view) { return absl::OkStatus(); };
  EXPECT_EQ(stream.FinishJson(sink).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(stream.FinishHtml("x", sink).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(stream.FinishText("x", sink).ok());
}

}  // namespace
}  // namespace tbprof::views
