#include "src/capture/step_pattern.h"

#include "gtest/gtest.h"

namespace tbprof::capture {
namespace {

TEST(StepPatternTest, GlobAndStepNumbers) {
  EXPECT_TRUE(GlobMatch("ProfilerStep#*", "ProfilerStep#12"));
  EXPECT_FALSE(GlobMatch("ProfilerStep#*", "aten::mm"));
  EXPECT_TRUE(GlobMatch("*step?", "train_step1"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_EQ(StepNumberFromName("ProfilerStep#12"), 12);
  EXPECT_EQ(StepNumberFromName("train_step_7"), 7);
  EXPECT_EQ(StepNumberFromName("no digits"), -1);
  EXPECT_EQ(StepNumberFromName(nullptr), -1);
}

}  // namespace
}  // namespace tbprof::capture
