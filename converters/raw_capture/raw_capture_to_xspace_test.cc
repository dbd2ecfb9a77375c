#include "converters/raw_capture/raw_capture_to_xspace.h"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/capture/cupti_record_layout.h"
#include "src/capture/raw_capture_writer.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

namespace layout = capture::layout;
using ::testing::HasSubstr;
using xplane::StatType;

constexpr uint64_t kStart = 1700000000000000000ull;  // CUPTI ns at capture start
constexpr uint32_t kTid = 100;

// Builds a capture file record by record.
class CaptureBuilder {
 public:
  explicit CaptureBuilder(const std::string& name) {
    path_ = ::testing::TempDir() + "/raw_capture_to_xspace_" + std::to_string(getpid()) + "_" +
            name + ".tbcap";
    std::remove(path_.c_str());
    capture::CaptureHeader h;
    h.hostname = "gpuhost";
    h.pid = 42;
    h.start_cupti_ns = kStart;
    h.start_realtime_ns = kStart + 5;
    h.step_pattern = "ProfilerStep#*";
    h.flags = capture::kHeaderFlagNameIdsInRecords;
    h.kind_sizes = {{layout::kKindConcurrentKernel, sizeof(layout::KernelRecord)},
                    {layout::kKindMemcpy, sizeof(layout::MemcpyRecord)},
                    {layout::kKindMemset, sizeof(layout::MemsetRecord)},
                    {layout::kKindRuntime, sizeof(layout::ApiRecord)},
                    {layout::kKindDriver, sizeof(layout::ApiRecord)},
                    {layout::kKindMarker, sizeof(layout::MarkerRecord)},
                    {layout::kKindMarkerData, sizeof(layout::MarkerDataRecord)},
                    {layout::kKindSynchronization, sizeof(layout::SynchronizationRecord)},
                    {layout::kKindMemory2, sizeof(layout::MemoryRecord)},
                    {layout::kKindOverhead, sizeof(layout::OverheadRecord)}};
    int err = 0;
    writer_ = capture::RawCaptureWriter::Create(path_, h, &err);
    EXPECT_NE(writer_, nullptr) << err;
  }

  template <typename T>
  void Add(const T& record) {
    records_.append(reinterpret_cast<const char*>(&record), sizeof(record));
  }
  void FlushBuffer() {
    writer_->AppendActivityBuffer(0, records_.data(), records_.size());
    records_.clear();
  }
  capture::RawCaptureWriter* writer() { return writer_.get(); }
  // Writes the pending records and (optionally) the trailer.
  std::string Finish(bool trailer = true) {
    if (!records_.empty()) FlushBuffer();
    if (trailer) {
      capture::Trailer t;
      t.stop_cupti_ns = static_cast<int64_t>(kStart + 100000);
      t.end_reason = capture::EndReason::kStopped;
      writer_->Finish(t);
    }
    writer_.reset();
    return path_;
  }

 private:
  std::string path_;
  std::unique_ptr<capture::RawCaptureWriter> writer_;
  std::string records_;
};

layout::ApiRecord Api(uint32_t cbid, uint32_t corr, uint64_t start, uint64_t end) {
  layout::ApiRecord a{};
  a.kind = layout::kKindRuntime;
  a.cbid = cbid;
  a.start = kStart + start;
  a.end = kStart + end;
  a.thread_id = kTid;
  a.correlation_id = corr;
  return a;
}

layout::KernelRecord Kernel(uint32_t corr, uint64_t name, uint64_t start, uint64_t end) {
  layout::KernelRecord k{};
  k.kind = layout::kKindConcurrentKernel;
  k.registers_per_thread = 32;
  k.start = start == 0 ? 0 : kStart + start;
  k.end = end == 0 ? 0 : kStart + end;
  k.device_id = 0;
  k.context_id = 1;
  k.stream_id = 7;
  k.grid_x = 128, k.grid_y = 1, k.grid_z = 1;
  k.block_x = 256, k.block_y = 1, k.block_z = 1;
  k.static_shared_memory = 1024;
  k.correlation_id = corr;
  k.name = name;
  return k;
}

layout::MarkerRecord Marker(uint32_t flags, uint32_t id, uint64_t ts, uint64_t name) {
  layout::MarkerRecord m{};
  m.kind = layout::kKindMarker;
  m.flags = flags;
  m.timestamp = kStart + ts;
  m.id = id;
  m.object_kind = layout::kObjectThread;
  m.object_id.pt.thread_id = kTid;
  m.name = name;
  return m;
}

