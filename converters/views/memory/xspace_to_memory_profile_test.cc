#include "converters/views/memory/xspace_to_memory_profile.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::MemoryProfile;
using tensorflow::profiler::MemoryProfileSnapshot;
using tensorflow::profiler::PerAllocatorMemoryProfile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using xplane::StatType;

struct MemEvent {
  bool allocation = true;
  int64_t time_ps = 0;
  int64_t heap_bytes = 0;  // bytes_allocated after the event.
  int64_t bytes = 0;       // requested_bytes = allocation_bytes.
  uint64_t address = 0;
  int64_t stack_bytes = 0;  // bytes_reserved.
  int64_t free_bytes = 0;   // bytes_available.
  int64_t peak_bytes = 0;   // peak_bytes_in_use.
  std::string tf_op;
  std::string region_type;
  std::string shape;
  int64_t data_type = -1;     // -1: no stat.
  double fragmentation = -1;  // < 0: no stat.
  std::string allocator = "GPU_0_bfc";
};

class HostMemory {
 public:
  explicit HostMemory(xplane::XSpaceBuilder* builder, int64_t line_id = 100)
      : plane_(builder->GetOrCreatePlane(xplane::kHostThreadsPlaneName)),
        line_(plane_->GetOrCreateLine(line_id)) {}

  xplane::XLineBuilder* line() { return line_; }

  void Add(const MemEvent& e) {
    xplane::XEventBuilder event = line_->AddEvent(
        plane_->GetOrCreateEventMetadata(e.allocation ? "MemoryAllocation" : "MemoryDeallocation"),
        e.time_ps, /*duration_ps=*/0);
    event.AddRef(Stat(StatType::kAllocatorName), e.allocator);
    event.AddInt64(Stat(StatType::kBytesReserved), e.stack_bytes);
    event.AddInt64(Stat(StatType::kBytesAllocated), e.heap_bytes);
    event.AddInt64(Stat(StatType::kBytesAvailable), e.free_bytes);
    event.AddInt64(Stat(StatType::kPeakBytesInUse), e.peak_bytes);
    event.AddInt64(Stat(StatType::kRequestedBytes), e.bytes);
    event.AddInt64(Stat(StatType::kAllocationBytes), e.bytes);
    event.AddUint64(Stat(StatType::kAddress), e.address);
    if (!e.tf_op.empty()) event.AddRef(Stat(StatType::kTfOp), e.tf_op);
    if (!e.region_type.empty()) event.AddString(Stat(StatType::kRegionType), e.region_type);
    if (!e.shape.empty()) event.AddString(Stat(StatType::kTensorShapes), e.shape);
    if (e.data_type >= 0) event.AddInt64(Stat(StatType::kDataType), e.data_type);
    if (e.fragmentation >= 0) event.AddDouble(Stat(StatType::kFragmentation), e.fragmentation);
  }

  // A step root [begin, begin + duration) with `step_num` on another thread.
  void AddStep(int64_t begin_ps, int64_t duration_ps, int64_t step_num) {
    xplane::XEventBuilder root =
        plane_->GetOrCreateLine(/*line_id=*/1)
            ->AddEvent(plane_->GetOrCreateEventMetadata("ProfilerStep#" + std::to_string(step_num)),
                       begin_ps, duration_ps);
    root.AddInt64(plane_->GetOrCreateStatMetadata("_r"), 1);
    root.AddInt64(Stat(StatType::kStepNum), step_num);
  }

 private:
  uint32_t Stat(StatType type) { return plane_->GetOrCreateStatMetadata(type); }
  xplane::XPlaneBuilder* plane_;
  xplane::XLineBuilder* line_;
};

MemEvent Alloc(int64_t time_ps, int64_t bytes, uint64_t address, int64_t heap_after) {
  MemEvent e;
  e.time_ps = time_ps;
  e.bytes = bytes;
  e.address = address;
  e.heap_bytes = heap_after;
  e.peak_bytes = heap_after;
  return e;
}

