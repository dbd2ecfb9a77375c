#include "tools/watch/watch_runs.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::cli {
namespace {

TEST(TorchTraceNameTest, ParsesTheHandlerNames) {
  std::optional<TorchTraceName> n =
      ParseTorchTraceName("worker0_step_12.1694128201545.pt.trace.json.gz");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->worker, "worker0_step_12");
  EXPECT_EQ(n->timestamp_ms, 1694128201545);
  // time.time_ns() (torch >= 1.13): ns.
  n = ParseTorchTraceName("node1.example.com_4242.1694128201545123456.pt.trace.json");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->worker, "node1.example.com_4242");
  EXPECT_EQ(n->timestamp_ms, 1694128201545);
  EXPECT_EQ(ParseTorchTraceName("w.1694128201.pt.trace.json")->timestamp_ms, 1694128201000);
  EXPECT_EQ(ParseTorchTraceName("w.1694128201545123.pt.trace.json")->timestamp_ms,
            1694128201545);
  EXPECT_FALSE(ParseTorchTraceName("trace.json").has_value());
  EXPECT_FALSE(ParseTorchTraceName("w.pt.trace.json").has_value());
  EXPECT_FALSE(ParseTorchTraceName(".123.pt.trace.json").has_value());
  EXPECT_FALSE(ParseTorchTraceName("w.12a.pt.trace.json").has_value());
  EXPECT_FALSE(ParseTorchTraceName("w.123.pt.trace.json.tmp").has_value());
}

TEST(TorchTraceNameTest, PlacementOrderIsByTimestampThenName) {
  std::vector<std::string> names = {"z.json", "b.2000.pt.trace.json", "a.3000.pt.trace.json",
                                    "c.1000.pt.trace.json", "a.json"};
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return PlacementLess(a, b); });
  EXPECT_THAT(names, ::testing::ElementsAre("c.1000.pt.trace.json", "b.2000.pt.trace.json",
                                            "a.3000.pt.trace.json", "a.json", "z.json"));
}

std::string Name(const std::string& worker, int64_t ms) {
  return absl::StrCat(worker, ".", ms, ".pt.trace.json.gz");
}

TEST(RunGrouperTest, OneRunPerCycleOneHostPerWorker) {
  RunGrouper grouper(/*window_ms=*/20'000,
                     [](int64_t ms) { return absl::StrCat("t", ms / 1000); });
  const int64_t t0 = 1'694'128'201'545;
  // Cycle 1: three workers within 12 ms.
  EXPECT_EQ(grouper.Place(Name("w0", t0)).run, "t1694128201");
  EXPECT_EQ(grouper.Place(Name("w0", t0)).host, "w0");
  EXPECT_EQ(grouper.Place(Name("w1", t0 + 11)).run, "t1694128201");
  EXPECT_EQ(grouper.Place(Name("w2", t0 + 12)).run, "t1694128201");
  // Cycle 2, 5 s later (inside the window): w0 is taken, a new run; w1 of
  // cycle 2 is nearer to cycle 2.
  EXPECT_EQ(grouper.Place(Name("w0", t0 + 5000)).run, "t1694128206");
  EXPECT_EQ(grouper.Place(Name("w1", t0 + 5003)).run, "t1694128206");
  // A late file of cycle 1 still finds its run.
  EXPECT_EQ(grouper.Place(Name("w3", t0 + 40)).run, "t1694128201");
  // Far apart: a new run; the same second as an earlier run gets "_2".
  EXPECT_EQ(grouper.Place(Name("w0", t0 + 60'000)).run, "t1694128261");
  EXPECT_EQ(grouper.Place(Name("w0", t0 + 60'100)).run, "t1694128261_2");
  // The same name, the same answer.
  EXPECT_EQ(grouper.Place(Name("w1", t0 + 11)).run, "t1694128201");
}

TEST(RunGrouperTest, OtherFilesGetARunOfTheirOwn) {
  RunGrouper grouper(20'000);
  RunPlacement p = grouper.Place("model.xplane.pb");
  EXPECT_EQ(p.run, "model");
  EXPECT_EQ(p.host, "");
  EXPECT_EQ(grouper.Place("model.json").run, "model_2");
  EXPECT_EQ(grouper.Place("my trace.json.gz").run, "my_trace");
  // Never a name that reads as a part run of another run (src/logdir/part_runs.h).
  EXPECT_EQ(grouper.Place("model_part2.json").run, "model-part2");
  EXPECT_EQ(grouper.Place("model_part.json").run, "model_part");
  EXPECT_EQ(grouper.Place("a_part1_part3.json.gz").run, "a_part1-part3");
  // Default run names are local time, as the plugin's.
  EXPECT_EQ(grouper.Place(Name("w0", 1'694'128'201'545)).run.size(),
            std::string("YYYY_MM_DD_HH_MM_SS").size());
}

}  // namespace
}  // namespace tbprof::cli