layout::MemoryRecord Memory(bool alloc, uint32_t corr, uint64_t ts, uint64_t bytes) {
  layout::MemoryRecord m{};
  m.kind = layout::kKindMemory2;
  m.memory_operation_type = alloc ? layout::kMemoryOpAllocation : layout::kMemoryOpRelease;
  m.memory_kind = layout::kMemoryDevice;
  m.correlation_id = corr;
  m.address = 0x7f0000000000;
  m.bytes = bytes;
  m.timestamp = kStart + ts;
  m.device_id = 0;
  return m;
}

capture::DeviceProperties H100() {
  capture::DeviceProperties d;
  d.ordinal = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  using capture::DeviceAttr;
  d.Set(DeviceAttr::kComputeCapabilityMajor, 9);
  d.Set(DeviceAttr::kComputeCapabilityMinor, 0);
  d.Set(DeviceAttr::kMultiprocessorCount, 132);
  d.Set(DeviceAttr::kClockRateKhz, 1980000);
  d.Set(DeviceAttr::kMemoryClockRateKhz, 2619000);
  d.Set(DeviceAttr::kMemoryBusWidthBits, 5120);
  d.Set(DeviceAttr::kTotalMemoryBytes, int64_t{80} << 30);
  d.Set(DeviceAttr::kMaxThreadsPerBlock, 1024);
  d.Set(DeviceAttr::kMaxThreadsPerMultiprocessor, 2048);
  d.Set(DeviceAttr::kMaxRegistersPerBlock, 65536);
  d.Set(DeviceAttr::kMaxRegistersPerMultiprocessor, 65536);
  d.Set(DeviceAttr::kWarpSize, 32);
  d.Set(DeviceAttr::kMaxSharedMemoryPerBlock, 49152);
  d.Set(DeviceAttr::kMaxSharedMemoryPerMultiprocessor, 233472);
  d.Set(DeviceAttr::kMaxSharedMemoryPerBlockOptin, 232448);
  d.Set(DeviceAttr::kReservedSharedMemoryPerBlock, 1024);
  d.Set(DeviceAttr::kMaxBlocksPerMultiprocessor, 32);
  return d;
}

// Events of one line as name -> visitor-read stats.
struct SeenEvent {
  std::string name;
  int64_t begin_ps = 0, duration_ps = 0;
  mutable std::map<std::string, std::string> stats;  // operator[] in checks
};

std::vector<SeenEvent> LineEvents(const xplane::XSpaceData& space, absl::string_view plane_name,
                                  absl::string_view line_name) {
  std::vector<SeenEvent> out;
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, plane_name);
  if (plane == nullptr) return out;
  xplane::XPlaneVisitor pv(&space, plane, xplane::SpaceBaseNs(space));
  pv.ForEachLine([&](const xplane::XLineVisitor& line) {
    if (line.name() != line_name) return;
    line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
      SeenEvent e;
      e.name = std::string(ev.name());
      e.begin_ps = ev.begin_ps();
      e.duration_ps = ev.duration_ps();
      ev.ForEachStat([&](const xplane::XStatVisitor& s) {
        e.stats[std::string(s.name())] = s.ToString();
      });
      out.push_back(e);
    });
  });
  return out;
}

