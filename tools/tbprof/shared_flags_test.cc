#include "tools/tbprof/shared_flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::cli {
namespace {

using ::testing::HasSubstr;

TEST(SharedFlagsTest, ViewFlagsParseIntoOptions) {
  ViewFlags flags;
  FlagSet flag_set;
  AddViewFlags(&flag_set, &flags);
  std::vector<std::string> positional;
  ASSERT_TRUE(flag_set
                  .Parse({"a.json", "--json", "--breakdown=device-only", "--keep-all-steps",
                          "--steps", "none", "--max-events", "7", "--max-inflated-bytes", "2K",
                          "--max-memory-mb", "3", "--quiet", "--top", "4", "--width", "90"},
                         &positional)
                  .ok());
  EXPECT_EQ(positional, std::vector<std::string>{"a.json"});
  ViewInputsOptions options;
  ASSERT_TRUE(ApplyViewFlags(flags, &options).ok());
  EXPECT_TRUE(flags.json);
  EXPECT_EQ(options.views.steps.breakdown, views::Breakdown::kDeviceOnly);
  EXPECT_FALSE(options.views.steps.drop_incomplete_steps);
  EXPECT_EQ(options.load.steps, converters::StepsMode::kNone);
  EXPECT_EQ(options.load.max_events, 7);
  EXPECT_EQ(options.load.max_inflated_bytes, 2048u);
  EXPECT_EQ(options.load.max_memory_bytes, uint64_t{3} << 20);
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(TextWidth(flags), 90);
  EXPECT_TRUE(CheckWidthFlag(flags).ok());
}

TEST(SharedFlagsTest, DefaultsKeepTheAutomaticLimits) {
  ViewFlags flags;
  ViewInputsOptions options;
  ASSERT_TRUE(ApplyViewFlags(flags, &options).ok());
  EXPECT_EQ(options.views.steps.breakdown, views::Breakdown::kWithHost);
  EXPECT_TRUE(options.views.steps.drop_incomplete_steps);
  EXPECT_EQ(options.load.steps, converters::StepsMode::kAuto);
  EXPECT_EQ(options.load.max_inflated_bytes, kAutoLimit);
  EXPECT_EQ(options.load.max_memory_bytes, kAutoLimit);
  EXPECT_FALSE(options.quiet);
}

TEST(SharedFlagsTest, BadValuesNameTheFlagBreakdownFirst) {
  ViewFlags flags;
  flags.breakdown = "sideways";
  flags.load.steps = "sometimes";
  ViewInputsOptions options;
  absl::Status status = ApplyViewFlags(flags, &options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--breakdown: "));
  flags.breakdown = "with-host";
  status = ApplyViewFlags(flags, &options);
  EXPECT_THAT(status.message(), HasSubstr("--steps: "));
  LoadOptions load;
  EXPECT_THAT(ApplyLoadFlags(flags.load, &load).message(), HasSubstr("--steps: "));
  flags.width = 59;
  EXPECT_EQ(CheckWidthFlag(flags).message(), "--width must be at least 60");
}

}  // namespace
}  // namespace tbprof::cli
