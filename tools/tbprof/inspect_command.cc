// tbprof inspect: what a trace or XSpace holds and which TensorBoard views
// will have data, with the reason when one will not.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/progress.h"
#include "src/xplane/xspace_split.h"
#include "tools/convert/all_hosts_needs.h"
#include "tools/convert/convert_split.h"
#include "tools/tbprof/commands.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/shared_flags.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#include "tools/tbprof/trace_inputs.h"
#include "tools/tbprof/view_inputs.h"

namespace tbprof::cli {

using views::DiagnoseXSpace;
using views::FormatCount;
using views::FormatDiagnosisJson;
using views::FormatDiagnosisText;
using views::XSpaceDiagnosis;
namespace {

constexpr char kName[] = "inspect";

constexpr char kHelp[] =
    R"(Usage: tbprof inspect <trace|xplane.pb|tbcap|DIR>... [flags]

Prints what a profile contains (planes, lines, event and stat counts, step
markers, GPU kernels, memory events) and, for each TensorBoard profile tool
(overview_page, input_pipeline_analyzer, kernel_stats, memory_profile,
framework_op_stats, trace_viewer), whether it will show data and, if not,
why: no GPU plane, no kernel_details on GPU events, no step marker
("No step marker observed"), launches and kernels not linked by
correlation_id, no MemoryAllocation/MemoryDeallocation events.

Inputs are the same as for `tbprof convert` (JSON traces are converted in
memory first, so what you see is what convert would write), and runs of a
log directory: a run split for TensorBoard (RUN_part1..N) is read whole,
each host once. Nothing is written. With several hosts, the text ends with
what TensorBoard's views of one host and of all hosts at once will need
(default budget), and which cannot open.

Flags:
  --json                   one JSON object per input instead of text
  --steps MODE             where steps come from: auto (default: the trace's
                           ProfilerStep#N markers, else inferred from repeated
                           enumerate(DataLoader) or Optimizer.step events, else
                           from the period of the GPU kernel sequence), markers
                           (never infer), infer (always; markers are ignored),
                           none (no steps)
  --max-events N           fail if an input has more than N trace events
  --max-inflated-bytes N   fail if a gzip input inflates past N bytes (e.g. 16G;
                           default 200x the compressed size, at least 1G)
  --max-memory-mb N        stop when memory use passes N MB (default 80% of RAM)
  --quiet                  no progress display
  -h, --help               this text

Examples:
  tbprof inspect trace.pt.trace.json.gz
  tbprof inspect tb/plugins/profile/2025_01_31_12_00_00/     # every host of a run
  tbprof inspect model.xplane.pb --json | python3 -m json.tool
)";

int RunInspect(const std::vector<std::string>& args) {
  bool json = false;
  LoadFlags load;
  FlagSet flag_set;
  flag_set.Bool("json", &json);
  AddLoadFlags(&flag_set, &load);
  std::vector<std::string> inputs;
  if (absl::Status status = flag_set.Parse(args, &inputs); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (inputs.empty()) return ReportUsageError(kName, "no input files given");
  LoadOptions base_load_options;
  if (absl::Status status = ApplyLoadFlags(load, &base_load_options); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  // Runs split into part runs are read whole, each host once (view_inputs.h).
  absl::StatusOr<std::vector<ViewSource>> files = ResolveViewInputs(inputs);
  if (!files.ok()) return ReportFailure(files.status());

  std::vector<uint64_t> host_file_bytes;
  const uint64_t budget_bytes = static_cast<uint64_t>(kDefaultTensorBoardBudgetMb) << 20;
  for (size_t i = 0; i < files->size(); ++i) {
    const std::string& path = (*files)[i].path;
    ProgressReporter::Options progress_options;
    progress_options.mode = load.quiet ? ProgressReporter::Mode::kQuiet : ProgressReporter::Mode::kAuto;
    ProgressReporter progress(absl::StrCat("reading ", path), std::move(progress_options));
    LoadOptions load_options = base_load_options;
    load_options.progress = [&progress](uint64_t done, uint64_t total) {
      progress.Update(done, total);
    };
    // An XSpace file is diagnosed as it is read, its events never all held
    // (parts of a split run are merged first, so they are read whole).
    views::XSpaceDiagnoser diagnoser;
    if ((*files)[i].more_parts.empty()) {
      load_options.xspace_line_events = [&diagnoser](const xplane::XSpaceData& space,
                                                     const xplane::Plane& plane,
                                                     const xplane::Line& line, bool line_end) {
        diagnoser.AddLineEvents(space, plane, line, line_end);
      };
    }
    absl::StatusOr<LoadedInput> loaded = LoadViewSource((*files)[i], load_options);
    progress.Finish();
    if (!loaded.ok()) return ReportFailure(loaded.status());

    XSpaceDiagnosis diagnosis = loaded->lines_streamed ? diagnoser.Finish(loaded->space)
                                                       : DiagnoseXSpace(loaded->space);
    std::string text;
    if (json) {
      text = FormatDiagnosisJson(diagnosis, path);
    } else {
      std::string title = absl::StrCat(path, " (", InputFormatName(loaded->format), ", ",
                                       FormatBytes(loaded->file_bytes), ")");
      if (const size_t more = (*files)[i].more_parts.size(); more > 0) {
        absl::StrAppend(&title, "\nsplit for TensorBoard: part 1 of ", more + 1,
                        ", read with its other parts as one profile (last: ",
                        (*files)[i].more_parts.back(), ")");
      }
      if (loaded->json_summary) {
        const converters::ChromeJsonSummary& s = *loaded->json_summary;
        absl::StrAppend(&title, "\ntrace events: ", FormatCount(s.events_read), " read, ",
                        FormatCount(s.events_converted), " converted, ",
                        FormatCount(s.events_ignored), " ignored, ",
                        FormatCount(s.events_malformed), " malformed");
        for (const std::string& example : s.malformed_examples) {
          absl::StrAppend(&title, "\n  malformed: ", example);
        }
      }
      if (loaded->raw_summary) {
        const converters::RawCaptureSummary& s = *loaded->raw_summary;
        absl::StrAppend(&title, "\ncapture: ", FormatCount(s.records), " activity records in ",
                        FormatCount(s.activity_buffers), " buffers, ",
                        FormatCount(s.records_bad_time), " with unusable timestamps, ",
                        FormatCount(s.records_not_shown), " of kinds not shown");
      }
      text = FormatDiagnosisText(diagnosis, title);
      if (i + 1 < files->size()) text += "\n";
    }
    std::fputs(text.c_str(), stdout);
    // What TensorBoard opens of the host: its file, or one of its parts.
    const size_t parts = (*files)[i].more_parts.size() + 1;
    host_file_bytes.push_back(loaded->format == InputFormat::kXSpace && parts == 1
                                  ? loaded->file_bytes
                                  : xplane::EstimateXSpaceWireBytes(loaded->space) / parts);
  }
  if (!json && host_file_bytes.size() > 1) {
    std::string where;
    for (const std::string& input : inputs) absl::StrAppend(&where, where.empty() ? "" : " ", input);
    std::fputs(absl::StrCat("\n", FormatAllHostsNeeds(EstimateAllHostsNeeds(host_file_bytes),
                                                      budget_bytes, where))
                   .c_str(),
               stdout);
  }
  return kExitOk;
}

}  // namespace

const CommandSpec kInspectCommand = {
    kName,
    "show what a trace or xplane.pb holds and why a TensorBoard view would be empty",
    kHelp,
    &RunInspect,
};

}  // namespace tbprof::cli
