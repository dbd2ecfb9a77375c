#include "tools/tbprof/watch_convert.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "converters/views/all_views.h"
#include "src/logdir/profile_logdir.h"
#include "tools/tbprof/inspect_diagnosis.h"

namespace tbprof::cli {

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
  std::unique_ptr<views::PrecomputedViewsJob> views_job;
  if (options.views) views_job = views::PrecomputedViewsJob::Start(loaded->space);
  absl::StatusOr<std::string> output = (*writer)->StageXSpace(result.host, loaded->space);
  if (!output.ok()) return output.status();  // ~RunWriter removes what was staged.
  result.output_path = *output;
  if (views_job != nullptr) {
    // As convert: views that cannot be computed only cost the legacy files.
    absl::Status status = views_job->Finish(result.host, writer->get());
    if (!status.ok() && status.code() != absl::StatusCode::kInvalidArgument) return status;
  }
  if (absl::Status status = (*writer)->Publish(); !status.ok()) return status;
  *failure = ConvertFailure::kNone;
  return result;
}

}  // namespace tbprof::cli