MemEvent Free(int64_t time_ps, int64_t bytes, uint64_t address, int64_t heap_after) {
  MemEvent e = Alloc(time_ps, bytes, address, heap_after);
  e.allocation = false;
  return e;
}

MemoryProfile Convert(xplane::XSpaceBuilder* builder, xplane::XSpaceData* space,
                      MemoryProfileOptions options = {}) {
  builder->Finalize({.normalize_timestamps = false});
  return ConvertXSpaceToMemoryProfile(*space, options);
}

TEST(XSpaceToMemoryProfileTest, SummaryFindsThePeak) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  mem.Add(Alloc(/*time_ps=*/1000, /*bytes=*/100, /*address=*/0xA, /*heap_after=*/100));
  MemEvent big = Alloc(/*time_ps=*/2000, /*bytes=*/400, /*address=*/0xB, /*heap_after=*/500);
  big.stack_bytes = 50;
  big.free_bytes = 450;
  mem.Add(big);
  mem.Add(Free(/*time_ps=*/3000, /*bytes=*/400, /*address=*/0xB, /*heap_after=*/100));
  MemEvent late = Alloc(/*time_ps=*/4000, /*bytes=*/10, /*address=*/0xC, /*heap_after=*/110);
  late.peak_bytes = 900;  // The allocator saw more before the profile started.
  mem.Add(late);
  MemEvent cpu = Alloc(/*time_ps=*/1500, /*bytes=*/8, /*address=*/0x1, /*heap_after=*/8);
  cpu.allocator = "CPU";
  mem.Add(cpu);
  MemoryProfile profile = Convert(&builder, &space);

  EXPECT_EQ(profile.version(), 1);
  EXPECT_EQ(profile.num_hosts(), 1);
  EXPECT_THAT(profile.memory_ids(), ElementsAre("CPU", "GPU_0_bfc"));
  const PerAllocatorMemoryProfile& gpu = profile.memory_profile_per_allocator().at("GPU_0_bfc");
  const auto& summary = gpu.profile_summary();
  EXPECT_EQ(summary.peak_bytes_usage_lifetime(), 900);
  EXPECT_EQ(summary.peak_stats_time_ps(), 2000);
  EXPECT_EQ(summary.peak_stats().heap_allocated_bytes(), 500);
  EXPECT_EQ(summary.peak_stats().stack_reserved_bytes(), 50);
  EXPECT_EQ(summary.peak_stats().peak_bytes_in_use(), 550);
  EXPECT_EQ(summary.memory_capacity(), 50 + 500 + 450);
  ASSERT_EQ(gpu.sampled_timeline_snapshots_size(), 4);
  EXPECT_EQ(gpu.sampled_timeline_snapshots(0).time_offset_ps(), 1000);
  EXPECT_EQ(gpu.sampled_timeline_snapshots(3).time_offset_ps(), 4000);
  EXPECT_EQ(profile.memory_profile_per_allocator()
                .at("CPU")
                .profile_summary()
                .peak_bytes_usage_lifetime(),
            8);
}

TEST(XSpaceToMemoryProfileTest, SummaryFollowsThePluginsVisitOrder) {
  // The plugin computes the summary while it visits the events line by line
  // (tf_v100x8_multiworker: lifetime peak 5006386688, the last event's stat,
  // although another line reached 6208853760).
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory first(&builder, /*line_id=*/50);  // Visited first.
  MemEvent high = Alloc(/*time_ps=*/3000, /*bytes=*/600, /*address=*/0xA, /*heap_after=*/600);
  high.peak_bytes = 700;
  first.Add(high);
  first.Add(Free(/*time_ps=*/4000, /*bytes=*/600, /*address=*/0xA, /*heap_after=*/0));
  HostMemory second(&builder, /*line_id=*/100);  // Visited last, earlier in time.
  MemEvent tie = Alloc(/*time_ps=*/1000, /*bytes=*/600, /*address=*/0xB, /*heap_after=*/600);
  tie.peak_bytes = 650;
  second.Add(tie);
  MemEvent last = Free(/*time_ps=*/2000, /*bytes=*/600, /*address=*/0xB, /*heap_after=*/0);
  last.peak_bytes = 650;
  second.Add(last);
  MemoryProfile profile = Convert(&builder, &space);

  const auto& summary = profile.memory_profile_per_allocator().at("GPU_0_bfc").profile_summary();
  // The last event visited, not the largest (700).
  EXPECT_EQ(summary.peak_bytes_usage_lifetime(), 650);
  // Equal in-use peaks: the later one visited wins, though earlier in time.
  EXPECT_EQ(summary.peak_stats().peak_bytes_in_use(), 600);
  EXPECT_EQ(summary.peak_stats_time_ps(), 1000);
}

