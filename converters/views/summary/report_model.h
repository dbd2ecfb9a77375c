// What a tbprof report shows of one host, derived from the view protos once
// and shared by the terminal and HTML renderers (report_text.h,
// report_html.h): verdicts as plain text, the step-time breakdown per
// category, kernels with their share of kernel time, per-allocator memory
// peaks with the allocations live at the peak, and the operator, module and
// GEMM-efficiency views as they are.
//
// Building the model never fails; missing views give empty sections.
#ifndef TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_MODEL_H_
#define TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "converters/views/all/all_views.h"

namespace tbprof::views {

// A section about one host that its input's converter computed beside the
// XSpace, shown after the views: what only that input format records (e.g. a
// PyTorch memory snapshot's segments and the stacks of the blocks live at
// its peak). Each form is complete and already escaped for its medium.
struct ReportAppendix {
  std::string host;
  std::string key;    // Stable id, the JSON member name, e.g. "memory_snapshot".
  std::string title;  // For the table of contents, e.g. "memory snapshot".
  std::string text;  // Terminal text, ending with a newline.
  std::string json;  // One JSON value.
  std::string html;  // A self-contained HTML fragment.
};

// A report over one or more hosts of one run.
struct ReportInput {
  // What the report was made from (a file or run directory), for titles.
  std::string source;
  std::vector<HostViews> hosts;
  // In host order; empty for traces and XSpace files.
  std::vector<ReportAppendix> appendices;
};

// One step-time category, averaged over steps.
struct StepCategoryRow {
  std::string key;    // Stable id, e.g. "device_compute" (used for colours).
  std::string label;  // "Device compute".
  double avg_ms = 0;
  double percent = 0;  // Of the average step time.
};

// One step: its time and the time of each category (parallel to
// HostReport::categories), milliseconds.
struct StepRow {
  int32_t step_number = 0;
  std::string step_name;
  double step_time_ms = 0;
  std::vector<double> category_ms;
};

struct KernelRow {
  std::string name;
  std::string op_name;
  uint32_t occurrences = 0;
  double total_ms = 0;
  double avg_us = 0;
  double min_us = 0;
  double max_us = 0;
  double percent = 0;  // Of the total time of all kernel reports.
  double occupancy_pct = 0;
  bool uses_tensor_core = false;
  bool op_tensor_core_eligible = false;
  uint32_t registers_per_thread = 0;
  uint32_t shared_memory_bytes = 0;  // Static + dynamic.
  std::string grid;                  // "x,y,z".
  std::string block;
};

// An allocation (or special row) live at an allocator's peak.
struct AllocationRow {
  int64_t allocation_bytes = 0;
  int64_t requested_bytes = 0;
  int64_t occurrences = 0;
  std::string op_name;  // Or the special row's description.
  std::string region_type;
  std::string data_type;
  std::string shape;
};

// One point of the memory timeline (after an allocation or deallocation).
struct MemoryPoint {
  int64_t time_ps = 0;  // Relative to the profile start.
  int64_t heap_bytes = 0;
  int64_t stack_bytes = 0;
};

struct AllocatorReport {
  std::string id;
  int64_t peak_bytes = 0;           // Heap + stack at the peak in the profile.
  int64_t peak_heap_bytes = 0;
  int64_t peak_stack_bytes = 0;
  int64_t peak_time_ps = 0;
  int64_t peak_lifetime_bytes = 0;  // Largest usage over the allocator's life.
  int64_t capacity_bytes = 0;       // 0 if unknown.
  double peak_fragmentation = 0;
  std::vector<MemoryPoint> timeline;
  std::vector<AllocationRow> allocations_at_peak;  // Largest first.
  // False when the trace's memory events have no addresses: allocations
  // cannot be paired with frees, so allocations_at_peak is left empty.
  bool allocations_attributable = true;
};

struct HostReport {
  std::string host;
  std::string device_type;  // "Nvidia GPU (Hopper)", "" if unknown.
  int32_t device_count = 0;

  // Overview.
  std::string bottleneck;            // "host", "device", "both", "unknown" or "".
  std::string bottleneck_statement;  // Plain text.
  std::vector<std::string> recommendations;  // Plain text, most important first.
  double device_idle_percent = 0;
  double host_idle_percent = 0;
  double device_compute_16bit_percent = 0;
  double device_compute_32bit_percent = 0;
  bool has_overview_analysis = false;

  // Steps.
  // Which breakdown the step numbers use ("with-host" / "device-only", "" if
  // unknown) and one plain-text sentence saying so and how the numbers relate
  // to xprof's overview (DescribeBreakdown); "" without steps.
  std::string breakdown;
  std::string breakdown_note;
  double avg_step_ms = 0;
  double min_step_ms = 0;
  double max_step_ms = 0;
  double stddev_step_ms = 0;
  std::vector<StepCategoryRow> categories;  // Non-empty categories, fixed order.
  std::vector<StepRow> steps;

  // Input pipeline.
  std::string input_classification;
  std::string input_statement;  // Plain text.
  double input_percent = 0;
  double output_percent = 0;
  double idle_percent = 0;
  double compute_percent = 0;
  std::string input_next_step;  // Plain text.

  // Kernels, sorted by total time (descending).
  std::vector<KernelRow> kernels;
  double total_kernel_ms = 0;
  uint64_t total_kernel_launches = 0;

  // Allocators, largest peak first.
  std::vector<AllocatorReport> allocators;

  // tbprof's own views as computed (proto/operator_stats.proto); the
  // renderers read them directly.
  tbprof::OperatorStats operators;
  tbprof::ModuleStats modules;
  tbprof::GemmEfficiency gemm_efficiency;
  tbprof::GpuSummary gpu_summary;

  // Diagnostics of the overview and input analysis (errors first).
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

// Derives the report of one host from its views.
HostReport BuildHostReport(const HostViews& host);

// One sentence naming the breakdown of `shown` and, with `other` (may be
// null or without steps), the other breakdown's step and input time, e.g.
// "Step time includes host activity (tbprof's default): 150.8 ms, input
// 33.9 ms (22.5%); xprof's overview counts device events only: 118.3 ms,
// input 1.7 ms (1.5%)." Without `other`, names the flag that gives xprof's
// numbers. "" when `shown` has no steps.
std::string DescribeBreakdown(const BreakdownSummary& shown, const BreakdownSummary* other);

// Plain text of an HTML fragment: tags removed, the common entities (&amp;
// &lt; &gt; &quot; &#39; &nbsp;) decoded, runs of whitespace collapsed.
std::string HtmlToPlainText(absl::string_view html);

// "1.23 GiB", "512 B", "-4.0 MiB" (powers of 1024, three significant digits).
std::string FormatBytes(int64_t bytes);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_SUMMARY_REPORT_MODEL_H_
