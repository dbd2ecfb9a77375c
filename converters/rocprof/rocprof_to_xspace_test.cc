#include "converters/rocprof/rocprof_to_xspace.h"

#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One CPU agent, two GPUs (gpu_index 0 and 1), HIP strings, a marker message.
constexpr char kPrefix[] = R"json({"rocprofiler-sdk-tool": [{
  "metadata": {"pid": 5, "node": {"hostname": "mi350"}},
  "agents": [
    {"id": {"handle": 100}, "type": 1, "name": "EPYC", "gpu_index": -1},
    {"id": {"handle": 101}, "type": 2, "gpu_index": 0, "name": "gfx950",
     "product_name": "AMD Instinct MI350X", "cu_count": 256, "wave_front_size": 64,
     "max_engine_clk_fcompute": 2200},
    {"id": {"handle": 102}, "type": 2, "gpu_index": 1, "name": "gfx950",
     "product_name": "AMD Instinct MI350X"}],
  "strings": {"buffer_records": [
      {"kind": "NONE", "operations": []},
      {"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", "hipLaunchKernel", "hipFree"]},
      {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA"]},
      {"kind": "MEMORY_COPY", "operations": ["NONE", "H2H", "H2D", "D2H", "D2D"]},
      {"kind": "MEMORY_ALLOCATION", "operations": ["MEMORY_ALLOCATION_NONE",
        "MEMORY_ALLOCATION_ALLOCATE", "MEMORY_ALLOCATION_VMEM_ALLOCATE",
        "MEMORY_ALLOCATION_FREE"]}],
    "marker_api": [{"key": 30, "value": "forward"}]},
  "kernel_symbols": [
    {"kernel_id": 1, "kernel_name": "_Z4gemmv.kd", "formatted_kernel_name": "gemm()",
     "group_segment_size": 1024, "sgpr_count": 40, "arch_vgpr_count": 64,
     "accum_vgpr_count": 32}],
  "buffer_records": {)json";

std::string Doc(const std::string& records) { return kPrefix + records + "}}]}"; }

std::string DispatchJson(int64_t start, int64_t end, int kernel_id, int agent, int queue,
                         int corr) {
  return "{\"kind\": 11, \"operation\": 2, \"thread_id\": 77, \"correlation_id\": {\"internal\": " +
         std::to_string(corr) + "}, \"start_timestamp\": " + std::to_string(start) +
         ", \"end_timestamp\": " + std::to_string(end) +
         ", \"dispatch_info\": {\"agent_id\": {\"handle\": " + std::to_string(agent) +
         "}, \"queue_id\": {\"handle\": " + std::to_string(queue) +
         "}, \"kernel_id\": " + std::to_string(kernel_id) +
         ", \"grid_size\": {\"x\": 1000, \"y\": 4, \"z\": 1}, \"workgroup_size\": {\"x\": 256, "
         "\"y\": 2, \"z\": 1}, \"group_segment_size\": 3072, \"private_segment_size\": 16}}";
}

struct Event {
  std::string name;
  int64_t begin_ps, duration_ps;
  std::map<std::string, std::string> stats;
};

// Events of `plane` by line name.
std::map<std::string, std::vector<Event>> Lines(const xplane::XSpaceData& space,
                                                absl::string_view plane_name) {
  std::map<std::string, std::vector<Event>> out;
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, plane_name);
  if (plane == nullptr) return out;
  xplane::XPlaneVisitor v(&space, plane, xplane::SpaceBaseNs(space));
  v.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      Event ev{std::string(e.name()), e.begin_ps(), e.duration_ps(), {}};
      e.ForEachStat([&](const xplane::XStatVisitor& s) {
        ev.stats[std::string(s.name())] = s.ToString();
      });
      out[std::string(line.name())].push_back(ev);
    });
  });
  return out;
}

std::vector<std::string> PlaneNames(const xplane::XSpaceData& space) {
  std::vector<std::string> names;
  for (const xplane::Plane& p : space.planes) names.emplace_back(space.strings.Get(p.name));
  return names;
}

