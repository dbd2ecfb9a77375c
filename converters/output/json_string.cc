#include "converters/output/json_string.h"

#include <cstdint>
#include <cstring>

namespace tbprof::views {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// True if one of the 8 bytes in `word` is below 0x20, '"', '\\' or 0x80 and
// above; may also be true when none is, never false when one is.
inline bool WordNeedsAttention(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  // Per byte, x - 1 borrows into the high bit where x is 0: the bytes equal
  // to '"' or '\\' (after the xor) and, with x - 0x20, those below 0x20.
  // Bytes >= 0x80 are caught by their own high bit.
  const uint64_t quote = word ^ (kOnes * '"');
  const uint64_t backslash = word ^ (kOnes * '\\');
  const uint64_t low = (word - kOnes * 0x20) | (quote - kOnes) | (backslash - kOnes);
  return (((low & ~word) | word) & kHighBits) != 0;
}

}  // namespace

size_t ValidUtf8Length(absl::string_view s, size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  size_t len;
  uint32_t min_code_point;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    min_code_point = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    min_code_point = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    min_code_point = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < len) return 0;
  uint32_t code_point = lead & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    const auto cont = static_cast<unsigned char>(s[i + k]);
    if ((cont & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (cont & 0x3F);
  }
  if (code_point < min_code_point || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return 0;
  }
  return len;
}

void AppendJsonString(absl::string_view s, std::string* out) {
  out->push_back('"');
  size_t copied = 0;  // s[copied, i) still has to be appended verbatim.
  size_t i = 0;
  while (i < s.size()) {
    while (s.size() - i >= 8) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, sizeof(word));
      if (WordNeedsAttention(word)) break;
      i += 8;
    }
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t len = ValidUtf8Length(s, i);
      if (len > 0) {
        i += len;
        continue;
      }
    }
    out->append(s.data() + copied, i - copied);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c >= 0x80) {
          out->append("\\ufffd");
        } else {
          const char escape[] = {'\\', 'u', '0', '0', kHexDigits[c >> 4], kHexDigits[c & 0xF]};
          out->append(escape, sizeof(escape));
        }
    }
    copied = ++i;
  }
  out->append(s.data() + copied, s.size() - copied);
  out->push_back('"');
}

}  // namespace tbprof::views
