// Pieces shared by the HTML pages that tbprof writes: the report
// (report_html.h, report_distributed.h) and `tbprof diff --html`
// (converters/report/diff_html.h). Escaping for markup and inline <script> data,
// a JSON builder for the page data, and the start of the page script.
#ifndef TBPROF_CONVERTERS_REPORT_HTML_COMMON_H_
#define TBPROF_CONVERTERS_REPORT_HTML_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tbprof::views {

// Text for HTML element content and attribute values: & < > " ' escaped.
std::string HtmlEscape(absl::string_view text);

// `json` made safe to inline in <script type="application/json">: '<', '>'
// and '&' only occur inside JSON strings, where \u escapes mean the same;
// escaping them keeps "</script>" out of the page.
std::string ScriptSafeJson(absl::string_view json);

// Appends JSON values with the commas placed automatically.
class JsonBuilder {
 public:
  void Open(char bracket);
  void Close(char bracket);
  JsonBuilder& Key(absl::string_view key);
  void Str(absl::string_view value);
  void Num(double value);
  void Int(int64_t value);
  void Bool(bool value);
  void Null();
  void StrList(const std::vector<std::string>& values);
  std::string Take() { return std::move(out_); }

 private:
  void Separate() {
    if (comma_) out_.push_back(',');
    comma_ = false;
  }
  std::string out_;
  bool comma_ = false;
};

// The start of every page: doctype, charset, a Content-Security-Policy that
// lets nothing be fetched, and the viewport; the <head> stays open for the
// page's <title> and <style>.
extern const char kHtmlPageHead[];

// The start of every page script (ES5): opens the IIFE and defines the
// #render-status reporting (errors, charts, sorted; status()), the DOM
// helpers h() and s() that put all data in as text, and fx(). A page's own
// script follows it directly, then kHtmlJsEpilogue.
extern const char kHtmlJsPrelude[];

// The end of every page script: runs the page's main(), with "#selftest" in
// the URL also its selfTest() (which returns how many tables it sorted),
// shows the status and closes the IIFE.
extern const char kHtmlJsEpilogue[];

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_HTML_COMMON_H_
