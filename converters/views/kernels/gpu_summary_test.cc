#include "converters/views/kernels/gpu_summary.h"

#include <string>

#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using xplane::StatType;

// grid:g blocks, occupancy `occ` (none when < 0).
std::string Details(int grid, double occ) {
  std::string d = "regs:32 static_shared:0 dynamic_shared:0 grid:" + std::to_string(grid) +
                  ",1,1 block:128,1,1";
  if (occ >= 0) d += " occ_pct:" + std::to_string(static_cast<int>(occ));
  return d;
}

class GpuPlane {
 public:
  GpuPlane(xplane::XSpaceBuilder* builder, int ordinal, int64_t sm_count, int64_t line_id = 7) {
    plane_ = builder->GetOrCreatePlane(xplane::GpuPlaneName(ordinal));
    if (sm_count > 0) {
      plane_->SetStatInt64(plane_->GetOrCreateStatMetadata(StatType::kDevCapCoreCount), sm_count);
    }
    plane_->SetStatString(plane_->GetOrCreateStatMetadata(StatType::kGpuDeviceName), "GPU X");
    line_ = plane_->GetOrCreateLine(line_id);
  }
  // Following kernels go to the stream line `id`.
  void UseLine(int64_t id) { line_ = plane_->GetOrCreateLine(id); }
  void Kernel(absl::string_view name, int64_t begin_ps, int64_t duration_ps,
              const std::string& details) {
    xplane::XEventBuilder e =
        line_->AddEvent(plane_->GetOrCreateEventMetadata(name), begin_ps, duration_ps);
    e.AddRef(plane_->GetOrCreateStatMetadata(StatType::kKernelDetails), details);
  }
  // A kernel whose kernel_details is a string value, not a ref.
  void KernelWithStr(absl::string_view name, int64_t begin_ps, int64_t duration_ps,
                     const std::string& details) {
    xplane::XEventBuilder e =
        line_->AddEvent(plane_->GetOrCreateEventMetadata(name), begin_ps, duration_ps);
    e.AddString(plane_->GetOrCreateStatMetadata(StatType::kKernelDetails), details);
  }
  void Memcpy(int64_t begin_ps, int64_t duration_ps) {
    line_->AddEvent(plane_->GetOrCreateEventMetadata("Memcpy HtoD"), begin_ps, duration_ps);
  }

 private:
  xplane::XPlaneBuilder* plane_;
  xplane::XLineBuilder* line_;
};

TEST(GpuSummaryTest, TorchTbProfilerDefinitionsOverTheSteps) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuPlane gpu(&builder, 0, /*sm_count=*/80);
  // Step window [0, 1000). Kernels: [0,200) 40 blocks occ 50; [100,300)
  // 160 blocks occ 100, Tensor Core; [900,1100) half outside; a memcpy
  // (no kernel_details) is not a kernel.
  gpu.Kernel("k_small", 0, 200, Details(40, 50));
  gpu.Kernel("volta_h884gemm", 100, 200, Details(160, 100));
  gpu.Kernel("k_late", 900, 200, Details(80, -1));
  gpu.Memcpy(500, 100);
  builder.Finalize({.normalize_timestamps = false});

  tbprof::GpuSummary s = ComputeGpuSummary(space, {{0, 1000}});
  ASSERT_EQ(s.devices_size(), 1);
  EXPECT_TRUE(s.window_from_steps());
  const tbprof::GpuDeviceSummary& d = s.devices(0);
  EXPECT_EQ(d.device_ordinal(), 0);
  EXPECT_EQ(d.name(), "GPU X");
  EXPECT_EQ(d.sm_count(), 80);
  EXPECT_EQ(d.window_ps(), 1000);
  EXPECT_EQ(d.busy_ps(), 300 + 100);          // [0,300) and [900,1000).
  EXPECT_EQ(d.kernel_ps(), 200 + 200 + 100);  // Clipped to the window.
  EXPECT_DOUBLE_EQ(d.utilization_percent(), 40);
  // (0.5 x 200 + 1 x 200 + 1 x 100) / 1000.
  EXPECT_DOUBLE_EQ(d.sm_efficiency_percent(), 40);
  // Kernels with occupancy: (50 x 200 + 100 x 200) / 400.
  EXPECT_DOUBLE_EQ(d.occupancy_percent(), 75);
  EXPECT_DOUBLE_EQ(d.tensor_core_percent(), 40);  // 200 of 500.
}

