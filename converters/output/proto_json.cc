#include "converters/output/proto_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"
#include "converters/output/json_string.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;
using google::protobuf::Reflection;

// protobuf 3.21's JSON printer refuses messages nested deeper than this.
constexpr int kMaxDepth = 64;
constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";
// Limits of google.protobuf.Timestamp / Duration (0001-01-01 .. 9999-12-31,
// +-10000 years).
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;
constexpr int64_t kMaxDurationSeconds = 315576000000;
constexpr int32_t kMaxNanos = 999999999;

// ---------------------------------------------------------------------------
// Scalars.


template <typename Int>
void AppendInt(Int value, std::string* out) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr - buf);
}

template <typename Int>
void AppendQuotedInt(Int value, std::string* out) {
  out->push_back('"');
  AppendInt(value, out);
  out->push_back('"');
}

// Shortest round-trip form of a float or double; NaN and infinities as the
// strings protobuf uses.
template <typename Float>
void AppendFloatingPoint(Float value, std::string* out) {
  if (std::isnan(value)) {
    out->append("\"NaN\"");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof(buf), value);
    out->append(buf, result.ptr - buf);
  }
}

void AppendBase64(absl::string_view bytes, std::string* out) {
  std::string encoded;
  absl::Base64Escape(bytes, &encoded);  // Standard alphabet, with padding.
  out->push_back('"');
  out->append(encoded);
  out->push_back('"');
}

void AppendEnum(const FieldDescriptor* field, int number, std::string* out) {
  const EnumValueDescriptor* value = field->enum_type()->FindValueByNumber(number);
  if (value != nullptr) {
    AppendJsonString(value->name(), out);
  } else {
    AppendInt(number, out);
  }
}

// `"<json_name>":`.
void AppendKey(absl::string_view name, std::string* out) {
  AppendJsonString(name, out);
  out->push_back(':');
}

// Fixed-width decimal, zero-padded.
void AppendPadded(int64_t value, int width, std::string* out) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  const int len = static_cast<int>(result.ptr - buf);
  if (len < width) out->append(width - len, '0');
  out->append(buf, len);
}

// ".fff", ".ffffff" or ".fffffffff" for nanos in (0, 1e9); nothing for 0.
void AppendNanos(int32_t nanos, std::string* out) {
  if (nanos == 0) return;
  out->push_back('.');
  if (nanos % 1000000 == 0) {
    AppendPadded(nanos / 1000000, 3, out);
  } else if (nanos % 1000 == 0) {
    AppendPadded(nanos / 1000, 6, out);
  } else {
    AppendPadded(nanos, 9, out);
  }
}

// ---------------------------------------------------------------------------
// Well-known types.

enum class WellKnown {
  kNone,  // An ordinary message (Empty and descriptor.proto's included).
  kAny,
  kTimestamp,
  kDuration,
  kFieldMask,
  kStruct,
  kValue,
  kListValue,
  kWrapper,
};

WellKnown Classify(const Descriptor* descriptor) {
  if (descriptor->file()->package() != "google.protobuf") return WellKnown::kNone;
  const std::string& name = descriptor->name();
  if (name == "Any") return WellKnown::kAny;
  if (name == "Timestamp") return WellKnown::kTimestamp;
  if (name == "Duration") return WellKnown::kDuration;
  if (name == "FieldMask") return WellKnown::kFieldMask;
  if (name == "Struct") return WellKnown::kStruct;
  if (name == "Value") return WellKnown::kValue;
  if (name == "ListValue") return WellKnown::kListValue;
  if (name == "DoubleValue" || name == "FloatValue" || name == "Int64Value" ||
      name == "UInt64Value" || name == "Int32Value" || name == "UInt32Value" ||
      name == "BoolValue" || name == "StringValue" || name == "BytesValue") {
    return WellKnown::kWrapper;
  }
  return WellKnown::kNone;
}

// Field `number` of `descriptor` if it exists with the given C++ type and
// repeatedness; else nullptr (a look-alike message in a custom pool).
const FieldDescriptor* WellKnownField(const Descriptor* descriptor, int number,
                                      FieldDescriptor::CppType cpp_type, bool repeated) {
  const FieldDescriptor* field = descriptor->FindFieldByNumber(number);
  if (field == nullptr || field->cpp_type() != cpp_type || field->is_repeated() != repeated) {
    return nullptr;
  }
  return field;
}

