// tbprof report: the offline views of a trace, an XSpace or a logdir run, in
// the terminal, as JSON, or as a self-contained HTML page.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/views/all/all_views.h"
#include "converters/report/report_html.h"
#include "converters/report/report_json.h"
#include "converters/report/report_text.h"
#include "converters/report/views_file.h"
#include "src/base/output_file.h"
#include "src/base/phase_timings.h"
#include "tools/tbprof/commands.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/shared_flags.h"
#include "tools/tbprof/trace_inputs.h"
#include "tools/tbprof/view_inputs.h"

namespace tbprof::cli {
namespace {

constexpr char kName[] = "report";

constexpr char kHelp[] =
    R"(Usage: tbprof report <trace|xplane.pb|DIR>... [flags]

Computes the profile plugin's views offline and shows them without
TensorBoard: the overview verdict and recommendations, the step-time
breakdown, the top GPU kernels, the input-pipeline verdict and the memory
peak with the allocations live at the peak. Runs with NCCL/RCCL collectives
(one trace per rank) also get the distributed view: per rank the step split
into compute / communication / overlap / other, the waiting in collectives,
the slowest rank and the rank the others wait for, and per collective its
size, latency and algorithm / bus bandwidth.

Inputs:
  *.json *.json.gz *.pt.trace.json[.gz]
            PyTorch profiler / Kineto / Chrome trace JSON (converted in memory)
  *.xplane.pb
            an XSpace (TensorFlow, JAX, XLA or tbprof)
  RUN_DIR   a logdir run, DIR/plugins/profile/RUN: one section per
            <host>.xplane.pb
  LOGDIR    a log directory: its most recent run (by name)
  DIR       other directories: every trace file in it, one host per file
Several inputs make one multi-host report.

Flags:
  --json                   print one JSON object instead of text: the view
                           protos as protobuf JSON (lowerCamelCase names);
                           one host: {"overview", "input_pipeline",
                           "kernel_stats", "memory_profile", ...}; several
                           hosts: {"hosts": [{"host": NAME, "overview": ...},
                           ...]}; both end with the run's "distributed" view
  --html FILE              also write a self-contained HTML report (charts,
                           sortable kernel table; no network access needed)
  --views-out FILE         also write tbprof's views file (every view above as
                           one versioned JSON document, gzip when FILE ends in
                           .gz; docs/views_file.md), what the TensorBoard tab
                           serves; convert writes one per host by itself
  --breakdown MODE         step-time breakdown: with-host (default; host
                           input wait, kernel launch and host compute count
                           too) or device-only (the profile plugin's numbers)
  --keep-all-steps         keep the first and last step; by default they are
                           left out when there are more than 5, as TensorBoard
                           does (they often hold warm-up or a cut-off step)
  --steps MODE             where steps come from: auto (default: the trace's
                           ProfilerStep#N markers, else inferred from repeated
                           enumerate(DataLoader) or Optimizer.step events, else
                           from the period of the GPU kernel sequence), markers
                           (never infer), infer (always; markers are ignored),
                           none (no steps)
  --top N                  kernels in the terminal table (default 10)
  --width N                terminal width (default: the terminal's, else 80)
  --ascii                  plain ASCII output (no block bars, no µ)
  --max-events N           fail if a trace has more than N events (0 = no limit)
  --max-inflated-bytes N   fail if a gzip input inflates past N bytes (e.g. 16G;
                           default 200x the compressed size, at least 1G)
  --max-memory-mb N        stop when memory use passes N MB (default 80% of RAM)
  --quiet                  no progress display
  --strict                 fail if one of several inputs fails (default: name
                           it on stderr, report the others, exit status 4)
  --timings                print the wall and CPU time of each phase (load,
                           each view, rendering) to stderr
  -h, --help               this text

Examples:
  tbprof report worker0.pt.trace.json.gz
  tbprof report tb/plugins/profile/2025_01_31_12_00_00 --html report.html
  tbprof report model.xplane.pb --json | python3 -m json.tool
  tbprof report traces/ --breakdown=device-only     # one host per rank
)";

struct ReportFlags {
  ViewFlags view;
  std::string views_out;
  bool strict = false;
  bool timings = false;
};

// Writes the views file of `report` to `path` atomically (never a partial
// file), gzip-compressed when `path` ends in ".gz".
absl::Status WriteViewsFile(const views::ReportInput& report, const std::string& path) {
  absl::StatusOr<std::string> document = views::RenderViewsFile(report);
  if (!document.ok()) return document.status();
  if (absl::EndsWith(path, ".gz")) {
    absl::StatusOr<std::string> compressed = GzipCompress(*document);
    if (!compressed.ok()) return compressed.status();
    *document = std::move(*compressed);
  }
  return WriteFileAtomically(path, *document, AtomicOutputFile::Overwrite::kReplace);
}

int RunReport(const std::vector<std::string>& args) {
  ReportFlags flags;
  FlagSet flag_set;
  AddViewFlags(&flag_set, &flags.view);
  flag_set.Bool("timings", &flags.timings);
  flag_set.Bool("strict", &flags.strict);
  flag_set.String("views-out", &flags.views_out);
  std::vector<std::string> inputs;
  if (absl::Status status = flag_set.Parse(args, &inputs); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (inputs.empty()) return ReportUsageError(kName, "no input given");
  ViewInputsOptions input_options;
  if (absl::Status status = ApplyViewFlags(flags.view, &input_options); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (absl::Status status = CheckWidthFlag(flags.view); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  // The report says how its step time relates to xprof's overview.
  input_options.views.compare_breakdowns = true;
  PhaseTimings phase_timings;
  PhaseTimings* timings = flags.timings ? &phase_timings : nullptr;
  input_options.timings = timings;
  std::vector<absl::Status> failed;
  if (!flags.strict) input_options.failed = &failed;
  ScopedPhase total_phase(timings, "total");
  absl::StatusOr<views::ReportInput> loaded = LoadViewInputs(inputs, input_options);
  if (!loaded.ok()) return ReportFailure(loaded.status());
  const views::ReportInput& report = *loaded;
  ScopedPhase render_phase(timings, "render");

  if (!flags.view.html.empty()) {
    views::HtmlReportOptions html_options;
    html_options.generator = "tbprof";
    const std::string page = views::RenderHtmlReport(report, html_options);
    if (absl::Status status =
            WriteFileAtomically(flags.view.html, page, AtomicOutputFile::Overwrite::kReplace);
        !status.ok()) {
      return ReportFailure(status);
    }
  }
  if (!flags.views_out.empty()) {
    if (absl::Status status = WriteViewsFile(report, flags.views_out); !status.ok()) {
      return ReportFailure(status);
    }
  }
  if (flags.view.json) {
    absl::StatusOr<std::string> json = views::RenderJsonReport(report);
    if (!json.ok()) return ReportFailure(json.status());
    std::fwrite(json->data(), 1, json->size(), stdout);
  } else {
    views::TextReportOptions text_options;
    text_options.width = TextWidth(flags.view);
    text_options.max_kernels = static_cast<int>(std::max<int64_t>(1, flags.view.top));
    text_options.ascii = flags.view.ascii;
    const std::string text = views::RenderTextReport(report, text_options);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!flags.view.html.empty()) std::fprintf(stderr, "tbprof: wrote %s\n", flags.view.html.c_str());
  if (!flags.views_out.empty()) {
    std::fprintf(stderr, "tbprof: wrote %s\n", flags.views_out.c_str());
  }
  render_phase.Stop();
  total_phase.Stop();
  if (timings != nullptr) {
    std::fprintf(stderr, "tbprof: phase timings:\n%s", timings->Format().c_str());
  }
  if (!failed.empty()) {
    std::fputs(FormatFailedInputs(report.hosts.size() + failed.size(), failed).c_str(), stderr);
    return kExitPartial;
  }
  return kExitOk;
}

}  // namespace

const CommandSpec kReportCommand = {
    kName,
    "show the overview, step time, kernels, input pipeline and memory (text, JSON, HTML)",
    kHelp,
    &RunReport,
};

}  // namespace tbprof::cli
