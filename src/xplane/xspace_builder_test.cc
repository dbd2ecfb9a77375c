#include "src/xplane/xspace_builder.h"

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::xplane {
namespace {

// Checks Line's invariant: the events' stats lie in `stats` in event order,
// without gaps.
void ExpectStatsInEventOrder(const Line& line) {
  if (line.events.empty()) return;
  EXPECT_EQ(line.events[0].stats_begin, 0u);
  for (size_t i = 0; i + 1 < line.events.size(); ++i) {
    EXPECT_LE(line.events[i].stats_begin, line.events[i + 1].stats_begin) << i;
  }
  EXPECT_LE(line.events.back().stats_begin, line.stats.size());
}

// Each event's own stats as "name=value" texts, in order.
std::vector<std::vector<std::string>> StatTexts(const XSpaceData& space, const Plane& plane,
                                                const Line& line) {
  XPlaneVisitor plane_visitor(&space, &plane, 0);
  std::vector<std::vector<std::string>> out;
  XLineVisitor(&plane_visitor, &line).ForEachEvent([&](const XEventVisitor& e) {
    std::vector<std::string>& texts = out.emplace_back();
    e.ForEachOwnStat([&](const XStatVisitor& s) {
      texts.push_back(absl::StrCat(s.name(), "=", s.ToString()));
    });
    EXPECT_EQ(e.num_stats(), texts.size());
  });
  return out;
}

using Texts = std::vector<std::vector<std::string>>;

TEST(XSpaceBuilderTest, EventIsCompact) {
  static_assert(sizeof(Event) == 24);
  Event e;
  e.set_metadata_index(Event::kMaxEventMetadata);
  e.set_is_aggregate(true);
  e.set_has_data(true);
  EXPECT_EQ(e.metadata_index(), Event::kMaxEventMetadata);
  EXPECT_TRUE(e.is_aggregate());
  EXPECT_TRUE(e.has_data());
  e.set_is_aggregate(false);
  EXPECT_EQ(e.metadata_index(), Event::kMaxEventMetadata);
  EXPECT_FALSE(e.is_aggregate());
  EXPECT_TRUE(e.has_data());
  e.set_metadata_index(12345);
  e.set_has_data(false);
  EXPECT_EQ(e.metadata_index(), 12345u);
  EXPECT_FALSE(e.is_aggregate());
  EXPECT_FALSE(e.has_data());
}

TEST(XSpaceBuilderTest, StatsOnOlderEventsAreInsertedInPlace) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t op = host->GetOrCreateEventMetadata("op");
  uint32_t a = host->GetOrCreateStatMetadata("a");
  uint32_t b = host->GetOrCreateStatMetadata("b");
  XLineBuilder* line = host->GetOrCreateLine(1);
  XEventBuilder e0 = line->AddEvent(op, 0, 10);
  e0.AddInt64(a, 1);
  XEventBuilder e1 = line->AddEvent(op, 10, 10);  // No stats.
  XEventBuilder e2 = line->AddEvent(op, 20, 10);
  e2.AddInt64(a, 3);
  XEventBuilder e3 = line->AddEvent(op, 30, 10);  // No stats, last.
  e0.AddInt64(b, 2);                   // Older event: inserted after its stats.
  e1.AddInt64(b, int64_t{1} << 40);    // An event without stats (wide value).
  e0.AddInt64(a, 4);                   // Replaces, in place.
  e2.AddString(b, "x");
  e1.AddDouble(a, 0.5);
  e3.AddInt64(a, 5);
  const Plane& plane = space.planes[0];
  const Line& raw = plane.lines[0];
  ExpectStatsInEventOrder(raw);
  EXPECT_EQ(raw.stats.size(), 7u);
  EXPECT_EQ(raw.stats_count(0), 2u);
  EXPECT_EQ(raw.stats_count(1), 2u);
  EXPECT_EQ(raw.stats_count(2), 2u);
  EXPECT_EQ(raw.stats_count(3), 1u);
  EXPECT_EQ(StatTexts(space, plane, raw),
            (Texts{{"a=4", "b=2"}, {"b=1099511627776", "a=0.5"}, {"a=3", "b=x"}, {"a=5"}}));
}

TEST(XSpaceBuilderTest, AddInt64StatsEqualsAddInt64OnRandomLines) {
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    const uint32_t num_events = 1 + pick(30);
    std::vector<std::vector<std::pair<uint32_t, int64_t>>> initial(num_events);
    for (auto& stats : initial) {
      for (uint32_t k = pick(4); k > 0; --k) stats.push_back({pick(5), int64_t{pick(3)} << 40});
    }
    std::vector<EventInt64Stat> adds(pick(40));
    for (EventInt64Stat& add : adds) {
      add = {pick(num_events), pick(5), static_cast<int64_t>(rng()) - (1 << 30)};
    }
    auto build = [&](bool batch, XSpaceData* space) {
      XSpaceBuilder builder(space);
      XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
      uint32_t op = host->GetOrCreateEventMetadata("op");
      for (int k = 0; k < 5; ++k) host->GetOrCreateStatMetadata(absl::StrCat("s", k));
      XLineBuilder* line = host->GetOrCreateLine(1);
      for (uint32_t i = 0; i < num_events; ++i) {
        XEventBuilder e = line->AddEvent(op, i, 1);
        for (const auto& [stat, value] : initial[i]) e.AddInt64(stat, value);
      }
      if (batch) {
        line->AddInt64Stats(adds);
      } else {
        for (const EventInt64Stat& add : adds) {
          XEventBuilder(host, &space->planes[0].lines[0], add.event_index)
              .AddInt64(add.stat_metadata_index, add.value);
        }
      }
    };
    XSpaceData one, batch;
    build(false, &one);
    build(true, &batch);
    const Line& raw = batch.planes[0].lines[0];
    ExpectStatsInEventOrder(raw);
    EXPECT_EQ(StatTexts(batch, batch.planes[0], raw),
              StatTexts(one, one.planes[0], one.planes[0].lines[0]));
    EXPECT_EQ(batch.planes[0].wide_values, one.planes[0].wide_values);
    EXPECT_EQ(raw.stats.size(), one.planes[0].lines[0].stats.size());
  }
}

