#include "converters/output/proto_json_test_util.h"

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
using proto_json_test::EqualsNanAware;
using proto_json_test::ExpectMatchesProtobuf;
using proto_json_test::Json;
using proto_json_test::JsonDiff;
using proto_json_test::ParseJson;
using proto_json_test::ProtobufJson;

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

}  // namespace
}  // namespace tbprof::views
