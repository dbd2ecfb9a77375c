// Writes the seed corpora of the xspace and raw_capture fuzz targets
// (tests/fuzz/corpus/{xspace,raw_capture}/), each seed < 100 KB:
//   xspace:      the XSpace converted from every chrome_json seed; planes cut
//                out of the real TF and JAX files in ../shared/testdata/xspace
//                (a few lines and events each, unreferenced metadata dropped);
//                the XSpace of the synthetic raw capture below.
//   raw_capture: a synthetic capture written by RawCaptureWriter (kernels,
//                memcpy, memset, sync, runtime API, NVTX step ranges, memory
//                records, device properties, strings, thread and callback
//                names, trailer), the same without trailer, and cut mid-chunk;
//                each in both modes of the target (first byte 0: as given,
//                1: CRCs recomputed).
// Not part of the build's default targets; run by hand after changing a
// reader:  make_fuzz_seeds <repo root> <shared testdata dir>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/raw_capture/raw_capture_to_xspace.h"
#include "proto/xplane.pb.h"
#include "src/capture/cupti_record_layout.h"
#include "src/capture/raw_capture_writer.h"
#include "src/xplane/xspace_io.h"

namespace tbprof::fuzz {
namespace {

namespace layout = capture::layout;
namespace pb = tensorflow::profiler;

constexpr size_t kMaxSeedBytes = 100 * 1000;
constexpr uint64_t kStart = 1700000000000000000ull;
constexpr uint32_t kTid = 4242;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool WriteSeed(const std::string& path, const std::string& bytes) {
  if (bytes.size() > kMaxSeedBytes) {
    std::fprintf(stderr, "skipped %s: %zu bytes\n", path.c_str(), bytes.size());
    return false;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  std::fprintf(stderr, "wrote %s: %zu bytes\n", path.c_str(), bytes.size());
  return true;
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    ::closedir(d);
  }
  return names;
}

// ---- xspace seeds ------------------------------------------------------------

void XSpacesFromJsonSeeds(const std::string& corpus) {
  for (const std::string& name : FilesIn(corpus + "/chrome_json")) {
    xplane::XSpaceData space;
    converters::ChromeJsonOptions options;
    auto summary = converters::ConvertChromeJsonToXSpace(
        absl::StrCat(corpus, "/chrome_json/", name), options, &space);
    if (!summary.ok()) continue;
    WriteSeed(absl::StrCat(corpus, "/xspace/from_json_", name, ".xplane.pb"),
              xplane::SerializeXSpaceData(space));
  }
}

// Keeps `max_lines` lines of `max_events` events each and only the event
// metadata they (or the plane's own stats) refer to.
void TrimPlane(pb::XPlane* plane, int max_lines, int max_events) {
  while (plane->lines_size() > max_lines) plane->mutable_lines()->RemoveLast();
  std::set<int64_t> used;
  for (pb::XLine& line : *plane->mutable_lines()) {
    while (line.events_size() > max_events) line.mutable_events()->RemoveLast();
    for (const pb::XEvent& event : line.events()) used.insert(event.metadata_id());
  }
  std::vector<int64_t> drop;
  for (const auto& [id, metadata] : plane->event_metadata()) {
    if (!used.count(id)) drop.push_back(id);
  }
  for (int64_t id : drop) plane->mutable_event_metadata()->erase(id);
  // Stat metadata: those named by a kept stat, or by a ref value.
  std::set<int64_t> stats_used;
  auto note = [&](const pb::XStat& stat) {
    stats_used.insert(stat.metadata_id());
    if (stat.value_case() == pb::XStat::kRefValue) {
      stats_used.insert(static_cast<int64_t>(stat.ref_value()));
    }
  };
  for (const pb::XStat& stat : plane->stats()) note(stat);
  for (const auto& [id, metadata] : plane->event_metadata()) {
    for (const pb::XStat& stat : metadata.stats()) note(stat);
  }
  for (const pb::XLine& line : plane->lines()) {
    for (const pb::XEvent& event : line.events()) {
      for (const pb::XStat& stat : event.stats()) note(stat);
    }
  }
  drop.clear();
  for (const auto& [id, metadata] : plane->stat_metadata()) {
    if (!stats_used.count(id)) drop.push_back(id);
  }
  for (int64_t id : drop) plane->mutable_stat_metadata()->erase(id);
}

void XSpacesFromRealFiles(const std::string& corpus, const std::string& shared) {
  for (const std::string& name : FilesIn(shared + "/xspace")) {
    std::string bytes = ReadAll(absl::StrCat(shared, "/xspace/", name));
    pb::XSpace space;
    if (!space.ParseFromString(bytes)) continue;
    std::string stem = name.substr(0, name.find('.'));
    // Every plane alone, small.
    for (int i = 0; i < space.planes_size(); ++i) {
      pb::XSpace one;
      *one.add_planes() = space.planes(i);
      TrimPlane(one.mutable_planes(0), /*max_lines=*/3, /*max_events=*/12);
      *one.mutable_hostnames() = space.hostnames();
      std::string out;
      one.SerializeToString(&out);
      // Only the first few GPU planes: the rest look alike.
      if (i < 4) WriteSeed(absl::StrCat(corpus, "/xspace/", stem, "_plane", i, ".xplane.pb"), out);
    }
    // All planes together, tiny, so cross-plane logic (steps, correlation)
    // has something to chew on.
    pb::XSpace all = space;
    for (pb::XPlane& plane : *all.mutable_planes()) {
      TrimPlane(&plane, /*max_lines=*/2, /*max_events=*/4);
    }
    std::string out;
    all.SerializeToString(&out);
    WriteSeed(absl::StrCat(corpus, "/xspace/", stem, "_all_planes.xplane.pb"), out);
  }
}

// ---- raw capture seeds -----------------------------------------------------------

class Records {
 public:
  template <typename T>
  void Add(const T& record) {
    bytes_.append(reinterpret_cast<const char*>(&record), sizeof(record));
  }
  const std::string& bytes() const { return bytes_; }
  void Clear() { bytes_.clear(); }

