#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Fixtures from testdata/memory_snapshot/make_fixtures.py (tests run from
// the source directory).
const std::string kDir = "testdata/memory_snapshot/";
constexpr int64_t kMiB = 1 << 20;

struct Converted {
  xplane::XSpaceData space;
  MemorySnapshotSummary summary;
};

Converted Convert(const std::string& name) {
  Converted c;
  absl::StatusOr<MemorySnapshotSummary> s =
      ConvertMemorySnapshotToXSpace(kDir + name, MemorySnapshotOptions(), &c.space);
  EXPECT_TRUE(s.ok()) << s.status();
  if (s.ok()) c.summary = std::move(*s);
  return c;
}

struct MemEvent {
  std::string name;
  std::string allocator;
  int64_t allocated = 0, reserved = 0, available = 0, peak = 0, size = 0;
  double fragmentation = -1;
  bool has_reserved = false, allocator_is_ref = false;
  std::string tf_op, stack, region;
};

std::vector<MemEvent> MemoryEvents(const xplane::XSpaceData& space, int64_t line_id) {
  std::vector<MemEvent> out;
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (plane == nullptr) return out;
  xplane::XPlaneVisitor pv(&space, plane, xplane::SpaceBaseNs(space));
  pv.ForEachLine([&](const xplane::XLineVisitor& line) {
    if (line.id() != line_id) return;
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      MemEvent m;
      m.name = std::string(e.name());
      e.ForEachStat([&](const xplane::XStatVisitor& s) {
        absl::string_view n = s.name();
        if (n == "allocator_name") {
          m.allocator = std::string(s.StrOrRefValue());
          m.allocator_is_ref = s.kind() == xplane::StatKind::kRef;
        }
        if (n == "bytes_allocated") m.allocated = s.IntValue();
        if (n == "bytes_reserved") {
          m.reserved = s.IntValue();
          m.has_reserved = true;
        }
        if (n == "fragmentation") m.fragmentation = s.DoubleValue();
        if (n == "bytes_available") m.available = s.IntValue();
        if (n == "peak_bytes_in_use") m.peak = s.IntValue();
        if (n == "allocation_bytes") m.size = s.IntValue();
        if (n == "tf_op") m.tf_op = std::string(s.StrOrRefValue());
        if (n == "region_type") m.region = std::string(s.StrOrRefValue());
        if (n == kStackStatName) m.stack = std::string(s.StrOrRefValue());
      });
      out.push_back(m);
    });
  });
  return out;
}

