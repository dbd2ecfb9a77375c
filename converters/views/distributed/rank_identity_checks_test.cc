#include "converters/views/distributed/rank_identity_checks.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/distributed.pb.h"

namespace tbprof::views {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kSecondNs = 1'000'000'000;

// A rank of `world` ranks whose one step runs 1 s from `start_ns`.
RankComms Rank(int64_t rank, int64_t world, int64_t start_ns) {
  RankComms c;
  c.set_rank(rank);
  c.set_world_size(world);
  c.set_time_zero_known(true);
  c.set_time_zero_ns(start_ns);
  RankStep* step = c.add_steps();
  step->set_step_num(1);
  step->set_begin_ps(0);
  step->set_duration_ps(1000 * kSecondNs);
  return c;
}

TEST(RankIdentityChecksTest, OneJobHasNothingToSay) {
  std::vector<RankComms> comms = {Rank(0, 2, 0), Rank(1, 2, kSecondNs / 10)};
  std::vector<RankInput> in = {{"a", &comms[0]}, {"b", &comms[1]}};
  EXPECT_THAT(CheckRankIdentities(in), IsEmpty());
  EXPECT_FALSE(HasDuplicateRankIds(in));
}

TEST(RankIdentityChecksTest, DuplicateRankIdsAreNamedInOneLine) {
  std::vector<RankComms> comms = {Rank(0, 4, 0), Rank(1, 4, 0), Rank(1, 4, 0), Rank(0, 4, 0),
                                  Rank(2, 4, 0)};
  std::vector<RankInput> in = {
      {"w0", &comms[0]}, {"w1", &comms[1]}, {"w1_copy", &comms[2]}, {"w0_copy", &comms[3]},
      {"w2", &comms[4]}};
  EXPECT_TRUE(HasDuplicateRankIds(in));
  std::vector<std::string> lines = CheckRankIdentities(in);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("duplicate rank ids: rank 0 (w0, w0_copy), rank 1 (w1, w1_copy)"));
}

TEST(RankIdentityChecksTest, DuplicateRanksCountOnceAndAreNamedWithTheirFiles) {
  std::vector<RankComms> comms = {Rank(0, 3, 0), Rank(1, 3, 0), Rank(1, 3, 0), Rank(2, 3, 0),
                                  Rank(2, 3, 7), Rank(-1, 0, 0)};
  std::vector<RankInput> in = {{"w0", &comms[0], "d/w0.json"},
                               {"w1", &comms[1], "d/w1.json"},
                               {"w1_2", &comms[2], "e/w1.json"},
                               {"w2", &comms[3]},
                               {"w2_other", &comms[4]},
                               {"unknown", &comms[5]}};
  std::string line;
  std::vector<RankInput> kept = DropDuplicateRanks(in, &line);
  std::vector<std::string> hosts;
  for (const RankInput& r : kept) hosts.push_back(r.host);
  EXPECT_THAT(hosts, ElementsAre("w0", "w1", "w2", "unknown"));
  EXPECT_EQ(line,
            "duplicate rank ids: rank 1 in w1 (d/w1.json), w1_2 (e/w1.json), the same profile; "
            "counted as w1; rank 2 in w2, w2_other, different profiles; counted as w2. Each "
            "rank counts once: 2 hosts are left out of the distributed view (a rank read "
            "twice, or ranks of different jobs in one run)");
  // Nothing to drop: the line is cleared.
  kept = DropDuplicateRanks(kept, &line);
  EXPECT_EQ(kept.size(), 4u);
  EXPECT_EQ(line, "");
}

TEST(RankIdentityChecksTest, DisagreeingWorldSizesAreNamed) {
  std::vector<RankComms> comms = {Rank(0, 8, 0), Rank(1, 8, 0), Rank(2, 16, 0)};
  std::vector<RankInput> in = {{"a", &comms[0]}, {"b", &comms[1]}, {"c", &comms[2]}};
  EXPECT_THAT(CheckRankIdentities(in),
              ElementsAre(HasSubstr("disagree on the world size (world size 8: a, b; world size "
                                    "16: c)")));
}

TEST(RankIdentityChecksTest, SpansApartBySecondsAreNamed) {
  // b starts 5 s after a's 1 s step ended; c has no absolute time (ignored).
  std::vector<RankComms> comms = {Rank(0, 3, 0), Rank(1, 3, 6 * kSecondNs), Rank(2, 3, 0)};
  comms[2].set_time_zero_known(false);
  std::vector<RankInput> in = {{"a", &comms[0]}, {"b", &comms[1]}, {"c", &comms[2]}};
  EXPECT_THAT(CheckRankIdentities(in),
              ElementsAre(HasSubstr("do not overlap in time: b starts 5.000 s after a ends")));
  // Half a second apart is within one job's start-up.
  comms[1].set_time_zero_ns(kSecondNs + kSecondNs / 2);
  EXPECT_THAT(CheckRankIdentities(in), IsEmpty());
}

TEST(RankIdentityChecksTest, ManyHostsAreShortened) {
  std::vector<RankComms> comms;
  for (int i = 0; i < 7; ++i) comms.push_back(Rank(i, i < 6 ? 64 : 8, 0));
  std::vector<RankInput> in;
  for (int i = 0; i < 7; ++i) in.push_back({"h" + std::to_string(i), &comms[i]});
  EXPECT_THAT(CheckRankIdentities(in),
              ElementsAre(HasSubstr("world size 64: h0, h1, h2, h3 and 2 more")));
}

}  // namespace
}  // namespace tbprof::views
