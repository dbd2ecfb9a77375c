// tbprof report: the offline views of a trace, an XSpace or a logdir run, in
// the terminal, as JSON, or as a self-contained HTML page.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/views/all/all_views.h"
#include "converters/output/gzip_output_stream.h"
#include "converters/report/report_html.h"
#include "converters/report/report_json.h"
#include "converters/report/report_stream.h"
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

// Writes the views file of the hosts in `stream` to `path` atomically (never
// a partial file), gzip-compressed as it is produced when `path` ends in
// ".gz".
absl::Status WriteViewsFile(const std::string& source, const std::string& path,
                            views::ReportStream* stream) {
  absl::StatusOr<std::unique_ptr<AtomicOutputFile>> file = AtomicOutputFile::Create(path);
  if (!file.ok()) return file.status();
  views::ByteSink to_file = [&](absl::string_view bytes) { return (*file)->Append(bytes); };
  std::unique_ptr<views::GzipOutputStream> gzip;
  if (absl::EndsWith(path, ".gz")) {
    absl::StatusOr<std::unique_ptr<views::GzipOutputStream>> created =
        views::GzipOutputStream::Create(to_file);
    if (!created.ok()) return created.status();
    gzip = *std::move(created);
  }
  absl::Status status = stream->FinishViews(source, [&](absl::string_view piece) {
    return gzip != nullptr ? gzip->Append(piece) : to_file(piece);
  });
  if (status.ok() && gzip != nullptr) status = gzip->Finish();
  if (status.ok()) status = (*file)->Commit(AtomicOutputFile::Overwrite::kReplace);
  return status;
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
  // Each host is rendered as soon as its views are computed and only what
  // the sections after the hosts need is kept (report_stream.h).
  views::ReportStreamOptions stream_options;
  stream_options.json = flags.view.json;
  stream_options.text = !flags.view.json;
  stream_options.html = !flags.view.html.empty();
  stream_options.views = !flags.views_out.empty();
  stream_options.text_options.width = TextWidth(flags.view);
  stream_options.text_options.max_kernels =
      static_cast<int>(std::max<int64_t>(1, flags.view.top));
  stream_options.text_options.ascii = flags.view.ascii;
  stream_options.html_options.generator = "tbprof";
  views::ReportStream stream(stream_options);
  std::string source;
  absl::StatusOr<size_t> hosts = ForEachViewInput(
      inputs, input_options,
      [&](views::HostViews host, std::optional<views::ReportAppendix> appendix) {
        ScopedPhase render_host_phase(timings, "render");
        if (appendix.has_value()) stream.AddAppendix(*std::move(appendix));
        return stream.AddHost(host);
      },
      &source);
  if (!hosts.ok()) return ReportFailure(hosts.status());
  ScopedPhase render_phase(timings, "render");

  if (stream_options.html) {
    absl::StatusOr<std::unique_ptr<AtomicOutputFile>> html_file =
        AtomicOutputFile::Create(flags.view.html);
    if (!html_file.ok()) return ReportFailure(html_file.status());
    absl::Status status = stream.FinishHtml(
        source, [&](absl::string_view piece) { return (*html_file)->Append(piece); });
    if (status.ok()) status = (*html_file)->Commit(AtomicOutputFile::Overwrite::kReplace);
    if (!status.ok()) return ReportFailure(status);
  }
  if (stream_options.views) {
    if (absl::Status status = WriteViewsFile(source, flags.views_out, &stream); !status.ok()) {
      return ReportFailure(status);
    }
  }
  auto to_stdout = [](absl::string_view piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    return absl::OkStatus();
  };
  if (absl::Status status =
          flags.view.json ? stream.FinishJson(to_stdout) : stream.FinishText(source, to_stdout);
      !status.ok()) {
    return ReportFailure(status);
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
    std::fputs(FormatFailedInputs(*hosts + failed.size(), failed).c_str(), stderr);
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
