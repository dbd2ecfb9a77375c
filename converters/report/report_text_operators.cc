#include "converters/report/report_text_operators.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "converters/report/text_format.h"
#include "converters/views/operators/gemm_flops.h"

namespace tbprof::views {
namespace {

using text::AppendWrapped;
using text::Ms;
using text::PadLeft;
using text::PadRight;
using text::TruncateMiddle;
using text::TruncateRight;

constexpr absl::string_view kIndent = "            ";  // 12 columns, as the other sections.

std::string PsMs(int64_t ps) { return Ms(static_cast<double>(ps) / 1e9); }

std::string Count(int64_t n) {
  return n < 1000000 ? absl::StrCat(n) : absl::StrFormat("%.1fM", n / 1e6);
}

// Input shapes without the entries of non-tensor inputs, for display:
// "[[32,64,56,56],[64,64,3,3],[],[]]" -> "[[32,64,56,56],[64,64,3,3]]".
std::string TensorShapes(absl::string_view shapes) {
  std::vector<std::vector<int64_t>> dims;
  if (!ParseInputDims(shapes, &dims)) return std::string(shapes);
  std::vector<std::string> parts;
  for (const std::vector<int64_t>& d : dims) {
    if (!d.empty()) parts.push_back(absl::StrCat("[", absl::StrJoin(d, ","), "]"));
  }
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

// The dtype of an op's first tensor input with a known dtype ("bf16"), "".
std::string DtypeSummary(absl::string_view input_types) {
  std::vector<std::string> types;
  if (!ParseStringList(input_types, &types)) return "";
  for (const std::string& t : types) {
    std::string d = DtypeOf(t);
    if (!d.empty()) return d;
  }
  return "";
}

void AppendNotes(const google::protobuf::RepeatedPtrField<std::string>& notes,
                 const TextReportOptions& o, std::string* out) {
  constexpr int kMaxNotes = 4;
  for (int i = 0; i < notes.size() && i < kMaxNotes; ++i) {
    AppendWrapped(notes[i], i == 0 ? "  Note: " : "        ", "        ", o.width, out);
  }
  if (notes.size() > kMaxNotes) {
    absl::StrAppend(out, "        (", notes.size() - kMaxNotes, " more notes in --json)\n");
  }
}

// A column heading cut and padded to `width`.
std::string Label(absl::string_view label, int width, const TextReportOptions& o) {
  return PadRight(TruncateRight(label, width, o.ascii), width);
}

// "TC%": the Tensor Core share of an eligible op's device self time.
std::string TensorCorePercent(const tbprof::OpRow& row) {
  if (!row.tensor_core_eligible()) return "-";
  if (row.device_self_ps() <= 0) return "0";
  return absl::StrFormat("%.0f", 100.0 * row.device_self_tensor_core_ps() / row.device_self_ps());
}

void AppendOpTable(const tbprof::OperatorStats& s, const TextReportOptions& o, std::string* out) {
  // "  " name " " calls(6) " " self(9) " " total(9) " " host(9) " " tc(4)
  constexpr int kCalls = 6, kNum = 9, kTc = 4;
  const int name_width = o.width - (2 + 1 + kCalls + 3 * (1 + kNum) + 1 + kTc);
  const int shown = std::min(o.max_ops, s.ops_size());
  absl::StrAppend(out, "  ", Label(absl::StrCat("Op (top ", shown, ", ms)"), name_width, o), " ",
                  PadLeft("Calls", kCalls), " ", PadLeft("Dev self", kNum), " ",
                  PadLeft("Dev total", kNum), " ", PadLeft("Host self", kNum), " ",
                  PadLeft("TC%", kTc), "\n");
  for (int i = 0; i < shown; ++i) {
    const tbprof::OpRow& r = s.ops(i);
    absl::StrAppend(out, "  ", PadRight(TruncateMiddle(r.name(), name_width, o.ascii), name_width),
                    " ", PadLeft(Count(r.calls()), kCalls), " ",
                    PadLeft(PsMs(r.device_self_ps()), kNum), " ",
                    PadLeft(PsMs(r.device_total_ps()), kNum), " ",
                    PadLeft(PsMs(r.host_self_ps()), kNum), " ", PadLeft(TensorCorePercent(r), kTc),
                    "\n");
  }
}

void AppendUnattributed(const tbprof::OperatorStats& s, const TextReportOptions& o,
                        std::string* out) {
  bool first = true;
  for (const tbprof::UnattributedDeviceTime& u : s.unattributed()) {
    if (u.events() == 0) continue;
    AppendWrapped(u.explanation(), first ? "  No op: " : "         ", "         ", o.width, out);
    first = false;
  }
}

void AppendShapeTable(const tbprof::OperatorStats& s, const TextReportOptions& o,
                      std::string* out) {
  if (s.ops_by_input_shape_size() == 0) return;
  // "  " op+shape " " calls(6) " " self(9) " " host(9)
  constexpr int kCalls = 6, kNum = 9;
  const int name_width = o.width - (2 + 1 + kCalls + 2 * (1 + kNum));
  const int shown = std::min(o.max_shape_rows, s.ops_by_input_shape_size());
  absl::StrAppend(out, "  ", Label(absl::StrCat("By input shape (top ", shown, ")"), name_width, o),
                  " ", PadLeft("Calls", kCalls), " ", PadLeft("Dev self", kNum), " ",
                  PadLeft("Host self", kNum), "\n");
  for (int i = 0; i < shown; ++i) {
    const tbprof::OpRow& r = s.ops_by_input_shape(i);
    std::string what = r.name();
    if (!r.input_shapes().empty()) absl::StrAppend(&what, " ", TensorShapes(r.input_shapes()));
    const std::string dtype = DtypeSummary(r.input_types());
    if (!dtype.empty()) absl::StrAppend(&what, " ", dtype);
    absl::StrAppend(out, "  ", PadRight(TruncateMiddle(what, name_width, o.ascii), name_width), " ",
                    PadLeft(Count(r.calls()), kCalls), " ", PadLeft(PsMs(r.device_self_ps()), kNum),
                    " ", PadLeft(PsMs(r.host_self_ps()), kNum), "\n");
  }
}

void AppendCallStacks(const tbprof::OperatorStats& s, const TextReportOptions& o,
                      std::string* out) {
  int ops = 0;
  for (const tbprof::OpRow& r : s.ops()) {
    if (ops >= o.max_stack_ops) break;
    if (r.call_stacks_size() == 0) continue;
    if (ops++ == 0) absl::StrAppend(out, "  Call stacks of the top ops (innermost frame first):\n");
    absl::StrAppend(out, "  ", TruncateMiddle(r.name(), o.width - 2, o.ascii), "\n");
    for (int i = 0; i < r.call_stacks_size() && i < o.stacks_per_op; ++i) {
      const tbprof::OpCallStack& c = r.call_stacks(i);
      const int64_t ps = c.device_total_ps() > 0 ? c.device_total_ps() : c.host_total_ps();
      const std::string head =
          absl::StrCat("    ", PadLeft(PsMs(ps), 9), " ms ", PadLeft(Count(c.calls()), 6), "x  ");
      const std::string stack = absl::StrReplaceAll(c.stack(), {{";", " < "}});
      absl::StrAppend(out, head,
                      TruncateRight(stack, o.width - DisplayWidth(head), o.ascii), "\n");
    }
  }
}

void AppendOperators(const HostReport& r, const TextReportOptions& o, std::string* out) {
  const tbprof::OperatorStats& s = r.operators;
  absl::StrAppend(out, "\n");
  if (!s.no_data_reason().empty()) {
    AppendWrapped(s.no_data_reason(), "Operators   ", kIndent, o.width, out);
    return;
  }
  AppendWrapped(
      absl::StrCat(s.ops_size(), " ops, ", Count(s.host_ops()), " calls; device time ",
                   PsMs(s.device_time_ps()), " ms, of which ops launched ",
                   PsMs(s.attributed_device_time_ps()), " ms"),
      "Operators   ", kIndent, o.width, out);
  AppendOpTable(s, o, out);
  AppendUnattributed(s, o, out);
  AppendShapeTable(s, o, out);
  AppendCallStacks(s, o, out);
  AppendNotes(s.notes(), o, out);
}

void AppendModules(const HostReport& r, const TextReportOptions& o, std::string* out) {
  const tbprof::ModuleStats& m = r.modules;
  absl::StrAppend(out, "\n");
  if (!m.no_data_reason().empty()) {
    AppendWrapped(m.no_data_reason(), "Modules     ", kIndent, o.width, out);
    return;
  }
  AppendWrapped(absl::StrCat(m.modules_size(), " module paths; device time outside modules ",
                             PsMs(m.device_time_outside_modules_ps()), " ms"),
                "Modules     ", kIndent, o.width, out);
  // "  " name " " calls(6) " " host(9) " " self(9) " " total(9)
  constexpr int kCalls = 6, kNum = 9;
  const int name_width = o.width - (2 + 1 + kCalls + 3 * (1 + kNum));
  absl::StrAppend(out, "  ", Label("Module (ms)", name_width, o), " ", PadLeft("Calls", kCalls),
                  " ", PadLeft("Host", kNum), " ", PadLeft("Dev self", kNum), " ",
                  PadLeft("Dev total", kNum), "\n");
  int shown = 0, hidden = 0;
  for (const tbprof::ModuleNode& n : m.modules()) {
    if (n.depth() >= o.max_module_depth || shown >= o.max_modules) {
      ++hidden;
      continue;
    }
    ++shown;
    const std::string indent(static_cast<size_t>(2 * std::min(n.depth(), 8)), ' ');
    absl::StrAppend(
        out, "  ",
        PadRight(absl::StrCat(indent, TruncateMiddle(n.name(), name_width - DisplayWidth(indent),
                                                     o.ascii)),
                 name_width),
        " ", PadLeft(Count(n.occurrences()), kCalls), " ", PadLeft(PsMs(n.host_total_ps()), kNum),
        " ", PadLeft(PsMs(n.device_self_ps()), kNum), " ", PadLeft(PsMs(n.device_total_ps()), kNum),
        "\n");
  }
  if (hidden > 0) {
    absl::StrAppend(out, "  (", hidden, " deeper or further module rows in --json and --html)\n");
  }
}

std::string PeakLine(const tbprof::DevicePeak& d) {
  return absl::StrFormat(
      "GPU %d %s, %s, %d SMs x %.0f MHz (%s): peak %.0f TFLOP/s fp16/bf16, %s tf32, %.1f fp32",
      d.device_ordinal(), d.name(), d.architecture(), d.sm_count(), d.clock_mhz(),
      d.clock_source().substr(0, d.clock_source().find(" (")), d.fp16_tensor_tflops(),
      d.tf32_tensor_tflops() > 0 ? absl::StrFormat("%.0f", d.tf32_tensor_tflops()) : "no",
      d.fp32_tflops());
}

void AppendGemm(const HostReport& r, const TextReportOptions& o, std::string* out) {
  const tbprof::GemmEfficiency& g = r.gemm_efficiency;
  absl::StrAppend(out, "\n");
  if (!g.no_data_reason().empty()) {
    AppendWrapped(g.no_data_reason(), "GEMM        ", kIndent, o.width, out);
    return;
  }
  const double tflops = g.device_time_ps() > 0 ? g.total_flops() / g.device_time_ps() : 0;
  AppendWrapped(absl::StrFormat("%d GEMM/convolution shapes: %s in %s ms of device time = %.3f "
                                "TFLOP/s",
                                g.ops_size(), FormatFlops(g.total_flops()),
                                PsMs(g.device_time_ps()), tflops),
                "GEMM        ", kIndent, o.width, out);
  for (const tbprof::DevicePeak& d : g.devices()) {
    AppendWrapped(PeakLine(d), kIndent, kIndent, o.width, out);
  }
  const bool worst = g.worst_size() > 0;
  const auto& rows = worst ? g.worst() : g.ops();
  // "  " what " " calls(6) " " tflops(8) " " peak%(7) " " ms(9)
  constexpr int kCalls = 6, kRate = 8, kPeak = 7, kNum = 9;
  const int name_width = o.width - (2 + 1 + kCalls + 1 + kRate + 1 + kPeak + 1 + kNum);
  absl::StrAppend(out, "  ",
                  Label(worst ? "Least efficient (>=1% of time)" : "Longest", name_width, o), " ",
                  PadLeft("Calls", kCalls), " ", PadLeft("TFLOP/s", kRate), " ",
                  PadLeft("% peak", kPeak), " ", PadLeft("Dev ms", kNum), "\n");
  for (int i = 0; i < rows.size() && i < o.max_gemm_rows; ++i) {
    const tbprof::GemmOpEfficiency& e = rows[i];
    std::string what = absl::StrCat(e.name(), " ", TensorShapes(e.input_shapes()));
    if (!e.dtype().empty()) absl::StrAppend(&what, " ", e.dtype());
    const std::string peak =
        e.peak_tflops() > 0 ? absl::StrFormat("%.2f", 100 * e.fraction_of_peak()) : "-";
    absl::StrAppend(out, "  ", PadRight(TruncateMiddle(what, name_width, o.ascii), name_width), " ",
                    PadLeft(Count(e.calls()), kCalls), " ",
                    PadLeft(absl::StrFormat("%.3f", e.achieved_tflops()), kRate), " ",
                    PadLeft(peak, kPeak), " ", PadLeft(PsMs(e.device_time_ps()), kNum), "\n");
  }
  AppendNotes(g.notes(), o, out);
}

}  // namespace

std::string FormatFlops(double flops) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P", "E"};
  int unit = 0;
  while (std::fabs(flops) >= 999.5 && unit < 6) {
    flops /= 1000;
    ++unit;
  }
  if (std::fabs(flops) >= 99.95) return absl::StrFormat("%.0f %sFLOP", flops, kUnits[unit]);
  if (std::fabs(flops) >= 9.995) return absl::StrFormat("%.1f %sFLOP", flops, kUnits[unit]);
  return absl::StrFormat("%.2f %sFLOP", flops, kUnits[unit]);
}

void AppendOperatorSections(const HostReport& report, const TextReportOptions& options,
                            std::string* out) {
  AppendOperators(report, options, out);
  AppendModules(report, options, out);
  AppendGemm(report, options, out);
}

}  // namespace tbprof::views