const SeenEvent* Find(const std::vector<SeenEvent>& events, const std::string& name) {
  for (const SeenEvent& e : events) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST(RawCaptureToXSpaceTest, HostAndDeviceEventsWithStepsMemoryAndStats) {
  CaptureBuilder b("full");
  capture::StringEntry strings[] = {
      {2, "_Z6scale2Pfi"}, {3, "ProfilerStep#7"}, {4, "aten::mm"}};
  b.writer()->AppendStrings(strings, 3);
  b.writer()->AppendDeviceProperties(H100());
  b.writer()->AppendThreadNames({{kTid, "python"}});
  b.writer()->AppendCallbackNames({{/*domain=*/2, /*cbid=*/211, "cudaLaunchKernel_v7000"}});
  b.Add(Marker(layout::kFlagMarkerStart, /*id=*/1, /*ts=*/100, /*name=*/3));
  b.Add(Marker(layout::kFlagMarkerStart, /*id=*/2, /*ts=*/150, /*name=*/4));
  b.Add(Api(/*cbid=*/211, /*corr=*/5, /*start=*/200, /*end=*/300));
  b.Add(Memory(/*alloc=*/true, /*corr=*/5, /*ts=*/250, /*bytes=*/1 << 20));
  b.Add(Marker(layout::kFlagMarkerEnd, 2, 400, 0));
  b.FlushBuffer();  // the rest in a second buffer
  b.Add(Kernel(/*corr=*/5, /*name=*/2, /*start=*/1000, /*end=*/2000));
  b.Add(Kernel(/*corr=*/9, /*name=*/2, /*start=*/0, /*end=*/0));  // no timestamps
  layout::MemcpyRecord m{};
  m.kind = layout::kKindMemcpy;
  m.copy_kind = layout::kMemcpyHtoD;
  m.src_kind = layout::kMemoryPinned;
  m.dst_kind = layout::kMemoryDevice;
  m.bytes = 4096;
  m.start = kStart + 2100;
  m.end = kStart + 2200;
  m.context_id = 1;
  m.stream_id = 7;
  m.correlation_id = 6;
  b.Add(m);
  layout::MemsetRecord ms{};
  ms.kind = layout::kKindMemset;
  ms.bytes = 512;
  ms.memory_kind = layout::kMemoryDevice;
  ms.start = kStart + 2300;
  ms.end = kStart + 2310;
  ms.stream_id = 7;
  b.Add(ms);
  layout::SynchronizationRecord sync{};
  sync.kind = layout::kKindSynchronization;
  sync.type = 3;
  sync.start = kStart + 2400;
  sync.end = kStart + 2500;
  sync.context_id = 1;
  sync.stream_id = 7;
  b.Add(sync);
  b.Add(Memory(/*alloc=*/false, /*corr=*/77, /*ts=*/5000, /*bytes=*/1 << 20));
  b.Add(Marker(layout::kFlagMarkerEnd, 1, 9000, 0));
  std::string path = b.Finish();

  xplane::XSpaceData space;
  auto summary = ConvertRawCaptureToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->kernels, 1);
  EXPECT_EQ(summary->records_bad_time, 1);
  EXPECT_EQ(summary->step_roots, 1);
  EXPECT_EQ(summary->memory_events, 2);
  EXPECT_EQ(summary->syncs, 1);
  EXPECT_EQ(space.hostnames, std::vector<std::string>{"gpuhost"});
  EXPECT_THAT(space.warnings, ::testing::Contains(HasSubstr("out-of-window timestamps")));

  std::vector<SeenEvent> host = LineEvents(space, xplane::kHostThreadsPlaneName, "python (100)");
  const SeenEvent* step = Find(host, "ProfilerStep#7");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->stats["_r"], "1");
  EXPECT_EQ(step->stats["step_num"], "7");
  EXPECT_EQ(step->duration_ps, 8900 * 1000);
  const SeenEvent* launch = Find(host, "cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->stats["correlation_id"], "5");
  EXPECT_GE(launch->begin_ps, step->begin_ps);
  EXPECT_NE(Find(host, "aten::mm"), nullptr);
  const SeenEvent* alloc = Find(host, "MemoryAllocation");
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->stats["allocator_name"], "GPU_0_cuda");
  EXPECT_EQ(alloc->stats["bytes_allocated"], std::to_string(1 << 20));
  EXPECT_EQ(alloc->stats["requested_bytes"], std::to_string(1 << 20));
  // The free has no API record with its correlation id: "CUDA memory" line.
  std::vector<SeenEvent> mem = LineEvents(space, xplane::kHostThreadsPlaneName, "CUDA memory");
  ASSERT_EQ(mem.size(), 1u);
  EXPECT_EQ(mem[0].name, "MemoryDeallocation");
  EXPECT_EQ(mem[0].stats["bytes_allocated"], "0");
  EXPECT_EQ(mem[0].stats["peak_bytes_in_use"], std::to_string(1 << 20));

  std::vector<SeenEvent> stream = LineEvents(space, "/device:GPU:0", "Stream #7");
  const SeenEvent* kernel = Find(stream, "scale2(float*, int)");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->stats["correlation_id"], "5");
  EXPECT_THAT(kernel->stats["kernel_details"],
              HasSubstr("regs:32 static_shared:1024 dynamic_shared:0 grid:128,1,1 block:256,1,1"));
  EXPECT_THAT(kernel->stats["kernel_details"], HasSubstr("occ_pct:"));
  EXPECT_EQ(kernel->stats.count("theoretical_occupancy_pct"), 1u);
  const SeenEvent* copy = Find(stream, "MemcpyHToD");
  ASSERT_NE(copy, nullptr);
  EXPECT_THAT(copy->stats["memcpy_details"], HasSubstr("num_bytes:4096"));
  const SeenEvent* memset = Find(stream, "Memset");
  ASSERT_NE(memset, nullptr);
  EXPECT_THAT(memset->stats["Memset_details"], HasSubstr("num_bytes:512"));
  // Sync waits are not device work: off the GPU plane (the plugin would
  // stretch steps with them), on the GPU's custom annotation plane.
  EXPECT_TRUE(LineEvents(space, "/device:GPU:0", "CUDA sync (stream 7)").empty());
  std::vector<SeenEvent> syncs =
      LineEvents(space, "/device:CUSTOM:GPU 0 annotations", "CUDA sync (stream 7)");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].name, "cuStreamSynchronize");

  const xplane::Plane* gpu = xplane::FindPlaneWithName(space, "/device:GPU:0");
  ASSERT_NE(gpu, nullptr);
  xplane::XPlaneVisitor pv(&space, gpu, 0);
  auto cores = pv.GetStat(StatType::kDevCapCoreCount);
  ASSERT_TRUE(cores.has_value());
  EXPECT_EQ(cores->IntOrUintValue(), 132);
}

