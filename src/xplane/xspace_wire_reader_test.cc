#include "src/xplane/xspace_wire_reader.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/base/input_stream.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;
using ::testing::HasSubstr;

// ---- The reference: the protobuf message path the reader replaced --------------------------------

// ParseFromArray + ConvertXSpaceProtoToData, as ParseXSpaceData did before.
absl::StatusOr<XSpaceData> ReferenceParse(absl::string_view bytes) {
  google::protobuf::LogSilencer silence;  // Invalid UTF-8 is logged as well as rejected.
  pb::XSpace proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a valid XSpace protobuf");
  }
  XSpaceData data;
  ConvertXSpaceProtoToData(proto, &data);
  return data;
}

// `s` of a plane whose wide values are `wide`.
std::string StatText(const Stat& s, const WideValues& wide) {
  return absl::StrCat("{md ", s.metadata_index(), " kind ", static_cast<int>(s.kind()), " value ",
                      s.kind() == StatKind::kStr || s.kind() == StatKind::kBytes ||
                              s.kind() == StatKind::kCompressedStr
                          ? s.str_id()
                          : s.uint64_value(wide),
                      s.is_wide() ? " wide" : "", "}");
}

bool SameStat(const Stat& a, const WideValues& a_wide, const Stat& b, const WideValues& b_wide) {
  if (a.metadata_index() != b.metadata_index() || a.kind() != b.kind() ||
      a.is_wide() != b.is_wide()) {
    return false;
  }
  switch (a.kind()) {
    case StatKind::kStr:
    case StatKind::kBytes:
    case StatKind::kCompressedStr:
      return a.str_id() == b.str_id();
    default:
      return a.uint64_value(a_wide) == b.uint64_value(b_wide);
  }
}

