#include "converters/report/report_json.h"

#include <string>

#include "converters/views/summary/report_test_views.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::Value;
using ::google::protobuf::util::JsonStringToMessage;
using ::google::protobuf::util::MessageDifferencer;
using ::google::protobuf::util::MessageToJsonString;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// Parses `json` into `message` through the member's own JSON text.
template <typename Proto>
void ExpectMemberParsesTo(const Value& member, const Proto& expected) {
  std::string text;
  ASSERT_TRUE(MessageToJsonString(member, &text).ok());
  Proto parsed;
  const auto status = JsonStringToMessage(text, &parsed);
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << text.substr(0, 400);
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, expected))
      << "parsed: " << parsed.ShortDebugString().substr(0, 400);
}

void ExpectViewsRoundTrip(const Struct& object, const AllViews& views) {
  ExpectMemberParsesTo(object.fields().at("overview"), views.overview);
  ExpectMemberParsesTo(object.fields().at("input_pipeline"), views.input_pipeline);
  ExpectMemberParsesTo(object.fields().at("kernel_stats"), views.kernel_stats);
  ExpectMemberParsesTo(object.fields().at("memory_profile"), views.memory_profile);
  ExpectMemberParsesTo(object.fields().at("operators"), views.operators);
  ExpectMemberParsesTo(object.fields().at("modules"), views.modules);
  ExpectMemberParsesTo(object.fields().at("gemm_efficiency"), views.gemm_efficiency);
  ExpectMemberParsesTo(object.fields().at("gpu_summary"), views.gpu_summary);
}

TEST(ReportJsonTest, OneHostIsOneObjectOfItsViews) {
  ReportInput input;
  input.source = "x.json";
  input.hosts.push_back({"worker0", testing::MakeSampleViews()});
  auto json = RenderJsonReport(input);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->back(), '\n');
  EXPECT_EQ(json->find('\n'), json->size() - 1) << "one line";
  Struct object;
  ASSERT_TRUE(JsonStringToMessage(*json, &object).ok());
  std::vector<std::string> keys;
  for (const auto& [key, unused] : object.fields()) keys.push_back(key);
  EXPECT_THAT(keys, UnorderedElementsAre("overview", "input_pipeline", "kernel_stats",
                                         "memory_profile", "operators", "modules",
                                         "gemm_efficiency", "gpu_summary", "step_breakdown",
                                         "distributed"));
  ExpectViewsRoundTrip(object, input.hosts[0].views);
}

TEST(ReportJsonTest, FieldNamesAreLowerCamelCaseAndDefaultsPrinted) {
  ReportInput input;
  input.hosts.push_back({"h", testing::MakeSampleViews()});
  auto json = RenderJsonReport(input);
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, HasSubstr("\"totalDurationNs\":\"24000000\""));
  EXPECT_THAT(*json, HasSubstr("\"stepTimeMs\":10"));
  EXPECT_THAT(*json, HasSubstr("\"@type\":\"type.googleapis.com/"
                               "tensorflow.profiler.PerGenericStepDetails\""));
  // A field left at its default still appears.
  EXPECT_THAT(*json, HasSubstr("\"isOpTensorCoreEligible\":false"));
}

TEST(ReportJsonTest, SeveralHostsAreAnArrayOfHostObjects) {
  ReportInput input;
  input.hosts.push_back({"rank0", testing::MakeSampleViews()});
  AllViews second = testing::MakeSampleViews();
  second.kernel_stats.mutable_reports(0)->set_occurrences(41);
  input.hosts.push_back({"rank1", second});
  auto json = RenderJsonReport(input);
  ASSERT_TRUE(json.ok()) << json.status();
  Struct object;
  ASSERT_TRUE(JsonStringToMessage(*json, &object).ok());
  ASSERT_EQ(object.fields().size(), 2u);  // "hosts" and the run's "distributed".
  EXPECT_TRUE(object.fields().at("distributed").has_struct_value());
  const auto& hosts = object.fields().at("hosts").list_value();
  ASSERT_EQ(hosts.values_size(), 2);
  std::vector<std::string> names;
  for (const Value& host : hosts.values()) {
    names.push_back(host.struct_value().fields().at("host").string_value());
  }
  EXPECT_THAT(names, ElementsAre("rank0", "rank1"));
  ExpectViewsRoundTrip(hosts.values(0).struct_value(), input.hosts[0].views);
  ExpectViewsRoundTrip(hosts.values(1).struct_value(), input.hosts[1].views);
}

TEST(ReportJsonTest, EmptyViewsStillHaveAllKeys) {
  ReportInput input;
  input.hosts.push_back({"h", AllViews{}});
  auto json = RenderJsonReport(input);
  ASSERT_TRUE(json.ok());
  Struct object;
  ASSERT_TRUE(JsonStringToMessage(*json, &object).ok());
  EXPECT_EQ(object.fields().size(), 10u);  // With "distributed".
  ExpectViewsRoundTrip(object, input.hosts[0].views);
}

}  // namespace
}  // namespace tbprof::views
