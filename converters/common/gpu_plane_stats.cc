#include "converters/common/gpu_plane_stats.h"

#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

using xplane::StatType;

absl::string_view GpuVendorStatValue(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia:
      return xplane::kDeviceVendorNvidia;
    case GpuVendor::kAmd:
      return xplane::kDeviceVendorAMD;
    case GpuVendor::kUnknown:
      break;
  }
  return "";
}

void SetGpuPlaneDeviceStats(const GpuDeviceProperties& props, xplane::XPlaneBuilder* plane) {
  auto set_int = [plane](StatType type, int64_t value) {
    if (value > 0) plane->SetStatInt64(plane->GetOrCreateStatMetadata(type), value);
  };
  absl::string_view vendor = GpuVendorStatValue(props.vendor);
  if (!vendor.empty()) {
    plane->SetStatString(plane->GetOrCreateStatMetadata(StatType::kDevVendor), vendor);
  }
  if (!props.name.empty()) {
    plane->SetStatString(plane->GetOrCreateStatMetadata(StatType::kGpuDeviceName), props.name);
  }
  set_int(StatType::kDevCapClockRateKHz, props.clock_rate_khz);
  set_int(StatType::kDevCapCoreCount, props.num_sms);
  set_int(StatType::kDevCapMemoryBandwidth, MemoryBandwidthBytesPerSecond(props));
  set_int(StatType::kDevCapMemorySize, props.total_global_mem_bytes);
  if (props.compute_major > 0) {
    plane->SetStatInt64(plane->GetOrCreateStatMetadata(StatType::kDevCapComputeCapMajor),
                        props.compute_major);
    plane->SetStatInt64(plane->GetOrCreateStatMetadata(StatType::kDevCapComputeCapMinor),
                        props.compute_minor);
  }
}

}  // namespace tbprof::converters
