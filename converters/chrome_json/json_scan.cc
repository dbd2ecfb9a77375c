#include "converters/chrome_json/json_scan.h"

#include <cstring>
#include <string>

#include "converters/chrome_json/digits.h"
#include "converters/chrome_json/json_number.h"

namespace tbprof::converters::json {
namespace {

inline bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses 4 hex digits at p (caller checked the length). -1 if invalid.
int Hex4(const char* p) {
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    int h = HexValue(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr uint32_t kReplacementChar = 0xFFFD;

}  // namespace

bool Cursor::ParseString(absl::string_view* out, StringArena* arena) {
  const char* start = p_ + 1;
  const char* q = FindQuoteOrBackslash(start, end_);
  if (q == end_) return Incomplete();
  if (*q == '"') {
    *out = absl::string_view(start, static_cast<size_t>(q - start));
    p_ = q + 1;
    return true;
  }
  return UnescapeRest(start, out, arena);
}

bool Cursor::UnescapeRest(const char* start, absl::string_view* out, StringArena* arena) {
  std::string* s = arena != nullptr ? arena->New() : nullptr;
  const char* q = FindQuoteOrBackslash(start, end_);
  if (s != nullptr) s->assign(start, static_cast<size_t>(q - start));
  while (true) {
    if (q == end_) return Incomplete();
    if (*q == '"') {
      *out = s != nullptr ? absl::string_view(*s)
                          : absl::string_view(start, static_cast<size_t>(q - start));
      p_ = q + 1;
      return true;
    }
    // Backslash.
    if (end_ - q < 2) return Incomplete();
    char e = q[1];
    char simple = 0;
    switch (e) {
      case '"':
        simple = '"';
        break;
      case '\\':
        simple = '\\';
        break;
      case '/':
        simple = '/';
        break;
      case 'b':
        simple = '\b';
        break;
      case 'f':
        simple = '\f';
        break;
      case 'n':
        simple = '\n';
        break;
      case 'r':
        simple = '\r';
        break;
      case 't':
        simple = '\t';
        break;
      case 'u':
        break;
      default:
        return Fail(q, "invalid escape sequence in string");
    }
    if (simple != 0) {
      if (s != nullptr) s->push_back(simple);
      q += 2;
    } else {
      if (end_ - q < 6) return Incomplete();
      int cp = Hex4(q + 2);
      if (cp < 0) return Fail(q, "invalid \\u escape in string");
      q += 6;
      uint32_t code = static_cast<uint32_t>(cp);
      if (code >= 0xD800 && code <= 0xDBFF) {
        // High surrogate: combine with a following low surrogate if present.
        if (end_ - q < 2) return Incomplete();
        if (q[0] == '\\' && q[1] == 'u') {
          if (end_ - q < 6) return Incomplete();
          int low = Hex4(q + 2);
          if (low < 0) return Fail(q, "invalid \\u escape in string");
          if (low >= 0xDC00 && low <= 0xDFFF) {
            code = 0x10000 + ((code - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
            q += 6;
          } else {
            code = kReplacementChar;
          }
        } else {
          code = kReplacementChar;
        }
      } else if (code >= 0xDC00 && code <= 0xDFFF) {
        code = kReplacementChar;  // Lone low surrogate.
      }
      if (s != nullptr) AppendUtf8(code, s);
    }
    const char* next = FindQuoteOrBackslash(q, end_);
    if (s != nullptr) s->append(q, static_cast<size_t>(next - q));
    q = next;
  }
}

bool Cursor::SkipWhitespaceRun() {
  const char* p = p_;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i carriage_return = _mm_set1_epi8('\r');
  while (end_ - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ws = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, newline)),
        _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, carriage_return)));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
    if (other != 0) {
      p_ = p + __builtin_ctz(other);
      return true;
    }
    p += 16;
  }
#endif
  while (p < end_) {
    const char c = *p;
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      p_ = p;
      return true;
    }
    ++p;
  }
  p_ = p;
  return Incomplete();
}

bool Cursor::ParseLiteral(absl::string_view literal) {
  size_t available = static_cast<size_t>(end_ - p_);
  if (available < literal.size()) {
    if (std::memcmp(p_, literal.data(), available) == 0) return Incomplete();
    return Fail(p_, "invalid literal");
  }
  if (std::memcmp(p_, literal.data(), literal.size()) != 0) return Fail(p_, "invalid literal");
  p_ += literal.size();
  return true;
}

