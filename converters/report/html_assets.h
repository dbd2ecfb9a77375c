// The stylesheets and scripts of the HTML pages, kept as real files in
// converters/report/assets/ and embedded byte for byte at build time
// (cmake/TbprofEmbedAssets.cmake generates the definitions). Internal to the
// renderers of this folder.
#ifndef TBPROF_CONVERTERS_REPORT_HTML_ASSETS_H_
#define TBPROF_CONVERTERS_REPORT_HTML_ASSETS_H_

namespace tbprof::views {

// assets/page_prelude.js and assets/page_epilogue.js: the start and end of
// every page script (declared with their contract in html_common.h).
extern const char kHtmlJsPrelude[];
extern const char kHtmlJsEpilogue[];

// assets/report.css: CSS for the report page (no external fonts or images);
// `tbprof diff --html` inlines it too.
extern const char kReportHtmlCss[];

// assets/report.js: dependency-free JavaScript (ES5) that reads the JSON in
// <script id="tbprof-data">, draws the page into #app and reports
// "ok charts=<n> errors=<k>" in #render-status's data-status attribute. The page puts it between
// kHtmlJsPrelude and kHtmlJsEpilogue.
extern const char kReportHtmlJs[];
// assets/report_ops.js: the operator, module and GEMM-efficiency panels of
// the report page, in the same script (after kReportHtmlJs).
extern const char kReportOpsHtmlJs[];

// assets/distributed.css and assets/distributed.js: the distributed view's
// section. The script sorts a table of #distributed by the clicked column, as
// the page's own tables do (and as its #selftest checks): cells carry their
// sort key in data-v; a first click sorts numbers ("num" columns) descending
// and text ascending, a second click on the same column reverses.
extern const char kDistributedHtmlCss[];
extern const char kDistributedHtmlJs[];

// assets/diff.css and assets/diff.js: what the `tbprof diff --html` page adds
// to the report's stylesheet, and its script (between kHtmlJsPrelude and
// kHtmlJsEpilogue).
extern const char kDiffHtmlCss[];
extern const char kDiffHtmlJs[];

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_HTML_ASSETS_H_