TEST(XSpaceToMemoryProfileTest, TimesAreOffsetsInTheirLine) {
  // jax08_mi300x8_conv: lines with different timestamp_ns; the plugin's
  // peak time is the event's offset in its own line.
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory early(&builder, /*line_id=*/50);
  early.line()->SetTimestampNs(1000);
  early.Add(Alloc(/*time_ps=*/5000, /*bytes=*/100, /*address=*/0xA, /*heap_after=*/100));
  HostMemory late(&builder, /*line_id=*/100);
  late.line()->SetTimestampNs(869000);
  late.Add(Alloc(/*time_ps=*/2000, /*bytes=*/300, /*address=*/0xB, /*heap_after=*/400));
  MemoryProfile profile = Convert(&builder, &space);

  const PerAllocatorMemoryProfile& gpu = profile.memory_profile_per_allocator().at("GPU_0_bfc");
  EXPECT_EQ(gpu.profile_summary().peak_stats_time_ps(), 2000);
  // Snapshots are sorted by these offsets, as the plugin sorts them.
  ASSERT_EQ(gpu.sampled_timeline_snapshots_size(), 2);
  EXPECT_EQ(gpu.sampled_timeline_snapshots(0).time_offset_ps(), 2000);
  EXPECT_EQ(gpu.sampled_timeline_snapshots(1).time_offset_ps(), 5000);
}

TEST(XSpaceToMemoryProfileTest, TimelineSamplingKeepsThePeak) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  constexpr int kEvents = 2503;
  constexpr int kPeakAt = 1235;  // Not the first event of its box.
  for (int i = 0; i < kEvents; ++i) {
    const int64_t heap = i == kPeakAt ? 1000000 : (i % 17) * 100;
    mem.Add(Alloc(/*time_ps=*/i * 10, /*bytes=*/1, /*address=*/i, heap));
  }
  MemoryProfile profile = Convert(&builder, &space);
  const PerAllocatorMemoryProfile& gpu = profile.memory_profile_per_allocator().at("GPU_0_bfc");
  const auto& sampled = gpu.sampled_timeline_snapshots();
  ASSERT_EQ(sampled.size(), 1000);
  EXPECT_TRUE(std::is_sorted(sampled.begin(), sampled.end(),
                             [](const MemoryProfileSnapshot& a, const MemoryProfileSnapshot& b) {
                               return a.time_offset_ps() < b.time_offset_ps();
                             }));
  EXPECT_TRUE(std::any_of(sampled.begin(), sampled.end(), [](const MemoryProfileSnapshot& s) {
    return s.aggregation_stats().heap_allocated_bytes() == 1000000 &&
           s.time_offset_ps() == kPeakAt * 10;
  }));
  EXPECT_EQ(gpu.profile_summary().peak_stats_time_ps(), kPeakAt * 10);

  MemoryProfile small = ConvertXSpaceToMemoryProfile(space, {.max_num_snapshots = 7});
  EXPECT_EQ(small.memory_profile_per_allocator().at("GPU_0_bfc").sampled_timeline_snapshots_size(),
            7);
}

