// JSON string literals from arbitrary bytes: the one escaping routine of the
// views' JSON outputs (trace-viewer JSON, proto3 JSON of the view protos).
#ifndef TBPROF_CONVERTERS_OUTPUT_JSON_STRING_H_
#define TBPROF_CONVERTERS_OUTPUT_JSON_STRING_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::views {

// Length of the valid UTF-8 sequence starting at s[i] (a byte >= 0x80), or 0
// if the bytes there are not valid UTF-8 (truncated or overlong sequences,
// surrogates and code points above U+10FFFF are invalid).
size_t ValidUtf8Length(absl::string_view s, size_t i);

// Appends `s` as a quoted JSON string. Escapes '"' and '\\' and the control
// characters below 0x20 (\n, \r, \t short, others as \u00XX); valid UTF-8 is
// copied; every byte that is not part of valid UTF-8 becomes \ufffd, so the
// output is valid JSON whatever the input bytes. Plain ASCII is scanned
// eight bytes at a time.
void AppendJsonString(absl::string_view s, std::string* out);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_OUTPUT_JSON_STRING_H_
