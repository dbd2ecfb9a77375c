#include "converters/report/diff_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "converters/report/report_text.h"
#include "converters/report/text_format.h"

namespace tbprof::views {
namespace {

using views::DisplayWidth;
using views::text::PadLeft;
using views::text::PadRight;

// The end of `text` when it is wider than `width` (paths: the end matters).
std::string CutLeft(const std::string& text, int width, bool ascii) {
  if (DisplayWidth(text) <= width) return text;
  const std::string dots = ascii ? "..." : "\xE2\x80\xA6";
  std::string tail = text.substr(text.size() - static_cast<size_t>(std::max(0, width - 3)));
  while (!tail.empty() && (static_cast<unsigned char>(tail[0]) & 0xC0) == 0x80) tail.erase(0, 1);
  return dots + tail;
}

// `text` with its middle cut out when it is wider than `width`.
std::string CutMiddle(const std::string& text, int width, bool ascii) {
  if (DisplayWidth(text) <= width) return text;
  const std::string dots = ascii ? "..." : "\xE2\x80\xA6";
  // Kernel and operator names are mostly ASCII; cut on code points anyway.
  std::vector<size_t> starts;  // Byte offset of each code point.
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  const int room = std::max(0, width - DisplayWidth(dots));
  const size_t tail = static_cast<size_t>(room / 3), head = static_cast<size_t>(room) - tail;
  return absl::StrCat(text.substr(0, starts[head]), dots,
                      tail == 0 ? std::string() : text.substr(starts[starts.size() - tail]));
}

// Word-wraps `text` into lines of at most `width` columns, indented by two.
void AppendWrapped(absl::string_view text, int width, std::string* out) {
  std::string line = " ";
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (line.size() > 1 && DisplayWidth(line) + 1 + DisplayWidth(word) > width) {
      absl::StrAppend(out, line, "\n");
      line = " ";
    }
    absl::StrAppend(&line, " ", word);
  }
  if (line.size() > 1) absl::StrAppend(out, line, "\n");
}

std::string Heading(absl::string_view title, int width) {
  std::string text = absl::StrCat("== ", title, " ");
  return absl::StrCat(text, std::string(std::max(0, width - DisplayWidth(text)), '='), "\n");
}

std::string Ms(double ms) {
  if (std::abs(ms) >= 1e5) return absl::StrFormat("%.0f", ms);
  if (std::abs(ms) >= 100) return absl::StrFormat("%.1f", ms);
  return absl::StrFormat("%.3f", ms);
}

std::string SignedMs(double ms) { return (ms >= 0 ? "+" : "") + Ms(ms); }

std::string SignedPct(double pct) { return absl::StrFormat("%+.1f%%", pct); }

std::string Us(double us) {
  return us >= 1000 ? absl::StrFormat("%.0f", us) : absl::StrFormat("%.2f", us);
}

std::string SignedBytes(int64_t bytes) {
  return (bytes >= 0 ? "+" : "") + views::FormatBytes(bytes);
}

std::string Plural(int64_t n, absl::string_view word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

// A bar of `fraction` (0..1) of `width` cells after a sign.
std::string SignedBar(double value, double max_abs, int width, bool ascii) {
  if (max_abs <= 0 || width <= 1 || value == 0) return "";
  const double fraction = std::clamp(std::abs(value) / max_abs, 0.0, 1.0);
  const int cells = width - 1;
  std::string bar = value > 0 ? "+" : "-";
  if (ascii) return bar + std::string(static_cast<size_t>(std::lround(fraction * cells)), '#');
  static const char* const kEighths[] = {"", "\xE2\x96\x8F", "\xE2\x96\x8E", "\xE2\x96\x8D",
                                         "\xE2\x96\x8C", "\xE2\x96\x8B", "\xE2\x96\x8A",
                                         "\xE2\x96\x89"};
  const long eighths = std::max(1L, std::lround(fraction * cells * 8));
  for (long i = 0; i < eighths / 8; ++i) bar += "\xE2\x96\x88";
  bar += kEighths[eighths % 8];
  return bar;
}

std::string SideLine(absl::string_view label, const std::string& source,
                     const std::vector<std::string>& hosts, const StepStats& steps,
                     const DiffTextOptions& o) {
  const std::string tail = absl::StrCat(" (", Plural(static_cast<int64_t>(hosts.size()), "host"),
                                        ", ", Plural(steps.count, "step"), ")");
  const int room = o.width - 8 - DisplayWidth(tail);
  return absl::StrCat("  ", PadRight(label, 6), CutLeft(source, std::max(10, room), o.ascii),
                      tail, "\n");
}

void AppendSteps(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  absl::StrAppend(out, Heading("Step time", o.width));
  const StepDiff& s = d.step;
  if (!s.available) {
    absl::StrAppend(out, "  not compared: ",
                    s.base.count == 0 && s.next.count == 0 ? "neither profile has steps"
                    : s.base.count == 0                    ? "the base profile has no steps"
                                                           : "the new profile has no steps",
                    "\n\n");
    return;
  }
  constexpr int kLabel = 10, kCol = 12;
  auto row = [&](absl::string_view label, const std::string& base, const std::string& next,
                 const std::string& delta) {
    absl::StrAppend(out, "  ", PadRight(label, kLabel), PadLeft(base, kCol), PadLeft(next, kCol),
                    delta.empty() ? "" : "   ", delta, "\n");
  };
  row("", "Base", "New", "Delta");
  row("Mean ms", Ms(s.base.mean_ms), Ms(s.next.mean_ms),
      absl::StrCat(SignedMs(s.delta_ms), " (", SignedPct(s.delta_pct), ")"));
  row("Sd ms", Ms(s.base.sd_ms), Ms(s.next.sd_ms), "");
  row("Min ms", Ms(s.base.min_ms), Ms(s.next.min_ms), "");
  row("Max ms", Ms(s.base.max_ms), Ms(s.next.max_ms), "");
  row("Steps", absl::StrCat(s.base.count), absl::StrCat(s.next.count), "");
  absl::StrAppend(out, "\n");
}

void AppendBreakdown(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  if (d.categories.empty()) return;
  absl::StrAppend(out, Heading("Step-time breakdown (average ms per step)", o.width));
  constexpr int kLabel = 20, kCol = 10;
  const int bar_width = std::clamp(o.width - 2 - kLabel - 3 * kCol - 2, 0, 40);
  absl::StrAppend(out, "  ", PadRight("Category", kLabel), PadLeft("Base", kCol),
                  PadLeft("New", kCol), PadLeft("Delta", kCol), "\n");
  double max_abs = 0;
  for (const CategoryDiff& c : d.categories) max_abs = std::max(max_abs, std::abs(c.delta_ms()));
  for (const CategoryDiff& c : d.categories) {
    std::string line = absl::StrCat("  ", PadRight(c.label, kLabel), PadLeft(Ms(c.base_ms), kCol),
                                    PadLeft(Ms(c.next_ms), kCol),
                                    PadLeft(SignedMs(c.delta_ms()), kCol));
    const std::string bar = SignedBar(c.delta_ms(), max_abs, bar_width, o.ascii);
    if (!bar.empty()) absl::StrAppend(&line, "  ", bar);
    absl::StrAppend(out, line, "\n");
  }
  absl::StrAppend(out, "\n");
}

std::string CountPair(const AggregateDiff& r) {
  return absl::StrCat(r.in_base() ? absl::StrCat(r.base.count) : "-", "/",
                      r.in_next() ? absl::StrCat(r.next.count) : "-");
}

std::string MeanChange(const AggregateDiff& r) {
  if (!r.in_base()) return "new";
  if (!r.in_next()) return "gone";
  return SignedPct(r.mean_delta_pct());
}

// A table of the `o.top` rows with the largest change.
// Kernel names are shortened as C++ signatures (report_text.h), others by
// cutting their middle.
void AppendTable(const AggregateTable& table, absl::string_view name_header, bool kernel_names,
                 const DiffTextOptions& o, std::string* out) {
  const bool wide = o.width >= 110;
  constexpr int kCount = 11, kMs = 9, kPct = 8, kUs = 10;
  const int numbers = kCount + 3 * kMs + kPct + (wide ? 2 * kUs : 0);
  const int name_width = std::max(10, o.width - 2 - numbers - 1);
  std::string header = absl::StrCat("  ",
                                    PadRight(name_header.substr(0, name_width), name_width + 1),
                                    PadLeft("Count b/n", kCount), PadLeft("Base ms", kMs),
                                    PadLeft("New ms", kMs), PadLeft("Delta ms", kMs));
  if (wide) absl::StrAppend(&header, PadLeft("Base µs", kUs), PadLeft("New µs", kUs));
  absl::StrAppend(&header, PadLeft("Mean %", kPct));
  if (o.ascii) header = absl::StrReplaceAll(header, {{"µs", "us"}});
  absl::StrAppend(out, header, "\n");
  const size_t shown = std::min(table.rows.size(), static_cast<size_t>(std::max(1, o.top)));
  for (size_t i = 0; i < shown; ++i) {
    const AggregateDiff& r = table.rows[i];
    std::string line = absl::StrCat(
        "  ",
        PadRight(kernel_names ? views::ShortenKernelName(r.name, name_width, o.ascii)
                              : CutMiddle(r.name, name_width, o.ascii),
                 name_width + 1),
        PadLeft(CountPair(r), kCount), PadLeft(r.in_base() ? Ms(r.base.total_ms) : "-", kMs),
        PadLeft(r.in_next() ? Ms(r.next.total_ms) : "-", kMs),
        PadLeft(SignedMs(r.delta_ms()), kMs));
    if (wide) {
      absl::StrAppend(&line, PadLeft(r.in_base() ? Us(r.base.mean_us()) : "-", kUs),
                      PadLeft(r.in_next() ? Us(r.next.mean_us()) : "-", kUs));
    }
    absl::StrAppend(&line, PadLeft(MeanChange(r), kPct));
    absl::StrAppend(out, line, "\n");
  }
}

void AppendKernels(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  if (d.kernels.rows.empty()) return;
  absl::StrAppend(out, Heading("Kernels by change of total time", o.width));
  AppendWrapped(absl::StrCat(d.kernels.in_both, " kernel names in both, ", d.kernels.only_base,
                             " only in base, ", d.kernels.only_next, " only in new; kernel time ",
                             Ms(d.base_kernels.total_ms), " -> ", Ms(d.next_kernels.total_ms),
                             " ms (", SignedMs(d.next_kernels.total_ms - d.base_kernels.total_ms),
                             "), launches ", d.base_kernels.count, " -> ", d.next_kernels.count),
                o.width, out);
  AppendTable(d.kernels, "Kernel", true, o, out);
  absl::StrAppend(out, "\n");
}

void AppendOperators(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  if (d.operators.rows.empty()) return;
  absl::StrAppend(out, Heading("Operators (kernel time per framework op)", o.width));
  AppendTable(d.operators, "Operator", false, o, out);
  absl::StrAppend(out, "\n");
}

std::string CommSide(const TimeAggregate& comm, const TimeAggregate& all) {
  if (comm.count == 0) return "none";
  return absl::StrFormat("%s ms in %d launches (%.1f%% of kernel time)", Ms(comm.total_ms),
                         comm.count, all.total_ms > 0 ? 100.0 * comm.total_ms / all.total_ms : 0);
}

void AppendCommunication(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  absl::StrAppend(out, Heading("Communication (collective kernels, nccl*)", o.width));
  if (d.base_communication.count == 0 && d.next_communication.count == 0) {
    absl::StrAppend(out, "  no collective kernels in either profile\n\n");
    return;
  }
  absl::StrAppend(out, "  Base      ", CommSide(d.base_communication, d.base_kernels), "\n");
  absl::StrAppend(out, "  New       ", CommSide(d.next_communication, d.next_kernels), "\n");
  absl::StrAppend(out, "  Delta     ",
                  SignedMs(d.next_communication.total_ms - d.base_communication.total_ms),
                  " ms\n");
  for (const CategoryDiff& c : d.categories) {
    if (c.key == "device_collectives") {
      absl::StrAppend(out, "  Per step  ", Ms(c.base_ms), " -> ", Ms(c.next_ms), " ms (",
                      SignedMs(c.delta_ms()), ")\n");
    }
  }
  AppendTable(d.collectives, "Collective", true, o, out);
  absl::StrAppend(out, "\n");
}

void AppendMemory(const ProfileDiff& d, const DiffTextOptions& o, std::string* out) {
  absl::StrAppend(out, Heading("Memory peak", o.width));
  if (d.memory.empty()) {
    absl::StrAppend(out, "  no memory events in either profile\n\n");
    return;
  }
  constexpr int kCol = 12;
  const int name_width = std::clamp(o.width - 2 - 3 * kCol - 10, 12, 40);
  absl::StrAppend(out, "  ", PadRight("Allocator", name_width), PadLeft("Base", kCol),
                  PadLeft("New", kCol), PadLeft("Delta", kCol), "\n");
  for (const MemoryDiff& m : d.memory) {
    std::string delta;
    if (m.base_bytes >= 0 && m.next_bytes >= 0) {
      delta = SignedBytes(m.next_bytes - m.base_bytes);
      if (m.base_bytes > 0) {
        absl::StrAppend(&delta, " (",
                        SignedPct(100.0 * static_cast<double>(m.next_bytes - m.base_bytes) /
                                  static_cast<double>(m.base_bytes)),
                        ")");
      }
    } else {
      delta = m.base_bytes < 0 ? "new" : "gone";
    }
    absl::StrAppend(out, "  ", PadRight(CutLeft(m.allocator, name_width - 1, o.ascii), name_width),
                    PadLeft(m.base_bytes >= 0 ? views::FormatBytes(m.base_bytes) : "-", kCol),
                    PadLeft(m.next_bytes >= 0 ? views::FormatBytes(m.next_bytes) : "-", kCol),
                    "  ", delta, "\n");
  }
  absl::StrAppend(out, "\n");
}

}  // namespace

std::string DiffVerdict(const ProfileDiff& d) {
  const StepDiff& s = d.step;
  if (!s.available) {
    return absl::StrFormat("step time not compared (%s); kernel time %s -> %s ms (%s)",
                           s.base.count == 0 && s.next.count == 0 ? "no steps in either profile"
                           : s.base.count == 0                    ? "no steps in base"
                                                                  : "no steps in new",
                           Ms(d.base_kernels.total_ms), Ms(d.next_kernels.total_ms),
                           SignedMs(d.next_kernels.total_ms - d.base_kernels.total_ms));
  }
  std::string line =
      s.delta_ms == 0
          ? std::string("new has the same mean step time")
          : absl::StrFormat("new is %.1f%% %s (%s ms per step)", std::abs(s.delta_pct),
                            s.delta_ms > 0 ? "slower" : "faster", SignedMs(s.delta_ms));
  switch (s.noise) {
    case Noise::kWithin:
      absl::StrAppendFormat(&line, "; within noise: |delta| < sd %s ms", Ms(s.noise_ms));
      break;
    case Noise::kOutside:
      absl::StrAppendFormat(&line, "; outside noise: |delta| >= sd %s ms", Ms(s.noise_ms));
      break;
    case Noise::kUnknown:
      absl::StrAppend(&line, "; noise unknown: a side has fewer than 2 steps");
      break;
  }
  return line;
}

std::string RenderDiffText(const ProfileDiff& d, const DiffTextOptions& options) {
  DiffTextOptions o = options;
  o.width = std::max(60, o.width);
  std::string out = "tbprof diff\n";
  absl::StrAppend(&out, SideLine("base", d.base_source, d.base_hosts, d.step.base, o));
  absl::StrAppend(&out, SideLine("new", d.next_source, d.next_hosts, d.step.next, o), "\n");
  AppendSteps(d, o, &out);
  AppendBreakdown(d, o, &out);
  AppendKernels(d, o, &out);
  AppendOperators(d, o, &out);
  AppendCommunication(d, o, &out);
  AppendMemory(d, o, &out);
  // The verdict, broken after "; " where it would not fit.
  std::string line = "Verdict  ";
  bool first = true;
  for (absl::string_view part : absl::StrSplit(DiffVerdict(d), "; ")) {
    const std::string piece = first ? std::string(part) : absl::StrCat("; ", part);
    if (!first && DisplayWidth(line) + DisplayWidth(piece) > o.width) {
      absl::StrAppend(&out, line, "\n");
      line = absl::StrCat("         ", part);
    } else {
      absl::StrAppend(&line, piece);
    }
    first = false;
  }
  absl::StrAppend(&out, line, "\n");
  return out;
}

}  // namespace tbprof::views
