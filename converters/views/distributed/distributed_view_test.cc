#include "converters/views/distributed/distributed_view.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/views/distributed/xspace_to_rank_comms.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kUs = 1'000'000;  // Picoseconds per microsecond.

tbprof::RankComms RankCommsOf(const std::string& path) {
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(path, {}, &space);
  EXPECT_TRUE(summary.ok()) << summary.status();
  absl::StatusOr<StepAnalysis> analysis = ConvertXSpaceToStepAnalysis(space, StepOptions{});
  EXPECT_TRUE(analysis.ok()) << analysis.status();
  return ConvertXSpaceToRankComms(space, analysis->op_stats.step_db());
}

std::string Fixture(const std::string& name) {
  return std::string(TBPROF_SOURCE_DIR) + "/testdata/chrome_json/distributed/" + name;
}

tbprof::DistributedView ViewOf(const std::vector<tbprof::RankComms>& ranks) {
  std::vector<RankInput> inputs;
  for (size_t i = 0; i < ranks.size(); ++i) inputs.push_back({absl::StrCat("h", i), &ranks[i]});
  return BuildDistributedView(inputs);
}

// A hand-made call: times in us.
tbprof::CollectiveCall Call(const std::string& kind, int64_t bytes, int64_t begin_us,
                            int64_t duration_us, int64_t seq = -1, int64_t step = 1) {
  tbprof::CollectiveCall c;
  c.set_kind(kind);
  c.set_dtype("Float");
  c.set_message_bytes(bytes);
  c.set_begin_ps(begin_us * kUs);
  c.set_duration_ps(duration_us * kUs);
  c.set_seq(seq);
  c.set_step_num(step);
  c.set_process_group(seq >= 0 ? "0" : "");
  c.set_metadata(bytes > 0 ? tbprof::COLLECTIVE_METADATA_PARAM_COMMS
                           : tbprof::COLLECTIVE_METADATA_NONE);
  return c;
}

