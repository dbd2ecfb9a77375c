#include "converters/report/report_distributed.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "converters/report/report_json.h"
#include "converters/report/report_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kUs = 1'000'000;

tbprof::CollectiveCall Call(const std::string& kind, int64_t bytes, int64_t begin_us,
                            int64_t duration_us, int64_t seq) {
  tbprof::CollectiveCall c;
  c.set_kind(kind);
  c.set_dtype("BFloat16");
  c.set_message_bytes(bytes);
  c.set_group_size(2);
  c.set_begin_ps(begin_us * kUs);
  c.set_duration_ps(duration_us * kUs);
  c.set_seq(seq);
  c.set_step_num(1);
  c.set_process_group("0");
  c.set_metadata(tbprof::COLLECTIVE_METADATA_PARAM_COMMS);
  return c;
}

HostViews Host(const std::string& name, int64_t rank, int64_t step_us, int64_t start_us) {
  HostViews h;
  h.host = name;
  tbprof::RankComms& r = h.views.rank_comms;
  r.set_rank(rank);
  r.set_world_size(2);
  r.set_backend("nccl");
  r.set_time_zero_known(true);
  tbprof::RankStep* s = r.add_steps();
  s->set_step_num(1);
  s->set_duration_ps(step_us * kUs);
  s->set_compute_ps(step_us * kUs / 2);
  s->set_communication_ps(step_us * kUs / 4);
  s->set_other_ps(step_us * kUs - step_us * kUs / 2 - step_us * kUs / 4);
  *r.add_collectives() = Call("all_reduce", 64 << 20, start_us, 1000 - start_us, 1);
  return h;
}

ReportInput TwoRanks(const std::string& second_host = "host-b") {
  ReportInput input;
  input.source = "run";
  input.hosts.push_back(Host("host-a", 0, 2000, 0));
  input.hosts.push_back(Host(second_host, 1, 2600, 400));
  return input;
}

void ExpectFits(const std::string& text, int width) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    EXPECT_LE(DisplayWidth(line), width) << line;
  }
}

TEST(ReportDistributedTest, TextSection) {
  TextReportOptions options;
  options.width = 80;
  const std::string text = RenderDistributedText(TwoRanks(), options);
  ExpectFits(text, 80);
  EXPECT_THAT(text, HasSubstr("== Distributed: 2 ranks of 2, nccl ="));
  EXPECT_THAT(text, HasSubstr("0 host-a"));
  // Rank 0 starts at 0 us, rank 1 at 400 us: rank 0 waits 400 of 1000 us.
  EXPECT_THAT(text, HasSubstr("40.0%"));
  EXPECT_THAT(text, HasSubstr("Slowest     rank 1 (host-b): 2.600 ms per step"));
  EXPECT_THAT(text, HasSubstr("Waited for  rank 1 arrives last at 1 of 1 collectives"));
  // 64 MiB in 600 us: 111.8 GB/s algorithm, x 2(2-1)/2 on the bus.
  EXPECT_THAT(text, HasSubstr("all_reduce"));
  EXPECT_THAT(text, HasSubstr("bf16"));
  EXPECT_THAT(text, HasSubstr("64.0 MiB"));
  EXPECT_THAT(text, HasSubstr("600.0"));
  EXPECT_THAT(text, HasSubstr("112"));

  options.width = 60;
  options.ascii = true;
  const std::string narrow = RenderDistributedText(TwoRanks(), options);
  ExpectFits(narrow, 60);
  for (char c : narrow) EXPECT_EQ(static_cast<unsigned char>(c) & 0x80, 0) << narrow;
}

TEST(ReportDistributedTest, NoDataIsOneLine) {
  ReportInput input;
  input.hosts.push_back(HostViews{"solo", {}});
  input.hosts[0].views.rank_comms.set_no_data_reason("no collectives");
  TextReportOptions options;
  const std::string text = RenderDistributedText(input, options);
  EXPECT_EQ(text,
            "\nDistributed one rank, no collective (NCCL/RCCL) kernels: not a distributed job\n");
  EXPECT_THAT(RenderDistributedHtml(input), HasSubstr("not a distributed job"));
}

TEST(ReportDistributedTest, OneRankOfEight) {
  ReportInput input;
  input.hosts.push_back(Host("rank3", 3, 2000, 0));
  input.hosts[0].views.rank_comms.set_world_size(8);
  TextReportOptions options;
  const std::string text = RenderDistributedText(input, options);
  EXPECT_THAT(text, HasSubstr("== Distributed: 1 rank of 8, nccl"));
  EXPECT_THAT(text, HasSubstr("Cross-rank  1 of 8 ranks in this run"));
  EXPECT_THAT(text, HasSubstr("* includes waiting"));
}

TEST(ReportDistributedTest, JsonMember) {
  std::string object = "{\"a\":1}";
  ASSERT_TRUE(AppendDistributedJsonMember(TwoRanks(), &object).ok());
  EXPECT_THAT(object, ::testing::StartsWith("{\"a\":1,\"distributed\":{"));
  EXPECT_THAT(object, HasSubstr("\"worldSize\":\"2\""));
  EXPECT_THAT(object, HasSubstr("\"waitedForRank\":\"1\""));
  EXPECT_EQ(object.back(), '}');
  std::string empty = "{}";
  ASSERT_TRUE(AppendDistributedJsonMember(TwoRanks(), &empty).ok());
  EXPECT_THAT(empty, ::testing::StartsWith("{\"distributed\":{"));
  std::string bad = "[]";
  EXPECT_FALSE(AppendDistributedJsonMember(TwoRanks(), &bad).ok());

  // The whole report has the key, for one host and for several.
  absl::StatusOr<std::string> several = RenderJsonReport(TwoRanks());
  ASSERT_TRUE(several.ok());
  EXPECT_THAT(*several, HasSubstr("}],\"distributed\":{"));
  ReportInput one;
  one.hosts.push_back(HostViews{"solo", {}});
  absl::StatusOr<std::string> single = RenderJsonReport(one);
  ASSERT_TRUE(single.ok());
  EXPECT_THAT(*single, HasSubstr("\"distributed\":{"));
  EXPECT_THAT(*single, HasSubstr("\"noDataReason\":\"one rank, no collective"));
}

TEST(ReportDistributedTest, HtmlSection) {
  const std::string html = RenderDistributedHtml(TwoRanks("<script>alert(1)</script>"));
  EXPECT_THAT(html, HasSubstr("<main id=\"distributed\">"));
  EXPECT_THAT(html, HasSubstr("<svg class=\"chart dist-bars\""));
  EXPECT_THAT(html, HasSubstr("<table class=\"sortable\" data-num-col=\"3\">"));
  EXPECT_THAT(html, HasSubstr("data-v="));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(html, HasSubstr("Waited for"));
}

}  // namespace
}  // namespace tbprof::views
