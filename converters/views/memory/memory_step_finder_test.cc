#include "converters/views/memory/memory_step_finder.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views::memory_profile {
namespace {

// Roots out of begin order: [0, 100) step 7, nested [20, 40) step 8,
// [200, 300) without a step number (index 3 in begin order).
StepFinder Finder() {
  return StepFinder({{200, 300, kInvalidStepId}, {20, 40, 8}, {0, 100, 7}, {150, 160, 9}});
}

TEST(StepFinderTest, InnermostRootContainingTheTime) {
  const StepFinder steps = Finder();
  StepFinder::Cursor cursor;
  EXPECT_EQ(steps.StepAt(-1, &cursor), kInvalidStepId);
  EXPECT_EQ(steps.StepAt(0, &cursor), 7);
  EXPECT_EQ(steps.StepAt(20, &cursor), 8);
  EXPECT_EQ(steps.StepAt(39, &cursor), 8);
  EXPECT_EQ(steps.StepAt(40, &cursor), 7);  // Ends are exclusive.
  EXPECT_EQ(steps.StepAt(100, &cursor), kInvalidStepId);
  EXPECT_EQ(steps.StepAt(155, &cursor), 9);
  EXPECT_EQ(steps.StepAt(250, &cursor), 3);  // No step number: its place in begin order.
  EXPECT_EQ(steps.StepAt(300, &cursor), kInvalidStepId);
}

TEST(StepFinderTest, AnyOrderOfTimesWithOneCursor) {
  const StepFinder steps = Finder();
  StepFinder::Cursor cursor;
  const std::vector<std::pair<int64_t, int64_t>> queries = {
      {250, 3}, {30, 8}, {155, 9}, {5, 7}, {120, kInvalidStepId}, {21, 8}, {299, 3}};
  for (const auto& [time, step] : queries) {
    StepFinder::Cursor fresh;
    EXPECT_EQ(steps.StepAt(time, &cursor), step) << time;
    EXPECT_EQ(steps.StepAt(time, &fresh), step) << time;
  }
}

TEST(StepFinderTest, NoRoots) {
  const StepFinder steps({});
  StepFinder::Cursor cursor;
  EXPECT_EQ(steps.StepAt(0, &cursor), kInvalidStepId);
}

}  // namespace
}  // namespace tbprof::views::memory_profile