TEST(RocprofToXSpace, KernelsGoToTheirGpuAndQueueWithKernelDetails) {
  xplane::XSpaceData space;
  absl::StatusOr<RocprofSummary> s = ConvertRocprofJsonTextToXSpace(
      Doc("\"kernel_dispatch\": [" + DispatchJson(1000, 3000, 1, 101, 16, 7) + ", " +
          DispatchJson(4000, 4500, 9, 101, 16, 8) + ", " + DispatchJson(5000, 5100, 1, 100, 1, 9) +
          "], \"hip_api\": [{\"kind\": 1, \"operation\": 1, \"correlation_id\": {\"internal\": 7},"
          " \"start_timestamp\": 900, \"end_timestamp\": 990, \"thread_id\": 77}]"),
      "doc", &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->kernels, 2);
  EXPECT_EQ(s->api_events, 1);
  EXPECT_EQ(s->gpus, 2);
  EXPECT_EQ(s->kernels_unknown_agent, 1);
  EXPECT_EQ(s->kernels_unknown_symbol, 1);
  EXPECT_EQ(s->hostname, "mi350");
  // CPU agents are not GPUs; both GPU agents are planes.
  EXPECT_THAT(PlaneNames(space), testing::IsSupersetOf({"/host:CPU", "/device:GPU:0",
                                                        "/device:GPU:1"}));
  EXPECT_EQ(xplane::FindPlaneWithName(space, "/device:GPU:2"), nullptr);
  auto gpu = Lines(space, "/device:GPU:0");
  ASSERT_EQ(gpu.count("Queue #16"), 1u);
  std::vector<Event>& q = gpu["Queue #16"];
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].name, "gemm()");
  EXPECT_EQ(q[0].duration_ps, 2000000);
  EXPECT_EQ(q[1].begin_ps - q[0].begin_ps, 3000000);
  EXPECT_EQ(q[0].stats["correlation_id"], "7");
  // 1000 work-items in groups of 256 -> 4 workgroups; 3072 LDS - 1024 static.
  EXPECT_EQ(q[0].stats["kernel_details"],
            "regs:96 static_shared:1024 dynamic_shared:2048 grid:4,2,1 block:256,2,1 sgpr:40 "
            "agpr:32 scratch:16");
  EXPECT_EQ(q[1].name, "kernel_id 9 (no symbol)");
  auto host = Lines(space, "/host:CPU");
  ASSERT_EQ(host["Thread 77"].size(), 1u);
  EXPECT_EQ(host["Thread 77"][0].name, "hipLaunchKernel");
  EXPECT_EQ(host["Thread 77"][0].stats["correlation_id"], "7");
  EXPECT_EQ(host["Thread 77"][0].duration_ps, 90000);
  EXPECT_THAT(space.hostnames, ElementsAre("mi350"));
  std::string warnings;
  for (const std::string& w : space.warnings) warnings += w + "\n";
  EXPECT_THAT(warnings, HasSubstr("1 kernel dispatches on agents that are not GPU agents"));
  EXPECT_THAT(warnings, HasSubstr("kernel_id missing from kernel_symbols"));
}

