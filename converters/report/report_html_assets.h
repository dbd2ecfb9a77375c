// The stylesheet and script that report_html.cc inlines into every page.
// Internal to the HTML report; kept apart so the page logic stays readable.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_HTML_ASSETS_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_HTML_ASSETS_H_

namespace tbprof::views {

// CSS for the report page (no external fonts or images).
extern const char kReportHtmlCss[];

// Dependency-free JavaScript (ES5) that reads the JSON in
// <script id="tbprof-data">, draws the page into #app and reports
// "ok charts=<n> errors=<k>" in #render-status.
// The page puts it between kHtmlJsPrelude and kHtmlJsEpilogue
// (html_common.h).
extern const char kReportHtmlJs[];

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_HTML_ASSETS_H_
