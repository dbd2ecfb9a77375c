#include "converters/views/distributed/collective_matching.h"

#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

constexpr int64_t kUs = 1'000'000;

tbprof::CollectiveCall Call(int64_t begin_us, int64_t duration_us, int64_t seq, int64_t step,
                            const std::string& group = "0") {
  tbprof::CollectiveCall c;
  c.set_kind("all_reduce");
  c.set_message_bytes(4000);
  c.set_begin_ps(begin_us * kUs);
  c.set_duration_ps(duration_us * kUs);
  c.set_seq(seq);
  c.set_step_num(step);
  c.set_process_group(group);
  return c;
}

tbprof::RankComms Rank(std::vector<tbprof::CollectiveCall> calls, bool profile_span = false) {
  tbprof::RankComms r;
  r.set_time_zero_known(true);
  r.set_steps_from_profile_span(profile_span);
  for (auto& c : calls) *r.add_collectives() = std::move(c);
  return r;
}

// Rank 1's profile starts one collective later: sequence numbers still pair
// the right calls.
TEST(CollectiveMatchingTest, BySequenceNumber) {
  const tbprof::RankComms a = Rank({Call(0, 5, 1, 1), Call(10, 5, 2, 1), Call(20, 5, 3, 2)});
  const tbprof::RankComms b = Rank({Call(12, 3, 2, 1), Call(20, 5, 3, 2)});
  const CollectiveMatching m = MatchCollectives({&a, &b});
  EXPECT_EQ(m.instances, 2);
  EXPECT_EQ(m.calls[0][0].instance, -1);
  EXPECT_EQ(m.calls[0][1].instance, m.calls[1][0].instance);
  EXPECT_EQ(m.calls[0][1].sync_ps, 2 * kUs);  // 12 - 10.
  EXPECT_EQ(m.calls[0][1].transfer_ps, 3 * kUs);
  EXPECT_EQ(m.calls[0][1].latency_ps, 3 * kUs);
  EXPECT_EQ(m.calls[1][0].sync_ps, 0);
  // Seq 3 starts together: the first rank counts as last to arrive.
  EXPECT_EQ(m.last_arrivals[0], 1);
  EXPECT_EQ(m.last_arrivals[1], 1);
  EXPECT_EQ(m.others_waited_ps[1], 2 * kUs);
  EXPECT_EQ(m.others_waited_ps[0], 0);
}

// Without sequence numbers: the k-th call of the group in each step; calls
// outside the analysed steps are left unmatched.
TEST(CollectiveMatchingTest, ByOrderWithinSteps) {
  const tbprof::RankComms a =
      Rank({Call(0, 5, -1, -1, ""), Call(10, 5, -1, 5, ""), Call(20, 5, -1, 5, "")});
  const tbprof::RankComms b = Rank({Call(11, 4, -1, 5, ""), Call(24, 1, -1, 5, "")});
  const CollectiveMatching m = MatchCollectives({&a, &b});
  EXPECT_EQ(m.instances, 2);
  EXPECT_EQ(m.calls[0][0].instance, -1);
  EXPECT_EQ(m.calls[0][1].sync_ps, 1 * kUs);
  EXPECT_EQ(m.calls[0][2].sync_ps, 4 * kUs);
  EXPECT_EQ(m.calls[0][2].transfer_ps, 1 * kUs);
  EXPECT_EQ(m.last_arrivals[1], 2);
  EXPECT_EQ(m.others_waited_ps[1], 5 * kUs);
}

// No steps anywhere: order in the profile.
TEST(CollectiveMatchingTest, ByOrderWithoutSteps) {
  const tbprof::RankComms a = Rank({Call(0, 5, -1, -1, "")}, true);
  const tbprof::RankComms b = Rank({Call(1, 4, -1, -1, "")}, true);
  const CollectiveMatching m = MatchCollectives({&a, &b});
  EXPECT_EQ(m.instances, 1);
  EXPECT_EQ(m.calls[0][0].sync_ps, 1 * kUs);
}

// Different groups never match; one rank alone is no match.
TEST(CollectiveMatchingTest, GroupsAreSeparate) {
  const tbprof::RankComms a = Rank({Call(0, 5, 1, 1, "0")});
  const tbprof::RankComms b = Rank({Call(0, 5, 1, 1, "1")});
  const CollectiveMatching m = MatchCollectives({&a, &b});
  EXPECT_EQ(m.instances, 0);
  EXPECT_EQ(m.invalid_instances, 0);
}

}  // namespace
}  // namespace tbprof::views
