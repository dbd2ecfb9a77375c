// Exact conversions of JSON number text (also the text of quoted numbers such
// as "ts": "123.5") to integers, without going through double.
//
// Chrome traces give times in microseconds with up to 3 decimals and Unix
// epochs (1623143093496523 us): a double keeps the digits only by luck, and
// picoseconds of an epoch overflow int64. ParseDecimalScaled() turns "123.5"
// with scale 3 into exactly 123500 (nanoseconds).
#ifndef TBPROF_CONVERTERS_CHROME_JSON_JSON_NUMBER_H_
#define TBPROF_CONVERTERS_CHROME_JSON_JSON_NUMBER_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace tbprof::converters::json {

// True if `text` is a JSON number (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
// or one of the non-standard NaN / Infinity / -Infinity that Python writes.
bool IsJsonNumber(absl::string_view text);

// value(text) * 10^scale rounded to the nearest integer (halves away from
// zero), computed exactly from the decimal digits. False if `text` is not a
// finite JSON number or the result does not fit int64. Leading/trailing
// spaces are not allowed.
bool ParseDecimalScaled(absl::string_view text, int scale, int64_t* out);

// Exact integers only: "42", "-7", "7.0", "1e3" succeed; "7.5", "1e-1",
// "9223372036854775808" (overflow) fail.
bool ParseInt64(absl::string_view text, int64_t* out);
// Same for non-negative values up to 2^64-1.
bool ParseUint64(absl::string_view text, uint64_t* out);

// Any JSON number (and NaN/Infinity) as the nearest double.
bool ParseDouble(absl::string_view text, double* out);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_JSON_NUMBER_H_