tbprof::RankComms Rank(int64_t rank, int64_t world_size, int64_t step_us,
                       std::vector<tbprof::CollectiveCall> calls) {
  tbprof::RankComms r;
  r.set_rank(rank);
  r.set_world_size(world_size);
  r.set_time_zero_ns(1'000'000'000);
  r.set_time_zero_known(true);
  tbprof::RankStep* s = r.add_steps();
  s->set_step_num(1);
  s->set_duration_ps(step_us * kUs);
  s->set_other_ps(step_us * kUs);
  for (auto& c : calls) *r.add_collectives() = std::move(c);
  return r;
}

// Three ranks start one all_reduce at 0, 5 and 12 us and all end at 20 us:
//   sync      = 12 - start = 12, 7, 0
//   transfer  = duration - sync = 8, 8, 8
//   latency   = min duration = 8 us
//   algbw     = 8e6 B / 8 us = 1000 GB/s
//   busbw     = 1000 * 2 * (3 - 1) / 3 = 1333.33 GB/s
TEST(DistributedViewTest, SyncTransferAndBandwidthByHand) {
  const std::vector<tbprof::RankComms> ranks = {
      Rank(0, 3, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 3, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
      Rank(2, 3, 30, {Call("all_reduce", 8'000'000, 12, 8, 7)}),
  };
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_TRUE(v.cross_rank());
  EXPECT_EQ(v.world_size(), 3);
  EXPECT_EQ(v.matched_instances(), 1);
  EXPECT_EQ(v.unmatched_calls(), 0);
  ASSERT_EQ(v.ranks_size(), 3);
  EXPECT_EQ(v.ranks(0).sync_ps(), 12 * kUs);
  EXPECT_EQ(v.ranks(0).transfer_ps(), 8 * kUs);
  EXPECT_DOUBLE_EQ(v.ranks(0).sync_percent(), 60.0);
  EXPECT_EQ(v.ranks(1).sync_ps(), 7 * kUs);
  EXPECT_EQ(v.ranks(1).transfer_ps(), 8 * kUs);
  EXPECT_EQ(v.ranks(2).sync_ps(), 0);
  EXPECT_EQ(v.ranks(2).transfer_ps(), 8 * kUs);
  // The last to arrive waits least: the others wait for rank 2.
  EXPECT_EQ(v.straggler().waited_for_rank(), 2);
  EXPECT_DOUBLE_EQ(v.straggler().waited_for_sync_percent(), 0.0);
  EXPECT_EQ(v.straggler().waited_for_last_arrivals(), 1);
  EXPECT_EQ(v.straggler().waited_for_ps(), (12 + 7) * kUs);
  EXPECT_EQ(v.ranks(2).last_arrivals(), 1);
  EXPECT_EQ(v.ranks(0).last_arrivals(), 0);
  ASSERT_EQ(v.collectives_size(), 1);
  const tbprof::CollectiveRow& row = v.collectives(0);
  EXPECT_EQ(row.count(), 1);
  EXPECT_EQ(row.calls(), 3);
  EXPECT_EQ(row.total_ps(), 43 * kUs);
  EXPECT_EQ(row.avg_latency_ps(), 8 * kUs);
  EXPECT_EQ(row.group_size(), 3);
  EXPECT_DOUBLE_EQ(row.algbw_gbps(), 1000.0);
  EXPECT_NEAR(row.busbw_gbps(), 4000.0 / 3, 1e-9);
  EXPECT_EQ(row.avg_sync_ps(), (12 + 7 + 0) * kUs / 3);
  EXPECT_EQ(row.avg_transfer_ps(), 8 * kUs);
  EXPECT_FALSE(row.latency_includes_wait());
  EXPECT_THAT(v.notes(), ::testing::IsEmpty());
}

// The two-rank fixture end to end (numbers in xspace_to_rank_comms_test.cc):
// rank 0 starts the all_reduce at 1020 us, rank 1 at 1040 us; both end at
// 1060 us. The all_gather starts together on both.
TEST(DistributedViewTest, ARankReadTwiceCountsOnce) {
  const std::vector<tbprof::RankComms> ranks = {
      Rank(0, 3, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 3, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
      Rank(1, 3, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
      Rank(2, 3, 30, {Call("all_reduce", 8'000'000, 12, 8, 7)}),
  };
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.ranks_in_run(), 3);
  EXPECT_EQ(v.world_size(), 3);
  ASSERT_EQ(v.ranks_size(), 3);
  EXPECT_EQ(v.ranks(1).rank(), 1);
  EXPECT_EQ(v.ranks(2).rank(), 2);
  // Matched as three ranks: the same sync split as without the copy.
  EXPECT_EQ(v.matched_instances(), 1);
  EXPECT_EQ(v.ranks(0).sync_ps(), 12 * kUs);
  EXPECT_EQ(v.collectives(0).calls(), 3);
  EXPECT_THAT(v.notes(), ::testing::ElementsAre(::testing::HasSubstr(
                             "duplicate rank ids: rank 1 in h1, h2, the same profile; counted "
                             "as h1. Each rank counts once: 1 host is left out")));
}

TEST(DistributedViewTest, ClocksSecondsApartAreNamedInOneLine) {
  std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 2, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
  };
  ranks[1].set_time_zero_ns(ranks[1].time_zero_ns() + 5'000'000'000);
  const tbprof::DistributedView v = ViewOf(ranks);
  // One line; no second note about the collectives' skew it causes.
  EXPECT_THAT(v.notes(), ::testing::ElementsAre(::testing::HasSubstr(
                             "do not overlap in time: h1 starts 5.000 s after h0 ends")));
}

TEST(DistributedViewTest, DisagreeingWorldSizesAreNamedInOneLine) {
  const std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 16, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
  };
  const tbprof::DistributedView v = ViewOf(ranks);
  // Not also "the run has 2 of 16 ranks".
  EXPECT_THAT(v.notes(), ::testing::ElementsAre(::testing::HasSubstr(
                             "disagree on the world size (world size 2: h0; world size 16: h1)")));
}

TEST(DistributedViewTest, TwoJobsInOneRunAreNamed) {
  // Job A: ranks 0 and 1 of 2; job B, an hour later: ranks 0 to 2 of 3.
  std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 2, 30, {Call("all_reduce", 8'000'000, 5, 15, 7)}),
      Rank(0, 3, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(1, 3, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
      Rank(2, 3, 30, {Call("all_reduce", 8'000'000, 0, 20, 7)}),
  };
  for (int i = 2; i < 5; ++i) {
    ranks[i].set_time_zero_ns(ranks[i].time_zero_ns() + 3'600'000'000'000);
  }
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.ranks_in_run(), 3);  // 0, 1 of job A and 2 of job B.
  EXPECT_THAT(v.notes(),
              ::testing::ElementsAre(
                  ::testing::HasSubstr("duplicate rank ids: rank 0 in h0, h2, different "
                                       "profiles; counted as h0; rank 1 in h1, h3"),
                  ::testing::HasSubstr("disagree on the world size"),
                  ::testing::HasSubstr("do not overlap in time: h2 starts 3600.000 s after h0 ends")));
}

TEST(DistributedViewTest, TrimmedRankCommsGiveTheSameView) {
  std::vector<tbprof::RankComms> ranks = {RankCommsOf(Fixture("rank0.json")),
                                          RankCommsOf(Fixture("rank1.json"))};
  const tbprof::DistributedView before = ViewOf(ranks);
  for (tbprof::RankComms& r : ranks) {
    TrimForDistributedView(&r);
    for (const tbprof::CollectiveCall& c : r.collectives()) EXPECT_EQ(c.kernel_name(), "");
  }
  EXPECT_EQ(ViewOf(ranks).SerializeAsString(), before.SerializeAsString());
}

TEST(DistributedViewTest, TwoRankFixture) {
  const std::vector<tbprof::RankComms> ranks = {RankCommsOf(Fixture("rank0.json")),
                                                RankCommsOf(Fixture("rank1.json"))};
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_TRUE(v.cross_rank());
  EXPECT_EQ(v.backend(), "nccl");
  EXPECT_EQ(v.collective_calls(), 4);
  EXPECT_EQ(v.calls_with_param_comms(), 4);
  EXPECT_EQ(v.matched_instances(), 2);
  ASSERT_EQ(v.ranks_size(), 2);
  const tbprof::RankSummary& r0 = v.ranks(0);
  EXPECT_EQ(r0.rank(), 0);
  EXPECT_EQ(r0.avg_step_ps(), 100 * kUs);
  EXPECT_EQ(r0.avg_compute_ps(), 15 * kUs);
  EXPECT_EQ(r0.avg_communication_ps(), 25 * kUs);
  EXPECT_EQ(r0.avg_overlap_ps(), 25 * kUs);
  EXPECT_EQ(r0.avg_other_ps(), 35 * kUs);
  EXPECT_EQ(r0.collective_ps(), 50 * kUs);
  EXPECT_EQ(r0.sync_ps(), 20 * kUs);      // 1040 - 1020.
  EXPECT_EQ(r0.transfer_ps(), 30 * kUs);  // 20 + 10.
  EXPECT_DOUBLE_EQ(r0.sync_percent(), 40.0);
  const tbprof::RankSummary& r1 = v.ranks(1);
  EXPECT_EQ(r1.sync_ps(), 0);
  EXPECT_EQ(r1.transfer_ps(), 30 * kUs);
  // Rank 1 reaches the all_reduce last (rank 0 waits 20 us for it); both
  // reach the all_gather together (rank 0, first in order, counts as last).
  EXPECT_EQ(v.straggler().waited_for_rank(), 1);
  EXPECT_EQ(v.straggler().waited_for_ps(), 20 * kUs);
  EXPECT_EQ(r0.last_arrivals(), 1);
  EXPECT_EQ(r0.others_waited_ps(), 0);

  ASSERT_EQ(v.collectives_size(), 2);
  const tbprof::CollectiveRow& ar = v.collectives(0);  // 60 us in all.
  EXPECT_EQ(ar.kind(), "all_reduce");
  EXPECT_EQ(ar.total_ps(), 60 * kUs);
  EXPECT_EQ(ar.avg_latency_ps(), 20 * kUs);
  EXPECT_DOUBLE_EQ(ar.algbw_gbps(), 0.2);  // 4000 B / 20 us.
  EXPECT_DOUBLE_EQ(ar.busbw_gbps(), 0.2);  // * 2 (2 - 1) / 2.
  EXPECT_EQ(ar.avg_sync_ps(), 10 * kUs);
  EXPECT_EQ(ar.avg_transfer_ps(), 20 * kUs);
  EXPECT_EQ(ar.metadata(), "param_comms");
  const tbprof::CollectiveRow& ag = v.collectives(1);
  EXPECT_EQ(ag.kind(), "all_gather");
  EXPECT_EQ(ag.message_bytes(), 2000);
  EXPECT_DOUBLE_EQ(ag.algbw_gbps(), 0.2);   // 2000 B / 10 us.
  EXPECT_DOUBLE_EQ(ag.busbw_gbps(), 0.1);   // * (2 - 1) / 2.

  // Steps: 100 and 120 us.
  ASSERT_EQ(v.step_spread_size(), 1);
  EXPECT_EQ(v.step_spread(0).min_ps(), 100 * kUs);
  EXPECT_EQ(v.step_spread(0).median_ps(), 110 * kUs);
  EXPECT_EQ(v.step_spread(0).max_ps(), 120 * kUs);
  EXPECT_EQ(v.step_spread(0).fastest_rank(), 0);
  EXPECT_EQ(v.step_spread(0).slowest_rank(), 1);
  // Rank 1 is slowest; its compute (38 us) exceeds the median of 15 and 38
  // (26.5 us) by 11.5 us, more than other (52 vs 43.5) or communication
  // (30 vs 27.5).
  const tbprof::Straggler& s = v.straggler();
  EXPECT_EQ(s.slowest_rank(), 1);
  EXPECT_EQ(s.slowest_avg_step_ps(), 120 * kUs);
  EXPECT_EQ(s.median_avg_step_ps(), 110 * kUs);
  EXPECT_NEAR(s.spread_percent(), 100.0 * 20 / 110, 1e-9);
  EXPECT_EQ(s.phase(), "compute");
  EXPECT_EQ(s.phase_excess_ps(), 11'500'000);
  EXPECT_EQ(s.slowest_sync_per_step_ps(), 0);
  EXPECT_EQ(s.max_sync_per_step_ps(), 20 * kUs);
  EXPECT_THAT(v.notes(), ::testing::IsEmpty());
}

// Bad input: one rank's collectives carry no metadata. Nothing matches (the
// groups differ), everything is still counted, and notes say how much.
TEST(DistributedViewTest, MissingMetadataGivesAPartialViewWithCountedNotes) {
  const std::vector<tbprof::RankComms> ranks = {
      RankCommsOf(Fixture("rank0.json")), RankCommsOf(Fixture("rank1_no_metadata.json"))};
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.collective_calls(), 4);
  EXPECT_EQ(v.calls_with_param_comms(), 2);
  EXPECT_EQ(v.calls_without_metadata(), 2);
  EXPECT_EQ(v.matched_instances(), 0);
  EXPECT_EQ(v.unmatched_calls(), 4);
  int64_t total = 0;
  for (const tbprof::CollectiveRow& row : v.collectives()) total += row.total_ps();
  EXPECT_EQ(total, 80 * kUs);  // 50 + 30: no call lost or counted twice.
  EXPECT_EQ(v.ranks(0).collective_ps() + v.ranks(1).collective_ps(), 80 * kUs);
  for (const tbprof::CollectiveRow& row : v.collectives()) {
    if (row.message_bytes() == 0) {
      EXPECT_EQ(row.algbw_gbps(), 0);
      EXPECT_EQ(row.busbw_gbps(), 0);
      EXPECT_EQ(row.metadata(), "none");
    }
  }
  const std::string notes = absl::StrJoin(v.notes(), "\n");
  EXPECT_THAT(notes, HasSubstr("2 of 4 collective calls have no size metadata"));
  EXPECT_THAT(notes, HasSubstr("4 of 4 collective calls are not matched"));
}