// Field-by-field identity, string ids and metadata indices included.
::testing::AssertionResult Identical(const XSpaceData& a, const XSpaceData& b) {
  auto fail = [](auto&&... parts) { return ::testing::AssertionFailure() << absl::StrCat(parts...); };
  if (a.strings.size() != b.strings.size()) {
    return fail("string pools differ in size: ", a.strings.size(), " vs ", b.strings.size());
  }
  for (uint32_t i = 0; i < a.strings.size(); ++i) {
    if (a.strings.Get(i) != b.strings.Get(i)) return fail("string ", i, " differs");
  }
  if (a.errors != b.errors || a.warnings != b.warnings || a.hostnames != b.hostnames) {
    return fail("errors, warnings or hostnames differ");
  }
  if (a.planes.size() != b.planes.size()) return fail("plane counts differ");
  for (size_t p = 0; p < a.planes.size(); ++p) {
    const Plane& pa = a.planes[p];
    const Plane& pb = b.planes[p];
    auto same_stats = [&](const std::vector<Stat>& x, const std::vector<Stat>& y) {
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!SameStat(x[i], pa.wide_values, y[i], pb.wide_values)) return false;
      }
      return true;
    };
    const std::string at = absl::StrCat("plane ", p, ": ");
    if (pa.id != pb.id || pa.name != pb.name) return fail(at, "id or name differ");
    if (pa.wide_values != pb.wide_values) return fail(at, "wide values differ");
    if (!same_stats(pa.stats, pb.stats)) return fail(at, "plane stats differ");
    if (pa.stat_metadata.size() != pb.stat_metadata.size()) return fail(at, "stat metadata count");
    for (size_t i = 0; i < pa.stat_metadata.size(); ++i) {
      const StatMetadata& x = pa.stat_metadata[i];
      const StatMetadata& y = pb.stat_metadata[i];
      if (x.key != y.key || x.id != y.id || x.name != y.name || x.description != y.description ||
          x.implicit != y.implicit) {
        return fail(at, "stat metadata ", i, " differs (key ", x.key, " vs ", y.key, ")");
      }
    }
    if (pa.event_metadata.size() != pb.event_metadata.size()) return fail(at, "event md count");
    for (size_t i = 0; i < pa.event_metadata.size(); ++i) {
      const EventMetadata& x = pa.event_metadata[i];
      const EventMetadata& y = pb.event_metadata[i];
      if (x.key != y.key || x.id != y.id || x.name != y.name || x.display_name != y.display_name ||
          x.metadata != y.metadata || x.child_ids != y.child_ids || x.implicit != y.implicit ||
          !same_stats(x.stats, y.stats)) {
        return fail(at, "event metadata ", i, " differs (key ", x.key, " vs ", y.key, ")");
      }
    }
    if (pa.lines.size() != pb.lines.size()) return fail(at, "line counts differ");
    for (size_t l = 0; l < pa.lines.size(); ++l) {
      const Line& x = pa.lines[l];
      const Line& y = pb.lines[l];
      const std::string lat = absl::StrCat(at, "line ", l, ": ");
      if (x.id != y.id || x.display_id != y.display_id || x.name != y.name ||
          x.display_name != y.display_name || x.timestamp_ns != y.timestamp_ns ||
          x.duration_ps != y.duration_ps) {
        return fail(lat, "line fields differ");
      }
      if (x.events.size() != y.events.size()) return fail(lat, "event counts differ");
      for (size_t e = 0; e < x.events.size(); ++e) {
        const Event& ex = x.events[e];
        const Event& ey = y.events[e];
        if (ex.offset_ps != ey.offset_ps || ex.duration_ps != ey.duration_ps ||
            ex.metadata_index() != ey.metadata_index() || ex.stats_begin != ey.stats_begin ||
            x.stats_count(e) != y.stats_count(e) || ex.is_aggregate() != ey.is_aggregate() ||
            ex.has_data() != ey.has_data()) {
          return fail(lat, "event ", e, " differs");
        }
      }
      if (x.stats.size() != y.stats.size()) return fail(lat, "stat counts differ");
      for (size_t s = 0; s < x.stats.size(); ++s) {
        if (!SameStat(x.stats[s], pa.wide_values, y.stats[s], pb.wide_values)) {
          return fail(lat, "stat ", s, " differs: ", StatText(x.stats[s], pa.wide_values), " vs ",
                      StatText(y.stats[s], pb.wide_values));
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Parses `bytes` decoding lines on `threads` threads, however small the input.
absl::StatusOr<XSpaceData> ParseWithThreads(absl::string_view bytes, int threads) {
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, "test.xplane.pb");
  XSpaceParseOptions options;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  return ParseXSpaceInput(input.get(), options);
}

// Decoding lines on 2 and 3 threads gives what one thread gives: the same
// data, or the same error message.
::testing::AssertionResult SameOnMoreThreads(absl::string_view bytes) {
  absl::StatusOr<XSpaceData> one = ParseWithThreads(bytes, 1);
  for (int threads : {2, 3}) {
    absl::StatusOr<XSpaceData> more = ParseWithThreads(bytes, threads);
    if (one.ok() != more.ok() || (!one.ok() && one.status() != more.status())) {
      return ::testing::AssertionFailure()
             << "1 thread: " << (one.ok() ? "ok" : one.status().ToString()) << "; " << threads
             << " threads: " << (more.ok() ? "ok" : more.status().ToString());
    }
    if (one.ok()) {
      ::testing::AssertionResult same = Identical(*one, *more);
      if (!same) return same << " (" << threads << " threads)";
    }
  }
  return ::testing::AssertionSuccess();
}

// Both paths reject `bytes`, or both accept it with identical results; and
// the parallel decoding agrees with the single-threaded one.
::testing::AssertionResult SameAsReference(absl::string_view bytes) {
  absl::StatusOr<XSpaceData> expected = ReferenceParse(bytes);
  absl::StatusOr<XSpaceData> actual = ParseXSpaceData(bytes, "test.xplane.pb");
  if (expected.ok() != actual.ok()) {
    return ::testing::AssertionFailure()
           << "protobuf " << (expected.ok() ? "accepts" : "rejects") << ", the wire reader "
           << (actual.ok() ? "accepts" : absl::StrCat("rejects: ", actual.status().message()));
  }
  if (::testing::AssertionResult threads = SameOnMoreThreads(bytes); !threads) return threads;
  if (!expected.ok()) return ::testing::AssertionSuccess();
  return Identical(*expected, *actual);
}

// ---- Inputs -------------------------------------------------------------------------------------

std::string Serialize(const google::protobuf::MessageLite& m) { return m.SerializeAsString(); }

// Every field of the schema, ids not equal to keys, a metadata id no map
// holds, metadata after and before lines.
pb::XSpace RichSpace() {
  pb::XSpace space;
  pb::XPlane* plane = space.add_planes();
  plane->set_id(4);
  plane->set_name("/host:CPU");
  pb::XLine* line = plane->add_lines();
  line->set_id(17);
  line->set_display_id(18);
  line->set_name("python");
  line->set_display_name("main thread");
  line->set_timestamp_ns(1700000000000000000);
  line->set_duration_ps(99);
  for (int i = 0; i < 50; ++i) {
    pb::XEvent* e = line->add_events();
    e->set_metadata_id(1 + i % 3);
    if (i % 7 == 3) {
      e->set_num_occurrences(i);
    } else if (i % 7 != 5) {
      e->set_offset_ps(i * 1000);
    }
    e->set_duration_ps(i % 4 == 0 ? 0 : -i);
    pb::XStat* s = e->add_stats();
    s->set_metadata_id(10 + i % 4);
    switch (i % 8) {
      case 0: s->set_int64_value(-i); break;
      case 1: s->set_uint64_value(~0ull - i); break;
      case 2: s->set_double_value(i * 0.5); break;
      case 3: s->set_str_value(absl::StrCat("s", i % 5, "\xC3\xA9")); break;
      case 4: s->set_bytes_value(std::string("\0\xff\x01", 3)); break;
      case 5: s->set_ref_value(12); break;
      case 6: s->set_compressed_str_value("\x1f\x8b"); break;
      case 7: break;  // No value.
    }
    if (i % 5 == 0) e->add_stats()->set_metadata_id(777);  // Implicit stat metadata.
  }
  line->add_events()->set_metadata_id(4242);  // Implicit event metadata.
  plane->add_lines()->set_name("empty line");
  auto& ev = *plane->mutable_event_metadata();
  for (int id = 1; id <= 3; ++id) {
    pb::XEventMetadata& md = ev[id];
    md.set_id(id == 2 ? 20 : id);
    md.set_name(absl::StrCat("op", id));
    md.set_display_name(id == 1 ? "Op One" : "");
    md.set_metadata(std::string("\x08\x01\x00", 3));
    md.add_stats()->set_metadata_id(11);
    md.mutable_stats(0)->set_str_value("md stat");
    md.add_stats()->set_metadata_id(555);  // Implicit, created before the lines' ones.
    md.add_child_id(id + 1);
    md.add_child_id(-5);
  }
  auto& st = *plane->mutable_stat_metadata();
  for (int id = 10; id <= 13; ++id) {
    st[id].set_id(id);
    st[id].set_name(absl::StrCat("stat", id));
    st[id].set_description(id == 12 ? "a ref target" : "");
  }
  st[-3].set_id(-3);
  st[-3].set_name("negative key");
  st[1LL << 40].set_id(5);
  st[1LL << 40].set_name("sparse key, other id");
  plane->add_stats()->set_metadata_id(13);
  plane->mutable_stats(0)->set_int64_value(132);
  plane->add_stats()->set_metadata_id(1LL << 40);
  plane->mutable_stats(1)->set_double_value(1.5);
  plane->add_stats()->set_metadata_id(999);  // Implicit.

  pb::XPlane* gpu = space.add_planes();
  gpu->set_name("/device:GPU:0");
  (*gpu->mutable_stat_metadata())[1].set_name("correlation_id");
  (*gpu->mutable_event_metadata())[1].set_name("kernel");
  pb::XEvent* k = gpu->add_lines()->add_events();
  k->set_metadata_id(1);
  k->set_offset_ps(5);
  k->add_stats()->set_metadata_id(1);
  k->mutable_stats(0)->set_int64_value(77);
  space.add_planes();  // An empty plane.
  space.add_errors("error é");
  space.add_warnings("warning");
  space.add_hostnames("host-a");
  space.add_hostnames("host-b");
  return space;
}

void WriteStringToFileOrDie(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string ReadShared(const std::string& name) {
  absl::StatusOr<std::string> bytes =
      ReadFileToString(std::string(TBPROF_SHARED_TESTDATA) + "/xspace/" + name);
  return bytes.ok() ? *bytes : std::string();
}

// Wire helpers for hand-made bytes.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Field(int field, int wire_type) { return Varint(static_cast<uint64_t>(field) << 3 | wire_type); }
std::string Len(int field, absl::string_view body) {
  return absl::StrCat(Field(field, 2), Varint(body.size()), body);
}
// A space with one plane whose bytes are `plane`.
std::string SpaceWithPlane(absl::string_view plane) { return Len(1, plane); }

// ---- Identity with the protobuf path ------------------------------------------------------------

class RealFilesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealFilesTest, IdenticalToProtobufPath) {
  std::string bytes = ReadShared(GetParam());
  if (bytes.empty()) GTEST_SKIP() << "missing " << GetParam();
  absl::StatusOr<XSpaceData> expected = ReferenceParse(bytes);
  ASSERT_TRUE(expected.ok());
  absl::StatusOr<XSpaceData> actual = ParseXSpaceData(bytes, GetParam());
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(Identical(*expected, *actual));
  EXPECT_EQ(SerializeXSpaceData(*actual), SerializeXSpaceData(*expected));
}

TEST_P(RealFilesTest, ReadsFileThroughMappingAndGzip) {
  std::string bytes = ReadShared(GetParam());
  if (bytes.empty()) GTEST_SKIP() << "missing " << GetParam();
  absl::StatusOr<XSpaceData> expected = ParseXSpaceData(bytes, "bytes");
  ASSERT_TRUE(expected.ok());
  const std::string dir = ::testing::TempDir();
  WriteStringToFileOrDie(dir + "/plain.xplane.pb", bytes);
  absl::StatusOr<std::string> gz = GzipCompress(bytes);
  ASSERT_TRUE(gz.ok());
  WriteStringToFileOrDie(dir + "/packed.xplane.pb.gz", *gz);
  for (const std::string name : {"plain.xplane.pb", "packed.xplane.pb.gz"}) {
    SCOPED_TRACE(name);
    auto input = XSpaceInput::Open(dir + "/" + name);
    ASSERT_TRUE(input.ok()) << input.status();
    EXPECT_EQ((*input)->is_gzip(), name != "plain.xplane.pb");
    EXPECT_EQ((*input)->bytes(), bytes);
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    XSpaceParseOptions options;
    options.progress = [&](uint64_t done, uint64_t total) {
      calls.emplace_back(done, total);
      return absl::OkStatus();
    };
    absl::StatusOr<XSpaceData> actual = ParseXSpaceInput(input->get(), options);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(Identical(*expected, *actual));
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.back().first, bytes.size());
    EXPECT_EQ(calls.back().second, bytes.size());
  }
}

TEST_P(RealFilesTest, ParallelDecodingIdentical) {
  std::string bytes = ReadShared(GetParam());
  if (bytes.empty()) GTEST_SKIP() << "missing " << GetParam();
  absl::StatusOr<XSpaceData> one = ParseWithThreads(bytes, 1);
  ASSERT_TRUE(one.ok()) << one.status();
  for (int threads : {2, 3, 4}) {
    SCOPED_TRACE(threads);
    absl::StatusOr<XSpaceData> more = ParseWithThreads(bytes, threads);
    ASSERT_TRUE(more.ok()) << more.status();
    EXPECT_TRUE(Identical(*one, *more));
  }
}

INSTANTIATE_TEST_SUITE_P(SharedTestdata, RealFilesTest,
                         ::testing::Values("tf_v100x8_multiworker.xplane.pb",
                                           "jax08_mi300x8_conv.xplane.pb"));

TEST(WireReaderTest, EveryFieldLikeProtobuf) {
  EXPECT_TRUE(SameAsReference(Serialize(RichSpace())));
  EXPECT_TRUE(SameAsReference(""));
}

TEST(WireReaderTest, BuilderOutputLikeProtobuf) {
  XSpaceData space;
  XSpaceBuilder builder(&space);
  XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
  XLineBuilder* line = host->GetOrCreateLine(1);
  for (int i = 0; i < 1000; ++i) {
    XEventBuilder e = line->AddEvent(host->GetOrCreateEventMetadata(absl::StrCat("op", i % 37)),
                                     i * 10, 5);
    e.AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId), i);
    e.AddString(host->GetOrCreateStatMetadata("name"), absl::StrCat("v", i % 11));
  }
  builder.Finalize({});
  EXPECT_TRUE(SameAsReference(SerializeXSpaceData(space)));
}

