// A fast proto3 JSON printer driven by protobuf reflection.
//
// Prints the JSON value that google::protobuf::util::MessageToJsonString
// (protobuf 3.21) prints with always_print_primitive_fields = true and the
// other options at their defaults, without its intermediate node tree (which
// makes that printer ~100x slower on our views). Output is whitespace-free.
//
// What is printed, per field of a message, in declaration order:
//   - key: FieldDescriptor::json_name() (lowerCamelCase or the json_name
//     option), as a JSON string;
//   - singular scalar, string, bytes and enum fields: always, default values
//     included (proto2 fields: their declared default when unset), except
//     members of a oneof (proto3 `optional` fields included), which are
//     printed only when set;
//   - singular message fields: only when set;
//   - repeated fields: always, `[]` when empty; maps: always, `{}` when empty;
//   - extensions and unknown fields: never.
// Values:
//   - int32, uint32, sint32, fixed32, sfixed32: JSON numbers;
//   - int64, uint64, sint64, fixed64, sfixed64: quoted decimal strings;
//   - double: shortest round-trip number; float: shortest number that reads
//     back as the same float (0.1f prints 0.1); NaN, +inf and -inf as the
//     strings "NaN", "Infinity" and "-Infinity";
//   - bool: true / false; enum: the value's name, or its number if it has none;
//   - string: escaped by AppendJsonString (json_string.h): '"', '\\' and
//     control characters; valid UTF-8 passes through, each byte that is not
//     part of valid UTF-8 becomes \ufffd, so the output is always valid JSON;
//   - bytes: standard base64 with padding;
//   - map: an object whose keys are the map keys as strings (bool keys
//     "true"/"false", integer keys in decimal), entries sorted by key;
//   - proto2 groups: like message fields.
// Well-known types (package google.protobuf), as fields, elements or the top
// level message:
//   - Any: {"@type": url, ...fields of the packed message} for ordinary
//     messages, {"@type": url, "value": <JSON>} for packed well-known types.
//     As in 3.21, an Any whose `value` is empty prints {"@type": url} (no
//     default fields, the type is not resolved), or {} if type_url is empty
//     too. Otherwise type_url must be "type.googleapis.com/<full name>" and
//     the type is looked up in the top-level message's descriptor pool
//     (DescriptorPool::generated_pool() for generated messages).
//   - Timestamp: "1970-01-01T00:00:00Z" with 0, 3, 6 or 9 fraction digits;
//   - Duration: "-1.500s" with 0, 3, 6 or 9 fraction digits;
//   - wrappers (DoubleValue ... BytesValue): the wrapped value;
//   - Struct / ListValue / Value: the JSON they hold; a Value with no kind set
//     is left out wherever it occurs (field, list element, map entry), as
//     3.21 does;
//   - FieldMask: the paths in lowerCamelCase, joined by ",";
//   - Empty and the other messages of the package: as ordinary messages.
// Errors (kInternal; `out` is then left as it was):
//   - Any with a value but an empty or non-"type.googleapis.com/" type_url,
//     a type not in the pool, or a value that does not parse;
//   - Timestamp outside [0001-01-01, 9999-12-31] or nanos outside
//     [0, 999999999]; Duration beyond +-315576000000 s, |nanos| > 999999999 or
//     nanos whose sign differs from the seconds';
//   - a FieldMask path that does not survive the lowerCamelCase round trip
//     (not of the form [a-z0-9]+ words joined by single '_' before a
//     lowercase letter, separated by '.');
//   - a top-level Value with no kind set;
//   - messages nested more than 64 levels below the top level (fields, list
//     elements, map values and Any contents each add a level).
// Where the JSON value differs from protobuf 3.21's (none of these occur in
// tbprof's view protos, except possibly invalid UTF-8 in strings):
//   - invalid UTF-8: 3.21 drops the bytes (and decodes overlong forms);
//   - an Any packed directly in an Any: 3.21 prints the innermost message
//     without default values; we print them as everywhere else;
//   - errors above where 3.21 prints something: an Any value that does not
//     parse (3.21: just "@type"), Duration with mixed signs, FieldMask paths
//     that do not round-trip (3.21: lossy);
//   - 3.21 bugs we do not copy: a top-level FloatValue printed as `true`, a
//     stray "paths"/"values" member in an Any holding a FieldMask/ListValue,
//     list elements after an unset Value garbled, groups printed as null,
//     a proto2 double default of "inf" printed as 0, and a CHECK failure
//     on proto2 messages missing required fields.
// Only the text differs (same JSON value): float digits (we print the
// shortest form, 3.21 up to 9 significant digits), member order (3.21 prints
// map entries in hash order and proto3 `optional` fields last), and escapes
// (3.21 also escapes <, >, DEL, U+2028 and U+2029).
#ifndef TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_H_
#define TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace tbprof::views {

// Appends the JSON form of `message` (rules above) to `out`. On error `out`
// keeps its previous contents. Thread-compatible: concurrent calls on the
// same const message are safe (as for protobuf's const reflection).
absl::Status AppendMessageAsJson(const google::protobuf::Message& message, std::string* out);

// The JSON form of `message` as a new string. Errors: as AppendMessageAsJson.
absl::StatusOr<std::string> MessageToJson(const google::protobuf::Message& message);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_H_
