#include "converters/common/utf8.h"

#include <cstdint>
#include <cstring>

namespace tbprof::converters {
namespace {

bool IsAscii(absl::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t acc = 0;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    acc |= w;
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    acc |= static_cast<unsigned char>(*p++);
    --n;
  }
  return (acc & 0x8080808080808080ull) == 0;
}

// Length of the valid UTF-8 sequence at p (< end), or 0 if invalid.
size_t ValidSequenceLength(const unsigned char* p, const unsigned char* end) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - p) < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

}  // namespace

absl::string_view SanitizeUtf8(absl::string_view s, std::string* scratch) {
  if (IsAscii(s)) return s;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  const auto* q = p;
  while (q < end) {
    size_t n = ValidSequenceLength(q, end);
    if (n == 0) break;
    q += n;
  }
  if (q == end) return s;
  scratch->assign(s.data(), static_cast<size_t>(q - p));
  while (q < end) {
    size_t n = ValidSequenceLength(q, end);
    if (n == 0) {
      scratch->append("\xEF\xBF\xBD");
      ++q;
    } else {
      scratch->append(reinterpret_cast<const char*>(q), n);
      q += n;
    }
  }
  return *scratch;
}

}  // namespace tbprof::converters
