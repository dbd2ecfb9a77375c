#include "converters/views/steps/step_db_builder.h"

#include <cstdint>
#include <map>
#include <vector>

#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/xspace_step_grouping.h"
#include "gtest/gtest.h"
#include "proto/steps_db.pb.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::GenericStepBreakdown;

// `n` groups with host windows [1000 g, 1000 g + 1000).
std::vector<StepGroup> HostGroups(int n) {
  std::vector<StepGroup> groups(n);
  for (int g = 0; g < n; ++g) {
    groups[g].group_id = g;
    groups[g].step_num = g;
    groups[g].has_host_span = true;
    groups[g].host_begin_ps = 1000 * g;
    groups[g].host_end_ps = 1000 * g + 1000;
  }
  return groups;
}

// Nonzero type_ps of each step.
std::vector<std::map<int, uint64_t>> Breakdowns(const StepDbBuilder::Result& result) {
  std::vector<std::map<int, uint64_t>> out;
  for (const auto& step : result.step_db.step_sequence()) {
    GenericStepBreakdown breakdown;
    EXPECT_TRUE(step.step_info_per_core().at(kDefaultGpuLocalCoreId).step_breakdown().UnpackTo(
        &breakdown));
    std::map<int, uint64_t>& types = out.emplace_back();
    for (const auto& [type, ps] : breakdown.type_ps()) {
      if (ps > 0) types[type] = ps;
    }
  }
  return out;
}

TEST(StepDbBuilderTest, InterleavedGroupsKeepTheirSpans) {
  StepDbBuilder builder(/*num_device_planes=*/0);
  builder.AddHostEvent(0, {0, 100, kHostCompute});
  builder.AddHostEvent(1, {1000, 1300, kHostCompute});
  builder.AddHostEvent(0, {50, 400, kHostWaitInput});
  builder.AddHostEvent(-1, {0, 1000, kHostCompile});  // No group: dropped.
  builder.AddHostEvent(1, {1500, 1600, kHostPrepare});
  builder.AddHostEvent(0, {900, 1000, kHostCompute});
  StepDbBuilder::Result result =
      builder.Build(HostGroups(2), StepWindowMode::kHostOnly, /*drop_incomplete_steps=*/false);
  ASSERT_EQ(result.step_db.step_sequence_size(), 2);
  const std::vector<std::map<int, uint64_t>> expected = {
      {{kHostCompute, 150}, {kHostWaitInput, 350}, {kUnknownTime, 500}},
      {{kHostCompute, 300}, {kHostPrepare, 100}, {kUnknownTime, 600}},
  };
  EXPECT_EQ(Breakdowns(result), expected);
}

// Spans are stored in 16 bytes with a 55-bit length; longer ones take
// another path and must come out the same.
TEST(StepDbBuilderTest, SpansOfAnyLengthAreExact) {
  constexpr int64_t kMaxPacked = (int64_t{1} << 55) - 2;
  StepDbBuilder builder(/*num_device_planes=*/0);
  builder.AddHostEvent(0, {400 - kMaxPacked, 400, kHostCompute});
  builder.AddHostEvent(1, {1300 - (kMaxPacked + 1), 1300, kHostCompute});
  builder.AddHostEvent(1, {1300, 1300 + (int64_t{1} << 60), kHostWaitInput});
  builder.AddHostEvent(2, {-(int64_t{1} << 62), int64_t{1} << 62, kHostCompute});
  builder.AddHostEvent(2, {2100, 2200, kHostPrepare});
  StepDbBuilder::Result result =
      builder.Build(HostGroups(3), StepWindowMode::kHostOnly, /*drop_incomplete_steps=*/false);
  const std::vector<std::map<int, uint64_t>> expected = {
      {{kHostCompute, 400}, {kUnknownTime, 600}},
      {{kHostCompute, 300}, {kHostWaitInput, 700}},
      {{kHostCompute, 900}, {kHostPrepare, 100}},
  };
  EXPECT_EQ(Breakdowns(result), expected);
}

TEST(StepDbBuilderTest, GroupsPastTheGroupListAreIgnored) {
  StepDbBuilder builder(/*num_device_planes=*/0);
  builder.AddHostEvent(0, {0, 500, kHostCompute});
  builder.AddHostEvent(5, {0, 1000, kHostCompile});
  StepDbBuilder::Result result =
      builder.Build(HostGroups(1), StepWindowMode::kHostOnly, /*drop_incomplete_steps=*/false);
  const std::vector<std::map<int, uint64_t>> expected = {
      {{kHostCompute, 500}, {kUnknownTime, 500}},
  };
  EXPECT_EQ(Breakdowns(result), expected);
}

// One builder serves both breakdowns: device-only steps leave the host
// events out, with-host steps count them, and Build() may run twice.
TEST(StepDbBuilderTest, DeviceOnlyBuildLeavesHostEventsOut) {
  std::vector<StepGroup> groups = HostGroups(1);
  StepDbBuilder builder(/*num_device_planes=*/1);
  builder.AddDeviceMarker(0, 0, 600, 900);
  builder.AddDeviceEvent(0, {600, 900, kDeviceCompute32});
  builder.AddHostEvent(0, {100, 500, kHostWaitInput});
  builder.AddHostEvent(0, {(int64_t{1} << 56), (int64_t{1} << 57), kHostCompute});  // Wide.
  const StepDbBuilder::Result with_host =
      builder.Build(groups, StepWindowMode::kWithHost, /*drop_incomplete_steps=*/false);
  const StepDbBuilder::Result device_only =
      builder.Build(groups, StepWindowMode::kDeviceOnly, /*drop_incomplete_steps=*/false);
  const StepDbBuilder::Result again =
      builder.Build(groups, StepWindowMode::kWithHost, /*drop_incomplete_steps=*/false);
  const std::vector<std::map<int, uint64_t>> expected_with_host = {
      {{kHostWaitInput, 400}, {kDeviceCompute32, 300}, {kUnknownTime, 300}},
  };
  const std::vector<std::map<int, uint64_t>> expected_device_only = {
      {{kDeviceCompute32, 300}},
  };
  EXPECT_EQ(Breakdowns(with_host), expected_with_host);
  EXPECT_EQ(Breakdowns(device_only), expected_device_only);
  EXPECT_EQ(Breakdowns(again), expected_with_host);
}

}  // namespace
}  // namespace tbprof::views