// Same position, different kinds: not a match.
TEST(DistributedViewTest, DisagreeingPositionsAreNotMatched) {
  const std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
      Rank(1, 2, 30, {Call("all_gather", 4000, 0, 10)}),
  };
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.matched_instances(), 0);
  EXPECT_EQ(v.unmatched_calls(), 2);
  EXPECT_THAT(absl::StrJoin(v.notes(), "\n"), HasSubstr("1 positions disagreed"));
  // all_reduce of different sizes: not a match either.
  const std::vector<tbprof::RankComms> sizes = {
      Rank(0, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
      Rank(1, 2, 30, {Call("all_reduce", 8000, 0, 10)}),
  };
  EXPECT_EQ(ViewOf(sizes).matched_instances(), 0);
  // all_to_all may differ in size per rank (all_to_allv).
  const std::vector<tbprof::RankComms> a2a = {
      Rank(0, 2, 30, {Call("all_to_all", 4000, 0, 10)}),
      Rank(1, 2, 30, {Call("all_to_all", 8000, 0, 10)}),
  };
  EXPECT_EQ(ViewOf(a2a).matched_instances(), 1);
}

TEST(DistributedViewTest, ClockSkewIsNoted) {
  std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
      Rank(1, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
  };
  ranks[1].set_time_zero_ns(ranks[1].time_zero_ns() + 50'000);  // 50 us later.
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.matched_instances(), 1);
  // Rank 0 waits its whole call: sync = min(10, 50) = 10 us, transfer 0.
  EXPECT_EQ(v.ranks(0).sync_ps(), 10 * kUs);
  EXPECT_EQ(v.ranks(0).transfer_ps(), 0);
  EXPECT_THAT(absl::StrJoin(v.notes(), "\n"), HasSubstr("clocks disagree by up to 40.0 us"));
}

