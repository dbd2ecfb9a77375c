#include "converters/common/gpu_plane_stats.h"

#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using xplane::StatType;

TEST(GpuPlaneStatsTest, WritesKnownFieldsAsInt64) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* plane = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  GpuDeviceProperties props;
  props.name = "Tesla V100-SXM2-32GB";
  props.vendor = GpuVendor::kNvidia;
  props.num_sms = 80;
  props.total_global_mem_bytes = 34079899648;
  props.compute_major = 7;
  props.compute_minor = 0;
  SetGpuPlaneDeviceStats(props, plane);

  xplane::XPlaneVisitor visitor(&space, &space.planes[0], 0);
  ASSERT_TRUE(visitor.GetStat(StatType::kDevVendor).has_value());
  EXPECT_EQ(visitor.GetStat(StatType::kDevVendor)->StrOrRefValue(), "Nvidia");
  EXPECT_EQ(visitor.GetStat(StatType::kGpuDeviceName)->StrOrRefValue(), "Tesla V100-SXM2-32GB");
  EXPECT_EQ(visitor.GetStat(StatType::kDevCapCoreCount)->kind(), xplane::StatKind::kInt64);
  EXPECT_EQ(visitor.GetStat(StatType::kDevCapCoreCount)->IntValue(), 80);
  EXPECT_EQ(visitor.GetStat(StatType::kDevCapMemorySize)->IntValue(), 34079899648);
  EXPECT_EQ(visitor.GetStat(StatType::kDevCapComputeCapMajor)->IntValue(), 7);
  EXPECT_EQ(visitor.GetStat(StatType::kDevCapComputeCapMinor)->IntValue(), 0);
  // Unknown fields are left out rather than written as 0.
  EXPECT_FALSE(visitor.GetStat(StatType::kDevCapClockRateKHz).has_value());
  EXPECT_FALSE(visitor.GetStat(StatType::kDevCapMemoryBandwidth).has_value());
}

TEST(GpuPlaneStatsTest, UnknownVendorIsOmitted) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* plane = builder.GetOrCreatePlane(xplane::GpuPlaneName(1));
  SetGpuPlaneDeviceStats(GpuDeviceProperties(), plane);
  xplane::XPlaneVisitor visitor(&space, &space.planes[0], 0);
  EXPECT_FALSE(visitor.GetStat(StatType::kDevVendor).has_value());
  EXPECT_FALSE(visitor.GetStat(StatType::kDevCapComputeCapMajor).has_value());
}

}  // namespace
}  // namespace tbprof::converters
