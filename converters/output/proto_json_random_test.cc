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
