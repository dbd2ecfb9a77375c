#include "converters/views/steps/xspace_step_grouping.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "converters/views/common/steps_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using ::testing::ElementsAre;
using testing::StepSpaceBuilder;

XSpaceStepGroups Group(const xplane::XSpaceData& space) {
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (host == nullptr) return GroupXSpaceSteps(space, nullptr);
  xplane::XPlaneVisitor visitor(&space, host, xplane::SpaceBaseNs(space));
  return GroupXSpaceSteps(space, &visitor);
}

// Host line index of thread `tid` (lines are sorted by id).
size_t LineIndex(const xplane::XSpaceData& space, int64_t tid) {
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  for (size_t i = 0; i < host->lines.size(); ++i) {
    if (host->lines[i].id == tid) return i;
  }
  return SIZE_MAX;
}

// The group of each event of host line `tid`.
std::vector<int32_t> GroupsOfLine(const XSpaceStepGroups& g, const xplane::XSpaceData& space,
                                  int64_t tid) {
  const LineEventGroups& line = g.host_event_group[LineIndex(space, tid)];
  std::vector<int32_t> groups;
  LineEventGroups::Cursor cursor;
  for (size_t i = 0; i < line.num_events(); ++i) groups.push_back(line.Find(i, &cursor));
  return groups;
}

TEST(LineEventGroupsTest, FindsTheGroupOfEachEventInAnyOrder) {
  const std::vector<int32_t> dense = {-1, -1, 0, 0, 0, -1, 1, 1, 0, 2};
  const LineEventGroups groups(dense);
  EXPECT_EQ(groups.num_events(), dense.size());
  EXPECT_EQ(groups.num_runs(), 6u);
  LineEventGroups::Cursor ascending;
  for (size_t i = 0; i < dense.size(); ++i) EXPECT_EQ(groups.Find(i, &ascending), dense[i]) << i;
  EXPECT_EQ(groups.Find(dense.size(), &ascending), -1);
  LineEventGroups::Cursor descending;
  for (size_t i = dense.size(); i-- > 0;) EXPECT_EQ(groups.Find(i, &descending), dense[i]) << i;
  EXPECT_EQ(LineEventGroups().Find(0, &ascending), -1);
}

// Past 65534 roots the grouping keeps 4 bytes per event instead of 2.
TEST(GroupXSpaceStepsTest, ManyRootsKeepTheirGroups) {
  constexpr int kRoots = 70000;
  StepSpaceBuilder b;
  for (int i = 0; i < kRoots; ++i) {
    b.Root(/*tid=*/1, "ProfilerStep#" + std::to_string(i), /*begin_ps=*/i * 100,
           /*duration_ps=*/50, /*step_num=*/i);
    b.HostEvent(1, "aten::add", /*begin_ps=*/i * 100 + 10, /*duration_ps=*/20);
  }
  const xplane::XSpaceData& space = b.Finish();
  XSpaceStepGroups g = Group(space);
  ASSERT_EQ(g.groups.size(), static_cast<size_t>(kRoots));
  const std::vector<int32_t> groups = GroupsOfLine(g, space, 1);
  ASSERT_EQ(groups.size(), 2u * kRoots);
  for (int i : {0, 65533, 65534, 65535, kRoots - 1}) {
    EXPECT_EQ(groups[2 * i], i);
    EXPECT_EQ(groups[2 * i + 1], i);
    EXPECT_EQ(g.groups[i].step_num, i);
  }
  EXPECT_EQ(g.host_event_group[LineIndex(space, 1)].num_runs(), static_cast<size_t>(kRoots));
}

TEST(GroupXSpaceStepsTest, RootDescendantsShareItsGroup) {
  StepSpaceBuilder b;
  b.Root(/*tid=*/1, "ProfilerStep#3", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/3);
  b.HostEvent(1, "aten::conv2d", /*begin_ps=*/10, /*duration_ps=*/50);
  b.Launch(1, /*begin_ps=*/20, /*duration_ps=*/5, /*correlation_id=*/7);
  b.HostEvent(1, "after", /*begin_ps=*/120, /*duration_ps=*/10);
  const xplane::XSpaceData& space = b.Finish();
  XSpaceStepGroups g = Group(space);
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0].name, "ProfilerStep#3 3");
  EXPECT_EQ(g.groups[0].step_num, 3);
  EXPECT_TRUE(g.groups[0].has_host_span);
  EXPECT_EQ(g.groups[0].host_begin_ps, 0);
  EXPECT_EQ(g.groups[0].host_end_ps, 100);
  EXPECT_THAT(GroupsOfLine(g, space, 1), ElementsAre(0, 0, 0, -1));
  EXPECT_EQ(g.GroupOfCorrelationId(7), 0);
  EXPECT_EQ(g.GroupOfCorrelationId(8), -1);
  EXPECT_FALSE(g.pregrouped);
}

