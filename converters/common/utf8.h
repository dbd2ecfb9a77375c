// UTF-8 hygiene for names copied from any input (JSON, SQLite) into XSpace
// `string` fields
// (protobuf parsers reject invalid UTF-8 there).
#ifndef TBPROF_CONVERTERS_COMMON_UTF8_H_
#define TBPROF_CONVERTERS_COMMON_UTF8_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::converters {

// Returns `s` itself when it is valid UTF-8; otherwise writes a copy with
// each invalid byte replaced by U+FFFD into *scratch and returns a view of it.
absl::string_view SanitizeUtf8(absl::string_view s, std::string* scratch);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_UTF8_H_
