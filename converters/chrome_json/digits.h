// Eight ASCII digits at a time (SWAR: one 64-bit word per 8 bytes), for the
// number scanning of json_scan.cc and the conversions of json_number.cc.
// Trace timestamps such as 1712195495896243.426 are 20 characters long, and
// numbers are a fifth of the bytes of some Kineto traces, so a loop testing
// one character per iteration was a large share of parsing.
//
// Contract: every function reads only [p, end) and gives exactly the result
// of the obvious character-by-character loop (digits_test.cc checks that
// for every byte value at every position). The word forms are used on
// little-endian targets only; elsewhere the scalar loops run.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_DIGITS_H_
#define TBPROF_CONVERTERS_CHROME_JSON_DIGITS_H_

#include <cstdint>
#include <cstring>

namespace tbprof::converters::json {

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TBPROF_DIGITS_SWAR 1

inline uint64_t LoadWord(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// Bit 7 of each byte of the result is set iff that byte of `w` is not an
// ASCII digit. Exact per byte: no carry crosses a byte boundary because the
// additions work on the low 7 bits (at most 0x7F + 0x50 < 0x100).
inline uint64_t NonDigitBytes(uint64_t w) {
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  const uint64_t x = w & kLow7;
  const uint64_t above_nine = x + 0x4646464646464646ULL;  // Bit 7 iff x >= 0x3A.
  const uint64_t at_least_zero = x + 0x5050505050505050ULL;  // Bit 7 iff x >= 0x30.
  return (above_nine | ~at_least_zero | w) & kHigh;
}

// The value of 8 ASCII digits (the first one most significant), given as
// the word loaded from them.
inline uint64_t EightDigitsValue(uint64_t w) {
  w -= 0x3030303030303030ULL;                          // Digit values, one per byte.
  w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFULL;     // 4 two-digit values.
  w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFULL;   // 2 four-digit values.
  return (w * 10000 + (w >> 32)) & 0xFFFFFFFFULL;      // The eight-digit value.
}
#endif

// One past the last of the ASCII digits that start at p (p itself if none),
// not reading beyond end.
inline const char* SkipDigits(const char* p, const char* end) {
#ifdef TBPROF_DIGITS_SWAR
  while (end - p >= 8) {
    const uint64_t non_digit = NonDigitBytes(LoadWord(p));
    if (non_digit != 0) return p + (__builtin_ctzll(non_digit) >> 3);
    p += 8;
  }
#endif
  while (p < end && IsAsciiDigit(*p)) ++p;
  return p;
}

// Appends the ASCII digits that start at p to *value (value = value * 10 +
// digit for each), at most `max_digits` of them and not beyond end; returns
// one past the last digit taken. The caller keeps *value from overflowing
// (at most 19 digits in all fit uint64).
inline const char* AccumulateDigits(const char* p, const char* end, int max_digits,
                                    uint64_t* value) {
  const char* limit = end - p > max_digits ? p + max_digits : end;
  uint64_t v = *value;
#ifdef TBPROF_DIGITS_SWAR
  while (limit - p >= 8) {
    const uint64_t w = LoadWord(p);
    if (NonDigitBytes(w) != 0) break;
    v = v * 100000000ULL + EightDigitsValue(w);
    p += 8;
  }
#endif
  while (p < limit && IsAsciiDigit(*p)) v = v * 10 + static_cast<unsigned>(*p++ - '0');
  *value = v;
  return p;
}

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_DIGITS_H_
