#include "src/xplane/xspace_builder.h"

#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::xplane {
namespace {

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
  ASSERT_EQ(moved.stats_count, 1);
  EXPECT_EQ(plane.lines[1].stats[moved.stats_begin].int64_value(plane.wide_values), 1001);
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
