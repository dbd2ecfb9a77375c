// Skipping values without parsing them: SkipLeniently() for malformed trace
// events, ResumableSkipper for unneeded top-level values.
#include <string>

#include "converters/chrome_json/json_scan.h"

namespace tbprof::converters::json {

ScanStatus SkipLeniently(const char* begin, const char* end, const char** value_end) {
  const char* p = begin;
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  if (p == end) return ScanStatus::kIncomplete;
  auto skip_string = [&](const char* q) -> const char* {  // q after the opening quote.
    while (true) {
      q = FindQuoteOrBackslash(q, end);
      if (q == end) return nullptr;
      if (*q == '"') return q + 1;
      if (end - q < 2) return nullptr;
      q += 2;
    }
  };
  if (*p != '{' && *p != '[') {
    if (*p == '"') {
      const char* q = skip_string(p + 1);
      if (q == nullptr) return ScanStatus::kIncomplete;
      *value_end = q;
      return ScanStatus::kOk;
    }
    while (p < end && *p != ',' && *p != ']' && *p != '}') ++p;
    if (p == end) return ScanStatus::kIncomplete;
    *value_end = p;
    return ScanStatus::kOk;
  }
  std::string stack;
  while (p < end) {
    char c = *p;
    if (c == '"') {
      p = skip_string(p + 1);
      if (p == nullptr) return ScanStatus::kIncomplete;
      continue;
    }
    if (c == '{' || c == '[') {
      stack.push_back(c);
    } else if (c == '}' || c == ']') {
      char opener = c == '}' ? '{' : '[';
      size_t match = stack.rfind(opener);
      // A closer without its opener closes everything still open.
      stack.resize(match == std::string::npos ? 0 : match);
      if (stack.empty()) {
        *value_end = p + 1;
        return ScanStatus::kOk;
      }
    }
    ++p;
  }
  return ScanStatus::kIncomplete;
}

ScanStatus ResumableSkipper::Feed(const char* begin, const char* end, size_t* consumed) {
  const char* p = begin;
  auto done = [&](const char* at) {
    *consumed = static_cast<size_t>(at - begin);
    return ScanStatus::kOk;
  };
  if (!started_) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    if (p == end) {
      *consumed = static_cast<size_t>(end - begin);
      return ScanStatus::kIncomplete;
    }
    started_ = true;
    if (*p == '{' || *p == '[') {
      depth_ = 1;
      ++p;
    } else if (*p == '"') {
      in_string_ = true;
      ++p;
    } else {
      scalar_ = true;
    }
  }
  while (p < end) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        ++p;
        continue;
      }
      p = FindQuoteOrBackslash(p, end);
      if (p == end) break;
      if (*p == '\\') {
        escape_ = true;
        ++p;
        continue;
      }
      in_string_ = false;
      ++p;
      if (depth_ == 0) return done(p);
      continue;
    }
    char c = *p;
    if (scalar_) {
      if (c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        return done(p);
      }
      ++p;
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) return done(p + 1);
    }
    ++p;
  }
  *consumed = static_cast<size_t>(end - begin);
  return ScanStatus::kIncomplete;
}

}  // namespace tbprof::converters::json