TEST(DistributedViewTest, UnknownClockGivesPerRankFiguresOnly) {
  std::vector<tbprof::RankComms> ranks = {
      Rank(0, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
      Rank(1, 2, 30, {Call("all_reduce", 4000, 0, 10)}),
  };
  ranks[1].set_time_zero_known(false);
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_FALSE(v.cross_rank());
  EXPECT_THAT(v.cross_rank_reason(), HasSubstr("h1 has no absolute time"));
  EXPECT_EQ(v.matched_instances(), 0);
  EXPECT_EQ(v.ranks_size(), 2);
  EXPECT_EQ(v.step_spread_size(), 1);  // Step times need no common clock.
}

// One rank of an 8-rank job: the per-rank figures, with the world size from
// the trace for the bus bandwidth, and the latency including any waiting.
TEST(DistributedViewTest, OneRankOfAMultiRankJob) {
  const std::vector<tbprof::RankComms> ranks = {
      Rank(3, 8, 30, {Call("all_reduce", 8'000'000, 0, 10), Call("all_reduce", 8'000'000, 10, 6)})};
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_FALSE(v.cross_rank());
  EXPECT_EQ(v.world_size(), 8);
  EXPECT_EQ(v.cross_rank_reason(),
            "1 of 8 ranks in this run: waiting and step spread across ranks need the traces of "
            "every rank");
  ASSERT_EQ(v.collectives_size(), 1);
  const tbprof::CollectiveRow& row = v.collectives(0);
  EXPECT_EQ(row.count(), 2);
  EXPECT_EQ(row.group_size(), 8);
  EXPECT_EQ(row.avg_latency_ps(), 8 * kUs);
  EXPECT_DOUBLE_EQ(row.algbw_gbps(), 1000.0);
  EXPECT_DOUBLE_EQ(row.busbw_gbps(), 1750.0);  // * 2 * 7 / 8.
  EXPECT_TRUE(row.latency_includes_wait());
  EXPECT_EQ(v.ranks(0).rank(), 3);
  EXPECT_EQ(v.step_spread_size(), 0);
}

TEST(DistributedViewTest, NoCollectives) {
  tbprof::RankComms r;
  r.set_rank(-1);
  r.set_no_data_reason("no collective (NCCL/RCCL) kernels on this host's GPUs");
  const tbprof::DistributedView one = ViewOf({r});
  EXPECT_EQ(one.no_data_reason(),
            "one rank, no collective (NCCL/RCCL) kernels: not a distributed job");
  const tbprof::DistributedView two = ViewOf({r, r});
  EXPECT_EQ(two.no_data_reason(), "no collective (NCCL/RCCL) kernels in this run");
  EXPECT_EQ(two.ranks_size(), 0);
  // One host of two has collectives: per-rank figures, a note on the other.
  tbprof::RankComms with = Rank(1, 2, 30, {Call("all_reduce", 4000, 0, 10)});
  const tbprof::DistributedView partial = ViewOf({r, with});
  EXPECT_EQ(partial.ranks_size(), 1);
  EXPECT_FALSE(partial.cross_rank());
  EXPECT_EQ(partial.cross_rank_reason(),
            "only one rank has collectives: nothing to compare across ranks");
  EXPECT_THAT(absl::StrJoin(partial.notes(), "\n"),
              HasSubstr("1 of 2 hosts have no collective kernels and are left out"));
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The real 8-rank DLRM job (../shared/testdata/kineto/dlrm_8ranks): PyTorch
// of 2023 whose record_param_comms has no args, so sizes come from the
// nccl:* ops' recorded input shapes. Every rank runs the same 8 collectives
// in step 10; rank 7 reaches the first all_to_all last, 7.6 ms after rank 1.
TEST(DistributedViewTest, Dlrm8Ranks) {
  const std::string dir = std::string(TBPROF_SHARED_TESTDATA) + "/kineto/dlrm_8ranks/";
  const std::vector<std::string> files = {
      "worker0_step_12.1694128201545.pt.trace.json.gz",
      "worker1_step_12.1694128201556.pt.trace.json.gz",
      "worker2_step_12.1694128201554.pt.trace.json.gz",
      "worker3_step_12.1694128201557.pt.trace.json.gz",
      "worker4_step_12.1694128201547.pt.trace.json.gz",
      "worker5_step_12.1694128201549.pt.trace.json.gz",
      "worker6_step_12.1694128201553.pt.trace.json.gz",
      "worker7_step_12.1694128201553.pt.trace.json.gz"};
  if (!Exists(dir + files[0])) GTEST_SKIP() << "no " << dir;
  std::vector<tbprof::RankComms> ranks;
  for (const std::string& f : files) ranks.push_back(RankCommsOf(dir + f));
  const tbprof::DistributedView v = ViewOf(ranks);
  EXPECT_EQ(v.world_size(), 8);
  EXPECT_EQ(v.backend(), "nccl");
  EXPECT_TRUE(v.cross_rank());
  EXPECT_EQ(v.collective_calls(), 64);
  EXPECT_EQ(v.calls_with_op_shapes(), 64);
  EXPECT_EQ(v.matched_instances(), 8);
  EXPECT_EQ(v.unmatched_calls(), 0);
  ASSERT_EQ(v.ranks_size(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(v.ranks(i).rank(), i);
    EXPECT_EQ(v.ranks(i).steps(), 1);
    EXPECT_EQ(v.ranks(i).sync_ps() + v.ranks(i).transfer_ps(), v.ranks(i).matched_ps());
  }
  // First all_to_all: rank 1 starts at ...424306 us, rank 7 at ...431930 us.
  EXPECT_GE(v.ranks(1).sync_ps(), 7624 * kUs);
  EXPECT_EQ(v.straggler().waited_for_rank(), 7);
  EXPECT_EQ(v.straggler().slowest_rank(), 1);  // 19.9 ms, mostly waiting.
  EXPECT_EQ(v.straggler().phase(), "communication");
  // all_reduce of 394241 floats (nccl:all_reduce input) and all_to_all of
  // 6144 floats are among the rows, with bus bandwidths.
  bool found_ar = false, found_a2a = false;
  for (const tbprof::CollectiveRow& row : v.collectives()) {
    if (row.kind() == "all_reduce" && row.message_bytes() == 394241 * 4) {
      found_ar = true;
      EXPECT_EQ(row.count(), 1);
      EXPECT_EQ(row.calls(), 8);
      EXPECT_GT(row.busbw_gbps(), 0);
      EXPECT_DOUBLE_EQ(row.busbw_gbps(), row.algbw_gbps() * 1.75);
    }
    if (row.kind() == "all_to_all" && row.message_bytes() == 6144 * 4) {
      found_a2a = true;
      EXPECT_EQ(row.count(), 2);  // Forward and backward.
      EXPECT_DOUBLE_EQ(row.busbw_gbps(), row.algbw_gbps() * 0.875);
    }
  }
  EXPECT_TRUE(found_ar);
  EXPECT_TRUE(found_a2a);
  EXPECT_THAT(absl::StrJoin(v.notes(), "\n"),
              HasSubstr("64 of 64 collective calls take their size from the launching op"));
}

}  // namespace
}  // namespace tbprof::views
