// A tbprof report written host by host: each host's sections are rendered
// as soon as its views are computed, and only what the sections after the
// hosts need is kept (the rank's RankComms for the distributed view, one row
// for the "Hosts compared" table, the appendices). A report over a thousand
// ranks then holds one rank's views at a time, not all of them.
//
// The output is byte for byte what RenderTextReport(), RenderJsonReport(),
// RenderHtmlReport() and RenderViewsFile() give for the same hosts (those are
// built on this class). Rendered host sections wait in a Spool (src/base/spool.h): memory
// first, then an anonymous temporary file; nothing reaches the output before
// Finish*(), so a report that fails part way writes nothing.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_STREAM_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_STREAM_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "converters/report/report_html.h"
#include "converters/report/report_text.h"
#include "converters/views/summary/report_model.h"
#include "google/protobuf/arena.h"
#include "proto/distributed.pb.h"
#include "src/base/spool.h"

namespace tbprof::views {

struct ReportStreamOptions {
  // Which forms are produced: the terminal text, the JSON object, the HTML
  // page (any combination).
  bool text = false;
  bool json = false;
  bool html = false;
  // tbprof's views file (views_file.h): the page data of every host with
  // the run's distributed view, as one versioned JSON document.
  bool views = false;
  TextReportOptions text_options;
  HtmlReportOptions html_options;
  // Bytes of each form held in memory before the rest goes to a temporary
  // file (tests make it small).
  size_t spool_memory_bytes = size_t{4} << 20;
};

// Receives the output in order, piece by piece; an error stops the writing.
using ReportSink = std::function<absl::Status(absl::string_view)>;

class ReportStream {
 public:
  explicit ReportStream(ReportStreamOptions options);
  ~ReportStream();
  ReportStream(const ReportStream&) = delete;
  ReportStream& operator=(const ReportStream&) = delete;

  // Renders the sections of one host (the next in report order) and keeps
  // its RankComms and comparison row; `host` may be dropped afterwards.
  // Errors: kInternal if protobuf cannot print a view (JSON), a Spool error
  // (the temporary file); the stream is then unusable.
  absl::Status AddHost(const HostViews& host);

  // An appendix (shown after the distributed view, in the order added).
  void AddAppendix(ReportAppendix appendix);

  // Hosts added so far.
  size_t hosts() const { return rows_.size(); }

  // The run's distributed view over the hosts added (built once, on the
  // first call).
  const tbprof::DistributedView& Distributed();

  // Writes the whole text report / JSON object / HTML page to `sink`;
  // `source` is what the report was made from (ReportInput::source). Each
  // may be called once, only for a form enabled in the options. Errors:
  // the sink's, the Spool's, kInternal if the distributed view cannot be
  // printed as JSON, kFailedPrecondition for a form not enabled.
  absl::Status FinishText(const std::string& source, const ReportSink& sink);
  absl::Status FinishJson(const ReportSink& sink);
  absl::Status FinishHtml(const std::string& source, const ReportSink& sink);
  absl::Status FinishViews(const std::string& source, const ReportSink& sink);

 private:
  struct Rank {
    std::string host;
    const tbprof::RankComms* comms;  // On arena_.
    std::string source;
  };
  absl::Status AddJson(const HostViews& host);

  const ReportStreamOptions options_;
  std::vector<HostStepRow> rows_;
  // The ranks' RankComms, trimmed (TrimForDistributedView), packed in arena
  // blocks: a thousand ranks' calls without a heap block each.
  google::protobuf::Arena arena_;
  std::vector<Rank> ranks_;
  std::vector<ReportAppendix> appendices_;
  std::unique_ptr<tbprof::DistributedView> distributed_;
  Spool text_;
  Spool json_;
  Spool html_;
  Spool views_;
  // JSON: the first host's members, until a second host says the report has
  // the several-hosts shape.
  std::string first_json_;
  std::string first_host_;
  absl::Status error_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_STREAM_H_
