#include "converters/common/gpu_occupancy.h"

#include "gtest/gtest.h"

namespace tbprof::converters {
namespace {

GpuDeviceProperties H100Like() {
  GpuDeviceProperties p;
  p.name = "NVIDIA H100 80GB HBM3";
  p.vendor = GpuVendor::kNvidia;
  p.compute_major = 9;
  p.compute_minor = 0;
  p.num_sms = 132;
  p.max_threads_per_block = 1024;
  p.max_threads_per_sm = 2048;
  p.regs_per_block = 65536;
  p.regs_per_sm = 65536;
  p.warp_size = 32;
  p.shared_mem_per_block_bytes = 48 * 1024;
  p.shared_mem_per_sm_bytes = 228 * 1024;
  p.shared_mem_per_block_optin_bytes = 227 * 1024;
  p.reserved_shared_mem_per_block_bytes = 1024;
  return p;
}

GpuDeviceProperties V100Like() {
  GpuDeviceProperties p;
  p.name = "Tesla V100-SXM2-32GB";
  p.vendor = GpuVendor::kNvidia;
  p.compute_major = 7;
  p.compute_minor = 0;
  p.num_sms = 80;
  p.max_threads_per_block = 1024;
  p.max_threads_per_sm = 2048;
  p.regs_per_block = 65536;
  p.regs_per_sm = 65536;
  p.warp_size = 32;
  p.shared_mem_per_block_bytes = 48 * 1024;
  p.shared_mem_per_sm_bytes = 96 * 1024;
  p.shared_mem_per_block_optin_bytes = 96 * 1024;
  return p;
}

KernelLaunchConfig Launch(int regs, int block_x, int64_t static_smem = 0,
                          int64_t dynamic_smem = 0) {
  KernelLaunchConfig l;
  l.registers_per_thread = regs;
  l.block_x = block_x;
  l.static_shared_mem_bytes = static_smem;
  l.dynamic_shared_mem_bytes = dynamic_smem;
  return l;
}

TEST(GpuOccupancyTest, H100RegisterLimited) {
  auto r = ComputeOccupancy(H100Like(), Launch(/*regs=*/64, /*block_x=*/256));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->active_blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(r->theoretical_occupancy_pct, 50.0);
  EXPECT_EQ(r->limiting_factors, static_cast<uint32_t>(kOccLimitRegisters));
  EXPECT_EQ(r->block_limit_warps, 8);
  EXPECT_EQ(r->allocated_registers_per_block, 64 * 256);
  // 0 bytes + 1 KiB reserved.
  EXPECT_EQ(r->allocated_shared_mem_per_block_bytes, 1024);
  EXPECT_EQ(r->block_limit_shared_mem, 228);
}

TEST(GpuOccupancyTest, H100OptInSharedMemory) {
  // 100000 B dynamic: above the 48 KiB default limit, so the launch opted in.
  auto r = ComputeOccupancy(H100Like(), Launch(/*regs=*/32, /*block_x=*/128, 0, 100000));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->allocated_shared_mem_per_block_bytes, 101120);  // (100000+1024) -> 128 B units.
  EXPECT_EQ(r->block_limit_shared_mem, 2);
  EXPECT_EQ(r->active_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(r->theoretical_occupancy_pct, 12.5);
}

TEST(GpuOccupancyTest, V100Cases) {
  GpuDeviceProperties v100 = V100Like();
  // 38 regs -> 1280 regs/warp after granularity; 12 warps per sub-partition.
  auto a = ComputeOccupancy(v100, Launch(/*regs=*/38, /*block_x=*/256));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->active_blocks_per_sm, 6);
  EXPECT_DOUBLE_EQ(a->theoretical_occupancy_pct, 75.0);

  auto b = ComputeOccupancy(v100, Launch(/*regs=*/128, /*block_x=*/128, /*static=*/16384));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->block_limit_registers, 4);
  EXPECT_EQ(b->block_limit_shared_mem, 6);
  EXPECT_DOUBLE_EQ(b->theoretical_occupancy_pct, 25.0);

  auto c = ComputeOccupancy(v100, Launch(/*regs=*/32, /*block_x=*/128, /*static=*/40000));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->block_limit_shared_mem, 2);  // 96 KiB / 40192 B.
  EXPECT_EQ(c->limiting_factors, static_cast<uint32_t>(kOccLimitSharedMemory));
  EXPECT_DOUBLE_EQ(c->theoretical_occupancy_pct, 12.5);

  // Small blocks hit the 32 blocks/SM limit.
  auto d = ComputeOccupancy(v100, Launch(/*regs=*/16, /*block_x=*/32));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->active_blocks_per_sm, 32);
  EXPECT_TRUE(d->limiting_factors & kOccLimitBlocks);
  EXPECT_DOUBLE_EQ(d->theoretical_occupancy_pct, 50.0);

  // Opt-in 64 KiB of dynamic shared memory: one block per SM.
  auto e = ComputeOccupancy(v100, Launch(/*regs=*/32, /*block_x=*/256, 0, 64 * 1024));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->active_blocks_per_sm, 1);
}

TEST(GpuOccupancyTest, LaunchesThatCannotRunGiveZero) {
  GpuDeviceProperties v100 = V100Like();
  EXPECT_EQ(ComputeOccupancy(v100, Launch(32, /*block_x=*/2048))->active_blocks_per_sm, 0);
  EXPECT_EQ(ComputeOccupancy(v100, Launch(/*regs=*/300, 64))->active_blocks_per_sm, 0);
  EXPECT_EQ(ComputeOccupancy(v100, Launch(32, 64, 0, 200 * 1024))->active_blocks_per_sm, 0);
  EXPECT_EQ(ComputeOccupancy(v100, Launch(32, /*block_x=*/0))->active_blocks_per_sm, 0);
}

TEST(GpuOccupancyTest, MissingInputsAndUnknownArchitectures) {
  GpuDeviceProperties empty;
  EXPECT_FALSE(HasOccupancyInputs(empty));
  EXPECT_EQ(ComputeOccupancy(empty, Launch(32, 128)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  GpuDeviceProperties amd = V100Like();
  amd.vendor = GpuVendor::kAmd;
  EXPECT_FALSE(HasOccupancyInputs(amd));
  GpuDeviceProperties future = H100Like();
  future.compute_major = 42;
  EXPECT_EQ(ComputeOccupancy(future, Launch(32, 128)).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(GpuOccupancyTest, VendorAndBandwidth) {
  EXPECT_EQ(GuessGpuVendorFromName("NVIDIA H100 80GB HBM3"), GpuVendor::kNvidia);
  EXPECT_EQ(GuessGpuVendorFromName("Tesla V100-DGXS-32GB"), GpuVendor::kNvidia);
  EXPECT_EQ(GuessGpuVendorFromName("AMD Instinct MI300X"), GpuVendor::kAmd);
  EXPECT_EQ(GuessGpuVendorFromName("MI250X"), GpuVendor::kAmd);
  EXPECT_EQ(GuessGpuVendorFromName("Some Accelerator"), GpuVendor::kUnknown);
  GpuDeviceProperties p;
  p.memory_clock_rate_khz = 877000;
  p.memory_bus_width_bits = 4096;
  EXPECT_EQ(MemoryBandwidthBytesPerSecond(p), int64_t{2} * 877000 * 1000 * 4096 / 8);
  p.memory_bandwidth_bytes_per_s = 42;
  EXPECT_EQ(MemoryBandwidthBytesPerSecond(p), 42);
}

}  // namespace
}  // namespace tbprof::converters
