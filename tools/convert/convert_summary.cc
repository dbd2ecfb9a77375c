#include "tools/convert/convert_summary.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "src/base/progress.h"

namespace tbprof::cli {

using views::FormatCount;
using views::PlaneSummary;
using views::XSpaceDiagnosis;
namespace {

constexpr size_t kMaxPlanesShown = 10;
constexpr size_t kMaxExamplesShown = 3;

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' ||
          c == '_' || c == '-' || c == '+' || c == ':' || c == '@' || c == '=' || c == ',')) {
      plain = false;
    }
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string StepsLine(const XSpaceDiagnosis& d) {
  if (d.has_group_id && d.device_step_line_events > 0) {
    return absl::StrCat(FormatCount(d.device_step_line_events),
                        " step events on device Steps lines (grouped by the producer)");
  }
  if (d.step_roots == 0) {
    return "none. No step marker observed: the overview step-time graph will be empty "
           "(no ProfilerStep#N / `_r` root on /host:CPU; see `tbprof inspect`)";
  }
  std::string line = absl::StrCat(FormatCount(d.step_roots), " step marker",
                                  d.step_roots == 1 ? "" : "s");
  if (d.gpu_planes > 0) {
    absl::StrAppend(&line, ", ", FormatCount(d.steps_with_device_work), " with GPU work");
    if (d.steps_with_device_work == 0) absl::StrAppend(&line, " (see `tbprof inspect`)");
  }
  return line;
}

void AppendWarnings(const HostReport& host, std::string* out) {
  std::vector<std::string> lines;
  const XSpaceDiagnosis& d = host.diagnosis;
  // The JSON converter lists malformed events in XSpace.warnings too; say it once.
  bool warnings_mention_malformed = false;
  for (const std::string& warning : d.warnings) {
    if (absl::StrContains(warning, "malformed")) warnings_mention_malformed = true;
  }
  if (host.json_summary && host.json_summary->events_malformed > 0 &&
      !warnings_mention_malformed) {
    std::string line = absl::StrCat(FormatCount(host.json_summary->events_malformed),
                                    " malformed events skipped");
    const auto& examples = host.json_summary->malformed_examples;
    for (size_t i = 0; i < examples.size() && i < kMaxExamplesShown; ++i) {
      absl::StrAppend(&line, i == 0 ? ", first: " : "; ", examples[i]);
    }
    lines.push_back(line);
  }
  for (size_t i = 0; i < d.errors.size() && i < kMaxExamplesShown; ++i) {
    lines.push_back(absl::StrCat("error: ", d.errors[i]));
  }
  if (d.errors.size() > kMaxExamplesShown) {
    lines.push_back(absl::StrCat("... ", d.errors.size() - kMaxExamplesShown, " more errors"));
  }
  for (size_t i = 0; i < d.warnings.size() && i < kMaxExamplesShown; ++i) {
    lines.push_back(d.warnings[i]);
  }
  if (d.warnings.size() > kMaxExamplesShown) {
    lines.push_back(absl::StrCat("... ", d.warnings.size() - kMaxExamplesShown, " more warnings"));
  }
  if (lines.empty()) {
    absl::StrAppend(out, "  warnings: none\n");
    return;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StrAppend(out, i == 0 ? "  warnings: " : "            ", lines[i], "\n");
  }
}

}  // namespace

std::string FormatConvertSummary(const std::string& logdir, const std::string& run,
                                 const std::string& run_dir,
                                 const std::vector<HostReport>& hosts) {
  std::string out = absl::StrCat("Wrote run '", run, "' with ", hosts.size(),
                                 hosts.size() == 1 ? " host" : " hosts", " in ", run_dir, "/\n");
  for (const HostReport& host : hosts) {
    absl::StrAppend(&out, "\n", host.host, "  <- ", host.input_path, " (",
                    InputFormatName(host.format), ", ", FormatBytes(host.input_bytes), ")\n");
    absl::StrAppend(&out, "  file:     ", host.output_path, " (", FormatBytes(host.output_bytes),
                    ")\n");
    if (!host.extra_files.empty()) {
      std::vector<std::string> suffixes;
      for (const std::string& name : host.extra_files) {
        suffixes.push_back(absl::StartsWith(name, host.host + ".")
                               ? name.substr(host.host.size() + 1)
                               : name);
      }
      absl::StrAppend(&out, "  also:     ", host.host, ".{", absl::StrJoin(suffixes, ","),
                      "} (for profile plugins <= 2.19)\n");
    }
    const XSpaceDiagnosis& d = host.diagnosis;
    for (size_t i = 0; i < d.planes.size() && i < kMaxPlanesShown; ++i) {
      const PlaneSummary& p = d.planes[i];
      absl::StrAppendFormat(&out, "  %-10s%-24s %11s events on %s line%s\n",
                            i == 0 ? "planes:" : "", p.name, FormatCount(p.num_events),
                            FormatCount(p.num_lines), p.num_lines == 1 ? "" : "s");
    }
    if (d.planes.size() > kMaxPlanesShown) {
      absl::StrAppend(&out, "            ... and ", d.planes.size() - kMaxPlanesShown,
                      " more planes\n");
    }
    if (host.json_summary) {
      const converters::ChromeJsonSummary& s = *host.json_summary;
      absl::StrAppend(&out, "  events:   ", FormatCount(s.events_read), " read, ",
                      FormatCount(s.events_converted), " converted, ",
                      FormatCount(s.events_ignored), " ignored, ", FormatCount(s.events_malformed),
                      " malformed; ", FormatCount(s.kernels), " kernels, ",
                      FormatCount(s.memcpys), " memcpys, ", FormatCount(s.memory_events),
                      " memory events\n");
    }
    if (host.raw_summary) {
      const converters::RawCaptureSummary& s = *host.raw_summary;
      absl::StrAppend(&out, "  records:  ", FormatCount(s.records), " in ",
                      FormatCount(s.activity_buffers), " buffers; ", FormatCount(s.kernels),
                      " kernels, ", FormatCount(s.memcpys), " memcpys, ", FormatCount(s.memsets),
                      " memsets, ", FormatCount(s.api_events), " API calls, ",
                      FormatCount(s.nvtx_ranges), " NVTX ranges, ", FormatCount(s.memory_events),
                      " memory events");
      if (s.records_bad_time > 0) {
        absl::StrAppend(&out, "; ", FormatCount(s.records_bad_time),
                        " skipped (unusable timestamps)");
      }
      absl::StrAppend(&out, "\n");
    }
    absl::StrAppend(&out, "  steps:    ", StepsLine(d), "\n");
    AppendWarnings(host, &out);
  }
  absl::StrAppend(&out, "\nOpen it with:\n  tensorboard --logdir ", ShellQuote(logdir),
                  "\nand choose the PROFILE tab (needs `pip install tensorboard xprof`).\n"
                  "Why a view is empty: tbprof inspect <file>.xplane.pb\n");
  return out;
}

}  // namespace tbprof::cli
