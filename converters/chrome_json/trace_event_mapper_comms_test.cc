// record_param_comms args and distributedInfo kept as stats
// (trace_event_mapper_comms.cc, converters/common/collective_stats.h).
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/common/collective_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using ::testing::IsEmpty;

std::string DataPath(const std::string& name) {
  return absl::StrCat(TBPROF_SOURCE_DIR, "/testdata/chrome_json/", name);
}

// Stats rendered "i:<int64>" or "s:<string>" by name.
using Stats = std::map<std::string, std::string>;

std::string Render(const xplane::XStatVisitor& s) {
  if (s.kind() == xplane::StatKind::kInt64) return absl::StrCat("i:", s.IntValue());
  return absl::StrCat("s:", s.StrOrRefValue());
}

bool IsCommsStat(absl::string_view name) {
  for (absl::string_view s :
       {kStatCollectiveName, kStatInMsgNelems, kStatOutMsgNelems, kStatDtype, kStatGroupSize,
        kStatProcessGroupName, kStatProcessGroupDesc, kStatProcessGroupRanks, kStatCollectiveSeq,
        kStatInSplitSize, kStatOutSplitSize}) {
    if (name == s) return true;
  }
  return false;
}

// The collective stats of every record_param_comms event, in time order.
std::vector<Stats> ParamCommsStats(const xplane::XSpaceData& space) {
  std::vector<Stats> out;
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (host == nullptr) return out;
  xplane::XPlaneVisitor v(&space, host, xplane::SpaceBaseNs(space));
  v.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      if (e.name() != kParamCommsEventName) return;
      Stats& stats = out.emplace_back();
      e.ForEachStat([&](const xplane::XStatVisitor& s) {
        if (IsCommsStat(s.name())) stats[std::string(s.name())] = Render(s);
      });
    });
  });
  return out;
}

Stats TaskEnvStats(const xplane::XSpaceData& space) {
  Stats out;
  const xplane::Plane* env = xplane::FindPlaneWithName(space, xplane::kTaskEnvPlaneName);
  if (env == nullptr) return out;
  xplane::XPlaneVisitor v(&space, env, xplane::SpaceBaseNs(space));
  v.ForEachStat([&](const xplane::XStatVisitor& s) { out[std::string(s.name())] = Render(s); });
  return out;
}

TEST(TraceEventMapperCommsTest, ParamCommsArgsBecomeStats) {
  xplane::XSpaceData space;
  ASSERT_TRUE(ConvertChromeJsonToXSpace(DataPath("distributed/rank0.json"), {}, &space).ok());
  const std::vector<Stats> calls = ParamCommsStats(space);
  ASSERT_EQ(calls.size(), 2u);
  const Stats& ar = calls[0];
  EXPECT_EQ(ar.at("collective_name"), "s:allreduce");
  EXPECT_EQ(ar.at("in_msg_nelems"), "i:1000");
  EXPECT_EQ(ar.at("out_msg_nelems"), "i:1000");
  EXPECT_EQ(ar.at("dtype"), "s:Float");
  EXPECT_EQ(ar.at("group_size"), "i:2");
  EXPECT_EQ(ar.at("process_group_name"), "s:0");
  EXPECT_EQ(ar.at("process_group_desc"), "s:default_pg");
  EXPECT_EQ(ar.at("process_group_ranks"), "s:[0, 1]");
  EXPECT_EQ(ar.at("collective_seq"), "i:1");
  EXPECT_EQ(ar.at("in_split_size"), "s:[]");
  EXPECT_EQ(calls[1].at("collective_name"), "s:_allgather_base");
  EXPECT_EQ(calls[1].at("dtype"), "s:BFloat16");

  const Stats env = TaskEnvStats(space);
  EXPECT_EQ(env.at("distributed_rank"), "i:0");
  EXPECT_EQ(env.at("distributed_world_size"), "i:2");
  EXPECT_EQ(env.at("distributed_backend"), "s:nccl");
  EXPECT_EQ(env.count("profile_start_time"), 1u);  // Finalize()'s stats stay.
}

// Old PyTorch: record_param_comms without collective args gets no stats.
TEST(TraceEventMapperCommsTest, ArgumentlessParamCommsGetsNoStats) {
  xplane::XSpaceData space;
  ASSERT_TRUE(
      ConvertChromeJsonToXSpace(DataPath("distributed/rank1_no_metadata.json"), {}, &space).ok());
  const std::vector<Stats> calls = ParamCommsStats(space);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].count("collective_name"), 0u);
  EXPECT_EQ(calls[0].count("in_msg_nelems"), 0u);
}

// Odd values are skipped or kept as text, never fatal; a trace without
// distributedInfo gets no distributed stats.
TEST(TraceEventMapperCommsTest, OddValues) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/comms_odd.json");
  {
    std::ofstream out(path);
    out << R"({"traceEvents":[)"
        << R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":10,)"
        << R"("dur":5,"args":{"Collective name":["x"],"In msg nelems":"12",)"
        << R"("Out msg nelems":"many","Group size":null,"dtype":7,"Process Group Name":3,)"
        << R"("Seq":1.5}},)"
        << R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":20,)"
        << R"("dur":5,"args":[]},)"
        << R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":30,)"
        << R"("dur":5})"
        << "]}";
  }
  xplane::XSpaceData space;
  absl::StatusOr<ChromeJsonSummary> summary = ConvertChromeJsonToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->events_malformed, 0);
  const std::vector<Stats> calls = ParamCommsStats(space);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].count("collective_name"), 0u);     // An array.
  EXPECT_EQ(calls[0].at("in_msg_nelems"), "i:12");      // A quoted number.
  EXPECT_EQ(calls[0].count("out_msg_nelems"), 0u);      // Not a number.
  EXPECT_EQ(calls[0].count("group_size"), 0u);          // null.
  EXPECT_EQ(calls[0].at("dtype"), "s:7");               // A number kept as text.
  EXPECT_EQ(calls[0].at("process_group_name"), "s:3");  // PyTorch writes "0" or 0.
  EXPECT_EQ(calls[0].count("collective_seq"), 0u);      // Not an integer.
  EXPECT_THAT(calls[1], IsEmpty());
  EXPECT_THAT(calls[2], IsEmpty());
  const Stats env = TaskEnvStats(space);
  EXPECT_EQ(env.count("distributed_rank"), 0u);
  EXPECT_EQ(env.count("distributed_world_size"), 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tbprof::converters
