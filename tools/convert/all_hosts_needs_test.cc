#include "tools/convert/all_hosts_needs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/convert/convert_split.h"

namespace tbprof::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

TEST(AllHostsNeedsTest, OneHostSaysNothing) {
  EXPECT_EQ(FormatAllHostsNeeds(EstimateAllHostsNeeds({100 * kMiB}), 8 * kGiB, "tb"), "");
}

TEST(AllHostsNeedsTest, PerHostNeedsDoNotGrowWithTheHosts) {
  AllHostsNeeds eight = EstimateAllHostsNeeds(std::vector<uint64_t>(8, 3 * kMiB));
  AllHostsNeeds many = EstimateAllHostsNeeds(std::vector<uint64_t>(1024, 3 * kMiB));
  EXPECT_EQ(eight.largest_host_bytes, EstimateXprofPeakBytes(3 * kMiB));
  EXPECT_EQ(many.largest_host_bytes, eight.largest_host_bytes);
  EXPECT_EQ(many.overview_bytes, eight.overview_bytes);
  EXPECT_EQ(many.trace_viewer_bytes, 1024 * 3 * kMiB * 12 + 100 * kMiB);
  EXPECT_FALSE(eight.trace_json_too_large);
  EXPECT_TRUE(many.trace_json_too_large);  // 3 GiB of files, ~11.4 GiB of JSON.
}

TEST(AllHostsNeedsTest, SaysWhatCannotOpenAndWhereTheCrossRankViewIs) {
  // 1,024 ranks of 250 MiB each: each host fits 8 GiB; all hosts cannot.
  std::string text =
      FormatAllHostsNeeds(EstimateAllHostsNeeds(std::vector<uint64_t>(1024, 250 * kMiB)),
                          8 * kGiB, "tb");
  EXPECT_THAT(text, HasSubstr("this run of 1024 hosts (250.0 GiB of xplane.pb)"));
  EXPECT_THAT(text, HasSubstr("one host's tools need up to ~7.4 GiB;"));
  EXPECT_THAT(text, HasSubstr("cannot open at any memory size"));
  EXPECT_THAT(text, HasSubstr("tbprof report tb (its distributed view"));
  // 8 small ranks: everything opens.
  text = FormatAllHostsNeeds(EstimateAllHostsNeeds(std::vector<uint64_t>(8, 150'000)), 8 * kGiB,
                             "tb");
  EXPECT_THAT(text, Not(HasSubstr("cannot")));
  EXPECT_THAT(text, Not(HasSubstr("over the budget")));
  // Over the budget but under the JSON limit.
  text = FormatAllHostsNeeds(EstimateAllHostsNeeds(std::vector<uint64_t>(4, 100 * kMiB)),
                             4 * kGiB, "tb");
  EXPECT_THAT(text, HasSubstr("over the budget: pick one host in the trace viewer"));
}

}  // namespace
}  // namespace tbprof::cli