TEST(WireReaderTest, MetadataBeforeLinesAndRepeatedFields) {
  pb::XSpace space = RichSpace();
  pb::XPlane& plane = *space.mutable_planes(0);
  // Metadata, then lines: field order is free on the wire.
  pb::XPlane metadata_only = plane;
  metadata_only.clear_lines();
  pb::XPlane lines_only;
  *lines_only.mutable_lines() = plane.lines();
  EXPECT_TRUE(SameAsReference(SpaceWithPlane(Serialize(metadata_only) + Serialize(lines_only))));

  // A repeated map key: the last entry wins, whole.
  pb::XPlane again;
  (*again.mutable_event_metadata())[2].set_name("replaced");
  (*again.mutable_stat_metadata())[10].set_description("replaced too");
  again.set_name("renamed");
  EXPECT_TRUE(SameAsReference(SpaceWithPlane(Serialize(plane) + Serialize(again))));

  // Oneofs and scalars set twice: the last one wins.
  pb::XEvent first, second;
  first.set_offset_ps(5);
  first.add_stats()->set_str_value("kept? no");
  second.set_num_occurrences(9);
  second.set_metadata_id(3);
  std::string stat_twice = Serialize(first.stats(0));
  pb::XStat int_stat;
  int_stat.set_int64_value(4);
  stat_twice += Serialize(int_stat);
  std::string event = Serialize(first) + Serialize(second) + Len(4, stat_twice);
  EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(3, Len(4, event)))));
}

