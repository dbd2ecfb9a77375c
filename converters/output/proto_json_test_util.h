// Helpers of the proto_json tests: protobuf's own printer with the options
// ours mirrors, a JSON-aware diff and NaN-aware message equality.
#ifndef TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_TEST_UTIL_H_
#define TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_TEST_UTIL_H_

#include "converters/output/proto_json.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/empty.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/timestamp.pb.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/protobuf/wrappers.pb.h"
#include "gtest/gtest.h"
#include "proto/input_pipeline.pb.h"
#include "proto/kernel_stats.pb.h"
#include "proto/memory_profile.pb.h"
#include "proto/op_stats.pb.h"
#include "proto/overview_page.pb.h"
#include "proto/steps_db.pb.h"
#include "proto/xplane.pb.h"


namespace tbprof::views::proto_json_test {

using google::protobuf::Any;
using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::DynamicMessageFactory;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptorProto;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::Value;
using ::testing::HasSubstr;
namespace pb_util = google::protobuf::util;
namespace tfp = tensorflow::profiler;

// ---------------------------------------------------------------------------
// Comparison with protobuf's printer.

// MessageToJsonString with the options our printer mirrors.
inline std::string ProtobufJson(const Message& message) {
  pb_util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = pb_util::MessageToJsonString(message, &json, options);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return json;
}

// Differences between two parsed JSON values ("" if none), as "path: what"
// lines. Numbers are equal when they are equal as doubles or as floats: a
// float field prints as the shortest decimal that reads back as the float
// (ours) or with 9 significant digits (protobuf), which differ as doubles.
// Exactness of all numbers is checked separately by reading our JSON back
// into the message.
inline std::string JsonDiff(const Value& a, const Value& b, const std::string& path = "$") {
  if (a.kind_case() != b.kind_case()) {
    return absl::StrCat(path, ": ", a.ShortDebugString(), " vs ", b.ShortDebugString(), "\n");
  }
  switch (a.kind_case()) {
    case Value::kNumberValue: {
      const double x = a.number_value();
      const double y = b.number_value();
      if (x == y || static_cast<float>(x) == static_cast<float>(y)) return "";
      return absl::StrCat(path, ": ", x, " vs ", y, "\n");
    }
    case Value::kStringValue:
      return a.string_value() == b.string_value()
                 ? ""
                 : absl::StrCat(path, ": \"", a.string_value(), "\" vs \"", b.string_value(),
                                "\"\n");
    case Value::kBoolValue:
      return a.bool_value() == b.bool_value() ? "" : absl::StrCat(path, ": bool differs\n");
    case Value::kStructValue: {
      std::string diff;
      const auto& fa = a.struct_value().fields();
      const auto& fb = b.struct_value().fields();
      for (const auto& [key, value] : fa) {
        auto it = fb.find(key);
        if (it == fb.end()) {
          absl::StrAppend(&diff, path, ".", key, ": only in ours\n");
        } else {
          absl::StrAppend(&diff, JsonDiff(value, it->second, absl::StrCat(path, ".", key)));
        }
      }
      for (const auto& [key, value] : fb) {
        if (fa.find(key) == fa.end()) absl::StrAppend(&diff, path, ".", key, ": only in protobuf's\n");
      }
      return diff;
    }
    case Value::kListValue: {
      const auto& la = a.list_value().values();
      const auto& lb = b.list_value().values();
      if (la.size() != lb.size()) {
        return absl::StrCat(path, ": ", la.size(), " vs ", lb.size(), " elements\n");
      }
      std::string diff;
      for (int i = 0; i < la.size(); ++i) {
        absl::StrAppend(&diff, JsonDiff(la[i], lb[i], absl::StrCat(path, "[", i, "]")));
      }
      return diff;
    }
    default:
      return "";
  }
}

// Equality that treats NaN as equal to NaN and an unset field as equal to
// its default value (JSON cannot tell them apart for proto2 fields or -0.0);
// maps compare by key, Any by contents.
inline bool EqualsNanAware(const Message& a, const Message& b, std::string* report) {
  pb_util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  pb_util::MessageDifferencer differencer;
  differencer.set_message_field_comparison(pb_util::MessageDifferencer::EQUIVALENT);
  differencer.set_field_comparator(&comparator);
  differencer.ReportDifferencesToString(report);
  return differencer.Compare(a, b);
}

// Parses `json` (a complete JSON text) as a google.protobuf.Value.
inline Value ParseJson(const std::string& json) {
  Value value;
  const auto status = pb_util::JsonStringToMessage(json, &value);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return value;
}

// Our JSON reads back into a message equal to `message` (unless
// !check_round_trip: for messages with parts JSON cannot hold), and it is the
// same JSON value (same keys, same values) as protobuf's. Returns our JSON.
inline std::string ExpectMatchesProtobuf(const Message& message, bool check_round_trip = true) {
  SCOPED_TRACE(message.GetTypeName());
  absl::StatusOr<std::string> ours = MessageToJson(message);
  EXPECT_TRUE(ours.ok()) << ours.status();
  if (!ours.ok()) return "";
  const std::string reference = ProtobufJson(message);

  if (check_round_trip) {
    std::unique_ptr<Message> copy(message.New());
    const auto status = pb_util::JsonStringToMessage(*ours, copy.get());
    EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << *ours;
    std::string report;
    EXPECT_TRUE(EqualsNanAware(*copy, message, &report)) << report << "\nours: " << *ours;
  }

  EXPECT_EQ(JsonDiff(ParseJson(*ours), ParseJson(reference)), "")
      << "ours:     " << *ours << "\nprotobuf: " << reference;
  return *ours;
}

inline std::string Json(const Message& message) {
  absl::StatusOr<std::string> json = MessageToJson(message);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : "";
}


}  // namespace tbprof::views::proto_json_test

#endif  // TBPROF_CONVERTERS_OUTPUT_PROTO_JSON_TEST_UTIL_H_
