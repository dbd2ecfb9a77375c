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

}  // namespace
}  // namespace tbprof::views