TEST(WireReaderTest, UnknownFieldsAndUnusualEncodings) {
  const std::string unknown = absl::StrCat(
      Field(99, 0), Varint(123456789), Field(98, 1), "12345678", Field(97, 5), "1234",
      Len(96, "skipped"), Field(95, 3), Field(1, 0), Varint(1), Len(2, "inner"), Field(95, 4));
  // Unknown fields at every level; reserved line fields 5..8; packed and
  // unpacked child ids; a map entry without key or value; non-minimal
  // varints (protobuf accepts up to 10 bytes).
  const std::string stat = absl::StrCat(Field(1, 0), Varint(7), unknown, Field(4, 0),
                                        "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  // A 5-byte tag whose bits past 32 protobuf drops: field 1, varint.
  const std::string long_tag("\x88\x80\x80\x80\x70", 5);
  const std::string event = absl::StrCat(Field(1, 0), std::string("\x81\x80\x00", 3), unknown,
                                         long_tag, Varint(2), Len(4, stat));
  const std::string line = absl::StrCat(Field(5, 0), Varint(3), Len(6, "x"), unknown, Len(4, event),
                                        Len(2, "line"));
  const std::string md = absl::StrCat(Field(1, 0), Varint(1), Len(2, "ev"), Field(6, 0),
                                      Varint(5), Len(6, Varint(6) + Varint(300)), unknown);
  const std::string plane =
      absl::StrCat(Len(3, line), Len(4, absl::StrCat(Field(1, 0), Varint(1), Len(2, md), unknown)),
                   Len(4, ""), Len(5, Len(2, absl::StrCat(Len(2, "sname"), unknown))), unknown);
  const std::string space = absl::StrCat(SpaceWithPlane(plane), unknown, Len(4, "host"));
  EXPECT_TRUE(ReferenceParse(space).ok());
  EXPECT_TRUE(SameAsReference(space));
}

TEST(WireReaderTest, MoreThan65535StatsOnOneEventAreAllKept) {
  pb::XSpace space;
  pb::XLine* line = space.add_planes()->add_lines();
  pb::XEvent* e = line->add_events();
  for (int i = 0; i < 70000; ++i) {
    pb::XStat* s = e->add_stats();
    s->set_metadata_id(i < 65535 ? 1 : 2);
    s->set_int64_value(i);
  }
  line->add_events()->add_stats()->set_metadata_id(3);
  EXPECT_TRUE(SameAsReference(Serialize(space)));
  absl::StatusOr<XSpaceData> data = ParseXSpaceData(Serialize(space), "x");
  ASSERT_TRUE(data.ok());
  const Line& l = data->planes[0].lines[0];
  EXPECT_EQ(l.stats_count(0), 70000u);
  EXPECT_EQ(l.stats_count(1), 1u);
  EXPECT_EQ(l.event_stats(0).back().int64_value(data->planes[0].wide_values), 69999);
  EXPECT_EQ(data->planes[0].stat_metadata.size(), 3u);  // Ids 2 and 3 implicit.
  pb::XSpace back;
  ConvertXSpaceDataToProto(*data, &back);
  EXPECT_EQ(back.SerializeAsString(), Serialize(space));
}

// A space of one plane with 4 lines whose events use `used` event metadata
// ids each, of which ids 1..defined are in its map: ids 1..used on every line,
// or (disjoint) ids l * used + 1.. on line l.
std::string SpaceUsingEventMetadata(int defined, int used, bool disjoint = false) {
  pb::XSpace space;
  pb::XPlane* plane = space.add_planes();
  for (int id = 1; id <= defined; ++id) {
    pb::XEventMetadata& md = (*plane->mutable_event_metadata())[id];
    md.set_id(id);
    md.set_name(absl::StrCat("e", id));
  }
  for (int l = 0; l < 4; ++l) {  // Several lines, for the parallel path.
    pb::XLine* line = plane->add_lines();
    line->set_id(l);
    for (int i = 1; i <= used; ++i) {
      pb::XEvent* e = line->add_events();
      e->set_metadata_id(disjoint ? l * used + i : i);
      e->set_offset_ps(i);
      e->add_stats()->set_metadata_id(1);
    }
  }
  return Serialize(space);
}

absl::StatusOr<XSpaceData> ParseWithEventMetadataLimit(const std::string& bytes, int threads,
                                                       uint32_t limit) {
  XSpaceParseOptions options;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  options.max_event_metadata = limit;
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, "x");
  return ParseXSpaceInput(input.get(), options);
}

