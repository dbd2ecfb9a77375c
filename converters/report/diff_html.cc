#include "converters/report/diff_html.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "converters/report/html_common.h"
#include "converters/report/html_assets.h"

namespace tbprof::views {

std::string RenderDiffHtml(const ProfileDiff& diff, DiffJsonOptions options) {
  options.max_rows = std::min<size_t>(options.max_rows, 500);
  const std::string title = absl::StrCat(diff.base_source, " vs ", diff.next_source);
  std::string page;
  absl::StrAppend(
      &page, views::kHtmlPageHead,
      "<title>tbprof diff: ", views::HtmlEscape(title), "</title>\n<style>\n",
      views::kReportHtmlCss, views::kDiffHtmlCss, "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>",
      "This page draws its charts with JavaScript; please enable it.</noscript></div>\n",
      "<div id=\"render-status\" hidden data-status=\"pending\"></div>\n",
      "<script type=\"application/json\" id=\"tbprof-data\">",
      views::ScriptSafeJson(RenderDiffJson(diff, options)), "</script>\n<script>\n",
      views::kHtmlJsPrelude, views::kDiffHtmlJs, views::kHtmlJsEpilogue,
      "</script>\n</body>\n</html>\n");
  return page;
}

}  // namespace tbprof::views
