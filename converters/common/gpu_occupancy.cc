#include "converters/common/gpu_occupancy.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tbprof::converters {
namespace {

constexpr int64_t kKiB = 1024;

int64_t DivideRoundUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t RoundUp(int64_t x, int64_t y) { return y * DivideRoundUp(x, y); }

// Architecture facts, by compute capability.
struct ArchLimits {
  int smem_allocation_granularity = 0;
  int max_regs_per_thread = 0;
  int reg_allocation_granularity = 0;
  int sub_partitions = 0;
  int max_blocks_per_sm = 0;
};

bool GetArchLimits(int major, int minor, ArchLimits* out) {
  switch (major) {
    case 3:
    case 5:
    case 6:
    case 7:
      out->smem_allocation_granularity = 256;
      break;
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
      out->smem_allocation_granularity = 128;
      break;
    default:
      return false;
  }
  out->max_regs_per_thread = major <= 6 ? 255 : 256;
  out->reg_allocation_granularity = 256;
  out->sub_partitions = (major == 6 && minor == 0) ? 2 : 4;
  switch (major) {
    case 3:
      out->max_blocks_per_sm = 16;
      break;
    case 5:
    case 6:
      out->max_blocks_per_sm = 32;
      break;
    case 7:
      out->max_blocks_per_sm = minor == 5 ? 16 : 32;
      break;
    case 8:
      out->max_blocks_per_sm = minor == 0 ? 32 : (minor == 9 ? 24 : 16);
      break;
    case 9:
      out->max_blocks_per_sm = 32;
      break;
    case 10:
      out->max_blocks_per_sm = minor == 1 ? 24 : 32;
      break;
    case 11:
      out->max_blocks_per_sm = minor == 0 ? 24 : 32;
      break;
    case 12:
      out->max_blocks_per_sm = 24;
      break;
  }
  return true;
}

// Shared-memory carve-out sizes (KiB) an SM can be configured to, Volta+.
// Returns false if `bytes` exceeds the largest one or the arch is unknown.
bool AlignUpToCarveout(int major, int minor, int64_t* bytes) {
  static constexpr int kVolta[] = {0, 8, 16, 32, 64, 96};
  static constexpr int kTuring[] = {32, 64};
  static constexpr int kAmpereBig[] = {0, 8, 16, 32, 64, 100, 132, 164};
  static constexpr int kAmpereSmall[] = {0, 8, 16, 32, 64, 100};
  static constexpr int kHopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  const int* sizes = nullptr;
  size_t n = 0;
  auto use = [&](const auto& table) {
    sizes = table;
    n = sizeof(table) / sizeof(table[0]);
  };
  switch (major) {
    case 7:
      minor == 5 ? use(kTuring) : use(kVolta);
      break;
    case 8:
      (minor == 0 || minor == 7) ? use(kAmpereBig) : use(kAmpereSmall);
      break;
    case 9:
      use(kHopper);
      break;
    case 10:
    case 11:
      if (minor != 0 && minor != 1 && minor != 3) return false;
      use(kHopper);
      break;
    case 12:
      if (minor != 0 && minor != 1) return false;
      use(kAmpereSmall);
      break;
    default:
      return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (*bytes <= sizes[i] * kKiB) {
      *bytes = sizes[i] * kKiB;
      return true;
    }
  }
  return false;
}

int BlocksLimitedByWarps(const GpuDeviceProperties& p, int block_size) {
  if (block_size > p.max_threads_per_block) return 0;
  int max_warps_per_sm = p.max_threads_per_sm / p.warp_size;
  int warps_per_block = static_cast<int>(DivideRoundUp(block_size, p.warp_size));
  return max_warps_per_sm / warps_per_block;
}

int BlocksLimitedByRegisters(const GpuDeviceProperties& p, const ArchLimits& arch,
                             int sub_partitions, int regs_per_thread, int block_size,
                             int* allocated_per_block) {
  int64_t warps_per_block = DivideRoundUp(block_size, p.warp_size);
  int64_t regs_per_warp =
      RoundUp(static_cast<int64_t>(regs_per_thread) * p.warp_size, arch.reg_allocation_granularity);
  int64_t regs_per_block = regs_per_warp * warps_per_block;
  *allocated_per_block = static_cast<int>(std::min<int64_t>(regs_per_block, INT_MAX));
  // The hardware check assumes all sub-partitions allocate at once.
  int64_t regs_assumed_per_block = regs_per_warp * RoundUp(warps_per_block, sub_partitions);
  if (p.regs_per_block < regs_assumed_per_block || p.regs_per_block < regs_per_block ||
      regs_per_thread > arch.max_regs_per_thread) {
    return 0;
  }
  if (regs_per_warp == 0) return INT_MAX;
  int64_t warps_per_sub_partition = (p.regs_per_sm / sub_partitions) / regs_per_warp;
  return static_cast<int>(warps_per_sub_partition * sub_partitions / warps_per_block);
}

int BlocksLimitedBySharedMemory(const GpuDeviceProperties& p, const ArchLimits& arch,
                                const KernelLaunchConfig& launch, int64_t* allocated) {
  int64_t reserved = p.reserved_shared_mem_per_block_bytes >= 0
                         ? p.reserved_shared_mem_per_block_bytes
                         : (p.compute_major >= 8 ? kKiB : 0);
  int64_t static_bytes = launch.static_shared_mem_bytes + reserved;
  int64_t per_block =
      RoundUp(static_bytes + launch.dynamic_shared_mem_bytes, arch.smem_allocation_granularity);
  *allocated = per_block;

  // The kernel ran, so a launch above the default per-block limit must have
  // opted in to the larger one.
  int64_t block_limit = p.shared_mem_per_block_bytes;
  if (p.compute_major >= 7 && p.shared_mem_per_block_optin_bytes > block_limit &&
      launch.static_shared_mem_bytes + launch.dynamic_shared_mem_bytes >
          p.shared_mem_per_block_bytes) {
    block_limit = p.shared_mem_per_block_optin_bytes;
  }
  if (p.compute_major >= 8) block_limit += reserved;
  if (per_block > block_limit) return 0;

  // Default carve-out preference: all of the SM's shared memory.
  int64_t sm_bytes = p.shared_mem_per_sm_bytes;
  if (p.compute_major >= 7 && !AlignUpToCarveout(p.compute_major, p.compute_minor, &sm_bytes)) {
    sm_bytes = p.shared_mem_per_sm_bytes;
  }
  if (sm_bytes < per_block) {
    sm_bytes = per_block;
    if (p.compute_major >= 7) {
      if (!AlignUpToCarveout(p.compute_major, p.compute_minor, &sm_bytes)) return 0;
    } else {
      sm_bytes = p.shared_mem_per_sm_bytes;
    }
  }
  if (per_block == 0) return INT_MAX;
  return static_cast<int>(std::min<int64_t>(sm_bytes / per_block, INT_MAX));
}

}  // namespace

