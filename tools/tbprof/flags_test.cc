#include "tools/tbprof/flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Parsed {
  std::string logdir;
  bool force = false;
  int64_t max_events = 0;
  uint64_t max_bytes = 0;
  std::vector<std::string> positional;
};

absl::Status Parse(const std::vector<std::string>& args, Parsed* p) {
  FlagSet flags;
  flags.String("logdir", &p->logdir);
  flags.Bool("force", &p->force);
  flags.Int64("max-events", &p->max_events);
  flags.ByteSize("max-inflated-bytes", &p->max_bytes);
  return flags.Parse(args, &p->positional);
}

TEST(FlagSetTest, BothValueFormsAndPositionalsAnywhere) {
  Parsed p;
  ASSERT_TRUE(Parse({"a.json", "--logdir", "tb", "b.json", "--max-events=10", "--force"}, &p).ok());
  EXPECT_EQ(p.logdir, "tb");
  EXPECT_TRUE(p.force);
  EXPECT_EQ(p.max_events, 10);
  EXPECT_THAT(p.positional, ElementsAre("a.json", "b.json"));
}

TEST(FlagSetTest, DoubleDashEndsFlags) {
  Parsed p;
  ASSERT_TRUE(Parse({"--logdir=x", "--", "--force", "-"}, &p).ok());
  EXPECT_FALSE(p.force);
  EXPECT_THAT(p.positional, ElementsAre("--force", "-"));
}

TEST(FlagSetTest, BoolAcceptsExplicitValue) {
  Parsed p;
  ASSERT_TRUE(Parse({"--force=false"}, &p).ok());
  EXPECT_FALSE(p.force);
  EXPECT_EQ(Parse({"--force=maybe"}, &p).code(), absl::StatusCode::kInvalidArgument);
}

TEST(FlagSetTest, Errors) {
  Parsed p;
  absl::Status unknown = Parse({"--nope"}, &p);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), HasSubstr("--nope"));
  EXPECT_THAT(Parse({"--logdir"}, &p).message(), HasSubstr("needs a value"));
  EXPECT_THAT(Parse({"--max-events=-3"}, &p).message(), HasSubstr("non-negative"));
  EXPECT_THAT(Parse({"--max-events", "ten"}, &p).message(), HasSubstr("'ten'"));
  EXPECT_THAT(Parse({"-x"}, &p).message(), HasSubstr("'-x'"));
}

TEST(FlagSetTest, ByteSizes) {
  Parsed p;
  ASSERT_TRUE(Parse({"--max-inflated-bytes=512M"}, &p).ok());
  EXPECT_EQ(p.max_bytes, 512ull << 20);
  EXPECT_EQ(*ParseByteSize("123"), 123u);
  EXPECT_EQ(*ParseByteSize("100B"), 100u);
  EXPECT_EQ(*ParseByteSize("64k"), 64u << 10);
  EXPECT_EQ(*ParseByteSize("4GiB"), 4ull << 30);
  EXPECT_EQ(*ParseByteSize("4GB"), 4ull << 30);
  EXPECT_EQ(*ParseByteSize("2T"), 2ull << 40);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("G").ok());
  EXPECT_FALSE(ParseByteSize("5X").ok());
  EXPECT_FALSE(ParseByteSize("99999999999999999999").ok());
  EXPECT_FALSE(ParseByteSize("999999999999T").ok());
}

TEST(WantsHelpTest, OnlyBeforeDoubleDash) {
  EXPECT_TRUE(WantsHelp({"a", "--help"}));
  EXPECT_TRUE(WantsHelp({"-h"}));
  EXPECT_FALSE(WantsHelp({"a", "--", "--help"}));
  EXPECT_FALSE(WantsHelp({}));
}

}  // namespace
}  // namespace tbprof::cli
