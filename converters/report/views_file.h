// tbprof's views file: every view `tbprof report` shows, in one compact,
// versioned JSON document that the TensorBoard tab (python/tbprof) serves
// without parsing any trace. `tbprof convert` (and watch, serve/record, the
// torch handler through convert) stages "<host>.tbprof_views.json.gz" beside
// each "<host>.xplane.pb"; `tbprof report --views-out FILE` writes one for
// any input, several hosts included. Schema: docs/views_file.md.
//
// Contract: the document is one JSON object,
//   {"schema": "tbprof.views", "version": 1, "generator": "tbprof",
//    "source": what it was made from,
//    "hosts": [the HTML report's per-host objects (report_html.h
//              AppendHostData), in host order],
//    "xprofNote": why xprof's own overview differs (one line),
//    "distributedHtml": the report's distributed section ("" for one host),
//    "distributed": the DistributedView as in `report --json` (only with
//                   several hosts),
//    "appendices": [{"host", "key", "title", "html"}, ...]}.
// Members are only ever added within a version; a reader that finds another
// "version" must not guess.
#ifndef TBPROF_CONVERTERS_REPORT_VIEWS_FILE_H_
#define TBPROF_CONVERTERS_REPORT_VIEWS_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/report/report_html.h"
#include "converters/views/all/all_views.h"
#include "converters/views/summary/report_model.h"

namespace tbprof::logdir {
class RunWriter;
}

namespace tbprof::views {

inline constexpr absl::string_view kViewsFileSchema = "tbprof.views";
inline constexpr int kViewsFileVersion = 1;

// The document for `input` (uncompressed JSON, UTF-8). Errors: kInternal if
// protobuf cannot print the distributed view.
absl::StatusOr<std::string> RenderViewsFile(const ReportInput& input,
                                            const HtmlReportOptions& options = {});

// Stages "<host>.tbprof_views.json.gz" (gzip) in `writer` for one host's
// views, published with the host's xplane.pb. `source` names the input.
// The views should have been computed with ViewOptions::compare_breakdowns
// so that the step breakdown says how it relates to xprof's overview.
// Errors: the writer's (kAlreadyExists without --force), compression's.
absl::Status StageViewsFile(const HostViews& host, absl::string_view source,
                            logdir::RunWriter* writer);

// `job`->Finish(host, writer), then StageViewsFile() for the views it
// computed: the legacy precomputed files and the views file are staged
// together. Start the job with ViewsFileViewOptions(). Errors: Finish()'s
// (kInvalidArgument when the space has nothing to analyse: then no views
// file either), then StageViewsFile()'s.
absl::Status FinishAndStageViewsFile(PrecomputedViewsJob* job, absl::string_view host,
                                     absl::string_view source, logdir::RunWriter* writer);

// The view options of a job whose views go into a views file: the defaults,
// plus the other breakdown's summary (ViewOptions::compare_breakdowns).
ViewOptions ViewsFileViewOptions();

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_VIEWS_FILE_H_
