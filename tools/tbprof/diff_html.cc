#include "tools/tbprof/diff_html.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "converters/report/report_html_assets.h"

namespace tbprof::cli {
namespace {

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// '<', '>' and '&' only occur inside JSON strings, where \u escapes mean the
// same; escaping them keeps "</script>" out of the page.
std::string ScriptSafeJson(const std::string& json) {
  std::string safe;
  safe.reserve(json.size() + json.size() / 16);
  for (char c : json) {
    switch (c) {
      case '<': safe += "\\u003c"; break;
      case '>': safe += "\\u003e"; break;
      case '&': safe += "\\u0026"; break;
      default: safe.push_back(c);
    }
  }
  return safe;
}

}  // namespace

std::string RenderDiffHtml(const ProfileDiff& diff, DiffJsonOptions options) {
  options.max_rows = std::min<size_t>(options.max_rows, 500);
  const std::string title = absl::StrCat(diff.base_source, " vs ", diff.next_source);
  std::string page;
  absl::StrAppend(
      &page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
      // Nothing may be fetched: the page must work offline and leak nothing.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
      "<title>tbprof diff: ", HtmlEscape(title), "</title>\n<style>\n", views::kReportHtmlCss,
      kDiffHtmlCss, "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>",
      "This page draws its charts with JavaScript; please enable it.</noscript></div>\n",
      "<div id=\"render-status\" class=\"pending\">pending</div>\n",
      "<script type=\"application/json\" id=\"tbprof-data\">",
      ScriptSafeJson(RenderDiffJson(diff, options)), "</script>\n<script>\n", kDiffHtmlJs,
      "</script>\n</body>\n</html>\n");
  return page;
}

}  // namespace tbprof::cli
