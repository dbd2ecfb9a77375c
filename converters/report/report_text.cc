#include "converters/report/report_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "converters/report/report_distributed.h"
#include "converters/report/report_text_operators.h"
#include "converters/report/text_format.h"

namespace tbprof::views {
namespace {

using text::AppendWrapped;
using text::Bar;
using text::Ellipsis;
using text::Heading;
using text::Ms;
using text::PadLeft;
using text::PadRight;
using text::Pct;
using text::TruncateLeft;
using text::TruncateMiddle;
using text::TruncateRight;

// One line per GPU: torch-tb-profiler's GPU summary figures.
void AppendGpuSummary(const tbprof::GpuSummary& s, int width, std::string* out) {
  for (const tbprof::GpuDeviceSummary& d : s.devices()) {
    std::string line = absl::StrCat("GPU ", d.device_ordinal(), ": utilization ",
                                    Pct(d.utilization_percent()));
    if (d.sm_efficiency_percent() >= 0) {
      absl::StrAppend(&line, ", est. SM efficiency ", Pct(d.sm_efficiency_percent()));
    }
    if (d.occupancy_percent() >= 0) {
      absl::StrAppend(&line, ", occupancy ", Pct(d.occupancy_percent()));
    }
    absl::StrAppend(&line, ", Tensor Cores ", Pct(d.tensor_core_percent()), " of kernel time (",
                    s.window_from_steps() ? "over the steps" : "over the kernels' span", ")");
    AppendWrapped(line, "GPU summary ", "            ", width, out);
  }
}

void AppendOverview(const HostReport& r, const TextReportOptions& o, std::string* out) {
  const int w = o.width;
  if (!r.device_type.empty() || r.device_count > 0) {
    std::string device = r.device_type.empty() ? "GPU" : r.device_type;
    if (r.device_count > 0) absl::StrAppend(&device, " x ", r.device_count);
    AppendWrapped(device, "Device      ", "            ", w, out);
  }
  AppendGpuSummary(r.gpu_summary, w, out);
  std::string verdict = r.bottleneck_statement;
  if (!r.bottleneck.empty()) {
    verdict = verdict.empty() ? absl::StrCat("bottleneck: ", r.bottleneck)
                              : absl::StrCat("[", r.bottleneck, "] ", verdict);
  }
  if (verdict.empty()) verdict = "no overview (no steps or no device activity found)";
  AppendWrapped(verdict, "Verdict     ", "            ", w, out);
  // The idle shares are shown when the analysis measured any idle time.
  if (r.has_overview_analysis && !r.steps.empty() &&
      (r.device_idle_percent > 0 || r.host_idle_percent > 0)) {
    std::string idle = absl::StrCat("device ", Pct(r.device_idle_percent), ", host ",
                                    Pct(r.host_idle_percent));
    AppendWrapped(idle, "Idle time   ", "            ", w, out);
    if (r.device_compute_16bit_percent > 0 || r.device_compute_32bit_percent > 0) {
      AppendWrapped(absl::StrCat("reduced (bf16/fp16/fp8/tf32) ",
                                 Pct(r.device_compute_16bit_percent), ", 32-bit ",
                                 Pct(r.device_compute_32bit_percent)),
                    "Precision   ", "            ", w, out);
    }
  }
  for (size_t i = 0; i < r.recommendations.size(); ++i) {
    AppendWrapped(r.recommendations[i], i == 0 ? "Advice    - " : "          - ",
                  "            ", w, out);
  }
}

void AppendSteps(const HostReport& r, const TextReportOptions& o, std::string* out) {
  absl::StrAppend(out, "\n");
  if (r.steps.empty()) {
    AppendWrapped("no steps found (the profile has no step markers such as ProfilerStep#N "
                  "with device activity)",
                  "Step time   ", "            ", o.width, out);
    return;
  }
  AppendWrapped(absl::StrFormat("avg %s ms over %d step%s (min %s, max %s, sd %s)",
                                Ms(r.avg_step_ms), r.steps.size(), r.steps.size() == 1 ? "" : "s",
                                Ms(r.min_step_ms), Ms(r.max_step_ms), Ms(r.stddev_step_ms)),
                "Step time   ", "            ", o.width, out);
  if (!r.breakdown_note.empty()) {
    AppendWrapped(r.breakdown_note, "            ", "            ", o.width, out);
  }
  // "  " label(20) " " avg(10) " " pct(6) "  " bar
  constexpr int kLabel = 20, kAvg = 10, kPct = 6;
  const int bar_width = std::max(4, o.width - (2 + kLabel + 1 + kAvg + 1 + kPct + 2));
  absl::StrAppend(out, "  ", PadRight("Category", kLabel), " ", PadLeft("Avg ms", kAvg), " ",
                  PadLeft("%", kPct), "\n");
  for (const StepCategoryRow& c : r.categories) {
    absl::StrAppend(out, "  ", PadRight(TruncateRight(c.label, kLabel, o.ascii), kLabel), " ",
                    PadLeft(Ms(c.avg_ms), kAvg), " ", PadLeft(Pct(c.percent), kPct), "  ",
                    Bar(c.percent / 100.0, bar_width, o.ascii), "\n");
  }
}

void AppendKernels(const HostReport& r, const TextReportOptions& o, std::string* out) {
  absl::StrAppend(out, "\n");
  if (r.kernels.empty()) {
    AppendWrapped("no GPU kernels with launch details in this profile", "Kernels     ",
                  "            ", o.width, out);
    return;
  }
  const int shown = std::min<int>(o.max_kernels, r.kernels.size());
  AppendWrapped(absl::StrFormat("top %d of %d by total time (%d launches, %s ms of kernel time)",
                                shown, r.kernels.size(), r.total_kernel_launches,
                                Ms(r.total_kernel_ms)),
                "Kernels     ", "            ", o.width, out);
  // "  " name " " count(6) " " total(9) " " avg(9) " " pct(6) " " occ(4) " " tc(3)
  constexpr int kCount = 6, kTotal = 9, kAvg = 9, kPct = 6, kOcc = 4, kTc = 3;
  const int name_width =
      o.width - (2 + 1 + kCount + 1 + kTotal + 1 + kAvg + 1 + kPct + 1 + kOcc + 1 + kTc);
  absl::StrAppend(out, "  ", PadRight("Kernel", name_width), " ", PadLeft("Count", kCount), " ",
                  PadLeft("Total ms", kTotal), " ",
                  PadLeft(o.ascii ? "Avg us" : "Avg \xC2\xB5s", kAvg), " ",
                  PadLeft("%Time", kPct), " ", PadLeft("Occ%", kOcc), " ", PadLeft("TC", kTc),
                  "\n");
  for (int i = 0; i < shown; ++i) {
    const KernelRow& k = r.kernels[i];
    const std::string occ =
        k.occupancy_pct > 0 ? absl::StrFormat("%.0f", k.occupancy_pct) : std::string("-");
    const std::string count =
        k.occurrences < 1000000 ? absl::StrCat(k.occurrences)
                                : absl::StrFormat("%.1fM", k.occurrences / 1e6);
    const std::string avg =
        k.avg_us >= 1e6 ? absl::StrFormat("%.0f", k.avg_us) : absl::StrFormat("%.2f", k.avg_us);
    absl::StrAppend(out, "  ", PadRight(ShortenKernelName(k.name, name_width, o.ascii), name_width),
                    " ", PadLeft(count, kCount), " ", PadLeft(Ms(k.total_ms), kTotal), " ",
                    PadLeft(avg, kAvg), " ", PadLeft(Pct(k.percent), kPct), " ",
                    PadLeft(occ, kOcc), " ", PadLeft(k.uses_tensor_core ? "yes" : "no", kTc),
                    "\n");
  }
}

void AppendInput(const HostReport& r, const TextReportOptions& o, std::string* out) {
  absl::StrAppend(out, "\n");
  std::string verdict = r.input_statement;
  if (!r.input_classification.empty()) {
    verdict = absl::StrCat("[", r.input_classification, "] ", verdict);
  }
  if (verdict.empty()) verdict = "no input-pipeline analysis (no steps)";
  AppendWrapped(verdict, "Input       ", "            ", o.width, out);
  if (!r.steps.empty()) {
    AppendWrapped(absl::StrCat("input ", Pct(r.input_percent), ", output ",
                               Pct(r.output_percent), ", idle ", Pct(r.idle_percent),
                               ", compute ", Pct(r.compute_percent)),
                  "            ", "            ", o.width, out);
  }
  if (!r.input_next_step.empty()) {
    AppendWrapped(r.input_next_step, "Next step   ", "            ", o.width, out);
  }
}

std::string TimeMs(int64_t ps) { return absl::StrCat(Ms(static_cast<double>(ps) / 1e9), " ms"); }

void AppendMemory(const HostReport& r, const TextReportOptions& o, std::string* out) {
  absl::StrAppend(out, "\n");
  if (r.allocators.empty()) {
    AppendWrapped("no memory allocation events in this profile", "Memory      ", "            ",
                  o.width, out);
    return;
  }
  const int shown = std::min<int>(o.max_allocators, r.allocators.size());
  for (int i = 0; i < shown; ++i) {
    const AllocatorReport& a = r.allocators[i];
    std::string line = absl::StrCat(a.id, ": peak ", FormatBytes(a.peak_bytes), " at ",
                                     TimeMs(a.peak_time_ps));
    if (a.peak_stack_bytes > 0) {
      absl::StrAppend(&line, " (heap ", FormatBytes(a.peak_heap_bytes), ", stack ",
                      FormatBytes(a.peak_stack_bytes), ")");
    }
    if (a.capacity_bytes > 0) {
      absl::StrAppend(&line, " of ", FormatBytes(a.capacity_bytes), " (",
                      Pct(100.0 * a.peak_bytes / a.capacity_bytes), ")");
    }
    if (a.peak_lifetime_bytes > a.peak_bytes) {
      absl::StrAppend(&line, "; lifetime peak ", FormatBytes(a.peak_lifetime_bytes));
    }
    AppendWrapped(line, i == 0 ? "Memory      " : "            ", "              ", o.width, out);
    if (!a.allocations_attributable) {
      AppendWrapped("Live at peak: not attributable: the trace's memory events carry no "
                    "address (PyTorch before 1.10), so allocations cannot be paired with "
                    "their frees.",
                    "              ", "              ", o.width, out);
      continue;
    }
    if (a.allocations_at_peak.empty()) continue;
    // "    " size(10) " " requested(10) " " count(5) "  " what
    constexpr int kSize = 10, kCount = 5;
    const int what_width = o.width - (4 + kSize + 1 + kSize + 1 + kCount + 2);
    absl::StrAppend(out, "    ", PadLeft("Size", kSize), " ", PadLeft("Requested", kSize), " ",
                    PadLeft("Count", kCount), "  ",
                    TruncateRight("Live at peak: op [type shape]", what_width, o.ascii), "\n");
    const int rows = std::min<int>(o.max_allocations, a.allocations_at_peak.size());
    for (int j = 0; j < rows; ++j) {
      const AllocationRow& row = a.allocations_at_peak[j];
      std::string what = row.op_name.empty() ? std::string("(unknown op)") : row.op_name;
      std::string detail = absl::StrJoin(
          {absl::string_view(row.data_type), absl::string_view(row.shape)}, " ");
      detail = std::string(absl::StripAsciiWhitespace(detail));
      if (!detail.empty()) absl::StrAppend(&what, " [", detail, "]");
      absl::StrAppend(out, "    ", PadLeft(FormatBytes(row.allocation_bytes), kSize), " ",
                      PadLeft(FormatBytes(row.requested_bytes), kSize), " ",
                      PadLeft(absl::StrCat(row.occurrences), kCount), "  ",
                      TruncateMiddle(what, what_width, o.ascii), "\n");
    }
    if (static_cast<int>(a.allocations_at_peak.size()) > rows) {
      absl::StrAppend(out, "    (", a.allocations_at_peak.size() - rows, " more)\n");
    }
  }
  if (static_cast<int>(r.allocators.size()) > shown) {
    absl::StrAppend(out, "            (", r.allocators.size() - shown, " more allocators)\n");
  }
}

void AppendDiagnostics(const HostReport& r, const TextReportOptions& o, std::string* out) {
  if (r.errors.empty() && r.warnings.empty()) return;
  absl::StrAppend(out, "\n");
  for (const std::string& e : r.errors) {
    AppendWrapped(e, "Error       ", "            ", o.width, out);
  }
  const size_t max_warnings = 5;
  for (size_t i = 0; i < r.warnings.size() && i < max_warnings; ++i) {
    AppendWrapped(r.warnings[i], "Warning     ", "            ", o.width, out);
  }
  if (r.warnings.size() > max_warnings) {
    absl::StrAppend(out, "            (", r.warnings.size() - max_warnings, " more warnings)\n");
  }
}

void AppendComparison(const std::vector<HostStepRow>& reports, const TextReportOptions& o,
                      std::string* out) {
  absl::StrAppend(out, "\n", Heading("Hosts compared", o.width, o.ascii));
  // "  " host " " steps(5) " " avg(9) " " min(9) " " max(9) " " verdict(10)
  constexpr int kSteps = 5, kNum = 9, kVerdict = 10;
  const int host_width = o.width - (2 + 1 + kSteps + 3 * (1 + kNum) + 1 + kVerdict);
  absl::StrAppend(out, "  ", PadRight("Host", host_width), " ", PadLeft("Steps", kSteps), " ",
                  PadLeft("Avg ms", kNum), " ", PadLeft("Min ms", kNum), " ",
                  PadLeft("Max ms", kNum), " ", PadRight("Bottleneck", kVerdict), "\n");
  double slowest = 0;
  for (const HostStepRow& r : reports) slowest = std::max(slowest, r.avg_step_ms);
  for (const HostStepRow& r : reports) {
    const bool no_steps = r.steps == 0;
    absl::StrAppend(out, "  ", PadRight(TruncateMiddle(r.host, host_width, o.ascii), host_width),
                    " ", PadLeft(absl::StrCat(r.steps), kSteps), " ",
                    PadLeft(no_steps ? "-" : Ms(r.avg_step_ms), kNum), " ",
                    PadLeft(no_steps ? "-" : Ms(r.min_step_ms), kNum), " ",
                    PadLeft(no_steps ? "-" : Ms(r.max_step_ms), kNum), " ",
                    TruncateRight(r.bottleneck.empty() ? "-" : r.bottleneck, kVerdict, o.ascii),
                    "\n");
  }
  if (reports.size() > 1 && slowest > 0) {
    double fastest = slowest;
    for (const HostStepRow& r : reports) {
      if (r.avg_step_ms > 0) fastest = std::min(fastest, r.avg_step_ms);
    }
    AppendWrapped(absl::StrFormat("slowest host's average step is %.1f%% longer than the "
                                  "fastest's",
                                  100.0 * (slowest - fastest) / fastest),
                  "  ", "  ", o.width, out);
  }
}

}  // namespace

std::string ShortenKernelName(absl::string_view name, int width, bool ascii) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(name);
  if (DisplayWidth(trimmed) <= width) return std::string(trimmed);
  absl::ConsumePrefix(&trimmed, "void ");
  std::string s(trimmed);
  // Drop a trailing parameter list "(...)".
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        if (i > 0) s.resize(i);
        break;
      }
    }
  }
  s = absl::StrReplaceAll(s, {{"(anonymous namespace)::", ""}});
  if (DisplayWidth(s) <= width) return s;
  // Drop namespaces inside template arguments: "k<at::F<int>>" -> "k<F<int>>".
  std::string unqualified;
  int depth = 0;
  size_t word_start = 0;  // In `unqualified`, start of the current identifier.
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (depth > 0 && c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      unqualified.resize(word_start);  // Remove "ns" of "ns::".
      ++i;
      continue;
    }
    if (c == '>' && !unqualified.empty() && unqualified.back() == ' ') unqualified.pop_back();
    unqualified.push_back(c);
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') {
      word_start = unqualified.size();
    }
  }
  s = unqualified;
  if (DisplayWidth(s) <= width) return s;
  const std::string dots = Ellipsis(ascii);
  const size_t open = s.find('<');
  std::string head = s.substr(0, open);
  // Template arguments tell kernels apart better than namespaces do: drop
  // the outer namespaces ("cudnn::detail::dgrad_engine<…>" -> "dgrad_engine<…>").
  const size_t colon = head.rfind("::");
  if (colon != std::string::npos) head = head.substr(colon + 2);
  // Plain names (no template arguments) lose their middle.
  if (open == std::string::npos) return TruncateMiddle(head, width, ascii);
  // Keep as much of the template arguments as fits: "k<float, F…, 3>".
  const int room = width - DisplayWidth(head) - 2 - DisplayWidth(dots);
  if (room < 0) return TruncateMiddle(head, width, ascii);
  absl::string_view args = absl::string_view(s).substr(open + 1);
  if (!args.empty() && args.back() == '>') args.remove_suffix(1);
  args = absl::StripTrailingAsciiWhitespace(args);
  // Cut the middle of the arguments: kernels often differ in the last ones.
  return absl::StrCat(head, "<", TruncateMiddle(args, room + DisplayWidth(dots), ascii), ">");
}

