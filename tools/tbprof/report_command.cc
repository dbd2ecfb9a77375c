// tbprof report: the offline views of a trace, an XSpace or a logdir run, in
// the terminal, as JSON, or as a self-contained HTML page.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "converters/views/all_views.h"
#include "converters/report/report_html.h"
#include "converters/report/report_json.h"
#include "converters/report/report_text.h"
#include "src/base/output_file.h"
#include "src/base/phase_timings.h"
#include "tools/tbprof/commands.h"
#include "tools/tbprof/flags.h"
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
  bool json = false;
  std::string html;
  std::string breakdown = "with-host";
  bool keep_all_steps = false;
  std::string steps = "auto";
  int64_t top = 10;
  int64_t width = 0;
  bool ascii = false;
  int64_t max_events = 0;
  uint64_t max_inflated_bytes = kAutoLimit;
  int64_t max_memory_mb = -1;  // -1: the default.
  bool quiet = false;
  bool timings = false;
};

int TerminalWidth() {
  struct winsize ws;
  if (::isatty(1) && ::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60) {
    return std::min<int>(ws.ws_col, 160);
  }
  int columns = 0;
  if (const char* env = std::getenv("COLUMNS"); env && absl::SimpleAtoi(env, &columns) &&
                                                columns >= 60) {
    return std::min(columns, 160);
  }
  return 80;
}

int RunReport(const std::vector<std::string>& args) {
  ReportFlags flags;
  FlagSet flag_set;
  flag_set.Bool("json", &flags.json);
  flag_set.String("html", &flags.html);
  flag_set.String("breakdown", &flags.breakdown);
  flag_set.Bool("keep-all-steps", &flags.keep_all_steps);
  flag_set.Int64("top", &flags.top);
  flag_set.Int64("width", &flags.width);
  flag_set.Bool("ascii", &flags.ascii);
  flag_set.Int64("max-events", &flags.max_events);
  flag_set.ByteSize("max-inflated-bytes", &flags.max_inflated_bytes);
  flag_set.Int64("max-memory-mb", &flags.max_memory_mb);
  flag_set.Bool("quiet", &flags.quiet);
  flag_set.Bool("timings", &flags.timings);
  flag_set.String("steps", &flags.steps);
  std::vector<std::string> inputs;
  if (absl::Status status = flag_set.Parse(args, &inputs); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (inputs.empty()) return ReportUsageError(kName, "no input given");
  views::ViewOptions view_options;
  if (absl::StatusOr<views::Breakdown> breakdown = views::ParseBreakdown(flags.breakdown);
      breakdown.ok()) {
    view_options.steps.breakdown = *breakdown;
  } else {
    return ReportUsageError(kName, absl::StrCat("--breakdown: ", breakdown.status().message()));
  }
  view_options.steps.drop_incomplete_steps = !flags.keep_all_steps;
  absl::StatusOr<converters::StepsMode> parsed_steps = converters::ParseStepsMode(flags.steps);
  if (!parsed_steps.ok()) {
    return ReportUsageError(kName, absl::StrCat("--steps: ", parsed_steps.status().message()));
  }
  const converters::StepsMode steps_mode = *parsed_steps;
  if (flags.width != 0 && flags.width < 60) {
    return ReportUsageError(kName, "--width must be at least 60");
  }

  ViewInputsOptions input_options;
  input_options.views = view_options;
  input_options.load.max_events = flags.max_events;
  input_options.load.steps = steps_mode;
  input_options.load.max_inflated_bytes = flags.max_inflated_bytes;
  input_options.load.max_memory_bytes =
      flags.max_memory_mb < 0 ? kAutoLimit : static_cast<uint64_t>(flags.max_memory_mb) << 20;
  input_options.quiet = flags.quiet;
  PhaseTimings phase_timings;
  PhaseTimings* timings = flags.timings ? &phase_timings : nullptr;
  input_options.timings = timings;
  ScopedPhase total_phase(timings, "total");
  absl::StatusOr<views::ReportInput> loaded = LoadViewInputs(inputs, input_options);
  if (!loaded.ok()) return ReportFailure(loaded.status());
  const views::ReportInput& report = *loaded;
  ScopedPhase render_phase(timings, "render");

  if (!flags.html.empty()) {
    views::HtmlReportOptions html_options;
    html_options.generator = "tbprof";
    const std::string page = views::RenderHtmlReport(report, html_options);
    if (absl::Status status =
            WriteFileAtomically(flags.html, page, AtomicOutputFile::Overwrite::kReplace);
        !status.ok()) {
      return ReportFailure(status);
    }
  }
  if (flags.json) {
    absl::StatusOr<std::string> json = views::RenderJsonReport(report);
    if (!json.ok()) return ReportFailure(json.status());
    std::fwrite(json->data(), 1, json->size(), stdout);
  } else {
    views::TextReportOptions text_options;
    text_options.width = flags.width > 0 ? static_cast<int>(flags.width) : TerminalWidth();
    text_options.max_kernels = static_cast<int>(std::max<int64_t>(1, flags.top));
    text_options.ascii = flags.ascii;
    const std::string text = views::RenderTextReport(report, text_options);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!flags.html.empty()) std::fprintf(stderr, "tbprof: wrote %s\n", flags.html.c_str());
  render_phase.Stop();
  total_phase.Stop();
  if (timings != nullptr) {
    std::fprintf(stderr, "tbprof: phase timings:\n%s", timings->Format().c_str());
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
