#include "converters/chrome_json/json_number.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "absl/strings/charconv.h"
#include "converters/chrome_json/digits.h"

namespace tbprof::converters::json {
namespace {

using uint128 = unsigned __int128;

constexpr int kMaxDigits = 38;  // 10^38 < 2^128.

// Digits of a finite JSON number: value = (negative ? -1 : 1) * mantissa *
// 10^exponent, with `dropped_nonzero` set when significant digits beyond
// kMaxDigits were not nonzero (value is then only approximate).
struct Decimal {
  bool negative = false;
  uint128 mantissa = 0;
  int64_t exponent = 0;
  bool dropped_nonzero = false;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool Decompose(absl::string_view text, Decimal* d) {
  const char* p = text.data();
  const char* end = p + text.size();
  if (p < end && *p == '-') {
    d->negative = true;
    ++p;
  }
  if (p == end || !IsDigit(*p)) return false;
  int digits = 0;
  auto take = [&](char c, bool fraction) {
    if (digits == 0 && c == '0') {
      if (fraction) --d->exponent;
      return;
    }
    if (digits < kMaxDigits) {
      d->mantissa = d->mantissa * 10 + static_cast<unsigned>(c - '0');
      ++digits;
      if (fraction) --d->exponent;
    } else {
      if (c != '0') d->dropped_nonzero = true;
      if (!fraction) ++d->exponent;
    }
  };
  if (*p == '0') {
    ++p;
    if (p < end && IsDigit(*p)) return false;  // Leading zero.
  } else {
    while (p < end && IsDigit(*p)) take(*p++, /*fraction=*/false);
  }
  if (p < end && *p == '.') {
    ++p;
    if (p == end || !IsDigit(*p)) return false;
    while (p < end && IsDigit(*p)) take(*p++, /*fraction=*/true);
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool exp_negative = false;
    if (p < end && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
    if (p == end || !IsDigit(*p)) return false;
    int64_t e = 0;
    while (p < end && IsDigit(*p)) {
      if (e < 1000000) e = e * 10 + (*p - '0');
      ++p;
    }
    d->exponent += exp_negative ? -e : e;
  }
  return p == end;
}

bool IsNonFinite(absl::string_view text) {
  return text == "NaN" || text == "Infinity" || text == "-Infinity";
}

// |value| * 10^scale rounded; false on overflow of uint128 or > limit.
bool ScaleMagnitude(const Decimal& d, int scale, uint128 limit, uint128* out, bool* exact) {
  *exact = !d.dropped_nonzero;
  if (d.mantissa == 0) {
    *out = 0;
    return true;
  }
  int64_t e = d.exponent + scale;
  uint128 m = d.mantissa;
  if (e >= 0) {
    for (int64_t i = 0; i < e; ++i) {
      if (m > limit / 10) return false;
      m *= 10;
    }
  } else {
    if (-e > kMaxDigits) {  // |value| < 10^38 * 10^-39 < 0.5.
      *out = 0;
      *exact = false;
      return true;
    }
    uint128 divisor = 1;
    for (int64_t i = 0; i < -e; ++i) divisor *= 10;
    uint128 q = m / divisor, r = m % divisor;
    if (r != 0) *exact = false;
    if (r >= divisor - r) ++q;  // Halves away from zero.
    m = q;
  }
  if (m > limit) return false;
  *out = m;
  return true;
}

}  // namespace

bool IsJsonNumber(absl::string_view text) {
  Decimal d;
  return IsNonFinite(text) || Decompose(text, &d);
}

bool ParseDecimalScaled(absl::string_view text, int scale, int64_t* out) {
  // Fast path: up to 17 integer digits and at most `scale` fraction digits,
  // no exponent (what trace writers produce).
  if (text.size() <= 24 && scale >= 0 && scale <= 6) {
    const char* p = text.data();
    const char* end = p + text.size();
    bool negative = p < end && *p == '-';
    if (negative) ++p;
    const char* int_begin = p;
    uint64_t v = 0;
    p = AccumulateDigits(p, end, 19, &v);
    size_t int_digits = static_cast<size_t>(p - int_begin);
    // 19 digits fit uint64; the int64 range is checked at the end.
    bool ok = int_digits > 0 && int_digits + static_cast<size_t>(scale) <= 19 &&
              !(int_digits > 1 && *int_begin == '0');
    int frac_digits = 0;
    if (ok && p < end && *p == '.') {
      ++p;
      const char* frac_begin = p;
      p = AccumulateDigits(p, end, scale, &v);
      frac_digits = static_cast<int>(p - frac_begin);
      ok = frac_digits > 0 && p == end;
    }
    if (ok && p == end) {
      for (int i = frac_digits; i < scale; ++i) v *= 10;
      if (v <= static_cast<uint64_t>(INT64_MAX)) {
        *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        return true;
      }
    }
  }
  Decimal d;
  if (!Decompose(text, &d)) return false;
  uint128 limit = d.negative ? uint128{1} << 63 : (uint128{1} << 63) - 1;
  uint128 magnitude;
  bool exact;
  if (!ScaleMagnitude(d, scale, limit, &magnitude, &exact)) return false;
  *out = d.negative ? static_cast<int64_t>(-magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool ParseInt64(absl::string_view text, int64_t* out) {
  // Fast path: short plain integers.
  if (!text.empty() && text.size() <= 18) {
    const char* p = text.data();
    const char* end = p + text.size();
    bool negative = *p == '-';
    if (negative) ++p;
    if (p < end && (*p != '0' || end - p == 1)) {
      uint64_t v = 0;
      const char* q = AccumulateDigits(p, end, 18, &v);
      if (q == end) {
        *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        return true;
      }
    }
  }
  Decimal d;
  if (!Decompose(text, &d)) return false;
  uint128 limit = d.negative ? uint128{1} << 63 : (uint128{1} << 63) - 1;
  uint128 magnitude;
  bool exact;
  if (!ScaleMagnitude(d, 0, limit, &magnitude, &exact) || !exact) return false;
  *out = d.negative ? static_cast<int64_t>(-magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool ParseUint64(absl::string_view text, uint64_t* out) {
  Decimal d;
  if (!Decompose(text, &d)) return false;
  if (d.negative && d.mantissa != 0) return false;
  uint128 magnitude;
  bool exact;
  if (!ScaleMagnitude(d, 0, std::numeric_limits<uint64_t>::max(), &magnitude, &exact) || !exact) {
    return false;
  }
  *out = static_cast<uint64_t>(magnitude);
  return true;
}

bool ParseDouble(absl::string_view text, double* out) {
  if (IsNonFinite(text)) {
    if (text == "NaN")
      *out = std::numeric_limits<double>::quiet_NaN();
    else
      *out = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
    return true;
  }
  Decimal d;
  if (!Decompose(text, &d)) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto result = absl::from_chars(begin, end, *out);
  if (result.ec == std::errc::result_out_of_range) {
    // Huge exponents: from_chars reports the range error; saturate.
    *out = d.exponent > 0 ? (d.negative ? -HUGE_VAL : HUGE_VAL) : (d.negative ? -0.0 : 0.0);
    return true;
  }
  return result.ec == std::errc() && result.ptr == end;
}

}  // namespace tbprof::converters::json
