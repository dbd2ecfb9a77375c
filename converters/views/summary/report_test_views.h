// Hand-filled view protos for the report renderer tests (no XSpace needed).
#ifndef TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_TEST_VIEWS_H_
#define TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_TEST_VIEWS_H_

#include <string>

#include "converters/views/all/all_views.h"

namespace tbprof::views::testing {

// Per-step times of the sample (ms): step time, device compute, host to
// device, idle; steps are numbered 10, 11, ...
struct SampleStep {
  double step_ms, compute_ms, h2d_ms, idle_ms;
};

// A GPU host with steps, a verdict with HTML in it, three kernels (one with
// a long templated C++ name), one allocator with a timeline and live
// allocations at the peak (one a special row), and operator (aten::addmm 24
// ms, aten::fill_ 6 ms, 2 ms unattributed), module (Net_0 > Linear_0) and
// GEMM-efficiency (one aten::addmm row) views.
AllViews MakeSampleViews();

// The steps MakeSampleViews() uses.
const SampleStep* SampleSteps(int* count);

// A kernel name long enough to need shortening.
extern const char kLongKernelName[];

}  // namespace tbprof::views::testing

#endif  // TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_TEST_VIEWS_H_
