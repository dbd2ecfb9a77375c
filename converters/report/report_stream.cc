#include "converters/report/report_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "converters/output/json_text_writer.h"
#include "converters/report/report_distributed.h"
#include "converters/report/report_json.h"
#include "converters/report/views_file.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#include "converters/views/distributed/distributed_view.h"
#include "src/base/status_macros.h"

namespace tbprof::views {

ReportStream::ReportStream(ReportStreamOptions options)
    : options_(std::move(options)),
      text_(options_.spool_memory_bytes),
      json_(options_.spool_memory_bytes),
      html_(options_.spool_memory_bytes),
      views_(options_.spool_memory_bytes) {}

ReportStream::~ReportStream() = default;

absl::Status ReportStream::AddJson(const HostViews& host) {
  std::string members;
  TBPROF_RETURN_IF_ERROR(AppendViewsJsonMembers(host.views, &members));
  if (rows_.empty()) {  // Maybe the only host: its members are the object.
    first_json_ = std::move(members);
    first_host_ = host.host;
    return absl::OkStatus();
  }
  std::string out;
  if (rows_.size() == 1) {  // Several hosts after all: {"hosts":[{"host":...
    out = "{\"hosts\":[{\"host\":";
    AppendJsonString(first_host_, &out);
    out.push_back(',');
    out += first_json_;
    out.push_back('}');
    std::string().swap(first_json_);
  }
  out.append(",{\"host\":");
  AppendJsonString(host.host, &out);
  out.push_back(',');
  out += members;
  out.push_back('}');
  return json_.Append(out);
}

absl::Status ReportStream::AddHost(const HostViews& host) {
  if (!error_.ok()) return error_;
  absl::Status status;
  HostReport report;
  if (options_.text || options_.html || options_.views) report = BuildHostReport(host);
  if (options_.text) {
    TextReportOptions o = options_.text_options;
    o.width = std::max(60, o.width);
    std::string section = rows_.empty() ? "" : "\n";
    section += RenderHostText(report, o);
    status.Update(text_.Append(section));
  }
  if (status.ok() && options_.json) status.Update(AddJson(host));
  if (status.ok() && options_.html) {
    std::string data = rows_.empty() ? "" : ",";
    data += RenderHtmlHostData(report, options_.html_options);
    status.Update(html_.Append(data));
  }
  if (status.ok() && options_.views) {
    JsonBuilder data;
    AppendHostData(report, options_.html_options, &data);
    status.Update(views_.Append(absl::StrCat(rows_.empty() ? "" : ",", data.Take())));
  }
  if (!status.ok()) {
    error_ = status;
    return status;
  }
  if (options_.text || options_.html || options_.views) {
    rows_.push_back(HostStepRowOf(report));
  } else {
    rows_.push_back({host.host});
  }
  tbprof::RankComms trimmed = host.views.rank_comms;
  TrimForDistributedView(&trimmed);
  tbprof::RankComms* kept = google::protobuf::Arena::CreateMessage<tbprof::RankComms>(&arena_);
  *kept = trimmed;
  ranks_.push_back({host.host, kept, host.source});
  distributed_.reset();
  return absl::OkStatus();
}

void ReportStream::AddAppendix(ReportAppendix appendix) {
  appendices_.push_back(std::move(appendix));
}

const tbprof::DistributedView& ReportStream::Distributed() {
  if (distributed_ == nullptr) {
    std::vector<RankInput> ranks;
    ranks.reserve(ranks_.size());
    for (const Rank& rank : ranks_) ranks.push_back({rank.host, rank.comms, rank.source});
    distributed_ = std::make_unique<tbprof::DistributedView>(BuildDistributedView(ranks));
  }
  return *distributed_;
}

absl::Status ReportStream::FinishText(const std::string& source, const ReportSink& sink) {
  if (!options_.text) return absl::FailedPreconditionError("text report not enabled");
  if (!error_.ok()) return error_;
  TextReportOptions o = options_.text_options;
  o.width = std::max(60, o.width);
  TBPROF_RETURN_IF_ERROR(sink(RenderTextReportTitle(rows_.size(), source, o)));
  TBPROF_RETURN_IF_ERROR(text_.CopyTo(sink));
  std::string tail;
  if (rows_.size() > 1) tail = RenderHostComparisonText(rows_, o);
  absl::StrAppend(&tail, RenderDistributedText(Distributed(), o));
  for (const ReportAppendix& appendix : appendices_) absl::StrAppend(&tail, "\n", appendix.text);
  return sink(tail);
}

absl::Status ReportStream::FinishJson(const ReportSink& sink) {
  if (!options_.json) return absl::FailedPreconditionError("JSON report not enabled");
  if (!error_.ok()) return error_;
  // As RenderJsonReport() built it: the object, then the distributed member
  // before its closing '}' (AppendDistributedJsonMember()).
  std::string tail;
  if (rows_.size() == 1) {
    TBPROF_RETURN_IF_ERROR(sink(absl::StrCat("{", first_json_)));
  } else {
    if (rows_.empty()) TBPROF_RETURN_IF_ERROR(sink("{\"hosts\":["));
    TBPROF_RETURN_IF_ERROR(json_.CopyTo(sink));
    tail = "]";
  }
  std::string distributed = "{}";  // -> {"distributed":...}
  TBPROF_RETURN_IF_ERROR(AppendDistributedJsonMember(Distributed(), &distributed));
  absl::StrAppend(&tail, ",", absl::string_view(distributed).substr(1));
  if (!appendices_.empty()) {
    tail.pop_back();
    tail.append(",\"appendices\":[");
    for (size_t i = 0; i < appendices_.size(); ++i) {
      const ReportAppendix& appendix = appendices_[i];
      if (i > 0) tail.push_back(',');
      tail.append("{\"host\":");
      AppendJsonString(appendix.host, &tail);
      tail.push_back(',');
      AppendJsonString(appendix.key, &tail);
      tail.push_back(':');
      tail.append(appendix.json);
      tail.push_back('}');
    }
    tail.append("]}");
  }
  tail.push_back('\n');
  return sink(tail);
}

absl::Status ReportStream::FinishHtml(const std::string& source, const ReportSink& sink) {
  if (!options_.html) return absl::FailedPreconditionError("HTML report not enabled");
  if (!error_.ok()) return error_;
  TBPROF_RETURN_IF_ERROR(sink(absl::StrCat(
      RenderHtmlPageStart(source), RenderDistributedHtml(Distributed()),
      RenderAppendicesHtml(appendices_), RenderHtmlPageDataStart(options_.html_options),
      RenderHtmlDataHead(source, options_.html_options))));
  TBPROF_RETURN_IF_ERROR(html_.CopyTo(sink));
  return sink(absl::StrCat("]}", RenderHtmlPageEnd()));
}

absl::Status ReportStream::FinishViews(const std::string& source, const ReportSink& sink) {
  if (!options_.views) return absl::FailedPreconditionError("views file not enabled");
  if (!error_.ok()) return error_;
  JsonBuilder head;
  head.Open('{');
  head.Key("schema").Str(kViewsFileSchema);
  head.Key("version").Int(kViewsFileVersion);
  head.Key("generator").Str(options_.html_options.generator);
  head.Key("source").Str(source);
  head.Key("hosts").Open('[');
  TBPROF_RETURN_IF_ERROR(sink(head.Take()));
  TBPROF_RETURN_IF_ERROR(views_.CopyTo(sink));
  std::string tail = "],\"xprofNote\":";
  AppendJsonString(kXprofOverviewNote, &tail);
  tail.append(",\"distributedHtml\":");
  AppendJsonString(rows_.size() > 1 ? RenderDistributedHtml(Distributed()) : "", &tail);
  tail.append(",\"appendices\":[");
  for (size_t i = 0; i < appendices_.size(); ++i) {
    const ReportAppendix& appendix = appendices_[i];
    JsonBuilder a;
    a.Open('{');
    a.Key("host").Str(appendix.host);
    a.Key("key").Str(appendix.key);
    a.Key("title").Str(appendix.title);
    a.Key("html").Str(appendix.html);
    a.Close('}');
    absl::StrAppend(&tail, i > 0 ? "," : "", a.Take());
  }
  tail.append("]}");
  if (rows_.size() > 1) {
    TBPROF_RETURN_IF_ERROR(AppendDistributedJsonMember(Distributed(), &tail));
  }
  tail.push_back('\n');
  return sink(tail);
}

// The whole-report renderers (report_text.h, report_json.h, report_html.h,
// views_file.h).

namespace {

ReportSink AppendTo(std::string* out) {
  return [out](absl::string_view piece) {
    out->append(piece.data(), piece.size());
    return absl::OkStatus();
  };
}

absl::Status AddAll(const ReportInput& input, ReportStream* stream) {
  for (const HostViews& host : input.hosts) TBPROF_RETURN_IF_ERROR(stream->AddHost(host));
  for (const ReportAppendix& appendix : input.appendices) stream->AddAppendix(appendix);
  return absl::OkStatus();
}

}  // namespace

std::string RenderTextReport(const ReportInput& input, const TextReportOptions& options) {
  ReportStreamOptions o;
  o.text = true;
  o.text_options = options;
  ReportStream stream(o);
  std::string out;
  // Text rendering fails only if the temporary file does.
  absl::Status status = AddAll(input, &stream);
  if (status.ok()) status = stream.FinishText(input.source, AppendTo(&out));
  if (!status.ok()) return absl::StrCat("tbprof report: ", status.message(), "\n");
  return out;
}

absl::StatusOr<std::string> RenderJsonReport(const ReportInput& input) {
  ReportStreamOptions o;
  o.json = true;
  ReportStream stream(o);
  TBPROF_RETURN_IF_ERROR(AddAll(input, &stream));
  std::string out;
  TBPROF_RETURN_IF_ERROR(stream.FinishJson(AppendTo(&out)));
  return out;
}

absl::StatusOr<std::string> RenderViewsFile(const ReportInput& input,
                                            const HtmlReportOptions& options) {
  ReportStreamOptions o;
  o.views = true;
  o.html_options = options;
  ReportStream stream(o);
  TBPROF_RETURN_IF_ERROR(AddAll(input, &stream));
  std::string out;
  TBPROF_RETURN_IF_ERROR(stream.FinishViews(input.source, AppendTo(&out)));
  return out;
}

std::string RenderHtmlReport(const ReportInput& input, const HtmlReportOptions& options) {
  ReportStreamOptions o;
  o.html = true;
  o.html_options = options;
  ReportStream stream(o);
  std::string out;
  absl::Status status = AddAll(input, &stream);
  if (status.ok()) status = stream.FinishHtml(input.source, AppendTo(&out));
  if (!status.ok()) return absl::StrCat("tbprof report: ", status.message(), "\n");
  return out;
}

}  // namespace tbprof::views
