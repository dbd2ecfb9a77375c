// tbprof convert: traces -> <logdir>/plugins/profile/<run>/<host>.xplane.pb
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converters/report/views_file.h"
#include "converters/views/all/all_views.h"
#include "src/base/phase_timings.h"
#include "src/base/progress.h"
#include "src/logdir/profile_logdir.h"
#include "tools/tbprof/commands.h"
#include "tools/convert/all_hosts_needs.h"
#include "tools/convert/convert_malloc.h"
#include "tools/convert/convert_split.h"
#include "tools/convert/convert_split_stage.h"
#include "tools/convert/convert_summary.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/shared_flags.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::cli {

using views::DiagnoseXSpace;
using views::FormatCount;
using views::PlaneSummary;
using views::XSpaceDiagnosis;
namespace {

constexpr char kName[] = "convert";

constexpr char kHelp[] =
    R"(Usage: tbprof convert <input>... --logdir DIR [flags]

Converts profiles into TensorBoard profile-plugin data:
    DIR/plugins/profile/RUN/HOST.xplane.pb
and prints, per host, the events per plane, the steps found and any
warnings. Open the result with `tensorboard --logdir DIR` (PROFILE tab;
needs `pip install tensorboard xprof`).

Inputs (recognized by name and content):
  *.json *.json.gz *.pt.trace.json[.gz]
            PyTorch profiler / Kineto / Chrome trace JSON (object or bare
            array form, plain or gzip)
  *.xplane.pb
            XSpace from TensorFlow, JAX, XLA or tbprof, copied without loss
  *.tbcap   raw capture of the tbprof CUPTI collector (docs/collector.md)
  *.sqlite *.nsys-rep
            Nsight Systems export (`nsys export --type sqlite`; a .nsys-rep
            is exported through nsys when it is on PATH), one host per
            process (docs/nsys.md)
  *.json[.gz] (rocprofv3)
            rocprofv3 JSON from ROCm's profiler, recognised by content
            (docs/rocprof.md)
  *.pickle *.pkl
            PyTorch CUDA memory snapshot (torch.cuda.memory._dump_snapshot),
            read as plain data, never executed (docs/memory_snapshot.md)
  DIR       every trace file directly in DIR, e.g. one file per rank
All inputs of one call go into one run, one host per input file.

Flags:
  --logdir DIR             TensorBoard log directory (required; created if missing)
  --run NAME               run name (default: local time, YYYY_MM_DD_HH_MM_SS)
  --steps MODE             where steps come from: auto (default: the trace's
                           ProfilerStep#N markers, else inferred from repeated
                           enumerate(DataLoader) or Optimizer.step events, else
                           from the period of the GPU kernel sequence), markers
                           (never infer), infer (always; markers are ignored),
                           none (no steps)
  --host NAME              host name; only with a single input file (default:
                           the host name or rank the trace names, else the file
                           name without its suffixes)
  --force                  replace existing host files of the run, and remove
                           the files of these hosts that an earlier split
                           left in runs RUN_partK and this one does not write
  --max-events N           fail if one input has more than N trace events
                           (0 = no limit)
  --max-inflated-bytes N   fail if a gzip input inflates past N bytes, e.g. 16G
                           (default: 200x the compressed size, at least 1G;
                           0 = no limit)
  --max-memory-mb N        stop with a message when memory use passes N MB
                           (default: 80% of RAM or of the cgroup limit;
                           0 = no limit)
  --tensorboard-budget-mb N
                           split a host whose file TensorBoard would need more
                           than N MiB of RAM to open into runs RUN_part1,
                           RUN_part2, ... of whole steps (default 8192, per
                           host; 0 = never split; see below)
  --no-views               skip the precomputed view files (see below)
  --strict                 with several inputs, publish nothing if one fails
                           (default: name it, convert the others; exit 4)
  --threads N              threads for reading a JSON trace: 1 = one thread;
                           N >= 2 = one thread reads and inflates, N parse
                           the event array beside the XSpace builder (the
                           output is identical); 0 = automatic
                           (default: 2 for inputs of 4 MB of JSON or more
                           when the machine has 2 or more hardware threads)
  --quiet                  no progress, no summary: print only the paths written
  --timings                print the wall and CPU time of each phase to stderr
  -h, --help               this text

Host files are staged under hidden names and published together at the
end, so no half-written file ever appears. With several inputs, an input
that cannot be read or converted (a truncated rank, say) is named on stderr
with the reason, the other inputs are converted and published, and the exit
status is 4; with --strict, or with a single input, nothing is written and
the exit status is 1. Existing host files are never replaced without --force.

TensorBoard's profile plugin (xprof) needs about 30x the size of an
xplane.pb in RAM (docs/tensorboard_limits.md). When a host's file would need
more than the budget, convert splits it at step boundaries (by time if it
has no steps) into runs RUN_part1, RUN_part2, ... that each open on their
own, and says so. The budget is per host: TensorBoard reads one host's file
for a host's tools, so only the hosts over it are split, and ranks converted
by separate processes (one per rank) split as one process would. For a run
of several hosts convert also says what xprof's views of all hosts at once
need, and which cannot open; `tbprof report` gives the view across ranks.

Next to each HOST.xplane.pb go the views that TensorBoard profile plugins
up to 2.19 read instead of XSpace: HOST.overview_page.pb, .input_pipeline.pb,
.kernel_stats.pb, .memory_profile.json.gz and .trace.json.gz (--no-views
skips them; newer plugins compute every view from the xplane.pb).

Examples:
  tbprof convert worker0.pt.trace.json.gz --logdir tb
  tbprof convert traces/ --logdir tb --run resnet50_bs256   # 8 ranks -> 8 hosts
  tbprof convert model.xplane.pb --logdir tb --run imported
  tbprof convert trace.json --logdir tb --run r1 --host node3 --force
  tensorboard --logdir tb
)";

