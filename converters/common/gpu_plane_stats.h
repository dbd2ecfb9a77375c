// Device stats of a `/device:GPU:<n>` plane, which the profile plugin's run
// environment and roofline read (device_vendor, gpu_device_name, clock_rate
// in kHz, core_count = SMs, memory_bandwidth in bytes/s, memory_size in
// bytes, compute_cap_major/minor), all integers as int64.
#ifndef TBPROF_CONVERTERS_COMMON_GPU_PLANE_STATS_H_
#define TBPROF_CONVERTERS_COMMON_GPU_PLANE_STATS_H_

#include "converters/common/gpu_occupancy.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::converters {

// "Nvidia" / "AMD" (xplane_schema spellings), "" for unknown.
absl::string_view GpuVendorStatValue(GpuVendor vendor);

// Writes every known field of `props` as a plane stat; unknown (zero/empty)
// fields are left out. A later call overwrites earlier values.
void SetGpuPlaneDeviceStats(const GpuDeviceProperties& props, xplane::XPlaneBuilder* plane);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_GPU_PLANE_STATS_H_
