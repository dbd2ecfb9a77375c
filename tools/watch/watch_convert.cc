#include "tools/watch/watch_convert.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converters/report/views_file.h"
#include "converters/views/all/all_views.h"
#include "src/logdir/profile_logdir.h"
#include "tools/convert/convert_split_stage.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"

namespace tbprof::cli {

using views::DiagnoseXSpace;
using views::PlaneSummary;
using views::XSpaceDiagnosis;

absl::StatusOr<ConvertIntoRunResult> ConvertIntoRun(const std::string& path,
                                                    const std::string& logdir,
                                                    const std::string& run,
                                                    const std::string& host,
                                                    const ConvertIntoRunOptions& options,
                                                    ConvertFailure* failure) {
  ConvertFailure ignored;
  if (failure == nullptr) failure = &ignored;
  *failure = ConvertFailure::kInput;
  LoadOptions load = options.load;
  load.progress = nullptr;
  absl::StatusOr<LoadedInput> loaded = LoadInput(path, load);
  if (!loaded.ok()) return loaded.status();

  ConvertIntoRunResult result;
  const XSpaceDiagnosis diagnosis = DiagnoseXSpace(loaded->space);
  for (const PlaneSummary& plane : diagnosis.planes) result.events += plane.num_events;
  if (result.events == 0 && loaded->format != InputFormat::kXSpace) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no trace events to convert"));
  }
  result.steps_message = loaded->steps.message;
  if (options.cancelled && options.cancelled()) {
    *failure = ConvertFailure::kNone;
    return absl::CancelledError(absl::StrCat(path, ": abandoned before writing"));
  }

  *failure = ConvertFailure::kOutput;
  absl::StatusOr<std::unique_ptr<logdir::RunWriter>> writer = logdir::RunWriter::Open(logdir, run);
  if (!writer.ok()) return writer.status();
  // The same host choice as `tbprof convert` for a single input.
  HostNamer namer;
  result.host = host.empty() ? namer.Pick(loaded->host_hint, loaded->rank, path)
                             : namer.Pick(host, -1, path);
  // Declared after the writers: destroyed before them.
  PartRunWriters parts(logdir, run, {});
  std::unique_ptr<views::PrecomputedViewsJob> views_job;
  // The trace-viewer JSON streams into its staged file, as in convert.
  if (options.views) {
    views_job = views::PrecomputedViewsJob::StartStaging(loaded->space, result.host, writer->get(),
                                                         views::ViewsFileViewOptions());
  }
  TensorBoardBudget budget;
  budget.budget_mb = options.tensorboard_budget_mb;
  absl::StatusOr<StagedHostXSpace> xspace =
      StageHostXSpace(loaded->space, result.host, budget, writer->get(), &parts);
  if (!xspace.ok()) return xspace.status();  // The writers remove what was staged.
  result.output_path = xspace->output_path;
  result.split = std::move(xspace->split);
  if (views_job != nullptr) {
    // As convert: views that cannot be computed only cost the legacy files.
    absl::Status status =
        views::FinishAndStageViewsFile(views_job.get(), result.host, path, writer->get());
    if (!status.ok() && status.code() != absl::StatusCode::kInvalidArgument) return status;
  }
  std::vector<std::string> split_hosts;
  if (result.split) split_hosts.push_back(result.host);
  if (absl::Status status = PublishRunWithParts(writer->get(), &parts, {result.host}, split_hosts);
      !status.ok()) {
    return status;
  }
  *failure = ConvertFailure::kNone;
  return result;
}

}  // namespace tbprof::cli
