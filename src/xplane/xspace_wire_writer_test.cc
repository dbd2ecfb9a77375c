#include "src/xplane/xspace_wire_writer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/base/input_stream.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_io.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;

// Every stat kind, narrow and wide values, short and long strings, an aggregate event, an empty
// line, plane stats and metadata with stats and children.
XSpaceData BuildSample() {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  const uint32_t md = host->GetOrCreateEventMetadata("ProfilerStep#3");
  XLineBuilder* line = host->GetOrCreateLine(123);
  line->SetName("python");
  for (int i = 0; i < 6; ++i) {
    XEventBuilder e = line->AddEvent(md, /*offset_ps=*/10 + 2000 * i, /*duration_ps=*/1000 + i);
    e.AddInt64(host->GetOrCreateStatMetadata(StatType::kStepNum), i);
    e.AddDouble(host->GetOrCreateStatMetadata("ratio"), i == 2 ? 0.5 : -0.25 * i);
    e.AddUint64(host->GetOrCreateStatMetadata("big"), i == 3 ? ~0ull : i);
    e.AddInt64(host->GetOrCreateStatMetadata("neg"), i == 4 ? -(int64_t{1} << 40) : -7);
    e.AddBytes(host->GetOrCreateStatMetadata("raw"), std::string("\0\1\2", 3));
    // Lengths of one and two varint bytes, and one over the output buffer.
    e.AddString(host->GetOrCreateStatMetadata("name"),
                i == 5 ? std::string(size_t{3} << 20, 'y') : std::string(i * 100, 'x'));
  }
  line->AddAggregatedEvent(md, /*num_occurrences=*/4, /*duration_ps=*/0);
  host->GetOrCreateLine(124)->SetName("idle thread");  // No events.
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

std::string DeterministicBytes(const pb::XSpace& proto) {
  std::string out;
  {
    ::google::protobuf::io::StringOutputStream stream(&out);
    ::google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    proto.SerializeToCodedStream(&coded);
  }
  return out;
}

TEST(XSpaceWireWriterTest, WritesWhatProtobufWrites) {
  XSpaceData space = BuildSample();
  pb::XSpace proto;
  ConvertXSpaceDataToProto(space, &proto);
  const std::string expected = DeterministicBytes(proto);
  const EventWireSizes sizes = ComputeEventWireSizes(space);
  EXPECT_EQ(SerializeXSpaceWire(space, &sizes, nullptr), expected);
  EXPECT_EQ(SerializeXSpaceWire(space, nullptr, nullptr), expected);
  EXPECT_EQ(SerializeXSpaceData(space), expected);
}

TEST(XSpaceWireWriterTest, EventSizesAreProtobufSizes) {
  XSpaceData space = BuildSample();
  pb::XSpace proto;
  ConvertXSpaceDataToProto(space, &proto);
  const EventWireSizes sizes = ComputeEventWireSizes(space);
  ASSERT_EQ(sizes.size(), static_cast<size_t>(proto.planes_size()));
  for (size_t p = 0; p < sizes.size(); ++p) {
    ASSERT_EQ(sizes[p].size(), static_cast<size_t>(proto.planes(p).lines_size()));
    for (size_t l = 0; l < sizes[p].size(); ++l) {
      const pb::XLine& line = proto.planes(p).lines(l);
      ASSERT_EQ(sizes[p][l].size(), static_cast<size_t>(line.events_size()));
      for (size_t i = 0; i < sizes[p][l].size(); ++i) {
        EXPECT_EQ(sizes[p][l][i], line.events(i).ByteSizeLong()) << p << " " << l << " " << i;
        const uint32_t n = sizes[p][l][i];
        EXPECT_EQ(EventEntryBytes(n),
                  1 + ::google::protobuf::io::CodedOutputStream::VarintSize32(n) + n);
      }
    }
  }
}

// A subset: the odd events of each line (groups 0 and 1, part 1), other
// plane stats and one more warning; written as the protobuf with the same
// edits.
TEST(XSpaceWireWriterTest, WritesASubset) {
  XSpaceData space = BuildSample();
  std::vector<std::vector<std::vector<uint32_t>>> group(space.planes.size());
  for (size_t p = 0; p < space.planes.size(); ++p) {
    for (const Line& line : space.planes[p].lines) {
      std::vector<uint32_t>& g = group[p].emplace_back(line.events.size());
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<uint32_t>(i % 2);
    }
  }
  const std::vector<uint32_t> part_of_group = {0, 1};
  XSpaceWireSubset subset;
  subset.group = &group;
  subset.part_of_group = &part_of_group;
  subset.part = 1;
  subset.plane_stats.resize(space.planes.size());
  subset.plane_stats_wide.resize(space.planes.size());
  Stat wide_stat = space.planes[1].stats.at(0);
  wide_stat.set_int64_value(int64_t{1} << 50, &subset.plane_stats_wide[1]);
  subset.plane_stats[1] = {wide_stat};
  subset.extra_warnings = {"part 2"};

  pb::XSpace proto;
  ConvertXSpaceDataToProto(space, &proto);
  for (pb::XPlane& plane : *proto.mutable_planes()) {
    auto* lines = plane.mutable_lines();
    for (int l = lines->size() - 1; l >= 0; --l) {
      pb::XLine* line = lines->Mutable(l);
      if (line->events_size() == 0) continue;
      pb::XLine kept = *line;
      kept.clear_events();
      int64_t end = 0;
      for (int i = 1; i < line->events_size(); i += 2) {
        const pb::XEvent& e = line->events(i);
        *kept.add_events() = e;
        if (e.data_case() != pb::XEvent::kNumOccurrences) {
          end = std::max(end, e.offset_ps() + e.duration_ps());
        }
      }
      if (kept.events_size() == 0) {
        lines->DeleteSubrange(l, 1);
        continue;
      }
      kept.set_duration_ps(end);
      *line = kept;
    }
  }
  proto.mutable_planes(1)->mutable_stats(0)->set_int64_value(int64_t{1} << 50);
  proto.add_warnings("part 2");
  const std::string expected = DeterministicBytes(proto);
  const EventWireSizes sizes = ComputeEventWireSizes(space);
  EXPECT_EQ(SerializeXSpaceWire(space, &sizes, &subset), expected);
  EXPECT_EQ(SerializeXSpaceWire(space, nullptr, &subset), expected);

  const std::string path = ::testing::TempDir() + "/wire_writer_test.xplane.pb";
  auto file = AtomicOutputFile::Create(path);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(WriteXSpaceWire(space, &sizes, &subset, file->get()).ok());
  ASSERT_TRUE((*file)->Commit(AtomicOutputFile::Overwrite::kReplace).ok());
  auto bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, expected);
}

}  // namespace
}  // namespace tbprof::xplane
