#include "converters/report/views_file.h"

#include <string>
#include <utility>
#include <vector>

#include "converters/report/html_common.h"
#include "converters/report/report_distributed.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#include "src/base/output_file.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::views {

absl::StatusOr<std::string> RenderViewsFile(const ReportInput& input,
                                            const HtmlReportOptions& options) {
  JsonBuilder j;
  j.Open('{');
  j.Key("schema").Str(kViewsFileSchema);
  j.Key("version").Int(kViewsFileVersion);
  j.Key("generator").Str(options.generator);
  j.Key("source").Str(input.source);
  j.Key("hosts").Open('[');
  for (const HostViews& host : input.hosts) {
    AppendHostData(BuildHostReport(host), options, &j);
  }
  j.Close(']');
  j.Key("xprofNote").Str(kXprofOverviewNote);
  j.Key("distributedHtml").Str(input.hosts.size() > 1 ? RenderDistributedHtml(input) : "");
  j.Key("appendices").Open('[');
  for (const ReportAppendix& appendix : input.appendices) {
    j.Open('{');
    j.Key("host").Str(appendix.host);
    j.Key("key").Str(appendix.key);
    j.Key("title").Str(appendix.title);
    j.Key("html").Str(appendix.html);
    j.Close('}');
  }
  j.Close(']');
  j.Close('}');
  std::string document = j.Take();
  if (input.hosts.size() > 1) {
    if (absl::Status status = AppendDistributedJsonMember(input, &document); !status.ok()) {
      return status;
    }
  }
  document.push_back('\n');
  return document;
}

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