TEST(RawCaptureToXSpaceTest, StepMarkersBecomeRootsWithoutNvtxSteps) {
  CaptureBuilder b("markers");
  for (int step = 0; step < 3; ++step) {
    capture::Marker m;
    m.kind = capture::MarkerKind::kStep;
    m.cupti_ts_ns = static_cast<int64_t>(kStart + 1000 * (step + 1));
    m.value = step;
    m.tid = kTid;
    b.writer()->AppendMarker(m);
  }
  b.Add(Api(/*cbid=*/13, /*corr=*/1, /*start=*/1500, /*end=*/1600));
  std::string path = b.Finish();
  xplane::XSpaceData space;
  auto summary = ConvertRawCaptureToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->step_roots, 3);
  std::vector<SeenEvent> host = LineEvents(space, xplane::kHostThreadsPlaneName, "thread 100");
  const SeenEvent* s0 = Find(host, "ProfilerStep#0");
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->duration_ps, 1000 * 1000);
  EXPECT_EQ(s0->stats["_r"], "1");
  EXPECT_NE(Find(host, "cudaRuntimeApi#13"), nullptr);  // no callback name recorded
}

TEST(RawCaptureToXSpaceTest, CollectionProblemsBecomeErrorsAndWarnings) {
  CaptureBuilder b("problems");
  b.writer()->AppendMessage({capture::MessageSeverity::kError, 35, "CUPTI error 35 (...)"});
  b.writer()->AppendDroppedRecords({static_cast<int64_t>(kStart), /*dropped_by_cupti=*/12,
                                    /*buffers_refused=*/3, /*discarded_bytes=*/0});
  b.Add(Kernel(1, 0, 100, 200));
  std::string path = b.Finish(/*trailer=*/false);
  xplane::XSpaceData space;
  auto summary = ConvertRawCaptureToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(space.errors, ::testing::ElementsAre("gpuhost: CUPTI error 35 (...)"));
  EXPECT_THAT(space.warnings,
              ::testing::Contains(HasSubstr("Detected GPU events dropped on gpuhost: 12")));
  EXPECT_THAT(space.warnings, ::testing::Contains(HasSubstr("has no trailer")));
  EXPECT_THAT(space.warnings, ::testing::Contains(HasSubstr("without recorded device")));
  std::vector<SeenEvent> stream = LineEvents(space, "/device:GPU:0", "Stream #7");
  ASSERT_EQ(stream.size(), 1u);
  EXPECT_EQ(stream[0].name, "<unnamed kernel>");
  EXPECT_THAT(stream[0].stats["kernel_details"], ::testing::Not(HasSubstr("occ_pct")));
}

TEST(RawCaptureToXSpaceTest, MissingFileIsNotFound) {
  xplane::XSpaceData space;
  EXPECT_EQ(ConvertRawCaptureToXSpace("/nonexistent.tbcap", {}, &space).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tbprof::converters
