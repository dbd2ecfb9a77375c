#include "converters/views/common/time_intervals.h"

#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

TEST(TimeIntervalsTest, MergeSortsJoinsTouchingAndDropsEmpty) {
  std::vector<TimeInterval> v = {{50, 60}, {0, 10}, {10, 20}, {15, 18}, {30, 30}, {40, 35}};
  MergeIntervals(&v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].begin_ps, 0);
  EXPECT_EQ(v[0].end_ps, 20);
  EXPECT_EQ(v[1].begin_ps, 50);
  EXPECT_EQ(v[1].end_ps, 60);
}

TEST(TimeIntervalsTest, IntersectAndCovered) {
  const std::vector<TimeInterval> a = {{0, 10}, {20, 40}};
  const std::vector<TimeInterval> b = {{5, 25}, {35, 50}};
  const std::vector<TimeInterval> both = IntersectIntervals(a, b);
  ASSERT_EQ(both.size(), 3u);
  EXPECT_EQ(both[0].begin_ps, 5);
  EXPECT_EQ(both[0].end_ps, 10);
  EXPECT_EQ(both[1].begin_ps, 20);
  EXPECT_EQ(both[1].end_ps, 25);
  EXPECT_EQ(both[2].begin_ps, 35);
  EXPECT_EQ(both[2].end_ps, 40);
  EXPECT_EQ(CoveredPs(a, 5, 30), 5 + 10);
  EXPECT_EQ(CoveredPs(a, 40, 100), 0);
  EXPECT_EQ(CoveredPs({}, 0, 100), 0);
}

}  // namespace
}  // namespace tbprof::views
