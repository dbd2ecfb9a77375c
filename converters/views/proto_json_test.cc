#include "converters/views/proto_json.h"

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

namespace tbprof::views {
namespace {

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
std::string ProtobufJson(const Message& message) {
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
std::string JsonDiff(const Value& a, const Value& b, const std::string& path = "$") {
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
bool EqualsNanAware(const Message& a, const Message& b, std::string* report) {
  pb_util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  pb_util::MessageDifferencer differencer;
  differencer.set_message_field_comparison(pb_util::MessageDifferencer::EQUIVALENT);
  differencer.set_field_comparator(&comparator);
  differencer.ReportDifferencesToString(report);
  return differencer.Compare(a, b);
}

// Parses `json` (a complete JSON text) as a google.protobuf.Value.
Value ParseJson(const std::string& json) {
  Value value;
  const auto status = pb_util::JsonStringToMessage(json, &value);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return value;
}

// Our JSON reads back into a message equal to `message` (unless
// !check_round_trip: for messages with parts JSON cannot hold), and it is the
// same JSON value (same keys, same values) as protobuf's. Returns our JSON.
std::string ExpectMatchesProtobuf(const Message& message, bool check_round_trip = true) {
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

std::string Json(const Message& message) {
  absl::StatusOr<std::string> json = MessageToJson(message);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : "";
}

// ---------------------------------------------------------------------------
// Fixed cases from the view protos.

TEST(ProtoJsonTest, EmptyViewsPrintDefaultsAndEmptyContainers) {
  EXPECT_EQ(ExpectMatchesProtobuf(tfp::MemoryProfile()),
            R"({"memoryProfilePerAllocator":{},"numHosts":0,"memoryIds":[],"version":0,)"
            R"("hloModules":[]})");
  EXPECT_EQ(ExpectMatchesProtobuf(tfp::KernelStatsDb()), R"({"reports":[]})");
  // Unset message fields are left out.
  EXPECT_EQ(ExpectMatchesProtobuf(tfp::OverviewPage()), "{}");
  ExpectMatchesProtobuf(tfp::InputPipelineAnalysisResult());
  ExpectMatchesProtobuf(tfp::StepDatabaseResult());
  ExpectMatchesProtobuf(tfp::OpStats());
  ExpectMatchesProtobuf(tfp::XSpace());
}

TEST(ProtoJsonTest, SetButEmptyMessagesPrintTheirDefaults) {
  tfp::OverviewPage page;
  page.mutable_recommendation();
  page.mutable_analysis()->add_top_device_ops();
  page.mutable_run_environment()->mutable_host_independent_job_info();
  const std::string json = ExpectMatchesProtobuf(page);
  EXPECT_THAT(json, HasSubstr(R"("recommendation":{"bottleneck":"","statement":"","inputTips":[])"));
  EXPECT_THAT(json, HasSubstr(R"("changeList":"0")"));
}

TEST(ProtoJsonTest, ScalarKinds) {
  tfp::KernelReport report;
  report.set_name("volta_sgemm");
  report.set_registers_per_thread(std::numeric_limits<uint32_t>::max());
  report.add_block_dim(256);
  report.add_block_dim(1);
  report.set_total_duration_ns(std::numeric_limits<uint64_t>::max());
  report.set_is_kernel_using_tensor_core(true);
  report.set_occupancy_pct(0.1f);
  const std::string json = ExpectMatchesProtobuf(report);
  EXPECT_EQ(json,
            R"({"name":"volta_sgemm","registersPerThread":4294967295,"staticShmemBytes":0,)"
            R"("dynamicShmemBytes":0,"blockDim":[256,1],"gridDim":[],)"
            R"("totalDurationNs":"18446744073709551615","minDurationNs":"0","maxDurationNs":"0",)"
            R"("isKernelUsingTensorCore":true,"isOpTensorCoreEligible":false,"opName":"",)"
            R"("occurrences":0,"occupancyPct":0.1})");

  tfp::MemoryActivityMetadata metadata;
  metadata.set_memory_activity(tfp::DEALLOCATION);
  metadata.set_requested_bytes(std::numeric_limits<int64_t>::min());
  metadata.set_step_id(-1);
  metadata.set_address(0xdeadbeefcafeULL);
  EXPECT_THAT(ExpectMatchesProtobuf(metadata),
              HasSubstr(R"({"memoryActivity":"DEALLOCATION","requestedBytes":"-9223372036854775808")"));
  // An enum number without a name prints as the number.
  metadata.set_memory_activity(static_cast<tfp::MemoryActivity>(77));
  EXPECT_THAT(ExpectMatchesProtobuf(metadata), HasSubstr(R"("memoryActivity":77)"));
}

TEST(ProtoJsonTest, FloatingPointSpecialValues) {
  const double doubles[] = {0.0,
                            -0.0,
                            1.5,
                            0.1,
                            1e300,
                            -2.5e-308,
                            5e-324,
                            123456789012345678.0,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
  for (double d : doubles) {
    tfp::MemoryAggregationStats stats;
    stats.set_fragmentation(d);
    ExpectMatchesProtobuf(stats);
  }
  tfp::MemoryAggregationStats stats;
  stats.set_fragmentation(std::nan(""));
  EXPECT_THAT(Json(stats), HasSubstr(R"("fragmentation":"NaN")"));
  stats.set_fragmentation(std::numeric_limits<double>::infinity());
  EXPECT_THAT(Json(stats), HasSubstr(R"("fragmentation":"Infinity")"));
  stats.set_fragmentation(-std::numeric_limits<double>::infinity());
  EXPECT_THAT(Json(stats), HasSubstr(R"("fragmentation":"-Infinity")"));

  const float floats[] = {0.1f,
                          0.123456789f,
                          1e-40f,
                          3e38f,
                          -0.0f,
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::infinity()};
  for (float f : floats) {
    tfp::KernelReport report;
    report.set_occupancy_pct(f);
    ExpectMatchesProtobuf(report);
  }
  tfp::KernelReport report;
  report.set_occupancy_pct(0.123456789f);
  EXPECT_THAT(Json(report), HasSubstr(R"("occupancyPct":0.12345679})"));
  report.set_occupancy_pct(std::numeric_limits<float>::infinity());
  EXPECT_THAT(Json(report), HasSubstr(R"("occupancyPct":"Infinity")"));
}

TEST(ProtoJsonTest, StringEscapesAndUnicode) {
  tfp::KernelReport report;
  report.set_name(std::string("q\"b\\s/\n\r\t\b\f\x01\x1f\x7f <>&'") + std::string(1, '\0') +
                  "|\xC3\xA9|\xE6\x97\xA5\xE6\x9C\xAC|\xF0\x9F\x98\x80|\xE2\x80\xA8|");
  const std::string json = ExpectMatchesProtobuf(report);
  EXPECT_THAT(json, HasSubstr(R"("name":"q\"b\\s/\n\r\t\u0008\u000c\u0001\u001f)"
                              "\x7f <>&'\\u0000|\xC3\xA9|\xE6\x97\xA5\xE6\x9C\xAC|"
                              "\xF0\x9F\x98\x80|\xE2\x80\xA8|\""));
}

TEST(ProtoJsonTest, EscapesAtEveryOffsetOfLongStrings) {
  // The printer skips plain ASCII eight bytes at a time; put each kind of
  // character at every offset of such a run.
  const std::string specials[] = {"\"", "\\", "\n", "\x01", "\x1f", std::string(1, '\0'),
                                  "\x7f", " ", "~", "\xC3\xA9", "\xE2\x80\xA8",
                                  "\xF0\x9F\x98\x80"};
  for (const std::string& special : specials) {
    for (size_t offset = 0; offset <= 17; ++offset) {
      tfp::KernelReport report;
      report.set_name(std::string(offset, 'a') + special + std::string(17 - offset, 'b'));
      SCOPED_TRACE(absl::StrCat("offset ", offset, " of ", report.name().size()));
      ExpectMatchesProtobuf(report);
      if (HasFailure()) return;
    }
  }
  for (size_t offset = 0; offset <= 17; ++offset) {
    tfp::KernelReport report;
    report.set_name(std::string(offset, 'a') + "\xFF" + std::string(17 - offset, 'b'));
    tfp::KernelReport copy;
    ASSERT_TRUE(pb_util::JsonStringToMessage(Json(report), &copy).ok());
    EXPECT_EQ(copy.name(), std::string(offset, 'a') + "\xEF\xBF\xBD" + std::string(17 - offset, 'b'));
  }
}

TEST(ProtoJsonTest, InvalidUtf8BecomesReplacementCharacters) {
  // Stray continuation byte, bytes never valid, a truncated sequence, an
  // overlong NUL and an encoded surrogate: each byte becomes U+FFFD (protobuf
  // drops such bytes instead, or decodes the overlong NUL).
  tfp::KernelReport report;
  report.set_name("a\x80" "b\xFF\xFE" "c\xE2\x82" "d\xC0\x80" "e\xED\xA0\x80" "f");
  report.set_op_name("ok \xC3\xA9");
  const std::string json = Json(report);
  const std::string escaped = "\\ufffd";  // The escape for U+FFFD.
  EXPECT_THAT(json, HasSubstr("\"name\":\"a" + escaped + "b" + escaped + escaped + "c" + escaped +
                              escaped + "d" + escaped + escaped + "e" + escaped + escaped +
                              escaped + "f\""));
  const std::string fffd = "\xEF\xBF\xBD";
  tfp::KernelReport expected = report;
  expected.set_name("a" + fffd + "b" + fffd + fffd + "c" + fffd + fffd + "d" + fffd + fffd + "e" +
                    fffd + fffd + fffd + "f");
  tfp::KernelReport copy;
  ASSERT_TRUE(pb_util::JsonStringToMessage(json, &copy).ok()) << json;
  std::string report_text;
  EXPECT_TRUE(EqualsNanAware(copy, expected, &report_text)) << report_text;
  // Everything else is as protobuf prints it.
  Value ours = ParseJson(json);
  Value reference = ParseJson(ProtobufJson(report));
  (*ours.mutable_struct_value()->mutable_fields())["name"].set_string_value("");
  (*reference.mutable_struct_value()->mutable_fields())["name"].set_string_value("");
  EXPECT_EQ(JsonDiff(ours, reference), "");
}

TEST(ProtoJsonTest, BytesAreStandardBase64WithPadding) {
  tfp::XStat stat;
  stat.set_bytes_value(std::string("\xFB\xFF\xFE\x00", 4));
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","bytesValue":"+//+AA=="})");
  stat.set_bytes_value("ab");
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","bytesValue":"YWI="})");
  stat.set_bytes_value("");
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","bytesValue":""})");
  tfp::XEventMetadata metadata;
  metadata.set_metadata("xyz");
  EXPECT_THAT(ExpectMatchesProtobuf(metadata), HasSubstr(R"("metadata":"eHl6")"));
}

TEST(ProtoJsonTest, OneofMembersPrintOnlyWhenSet) {
  tfp::XStat stat;
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0"})");
  stat.set_double_value(0);
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","doubleValue":0})");
  stat.set_str_value("");
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","strValue":""})");
  stat.set_ref_value(7);
  EXPECT_EQ(ExpectMatchesProtobuf(stat), R"({"metadataId":"0","refValue":"7"})");
  tfp::XEvent event;
  event.set_num_occurrences(3);
  EXPECT_EQ(ExpectMatchesProtobuf(event),
            R"({"metadataId":"0","numOccurrences":"3","durationPs":"0","stats":[]})");
}

TEST(ProtoJsonTest, MapsAreSortedByKey) {
  tfp::GenericStepBreakdown breakdown;
  (*breakdown.mutable_type_ps())[10] = 1;
  (*breakdown.mutable_type_ps())[-3] = std::numeric_limits<uint64_t>::max();
  (*breakdown.mutable_type_ps())[2] = 0;
  (*breakdown.mutable_category_ps())["b\"q"] = 5;
  (*breakdown.mutable_category_ps())["a"] = 6;
  (*breakdown.mutable_category_ps())[""] = 7;
  EXPECT_EQ(ExpectMatchesProtobuf(breakdown),
            R"({"typePs":{"-3":"18446744073709551615","2":"0","10":"1"},)"
            R"("categoryPs":{"":"7","a":"6","b\"q":"5"}})");

  tfp::XPlane plane;
  (*plane.mutable_event_metadata())[std::numeric_limits<int64_t>::min()].set_name("min");
  (*plane.mutable_event_metadata())[5];
  (*plane.mutable_stat_metadata())[1].set_description("d");
  EXPECT_THAT(ExpectMatchesProtobuf(plane),
              HasSubstr(R"("eventMetadata":{"-9223372036854775808":{"id":"0","name":"min")"));

  tfp::PerCoreStepInfo step;
  (*step.mutable_step_info_per_core())[4000000000u].set_step_num(1);
  (*step.mutable_step_info_per_core())[1].set_step_name("s");
  EXPECT_THAT(ExpectMatchesProtobuf(step),
              HasSubstr(R"("stepInfoPerCore":{"1":{"stepNum":0,"stepName":"s")"));

  tfp::OverviewPageRunEnvironment env;
  (*env.mutable_hostnames())["host-b"] = false;
  (*env.mutable_hostnames())["host-a"] = true;
  EXPECT_THAT(ExpectMatchesProtobuf(env),
              HasSubstr(R"("hostnames":{"host-a":true,"host-b":false})"));

  tfp::MemoryProfile profile;
  (*profile.mutable_memory_profile_per_allocator())["GPU_0_bfc"].add_active_allocations();
  (*profile.mutable_memory_profile_per_allocator())["CPU"];
  ExpectMatchesProtobuf(profile);
}