TEST(RocprofToXSpace, CopiesAllocationsAndMarkers) {
  xplane::XSpaceData space;
  absl::StatusOr<RocprofSummary> s = ConvertRocprofJsonTextToXSpace(
      Doc(R"json("memory_copy": [
          {"kind": 3, "operation": 2, "thread_id": 77, "correlation_id": {"internal": 1},
           "start_timestamp": 10, "end_timestamp": 20, "src_agent_id": {"handle": 100},
           "dst_agent_id": {"handle": 102}, "bytes": 4096},
          {"kind": 3, "operation": 4, "thread_id": 77, "correlation_id": {"internal": 2},
           "start_timestamp": 30, "end_timestamp": 40, "src_agent_id": {"handle": 101},
           "dst_agent_id": {"handle": 102}, "bytes": 8},
          {"kind": 3, "operation": 1, "thread_id": 77, "correlation_id": {"internal": 3},
           "start_timestamp": 30, "end_timestamp": 40, "src_agent_id": {"handle": 100},
           "dst_agent_id": {"handle": 100}, "bytes": 8}],
        "memory_allocation": [
          {"kind": 4, "operation": 3, "thread_id": 77, "start_timestamp": 60,
           "end_timestamp": 61, "agent_id": {"handle": 101}, "address": "0x10",
           "allocation_size": 0},
          {"kind": 4, "operation": 1, "thread_id": 77, "start_timestamp": 50,
           "end_timestamp": 51, "agent_id": {"handle": 101}, "address": "0x10",
           "allocation_size": 1000}],
        "marker_api": [{"kind": 2, "operation": 1, "correlation_id": {"internal": 30},
           "start_timestamp": 5, "end_timestamp": 100, "thread_id": 77}],
        "hip_api": [{"kind": 1, "operation": 1, "correlation_id": {"internal": 31},
           "start_timestamp": 70, "end_timestamp": 60, "thread_id": 77}])json"),
      "doc", &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->memory_copies, 2);
  EXPECT_EQ(s->copies_without_gpu, 1);
  EXPECT_EQ(s->memory_events, 2);
  EXPECT_EQ(s->markers, 1);
  EXPECT_EQ(s->records_bad_time, 1);
  auto gpu1 = Lines(space, "/device:GPU:1");
  ASSERT_EQ(gpu1["Memory copies"].size(), 1u);
  EXPECT_EQ(gpu1["Memory copies"][0].name, "MemcpyHToD");
  EXPECT_EQ(gpu1["Memory copies"][0].stats["memcpy_details"],
            "num_bytes:4096 kind_src:host kind_dst:device");
  auto gpu0 = Lines(space, "/device:GPU:0");
  ASSERT_EQ(gpu0["Memory copies"].size(), 1u);
  EXPECT_EQ(gpu0["Memory copies"][0].name, "MemcpyPToP");
  auto host = Lines(space, "/host:CPU");
  std::vector<Event>& t = host["Thread 77"];
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "forward");
  EXPECT_EQ(t[1].name, "MemoryAllocation");
  EXPECT_EQ(t[1].stats["bytes_allocated"], "1000");
  EXPECT_EQ(t[1].stats["allocator_name"], "GPU_0_hip");
  EXPECT_EQ(t[2].name, "MemoryDeallocation");
  EXPECT_EQ(t[2].stats["bytes_allocated"], "0");
  EXPECT_EQ(t[2].stats["requested_bytes"], "1000");
  EXPECT_EQ(t[2].stats["peak_bytes_in_use"], "1000");
}

TEST(RocprofToXSpace, KernelIdsArePerProcess) {
  auto process = [](const std::string& name, int64_t start) {
    return R"json({"agents": [{"id": {"handle": 1}, "type": 2, "gpu_index": 0}],
      "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": ")json" + name + R"json("}],
      "buffer_records": {"kernel_dispatch": [{"start_timestamp": )json" + std::to_string(start) +
           R"json(, "end_timestamp": )json" + std::to_string(start + 10) +
           R"json(, "dispatch_info": {"agent_id": {"handle": 1}, "queue_id": {"handle": 2},
           "kernel_id": 1}}]}})json";
  };
  xplane::XSpaceData space;
  absl::StatusOr<RocprofSummary> s = ConvertRocprofJsonTextToXSpace(
      "{\"rocprofiler-sdk-tool\": [" + process("a_kernel", 100) + ", " +
          process("b_kernel", 200) + "]}",
      "doc", &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->processes, 2);
  std::vector<std::string> names;
  auto gpu = Lines(space, "/device:GPU:0");
  for (const Event& e : gpu["Queue #2"]) names.push_back(e.name);
  EXPECT_THAT(names, ElementsAre("a_kernel", "b_kernel"));
}

TEST(RocprofToXSpace, FileErrorsNameThePath) {
  xplane::XSpaceData space;
  absl::StatusOr<RocprofSummary> s =
      ConvertRocprofToXSpace("/nonexistent/x.json", RocprofOptions(), &space);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("/nonexistent/x.json"));
}

// The real MI350 export of ../shared/testdata (skipped without it).
TEST(RocprofToXSpace, RealMi350Export) {
  const std::string path =
      std::string(TBPROF_SHARED_TESTDATA) + "/rocprof/mi350_training_rocprofv3.json.gz";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) GTEST_SKIP() << "no " << path;
  xplane::XSpaceData space;
  absl::StatusOr<RocprofSummary> s = ConvertRocprofToXSpace(path, RocprofOptions(), &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->kernels, 43915);
  EXPECT_EQ(s->gpus, 8);  // Two CPU agents are not planes.
  EXPECT_EQ(s->api_events, 0);
  EXPECT_EQ(s->kernels_unknown_symbol, 0);
  EXPECT_EQ(s->records_bad_time, 0);
  EXPECT_EQ(s->hostname, "smci350-zts-gtu-c6-25");
  int64_t events = 0;
  for (const auto& [line, list] : Lines(space, "/device:GPU:0")) events += list.size();
  EXPECT_EQ(events, 43915);
}

}  // namespace
}  // namespace tbprof::converters
