// The terminal form of `tbprof diff`: the two sources, step time with its
// spread and a noise verdict, the step-time breakdown per category with
// signed bars, the kernels and operators whose time changed most, the
// collective kernels, and the memory peak per allocator.
//
// Every line fits `width` display columns (kernel names are shortened as in
// `tbprof report`); wider terminals get the mean of each side as extra
// columns.
#ifndef TBPROF_CONVERTERS_REPORT_DIFF_TEXT_H_
#define TBPROF_CONVERTERS_REPORT_DIFF_TEXT_H_

#include <string>

#include "converters/views/diff/diff_model.h"

namespace tbprof::views {

struct DiffTextOptions {
  int width = 80;  // At least 60.
  int top = 10;    // Rows of the kernel and operator tables.
  bool ascii = false;
};

// The whole comparison, ending with a newline.
std::string RenderDiffText(const ProfileDiff& diff, const DiffTextOptions& options = {});

// One line: "new is 19.7% faster (-29.8 ms per step); outside noise (...)",
// or what is known when a side has no steps.
std::string DiffVerdict(const ProfileDiff& diff);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_DIFF_TEXT_H_
