// The terminal form of a tbprof report: per host, the overview verdict, the
// step-time breakdown (a table with small bars), the top kernels, the
// input-pipeline verdict, the memory peak, the top ops (by name, by input
// shape, their call stacks), the module tree and the least efficient GEMMs
// (report_text_operators.h), plus a host comparison for multi-host runs.
//
// Every line fits `width` display columns (counted in Unicode code points;
// the report uses no double-width characters), long names are shortened
// (C++ kernel signatures lose their parameter lists and template arguments
// first, then the middle of the name).
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_TEXT_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "converters/views/summary/report_model.h"
#include "converters/report/text_format.h"  // DisplayWidth()

namespace tbprof::views {

struct TextReportOptions {
  // Display columns per line; at least 60.
  int width = 80;
  // Rows of the kernel table.
  int max_kernels = 10;
  // Allocators shown per host, and rows of each "live at peak" table.
  int max_allocators = 3;
  int max_allocations = 5;
  // Operators: rows by name, rows by input shape, ops whose call stacks are
  // shown (stacks_per_op each); module rows and depth; GEMM rows.
  int max_ops = 10;
  int max_shape_rows = 5;
  int max_stack_ops = 3;
  int stacks_per_op = 2;
  int max_modules = 20;
  int max_module_depth = 3;
  int max_gemm_rows = 10;
  // Only ASCII: '#' bars, "..." and "us" instead of block characters, "…"
  // and "µs".
  bool ascii = false;
};

// Renders the whole report (all hosts). The result ends with a newline.
std::string RenderTextReport(const ReportInput& input, const TextReportOptions& options = {});

// Renders the section of one host.
std::string RenderHostText(const HostReport& report, const TextReportOptions& options = {});

// What the "Hosts compared" table of a multi-host report shows of a host.
struct HostStepRow {
  std::string host;
  int64_t steps = 0;
  double avg_step_ms = 0;
  double min_step_ms = 0;
  double max_step_ms = 0;
  std::string bottleneck;
};
HostStepRow HostStepRowOf(const HostReport& report);

// The "Hosts compared" section (a blank line, its heading, one row per host
// and the spread of the average steps), as RenderTextReport() shows it for
// several hosts.
std::string RenderHostComparisonText(const std::vector<HostStepRow>& rows,
                                     const TextReportOptions& options = {});

// The first line of the report and the blank line after it:
// "tbprof report: N hosts, SOURCE" (SOURCE cut at the left to fit).
std::string RenderTextReportTitle(size_t hosts, const std::string& source,
                                  const TextReportOptions& options = {});

// Shortens a kernel name to at most `width` code points: drops a leading
// "void ", the parameter list, "(anonymous namespace)::", then template
// arguments, then cuts the middle ("…" or "..." when `ascii`).
std::string ShortenKernelName(absl::string_view name, int width, bool ascii = false);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_TEXT_H_
