// A small JSON document tree, for the few top-level values of a trace file
// (deviceProperties, distributedInfo, metadata, baseTimeNanoseconds, ...).
// Trace events never go through it: they are parsed by trace_event_parser.h.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_JSON_VALUE_H_
#define TBPROF_CONVERTERS_CHROME_JSON_JSON_VALUE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/chrome_json/json_scan.h"

namespace tbprof::converters::json {

struct JsonValue {
  ValueKind kind = ValueKind::kNull;
  std::string text;  // String contents, number text, or "true"/"false".
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in order.
  std::vector<JsonValue> elements;                         // kArray.

  // Member `key` of an object (last one if repeated), or nullptr.
  const JsonValue* Find(absl::string_view key) const;
  // Numbers and quoted numbers as exact integers.
  bool AsInt64(int64_t* out) const;
  bool AsDouble(double* out) const;
  // String contents ("" for other kinds).
  absl::string_view AsString() const {
    return kind == ValueKind::kString ? absl::string_view(text) : absl::string_view();
  }
};

// Parses a complete JSON value (surrounding whitespace allowed). Errors:
// kInvalidArgument "byte N: <reason>" with N relative to `json`.
absl::StatusOr<JsonValue> ParseJsonValue(absl::string_view json);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_JSON_VALUE_H_