TEST(XSpaceBuilderTest, FinalizeSortsEventsWithTheirStats) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t op = host->GetOrCreateEventMetadata("op");
  uint32_t n = host->GetOrCreateStatMetadata("n");
  uint32_t m = host->GetOrCreateStatMetadata("m");
  XLineBuilder* line = host->GetOrCreateLine(1);
  // Out of time order, with 0, 1, 2 or 3 stats; one aggregate (goes last);
  // two at the same time and duration (stable).
  const int64_t offsets[] = {50, 10, 30, 10, 0, 30};
  for (int i = 0; i < 6; ++i) {
    XEventBuilder e =
        i == 4 ? line->AddAggregatedEvent(op, 7, 1) : line->AddEvent(op, offsets[i], 5);
    for (int k = 0; k < i % 4; ++k) e.AddInt64(k % 2 ? m : n, i * 10 + k);
  }
  XEventBuilder(host, &space.planes[0].lines[0], 0).AddInt64(m, 99);  // Older event.
  builder.Finalize({.normalize_timestamps = false});
  const Plane& plane = space.planes[0];
  ASSERT_EQ(plane.lines.size(), 1u);
  const Line& raw = plane.lines[0];
  ExpectStatsInEventOrder(raw);
  std::vector<int64_t> order;
  for (const Event& e : raw.events) order.push_back(e.offset_ps);
  EXPECT_EQ(order, (std::vector<int64_t>{10, 10, 30, 30, 50, 7}));
  EXPECT_EQ(StatTexts(space, plane, raw),
            (Texts{{"n=10"}, {"n=32", "m=31"}, {"n=20", "m=21"}, {"n=50"}, {"m=99"}, {}}));
}

