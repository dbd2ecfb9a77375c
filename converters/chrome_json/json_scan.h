// Low-level JSON scanning over a byte range that may end in the middle of a
// value (the streaming reader's buffer). Every function either completes,
// reports kIncomplete (the range ended first: refill and retry from the
// element's start) or kError (with the position and a static message).
//
// Strings are returned as views into the input when they contain no escape
// sequence, otherwise unescaped into a StringArena. Numbers are returned as
// their text (see json_number.h for exact conversion).
#ifndef TBPROF_CONVERTERS_CHROME_JSON_JSON_SCAN_H_
#define TBPROF_CONVERTERS_CHROME_JSON_JSON_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "absl/strings/string_view.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tbprof::converters::json {

// Deepest nesting of arrays/objects accepted, counting the document's
// outermost container as 1.
inline constexpr int kMaxNestingDepth = 64;

enum class ScanStatus : uint8_t { kOk, kIncomplete, kError };

// First '"' or '\\' in [p, end), or end.
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask =
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// Storage for unescaped strings. Views stay valid until Reset().
class StringArena {
 public:
  std::string* New() {
    if (used_ == strings_.size()) strings_.emplace_back();
    std::string* s = &strings_[used_++];
    s->clear();
    return s;
  }
  void Reset() { used_ = 0; }

 private:
  std::deque<std::string> strings_;
  size_t used_ = 0;
};

// What a scalar JSON value was.
enum class ValueKind : uint8_t { kAbsent = 0, kNull, kBool, kNumber, kString, kArray, kObject };

struct Token {
  ValueKind kind = ValueKind::kAbsent;
  absl::string_view text;  // Number text, string contents, "true"/"false", or raw JSON.
  bool present() const { return kind != ValueKind::kAbsent; }
};

// True for a number or a string (Kineto writes some numbers quoted).
inline bool IsNumberOrString(const Token& t) {
  return t.kind == ValueKind::kNumber || t.kind == ValueKind::kString;
}

// Integer value of a number or a quoted number; `fallback` otherwise
// (other kinds, fractions, values outside int64).
int64_t IntOr(const Token& t, int64_t fallback);

class Cursor {
 public:
  Cursor(const char* begin, const char* end) : p_(begin), end_(end) {}

  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }
  const char* end() const { return end_; }
  ScanStatus status() const { return status_; }
  const char* error_pos() const { return error_pos_; }
  const char* error_message() const { return error_message_; }

  bool Incomplete() {
    status_ = ScanStatus::kIncomplete;
    return false;
  }
  bool Fail(const char* at, const char* message) {
    status_ = ScanStatus::kError;
    error_pos_ = at;
    error_message_ = message;
    return false;
  }
  // Fails because arrays/objects nest deeper than kMaxNestingDepth.
  bool FailTooDeep(const char* at) {
    depth_exceeded_ = true;
    return Fail(at, "nesting deeper than 64 levels");
  }
  bool depth_exceeded() const { return depth_exceeded_; }

  // Skips JSON whitespace. False (incomplete) if the range ends first.
  bool SkipWhitespace() {
    // Most calls find no whitespace, or one space (after ':' or ','): a
    // comparison or two decide.
    if (end_ - p_ >= 2) {
      if (static_cast<unsigned char>(p_[0]) > ' ') return true;
      if (p_[0] == ' ' && static_cast<unsigned char>(p_[1]) > ' ') {
        ++p_;
        return true;
      }
    }
    return SkipWhitespaceRun();
  }
  // Skips whitespace, then consumes `c` or fails with `message`.
  bool Expect(char c, const char* message) {
    if (!SkipWhitespace()) return false;
    if (*p_ != c) return Fail(p_, message);
    ++p_;
    return true;
  }

  // At '"': reads a string. With escapes, its contents are unescaped into
  // `arena`; with a null arena escapes are only validated and *out is the raw
  // text between the quotes.
  bool ParseString(absl::string_view* out, StringArena* arena);
  // At a number's first character: scans and validates it.
  bool ParseNumber(absl::string_view* out);
  // Any value; `depth` is the nesting depth of the value's container.
  bool SkipValue(int depth);
  // Reads a scalar into *token (strings unescaped); arrays/objects are
  // skipped and reported with their raw text.
  bool ParseToken(int depth, Token* token, StringArena* arena);

 private:
  bool ParseLiteral(absl::string_view literal);
  // SkipWhitespace() for the other cases: longer runs (line breaks and
  // indentation) are skipped 16 bytes at a time.
  bool SkipWhitespaceRun();
  bool UnescapeRest(const char* start, absl::string_view* out, StringArena* arena);

  const char* p_;
  const char* end_;
  ScanStatus status_ = ScanStatus::kOk;
  const char* error_pos_ = nullptr;
  const char* error_message_ = nullptr;
  bool depth_exceeded_ = false;
};

// Finds the end of the value starting at `begin` without validating it:
// brackets are matched (a closer of the wrong kind closes up to its opener),
// strings are skipped escape-aware, a scalar ends before ',', ']' or '}'.
// Used to step over a malformed trace event. On kOk, *end is one past the
// value. Never fails with kError.
ScanStatus SkipLeniently(const char* begin, const char* end, const char** value_end);

// Resumable skipper for large top-level values that are not needed: feed it
// consecutive ranges; it reports kOk with *consumed = bytes up to the end of
// the value, or kIncomplete having consumed the whole range.
class ResumableSkipper {
 public:
  ScanStatus Feed(const char* begin, const char* end, size_t* consumed);

 private:
  bool started_ = false;
  bool scalar_ = false;
  bool in_string_ = false;
  bool escape_ = false;
  int64_t depth_ = 0;
};

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_JSON_SCAN_H_