 private:
  std::string bytes_;
};

capture::CaptureHeader Header() {
  capture::CaptureHeader h;
  h.hostname = "fuzzhost";
  h.pid = 7;
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
  return h;
}

capture::DeviceProperties Device(uint32_t ordinal) {
  capture::DeviceProperties d;
  d.ordinal = ordinal;
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
  d.Set(DeviceAttr::kMaxBlocksPerMultiprocessor, 32);
  return d;
}

// Two steps, each: NVTX step range, a launch, its kernel, a copy, a memset,
// a sync and an allocation; `steps` of them.
std::string WriteCapture(const std::string& path, bool trailer) {
  ::unlink(path.c_str());
  int err = 0;
  auto writer = capture::RawCaptureWriter::Create(path, Header(), &err);
  if (writer == nullptr) return "";
  capture::StringEntry strings[] = {{2, "_Z6scale2Pfi"},
                                    {3, "ProfilerStep#1"},
                                    {4, "ProfilerStep#2"},
                                    {5, "aten::mm"},
                                    {6, "ampere_h16816gemm_128x128"}};
  writer->AppendStrings(strings, 5);
  writer->AppendDeviceProperties(Device(0));
  writer->AppendThreadNames({{kTid, "python"}});
  writer->AppendCallbackNames({{/*domain=*/2, /*cbid=*/211, "cudaLaunchKernel_v7000"},
                               {/*domain=*/2, /*cbid=*/31, "cudaMemcpyAsync_v3020"}});
  Records r;
  for (uint32_t step = 0; step < 2; ++step) {
    const uint64_t t = 1000 + step * 100000;
    const uint32_t corr = 10 + step * 10;
    layout::MarkerRecord begin{};
    begin.kind = layout::kKindMarker;
    begin.flags = layout::kFlagMarkerStart;
    begin.timestamp = kStart + t;
    begin.id = 1 + step;
    begin.object_kind = layout::kObjectThread;
    begin.object_id.pt.thread_id = kTid;
    begin.name = 3 + step;
    r.Add(begin);
    layout::ApiRecord api{};
    api.kind = layout::kKindRuntime;
    api.cbid = 211;
    api.start = kStart + t + 100;
    api.end = kStart + t + 200;
    api.thread_id = kTid;
    api.correlation_id = corr;
    r.Add(api);
    layout::KernelRecord k{};
    k.kind = layout::kKindConcurrentKernel;
    k.registers_per_thread = 64;
    k.start = kStart + t + 1000;
    k.end = kStart + t + 9000;
    k.context_id = 1;
    k.stream_id = 7;
    k.grid_x = 132, k.grid_y = 1, k.grid_z = 1;
    k.block_x = 256, k.block_y = 1, k.block_z = 1;
    k.static_shared_memory = 1024;
    k.dynamic_shared_memory = 4096;
    k.correlation_id = corr;
    k.name = step == 0 ? 2 : 6;
    r.Add(k);
    api.cbid = 31;
    api.start = kStart + t + 300;
    api.end = kStart + t + 400;
    api.correlation_id = corr + 1;
    r.Add(api);
    layout::MemcpyRecord m{};
    m.kind = layout::kKindMemcpy;
    m.copy_kind = layout::kMemcpyHtoD;
    m.src_kind = layout::kMemoryPinned;
    m.dst_kind = layout::kMemoryDevice;
    m.bytes = 1 << 20;
    m.start = kStart + t + 9500;
    m.end = kStart + t + 12000;
    m.context_id = 1;
    m.stream_id = 7;
    m.correlation_id = corr + 1;
    r.Add(m);
    layout::MemsetRecord ms{};
    ms.kind = layout::kKindMemset;
    ms.bytes = 512;
    ms.memory_kind = layout::kMemoryDevice;
    ms.start = kStart + t + 12500;
    ms.end = kStart + t + 12600;
    ms.stream_id = 7;
    r.Add(ms);
    layout::SynchronizationRecord sync{};
    sync.kind = layout::kKindSynchronization;
    sync.type = 3;
    sync.start = kStart + t + 13000;
    sync.end = kStart + t + 14000;
    sync.context_id = 1;
    sync.stream_id = 7;
    r.Add(sync);
    layout::MemoryRecord mem{};
    mem.kind = layout::kKindMemory2;
    mem.memory_operation_type =
        step == 0 ? layout::kMemoryOpAllocation : layout::kMemoryOpRelease;
    mem.memory_kind = layout::kMemoryDevice;
    mem.correlation_id = corr;
    mem.address = 0x7f0000000000;
    mem.bytes = 1 << 22;
    mem.timestamp = kStart + t + 150;
    r.Add(mem);
    layout::MarkerRecord end{};
    end.kind = layout::kKindMarker;
    end.flags = layout::kFlagMarkerEnd;
    end.timestamp = kStart + t + 50000;
    end.id = 1 + step;
    end.object_kind = layout::kObjectThread;
    end.object_id.pt.thread_id = kTid;
    r.Add(end);
    writer->AppendActivityBuffer(0, r.bytes().data(), r.bytes().size());
    r.Clear();
  }
  if (trailer) {
    capture::Trailer t;
    t.stop_cupti_ns = static_cast<int64_t>(kStart + 300000);
    t.end_reason = capture::EndReason::kStopped;
    writer->Finish(t);
  }
  writer.reset();
  return ReadAll(path);
}

void RawCaptureSeeds(const std::string& corpus) {
  const std::string tmp = absl::StrCat("/tmp/tbprof_fuzz_seed_", ::getpid(), ".tbcap");
  std::string full = WriteCapture(tmp, /*trailer=*/true);
  std::string open = WriteCapture(tmp, /*trailer=*/false);
  ::unlink(tmp.c_str());
  if (full.empty()) {
    std::fprintf(stderr, "could not write a capture\n");
    return;
  }
  const std::string cut = full.substr(0, full.size() * 2 / 3 + 3);  // Mid-chunk.
  const std::string dir = corpus + "/raw_capture/";
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"full", full},
                                    {"no_trailer", open},
                                    {"cut_mid_chunk", cut}}) {
    WriteSeed(dir + name + "_fixcrc.bin", std::string(1, '\x01') + bytes);
    WriteSeed(dir + name + "_raw.bin", std::string(1, '\x00') + bytes);
  }
  // The same capture as an XSpace seed.
  auto reader = capture::RawCaptureReader::FromString(full, "seed");
  if (reader.ok()) {
    capture::RawCapture loaded = capture::LoadRawCaptureFrom(reader->get());
    xplane::XSpaceData space;
    converters::ConvertLoadedRawCaptureToXSpace(loaded, {}, &space);
    WriteSeed(corpus + "/xspace/from_raw_capture.xplane.pb", xplane::SerializeXSpaceData(space));
  }
}

}  // namespace
}  // namespace tbprof::fuzz

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <repo root> <shared testdata dir>\n", argv[0]);
    return 2;
  }
  const std::string corpus = std::string(argv[1]) + "/tests/fuzz/corpus";
  tbprof::fuzz::XSpacesFromJsonSeeds(corpus);
  tbprof::fuzz::XSpacesFromRealFiles(corpus, argv[2]);
  tbprof::fuzz::RawCaptureSeeds(corpus);
  return 0;
}