TEST(WireReaderTest, RejectsMoreEventMetadataThanTheLimit) {
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    // At the limit, defined or implicit: read.
    EXPECT_TRUE(ParseWithEventMetadataLimit(SpaceUsingEventMetadata(5, 5), threads, 5).ok());
    EXPECT_TRUE(ParseWithEventMetadataLimit(SpaceUsingEventMetadata(2, 5), threads, 5).ok());
    // Past it in the map, or through ids only events use.
    for (const std::string& bytes :
         {SpaceUsingEventMetadata(6, 1), SpaceUsingEventMetadata(2, 6),
          SpaceUsingEventMetadata(0, 9), SpaceUsingEventMetadata(0, 2, true)}) {
      absl::StatusOr<XSpaceData> data = ParseWithEventMetadataLimit(bytes, threads, 5);
      ASSERT_FALSE(data.ok());
      EXPECT_EQ(data.status().code(), absl::StatusCode::kDataLoss);
      EXPECT_THAT(data.status().message(),
                  HasSubstr("more than 5 event metadata in one plane (the most tbprof holds)"));
    }
  }
  // The default is the model's limit.
  EXPECT_EQ(XSpaceParseOptions().max_event_metadata, Event::kMaxEventMetadata);
  EXPECT_EQ(Event::kMaxEventMetadata, (uint32_t{1} << 30) - 1);
}

TEST(WireReaderTest, ParallelEventMetadataLimitFailsAtTheSameEvent) {
  // The 6th distinct id first appears at line 0, event 5 (seen by the first
  // run of lines), or (disjoint ids) at line 1, event 2, found only when the
  // runs' implicit metadata are created after the join.
  for (bool disjoint : {false, true}) {
    SCOPED_TRACE(disjoint);
    const std::string bytes = SpaceUsingEventMetadata(0, disjoint ? 3 : 6, disjoint);
    absl::StatusOr<XSpaceData> one = ParseWithEventMetadataLimit(bytes, 1, 5);
    absl::StatusOr<XSpaceData> four = ParseWithEventMetadataLimit(bytes, 4, 5);
    ASSERT_FALSE(one.ok());
    ASSERT_FALSE(four.ok());
    EXPECT_THAT(one.status().message(),
                HasSubstr(disjoint ? "line 1, event 2" : "line 0, event 5"));
    EXPECT_EQ(one.status(), four.status());
  }
}

