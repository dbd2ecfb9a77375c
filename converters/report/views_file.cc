#include "converters/report/views_file.h"

#include <string>
#include <utility>
#include <vector>

#include "src/base/output_file.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::views {

absl::Status StageViewsFile(const HostViews& host, absl::string_view source,
                            logdir::RunWriter* writer) {
  ReportInput input;
  input.source = std::string(source);
  input.hosts.push_back(host);
  absl::StatusOr<std::string> document = RenderViewsFile(input);
  if (!document.ok()) return document.status();
  absl::StatusOr<std::string> compressed = GzipCompress(*document);
  if (!compressed.ok()) return compressed.status();
  return writer->StageHostFile(host.host, logdir::kViewsFileSuffix, *compressed).status();
}

absl::Status FinishAndStageViewsFile(PrecomputedViewsJob* job, absl::string_view host,
                                     absl::string_view source, logdir::RunWriter* writer) {
  HostViews views;
  views.host = std::string(host);
  if (absl::Status status = job->Finish(host, writer, &views.views); !status.ok()) return status;
  return StageViewsFile(views, source, writer);
}

ViewOptions ViewsFileViewOptions() {
  ViewOptions options;
  options.compare_breakdowns = true;
  return options;
}

}  // namespace tbprof::views
