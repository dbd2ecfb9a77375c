// tbprof's GPU summary: per GPU plane, the utilization, estimated SM
// efficiency, time-weighted occupancy and Tensor Core share of its kernels
// within a time window (proto/operator_stats.proto GpuSummary). These are
// the figures torch-tb-profiler's overview showed as "GPU Summary", with the
// same definitions (docs/views.md, "GPU summary").
//
// Input contract: as the kernel stats (xspace_to_kernel_stats.h): events of
// "/device:GPU:<n>" planes on lines below kThreadIdStepInfo with a
// kernel_details stat are kernels; the plane's core_count stat is its SM
// count and gpu_device_name its name. Times are relative to
// xplane::SpaceBaseNs(space), as in the step database.
#ifndef TBPROF_CONVERTERS_VIEWS_KERNELS_GPU_SUMMARY_H_
#define TBPROF_CONVERTERS_VIEWS_KERNELS_GPU_SUMMARY_H_

#include <cstdint>
#include <vector>

#include "converters/views/common/time_intervals.h"
#include "proto/operator_stats.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

// `windows`: the steps (any order, may overlap); empty: per device, the span
// from its first kernel's start to its last kernel's end. A device without
// kernels in the window is left out. Single pass over the GPU events plus a
// sort of each device's kernel intervals; never fails.
tbprof::GpuSummary ComputeGpuSummary(const xplane::XSpaceData& space,
                                     std::vector<TimeInterval> windows);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_KERNELS_GPU_SUMMARY_H_