TEST(WireReaderTest, RejectsWhatProtobufRejects) {
  const std::string bad_utf8 = "\xC0\xAF";  // Overlong '/'.
  std::vector<std::string> cases = {
      Field(0, 0) + Varint(1),                                     // Field number 0.
      Field(5, 6),                                                 // Wire type 6.
      Field(5, 4),                                                 // Stray end group.
      Field(5, 3) + Field(6, 4),                                   // Group closed by another field.
      Field(5, 3),                                                 // Group never closed.
      Field(9, 0) + std::string(11, '\xff'),                       // Varint past 10 bytes.
      Field(9, 0) + "\xff",                                        // Truncated varint.
      Field(9, 1) + "1234",                                        // Truncated fixed64.
      "\x80\x80\x80\x80\x80\x01",                                  // Tag past 5 bytes.
      Len(2, bad_utf8),                                            // XSpace.errors.
      Len(4, "\xED\xA0\x80"),                                      // Surrogate in hostnames.
      SpaceWithPlane(Len(2, bad_utf8)),                            // XPlane.name.
      SpaceWithPlane(Len(3, Len(2, bad_utf8))),                    // XLine.name.
      SpaceWithPlane(Len(3, Len(11, bad_utf8))),                   // XLine.display_name.
      SpaceWithPlane(Len(3, Len(4, Len(4, Len(5, bad_utf8))))),    // XStat.str_value.
      SpaceWithPlane(Len(3, Len(4, Len(4, Len(5, bad_utf8) + Field(4, 0) + Varint(1))))),
      SpaceWithPlane(Len(4, Len(2, Len(2, bad_utf8)))),            // XEventMetadata.name.
      SpaceWithPlane(Len(4, Len(2, Len(4, bad_utf8)))),            // ... display_name.
      SpaceWithPlane(Len(4, Len(2, Len(5, Len(5, bad_utf8))))),    // ... stats.
      SpaceWithPlane(Len(5, Len(2, Len(2, bad_utf8)))),            // XStatMetadata.name.
      SpaceWithPlane(Len(5, Len(2, Len(3, bad_utf8)))),            // ... description.
      SpaceWithPlane(Len(6, Len(5, bad_utf8))),                    // Plane stats.
      SpaceWithPlane(Len(4, Len(2, Len(6, "\xff")))),              // Packed varint cut.
      SpaceWithPlane(Len(3, Len(4, Field(1, 0) + "\x80"))),        // Varint cut by its message.
      SpaceWithPlane(Len(3, Field(4, 2) + Varint(5) + "ab")),      // Length past its message.
      SpaceWithPlane(Len(3, Len(4, Field(3, 4)))),                 // End group in an event.
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_FALSE(ReferenceParse(cases[i]).ok());
    absl::StatusOr<XSpaceData> data = ParseXSpaceData(cases[i], "bad.xplane.pb");
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(data.status().message(), HasSubstr("bad.xplane.pb: not a valid XSpace protobuf"));
    EXPECT_THAT(data.status().message(), HasSubstr(" at byte "));
  }
  // Invalid UTF-8 in `bytes` fields is fine.
  EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(4, Len(2, Len(3, bad_utf8))))));
  EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(6, Len(6, bad_utf8) + Len(8, bad_utf8)))));
}

// protobuf's recursion limit of 100 counts messages and groups together.
TEST(WireReaderTest, NestingLimitLikeProtobuf) {
  for (int groups : {90, 95, 96, 97, 98, 99, 100, 101}) {
    SCOPED_TRACE(groups);
    std::string nested;
    for (int i = 0; i < groups; ++i) nested += Field(50, 3);
    for (int i = 0; i < groups; ++i) nested += Field(50, 4);
    EXPECT_TRUE(SameAsReference(nested));                                         // XSpace.
    EXPECT_TRUE(SameAsReference(SpaceWithPlane(nested)));                         // XPlane.
    EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(3, Len(4, Len(4, nested))))));  // XStat.
    EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(4, Len(2, Len(5, nested))))));  // Md stat.
    EXPECT_TRUE(SameAsReference(SpaceWithPlane(Len(5, Len(2, nested)))));          // Stat md.
  }
}