GpuVendor GuessGpuVendorFromName(absl::string_view device_name) {
  std::string lower = absl::AsciiStrToLower(device_name);
  if (absl::StrContains(lower, "nvidia") || absl::StrContains(lower, "tesla") ||
      absl::StrContains(lower, "geforce") || absl::StrContains(lower, "quadro") ||
      absl::StrContains(lower, "rtx")) {
    return GpuVendor::kNvidia;
  }
  if (absl::StrContains(lower, "amd") || absl::StrContains(lower, "instinct") ||
      absl::StrContains(lower, "radeon") || absl::StartsWith(lower, "mi") ||
      absl::StrContains(lower, " mi") || absl::StartsWith(lower, "gfx")) {
    return GpuVendor::kAmd;
  }
  return GpuVendor::kUnknown;
}

int64_t MemoryBandwidthBytesPerSecond(const GpuDeviceProperties& props) {
  if (props.memory_bandwidth_bytes_per_s > 0) return props.memory_bandwidth_bytes_per_s;
  if (props.memory_clock_rate_khz > 0 && props.memory_bus_width_bits > 0) {
    // Properties come from input files and may be absurd: a product past
    // int64 is not a bandwidth, so report it as unknown.
    __int128 bytes_per_s = static_cast<__int128>(2) * props.memory_clock_rate_khz * 1000 *
                           props.memory_bus_width_bits / 8;
    return bytes_per_s > INT64_MAX ? 0 : static_cast<int64_t>(bytes_per_s);
  }
  return 0;
}

