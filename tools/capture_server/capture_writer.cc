#include "tools/capture_server/capture_writer.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "converters/report/views_file.h"
#include "converters/views/all/all_views.h"
#include "src/logdir/profile_logdir.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::capture_server {

std::string HostNameForCapture(const std::string& host, const CollectedCapture& capture,
                               size_t count) {
  if (count <= 1) return host;
  return absl::StrCat(host, "_pid", capture.pid);
}

absl::StatusOr<std::vector<std::string>> ConvertAndPublishCaptures(
    const std::vector<CollectedCapture>& captures, const OutputLocation& location) {
  absl::StatusOr<std::unique_ptr<logdir::RunWriter>> writer =
      logdir::RunWriter::Open(location.logdir, location.run);
  if (!writer.ok()) return writer.status();
  std::vector<std::string> written;
  for (const CollectedCapture& capture : captures) {
    cli::LoadOptions options;  // As `tbprof convert` with its defaults.
    absl::StatusOr<cli::LoadedInput> loaded = cli::LoadInput(capture.path, options);
    if (!loaded.ok()) {
      // A capture the collector wrote that does not convert is the server's
      // problem, not a bad request. ~RunWriter removes what was staged.
      return absl::DataLossError(absl::StrCat("the capture of pid ", capture.pid,
                                              " does not convert: ", loaded.status().message()));
    }
    const std::string host = HostNameForCapture(location.host, capture, captures.size());
    // The trace-viewer JSON streams into its staged file, as in convert;
    // the job ends (Finish() or its destructor) before `writer`.
    std::unique_ptr<views::PrecomputedViewsJob> views_job =
        views::PrecomputedViewsJob::StartStaging(loaded->space, host, writer->get(),
                                                 views::ViewsFileViewOptions());
    absl::StatusOr<std::string> path = (*writer)->StageXSpace(host, loaded->space);
    if (!path.ok()) return path.status();
    written.push_back(*path);
    absl::Status views =
        views::FinishAndStageViewsFile(views_job.get(), host, capture.path, writer->get());
    if (views.code() == absl::StatusCode::kInvalidArgument) {
      std::fprintf(stderr, "tbprof serve: warning: %s: no precomputed views: %s\n",
                   capture.path.c_str(), std::string(views.message()).c_str());
    } else if (!views.ok()) {
      return views;
    }
  }
  if (absl::Status s = (*writer)->Publish(); !s.ok()) return s;
  return written;
}

}  // namespace tbprof::capture_server