TEST(XSpaceBuilderTest, AddInt64StatsEqualsAddInt64InOrder) {
  // The same adds, once one by one and once in a batch, on a line with
  // events with and without stats (the last one too).
  struct Add {
    uint32_t event;
    int stat;
    int64_t value;
  };
  const std::vector<Add> adds = {{5, 0, 1},  {0, 1, 2},  {3, 0, 3}, {0, 0, 4},
                                 {5, 0, 5},  {2, 2, 6},  {9, 1, 7}, {0, 1, int64_t{1} << 50},
                                 {3, 2, -8}, {7, 0, 9}};
  auto build = [&](bool batch, XSpaceData* space) {
    XSpaceBuilder builder(space);
    XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
    uint32_t op = host->GetOrCreateEventMetadata("op");
    uint32_t stat[3] = {host->GetOrCreateStatMetadata("s0"), host->GetOrCreateStatMetadata("s1"),
                        host->GetOrCreateStatMetadata("s2")};
    XLineBuilder* line = host->GetOrCreateLine(1);
    for (int i = 0; i < 10; ++i) {
      XEventBuilder e = line->AddEvent(op, i, 1);
      if (i % 3 == 0) e.AddInt64(stat[i % 2], 100 + i);
      if (i == 3) e.AddString(stat[2], "three");
    }
    if (batch) {
      std::vector<EventInt64Stat> list;
      for (const Add& a : adds) list.push_back({a.event, stat[a.stat], a.value});
      line->AddInt64Stats(list);
    } else {
      Line* raw = &space->planes[0].lines[0];
      for (const Add& a : adds) XEventBuilder(host, raw, a.event).AddInt64(stat[a.stat], a.value);
    }
  };
  XSpaceData one, batch;
  build(false, &one);
  build(true, &batch);
  const Line& raw = batch.planes[0].lines[0];
  ExpectStatsInEventOrder(raw);
  EXPECT_EQ(StatTexts(batch, batch.planes[0], raw),
            StatTexts(one, one.planes[0], one.planes[0].lines[0]));
  EXPECT_EQ(StatTexts(batch, batch.planes[0], raw)[0],
            (std::vector<std::string>{"s0=4", "s1=1125899906842624"}));
  EXPECT_EQ(batch.planes[0].wide_values, one.planes[0].wide_values);
  EXPECT_EQ(raw.stats.size(), one.planes[0].lines[0].stats.size());
  // Nothing to add: nothing changes.
  XLineBuilder* line = XSpaceBuilder(&batch).GetOrCreatePlane(kHostThreadsPlaneName)->FindLine(1);
  line->AddInt64Stats({});
  EXPECT_EQ(StatTexts(batch, batch.planes[0], raw),
            StatTexts(one, one.planes[0], one.planes[0].lines[0]));
}

TEST(XSpaceBuilderTest, InternsMetadataAndKeepsStats) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t op = host->GetOrCreateEventMetadata("op");
  EXPECT_EQ(host->GetOrCreateEventMetadata("op"), op);
  uint32_t corr = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
  uint32_t details = host->GetOrCreateStatMetadata(StatType::kKernelDetails);
  XLineBuilder* line = host->GetOrCreateLine(/*line_id=*/7);
  line->SetName("thread 7");
  XEventBuilder a = line->AddEvent(op, /*offset_ps=*/1000, /*duration_ps=*/500);
  a.AddInt64(corr, 42);
  XEventBuilder b = line->AddEvent(op, /*offset_ps=*/2000, /*duration_ps=*/100);
  b.AddRef(details, "regs:32");
  a.AddString(details, "late stat on an older event");  // Must stay contiguous.
  builder.Finalize({.normalize_timestamps = false});

  const Plane& plane = space.planes[0];
  XPlaneVisitor visitor(&space, &plane, SpaceBaseNs(space));
  ASSERT_EQ(visitor.num_lines(), 1u);
  XLineVisitor lv = visitor.line(0);
  EXPECT_EQ(lv.name(), "thread 7");
  ASSERT_EQ(lv.num_events(), 2u);
  XEventVisitor ea = lv.event(0);
  EXPECT_EQ(ea.name(), "op");
  EXPECT_EQ(ea.begin_ps(), 1000);
  ASSERT_TRUE(ea.GetStat(StatType::kCorrelationId).has_value());
  EXPECT_EQ(ea.GetStat(StatType::kCorrelationId)->IntValue(), 42);
  EXPECT_EQ(ea.GetStat(StatType::kKernelDetails)->StrOrRefValue(), "late stat on an older event");
  XEventVisitor eb = lv.event(1);
  EXPECT_EQ(eb.GetStat(StatType::kKernelDetails)->StrOrRefValue(), "regs:32");
  EXPECT_EQ(eb.GetStat(StatType::kKernelDetails)->kind(), StatKind::kRef);
  EXPECT_FALSE(eb.GetStat(StatType::kCorrelationId).has_value());
}