struct ConvertFlags {
  std::string logdir;
  std::string run;
  std::string host;
  bool force = false;
  LoadFlags load;  // --max-memory-mb -1: the default (EffectiveMaxMemoryBytes).
  bool no_views = false;
  bool strict = false;
  bool timings = false;
  int64_t threads = 0;  // 0: automatic (ChromeJsonOptions::threads).
  int64_t tensorboard_budget_mb = kDefaultTensorBoardBudgetMb;
};

bool DirectoryExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The default run name, with "_2", "_3"... if a run of that name exists.
std::string PickDefaultRun(const std::string& logdir) {
  std::string base = logdir::DefaultRunName();
  std::string run = base;
  for (int n = 2; n < 1000 && DirectoryExists(logdir::RunDirectory(logdir, run)); ++n) {
    run = absl::StrCat(base, "_", n);
  }
  return run;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A trace or capture in which no event survived conversion would give an
// empty profile; that is an error, not a run to open in TensorBoard.
absl::Status CheckSomethingConverted(const LoadedInput& input, const XSpaceDiagnosis& diagnosis) {
  int64_t events = 0;
  for (const PlaneSummary& plane : diagnosis.planes) events += plane.num_events;
  if (events > 0 || input.format == InputFormat::kXSpace) return absl::OkStatus();
  std::string message = absl::StrCat(input.path, ": no trace events to convert (");
  if (input.json_summary) {
    const converters::ChromeJsonSummary& s = *input.json_summary;
    absl::StrAppend(&message, FormatCount(s.events_read), " read, ",
                    FormatCount(s.events_malformed), " malformed");
    if (!s.malformed_examples.empty()) {
      absl::StrAppend(&message, "; first: ", s.malformed_examples[0]);
    }
  } else if (input.raw_summary) {
    absl::StrAppend(&message, FormatCount(input.raw_summary->records), " activity records, ",
                    FormatCount(input.raw_summary->records_bad_time),
                    " with unusable timestamps");
  }
  return absl::InvalidArgumentError(absl::StrCat(message, ")"));
}

bool HasEvents(const xplane::XSpaceData& space) {
  for (const xplane::Plane& plane : space.planes) {
    for (const xplane::Line& line : plane.lines) {
      if (!line.events.empty()) return true;
    }
  }
  return false;
}

int RunConvert(const std::vector<std::string>& args) {
  ConvertFlags flags;
  FlagSet flag_set;
  flag_set.String("logdir", &flags.logdir);
  flag_set.String("run", &flags.run);
  flag_set.String("host", &flags.host);
  flag_set.Bool("force", &flags.force);
  AddLoadFlags(&flag_set, &flags.load);
  flag_set.Bool("no-views", &flags.no_views);
  flag_set.Bool("strict", &flags.strict);
  flag_set.Bool("timings", &flags.timings);
  flag_set.Int64("threads", &flags.threads);
  flag_set.Int64("tensorboard-budget-mb", &flags.tensorboard_budget_mb);
  std::vector<std::string> inputs;
  if (absl::Status status = flag_set.Parse(args, &inputs); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (inputs.empty()) return ReportUsageError(kName, "no input files given");
  if (flags.logdir.empty()) return ReportUsageError(kName, "--logdir is required");
  if (flags.threads < 0 || flags.threads > 256) {
    return ReportUsageError(kName, "--threads must be between 0 (automatic) and 256");
  }
  if (std::string error = CheckTensorBoardBudgetFlag(flags.tensorboard_budget_mb);
      !error.empty()) {
    return ReportUsageError(kName, error);
  }
  LoadOptions base_load_options;
  if (absl::Status status = ApplyLoadFlags(flags.load, &base_load_options); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (!flags.run.empty()) {
    if (absl::Status status = logdir::ValidateRunName(flags.run); !status.ok()) {
      return ReportUsageError(kName, absl::StrCat("--run: ", status.message()));
    }
  }

  absl::StatusOr<std::vector<std::string>> files = ExpandInputs(inputs);
  if (!files.ok()) return ReportFailure(files.status());
  if (!flags.host.empty() && files->size() != 1) {
    return ReportUsageError(
        kName, absl::StrCat("--host needs exactly one input file, got ", files->size()));
  }

  UseOneMallocArena();  // Before LoadInput() starts the reading thread.
  const std::string run = flags.run.empty() ? PickDefaultRun(flags.logdir) : flags.run;
  logdir::RunWriterOptions writer_options;
  writer_options.force = flags.force;
  absl::StatusOr<std::unique_ptr<logdir::RunWriter>> writer =
      logdir::RunWriter::Open(flags.logdir, run, writer_options);
  if (!writer.ok()) return ReportFailure(writer.status());

  PhaseTimings phase_timings;
  PhaseTimings* timings = flags.timings ? &phase_timings : nullptr;
  ScopedPhase total_phase(timings, "total");
  HostNamer namer;
  std::vector<HostReport> reports;
  // A host too large for TensorBoard in one file goes to runs <run>_partK,
  // one writer per run, all published with the main run.
  TensorBoardBudget budget;
  budget.budget_mb = flags.tensorboard_budget_mb;
  PartRunWriters part_writers(flags.logdir, run, writer_options);
  std::vector<SplitReport> splits;
  std::vector<std::string> split_hosts;
  // Inputs that failed to load or convert (with several inputs and no
  // --strict): named, skipped, and the exit status says so.
  const bool keep_going = files->size() > 1 && !flags.strict;
  std::vector<absl::Status> failed_inputs;
  auto skip_input = [&](const absl::Status& status) {
    std::fprintf(stderr, "tbprof: error: skipped %s\n",
                 std::string(status.message()).c_str());
    failed_inputs.push_back(status);
  };
  for (size_t i = 0; i < files->size(); ++i) {
    const std::string& path = (*files)[i];
    ProgressReporter::Options progress_options;
    progress_options.mode =
        flags.load.quiet ? ProgressReporter::Mode::kQuiet : ProgressReporter::Mode::kAuto;
    std::string label = files->size() > 1
                            ? absl::StrCat("converting [", i + 1, "/", files->size(), "] ",
                                           BaseName(path))
                            : absl::StrCat("converting ", BaseName(path));
    ProgressReporter progress(label, std::move(progress_options));

    LoadOptions load_options = base_load_options;
    load_options.json_threads = static_cast<int>(flags.threads);
    load_options.progress = [&progress](uint64_t done, uint64_t total) {
      progress.Update(done, total);
    };
    absl::StatusOr<LoadedInput> loaded;
    {
      ScopedPhase phase(timings, "load (parse + build)");
      loaded = LoadInput(path, load_options);
      progress.Finish();
    }
    if (!loaded.ok()) {
      if (!keep_going) return ReportFailure(loaded.status());  // ~RunWriter cleans up.
      skip_input(loaded.status());
      continue;
    }

    HostReport report;
    report.host = flags.host.empty() ? namer.Pick(loaded->host_hint, loaded->rank, path)
                                     : namer.Pick(flags.host, -1, path);
    // Views are computed on background threads while this thread writes
    // the xplane.pb (both only read the space); the trace-viewer JSON goes
    // straight into its staged file.
    std::unique_ptr<views::PrecomputedViewsJob> views_job;
    // An input without events fails below; no views are started for it, so
    // skipping it leaves nothing staged.
    if (!flags.no_views && HasEvents(loaded->space)) {
      views_job = views::PrecomputedViewsJob::StartStaging(
          loaded->space, report.host, writer->get(), views::ViewsFileViewOptions(), {}, timings);
    }
    XSpaceDiagnosis diagnosis;
    {
      ScopedPhase phase(timings, "diagnose");
      diagnosis = DiagnoseXSpace(loaded->space);
    }
    if (absl::Status status = CheckSomethingConverted(*loaded, diagnosis); !status.ok()) {
      if (!keep_going) return ReportFailure(status);
      views_job.reset();  // Waits for it; its staged trace file is deleted.
      skip_input(status);
      continue;
    }

    report.input_path = path;
    report.format = loaded->format;
    report.input_bytes = loaded->file_bytes;
    report.json_summary = std::move(loaded->json_summary);
    report.raw_summary = std::move(loaded->raw_summary);
    report.diagnosis = std::move(diagnosis);
    absl::StatusOr<StagedHostXSpace> xspace =
        StageHostXSpace(loaded->space, report.host, budget, writer->get(), &part_writers, timings);
    if (!xspace.ok()) return ReportFailure(xspace.status());
    report.output_path = xspace->output_path;
    report.output_bytes = xspace->bytes;
    if (xspace->split) {
      split_hosts.push_back(report.host);
      splits.push_back(std::move(*xspace->split));
    }
    if (views_job != nullptr) {
      // Precomputed views for plugins <= 2.19, published with the xplane.pb.
      // A space the views cannot use still converts; only writing can fail.
      // The views themselves failing (kInvalidArgument: nothing to analyse)
      // only costs the legacy files; failing to stage them is an error.
      const size_t staged_before = (*writer)->staged_files().size();
      absl::Status status;
      {
        ScopedPhase phase(timings, "wait for views + stage");
        status = views::FinishAndStageViewsFile(views_job.get(), report.host, path,
                                                writer->get());
      }
      if (status.code() == absl::StatusCode::kInvalidArgument) {
        std::fprintf(stderr, "tbprof: warning: %s: no precomputed views: %s\n", path.c_str(),
                     std::string(status.message()).c_str());
      } else if (!status.ok()) {
        return ReportFailure(status);
      }
      const auto& staged = (*writer)->staged_files();
      for (size_t f = staged_before; f < staged.size(); ++f) {
        report.extra_files.push_back(BaseName(staged[f].final_path));
      }
    }
    reports.push_back(std::move(report));
  }
  if (reports.empty()) {  // Every input failed: there is nothing to publish.
    return ReportFailure(absl::InvalidArgumentError(
        absl::StrCat("none of the ", files->size(), " inputs could be converted")));
  }
  StaleFilesRemoved stale;
  {
    ScopedPhase phase(timings, "publish");
    std::vector<std::string> hosts;
    for (const HostReport& report : reports) hosts.push_back(report.host);
    // With --force, also removes what an earlier conversion of these hosts
    // left in part runs that this one did not write.
    if (absl::Status status =
            PublishRunWithParts(writer->get(), &part_writers, hosts, split_hosts, &stale);
        !status.ok()) {
      return ReportFailure(status);
    }
  }
  if (!flags.load.quiet || !stale.status.ok()) {
    if (flags.load.quiet) stale.removed = {};  // Only the warning.
    std::fputs(FormatStaleFilesRemoved(stale).c_str(), stderr);
  }
  if (timings != nullptr) {
    total_phase.Stop();
    std::fprintf(stderr, "tbprof: phase timings:\n%s", timings->Format().c_str());
  }

  if (flags.load.quiet) {
    size_t next_split = 0;
    for (const HostReport& report : reports) {
      if (next_split < splits.size() && splits[next_split].host == report.host) {
        const SplitReport& split = splits[next_split++];
        std::fprintf(stderr, "tbprof: %s\n", FormatSplitOneLine(split).c_str());
        for (const SplitReport::Part& part : split.parts) std::printf("%s\n", part.path.c_str());
      } else {
        std::printf("%s\n", report.output_path.c_str());
      }
    }
  } else {
    std::fputs(FormatConvertSummary(flags.logdir, run, (*writer)->run_dir(), reports).c_str(),
               stdout);
    std::fputs(FormatSplitReports(splits).c_str(), stdout);
  }
  if (!flags.load.quiet && reports.size() > 1) {
    // What TensorBoard opens of a split host is its largest part.
    std::vector<uint64_t> host_bytes;
    size_t next = 0;
    for (const HostReport& report : reports) {
      uint64_t bytes = report.output_bytes;
      if (next < splits.size() && splits[next].host == report.host) {
        bytes = 0;
        for (const SplitReport::Part& part : splits[next].parts) bytes = std::max(bytes, part.bytes);
        ++next;
      }
      host_bytes.push_back(bytes);
    }
    std::fputs(FormatAllHostsNeeds(EstimateAllHostsNeeds(host_bytes), budget.budget_bytes(),
                                   flags.logdir)
                   .c_str(),
               stdout);
  }
  if (!failed_inputs.empty()) {
    std::fputs(FormatFailedInputs(files->size(), failed_inputs).c_str(), stderr);
    return kExitPartial;
  }
  return kExitOk;
}

}  // namespace

const CommandSpec kConvertCommand = {
    kName,
    "convert Kineto/Chrome JSON, *.xplane.pb and collector captures into a TensorBoard logdir",
    kHelp,
    &RunConvert,
};

}  // namespace tbprof::cli