TEST(WireReaderTest, ErrorsNameFileOffsetAndPlace) {
  std::string bytes = Serialize(RichSpace());
  absl::StatusOr<XSpaceData> cut = ParseXSpaceData(bytes.substr(0, bytes.size() / 2), "cut.pb");
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("cut.pb: not a valid XSpace protobuf: length "));
  EXPECT_THAT(cut.status().message(), HasSubstr("truncated?"));
  EXPECT_THAT(cut.status().message(), HasSubstr("at byte 1"));

  std::string bad = SpaceWithPlane(Len(3, "")) +
                    SpaceWithPlane(Len(3, "") + Len(3, Len(4, "") + Len(4, Len(4, Len(5, "\xff")))));
  absl::StatusOr<XSpaceData> utf8 = ParseXSpaceData(bad, "u.pb");
  ASSERT_FALSE(utf8.ok());
  EXPECT_THAT(utf8.status().message(), HasSubstr("invalid UTF-8 in XStat.str_value at byte "));
  EXPECT_THAT(utf8.status().message(), HasSubstr("(plane 1, line 1, event 1;"));
}

TEST(WireReaderTest, ProgressCanStopTheParse) {
  std::string bytes = Serialize(RichSpace());
  auto input = XSpaceInput::FromBytes(bytes, "x");
  XSpaceParseOptions options;
  options.progress = [](uint64_t, uint64_t) { return absl::ResourceExhaustedError("enough"); };
  absl::StatusOr<XSpaceData> data = ParseXSpaceInput(input.get(), options);
  EXPECT_EQ(data.status().code(), absl::StatusCode::kResourceExhausted);
}

// Planes of several lines whose events use metadata ids no map holds (some
// in one run of lines, some in several) and strings first seen in later
// lines: ids and indices come out as one thread gives them.
std::string ManyLinesSpace() {
  pb::XSpace space;
  for (int p = 0; p < 2; ++p) {
    pb::XPlane* plane = space.add_planes();
    plane->set_name(absl::StrCat("/host:CPU", p));
    (*plane->mutable_event_metadata())[1].set_name("known");
    (*plane->mutable_stat_metadata())[1].set_name("s");
    for (int l = 0; l < 5; ++l) {
      pb::XLine* line = plane->add_lines();
      line->set_name(absl::StrCat("line ", l % 3));
      for (int e = 0; e < 40; ++e) {
        pb::XEvent* event = line->add_events();
        event->set_metadata_id(e % 4 == 0 ? 100 + (l + e) % 7 : 1);  // 100..106: implicit.
        event->set_offset_ps(e * 10);
        pb::XStat* stat = event->add_stats();
        stat->set_metadata_id(e % 5 == 0 ? 50 + l : 1);               // 50..54: implicit.
        stat->set_str_value(absl::StrCat("v", (l * 7 + e) % 23));
        pb::XStat* bytes = event->add_stats();
        bytes->set_metadata_id(1);
        bytes->set_bytes_value(absl::StrCat("b", l));
        if (e % 3 == 0) {  // Wide values (past 32 bits) in every line.
          pb::XStat* big = event->add_stats();
          big->set_metadata_id(1);
          big->set_int64_value((int64_t{1} << 40) + p * 1000 + l * 100 + e);
        }
      }
    }
  }
  return Serialize(space);
}

TEST(WireReaderTest, ParallelDecodingLikeOneThread) {
  const std::string bytes = ManyLinesSpace();
  EXPECT_TRUE(SameAsReference(bytes));
  absl::StatusOr<XSpaceData> four = ParseWithThreads(bytes, 4);
  ASSERT_TRUE(four.ok()) << four.status();
  EXPECT_EQ(four->planes[0].event_metadata.size(), 8u);  // "known" and 7 implicit.
  EXPECT_EQ(four->planes[0].stat_metadata.size(), 6u);
}

TEST(WireReaderTest, ParallelDecodingReportsTheFirstError) {
  pb::XSpace space;
  pb::XPlane* plane = space.add_planes();
  for (int l = 0; l < 6; ++l) {
    pb::XLine* line = plane->add_lines();
    for (int e = 0; e < 50; ++e) line->add_events()->set_offset_ps(e);
  }
  const std::string good = Serialize(space);
  // Invalid UTF-8 in a late line, then in an early one too.
  pb::XSpace late = space;
  late.mutable_planes(0)->mutable_lines(5)->mutable_events(3)->add_stats()->set_str_value("\xff");
  pb::XSpace both = late;
  both.mutable_planes(0)->mutable_lines(1)->mutable_events(7)->add_stats()->set_str_value("\xC0");
  for (const pb::XSpace* bad : {&late, &both}) {
    std::string bytes;
    {
      google::protobuf::LogSilencer silence;
      bytes = bad->SerializePartialAsString();
    }
    absl::StatusOr<XSpaceData> one = ParseWithThreads(bytes, 1);
    ASSERT_FALSE(one.ok());
    EXPECT_THAT(one.status().message(),
                HasSubstr(bad == &late ? "(plane 0, line 5, event 3;" : "(plane 0, line 1, event 7;"));
    EXPECT_TRUE(SameOnMoreThreads(bytes));
  }
  EXPECT_TRUE(SameOnMoreThreads(good));
}