bool Cursor::ParseNumber(absl::string_view* out) {
  const char* start = p_;
  if (*p_ == 'N' || *p_ == 'I' || (*p_ == '-' && end_ - p_ >= 2 && p_[1] == 'I')) {
    absl::string_view literal = *p_ == 'N' ? "NaN" : (*p_ == 'I' ? "Infinity" : "-Infinity");
    if (!ParseLiteral(literal)) return false;
    *out = absl::string_view(start, literal.size());
    return true;
  }
  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? followed by a non-number
  // character (the range must not end inside the number).
  const char* q = p_;
  const char* e = end_;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (*q == '-') ++q;
  if (q == e) return Incomplete();
  if (*q == '0') {
    ++q;
  } else if (digit(*q)) {
    q = SkipDigits(q, e);
  } else {
    return Fail(start, "invalid number");
  }
  if (q == e) return Incomplete();
  if (*q == '.') {
    ++q;
    if (q == e) return Incomplete();
    if (!digit(*q)) return Fail(start, "invalid number");
    q = SkipDigits(q, e);
    if (q == e) return Incomplete();
  }
  if (*q == 'e' || *q == 'E') {
    ++q;
    if (q == e) return Incomplete();
    if (*q == '+' || *q == '-') ++q;
    if (q == e) return Incomplete();
    if (!digit(*q)) return Fail(start, "invalid number");
    q = SkipDigits(q, e);
    if (q == e) return Incomplete();
  }
  if (IsNumberChar(*q)) return Fail(start, "invalid number");
  *out = absl::string_view(start, static_cast<size_t>(q - start));
  p_ = q;
  return true;
}

bool Cursor::SkipValue(int depth) {
  if (!SkipWhitespace()) return false;
  absl::string_view unused;
  switch (*p_) {
    case '"':
      return ParseString(&unused, nullptr);
    case '{': {
      if (depth + 1 > kMaxNestingDepth) return FailTooDeep(p_);
      ++p_;
      if (!SkipWhitespace()) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      while (true) {
        if (!SkipWhitespace()) return false;
        if (*p_ != '"') return Fail(p_, "expected a string key");
        if (!ParseString(&unused, nullptr)) return false;
        if (!Expect(':', "expected ':' after key")) return false;
        if (!SkipValue(depth + 1)) return false;
        if (!SkipWhitespace()) return false;
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ == '}') {
          ++p_;
          return true;
        }
        return Fail(p_, "expected ',' or '}' in object");
      }
    }
    case '[': {
      if (depth + 1 > kMaxNestingDepth) return FailTooDeep(p_);
      ++p_;
      if (!SkipWhitespace()) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      while (true) {
        if (!SkipValue(depth + 1)) return false;
        if (!SkipWhitespace()) return false;
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ == ']') {
          ++p_;
          return true;
        }
        return Fail(p_, "expected ',' or ']' in array");
      }
    }
    case 't':
      return ParseLiteral("true");
    case 'f':
      return ParseLiteral("false");
    case 'n':
      return ParseLiteral("null");
    default:
      if ((*p_ >= '0' && *p_ <= '9') || *p_ == '-' || *p_ == 'N' || *p_ == 'I') {
        return ParseNumber(&unused);
      }
      return Fail(p_, "unexpected character");
  }
}

bool Cursor::ParseToken(int depth, Token* token, StringArena* arena) {
  if (!SkipWhitespace()) return false;
  const char* start = p_;
  switch (*p_) {
    case '"':
      token->kind = ValueKind::kString;
      return ParseString(&token->text, arena);
    case 't':
    case 'f':
      token->kind = ValueKind::kBool;
      if (!ParseLiteral(*p_ == 't' ? "true" : "false")) return false;
      token->text = absl::string_view(start, static_cast<size_t>(p_ - start));
      return true;
    case 'n':
      token->kind = ValueKind::kNull;
      token->text = absl::string_view();
      return ParseLiteral("null");
    case '{':
    case '[':
      token->kind = *p_ == '{' ? ValueKind::kObject : ValueKind::kArray;
      if (!SkipValue(depth)) return false;
      token->text = absl::string_view(start, static_cast<size_t>(p_ - start));
      return true;
    default:
      token->kind = ValueKind::kNumber;
      if ((*p_ >= '0' && *p_ <= '9') || *p_ == '-' || *p_ == 'N' || *p_ == 'I') {
        return ParseNumber(&token->text);
      }
      return Fail(p_, "unexpected character");
  }
}

int64_t IntOr(const Token& t, int64_t fallback) {
  int64_t v;
  if (IsNumberOrString(t) && ParseInt64(t.text, &v)) return v;
  return fallback;
}

}  // namespace tbprof::converters::json
