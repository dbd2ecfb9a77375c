#include "src/xplane/xspace_split.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_merge.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::xplane {
namespace {

constexpr int64_t kStepPs = 1'000'000;  // 1 us per step.

// A PyTorch-like space: `steps` ProfilerStep roots on a host thread, two
// launches per step (the second near its end, whose kernel runs after the next
// step began), kernels on a GPU stream, one kernel without correlation, memory
// events, an event before the first step and a long one spanning every step.
XSpaceData MakeSpace(int steps, bool with_roots = true) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  XPlaneBuilder* gpu = builder.GetOrCreatePlane("/device:GPU:0");
  const uint32_t root = host->GetOrCreateStatMetadata(StatType::kIsRoot);
  const uint32_t step_num = host->GetOrCreateStatMetadata(StatType::kStepNum);
  const uint32_t host_corr = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
  const uint32_t tf_op = host->GetOrCreateStatMetadata(StatType::kTfOp);
  const uint32_t bytes = host->GetOrCreateStatMetadata(StatType::kBytesAllocated);
  const uint32_t gpu_corr = gpu->GetOrCreateStatMetadata(StatType::kCorrelationId);
  const uint32_t details = gpu->GetOrCreateStatMetadata(StatType::kKernelDetails);
  const uint32_t launch = host->GetOrCreateEventMetadata("cudaLaunchKernel");
  const uint32_t alloc = host->GetOrCreateEventMetadata("MemoryAllocation");
  const uint32_t kernel = gpu->GetOrCreateEventMetadata("volta_sgemm");
  XLineBuilder* thread = host->GetOrCreateLine(1);
  thread->SetName("thread 1 (python)");
  XLineBuilder* loop = host->GetOrCreateLine(2);
  loop->SetName("thread 2");
  XLineBuilder* stream = gpu->GetOrCreateLine(7);
  stream->SetName("Stream #7");