bool HasOccupancyInputs(const GpuDeviceProperties& p) {
  return p.vendor != GpuVendor::kAmd && p.compute_major > 0 && p.max_threads_per_block > 0 &&
         p.max_threads_per_sm > 0 && p.regs_per_block > 0 && p.regs_per_sm > 0 && p.warp_size > 0 &&
         p.shared_mem_per_block_bytes > 0 && p.shared_mem_per_sm_bytes > 0;
}

absl::StatusOr<OccupancyResult> ComputeOccupancy(const GpuDeviceProperties& props,
                                                 const KernelLaunchConfig& launch) {
  if (!HasOccupancyInputs(props)) {
    return absl::FailedPreconditionError("device properties lack occupancy inputs");
  }
  ArchLimits arch;
  if (!GetArchLimits(props.compute_major, props.compute_minor, &arch)) {
    return absl::UnimplementedError(absl::StrCat("no occupancy limits for compute capability ",
                                                 props.compute_major, ".", props.compute_minor));
  }
  OccupancyResult result;
  // 128 bits: three 32-bit dimensions from an input file can overflow int64.
  const __int128 block_size64 =
      static_cast<__int128>(launch.block_x) * launch.block_y * launch.block_z;
  if (block_size64 <= 0 || block_size64 > INT_MAX || launch.registers_per_thread < 0 ||
      launch.static_shared_mem_bytes < 0 || launch.dynamic_shared_mem_bytes < 0) {
    return result;
  }
  int block_size = static_cast<int>(block_size64);

  result.block_limit_registers =
      BlocksLimitedByRegisters(props, arch, arch.sub_partitions, launch.registers_per_thread,
                               block_size, &result.allocated_registers_per_block);
  // GP100 has two register sub-partitions where other Pascals have four; a
  // kernel that cannot run on the latter is treated as not running at all.
  if (props.compute_major == 6 && props.compute_minor == 0 && result.block_limit_registers > 0) {
    int unused = 0;
    if (BlocksLimitedByRegisters(props, arch, 4, launch.registers_per_thread, block_size,
                                 &unused) == 0) {
      result.block_limit_registers = 0;
    }
  }
  result.block_limit_warps = BlocksLimitedByWarps(props, block_size);
  result.block_limit_blocks = arch.max_blocks_per_sm;
  result.block_limit_shared_mem = BlocksLimitedBySharedMemory(
      props, arch, launch, &result.allocated_shared_mem_per_block_bytes);

  int active = std::min({result.block_limit_registers, result.block_limit_warps,
                         result.block_limit_blocks, result.block_limit_shared_mem});
  result.active_blocks_per_sm = active;
  if (active == result.block_limit_warps) result.limiting_factors |= kOccLimitWarps;
  if (active == result.block_limit_registers) result.limiting_factors |= kOccLimitRegisters;
  if (active == result.block_limit_shared_mem) result.limiting_factors |= kOccLimitSharedMemory;
  if (active == result.block_limit_blocks) result.limiting_factors |= kOccLimitBlocks;
  result.theoretical_occupancy_pct = 100.0 * static_cast<double>(active) * block_size /
                                     static_cast<double>(props.max_threads_per_sm);
  return result;
}

}  // namespace tbprof::converters
