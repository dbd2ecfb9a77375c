#include "tools/convert/convert_summary.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::cli {

using views::PlaneSummary;
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

HostReport JsonHost() {
  HostReport host;
  host.input_path = "in/w0.json.gz";
  host.host = "w0";
  host.output_path = "tb/plugins/profile/r/w0.xplane.pb";
  host.output_bytes = 2'500'000;
  host.json_summary.emplace();
  host.json_summary->events_read = 1200;
  host.json_summary->events_converted = 1100;
  host.json_summary->events_malformed = 2;
  host.json_summary->malformed_examples = {"byte 10: missing ts", "byte 99: bad dur"};
  PlaneSummary plane;
  plane.name = "/host:CPU";
  plane.num_lines = 2;
  plane.num_events = 1000;
  host.diagnosis.planes.push_back(plane);
  host.diagnosis.step_roots = 3;
  host.diagnosis.steps_with_device_work = 2;
  host.diagnosis.gpu_planes = 1;
  return host;
}

TEST(ConvertSummaryTest, PerHostFacts) {
  std::string text = FormatConvertSummary("tb", "r", "tb/plugins/profile/r", {JsonHost()});
  EXPECT_THAT(text, HasSubstr("Wrote run 'r' with 1 host"));
  EXPECT_THAT(text, HasSubstr("w0  <- in/w0.json.gz (Chrome trace JSON"));
  EXPECT_THAT(text, HasSubstr("tb/plugins/profile/r/w0.xplane.pb (2.50 MB)"));
  EXPECT_THAT(text, HasSubstr("1,000 events on 2 lines"));
  EXPECT_THAT(text, HasSubstr("1,200 read, 1,100 converted"));
  EXPECT_THAT(text, HasSubstr("3 step markers, 2 with GPU work"));
  EXPECT_THAT(text, HasSubstr("2 malformed events skipped, first: byte 10: missing ts; byte 99"));
  EXPECT_THAT(text, HasSubstr("tensorboard --logdir tb\n"));
  EXPECT_THAT(text, Not(HasSubstr("also:")));
}

TEST(ConvertSummaryTest, ListsExtraFiles) {
  HostReport host = JsonHost();
  host.extra_files = {"w0.overview_page.pb", "w0.kernel_stats.pb"};
  std::string text = FormatConvertSummary("tb", "r", "tb/plugins/profile/r", {host});
  EXPECT_THAT(text, HasSubstr("also:     w0.{overview_page.pb,kernel_stats.pb} (for profile"));
}

TEST(ConvertSummaryTest, MalformedEventsReportedOnce) {
  HostReport host = JsonHost();
  host.diagnosis.warnings = {"2 malformed trace events were skipped; first: byte 10: missing ts"};
  std::string text = FormatConvertSummary("tb", "r", "tb/plugins/profile/r", {host});
  EXPECT_THAT(text, HasSubstr("2 malformed trace events were skipped"));
  EXPECT_THAT(text, Not(HasSubstr("malformed events skipped, first")));
}

TEST(ConvertSummaryTest, NoStepsAndQuotedLogdir) {
  HostReport host = JsonHost();
  host.diagnosis.step_roots = 0;
  host.json_summary->events_malformed = 0;
  std::string text = FormatConvertSummary("my logs", "r", "my logs/plugins/profile/r", {host});
  EXPECT_THAT(text, HasSubstr("No step marker observed"));
  EXPECT_THAT(text, HasSubstr("warnings: none"));
  EXPECT_THAT(text, HasSubstr("tensorboard --logdir 'my logs'"));
}

}  // namespace
}  // namespace tbprof::cli
