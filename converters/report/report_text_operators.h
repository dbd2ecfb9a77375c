// The terminal sections of tbprof's own views (report_text.h): the top ops by
// device self time with their calls, device and host time and Tensor Core
// share, the device time no op launched, the top ops by input shape and the
// call stacks of the most expensive ops; the nn.Module tree; the least
// efficient GEMMs and convolutions with the GPU's peak. A view without data
// says why in one line. Every line fits options.width.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_TEXT_OPERATORS_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_TEXT_OPERATORS_H_

#include <string>

#include "converters/views/summary/report_model.h"
#include "converters/report/report_text.h"

namespace tbprof::views {

// Appends the operator, module and GEMM sections of `report` to `out`.
void AppendOperatorSections(const HostReport& report, const TextReportOptions& options,
                            std::string* out);

// "524 kFLOP", "33.6 GFLOP", "1.23 PFLOP" (three significant digits).
std::string FormatFlops(double flops);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_TEXT_OPERATORS_H_