TEST(WireReaderTest, ParallelDecodingReportsProgressAndCanBeStopped) {
  const std::string bytes = ManyLinesSpace();
  auto input = XSpaceInput::FromBytes(bytes, "x");
  std::vector<uint64_t> done;
  XSpaceParseOptions options;
  options.threads = 3;
  options.parallel_min_bytes = 0;
  options.progress = [&](uint64_t d, uint64_t total) {
    EXPECT_EQ(total, bytes.size());
    done.push_back(d);
    return absl::OkStatus();
  };
  ASSERT_TRUE(ParseXSpaceInput(input.get(), options).ok());
  ASSERT_FALSE(done.empty());
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_EQ(done.back(), bytes.size());

  options.progress = [](uint64_t, uint64_t) { return absl::ResourceExhaustedError("enough"); };
  EXPECT_EQ(ParseXSpaceInput(input.get(), options).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(XSpaceInputTest, ReleasedMappedPagesReadBackAndErrorsNameThePath) {
  std::string bytes(3 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  const std::string path = ::testing::TempDir() + "/release.bin";
  WriteStringToFileOrDie(path, bytes);
  auto input = XSpaceInput::Open(path);
  ASSERT_TRUE(input.ok()) << input.status();
  (*input)->ReleaseBefore(2 << 20);
  (*input)->ReleaseRange((2 << 20) + 100, 3 << 20);
  EXPECT_EQ((*input)->bytes(), bytes);  // A mapping refills from the page cache.

  auto missing = XSpaceInput::Open(::testing::TempDir() + "/no-such.xplane.pb");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such.xplane.pb"));

  WriteStringToFileOrDie(::testing::TempDir() + "/empty.xplane.pb", "");
  auto empty = XSpaceInput::Open(::testing::TempDir() + "/empty.xplane.pb");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->bytes().empty());
  EXPECT_TRUE(ParseXSpaceInput(empty->get()).ok());
}

// Random damage to real and synthetic files: the reader agrees with protobuf
// on every input, accepted or not.
TEST(WireReaderTest, DamagedInputsLikeProtobuf) {
  std::vector<std::string> seeds = {Serialize(RichSpace()),
                                    ReadShared("jax08_mi300x8_conv.xplane.pb")};
  // TBPROF_STRESS=N: 30x the rounds, the TensorFlow file too, RNG seed N.
  const char* stress = std::getenv("TBPROF_STRESS");
  if (stress != nullptr) seeds.push_back(ReadShared("tf_v100x8_multiworker.xplane.pb"));
  std::mt19937_64 rng(stress != nullptr ? std::strtoull(stress, nullptr, 10) : 20261124);
  int accepted = 0, total = 0;
  for (const std::string& seed : seeds) {
    if (seed.empty()) continue;
    const int rounds = (seed.size() > 100000 ? 300 : 3000) * (stress != nullptr ? 30 : 1);
    for (int round = 0; round < rounds; ++round) {
      std::string bytes = seed;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < edits; ++k) {
        size_t at = rng() % bytes.size();
        switch (rng() % 5) {
          case 0: bytes[at] = static_cast<char>(rng()); break;
          case 1: bytes[at] ^= static_cast<char>(1 << (rng() % 8)); break;
          case 2: bytes.erase(at, 1 + rng() % 4); break;
          case 3: bytes.insert(at, 1, static_cast<char>(rng())); break;
          case 4: bytes.resize(at); break;
        }
        if (bytes.empty()) bytes = "x";
      }
      ::testing::AssertionResult same = SameAsReference(bytes);
      ASSERT_TRUE(same) << "round " << round << " of a " << seed.size() << "-byte seed";
      accepted += ParseXSpaceData(bytes, "x").ok();
      ++total;
    }
  }
  // Both outcomes are exercised.
  EXPECT_GT(accepted, total / 20);
  EXPECT_LT(accepted, total);
}


// The runs of lines decoded on each thread: about equal bytes, none empty.
TEST(SplitIntoRunsTest, CutsWhereTheBytesComeClosest) {
  using V = std::vector<size_t>;
  using wire_internal::SplitIntoRuns;
  EXPECT_EQ(SplitIntoRuns({10, 10, 10, 10}, 2), (V{0, 2, 4}));
  EXPECT_EQ(SplitIntoRuns({10, 10, 10, 10, 10, 10}, 3), (V{0, 2, 4, 6}));
  EXPECT_EQ(SplitIntoRuns({10, 10, 10}, 1), (V{0, 3}));
  EXPECT_EQ(SplitIntoRuns({5, 5}, 4), (V{0, 1, 2}));
  EXPECT_EQ(SplitIntoRuns({}, 2), (V{0, 0}));
  // A large line that crosses the target closer taken than left ends the
  // run; the rest is the next run (this once made one run of everything).
  EXPECT_EQ(SplitIntoRuns({1, 100, 1, 1, 1, 1}, 2), (V{0, 2, 6}));
  EXPECT_EQ(SplitIntoRuns({30, 40, 30, 30, 30, 30}, 2), (V{0, 3, 6}));
  EXPECT_EQ(SplitIntoRuns({100, 1, 1, 1}, 2), (V{0, 1, 4}));
}

}  // namespace
}  // namespace tbprof::xplane