  thread->AddEvent(host->GetOrCreateEventMetadata("profiler init"), -500'000, 100'000);
  loop->AddEvent(host->GetOrCreateEventMetadata("train_loop"), -400'000,
                 steps * kStepPs + 300'000);
  for (int s = 0; s < steps; ++s) {
    const int64_t t = s * kStepPs;
    if (with_roots) {
      XEventBuilder step = thread->AddEvent(
          host->GetOrCreateEventMetadata(absl::StrCat("ProfilerStep#", s)), t, 900'000);
      step.AddInt64(root, 1);
      step.AddInt64(step_num, s);
    }
    XEventBuilder a = thread->AddEvent(launch, t + 100'000, 50'000);
    a.AddInt64(host_corr, 100 + s);
    a.AddString(tf_op, absl::StrCat("aten::conv2d step ", s));
    // CPU ops (most of a real trace's bytes): the per-part metadata is small
    // next to a step.
    for (int op = 0; op < 20; ++op) {
      XEventBuilder e = thread->AddEvent(host->GetOrCreateEventMetadata("aten::add"),
                                         t + 400'000 + op * 20'000, 10'000);
      e.AddString(tf_op, absl::StrCat("aten::add ", op % 4));
    }
    XEventBuilder m = thread->AddEvent(alloc, t + 300'000, 0);
    m.AddInt64(bytes, 1000 * s);
    XEventBuilder b = thread->AddEvent(launch, t + 850'000, 40'000);
    b.AddInt64(host_corr, 200 + s);
    XEventBuilder k1 = stream->AddEvent(kernel, t + 200'000, 300'000);
    k1.AddInt64(gpu_corr, 100 + s);
    k1.AddRef(details, "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:1,1,1");
    // Runs after step s+1 began: must still go with step s.
    XEventBuilder k2 = stream->AddEvent(kernel, t + 1'050'000, 20'000);
    k2.AddInt64(gpu_corr, 200 + s);
    stream->AddEvent(gpu->GetOrCreateEventMetadata("unlaunched"), t + 600'000, 10'000);
  }
  builder.Finalize({.normalize_timestamps = true, .epoch_ns_of_zero = 1'700'000'000'000'000'000});
  space.warnings.push_back("a warning of the conversion");
  space.hostnames.push_back("node0");
  return space;
}

// An event, comparable across spaces.
using EventKey = std::tuple<std::string, int64_t, int64_t, int64_t, std::string, std::string>;

std::vector<EventKey> Events(const XSpaceData& space) {
  std::vector<EventKey> out;
  for (const Plane& plane : space.planes) {
    XPlaneVisitor visitor(&space, &plane, 0);
    visitor.ForEachLine([&](const XLineVisitor& line) {
      line.ForEachEvent([&](const XEventVisitor& event) {
        std::string stats;
        event.ForEachStat([&](const XStatVisitor& stat) {
          absl::StrAppend(&stats, stat.name(), "=", stat.ToString(), ";");
        });
        out.emplace_back(std::string(visitor.name()), line.id(),
                         line.timestamp_ns() * 1000 + event.offset_ps(), event.duration_ps(),
                         std::string(event.name()), stats);
      });
    });
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every part's events together, sorted: equal to the whole space's when the
// parts cover it with nothing lost or repeated.
std::vector<EventKey> EventsOfAllParts(const XSpaceSplit& split) {
  std::vector<EventKey> all;
  for (size_t i = 0; i < split.num_parts(); ++i) {
    std::vector<EventKey> events = Events(split.ExtractPart(i));
    all.insert(all.end(), events.begin(), events.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

// Every metadata id an event or stat names exists in its plane.
void ExpectValidMetadata(const XSpaceData& part) {
  tensorflow::profiler::XSpace proto;
  ASSERT_TRUE(proto.ParseFromString(SerializeXSpaceData(part)));
  for (const auto& plane : proto.planes()) {
    for (const auto& line : plane.lines()) {
      for (const auto& event : line.events()) {
        EXPECT_TRUE(plane.event_metadata().contains(event.metadata_id())) << plane.name();
        for (const auto& stat : event.stats()) {
          EXPECT_TRUE(plane.stat_metadata().contains(stat.metadata_id())) << plane.name();
          if (stat.value_case() == tensorflow::profiler::XStat::kRefValue) {
            EXPECT_TRUE(plane.stat_metadata().contains(stat.ref_value())) << plane.name();
          }
        }
      }
    }
  }
}

// Part index of the event with correlation id `corr` on plane `plane_name`.
int PartOfCorrelation(const std::vector<XSpaceData>& parts, absl::string_view plane_name,
                      int64_t corr) {
  for (size_t i = 0; i < parts.size(); ++i) {
    const Plane* plane = FindPlaneWithName(parts[i], plane_name);
    if (plane == nullptr) continue;
    XPlaneVisitor visitor(&parts[i], plane, 0);
    bool found = false;
    visitor.ForEachLine([&](const XLineVisitor& line) {
      line.ForEachEvent([&](const XEventVisitor& event) {
        auto c = event.GetStat(StatType::kCorrelationId);
        if (c && c->IntValue() == corr) found = true;
      });
    });
    if (found) return static_cast<int>(i);
  }
  return -1;
}

// step_num of each step root in a space.
std::vector<int64_t> StepNums(const XSpaceData& space) {
  std::vector<int64_t> out;
  const Plane* host = FindPlaneWithName(space, kHostThreadsPlaneName);
  XPlaneVisitor visitor(&space, host, 0);
  visitor.ForEachLine([&](const XLineVisitor& line) {
    line.ForEachEvent([&](const XEventVisitor& event) {
      if (event.GetStat(StatType::kIsRoot)) {
        out.push_back(event.GetStat(StatType::kStepNum)->IntValue());
      }
    });
  });
  std::sort(out.begin(), out.end());
  return out;
}

int64_t TaskEnvStat(const XSpaceData& space, StatType type) {
  const Plane* env = FindPlaneWithName(space, kTaskEnvPlaneName);
  XPlaneVisitor visitor(&space, env, 0);
  return visitor.GetStat(type)->IntValue();
}

TEST(XSpaceSplitTest, EstimateMatchesSerializedSize) {
  XSpaceData space = MakeSpace(6);
  const uint64_t actual = SerializeXSpaceData(space).size();
  const uint64_t estimate = EstimateXSpaceWireBytes(space);
  EXPECT_NEAR(static_cast<double>(estimate), static_cast<double>(actual), actual * 0.01);
}

TEST(XSpaceSplitTest, EstimateFromEventSizesIsTheEstimate) {
  for (bool with_roots : {true, false}) {
    XSpaceData space = MakeSpace(6, with_roots);
    EXPECT_EQ(EstimateXSpaceWireBytes(space, ComputeEventWireSizes(space)),
              EstimateXSpaceWireBytes(space));
  }
}

// WritePart / SerializePart write the bytes of ExtractPart + serialize, with
// or without the event sizes, whether the split is by steps or by time.
TEST(XSpaceSplitTest, WrittenPartsAreTheExtractedParts) {
  struct Case {
    int steps;
    bool with_roots;
    uint64_t divisor;
  };
  for (const Case& c : {Case{12, true, 3}, Case{12, false, 3}, Case{2, true, 4},
                        Case{23, true, 2}, Case{5, false, 1}}) {
    XSpaceData space = MakeSpace(c.steps, c.with_roots);
    // Aggregate events and a line without events ride along.
    Line& line = space.planes[0].lines[0];
    Event aggregate = line.events.back();
    aggregate.set_is_aggregate(true);
    aggregate.set_has_data(true);
    aggregate.offset_ps = 3;
    aggregate.stats_begin = static_cast<uint32_t>(line.stats.size());
    line.events.push_back(aggregate);
    space.planes[0].lines.emplace_back().id = 77;
    const EventWireSizes sizes = ComputeEventWireSizes(space);
    const uint64_t limit = EstimateXSpaceWireBytes(space) / c.divisor;
    XSpaceSplit split = XSpaceSplit::Plan(space, limit, &sizes);
    XSpaceSplit unsized = XSpaceSplit::Plan(space, limit);
    ASSERT_EQ(split.num_parts(), unsized.num_parts());
    for (size_t k = 0; k < split.num_parts(); ++k) {
      const std::string expected = SerializeXSpaceData(split.ExtractPart(k));
      EXPECT_EQ(split.SerializePart(k, &sizes), expected) << c.steps << " part " << k;
      EXPECT_EQ(split.SerializePart(k, nullptr), expected) << c.steps << " part " << k;
      EXPECT_EQ(unsized.SerializePart(k, &sizes), expected) << c.steps << " part " << k;
      EXPECT_EQ(split.parts()[k].estimated_bytes, unsized.parts()[k].estimated_bytes);
    }
  }
}

TEST(XSpaceSplitTest, SpaceUnderTheLimitIsOnePart) {
  XSpaceData space = MakeSpace(6);
  XSpaceSplit split = XSpaceSplit::Plan(space, EstimateXSpaceWireBytes(space) + 1);
  EXPECT_EQ(split.num_parts(), 1u);
  EXPECT_EQ(Events(split.ExtractPart(0)), Events(space));
}

TEST(XSpaceSplitTest, KeepsStepsWholeAndEveryEventOnce) {
  XSpaceData space = MakeSpace(12);
  const uint64_t total = EstimateXSpaceWireBytes(space);
  XSpaceSplit split = XSpaceSplit::Plan(space, total / 3);
  ASSERT_TRUE(split.by_steps());
  ASSERT_GE(split.num_parts(), 3u);
  std::vector<XSpaceData> parts;
  std::vector<EventKey> all;
  int64_t steps_seen = 0;
  for (size_t i = 0; i < split.num_parts(); ++i) {
    parts.push_back(split.ExtractPart(i));
    const XSpaceData& part = parts.back();
    const SplitPart& info = split.parts()[i];
    EXPECT_LE(info.estimated_bytes, total / 3) << "part " << i;
    // The plan's estimate is the part's size (plus the part's own warning).
    EXPECT_NEAR(static_cast<double>(SerializeXSpaceData(part).size()),
                static_cast<double>(info.estimated_bytes), info.estimated_bytes * 0.1);
    ExpectValidMetadata(part);
    std::vector<int64_t> steps = StepNums(part);
    ASSERT_EQ(static_cast<int64_t>(steps.size()), info.num_steps);
    EXPECT_EQ(steps.front(), info.first_step_num);
    EXPECT_EQ(steps.back(), info.last_step_num);
    EXPECT_EQ(steps.front(), steps_seen) << "steps are consecutive across parts";
    EXPECT_EQ(steps.back() - steps.front() + 1, static_cast<int64_t>(steps.size()));
    steps_seen += static_cast<int64_t>(steps.size());
    EXPECT_LE(info.num_steps, split.steps_per_part());
    std::vector<EventKey> events = Events(part);
    EXPECT_EQ(static_cast<int64_t>(events.size()), info.num_events);
    all.insert(all.end(), events.begin(), events.end());
    // Names, hostnames and warnings travel; one warning names the part.
    EXPECT_EQ(part.hostnames, space.hostnames);
    ASSERT_EQ(part.warnings.size(), 2u);
    EXPECT_EQ(part.warnings[0], "a warning of the conversion");
    EXPECT_NE(part.warnings[1].find(absl::StrCat("part ", i + 1, " of ", split.num_parts())),
              std::string::npos);
    ASSERT_EQ(part.planes.size(), space.planes.size());
    for (size_t p = 0; p < space.planes.size(); ++p) {
      EXPECT_EQ(part.strings.Get(part.planes[p].name), space.strings.Get(space.planes[p].name));
    }
  }
  EXPECT_EQ(steps_seen, 12);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Events(space)) << "no event lost or duplicated";

  for (int s = 0; s < 12; ++s) {
    int step_part = -1;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::vector<int64_t> steps = StepNums(parts[i]);
      if (std::find(steps.begin(), steps.end(), s) != steps.end()) step_part = static_cast<int>(i);
    }
    ASSERT_GE(step_part, 0);
    for (int64_t corr : {100 + s, 200 + s}) {
      EXPECT_EQ(PartOfCorrelation(parts, kHostThreadsPlaneName, corr), step_part) << corr;
      EXPECT_EQ(PartOfCorrelation(parts, "/device:GPU:0", corr), step_part) << corr;
    }
  }
  // The event before the first step and the one spanning all steps (full
  // duration) are in the first part.
  EXPECT_EQ(StepNums(parts[0]).front(), 0);
  bool loop_found = false;
  for (const EventKey& key : Events(parts[0])) {
    if (std::get<4>(key) == "train_loop") loop_found = true;
  }
  EXPECT_TRUE(loop_found);
  // Task Environment: each part's span, inside the whole session's.
  const int64_t start = TaskEnvStat(space, StatType::kProfileStartTime);
  const int64_t stop = TaskEnvStat(space, StatType::kProfileStopTime);
  int64_t previous = start - 1;
  for (const XSpaceData& part : parts) {
    int64_t part_start = TaskEnvStat(part, StatType::kProfileStartTime);
    int64_t part_stop = TaskEnvStat(part, StatType::kProfileStopTime);
    EXPECT_GT(part_start, previous);
    EXPECT_GE(part_start, start);
    EXPECT_LE(part_stop, stop);
    EXPECT_LT(part_start, part_stop);
    previous = part_start;
  }
  EXPECT_EQ(TaskEnvStat(parts[0], StatType::kProfileStartTime), start);
}

TEST(XSpaceSplitTest, EvenParts) {
  XSpaceData space = MakeSpace(23);
  XSpaceSplit split = XSpaceSplit::Plan(space, EstimateXSpaceWireBytes(space) * 45 / 100);
  ASSERT_TRUE(split.by_steps());
  ASSERT_GE(split.num_parts(), 3u);
  // Parts differ by at most one step (8, 8, 7 rather than 10, 10, 3).
  int64_t most = 0, least = 23;
  for (const SplitPart& part : split.parts()) {
    most = std::max(most, part.num_steps);
    least = std::min(least, part.num_steps);
  }
  EXPECT_LE(most - least, 1);
  EXPECT_EQ(split.steps_per_part(), most);
}

TEST(XSpaceSplitTest, TraceWithoutStepsIsCutByTime) {
  XSpaceData space = MakeSpace(12, /*with_roots=*/false);
  const uint64_t total = EstimateXSpaceWireBytes(space);
  XSpaceSplit split = XSpaceSplit::Plan(space, total / 3);
  EXPECT_FALSE(split.by_steps());
  EXPECT_EQ(split.steps_per_part(), 0);
  ASSERT_GE(split.num_parts(), 3u);
  std::vector<EventKey> all;
  int64_t previous_begin = -1;
  for (size_t i = 0; i < split.num_parts(); ++i) {
    XSpaceData part = split.ExtractPart(i);
    ExpectValidMetadata(part);
    EXPECT_LE(split.parts()[i].estimated_bytes, total / 3);
    EXPECT_GT(split.parts()[i].begin_ps, previous_begin);
    previous_begin = split.parts()[i].begin_ps;
    std::vector<EventKey> events = Events(part);
    all.insert(all.end(), events.begin(), events.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Events(space));
  // Kernels still go with their launch.
  std::vector<XSpaceData> parts;
  for (size_t i = 0; i < split.num_parts(); ++i) parts.push_back(split.ExtractPart(i));
  for (int64_t corr : {105, 205, 111}) {
    EXPECT_EQ(PartOfCorrelation(parts, kHostThreadsPlaneName, corr),
              PartOfCorrelation(parts, "/device:GPU:0", corr));
  }
}

// A host plane without `_r` stat metadata has no steps (planned without a
// pass over its events for roots).
TEST(XSpaceSplitTest, PlaneWithoutRootStatIsCutByTime) {
  XSpaceData space = MakeSpace(12, /*with_roots=*/false);
  for (Plane& plane : space.planes) {
    for (StatMetadata& md : plane.stat_metadata) {
      if (space.strings.Get(md.name) == StatTypeName(StatType::kIsRoot)) {
        md.name = space.strings.Intern("not_a_root");
      }
    }
  }
  XSpaceSplit split = XSpaceSplit::Plan(space, EstimateXSpaceWireBytes(space) / 3);
  EXPECT_FALSE(split.by_steps());
  ASSERT_GE(split.num_parts(), 3u);
  EXPECT_EQ(EventsOfAllParts(split), Events(space));
}

TEST(XSpaceSplitTest, StepOverTheLimitFallsBackToTime) {
  XSpaceData space = MakeSpace(2);
  XSpaceSplit split = XSpaceSplit::Plan(space, EstimateXSpaceWireBytes(space) / 4);
  EXPECT_FALSE(split.by_steps());
  EXPECT_GE(split.num_parts(), 2u);
  EXPECT_EQ(EventsOfAllParts(split), Events(space));
}

// Parts written to files and read back merge into the space they were cut
// from: every event once, in order, the session's span, no part warning.
TEST(XSpaceMergeTest, PartsReadBackMergeIntoTheWhole) {
  for (bool with_roots : {true, false}) {
    XSpaceData space = MakeSpace(12, with_roots);
    XSpaceSplit split = XSpaceSplit::Plan(space, EstimateXSpaceWireBytes(space) / 3);
    ASSERT_GE(split.num_parts(), 3u);
    std::vector<XSpaceData> parts;
    for (size_t i = 0; i < split.num_parts(); ++i) {
      absl::StatusOr<XSpaceData> read =
          ParseXSpaceData(SerializeXSpaceData(split.ExtractPart(i)), "part");
      ASSERT_TRUE(read.ok()) << read.status();
      parts.push_back(*std::move(read));
    }
    absl::StatusOr<XSpaceData> merged = MergeXSpaceParts(std::move(parts));
    ASSERT_TRUE(merged.ok()) << merged.status();
    EXPECT_EQ(Events(*merged), Events(space));
    EXPECT_EQ(merged->warnings, space.warnings);
    EXPECT_EQ(merged->hostnames, space.hostnames);
    EXPECT_EQ(TaskEnvStat(*merged, StatType::kProfileStartTime),
              TaskEnvStat(space, StatType::kProfileStartTime));
    EXPECT_EQ(TaskEnvStat(*merged, StatType::kProfileStopTime),
              TaskEnvStat(space, StatType::kProfileStopTime));
    ExpectValidMetadata(*merged);
    for (const Plane& plane : merged->planes) {
      for (const Line& line : plane.lines) {
        for (size_t i = 1; i < line.events.size(); ++i) {
          ASSERT_LE(line.events[i - 1].offset_ps, line.events[i].offset_ps);
        }
      }
    }
  }
}

TEST(XSpaceMergeTest, RefusesSpacesThatAreNotPartsOfOneProfile) {
  EXPECT_FALSE(MergeXSpaceParts({}).ok());
  XSpaceData a = MakeSpace(2);
  XSpaceData b;
  XSpaceBuilder builder(&b);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  host->GetOrCreateEventMetadata("something else");  // Id 1, another name.
  host->GetOrCreateLine(1)->AddEvent(0, 0, 1);
  std::vector<XSpaceData> parts;
  parts.push_back(std::move(a));
  parts.push_back(std::move(b));
  absl::StatusOr<XSpaceData> merged = MergeXSpaceParts(std::move(parts));
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("not parts of one profile"), std::string::npos)
      << merged.status();
}

}  // namespace
}  // namespace tbprof::xplane
