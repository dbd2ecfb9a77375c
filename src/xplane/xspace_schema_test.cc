#include "src/xplane/xspace_schema.h"

#include "gtest/gtest.h"

namespace tbprof::xplane {
namespace {

TEST(XSpaceSchemaTest, EveryStatTypeRoundTrips) {
  for (int i = 1; i < static_cast<int>(StatType::kNumTypes); ++i) {
    StatType type = static_cast<StatType>(i);
    absl::string_view name = StatTypeName(type);
    ASSERT_FALSE(name.empty()) << i;
    EXPECT_EQ(FindStatType(name), type) << name;
  }
  EXPECT_EQ(FindStatType("no_such_stat"), StatType::kUnknown);
}

TEST(XSpaceSchemaTest, PluginSpellings) {
  EXPECT_EQ(StatTypeName(StatType::kIsRoot), "_r");
  EXPECT_EQ(StatTypeName(StatType::kCorrelationId), "correlation_id");
  EXPECT_EQ(StatTypeName(StatType::kKernelDetails), "kernel_details");
  EXPECT_EQ(StatTypeName(StatType::kMemFreeDetails), "MemFree_details");
  EXPECT_EQ(StatTypeName(StatType::kDevCapClockRateKHz), "clock_rate");
}

TEST(XSpaceSchemaTest, EveryHostEventTypeRoundTrips) {
  for (int i = 1; i < static_cast<int>(HostEventType::kNumTypes); ++i) {
    HostEventType type = static_cast<HostEventType>(i);
    EXPECT_EQ(FindHostEventType(HostEventTypeName(type)), type);
  }
  EXPECT_EQ(FindHostEventType("MemoryAllocation"), HostEventType::kMemoryAllocation);
  EXPECT_EQ(FindHostEventType("aten::mm"), HostEventType::kUnknown);
}

TEST(XSpaceSchemaTest, GpuPlaneNames) {
  EXPECT_EQ(GpuPlaneName(3), "/device:GPU:3");
  EXPECT_EQ(ParseGpuPlaneOrdinal("/device:GPU:12"), 12);
  EXPECT_FALSE(ParseGpuPlaneOrdinal("/device:GPU:").has_value());
  EXPECT_FALSE(ParseGpuPlaneOrdinal("/host:CPU").has_value());
  EXPECT_FALSE(ParseGpuPlaneOrdinal("/device:GPU:x").has_value());
}

}  // namespace
}  // namespace tbprof::xplane