TEST(ProtoJsonTest, DuplicateMapEntriesKeepTheLast) {
  // Entries added through reflection stay duplicated until the map is read.
  tfp::GenericStepBreakdown breakdown;
  const Reflection* reflection = breakdown.GetReflection();
  const FieldDescriptor* field = breakdown.GetDescriptor()->FindFieldByName("category_ps");
  for (uint64_t value : {1, 2}) {
    Message* entry = reflection->AddMessage(&breakdown, field);
    entry->GetReflection()->SetString(entry, entry->GetDescriptor()->map_key(), "k");
    entry->GetReflection()->SetUInt64(entry, entry->GetDescriptor()->map_value(), value);
  }
  EXPECT_EQ(Json(breakdown), R"({"typePs":{},"categoryPs":{"k":"2"}})");
}

TEST(ProtoJsonTest, AnyExpandsThePackedMessage) {
  tfp::GenericStepBreakdown breakdown;
  (*breakdown.mutable_type_ps())[1] = 100;
  tfp::StepInfoResult step;
  step.mutable_step_breakdown()->PackFrom(breakdown);
  EXPECT_THAT(ExpectMatchesProtobuf(step),
              HasSubstr(R"("stepBreakdown":{"@type":"type.googleapis.com/)"
                        R"(tensorflow.profiler.GenericStepBreakdown","typePs":{"1":"100"},)"
                        R"("categoryPs":{}})"));

  tfp::InputPipelineAnalysisResult result;
  tfp::PerGenericStepDetails details;
  details.set_step_number(3);
  details.set_step_time_ms(std::numeric_limits<double>::quiet_NaN());
  result.add_step_details()->PackFrom(details);
  result.add_step_details();  // Empty Any: {}.
  result.add_step_details()->PackFrom(tfp::PerGenericStepDetails());  // Only "@type".
  tfp::BottleneckAnalysis analysis;
  analysis.set_input_classification("host");
  result.mutable_recommendation()->mutable_bottleneck_analysis()->PackFrom(analysis);
  tfp::GenericStepTimeBreakdown time_breakdown;
  time_breakdown.mutable_host_compile_ms_summary();
  result.mutable_step_time_breakdown()->PackFrom(time_breakdown);
  const std::string json = ExpectMatchesProtobuf(result);
  EXPECT_THAT(json, HasSubstr(R"({},{"@type":"type.googleapis.com/)"
                              R"(tensorflow.profiler.PerGenericStepDetails"}])"));

  tfp::OverviewPage page;
  tfp::GenericRecommendation recommendation;
  recommendation.set_precision_statement("use fp16");
  page.mutable_recommendation()->mutable_recommendation()->PackFrom(recommendation);
  ExpectMatchesProtobuf(page);

  // An Any in an Any: protobuf 3.21 prints the innermost message without
  // default values ("categoryPs":{} is missing); we print them as anywhere.
  Any inner;
  inner.PackFrom(breakdown);
  Any outer;
  outer.PackFrom(inner);
  EXPECT_EQ(Json(outer),
            R"({"@type":"type.googleapis.com/google.protobuf.Any","value":)"
            R"({"@type":"type.googleapis.com/tensorflow.profiler.GenericStepBreakdown",)"
            R"("typePs":{"1":"100"},"categoryPs":{}}})");
  EXPECT_EQ(ProtobufJson(outer),
            R"({"@type":"type.googleapis.com/google.protobuf.Any","value":)"
            R"({"@type":"type.googleapis.com/tensorflow.profiler.GenericStepBreakdown",)"
            R"("typePs":{"1":"100"}}})");
  // A well-known type in an Any.
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(10);
  timestamp.set_nanos(1);
  outer.PackFrom(timestamp);
  EXPECT_EQ(ExpectMatchesProtobuf(outer),
            R"({"@type":"type.googleapis.com/google.protobuf.Timestamp",)"
            R"("value":"1970-01-01T00:00:10.000000001Z"})");

  // An empty value prints just the type, resolvable or not (and protobuf's
  // parser refuses the unresolvable one).
  outer.Clear();
  outer.set_type_url("type.googleapis.com/no.such.Type");
  EXPECT_EQ(Json(outer), R"({"@type":"type.googleapis.com/no.such.Type"})");
  EXPECT_EQ(Json(outer), ProtobufJson(outer));
}