TEST(XSpaceToMemoryProfileTest, DeallocationInheritsAllocationMetadata) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  MemEvent a = Alloc(/*time_ps=*/100, /*bytes=*/64, /*address=*/0x10, /*heap_after=*/64);
  a.tf_op = "model/dense/MatMul";
  a.region_type = "output";
  a.shape = "[4,4]";
  a.data_type = 1;  // DT_FLOAT
  mem.Add(a);
  mem.Add(Free(/*time_ps=*/200, /*bytes=*/64, /*address=*/0x10, /*heap_after=*/0));
  // A second free of the same address finds no allocation and stays bare.
  mem.Add(Free(/*time_ps=*/300, /*bytes=*/64, /*address=*/0x10, /*heap_after=*/0));
  MemoryProfile profile = Convert(&builder, &space);
  const auto& snaps =
      profile.memory_profile_per_allocator().at("GPU_0_bfc").sampled_timeline_snapshots();
  ASSERT_EQ(snaps.size(), 3);
  const auto& dealloc = snaps[1].activity_metadata();
  EXPECT_EQ(dealloc.memory_activity(), tensorflow::profiler::DEALLOCATION);
  EXPECT_EQ(dealloc.tf_op_name(), "model/dense/MatMul");
  EXPECT_EQ(dealloc.region_type(), "output");
  EXPECT_EQ(dealloc.tensor_shape(), "[4,4]");
  EXPECT_EQ(dealloc.data_type(), "float");
  EXPECT_EQ(snaps[2].activity_metadata().tf_op_name(), "");
}

TEST(XSpaceToMemoryProfileTest, FragmentationFromStatOrFormula) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  MemEvent with_stat = Alloc(/*time_ps=*/100, /*bytes=*/10, /*address=*/1, /*heap_after=*/300);
  with_stat.free_bytes = 100;
  with_stat.fragmentation = 0.25;
  mem.Add(with_stat);
  MemEvent formula = Alloc(/*time_ps=*/200, /*bytes=*/10, /*address=*/2, /*heap_after=*/300);
  formula.free_bytes = 100;
  mem.Add(formula);
  MemEvent empty = Free(/*time_ps=*/300, /*bytes=*/10, /*address=*/3, /*heap_after=*/0);
  mem.Add(empty);
  MemoryProfile profile = Convert(&builder, &space);
  const auto& snaps =
      profile.memory_profile_per_allocator().at("GPU_0_bfc").sampled_timeline_snapshots();
  ASSERT_EQ(snaps.size(), 3);
  EXPECT_DOUBLE_EQ(snaps[0].aggregation_stats().fragmentation(), 0.25);
  // bytes_available / (bytes_allocated + bytes_available) = 100 / 400.
  EXPECT_DOUBLE_EQ(snaps[1].aggregation_stats().fragmentation(), 0.25);
  EXPECT_DOUBLE_EQ(snaps[2].aggregation_stats().fragmentation(), 0.0);
}

TEST(XSpaceToMemoryProfileTest, StepIdsFromEnclosingRoots) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  mem.AddStep(/*begin_ps=*/1000, /*duration_ps=*/1000, /*step_num=*/5);
  mem.AddStep(/*begin_ps=*/3000, /*duration_ps=*/1000, /*step_num=*/6);
  mem.Add(Alloc(/*time_ps=*/500, /*bytes=*/1, /*address=*/1, /*heap_after=*/1));   // Before all: 0.
  mem.Add(Alloc(/*time_ps=*/1500, /*bytes=*/1, /*address=*/2, /*heap_after=*/2));  // Step 5.
  mem.Add(Alloc(/*time_ps=*/2500, /*bytes=*/1, /*address=*/3, /*heap_after=*/3));  // Between: 6.
  mem.Add(Alloc(/*time_ps=*/3999, /*bytes=*/1, /*address=*/4, /*heap_after=*/4));  // Step 6.
  mem.Add(Alloc(/*time_ps=*/4000, /*bytes=*/1, /*address=*/5, /*heap_after=*/5));  // After: 7.
  MemoryProfile profile = Convert(&builder, &space);
  std::vector<int64_t> steps;
  for (const auto& s :
       profile.memory_profile_per_allocator().at("GPU_0_bfc").sampled_timeline_snapshots()) {
    steps.push_back(s.activity_metadata().step_id());
  }
  EXPECT_THAT(steps, ElementsAre(0, 5, 6, 6, 7));
}