TEST(XSpaceBuilderTest, FinalizeSortsPlanesLinesAndEvents) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  builder.GetOrCreatePlane("/device:GPU:1");
  builder.GetOrCreatePlane("zzz");
  XPlaneBuilder* gpu0 = builder.GetOrCreatePlane("/device:GPU:0");
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t md = host->GetOrCreateEventMetadata("e");
  XLineBuilder* l2 = host->GetOrCreateLine(2);
  XLineBuilder* l1 = host->GetOrCreateLine(1);
  l2->AddEvent(md, /*offset_ps=*/300, /*duration_ps=*/10);
  l2->AddEvent(md, /*offset_ps=*/100, /*duration_ps=*/10);
  l2->AddEvent(md, /*offset_ps=*/100, /*duration_ps=*/50);  // Outer first.
  l1->AddEvent(md, /*offset_ps=*/0, /*duration_ps=*/1);
  gpu0->GetOrCreateLine(0);
  builder.Finalize({.normalize_timestamps = false});
  std::vector<std::string> names;
  for (const Plane& p : space.planes) names.emplace_back(space.strings.Get(p.name));
  EXPECT_EQ(names, (std::vector<std::string>{"/host:CPU", "/device:GPU:0", "/device:GPU:1", "zzz"}));
  const Plane& hp = space.planes[0];
  EXPECT_EQ(hp.lines[0].id, 1);
  EXPECT_EQ(hp.lines[1].id, 2);
  const auto& ev = hp.lines[1].events;
  EXPECT_EQ(ev[0].offset_ps, 100);
  EXPECT_EQ(ev[0].duration_ps, 50);
  EXPECT_EQ(ev[1].duration_ps, 10);
  EXPECT_EQ(ev[2].offset_ps, 300);
}

TEST(XSpaceBuilderTest, FinalizeMovesPartialOverlapsToAnExtraLine) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t md = host->GetOrCreateEventMetadata("e");
  XLineBuilder* line = host->GetOrCreateLine(1);
  line->AddEvent(md, /*offset_ps=*/0, /*duration_ps=*/100);
  line->AddEvent(md, /*offset_ps=*/50, /*duration_ps=*/100);  // Crosses the end at 100.
  line->AddEvent(md, /*offset_ps=*/100, /*duration_ps=*/0);   // Touching: fine.
  FinalizeStats stats = builder.Finalize({.normalize_timestamps = false});
  EXPECT_EQ(stats.events_moved, 1);
  ASSERT_EQ(space.planes[0].lines.size(), 2u);
  const Line& kept = space.planes[0].lines[0];
  const Line& extra = space.planes[0].lines[1];
  ASSERT_EQ(kept.events.size(), 2u);
  EXPECT_EQ(kept.events[0].duration_ps, 100);
  EXPECT_EQ(kept.events[1].offset_ps, 100);
  ASSERT_EQ(extra.events.size(), 1u);
  EXPECT_EQ(extra.events[0].offset_ps, 50);
  EXPECT_EQ(extra.events[0].duration_ps, 100);  // Never cut.
  EXPECT_EQ(extra.id, 0x40000000);
  EXPECT_EQ(space.strings.Get(extra.name), " (overlapping)");
}