TEST(ProtoJsonTest, AnyErrorsLeaveTheOutputUnchanged) {
  tfp::StepInfoResult step;
  tfp::GenericStepBreakdown breakdown;
  (*breakdown.mutable_category_ps())["x"] = 1;
  step.mutable_step_breakdown()->PackFrom(breakdown);

  std::string out = "prefix";
  step.mutable_step_breakdown()->set_type_url("type.googleapis.com/no.such.Type");
  absl::Status status = AppendMessageAsJson(step, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("no.such.Type"));
  EXPECT_EQ(out, "prefix");

  step.mutable_step_breakdown()->set_type_url("example.com/tensorflow.profiler.GenericStepBreakdown");
  EXPECT_EQ(AppendMessageAsJson(step, &out).code(), absl::StatusCode::kInternal);
  step.mutable_step_breakdown()->set_type_url("");
  EXPECT_EQ(AppendMessageAsJson(step, &out).code(), absl::StatusCode::kInternal);
  step.mutable_step_breakdown()->set_type_url(
      "type.googleapis.com/tensorflow.profiler.GenericStepBreakdown");
  step.mutable_step_breakdown()->set_value("\xFF\xFF\xFF");
  EXPECT_EQ(AppendMessageAsJson(step, &out).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(out, "prefix");

  // MessageToJsonString fails on the first two as well.
  pb_util::JsonPrintOptions options;
  std::string unused;
  step.mutable_step_breakdown()->PackFrom(breakdown);
  step.mutable_step_breakdown()->set_type_url("type.googleapis.com/no.such.Type");
  EXPECT_FALSE(pb_util::MessageToJsonString(step, &unused, options).ok());
}

TEST(ProtoJsonTest, AppendsAfterExistingText) {
  std::string out = "{\"a\":";
  ASSERT_TRUE(AppendMessageAsJson(tfp::KernelStatsDb(), &out).ok());
  EXPECT_EQ(out, R"({"a":{"reports":[]})");
}

// ---------------------------------------------------------------------------
// Well-known types.

TEST(ProtoJsonTest, WellKnownTypesAtTheTopLevel) {
  google::protobuf::Timestamp timestamp;
  EXPECT_EQ(ExpectMatchesProtobuf(timestamp), R"("1970-01-01T00:00:00Z")");
  timestamp.set_seconds(951782400);  // 2000-02-29.
  timestamp.set_nanos(10);
  EXPECT_EQ(ExpectMatchesProtobuf(timestamp), R"("2000-02-29T00:00:00.000000010Z")");
  timestamp.set_seconds(-1);
  timestamp.set_nanos(999000);
  EXPECT_EQ(ExpectMatchesProtobuf(timestamp), R"("1969-12-31T23:59:59.000999Z")");
  timestamp.set_seconds(-62135596800);
  timestamp.set_nanos(0);
  EXPECT_EQ(ExpectMatchesProtobuf(timestamp), R"("0001-01-01T00:00:00Z")");
  timestamp.set_seconds(253402300799);
  timestamp.set_nanos(999999999);
  EXPECT_EQ(ExpectMatchesProtobuf(timestamp), R"("9999-12-31T23:59:59.999999999Z")");
  timestamp.set_seconds(253402300800);
  EXPECT_EQ(MessageToJson(timestamp).status().code(), absl::StatusCode::kInternal);
  timestamp.set_seconds(0);
  timestamp.set_nanos(-1);
  EXPECT_EQ(MessageToJson(timestamp).status().code(), absl::StatusCode::kInternal);

  google::protobuf::Duration duration;
  EXPECT_EQ(ExpectMatchesProtobuf(duration), R"("0s")");
  duration.set_seconds(-1);
  duration.set_nanos(-500000000);
  EXPECT_EQ(ExpectMatchesProtobuf(duration), R"("-1.500s")");
  duration.set_seconds(0);
  duration.set_nanos(-1);
  EXPECT_EQ(ExpectMatchesProtobuf(duration), R"("-0.000000001s")");
  duration.set_seconds(315576000000);
  duration.set_nanos(0);
  EXPECT_EQ(ExpectMatchesProtobuf(duration), R"("315576000000s")");
  duration.set_seconds(3);
  duration.set_nanos(1000);
  EXPECT_EQ(ExpectMatchesProtobuf(duration), R"("3.000001s")");
  duration.set_nanos(-1);  // Mixed signs: protobuf prints nonsense.
  EXPECT_EQ(MessageToJson(duration).status().code(), absl::StatusCode::kInternal);
  duration.set_seconds(315576000001);
  duration.set_nanos(0);
  EXPECT_EQ(MessageToJson(duration).status().code(), absl::StatusCode::kInternal);

  google::protobuf::Int64Value int64_value;
  int64_value.set_value(-3);
  EXPECT_EQ(ExpectMatchesProtobuf(int64_value), R"("-3")");
  google::protobuf::UInt32Value uint32_value;
  EXPECT_EQ(ExpectMatchesProtobuf(uint32_value), "0");
  google::protobuf::DoubleValue double_value;
  double_value.set_value(std::numeric_limits<double>::infinity());
  EXPECT_EQ(ExpectMatchesProtobuf(double_value), R"("Infinity")");
  google::protobuf::BytesValue bytes_value;
  bytes_value.set_value("ab");
  EXPECT_EQ(ExpectMatchesProtobuf(bytes_value), R"("YWI=")");
  google::protobuf::StringValue string_value;
  string_value.set_value("x\n");
  EXPECT_EQ(ExpectMatchesProtobuf(string_value), R"("x\n")");
  google::protobuf::BoolValue bool_value;
  bool_value.set_value(true);
  EXPECT_EQ(ExpectMatchesProtobuf(bool_value), "true");
  // protobuf 3.21 prints a top-level FloatValue as `true`; we print the value.
  google::protobuf::FloatValue float_value;
  float_value.set_value(0.5f);
  EXPECT_EQ(Json(float_value), "0.5");

  google::protobuf::Struct json_struct;
  EXPECT_EQ(ExpectMatchesProtobuf(json_struct), "{}");
  (*json_struct.mutable_fields())["k"].set_bool_value(true);
  (*json_struct.mutable_fields())["n"].set_null_value(google::protobuf::NULL_VALUE);
  auto* list = (*json_struct.mutable_fields())["list"].mutable_list_value();
  list->add_values()->set_number_value(1.5);
  list->add_values()->set_string_value("s");
  (*list->add_values()->mutable_struct_value()->mutable_fields())["z"].set_number_value(-0.0);
  list->add_values()->mutable_list_value();
  EXPECT_EQ(ExpectMatchesProtobuf(json_struct),
            R"({"k":true,"list":[1.5,"s",{"z":-0},[]],"n":null})");
  // Values with no kind are left out. (protobuf 3.21 drops the key in a
  // Struct too, but garbles the rest of a list that holds one.) NaN prints as
  // "NaN", as in protobuf (whose parser then refuses it).
  (*json_struct.mutable_fields())["unset"];
  list->add_values();
  list->add_values()->set_number_value(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(Json(json_struct), R"({"k":true,"list":[1.5,"s",{"z":-0},[],"NaN"],"n":null})");

  Value value;
  EXPECT_EQ(MessageToJson(value).status().code(), absl::StatusCode::kInternal);
  value.set_string_value("s");
  EXPECT_EQ(ExpectMatchesProtobuf(value), R"("s")");
  value.set_null_value(google::protobuf::NULL_VALUE);
  EXPECT_EQ(ExpectMatchesProtobuf(value), "null");
  value.mutable_list_value();
  EXPECT_EQ(ExpectMatchesProtobuf(value), "[]");

  google::protobuf::FieldMask mask;
  EXPECT_EQ(ExpectMatchesProtobuf(mask), R"("")");
  mask.add_paths("foo_bar.baz_qux");
  mask.add_paths("x1");
  EXPECT_EQ(ExpectMatchesProtobuf(mask), R"("fooBar.bazQux,x1")");
  for (const char* bad : {"fooBar", "foo__bar", "foo_1", "_foo", "foo_", "a..b", "a,b", ""}) {
    google::protobuf::FieldMask bad_mask;
    bad_mask.add_paths(bad);
    EXPECT_EQ(MessageToJson(bad_mask).status().code(), absl::StatusCode::kInternal) << bad;
  }

  EXPECT_EQ(ExpectMatchesProtobuf(google::protobuf::Empty()), "{}");
}

TEST(ProtoJsonTest, WellKnownTypesInAny) {
  Any any;
  google::protobuf::Int64Value int64_value;
  int64_value.set_value(-3);
  any.PackFrom(int64_value);
  EXPECT_EQ(ExpectMatchesProtobuf(any),
            R"({"@type":"type.googleapis.com/google.protobuf.Int64Value","value":"-3"})");
  google::protobuf::Struct json_struct;
  (*json_struct.mutable_fields())["a"].set_number_value(1);
  any.PackFrom(json_struct);
  EXPECT_EQ(ExpectMatchesProtobuf(any),
            R"({"@type":"type.googleapis.com/google.protobuf.Struct","value":{"a":1}})");
  any.PackFrom(google::protobuf::Empty());
  EXPECT_EQ(ExpectMatchesProtobuf(any), R"({"@type":"type.googleapis.com/google.protobuf.Empty"})");
  google::protobuf::Duration duration;
  duration.set_seconds(2);
  any.PackFrom(duration);
  EXPECT_EQ(ExpectMatchesProtobuf(any),
            R"({"@type":"type.googleapis.com/google.protobuf.Duration","value":"2s"})");
  // protobuf 3.21 adds a stray "paths":[] / "values":[] member to these two.
  google::protobuf::FieldMask mask;
  mask.add_paths("a_b");
  any.PackFrom(mask);
  EXPECT_EQ(Json(any), R"({"@type":"type.googleapis.com/google.protobuf.FieldMask","value":"aB"})");
  google::protobuf::ListValue list;
  list.add_values()->set_bool_value(false);
  any.PackFrom(list);
  EXPECT_EQ(Json(any),
            R"({"@type":"type.googleapis.com/google.protobuf.ListValue","value":[false]})");
}

// ---------------------------------------------------------------------------
// Messages from a dynamic pool: proto3 `optional`, bool map keys, json_name,
// proto2 defaults, well-known types as fields, deep nesting.

class DynamicProtoJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FileDescriptorProto proto3;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
      name: "dyn3.proto" package: "dyn" syntax: "proto3"
      dependency: "google/protobuf/any.proto"
      dependency: "google/protobuf/duration.proto"
      dependency: "google/protobuf/field_mask.proto"
      dependency: "google/protobuf/struct.proto"
      dependency: "google/protobuf/timestamp.proto"
      dependency: "google/protobuf/wrappers.proto"
      message_type {
        name: "M"
        field { name: "opt_i" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 proto3_optional: true oneof_index: 0 }
        field { name: "bool_map" number: 2 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".dyn.M.BoolMapEntry" }
        field { name: "sub" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".dyn.M" }
        field { name: "custom" number: 4 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "my_Custom" }
        field { name: "subs" number: 5 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".dyn.M" }
        field { name: "null_enum" number: 6 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".google.protobuf.NullValue" }
        field { name: "opt_s" number: 7 label: LABEL_OPTIONAL type: TYPE_STRING proto3_optional: true oneof_index: 1 }
        field { name: "_odd__name_x" number: 8 label: LABEL_OPTIONAL type: TYPE_INT32 }
        field { name: "any" number: 9 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Any" }
        field { name: "f" number: 10 label: LABEL_REPEATED type: TYPE_FLOAT }
        field { name: "e" number: 11 label: LABEL_REPEATED type: TYPE_ENUM type_name: ".dyn.E" }
        field { name: "sfix" number: 12 label: LABEL_OPTIONAL type: TYPE_SFIXED64 }
        field { name: "s32" number: 13 label: LABEL_OPTIONAL type: TYPE_SINT32 }
        oneof_decl { name: "_opt_i" }
        oneof_decl { name: "_opt_s" }
        nested_type {
          name: "BoolMapEntry" options { map_entry: true }
          field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL }
          field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".dyn.E" }
        }
      }
      message_type {
        name: "W"
        field { name: "ts" number: 1 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" }
        field { name: "dur" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Duration" }
        field { name: "i64w" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Int64Value" }
        field { name: "fw" number: 4 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.FloatValue" }
        field { name: "bw" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.BytesValue" }
        field { name: "st" number: 6 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Struct" }
        field { name: "val" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Value" }
        field { name: "lv" number: 8 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.ListValue" }
        field { name: "fm" number: 9 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.FieldMask" }
        field { name: "rts" number: 10 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" }
        field { name: "rval" number: 11 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".google.protobuf.Value" }
        field { name: "bw_unset" number: 12 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.BoolValue" }
      }
      enum_type { name: "E" value { name: "E_ZERO" number: 0 } value { name: "E_ONE" number: 1 } }
    )pb", &proto3));
    FileDescriptorProto proto2;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
      name: "dyn2.proto" package: "dyn2" syntax: "proto2"
      message_type {
        name: "P2"
        field { name: "i" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 default_value: "5" }
        field { name: "e" number: 2 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".dyn2.E" default_value: "B" }
        field { name: "s" number: 3 label: LABEL_OPTIONAL type: TYPE_STRING default_value: "dflt" }
        field { name: "r" number: 4 label: LABEL_REQUIRED type: TYPE_INT64 }
        field { name: "d" number: 5 label: LABEL_OPTIONAL type: TYPE_DOUBLE default_value: "-2.5" }
        field { name: "sub" number: 6 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".dyn2.P2" }
      }
      message_type {
        name: "WithGroup"
        field { name: "grp" number: 1 label: LABEL_OPTIONAL type: TYPE_GROUP type_name: ".dyn2.WithGroup.Grp" }
        field { name: "x" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 }
        nested_type { name: "Grp" field { name: "gi" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 } }
      }
      enum_type { name: "E" value { name: "A" number: 0 } value { name: "B" number: 1 } }
    )pb", &proto2));
    pool_ = std::make_unique<DescriptorPool>(DescriptorPool::generated_pool());
    ASSERT_NE(pool_->BuildFile(proto3), nullptr);
    ASSERT_NE(pool_->BuildFile(proto2), nullptr);
  }

  std::unique_ptr<Message> New(const std::string& name) {
    const Descriptor* descriptor = pool_->FindMessageTypeByName(name);
    EXPECT_NE(descriptor, nullptr) << name;
    return std::unique_ptr<Message>(factory_.GetPrototype(descriptor)->New());
  }

  std::unique_ptr<Message> Parse(const std::string& name, const std::string& text) {
    std::unique_ptr<Message> message = New(name);
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, message.get())) << text;
    return message;
  }

  std::unique_ptr<DescriptorPool> pool_;
  DynamicMessageFactory factory_;
};

TEST_F(DynamicProtoJsonTest, Proto3OptionalBoolKeysAndJsonNames) {
  auto m = New("dyn.M");
  EXPECT_EQ(ExpectMatchesProtobuf(*m),
            R"({"boolMap":{},"my_Custom":0,"subs":[],"nullEnum":"NULL_VALUE","OddNameX":0,)"
            R"("f":[],"e":[],"sfix":"0","s32":0})");
  m = Parse("dyn.M", R"pb(opt_i: 0 opt_s: "" bool_map { key: true value: E_ONE }
                          bool_map { key: false value: E_ZERO } sub {} subs {} subs { s32: -7 }
                          f: 0.1 f: nan f: -inf e: E_ONE e: 5 sfix: -9 custom: 3)pb");
  EXPECT_THAT(ExpectMatchesProtobuf(*m),
              HasSubstr(R"({"optI":0,"boolMap":{"false":"E_ZERO","true":"E_ONE"},"sub":{)"));
}

TEST_F(DynamicProtoJsonTest, AnyOfADynamicType) {
  auto p2 = Parse("dyn2.P2", "r: 1 i: 2");
  auto m = New("dyn.M");
  Message* any = m->GetReflection()->MutableMessage(m.get(), m->GetDescriptor()->FindFieldByName("any"));
  any->GetReflection()->SetString(any, any->GetDescriptor()->FindFieldByName("type_url"),
                                  "type.googleapis.com/dyn2.P2");
  any->GetReflection()->SetString(any, any->GetDescriptor()->FindFieldByName("value"),
                                  p2->SerializeAsString());
  // No round trip: the differencer compares this Any's bytes, and reading the
  // JSON back sets the proto2 defaults explicitly.
  EXPECT_THAT(ExpectMatchesProtobuf(*m, /*check_round_trip=*/false),
              HasSubstr(R"("any":{"@type":"type.googleapis.com/dyn2.P2","i":2,"e":"B",)"
                        R"("s":"dflt","r":"1","d":-2.5})"));
}

TEST_F(DynamicProtoJsonTest, Proto2FieldsPrintTheirDeclaredDefaults) {
  auto p2 = Parse("dyn2.P2", "r: 0");
  EXPECT_EQ(ExpectMatchesProtobuf(*p2), R"({"i":5,"e":"B","s":"dflt","r":"0","d":-2.5})");
  p2 = Parse("dyn2.P2", R"pb(r: 4 i: 0 s: "" sub { r: 1 })pb");
  ExpectMatchesProtobuf(*p2);
}

TEST_F(DynamicProtoJsonTest, GroupsPrintLikeMessageFields) {
  // protobuf 3.21 prints "grp":null whether the group is set or not.
  EXPECT_EQ(Json(*Parse("dyn2.WithGroup", "")), R"({"x":0})");
  EXPECT_EQ(Json(*Parse("dyn2.WithGroup", "Grp { gi: 4 }")), R"({"grp":{"gi":4},"x":0})");
}

TEST_F(DynamicProtoJsonTest, WellKnownTypesAsFields) {
  auto w = New("dyn.W");
  EXPECT_EQ(ExpectMatchesProtobuf(*w), R"({"rts":[],"rval":[]})");
  w = Parse("dyn.W", R"pb(
    ts { seconds: 1700000000 nanos: 120000000 }
    dur { seconds: 1 }
    i64w { value: 9007199254740993 }
    fw { value: 0.25 }
    bw { value: "\001\002" }
    st { fields { key: "a" value { list_value { values { number_value: 1 } values { bool_value: true } } } }
         fields { key: "b" value { struct_value {} } }
         fields { key: "c" value {} } }
    val { string_value: "v" }
    lv { values { null_value: NULL_VALUE } values {} }
    fm { paths: "a.b_c" paths: "d" }
    rts {} rts { seconds: 86400 }
    rval { number_value: 2 } rval {} rval { string_value: "x" })pb");
  EXPECT_EQ(ExpectMatchesProtobuf(*w, /*check_round_trip=*/false),
            R"({"ts":"2023-11-14T22:13:20.120Z","dur":"1s","i64w":"9007199254740993",)"
            R"("fw":0.25,"bw":"AQI=","st":{"a":[1,true],"b":{}},"val":"v","lv":[null],)"
            R"("fm":"a.bC,d","rts":["1970-01-01T00:00:00Z","1970-01-02T00:00:00Z"],)"
            R"("rval":[2,"x"]})");
  // A set Value field with no kind is left out, like an unset one.
  w = Parse("dyn.W", "val {} bw_unset {}");
  EXPECT_EQ(ExpectMatchesProtobuf(*w, /*check_round_trip=*/false),
            R"({"rts":[],"rval":[],"bwUnset":false})");
}

TEST_F(DynamicProtoJsonTest, NestingDepthLimitIsProtobufs) {
  auto m = New("dyn.M");
  const FieldDescriptor* sub = m->GetDescriptor()->FindFieldByName("sub");
  Message* leaf = m.get();
  for (int depth = 1; depth <= 65; ++depth) {
    leaf = leaf->GetReflection()->MutableMessage(leaf, sub);
    pb_util::JsonPrintOptions options;
    std::string reference;
    const bool protobuf_ok = pb_util::MessageToJsonString(*m, &reference, options).ok();
    std::string out = "x";
    const absl::Status status = AppendMessageAsJson(*m, &out);
    EXPECT_EQ(status.ok(), protobuf_ok) << "depth " << depth;
    EXPECT_EQ(status.ok(), depth <= 64) << "depth " << depth;
    if (!status.ok()) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
      EXPECT_EQ(out, "x");
    }
  }
}

// ---------------------------------------------------------------------------
// Randomized comparison.

// Fills messages with random values through reflection.
class RandomFiller {
 public:
  explicit RandomFiller(uint64_t seed) : rng_(seed) {}

  void Fill(Message* message, int depth) {
    const Descriptor* descriptor = message->GetDescriptor();
    const Reflection* reflection = message->GetReflection();
    if (descriptor->full_name() == "google.protobuf.Any") {
      FillAny(message, depth);
      return;
    }
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      if (field->real_containing_oneof() != nullptr) continue;  // Below.
      if (field->is_map()) {
        const int n = Uniform(0, 3);
        std::set<std::string> keys;
        for (int k = 0; k < n; ++k) {
          Message* entry = reflection->AddMessage(message, field);
          const FieldDescriptor* key_field = entry->GetDescriptor()->map_key();
          // Distinct keys only (duplicates are tested on their own).
          SetScalar(entry, key_field, depth);
          std::string key;
          google::protobuf::TextFormat::PrintFieldValueToString(*entry, key_field, -1, &key);
          if (!keys.insert(key).second) {
            reflection->RemoveLast(message, field);
            continue;
          }
          const FieldDescriptor* value_field = entry->GetDescriptor()->map_value();
          if (value_field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
            Fill(entry->GetReflection()->MutableMessage(entry, value_field), depth + 1);
          } else {
            SetScalar(entry, value_field, depth);
          }
        }
      } else if (field->is_repeated()) {
        const int n = Uniform(0, 3);
        for (int k = 0; k < n; ++k) {
          if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
            Message* element = reflection->AddMessage(message, field);
            if (depth < kMaxFillDepth) Fill(element, depth + 1);
          } else {
            AddScalar(message, field);
          }
        }
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (depth < kMaxFillDepth && Chance(0.6)) {
          Fill(reflection->MutableMessage(message, field), depth + 1);
        }
      } else if (Chance(0.7)) {
        SetScalar(message, field, depth);
      }
    }
    for (int i = 0; i < descriptor->oneof_decl_count(); ++i) {
      const auto* oneof = descriptor->oneof_decl(i);
      if (oneof->is_synthetic() || !Chance(0.7)) continue;
      const FieldDescriptor* field = oneof->field(Uniform(0, oneof->field_count() - 1));
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Fill(reflection->MutableMessage(message, field), depth + 1);
      } else {
        SetScalar(message, field, depth);
      }
    }
  }

 private:
  static constexpr int kMaxFillDepth = 4;

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  uint64_t Bits() { return rng_(); }

  void FillAny(Message* any, int depth) {
    const double roll = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (roll < 0.15) return;  // Empty Any: {}.
    static const char* const kTypes[] = {
        "tensorflow.profiler.GenericStepBreakdown",   "tensorflow.profiler.BottleneckAnalysis",
        "tensorflow.profiler.PerGenericStepDetails",  "tensorflow.profiler.GenericRecommendation",
        "tensorflow.profiler.GenericStepTimeBreakdown", "tensorflow.profiler.KernelReport",
        "tensorflow.profiler.InputPipelineAnalysisRecommendation"};
    const Descriptor* type = DescriptorPool::generated_pool()->FindMessageTypeByName(
        kTypes[Uniform(0, std::size(kTypes) - 1)]);
    std::unique_ptr<Message> contents(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
    if (roll > 0.3 && depth < kMaxFillDepth) Fill(contents.get(), depth + 1);  // Else only "@type".
    static_cast<Any*>(any)->PackFrom(*contents);
  }

  std::string RandomString() {
    static const char* const kPieces[] = {
        "",      "a",       "step",        "h\xC3\xA9llo", "\xE6\x97\xA5\xE6\x9C\xAC",
        "\xF0\x9F\x98\x80", "\"quoted\"", "back\\slash", "\n\t\r\b\f", "\x01\x1f\x7f",
        "<>&'",  "\xE2\x80\xA8", "/", " spaced "};
    std::string s;
    const int n = Uniform(0, 3);
    for (int i = 0; i < n; ++i) s += kPieces[Uniform(0, std::size(kPieces) - 1)];
    if (Chance(0.05)) s.push_back('\0');
    return s;
  }

  double RandomDouble() {
    static const double kSpecial[] = {0.0,
                                      -0.0,
                                      1.0,
                                      0.1,
                                      -2.5,
                                      1e300,
                                      5e-324,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::lowest(),
                                      std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};
    if (Chance(0.4)) return kSpecial[Uniform(0, std::size(kSpecial) - 1)];
    const double mantissa = std::uniform_real_distribution<double>(-1, 1)(rng_);
    return std::ldexp(mantissa, Uniform(-60, 60));
  }

  int64_t RandomInt64() {
    static const int64_t kSpecial[] = {0, 1, -1, std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(), 9007199254740993};
    if (Chance(0.4)) return kSpecial[Uniform(0, std::size(kSpecial) - 1)];
    return static_cast<int64_t>(Bits() >> Uniform(0, 63));
  }

  void SetScalar(Message* message, const FieldDescriptor* field, int depth) {
    const Reflection* reflection = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        reflection->SetInt32(message, field, static_cast<int32_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        reflection->SetUInt32(message, field, static_cast<uint32_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        reflection->SetInt64(message, field, RandomInt64());
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        reflection->SetUInt64(message, field, static_cast<uint64_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        reflection->SetDouble(message, field, RandomDouble());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        reflection->SetFloat(message, field, static_cast<float>(RandomDouble()));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        reflection->SetBool(message, field, Chance(0.5));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        reflection->SetEnumValue(message, field, RandomEnum(field));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        reflection->SetString(message, field,
                              field->type() == FieldDescriptor::TYPE_BYTES ? RandomBytes()
                                                                           : RandomString());
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        Fill(reflection->MutableMessage(message, field), depth + 1);
        break;
    }
  }

  void AddScalar(Message* message, const FieldDescriptor* field) {
    const Reflection* reflection = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        reflection->AddInt32(message, field, static_cast<int32_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        reflection->AddUInt32(message, field, static_cast<uint32_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        reflection->AddInt64(message, field, RandomInt64());
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        reflection->AddUInt64(message, field, static_cast<uint64_t>(RandomInt64()));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        reflection->AddDouble(message, field, RandomDouble());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        reflection->AddFloat(message, field, static_cast<float>(RandomDouble()));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        reflection->AddBool(message, field, Chance(0.5));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        reflection->AddEnumValue(message, field, RandomEnum(field));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        reflection->AddString(message, field,
                              field->type() == FieldDescriptor::TYPE_BYTES ? RandomBytes()
                                                                           : RandomString());
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        break;
    }
  }

  int RandomEnum(const FieldDescriptor* field) {
    if (Chance(0.2)) return Uniform(-5, 100);  // Often a number without a name.
    const auto* type = field->enum_type();
    return type->value(Uniform(0, type->value_count() - 1))->number();
  }

  std::string RandomBytes() {
    std::string bytes(Uniform(0, 7), '\0');
    for (char& c : bytes) c = static_cast<char>(Bits());
    return bytes;
  }

  std::mt19937_64 rng_;
};

TEST(ProtoJsonTest, RandomViewMessagesMatchProtobuf) {
  const std::vector<const Message*> roots = {
      &tfp::MemoryProfile::default_instance(),   &tfp::OverviewPage::default_instance(),
      &tfp::InputPipelineAnalysisResult::default_instance(),
      &tfp::KernelStatsDb::default_instance(),   &tfp::StepDatabaseResult::default_instance(),
      &tfp::OpStats::default_instance(),         &tfp::XSpace::default_instance(),
  };
  RandomFiller filler(/*seed=*/20240611);
  for (int i = 0; i < 200; ++i) {
    SCOPED_TRACE(absl::StrCat("case ", i));
    std::unique_ptr<Message> message(roots[i % roots.size()]->New());
    filler.Fill(message.get(), 0);
    ExpectMatchesProtobuf(*message);
    if (HasFailure()) break;  // One case's report is enough.
  }
}

// ---------------------------------------------------------------------------
// Timing (logged, not asserted).

TEST(ProtoJsonTest, LogTimingForMemoryProfileWith1000Snapshots) {
  tfp::MemoryProfile profile;
  profile.set_num_hosts(1);
  profile.add_memory_ids("GPU_0_bfc");
  auto& allocator = (*profile.mutable_memory_profile_per_allocator())["GPU_0_bfc"];
  for (int i = 0; i < 1000; ++i) {
    tfp::MemoryProfileSnapshot* snapshot = allocator.add_sampled_timeline_snapshots();
    snapshot->set_time_offset_ps(int64_t{1000000} * i);
    snapshot->mutable_aggregation_stats()->set_heap_allocated_bytes(int64_t{1} << (i % 40));
    snapshot->mutable_aggregation_stats()->set_fragmentation(i / 1000.0);
    auto* metadata = snapshot->mutable_activity_metadata();
    metadata->set_memory_activity(i % 2 ? tfp::ALLOCATION : tfp::DEALLOCATION);
    metadata->set_requested_bytes(4096 + i);
    metadata->set_tf_op_name(absl::StrCat("model/layer_", i % 17, "/MatMul"));
    metadata->set_region_type("output");
    metadata->set_data_type("float");
    metadata->set_tensor_shape("[256,1024]");
  }
  for (int i = 0; i < 100; ++i) {
    *allocator.add_memory_profile_snapshots() = allocator.sampled_timeline_snapshots(i * 10);
    allocator.add_active_allocations()->set_snapshot_index(i);
  }

  using Clock = std::chrono::steady_clock;
  auto best_of = [](int runs, auto&& print) {
    double best = 1e30;
    for (int r = 0; r < runs; ++r) {
      const auto start = Clock::now();
      print();
      best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    return best;
  };
  std::string ours;
  std::string reference;
  const double ours_ms = best_of(5, [&] { ours = *MessageToJson(profile); });
  const double protobuf_ms = best_of(3, [&] { reference = ProtobufJson(profile); });
  std::cout << "[ timing ] MemoryProfile with " << allocator.sampled_timeline_snapshots_size()
            << " snapshots (" << ours.size() << " bytes of JSON): proto_json " << ours_ms
            << " ms, MessageToJsonString " << protobuf_ms << " ms (best of 5 / 3 runs)\n";
  EXPECT_EQ(JsonDiff(ParseJson(ours), ParseJson(reference)), "");
}

}  // namespace
}  // namespace tbprof::views