absl::Status Malformed(const Descriptor* descriptor) {
  return absl::InternalError(
      absl::StrCat("cannot print ", descriptor->full_name(), " as JSON: unexpected fields"));
}

// True for a google.protobuf.Value with no kind set, which protobuf's printer
// leaves out wherever it occurs. `descriptor` is message's.
bool IsUnsetValue(const Message& message, const Descriptor* descriptor) {
  if (Classify(descriptor) != WellKnown::kValue) return false;
  const auto* kind = descriptor->FindOneofByName("kind");
  return kind != nullptr && !message.GetReflection()->HasOneof(message, kind);
}

absl::Status TooDeep(const Message& message) {
  return absl::InternalError(absl::StrCat("cannot print ", message.GetTypeName(),
                                          " as JSON: nested more than ", kMaxDepth,
                                          " levels deep"));
}

// lowerCamelCase form of one FieldMask path; false if the path would not
// read back unchanged (see the header).
bool AppendCamelCasePath(absl::string_view path, std::string* out) {
  bool word_start = true;  // At the start of a '.'-separated segment.
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '_') {
      if (word_start || i + 1 >= path.size()) return false;
      const char next = path[++i];
      if (next < 'a' || next > 'z') return false;
      out->push_back(static_cast<char>(next - 'a' + 'A'));
    } else if (c == '.') {
      if (word_start) return false;
      out->push_back('.');
      word_start = true;
      continue;
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out->push_back(c);
    } else {
      return false;
    }
    word_start = false;
  }
  return !word_start;
}

// ---------------------------------------------------------------------------
// The printer.

class Printer {
 public:
  Printer(const DescriptorPool* pool, std::string* out) : pool_(pool), out_(out) {}

  // Any message, well-known or not, at `depth` levels below the top.
  // `descriptor` is message.GetDescriptor(), passed in because reflection
  // already knows it and GetDescriptor() / GetReflection() are not free.
  absl::Status PrintMessage(const Message& message, const Descriptor* descriptor, int depth) {
    if (depth > kMaxDepth) return TooDeep(message);
    switch (Classify(descriptor)) {
      case WellKnown::kNone:
        out_->push_back('{');
        TBPROF_RETURN_IF_ERROR(
            PrintFields(message, descriptor, message.GetReflection(), depth, /*first=*/true));
        out_->push_back('}');
        return absl::OkStatus();
      case WellKnown::kAny:
        return PrintAny(message, depth);
      case WellKnown::kTimestamp:
        return PrintTimestamp(message);
      case WellKnown::kDuration:
        return PrintDuration(message);
      case WellKnown::kFieldMask:
        return PrintFieldMask(message);
      case WellKnown::kStruct:
        return PrintStruct(message, depth);
      case WellKnown::kValue:
        return PrintValue(message, depth);
      case WellKnown::kListValue:
        return PrintListValue(message, depth);
      case WellKnown::kWrapper:
        return PrintWrapper(message);
    }
    return absl::OkStatus();
  }

