#include "converters/report/html_common.h"

#include "absl/strings/str_cat.h"
#include "converters/output/json_string.h"
#include "converters/output/json_text_writer.h"

namespace tbprof::views {

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

std::string ScriptSafeJson(absl::string_view json) {
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

void JsonBuilder::Open(char bracket) {
  Separate();
  out_.push_back(bracket);
  comma_ = false;
}

void JsonBuilder::Close(char bracket) {
  out_.push_back(bracket);
  comma_ = true;
}

JsonBuilder& JsonBuilder::Key(absl::string_view key) {
  Separate();
  AppendJsonString(key, &out_);
  out_.push_back(':');
  comma_ = false;
  return *this;
}

void JsonBuilder::Str(absl::string_view value) {
  Separate();
  AppendJsonString(value, &out_);
  comma_ = true;
}

void JsonBuilder::Num(double value) {
  Separate();
  AppendJsonDouble(value, &out_);
  comma_ = true;
}

void JsonBuilder::Int(int64_t value) {
  Separate();
  absl::StrAppend(&out_, value);
  comma_ = true;
}

void JsonBuilder::Bool(bool value) {
  Separate();
  out_.append(value ? "true" : "false");
  comma_ = true;
}

void JsonBuilder::Null() {
  Separate();
  out_.append("null");
  comma_ = true;
}

void JsonBuilder::StrList(const std::vector<std::string>& values) {
  Open('[');
  for (const std::string& v : values) Str(v);
  Close(']');
}

const char kHtmlPageHead[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    // Nothing may be fetched: the page must work offline and leak nothing.
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

}  // namespace tbprof::views