TEST(GroupXSpaceStepsTest, GroupIdsFollowRootStartTimeAcrossThreads) {
  StepSpaceBuilder b;
  b.Root(/*tid=*/2, "ProfilerStep#2", /*begin_ps=*/200, /*duration_ps=*/100, /*step_num=*/2);
  b.Root(/*tid=*/1, "ProfilerStep#1", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/1);
  b.Launch(2, /*begin_ps=*/210, /*duration_ps=*/5, /*correlation_id=*/20);
  b.Launch(1, /*begin_ps=*/10, /*duration_ps=*/5, /*correlation_id=*/10);
  XSpaceStepGroups g = Group(b.Finish());
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[0].step_num, 1);
  EXPECT_EQ(g.groups[1].step_num, 2);
  EXPECT_EQ(g.GroupOfCorrelationId(10), 0);
  EXPECT_EQ(g.GroupOfCorrelationId(20), 1);
}

TEST(GroupXSpaceStepsTest, TraceContextIsALevelOneRoot) {
  StepSpaceBuilder b;
  b.HostEvent(1, "TraceContext", /*begin_ps=*/0, /*duration_ps=*/100);
  b.Launch(1, /*begin_ps=*/30, /*duration_ps=*/10, /*correlation_id=*/100);
  XSpaceStepGroups g = Group(b.Finish());
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0].name, "TraceContext 0");  // No step_num: the group id.
  EXPECT_EQ(g.GroupOfCorrelationId(100), 0);
}

TEST(GroupXSpaceStepsTest, RootNestedInSameLevelRootGetsNoGroupOfItsOwn) {
  StepSpaceBuilder b;
  b.Root(1, "outer", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/1);
  b.Root(1, "inner", /*begin_ps=*/10, /*duration_ps=*/20, /*step_num=*/2);
  b.Launch(1, /*begin_ps=*/15, /*duration_ps=*/5, /*correlation_id=*/5);
  const xplane::XSpaceData& space = b.Finish();
  XSpaceStepGroups g = Group(space);
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0].step_num, 1);
  EXPECT_THAT(GroupsOfLine(g, space, 1), ElementsAre(0, 0, 0));
}

TEST(GroupXSpaceStepsTest, HigherLevelRootGroupsFirstAndStopsAtGroupedEvents) {
  StepSpaceBuilder b;
  // A level-1 root containing a level-2 root: the level-2 root is grouped
  // first (group 0); the level-1 root (group 1) keeps the rest.
  b.Root(1, "level1", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/7);
  xplane::XEventBuilder inner = b.HostEvent(1, "level2", /*begin_ps=*/10, /*duration_ps=*/30);
  inner.AddInt64(b.Host()->GetOrCreateStatMetadata(xplane::StatType::kIsRoot), 2);
  b.HostEvent(1, "in_level2", /*begin_ps=*/15, /*duration_ps=*/5);
  b.HostEvent(1, "in_level1", /*begin_ps=*/50, /*duration_ps=*/5);
  const xplane::XSpaceData& space = b.Finish();
  XSpaceStepGroups g = Group(space);
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_THAT(GroupsOfLine(g, space, 1), ElementsAre(1, 0, 0, 1));
}

TEST(GroupXSpaceStepsTest, LaunchOnOtherThreadStaysUngrouped) {
  StepSpaceBuilder b;
  b.Root(1, "ProfilerStep#0", /*begin_ps=*/0, /*duration_ps=*/100, /*step_num=*/0);
  // Autograd's backward thread: no root around it.
  b.Launch(/*tid=*/2, /*begin_ps=*/50, /*duration_ps=*/5, /*correlation_id=*/9);
  XSpaceStepGroups g = Group(b.Finish());
  EXPECT_EQ(g.GroupOfCorrelationId(9), -1);
  EXPECT_TRUE(g.group_by_correlation_id.Contains(9));
}

TEST(GroupXSpaceStepsTest, PregroupedFilesKeepTheirGroupIds) {
  StepSpaceBuilder b;
  xplane::XEventBuilder marker = b.HostEvent(1, "FunctionRun", 0, 100);
  marker.AddInt64(b.Host()->GetOrCreateStatMetadata(xplane::StatType::kGroupId), 42);
  marker.AddString(b.Host()->GetOrCreateStatMetadata(xplane::StatType::kStepName), "42");
  xplane::XEventBuilder launch = b.HostEvent(1, "launch", 10, 5);
  launch.AddInt64(b.Host()->GetOrCreateStatMetadata(xplane::StatType::kGroupId), 42);
  launch.AddInt64(b.Host()->GetOrCreateStatMetadata(xplane::StatType::kCorrelationId), 3);
  XSpaceStepGroups g = Group(b.Finish());
  EXPECT_TRUE(g.pregrouped);
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.groups[0].group_id, 42);
  EXPECT_EQ(g.groups[0].name, "42");
  EXPECT_EQ(g.groups[0].host_end_ps, 100);
  EXPECT_EQ(g.DenseIndexOfGroupId(42), 0);
  EXPECT_EQ(g.GroupOfCorrelationId(3), 0);
}

TEST(GroupXSpaceStepsTest, NoHostPlaneNoGroups) {
  StepSpaceBuilder b;
  b.Device(0, 1, "kernel", 0, 10, 1);
  XSpaceStepGroups g = Group(b.Finish());
  EXPECT_TRUE(g.groups.empty());
  EXPECT_TRUE(g.host_event_group.empty());
}

}  // namespace
}  // namespace tbprof::views