TEST(XSpaceToMemoryProfileTest, ActiveAllocationsAtPeakMergeIdenticalRows) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  mem.AddStep(/*begin_ps=*/0, /*duration_ps=*/10000, /*step_num=*/1);
  auto alloc = [&](int64_t t, int64_t bytes, uint64_t addr, int64_t heap, const char* op) {
    MemEvent e = Alloc(t, bytes, addr, heap);
    e.tf_op = op;
    e.region_type = "output";
    mem.Add(e);
  };
  // 1000 bytes were in use before the profile: not explained by any event.
  alloc(/*t=*/100, /*bytes=*/64, /*addr=*/1, /*heap=*/1064, "conv");
  alloc(/*t=*/200, /*bytes=*/64, /*addr=*/2, /*heap=*/1128, "conv");
  alloc(/*t=*/300, /*bytes=*/256, /*addr=*/3, /*heap=*/1384, "matmul");
  alloc(/*t=*/400, /*bytes=*/32, /*addr=*/4, /*heap=*/1416, "tmp");  // The peak.
  mem.Add(Free(/*time_ps=*/500, /*bytes=*/256, /*address=*/3, /*heap_after=*/1160));
  alloc(/*t=*/600, /*bytes=*/100, /*addr=*/5, /*heap=*/1260, "after_peak");
  MemoryProfile profile = Convert(&builder, &space);
  const PerAllocatorMemoryProfile& gpu = profile.memory_profile_per_allocator().at("GPU_0_bfc");
  EXPECT_EQ(gpu.profile_summary().peak_stats_time_ps(), 400);

  // Rows by size: unmapped 1000 bytes, matmul 256, conv 64 (x2), tmp 32.
  ASSERT_EQ(gpu.active_allocations_size(), 4);
  const auto& unmapped_row = gpu.active_allocations(0);
  EXPECT_EQ(unmapped_row.special_index(), 0);
  EXPECT_LT(unmapped_row.snapshot_index(), 0);
  ASSERT_EQ(gpu.special_allocations_size(), 1);
  EXPECT_EQ(gpu.special_allocations(0).allocation_bytes(), 1000);
  EXPECT_EQ(gpu.special_allocations(0).tf_op_name(), "unused preallocated device memory");

  std::vector<std::string> ops;
  std::vector<int64_t> counts;
  for (int i = 1; i < gpu.active_allocations_size(); ++i) {
    const auto& row = gpu.active_allocations(i);
    EXPECT_EQ(row.special_index(), -1);
    ASSERT_GE(row.snapshot_index(), 0);
    ASSERT_LT(row.snapshot_index(), gpu.memory_profile_snapshots_size());
    ops.push_back(
        gpu.memory_profile_snapshots(row.snapshot_index()).activity_metadata().tf_op_name());
    counts.push_back(row.num_occurrences());
  }
  EXPECT_THAT(ops, ElementsAre("matmul", "conv", "tmp"));
  EXPECT_THAT(counts, ElementsAre(1, 2, 1));
  EXPECT_EQ(gpu.memory_profile_snapshots_size(), 3);
}