TEST(GpuSummaryTest, WithoutStepsTheKernelSpanAndUnknownSmCount) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuPlane gpu(&builder, 1, /*sm_count=*/0);
  gpu.Kernel("k", 100, 100, Details(10, -1));
  gpu.Kernel("k", 300, 100, Details(10, -1));
  builder.Finalize({.normalize_timestamps = false});

  tbprof::GpuSummary s = ComputeGpuSummary(space, {});
  ASSERT_EQ(s.devices_size(), 1);
  EXPECT_FALSE(s.window_from_steps());
  const tbprof::GpuDeviceSummary& d = s.devices(0);
  EXPECT_EQ(d.device_ordinal(), 1);
  EXPECT_EQ(d.window_ps(), 300);  // [100, 400).
  EXPECT_DOUBLE_EQ(d.utilization_percent(), 200.0 / 3);
  EXPECT_EQ(d.sm_efficiency_percent(), -1);
  EXPECT_EQ(d.occupancy_percent(), -1);
  EXPECT_EQ(d.tensor_core_percent(), 0);
}

TEST(GpuSummaryTest, KernelDetailsOfEachPlaneAndValueKind) {
  // Ref ids are per plane: the same stat-metadata layout on two planes
  // refers to different texts, each plane's own (kernel_details are cached
  // by ref id within a plane only). String values count alike.
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuPlane gpu0(&builder, 0, /*sm_count=*/80);
  GpuPlane gpu1(&builder, 1, /*sm_count=*/80);
  gpu0.Kernel("k", 0, 100, Details(40, -1));    // 0.5 of the SMs.
  gpu0.Kernel("k", 100, 100, Details(40, -1));  // Same text again: cached.
  gpu1.Kernel("k", 0, 100, Details(80, -1));    // All SMs.
  gpu1.KernelWithStr("k", 100, 100, Details(20, -1));  // 0.25 of them.
  builder.Finalize({.normalize_timestamps = false});

  tbprof::GpuSummary s = ComputeGpuSummary(space, {{0, 200}});
  ASSERT_EQ(s.devices_size(), 2);
  EXPECT_DOUBLE_EQ(s.devices(0).sm_efficiency_percent(), 50);
  EXPECT_DOUBLE_EQ(s.devices(1).sm_efficiency_percent(), 62.5);  // (1 + 0.25) / 2.
}

TEST(GpuSummaryTest, KernelsOfSeveralStreamsInTimeOrder) {
  // Two streams whose kernels interleave (and one that starts with another):
  // the busy time is their union, whatever the order of the lines.
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuPlane gpu(&builder, 0, /*sm_count=*/80);
  gpu.Kernel("a", 100, 100, Details(80, 50));  // [100, 200)
  gpu.Kernel("a", 400, 100, Details(80, 50));  // [400, 500)
  gpu.UseLine(8);
  gpu.Kernel("b", 0, 150, Details(40, 100));    // [0, 150)
  gpu.Kernel("b", 400, 50, Details(40, 100));   // [400, 450): same start.
  gpu.Kernel("b", 600, 100, Details(40, 100));  // [600, 700)
  builder.Finalize({.normalize_timestamps = false});

  tbprof::GpuSummary s = ComputeGpuSummary(space, {{0, 1000}});
  ASSERT_EQ(s.devices_size(), 1);
  const tbprof::GpuDeviceSummary& d = s.devices(0);
  EXPECT_EQ(d.busy_ps(), 200 + 100 + 100);  // [0,200), [400,500), [600,700).
  EXPECT_EQ(d.kernel_ps(), 100 + 100 + 150 + 50 + 100);
  // (1 x 200 + 0.5 x 300) / 1000.
  EXPECT_DOUBLE_EQ(d.sm_efficiency_percent(), 35);
  // (50 x 200 + 100 x 300) / 500.
  EXPECT_DOUBLE_EQ(d.occupancy_percent(), 80);
}

TEST(GpuSummaryTest, NoKernelsSaysWhy) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuPlane gpu(&builder, 0, 80);
  gpu.Kernel("k", 5000, 100, Details(1, -1));  // Outside the steps.
  builder.Finalize({.normalize_timestamps = false});
  tbprof::GpuSummary s = ComputeGpuSummary(space, {{0, 1000}});
  EXPECT_EQ(s.devices_size(), 0);
  EXPECT_EQ(s.no_data_reason(), "no GPU kernels ran during the steps");
  EXPECT_EQ(ComputeGpuSummary(xplane::XSpaceData(), {}).no_data_reason(),
            "no GPU kernels in this profile");
}

}  // namespace
}  // namespace tbprof::views
