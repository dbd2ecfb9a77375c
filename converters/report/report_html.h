// The HTML form of a tbprof report (`tbprof report --html FILE`): one
// self-contained page, with no network resources (inline CSS and a small
// dependency-free script; the report data embedded as JSON), that draws:
//  * per host: overview cards and the verdict with recommendations, a
//    stacked bar per step (SVG) with the category breakdown, the top kernels
//    (SVG bars) and a kernel table sortable by clicking its column headers,
//    the input-pipeline split, and a memory timeline per allocator (SVG)
//    with the peak marked and the allocations live at the peak; the top ops
//    (device and host self time as bars), sortable tables of ops by name and
//    by input shape, the call stacks of the top ops, an icicle chart of the
//    nn.Module tree with a sortable module table, and the GEMM efficiency
//    (fraction of the GPU's peak as bars) with a sortable GEMM table;
//  * for several hosts: a comparison of step times across hosts (SVG).
//
// A table of contents at the top links to each section; the footer comes
// last, after the distributed view. After drawing, the script writes "ok
// charts=<n> errors=0" (or "error charts=<n> errors=<k>: <messages>") into
// the data-status attribute of the hidden element with id "render-status",
// which headless browsers can check and users never see. All text is inserted as text, never as
// markup, so names from traces cannot inject HTML.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_HTML_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_HTML_H_

#include <string>
#include <vector>

#include "converters/report/html_common.h"
#include "converters/views/summary/report_model.h"

namespace tbprof::views {

struct HtmlReportOptions {
  // Kernel table rows per host (the top ones by total time).
  int max_kernels = 500;
  // Rows of the operator tables (by name, by input shape) and GEMM table,
  // and module tree nodes (depth first).
  int max_ops = 500;
  int max_modules = 2000;
  // Shown in the page footer, e.g. "tbprof 0.1.0".
  std::string generator = "tbprof";
};

// The complete page (UTF-8).
std::string RenderHtmlReport(const ReportInput& input, const HtmlReportOptions& options = {});

// The page in pieces, for writing it host by host (report_stream.h); in
// page order: RenderHtmlPageStart(), the distributed section
// (report_distributed.h), RenderAppendicesHtml(), RenderHtmlPageDataStart(),
// the data (RenderHtmlDataHead(), the hosts' RenderHtmlHostData() separated
// by ',', then "]}"), RenderHtmlPageEnd().
std::string RenderHtmlPageStart(const std::string& source);
std::string RenderAppendicesHtml(const std::vector<ReportAppendix>& appendices);
std::string RenderHtmlPageDataStart(const HtmlReportOptions& options);
std::string RenderHtmlPageEnd();
// `{"source":...,"generator":...,"hosts":[` and one host's object, both
// script-safe as RenderHtmlReportData() writes them.
std::string RenderHtmlDataHead(const std::string& source, const HtmlReportOptions& options);
std::string RenderHtmlHostData(const HostReport& report, const HtmlReportOptions& options);

// The data the page embeds: {"source": ..., "generator": ..., "hosts": [...]}
// with one object per HostReport (times in ms unless a name says otherwise).
// '<', '>' and '&' are written as \u escapes so the JSON can sit inside a
// <script> element.
std::string RenderHtmlReportData(const std::string& source,
                                 const std::vector<HostReport>& reports,
                                 const HtmlReportOptions& options = {});

// Appends one host's object of the page data ("hosts" below) to `json`:
// the members report.js reads (host, deviceType, step, categories, steps,
// input, kernels, allocators, ops, modules, gemm, errors, warnings, ...).
// The views file (views_file.h) holds the same objects.
void AppendHostData(const HostReport& report, const HtmlReportOptions& options,
                    JsonBuilder* json);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_HTML_H_