std::string RenderHostText(const HostReport& r, const TextReportOptions& options) {
  TextReportOptions o = options;
  o.width = std::max(60, o.width);
  std::string out = Heading(absl::StrCat("Host ", r.host), o.width, o.ascii);
  AppendOverview(r, o, &out);
  AppendSteps(r, o, &out);
  AppendKernels(r, o, &out);
  AppendInput(r, o, &out);
  AppendMemory(r, o, &out);
  AppendOperatorSections(r, o, &out);
  AppendDiagnostics(r, o, &out);
  return out;
}

HostStepRow HostStepRowOf(const HostReport& r) {
  return {r.host,         static_cast<int64_t>(r.steps.size()), r.avg_step_ms, r.min_step_ms,
          r.max_step_ms, r.bottleneck};
}

std::string RenderHostComparisonText(const std::vector<HostStepRow>& rows,
                                     const TextReportOptions& options) {
  TextReportOptions o = options;
  o.width = std::max(60, o.width);
  std::string out;
  AppendComparison(rows, o, &out);
  return out;
}

std::string RenderTextReportTitle(size_t hosts, const std::string& source,
                                  const TextReportOptions& options) {
  TextReportOptions o = options;
  o.width = std::max(60, o.width);
  const std::string title =
      absl::StrCat("tbprof report: ", hosts, hosts == 1 ? " host" : " hosts", ", ");
  return absl::StrCat(title, TruncateLeft(source, o.width - DisplayWidth(title), o.ascii), "\n\n");
}


}  // namespace tbprof::views
