#include "converters/rocprof/rocprof_json.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::converters {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<RocprofProfile> Parse(const std::string& text) {
  std::string padded = text + std::string(kRocprofJsonPadding, '\0');
  return ParseRocprofJson(absl::string_view(padded.data(), text.size()), padded.size(), "t.json");
}

TEST(LooksLikeRocprofJson, RecognizesTheFirstMember) {
  EXPECT_TRUE(LooksLikeRocprofJson("{\"rocprofiler-sdk-tool\": ["));
  EXPECT_TRUE(LooksLikeRocprofJson("\xEF\xBB\xBF \n{\n  \"rocprofiler-sdk-tool\":"));
  EXPECT_FALSE(LooksLikeRocprofJson("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeRocprofJson("[{\"rocprofiler-sdk-tool\": 1}]"));
  EXPECT_FALSE(LooksLikeRocprofJson("{\"rocprofiler-sdk-tools\": []}"));
  EXPECT_FALSE(LooksLikeRocprofJson(""));
}

TEST(ParseRocprofJson, ReadsWhatTheMappingNeeds) {
  absl::StatusOr<RocprofProfile> p = Parse(R"json({"rocprofiler-sdk-tool": [{
    "metadata": {"pid": 908, "node": {"hostname": "node1", "id": 0}},
    "agents": [{"id": {"handle": 7}, "type": 2, "gpu_index": 3, "name": "gfx950",
                "product_name": "AMD Instinct MI350X", "cu_count": 256, "wave_front_size": 64,
                "max_engine_clk_fcompute": 2200, "hive_id": 17332996360099338395,
                "mem_banks": [{"size_in_bytes": 100}, {"size_in_bytes": 28}]}],
    "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                   {"kind": "HIP_RUNTIME_API", "operations": ["hipA", "hipB"]}],
                "marker_api": [{"key": 5, "value": "step \"1\""}]},
    "kernel_symbols": [{"kernel_id": 1, "kernel_name": "_Z1kv.kd", "formatted_kernel_name": "",
                        "demangled_kernel_name": "k()", "sgpr_count": 16},
                       {"key": 2, "value": {"kernel_id": 2, "kernel_name": "m.kd"}}],
    "buffer_records": {
      "kernel_dispatch": [{"kind": 11, "operation": 2, "thread_id": 9,
        "correlation_id": {"internal": 4, "external": 0}, "start_timestamp": 100,
        "end_timestamp": 150, "stream_id": {"handle": 3},
        "dispatch_info": {"agent_id": {"handle": 7}, "queue_id": {"handle": 16}, "kernel_id": 1,
          "grid_size": {"x": 1024, "y": 2, "z": 1}, "workgroup_size": {"x": 256, "y": 1, "z": 1},
          "group_segment_size": 64, "private_segment_size": 8}}],
      "hip_api": [{"kind": 1, "operation": 1, "correlation_id": {"internal": 4},
                   "start_timestamp": 90, "end_timestamp": 99, "thread_id": 9}],
      "memory_allocation": [{"kind": 16, "operation": 1, "thread_id": 9, "start_timestamp": 1,
        "end_timestamp": 2, "agent_id": {"handle": 7}, "address": "0x00000000000000ff",
        "allocation_size": 4096}],
      "scratch_memory": [{}, {}]
    }}]})json");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->processes.size(), 1u);
  const RocprofProcess& proc = p->processes[0];
  EXPECT_EQ(proc.pid, 908);
  EXPECT_EQ(proc.hostname, "node1");
  ASSERT_EQ(proc.agents.size(), 1u);
  EXPECT_EQ(proc.agents[0].handle, 7u);
  EXPECT_EQ(proc.agents[0].gpu_index, 3);
  EXPECT_EQ(proc.agents[0].memory_bytes, 128);
  EXPECT_EQ(proc.agents[0].max_engine_clk_fcompute_mhz, 2200);
  EXPECT_EQ(proc.OperationName(1, 1), "hipB");
  EXPECT_EQ(proc.OperationName(1, 2), "");
  EXPECT_EQ(proc.KindName(1), "HIP_RUNTIME_API");
  EXPECT_EQ(proc.marker_messages.at(5), "step \"1\"");
  EXPECT_EQ(proc.kernel_symbols.at(1).name, "k()");
  EXPECT_EQ(proc.kernel_symbols.at(1).sgpr_count, 16);
  EXPECT_EQ(proc.kernel_symbols.at(2).name, "m.kd");
  ASSERT_EQ(proc.dispatches.size(), 1u);
  const RocprofDispatch& d = proc.dispatches[0];
  EXPECT_EQ(d.queue, 16u);
  EXPECT_EQ(d.stream, 3u);
  EXPECT_EQ(d.correlation, 4u);
  EXPECT_EQ(d.grid[0], 1024);
  EXPECT_EQ(d.grid[1], 2);
  EXPECT_EQ(d.workgroup[0], 256);
  EXPECT_EQ(d.lds_bytes, 64);
  EXPECT_EQ(d.scratch_bytes, 8);
  EXPECT_EQ(d.start_ns, 100);
  EXPECT_EQ(d.end_ns, 150);
  ASSERT_EQ(proc.api_calls.size(), 1u);
  EXPECT_EQ(proc.api_calls[0].operation, 1);
  ASSERT_EQ(proc.allocations.size(), 1u);
  EXPECT_EQ(proc.allocations[0].address, 0xffu);
  EXPECT_EQ(proc.allocations[0].bytes, 4096u);
  EXPECT_EQ(proc.records_skipped, 2);
}

TEST(ParseRocprofJson, AnotherShapeIsOneLineWithThePlace) {
  absl::StatusOr<RocprofProfile> p = Parse(R"json({"traceEvents": []})json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("t.json"));
  EXPECT_THAT(p.status().message(), HasSubstr("rocprofiler-sdk-tool"));

  p = Parse(R"json({"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [
      {"start_timestamp": 1, "end_timestamp": 2, "dispatch_info": {"kernel_id": 1}},
      {"start_timestamp": 1, "dispatch_info": {"kernel_id": 1}}]}}]})json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("buffer_records.kernel_dispatch[1]"));
  EXPECT_THAT(p.status().message(), HasSubstr("end_timestamp"));
  EXPECT_THAT(p.status().message(), HasSubstr("at byte "));

  p = Parse(
      R"json({"rocprofiler-sdk-tool": [{"agents": [{"id": {"handle": "x"}, "type": 2}]}]})json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("agents[0]"));

  p = Parse(R"json({"rocprofiler-sdk-tool": {"agents": []}})json");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("expected an array"));
}

TEST(ParseRocprofJson, TruncatedOrTrailingTextIsAnError) {
  const std::string whole =
      R"json({"rocprofiler-sdk-tool": [{"kernel_symbols": [{"kernel_id": 1,
                                                             "kernel_name": "k"}]}]})json";
  ASSERT_TRUE(Parse(whole).ok());
  for (size_t cut = 1; cut < whole.size(); ++cut) {
    EXPECT_FALSE(Parse(whole.substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(Parse(whole + " {}").ok());
}

}  // namespace
}  // namespace tbprof::converters