TEST(MemorySnapshotTest, SmallSnapshotAnalysis) {
  for (const char* name : {"small.p2.pickle", "small.p4.pickle", "small.p5.pickle",
                           "small.p4.pickle.gz", "pytorch_keys.p4.pickle"}) {
    SCOPED_TRACE(name);
    Converted c = Convert(name);
    const auto& devices = c.summary.analysis.devices;
    ASSERT_EQ(devices.size(), 2u);
    const memory_snapshot::DeviceMemory& d0 = devices[0];
    // Live before recording: 2 MiB freed in the trace, 1 MiB still live at dump.
    EXPECT_EQ(d0.initial_allocated_bytes, 3 * kMiB);
    EXPECT_EQ(d0.initial_reserved_bytes, 20 * kMiB);
    // 3 + 4 + 8 - 2 + 12 = 25 MiB right after the 12 MiB alloc (event 5).
    EXPECT_EQ(d0.peak_allocated_bytes, 25 * kMiB);
    EXPECT_EQ(d0.peak_event, 5);
    EXPECT_EQ(d0.reserved_at_peak_bytes, 40 * kMiB);
    EXPECT_EQ(d0.peak_reserved_bytes, 40 * kMiB);
    std::vector<int64_t> sizes;
    for (const auto& b : d0.live_at_peak) sizes.push_back(b.size / kMiB);
    EXPECT_THAT(sizes, ElementsAre(12, 8, 4, 1));
    EXPECT_TRUE(d0.live_at_peak[3].before_recording);
    // The pending free (record_stream) is still allocated at the end.
    EXPECT_EQ(d0.final_allocated_bytes, 9 * kMiB);
    EXPECT_EQ(d0.segment_active_bytes, 9 * kMiB);
    EXPECT_EQ(d0.segment_reserved_bytes, 40 * kMiB);
    EXPECT_EQ(d0.fragmentation_bytes, 31 * kMiB);
    EXPECT_EQ(d0.largest_free_block_bytes, 20 * kMiB);
    EXPECT_EQ(d0.ooms, 1);
    EXPECT_EQ(devices[1].peak_allocated_bytes, 3 * kMiB);
    EXPECT_TRUE(c.summary.analysis.has_times);
    ASSERT_EQ(c.summary.analysis.devices[0].live_at_peak.size(), 4u);
    EXPECT_THAT(c.summary.LiveAtPeakStack(0, 0),
                HasSubstr("c10/cuda/CUDACachingAllocator.cpp:1181:malloc\n"));

    std::vector<MemEvent> events = MemoryEvents(c.space, 0);
    // 2 blocks before recording + 3 allocs + 3 completed frees.
    ASSERT_EQ(events.size(), 8u);
    int64_t peak = 0;
    for (const MemEvent& e : events) {
      peak = std::max(peak, e.peak);
      EXPECT_EQ(e.allocator, "GPU_0_caching");
      // Written once as stat metadata, referred to by every event.
      EXPECT_TRUE(e.allocator_is_ref);
      // Missing means 0 to the plugin; not written, to keep events small.
      EXPECT_FALSE(e.has_reserved);
    }
    EXPECT_EQ(peak, 25 * kMiB);
    EXPECT_EQ(events[0].region, std::string(kBeforeRecordingRegion));
    EXPECT_EQ(events.back().name, "MemoryDeallocation");
    EXPECT_EQ(events.back().allocated, 9 * kMiB);
    EXPECT_EQ(events.back().available, 31 * kMiB);  // 40 MiB reserved.
    EXPECT_EQ(events.back().reserved, 0);
    // 31 / 40 MiB free in the segments, to within the 20-bit mantissa kept.
    EXPECT_NEAR(events.back().fragmentation, 31.0 / 40.0, 1e-6);
    EXPECT_THAT(events[2].tf_op, testing::MatchesRegex("/home/u/train.py:4[0-9]:step[0-9]"));
    EXPECT_THAT(events[2].stack, HasSubstr("torch/nn/modules/linear.py:125:forward\n"));
    EXPECT_THAT(c.space.warnings, testing::Contains(HasSubstr("1 out-of-memory")));
    // time_us is epoch microseconds: the profile starts at the first event.
    const xplane::Plane* env = xplane::FindPlaneWithName(c.space, "Task Environment");
    ASSERT_NE(env, nullptr);
    int64_t start_ns = 0;
    xplane::XPlaneVisitor(&c.space, env, 0).ForEachStat([&](const xplane::XStatVisitor& s) {
      if (s.name() == "profile_start_time") start_ns = s.IntValue();
    });
    EXPECT_EQ(start_ns, int64_t{1'700'000'000'000'007} * 1000);
  }
}

TEST(MemorySnapshotTest, WithoutTimesUsesEventOrder) {
  Converted c = Convert("no_time.p4.pickle");
  EXPECT_FALSE(c.summary.analysis.has_times);
  EXPECT_EQ(c.summary.analysis.devices[0].peak_allocated_bytes, 25 * kMiB);
  EXPECT_THAT(c.space.warnings, testing::Contains(HasSubstr("no time_us")));
}

TEST(MemorySnapshotTest, SegmentsOnly) {
  Converted c = Convert("segments_only.p4.pickle");
  ASSERT_EQ(c.summary.analysis.devices.size(), 2u);
  EXPECT_EQ(c.summary.analysis.devices[0].peak_allocated_bytes, 9 * kMiB);
  EXPECT_THAT(c.space.warnings, testing::Contains(HasSubstr("no device_traces")));
}

// The peak equals the maximum of the running sum computed by an independent
// Python script (testdata/memory_snapshot/running_peak.py) from the same
// pickle, read by Python's own pickle module.
TEST(MemorySnapshotTest, PeakEqualsIndependentRunningSum) {
  if (std::system("python3 -c 'import pickle' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 not available";
  }
  for (const char* name : {"small.p2.pickle", "small.p5.pickle", "random.p5.pickle",
                           "pytorch_keys.p4.pickle"}) {
    SCOPED_TRACE(name);
    std::string command = absl::StrCat("python3 ", kDir, "running_peak.py ", kDir, name);
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buffer[256];
    while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) out.append(buffer, n);
    ASSERT_EQ(::pclose(pipe), 0) << out;
    Converted c = Convert(name);
    std::map<int64_t, const memory_snapshot::DeviceMemory*> ours;
    for (const auto& d : c.summary.analysis.devices) ours[d.device] = &d;
    int lines = 0;
    for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      ASSERT_EQ(f.size(), 4u) << line;
      int64_t device, initial, peak, final_bytes;
      ASSERT_TRUE(absl::SimpleAtoi(f[0], &device) && absl::SimpleAtoi(f[1], &initial) &&
                  absl::SimpleAtoi(f[2], &peak) && absl::SimpleAtoi(f[3], &final_bytes));
      ASSERT_TRUE(ours.count(device)) << device;
      EXPECT_EQ(ours[device]->initial_allocated_bytes, initial);
      EXPECT_EQ(ours[device]->peak_allocated_bytes, peak);
      EXPECT_EQ(ours[device]->final_allocated_bytes, final_bytes);
      // And the peak the XSpace carries.
      int64_t xspace_peak = 0;
      for (const MemEvent& e : MemoryEvents(c.space, device)) {
        xspace_peak = std::max(xspace_peak, e.allocated);
      }
      EXPECT_EQ(xspace_peak, peak);
      ++lines;
    }
    EXPECT_GT(lines, 0);
  }
}

// Names go into XSpace string fields, which must be UTF-8: each byte that
// starts no valid sequence becomes U+FFFD (converters/common/utf8.h), the
// rest of the name is kept.
// The converter finds the peaks on a second thread while it writes the
// events (AnalyzeStartState, then FinishAnalysis): its analysis is the one
// AnalyzeSnapshot() gives in one go.
TEST(MemorySnapshotTest, TwoStepAnalysisEqualsAnalyzeSnapshot) {
  for (const char* name : {"small.p2.pickle", "small.p4.pickle", "small.p5.pickle",
                           "no_time.p4.pickle", "segments_only.p4.pickle",
                           "pytorch_keys.p4.pickle"}) {
    SCOPED_TRACE(name);
    Converted c = Convert(name);
    std::FILE* f = std::fopen((kDir + name).c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::string bytes;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) bytes.append(buffer, n);
    std::fclose(f);
    absl::StatusOr<memory_snapshot::Snapshot> snapshot =
        memory_snapshot::ReadMemorySnapshot(bytes, name);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    const memory_snapshot::SnapshotAnalysis want = memory_snapshot::AnalyzeSnapshot(*snapshot);
    const memory_snapshot::SnapshotAnalysis& got = c.summary.analysis;
    EXPECT_EQ(got.has_times, want.has_times);
    EXPECT_EQ(got.warnings, want.warnings);
    ASSERT_EQ(got.devices.size(), want.devices.size());
    for (size_t d = 0; d < want.devices.size(); ++d) {
      const memory_snapshot::DeviceMemory& g = got.devices[d];
      const memory_snapshot::DeviceMemory& w = want.devices[d];
      EXPECT_EQ(g.device, w.device);
      EXPECT_EQ(g.allocs, w.allocs);
      EXPECT_EQ(g.frees, w.frees);
      EXPECT_EQ(g.initial_allocated_bytes, w.initial_allocated_bytes);
      EXPECT_EQ(g.initial_reserved_bytes, w.initial_reserved_bytes);
      EXPECT_EQ(g.peak_allocated_bytes, w.peak_allocated_bytes);
      EXPECT_EQ(g.peak_event, w.peak_event);
      EXPECT_EQ(g.peak_time_us, w.peak_time_us);
      EXPECT_EQ(g.reserved_at_peak_bytes, w.reserved_at_peak_bytes);
      EXPECT_EQ(g.peak_reserved_bytes, w.peak_reserved_bytes);
      EXPECT_EQ(g.final_allocated_bytes, w.final_allocated_bytes);
      EXPECT_EQ(g.final_reserved_bytes, w.final_reserved_bytes);
      ASSERT_EQ(g.live_at_peak.size(), w.live_at_peak.size());
      for (size_t b = 0; b < w.live_at_peak.size(); ++b) {
        EXPECT_EQ(g.live_at_peak[b].addr, w.live_at_peak[b].addr);
        EXPECT_EQ(g.live_at_peak[b].size, w.live_at_peak[b].size);
        EXPECT_EQ(g.live_at_peak[b].stack, w.live_at_peak[b].stack);
      }
    }
  }
}

TEST(MemorySnapshotTest, InvalidUtf8InNamesBecomesReplacementCharacters) {
  auto str = [](absl::string_view s) {
    std::string out = "X";
    const uint32_t n = static_cast<uint32_t>(s.size());
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    return out + std::string(s);
  };
  // {"segments": [], "device_traces": [[{"action": "alloc", "addr": 16,
  //  "size": 32, "frames": [{"filename": "a\xffb.py", "line": 5,
  //  "name": "f\xc3"}]}]]} in protocol 2.
  const std::string bytes =
      "\x80\x02}(" + str("segments") + "]" + str("device_traces") + "]]}(" + str("action") +
      str("alloc") + str("addr") + "K\x10" + str("size") + "K\x20" + str("frames") + "]}(" +
      str("filename") + str("a\xff" "b.py") + str("line") + "K\x05" + str("name") +
      str("f\xc3") + "uauaau.";
  absl::StatusOr<memory_snapshot::Snapshot> s =
      memory_snapshot::ReadMemorySnapshot(bytes, "utf8.pickle");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->events.size(), 1u);
  ASSERT_EQ(s->frames.size(), 1u);
  EXPECT_EQ(s->strings[s->frames[0].filename], "a\xEF\xBF\xBD" "b.py");
  EXPECT_EQ(s->strings[s->frames[0].name], "f\xEF\xBF\xBD");
  EXPECT_EQ(s->stacks[s->events[0].stack].size(), 1u);
}

TEST(MemorySnapshotTest, BadInputsNameTheFileAndPlace) {
  struct Case {
    const char* file;
    const char* message;
  };
  for (const Case& k : std::vector<Case>{
           {"code.p2.pickle", "asks to run code"},
           {"truncated.p4.pickle", "truncated pickle"},
           {"huge_length.p4.pickle", "byte 2: truncated pickle: a string of 10000000000 bytes"},
           {"not_snapshot.p4.pickle", "not a PyTorch memory snapshot"},
           {"absent.pickle", "absent.pickle"},
       }) {
    SCOPED_TRACE(k.file);
    xplane::XSpaceData space;
    absl::StatusOr<MemorySnapshotSummary> s =
        ConvertMemorySnapshotToXSpace(kDir + k.file, MemorySnapshotOptions(), &space);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr(kDir + k.file));
    EXPECT_THAT(s.status().message(), HasSubstr(k.message));
  }
}

}  // namespace
}  // namespace tbprof::converters