 private:
  // The members of an ordinary message's object, without braces; `first`:
  // no member was written before them.
  absl::Status PrintFields(const Message& message, const Descriptor* descriptor,
                           const Reflection* reflection, int depth, bool first) {
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      const bool is_message = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if (!field->is_repeated()) {
        // Oneof members (proto3 optional included) and messages print only
        // when set.
        if ((is_message || field->containing_oneof() != nullptr) &&
            !reflection->HasField(message, field)) {
          continue;
        }
        if (is_message &&
            IsUnsetValue(reflection->GetMessage(message, field), field->message_type())) {
          continue;
        }
      }
      if (!first) out_->push_back(',');
      first = false;
      AppendKey(field->json_name(), out_);
      if (field->is_map()) {
        TBPROF_RETURN_IF_ERROR(PrintMap(message, reflection, field, depth));
      } else if (field->is_repeated()) {
        TBPROF_RETURN_IF_ERROR(PrintRepeated(message, reflection, field, depth));
      } else if (is_message) {
        TBPROF_RETURN_IF_ERROR(PrintMessage(reflection->GetMessage(message, field),
                                            field->message_type(), depth + 1));
      } else {
        PrintSingularScalar(message, reflection, field);
      }
    }
    return absl::OkStatus();
  }

  // `reflection` is message's; `field` is not a message field.
  void PrintSingularScalar(const Message& message, const Reflection* reflection,
                           const FieldDescriptor* field) {
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        AppendInt(reflection->GetInt32(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        AppendInt(reflection->GetUInt32(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        AppendQuotedInt(reflection->GetInt64(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        AppendQuotedInt(reflection->GetUInt64(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        AppendFloatingPoint(reflection->GetDouble(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        AppendFloatingPoint(reflection->GetFloat(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        out_->append(reflection->GetBool(message, field) ? "true" : "false");
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        AppendEnum(field, reflection->GetEnumValue(message, field), out_);
        break;
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& value = reflection->GetStringReference(message, field, &scratch);
        if (field->type() == FieldDescriptor::TYPE_BYTES) {
          AppendBase64(value, out_);
        } else {
          AppendJsonString(value, out_);
        }
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        break;  // Handled by the callers.
    }
  }

  absl::Status PrintRepeated(const Message& message, const Reflection* reflection,
                             const FieldDescriptor* field, int depth) {
    const int size = reflection->FieldSize(message, field);
    out_->push_back('[');
    bool first = true;
    for (int i = 0; i < size; ++i) {
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        const Message& element = reflection->GetRepeatedMessage(message, field, i);
        if (IsUnsetValue(element, field->message_type())) continue;
        if (!first) out_->push_back(',');
        first = false;
        TBPROF_RETURN_IF_ERROR(PrintMessage(element, field->message_type(), depth + 1));
        continue;
      }
      if (!first) out_->push_back(',');
      first = false;
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
          AppendInt(reflection->GetRepeatedInt32(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
          AppendInt(reflection->GetRepeatedUInt32(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          AppendQuotedInt(reflection->GetRepeatedInt64(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          AppendQuotedInt(reflection->GetRepeatedUInt64(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE:
          AppendFloatingPoint(reflection->GetRepeatedDouble(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          AppendFloatingPoint(reflection->GetRepeatedFloat(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          out_->append(reflection->GetRepeatedBool(message, field, i) ? "true" : "false");
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          AppendEnum(field, reflection->GetRepeatedEnumValue(message, field, i), out_);
          break;
        case FieldDescriptor::CPPTYPE_STRING: {
          std::string scratch;
          const std::string& value =
              reflection->GetRepeatedStringReference(message, field, i, &scratch);
          if (field->type() == FieldDescriptor::TYPE_BYTES) {
            AppendBase64(value, out_);
          } else {
            AppendJsonString(value, out_);
          }
          break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE:
          break;  // Handled above.
      }
    }
    out_->push_back(']');
    return absl::OkStatus();
  }

  // One map entry, with its key in a sortable form.
  struct MapEntry {
    int64_t signed_key = 0;
    uint64_t unsigned_key = 0;  // Also bool keys (0 / 1).
    std::string string_key;
    const Message* entry = nullptr;
  };

  absl::Status PrintMap(const Message& message, const Reflection* reflection,
                        const FieldDescriptor* field, int depth) {
    const Descriptor* entry_type = field->message_type();
    const FieldDescriptor* key_field = entry_type->map_key();
    const FieldDescriptor* value_field = entry_type->map_value();
    const int size = reflection->FieldSize(message, field);
    std::vector<MapEntry> entries(size);
    const Reflection* entry_reflection = nullptr;  // The same for all entries.
    for (int i = 0; i < size; ++i) {
      const Message& entry = reflection->GetRepeatedMessage(message, field, i);
      if (entry_reflection == nullptr) entry_reflection = entry.GetReflection();
      MapEntry& e = entries[i];
      e.entry = &entry;
      switch (key_field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
          e.signed_key = entry_reflection->GetInt32(entry, key_field);
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          e.signed_key = entry_reflection->GetInt64(entry, key_field);
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
          e.unsigned_key = entry_reflection->GetUInt32(entry, key_field);
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          e.unsigned_key = entry_reflection->GetUInt64(entry, key_field);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          e.unsigned_key = entry_reflection->GetBool(entry, key_field) ? 1 : 0;
          break;
        case FieldDescriptor::CPPTYPE_STRING:
          e.string_key = entry_reflection->GetString(entry, key_field);
          break;
        default:
          return Malformed(entry_type);  // Not a valid map key type.
      }
    }
    // Sort by key; of entries with equal keys (possible only while the map is
    // edited as a repeated field) the last wins, as when parsing.
    auto key_less = [](const MapEntry& a, const MapEntry& b) {
      if (a.signed_key != b.signed_key) return a.signed_key < b.signed_key;
      if (a.unsigned_key != b.unsigned_key) return a.unsigned_key < b.unsigned_key;
      return a.string_key < b.string_key;
    };
    std::stable_sort(entries.begin(), entries.end(), key_less);

    out_->push_back('{');
    bool first = true;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && !key_less(entries[i], entries[i + 1])) continue;
      const Message& entry = *entries[i].entry;
      const bool is_message = value_field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if (is_message && IsUnsetValue(entry_reflection->GetMessage(entry, value_field),
                                     value_field->message_type())) {
        continue;
      }
      if (!first) out_->push_back(',');
      first = false;
      switch (key_field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
        case FieldDescriptor::CPPTYPE_INT64:
          AppendQuotedInt(entries[i].signed_key, out_);
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
        case FieldDescriptor::CPPTYPE_UINT64:
          AppendQuotedInt(entries[i].unsigned_key, out_);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          out_->append(entries[i].unsigned_key != 0 ? "\"true\"" : "\"false\"");
          break;
        default:
          AppendJsonString(entries[i].string_key, out_);
      }
      out_->push_back(':');
      if (is_message) {
        TBPROF_RETURN_IF_ERROR(PrintMessage(entry_reflection->GetMessage(entry, value_field),
                                            value_field->message_type(), depth + 1));
      } else {
        PrintSingularScalar(entry, entry_reflection, value_field);
      }
    }
    out_->push_back('}');
    return absl::OkStatus();
  }

  absl::Status PrintAny(const Message& any, int depth) {
    const Descriptor* descriptor = any.GetDescriptor();
    const FieldDescriptor* url_field =
        WellKnownField(descriptor, 1, FieldDescriptor::CPPTYPE_STRING, false);
    const FieldDescriptor* value_field =
        WellKnownField(descriptor, 2, FieldDescriptor::CPPTYPE_STRING, false);
    if (url_field == nullptr || value_field == nullptr) return Malformed(descriptor);
    const Reflection* reflection = any.GetReflection();
    std::string url_scratch;
    std::string value_scratch;
    const std::string& url = reflection->GetStringReference(any, url_field, &url_scratch);
    const std::string& value = reflection->GetStringReference(any, value_field, &value_scratch);
    if (value.empty()) {
      // protobuf 3.21 prints just the type of an empty Any (no defaults).
      out_->push_back('{');
      if (!url.empty()) {
        AppendKey("@type", out_);
        AppendJsonString(url, out_);
      }
      out_->push_back('}');
      return absl::OkStatus();
    }
    if (!absl::StartsWith(url, kTypeUrlPrefix)) {
      return absl::InternalError(absl::StrCat("cannot print google.protobuf.Any as JSON: type URL '",
                                              url, "' is not of the form '", kTypeUrlPrefix,
                                              "<type name>'"));
    }
    const std::string type_name(absl::string_view(url).substr(kTypeUrlPrefix.size()));
    const Descriptor* type = pool_->FindMessageTypeByName(type_name);
    if (type == nullptr) {
      return absl::InternalError(absl::StrCat(
          "cannot print google.protobuf.Any as JSON: unknown type '", type_name, "'"));
    }
    const Message* prototype = Factory(type)->GetPrototype(type);
    if (prototype == nullptr) {
      return absl::InternalError(absl::StrCat(
          "cannot print google.protobuf.Any as JSON: no message class for '", type_name, "'"));
    }
    std::unique_ptr<Message> contents(prototype->New());
    if (!contents->ParsePartialFromString(value)) {
      return absl::InternalError(absl::StrCat(
          "cannot print google.protobuf.Any as JSON: its value is not a valid ", type_name));
    }
    if (depth + 1 > kMaxDepth) return TooDeep(*contents);
    out_->push_back('{');
    AppendKey("@type", out_);
    AppendJsonString(url, out_);
    if (Classify(type) == WellKnown::kNone) {
      TBPROF_RETURN_IF_ERROR(PrintFields(*contents, type, contents->GetReflection(), depth + 1,
                                         /*first=*/false));
    } else if (!IsUnsetValue(*contents, type)) {
      out_->push_back(',');
      AppendKey("value", out_);
      TBPROF_RETURN_IF_ERROR(PrintMessage(*contents, type, depth + 1));
    }
    out_->push_back('}');
    return absl::OkStatus();
  }

  // Generated factory for generated types, else a dynamic one.
  MessageFactory* Factory(const Descriptor* type) {
    if (type->file()->pool() == DescriptorPool::generated_pool()) {
      return MessageFactory::generated_factory();
    }
    if (dynamic_factory_ == nullptr) {
      dynamic_factory_ = std::make_unique<google::protobuf::DynamicMessageFactory>();
    }
    return dynamic_factory_.get();
  }

  // Reads (seconds, nanos) of a Timestamp or Duration.
  static bool SecondsAndNanos(const Message& message, int64_t* seconds, int32_t* nanos) {
    const Descriptor* descriptor = message.GetDescriptor();
    const FieldDescriptor* seconds_field =
        WellKnownField(descriptor, 1, FieldDescriptor::CPPTYPE_INT64, false);
    const FieldDescriptor* nanos_field =
        WellKnownField(descriptor, 2, FieldDescriptor::CPPTYPE_INT32, false);
    if (seconds_field == nullptr || nanos_field == nullptr) return false;
    *seconds = message.GetReflection()->GetInt64(message, seconds_field);
    *nanos = message.GetReflection()->GetInt32(message, nanos_field);
    return true;
  }

  absl::Status PrintTimestamp(const Message& message) {
    int64_t seconds;
    int32_t nanos;
    if (!SecondsAndNanos(message, &seconds, &nanos)) return Malformed(message.GetDescriptor());
    if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds || nanos < 0 ||
        nanos > kMaxNanos) {
      return absl::InternalError(absl::StrCat(
          "cannot print google.protobuf.Timestamp as JSON: out of range (seconds ", seconds,
          ", nanos ", nanos, ")"));
    }
    const absl::CivilSecond civil =
        absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
    out_->push_back('"');
    AppendPadded(civil.year(), 4, out_);
    out_->push_back('-');
    AppendPadded(civil.month(), 2, out_);
    out_->push_back('-');
    AppendPadded(civil.day(), 2, out_);
    out_->push_back('T');
    AppendPadded(civil.hour(), 2, out_);
    out_->push_back(':');
    AppendPadded(civil.minute(), 2, out_);
    out_->push_back(':');
    AppendPadded(civil.second(), 2, out_);
    AppendNanos(nanos, out_);
    out_->append("Z\"");
    return absl::OkStatus();
  }

  absl::Status PrintDuration(const Message& message) {
    int64_t seconds;
    int32_t nanos;
    if (!SecondsAndNanos(message, &seconds, &nanos)) return Malformed(message.GetDescriptor());
    if (seconds < -kMaxDurationSeconds || seconds > kMaxDurationSeconds || nanos < -kMaxNanos ||
        nanos > kMaxNanos || (seconds < 0 && nanos > 0) || (seconds > 0 && nanos < 0)) {
      return absl::InternalError(absl::StrCat(
          "cannot print google.protobuf.Duration as JSON: out of range or mixed signs (seconds ",
          seconds, ", nanos ", nanos, ")"));
    }
    out_->push_back('"');
    if (seconds < 0 || nanos < 0) out_->push_back('-');
    AppendInt(seconds < 0 ? -seconds : seconds, out_);
    AppendNanos(nanos < 0 ? -nanos : nanos, out_);
    out_->append("s\"");
    return absl::OkStatus();
  }

  absl::Status PrintFieldMask(const Message& message) {
    const Descriptor* descriptor = message.GetDescriptor();
    const FieldDescriptor* paths =
        WellKnownField(descriptor, 1, FieldDescriptor::CPPTYPE_STRING, true);
    if (paths == nullptr) return Malformed(descriptor);
    const Reflection* reflection = message.GetReflection();
    std::string joined;
    for (int i = 0; i < reflection->FieldSize(message, paths); ++i) {
      std::string scratch;
      const std::string& path = reflection->GetRepeatedStringReference(message, paths, i, &scratch);
      if (i > 0) joined.push_back(',');
      if (!AppendCamelCasePath(path, &joined)) {
        return absl::InternalError(absl::StrCat(
            "cannot print google.protobuf.FieldMask as JSON: path '", path,
            "' has no lowerCamelCase form that reads back unchanged"));
      }
    }
    AppendJsonString(joined, out_);
    return absl::OkStatus();
  }

  absl::Status PrintStruct(const Message& message, int depth) {
    const Descriptor* descriptor = message.GetDescriptor();
    const FieldDescriptor* fields = descriptor->FindFieldByNumber(1);
    if (fields == nullptr || !fields->is_map()) return Malformed(descriptor);
    return PrintMap(message, message.GetReflection(), fields, depth);
  }

  absl::Status PrintListValue(const Message& message, int depth) {
    const Descriptor* descriptor = message.GetDescriptor();
    const FieldDescriptor* values =
        WellKnownField(descriptor, 1, FieldDescriptor::CPPTYPE_MESSAGE, true);
    if (values == nullptr) return Malformed(descriptor);
    return PrintRepeated(message, message.GetReflection(), values, depth);
  }

  absl::Status PrintValue(const Message& message, int depth) {
    const Descriptor* descriptor = message.GetDescriptor();
    const auto* kind = descriptor->FindOneofByName("kind");
    if (kind == nullptr) return Malformed(descriptor);
    const Reflection* reflection = message.GetReflection();
    const FieldDescriptor* field = reflection->GetOneofFieldDescriptor(message, kind);
    if (field == nullptr) {
      // Only reached at the top level; elsewhere an unset Value is left out.
      return absl::InternalError(
          "cannot print google.protobuf.Value as JSON: no kind is set");
    }
    switch (field->number()) {
      case 1:  // null_value
        out_->append("null");
        return absl::OkStatus();
      case 2:  // number_value
      case 3:  // string_value
      case 4:  // bool_value
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) break;
        PrintSingularScalar(message, reflection, field);
        return absl::OkStatus();
      case 5:  // struct_value
      case 6:  // list_value
        if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) break;
        return PrintMessage(reflection->GetMessage(message, field), field->message_type(),
                            depth + 1);
      default:
        break;
    }
    return Malformed(descriptor);
  }

  absl::Status PrintWrapper(const Message& message) {
    const Descriptor* descriptor = message.GetDescriptor();
    const FieldDescriptor* value = descriptor->FindFieldByNumber(1);
    if (value == nullptr || value->is_repeated() ||
        value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      return Malformed(descriptor);
    }
    PrintSingularScalar(message, message.GetReflection(), value);
    return absl::OkStatus();
  }

  const DescriptorPool* pool_;
  std::string* out_;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> dynamic_factory_;
};

}  // namespace

absl::Status AppendMessageAsJson(const Message& message, std::string* out) {
  const size_t old_size = out->size();
  const Descriptor* descriptor = message.GetDescriptor();
  Printer printer(descriptor->file()->pool(), out);
  absl::Status status = printer.PrintMessage(message, descriptor, /*depth=*/0);
  if (!status.ok()) out->resize(old_size);
  return status;
}

absl::StatusOr<std::string> MessageToJson(const Message& message) {
  std::string json;
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(message, &json));
  return json;
}

}  // namespace tbprof::views