TEST(XSpaceBuilderTest, OverlapsCascadeAndKeepTheirStats) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* gpu = builder.GetOrCreatePlane(GpuPlaneName(0));
  uint32_t md = gpu->GetOrCreateEventMetadata("k");
  uint32_t corr = gpu->GetOrCreateStatMetadata("correlation_id");
  XLineBuilder* line = gpu->GetOrCreateLine(7);
  line->SetName("Stream #7");
  // Three kernels, each starting before the previous one ends (PDL).
  for (int i = 0; i < 3; ++i) {
    XEventBuilder ev = line->AddEvent(md, /*offset_ps=*/i * 80, /*duration_ps=*/100);
    ev.AddInt64(corr, 1000 + i);
  }
  FinalizeStats stats = builder.Finalize({.normalize_timestamps = false});
  EXPECT_EQ(stats.events_moved, 1);
  const Plane& plane = space.planes[0];
  ASSERT_EQ(plane.lines.size(), 2u);
  // 0 and 160 do not overlap (0..100, 160..260); 80 overlaps both.
  EXPECT_EQ(plane.lines[0].events.size(), 2u);
  ASSERT_EQ(plane.lines[1].events.size(), 1u);
  EXPECT_EQ(space.strings.Get(plane.lines[1].name), "Stream #7 (overlapping)");
  const Event& moved = plane.lines[1].events[0];
  EXPECT_EQ(moved.offset_ps, 80);
  EXPECT_EQ(moved.duration_ps, 100);
  ASSERT_EQ(plane.lines[1].stats_count(0), 1u);
  EXPECT_EQ(plane.lines[1].stats[moved.stats_begin].int64_value(plane.wide_values), 1001);
  ASSERT_EQ(plane.lines[0].stats.size(), 2u);
  EXPECT_EQ(plane.lines[0].stats[plane.lines[0].events[1].stats_begin].int64_value(plane.wide_values),
            1002);
}

TEST(XSpaceBuilderTest, FinalizeNormalizesToSessionStart) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t md = host->GetOrCreateEventMetadata("e");
  XLineBuilder* a = host->GetOrCreateLine(1);
  XLineBuilder* b = host->GetOrCreateLine(2);
  a->SetTimestampNs(1000);
  b->SetTimestampNs(1000);
  a->AddEvent(md, /*offset_ps=*/-5000, /*duration_ps=*/1000);  // 5 ns before base.
  b->AddEvent(md, /*offset_ps=*/7000, /*duration_ps=*/3000);
  FinalizeStats stats = builder.Finalize({.normalize_timestamps = true,
                                          .epoch_ns_of_zero = 1'700'000'000'000'000'000});
  EXPECT_EQ(stats.session_start_ps, -5000);
  EXPECT_EQ(space.planes[0].lines[0].timestamp_ns, 0);
  EXPECT_EQ(space.planes[0].lines[0].events[0].offset_ps, 0);
  EXPECT_EQ(space.planes[0].lines[1].events[0].offset_ps, 12000);
  const Plane* env = FindPlaneWithName(space, kTaskEnvPlaneName);
  ASSERT_NE(env, nullptr);
  XPlaneVisitor v(&space, env, 0);
  EXPECT_EQ(v.GetStat(StatType::kProfileStartTime)->IntValue(), 1'700'000'000'000'000'000 + 995);
  EXPECT_EQ(v.GetStat(StatType::kProfileStopTime)->IntValue(), 1'700'000'000'000'000'000 + 1010);
}

TEST(XSpaceBuilderTest, PlaneStatsReplaceEarlierValues) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* gpu = builder.GetOrCreatePlane(GpuPlaneName(0));
  uint32_t cores = gpu->GetOrCreateStatMetadata(StatType::kDevCapCoreCount);
  gpu->SetStatInt64(cores, 80);
  gpu->SetStatInt64(cores, 132);
  gpu->SetStatString(gpu->GetOrCreateStatMetadata(StatType::kDevVendor), kDeviceVendorNvidia);
  XPlaneVisitor v(&space, &space.planes[0], 0);
  EXPECT_EQ(v.GetStat(StatType::kDevCapCoreCount)->IntValue(), 132);
  EXPECT_EQ(v.GetStat(StatType::kDevVendor)->StrOrRefValue(), "Nvidia");
  EXPECT_EQ(space.planes[0].stats.size(), 2u);
}

}  // namespace
}  // namespace tbprof::xplane
