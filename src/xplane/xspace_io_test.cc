#include "src/xplane/xspace_io.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;
using ::google::protobuf::util::MessageDifferencer;

XSpaceData BuildSample() {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  uint32_t md = host->GetOrCreateEventMetadata("ProfilerStep#3");
  XLineBuilder* line = host->GetOrCreateLine(123);
  line->SetName("python");
  XEventBuilder e = line->AddEvent(md, /*offset_ps=*/10, /*duration_ps=*/1000);
  e.AddInt64(host->GetOrCreateStatMetadata(StatType::kIsRoot), 1);
  e.AddInt64(host->GetOrCreateStatMetadata(StatType::kStepNum), 3);
  e.AddDouble(host->GetOrCreateStatMetadata("ratio"), -0.25);
  e.AddUint64(host->GetOrCreateStatMetadata("big"), ~0ull);
  e.AddInt64(host->GetOrCreateStatMetadata("neg"), -7);
  e.AddBytes(host->GetOrCreateStatMetadata("raw"), std::string("\0\1\2", 3));
  line->AddAggregatedEvent(md, /*num_occurrences=*/4, /*duration_ps=*/0);
  XPlaneBuilder* gpu = builder.GetOrCreatePlane(GpuPlaneName(0));
  gpu->SetStatInt64(gpu->GetOrCreateStatMetadata(StatType::kDevCapCoreCount), 132);
  XLineBuilder* stream = gpu->GetOrCreateLine(7);
  XEventBuilder k = stream->AddEvent(gpu->GetOrCreateEventMetadata("kernel"), 20, 30);
  k.AddRef(gpu->GetOrCreateStatMetadata(StatType::kKernelDetails), "regs:1");
  gpu->event_metadata(gpu->GetOrCreateEventMetadata("kernel")).child_ids = {1, 2, 300};
  builder.AddWarning("w");
  builder.AddError("e");
  builder.AddHostname("host-a");
  builder.Finalize({.normalize_timestamps = false});
  return space;
}

TEST(XSpaceIoTest, SerializerMatchesProtobuf) {
  XSpaceData space = BuildSample();
  pb::XSpace via_proto;
  ConvertXSpaceDataToProto(space, &via_proto);
  pb::XSpace via_wire;
  ASSERT_TRUE(via_wire.ParseFromString(SerializeXSpaceData(space)));
  EXPECT_TRUE(MessageDifferencer::Equals(via_proto, via_wire))
      << via_proto.DebugString() << "\nvs\n" << via_wire.DebugString();
  EXPECT_EQ(via_wire.planes(0).lines(0).events(1).num_occurrences(), 4);
  EXPECT_EQ(via_wire.hostnames(0), "host-a");
}

TEST(XSpaceIoTest, WritesThroughAtomicFile) {
  XSpaceData space = BuildSample();
  std::string path = ::testing::TempDir() + "/io_test.xplane.pb";
  auto file = AtomicOutputFile::Create(path);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(WriteXSpaceData(space, file->get()).ok());
  ASSERT_TRUE((*file)->Commit(AtomicOutputFile::Overwrite::kReplace).ok());
  auto bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, SerializeXSpaceData(space));
}

TEST(XSpaceIoTest, RejectsGarbage) {
  auto result = ParseXSpaceData("\xff\xff\xff garbage", "junk.xplane.pb");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("junk.xplane.pb"));
}

// Real files written by TensorFlow and JAX survive proto -> data -> proto.
class RealXSpaceRoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealXSpaceRoundTripTest, Lossless) {
  std::string path = std::string(TBPROF_SHARED_TESTDATA) + "/xspace/" + GetParam();
  auto bytes = ReadFileToString(path);
  if (!bytes.ok()) GTEST_SKIP() << bytes.status();
  pb::XSpace original;
  ASSERT_TRUE(original.ParseFromString(*bytes));
  auto data = ParseXSpaceData(*bytes, path);
  ASSERT_TRUE(data.ok()) << data.status();
  pb::XSpace back;
  ASSERT_TRUE(back.ParseFromString(SerializeXSpaceData(*data)));
  EXPECT_TRUE(MessageDifferencer::Equals(original, back));
  pb::XSpace back2;
  ConvertXSpaceDataToProto(*data, &back2);
  EXPECT_TRUE(MessageDifferencer::Equals(original, back2));
}

INSTANTIATE_TEST_SUITE_P(SharedTestdata, RealXSpaceRoundTripTest,
                         ::testing::Values("tf_v100x8_multiworker.xplane.pb",
                                           "jax08_mi300x8_conv.xplane.pb"));

}  // namespace
}  // namespace tbprof::xplane
