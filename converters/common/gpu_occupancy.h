// GPU device limits and the CUDA occupancy calculation, without CUDA.
//
// ComputeOccupancy() follows the published CUDA occupancy-calculator rules
// (the ones cuda_occupancy.h implements): a block's warps, registers
// (allocated per warp with the architecture's granularity, per register
// sub-partition) and shared memory (static + dynamic + the driver's reserved
// bytes per block, rounded to the allocation granularity, against the
// carve-out the architecture would pick) each bound how many blocks fit on
// one SM; the smallest bound, capped by the architecture's blocks-per-SM
// limit, is the number of active blocks. Theoretical occupancy is
// active_blocks * threads_per_block / max_threads_per_sm, as XLA writes it
// into `occ_pct`.
//
// Both converters (Kineto JSON and raw captures) use GpuDeviceProperties as
// their description of a device, so its fields also feed the GPU-plane
// device stats (gpu_plane_stats.h).
#ifndef TBPROF_CONVERTERS_COMMON_GPU_OCCUPANCY_H_
#define TBPROF_CONVERTERS_COMMON_GPU_OCCUPANCY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::converters {

enum class GpuVendor : uint8_t { kUnknown = 0, kNvidia, kAmd };

// Guesses the vendor from a marketing name ("NVIDIA H100 80GB HBM3",
// "Tesla V100-SXM2-32GB", "AMD Instinct MI300X"). kUnknown if no clue.
GpuVendor GuessGpuVendorFromName(absl::string_view device_name);

// One GPU as the profiler saw it. Zero means "unknown" for every limit.
struct GpuDeviceProperties {
  int64_t id = -1;  // Device ordinal.
  std::string name;
  GpuVendor vendor = GpuVendor::kUnknown;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  int warp_size = 0;
  int64_t shared_mem_per_block_bytes = 0;
  int64_t shared_mem_per_sm_bytes = 0;
  int64_t shared_mem_per_block_optin_bytes = 0;
  // Shared memory the driver reserves per block; -1 = unknown, in which case
  // 1 KiB is assumed on compute capability >= 8.0 and 0 before.
  int64_t reserved_shared_mem_per_block_bytes = -1;
  int64_t total_global_mem_bytes = 0;
  int64_t clock_rate_khz = 0;
  int64_t memory_clock_rate_khz = 0;
  int memory_bus_width_bits = 0;
  // Peak DRAM bandwidth in bytes/s if known directly; otherwise derived from
  // memory clock and bus width (see MemoryBandwidthBytesPerSecond()).
  int64_t memory_bandwidth_bytes_per_s = 0;
};

// Bytes/s: the explicit value, else 2 * memory_clock_rate_khz * 1000 *
// bus_width / 8 (double data rate), else 0.
int64_t MemoryBandwidthBytesPerSecond(const GpuDeviceProperties& props);

// Per-launch inputs.
struct KernelLaunchConfig {
  int registers_per_thread = 0;
  int64_t static_shared_mem_bytes = 0;
  int64_t dynamic_shared_mem_bytes = 0;
  int block_x = 1, block_y = 1, block_z = 1;
  int grid_x = 1, grid_y = 1, grid_z = 1;
};

// Which resource bounds the active blocks (bit set; several may tie).
enum OccupancyLimitBits : uint32_t {
  kOccLimitWarps = 1u << 0,
  kOccLimitRegisters = 1u << 1,
  kOccLimitSharedMemory = 1u << 2,
  kOccLimitBlocks = 1u << 3,
};

struct OccupancyResult {
  int active_blocks_per_sm = 0;
  // 100 * active_blocks * threads_per_block / max_threads_per_sm.
  double theoretical_occupancy_pct = 0;
  uint32_t limiting_factors = 0;  // OccupancyLimitBits.
  int block_limit_warps = 0;
  int block_limit_registers = 0;
  int block_limit_shared_mem = 0;
  int block_limit_blocks = 0;
  int64_t allocated_shared_mem_per_block_bytes = 0;
  int allocated_registers_per_block = 0;
};

// True if `props` has every limit the calculation needs and is not an AMD
// device (whose occupancy rules differ).
bool HasOccupancyInputs(const GpuDeviceProperties& props);

// Errors: kFailedPrecondition if HasOccupancyInputs() is false;
// kUnimplemented for compute capabilities without known limits (major not in
// 3, 5..12). A launch that cannot run (empty block, more threads than a block
// may have, registers or shared memory that do not fit) is not an error: it
// yields 0 active blocks.
absl::StatusOr<OccupancyResult> ComputeOccupancy(const GpuDeviceProperties& props,
                                                 const KernelLaunchConfig& launch);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_GPU_OCCUPANCY_H_