// Snapshots come out in time order, ties in plane order (line by line, each
// line's events in order), whichever way the sort goes: one line in order
// (no sort), a few lines in order each (merged), many lines or lines out of
// order (radix sort of packed keys), and times too far apart to pack
// (radix sort of pairs); times in whole ns or not.
TEST(XSpaceToMemoryProfileTest, SnapshotsInTimeOrderTiesInPlaneOrder) {
  struct Case {
    int lines;
    bool sorted_lines;
    int64_t time_range;
    int64_t time_unit;
  };
  const Case cases[] = {{1, true, 50, 1000},       {3, true, 50, 1000},
                        {12, true, 50, 1000},      {2, false, 50, 1000},
                        {12, false, 1 << 20, 1},   {5, false, int64_t{1} << 52, 1000},
                        {9, false, int64_t{1} << 60, 7}};  // 7 * 2^60 < 2^63.
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "lines=" << c.lines << " sorted=" << c.sorted_lines
                                      << " range=" << c.time_range);
    std::mt19937_64 rng(11);
    xplane::XSpaceData space;
    xplane::XSpaceBuilder builder(&space);
    struct Expected {
      int64_t time_ps;
      uint64_t address;
    };
    std::vector<Expected> expected;
    uint64_t next_address = 1;  // Plane order.
    const int per_line = 900 / c.lines;
    for (int l = 0; l < c.lines; ++l) {
      HostMemory host(&builder, /*line_id=*/100 + l);
      std::vector<int64_t> times(per_line);
      for (int64_t& t : times) t = static_cast<int64_t>(rng() % c.time_range) * c.time_unit;
      if (c.sorted_lines) std::sort(times.begin(), times.end());
      for (int64_t t : times) {
        MemEvent e;
        e.time_ps = t;
        e.heap_bytes = 10;
        e.bytes = 1;
        e.address = next_address++;
        host.Add(e);
        expected.push_back({t, e.address});
      }
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](const Expected& a, const Expected& b) { return a.time_ps < b.time_ps; });
    MemoryProfile profile = Convert(&builder, &space);
    const PerAllocatorMemoryProfile& p = profile.memory_profile_per_allocator().at("GPU_0_bfc");
    ASSERT_EQ(p.sampled_timeline_snapshots_size(), static_cast<int>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) {
      const MemoryProfileSnapshot& snapshot = p.sampled_timeline_snapshots(static_cast<int>(i));
      ASSERT_EQ(snapshot.time_offset_ps(), expected[i].time_ps) << i;
      ASSERT_EQ(snapshot.activity_metadata().address(), expected[i].address) << i;
    }
  }
}

TEST(XSpaceToMemoryProfileTest, JsonUsesCamelCaseStringInt64AndDefaults) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  HostMemory mem(&builder);
  mem.Add(Alloc(/*time_ps=*/1000, /*bytes=*/4096, /*address=*/7, /*heap_after=*/4096));
  MemoryProfile profile = Convert(&builder, &space);
  absl::StatusOr<std::string> json = MemoryProfileToJson(profile);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":"));
  EXPECT_THAT(*json, HasSubstr("\"peakBytesUsageLifetime\":\"4096\""));
  EXPECT_THAT(*json, HasSubstr("\"heapAllocatedBytes\":\"4096\""));
  EXPECT_THAT(*json, HasSubstr("\"stackReservedBytes\":\"0\""));  // Default printed.
  EXPECT_THAT(*json, HasSubstr("\"memoryIds\":[\"GPU_0_bfc\"]"));
  EXPECT_THAT(*json, HasSubstr("\"version\":1"));
  EXPECT_THAT(*json, HasSubstr("\"memoryActivity\":\"ALLOCATION\""));
}

TEST(XSpaceToMemoryProfileTest, NoMemoryEventsGivesEmptyProfile) {
  xplane::XSpaceData space;
  MemoryProfile profile = ConvertXSpaceToMemoryProfile(space);
  EXPECT_EQ(profile.memory_ids_size(), 0);
  EXPECT_EQ(profile.version(), 1);
}

TEST(XSpaceToMemoryProfileTest, DataTypeNames) {
  EXPECT_EQ(TensorflowDataTypeName(0), "INVALID");
  EXPECT_EQ(TensorflowDataTypeName(14), "bfloat16");
  EXPECT_EQ(TensorflowDataTypeName(101), "float_ref");
  EXPECT_EQ(TensorflowDataTypeName(99), "unknown dtype enum (99)");
}

}  // namespace
}  // namespace tbprof::views
