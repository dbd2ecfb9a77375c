// Long lines split into pieces decoded on several threads
// (xspace_wire_pieces.cc) decode exactly as one thread decodes them.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/xplane/xspace_wire_parser.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;
using ::testing::HasSubstr;

// The parse of `bytes` on `threads` threads; `parallel_min_bytes` also sets
// the smallest piece (1/128 of it).
absl::StatusOr<XSpaceData> Parse(absl::string_view bytes, int threads,
                                 uint64_t parallel_min_bytes = 0,
                                 uint32_t max_event_metadata = Event::kMaxEventMetadata) {
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, "pieces.xplane.pb");
  XSpaceParseOptions options;
  options.threads = threads;
  options.parallel_min_bytes = parallel_min_bytes;
  options.max_event_metadata = max_event_metadata;
  return ParseXSpaceInput(input.get(), options);
}

// Same strings with the same ids, and every vector of every plane the same,
// bit for bit (events, stats with their string ids, metadata indices and
// wide indices, wide values in order, metadata).
::testing::AssertionResult BitIdentical(const XSpaceData& a, const XSpaceData& b) {
  auto fail = [](auto... what) { return ::testing::AssertionFailure() << absl::StrCat(what...); };
  if (a.strings.size() != b.strings.size()) return fail("string counts differ");
  for (uint32_t id = 0; id < a.strings.size(); ++id) {
    if (a.strings.Get(id) != b.strings.Get(id)) return fail("string ", id, " differs");
  }
  if (a.planes.size() != b.planes.size()) return fail("plane counts differ");
  for (size_t p = 0; p < a.planes.size(); ++p) {
    const Plane& x = a.planes[p];
    const Plane& y = b.planes[p];
    if (x.name != y.name || x.wide_values != y.wide_values) return fail("plane ", p, " differs");
    if (x.event_metadata.size() != y.event_metadata.size() ||
        x.stat_metadata.size() != y.stat_metadata.size()) {
      return fail("plane ", p, ": metadata counts differ");
    }
    for (size_t i = 0; i < x.event_metadata.size(); ++i) {
      const EventMetadata& m = x.event_metadata[i];
      const EventMetadata& n = y.event_metadata[i];
      if (m.key != n.key || m.id != n.id || m.name != n.name || m.implicit != n.implicit) {
        return fail("plane ", p, ": event metadata ", i, " differs");
      }
    }
    for (size_t i = 0; i < x.stat_metadata.size(); ++i) {
      const StatMetadata& m = x.stat_metadata[i];
      const StatMetadata& n = y.stat_metadata[i];
      if (m.key != n.key || m.id != n.id || m.name != n.name || m.implicit != n.implicit) {
        return fail("plane ", p, ": stat metadata ", i, " differs");
      }
    }
    if (x.lines.size() != y.lines.size()) return fail("plane ", p, ": line counts differ");
    for (size_t l = 0; l < x.lines.size(); ++l) {
      const Line& s = x.lines[l];
      const Line& t = y.lines[l];
      if (s.id != t.id || s.display_id != t.display_id || s.name != t.name ||
          s.display_name != t.display_name || s.timestamp_ns != t.timestamp_ns ||
          s.duration_ps != t.duration_ps) {
        return fail("plane ", p, ", line ", l, ": fields differ");
      }
      if (s.events.size() != t.events.size() || s.stats.size() != t.stats.size()) {
        return fail("plane ", p, ", line ", l, ": event or stat counts differ");
      }
      for (size_t e = 0; e < s.events.size(); ++e) {
        if (std::memcmp(&s.events[e], &t.events[e], sizeof(Event)) != 0) {
          return fail("plane ", p, ", line ", l, ": event ", e, " differs");
        }
      }
      for (size_t i = 0; i < s.stats.size(); ++i) {
        if (std::memcmp(&s.stats[i], &t.stats[i], sizeof(Stat)) != 0) {
          return fail("plane ", p, ", line ", l, ": stat ", i, " differs");
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// 2, 3 and 4 threads give what one gives: the same data, or the same error.
::testing::AssertionResult SameOnAnyThreads(absl::string_view bytes, uint64_t parallel_min_bytes = 0,
                                            uint32_t max_event_metadata = Event::kMaxEventMetadata) {
  absl::StatusOr<XSpaceData> one = Parse(bytes, 1, parallel_min_bytes, max_event_metadata);
  for (int threads : {2, 3, 4}) {
    absl::StatusOr<XSpaceData> more = Parse(bytes, threads, parallel_min_bytes, max_event_metadata);
    if (one.ok() != more.ok() || (!one.ok() && one.status() != more.status())) {
      return ::testing::AssertionFailure()
             << "1 thread: " << (one.ok() ? "ok" : one.status().ToString()) << "; " << threads
             << " threads: " << (more.ok() ? "ok" : more.status().ToString());
    }
    if (one.ok()) {
      ::testing::AssertionResult same = BitIdentical(*one, *more);
      if (!same) return same << " (" << threads << " threads)";
    }
  }
  return ::testing::AssertionSuccess();
}

// Two planes, each with one long line between short ones (the second a
// third as long). Across a long
// line: implicit event and stat metadata ids first used early, late, or in
// both halves; strings seen in both halves and strings first seen late;
// wide values (int64 past 32 bits, doubles) all along; the display name on
// the wire after the events.
pb::XSpace LongLineSpace(int events) {
  pb::XSpace space;
  for (int p = 0; p < 2; ++p) {
    pb::XPlane* plane = space.add_planes();
    plane->set_name(absl::StrCat("/device:GPU:", p));
    (*plane->mutable_event_metadata())[1].set_name("kernel");
    (*plane->mutable_stat_metadata())[1].set_name("name");
    (*plane->mutable_stat_metadata())[2].set_name("bytes");
    for (int l = 0; l < 3; ++l) {
      pb::XLine* line = plane->add_lines();
      line->set_id(l);
      line->set_name(absl::StrCat("stream ", l));
      line->set_display_name(absl::StrCat("Stream #", l));
      line->set_timestamp_ns(1000 + l);
      // Uneven long lines: whole lines cannot share out evenly.
      const int n = l == 1 ? events / (1 + 2 * p) : 20;
      for (int e = 0; e < n; ++e) {
        const bool late = e >= n / 2;
        pb::XEvent* event = line->add_events();
        // 200..206 in both halves; 300 + e / 1000 past the middle only.
        event->set_metadata_id(e % 5 == 0 ? 200 + e % 7 : late && e % 11 == 0 ? 300 + e / 1000 : 1);
        event->set_offset_ps(e * 100);
        event->set_duration_ps(e % 13);
        pb::XStat* name = event->add_stats();
        name->set_metadata_id(e % 17 == 0 ? (late ? 80 + e % 3 : 70) : 1);  // Implicit ones.
        name->set_str_value(late && e % 3 == 0 ? absl::StrCat("late ", e % 101)
                                               : absl::StrCat("op ", e % 37));
        if (e % 2 == 0) {
          pb::XStat* wide = event->add_stats();
          wide->set_metadata_id(2);
          wide->set_int64_value((int64_t{1} << 40) + p * 100000 + e);
        }
        if (e % 3 == 1) {
          pb::XStat* d = event->add_stats();
          d->set_metadata_id(2);
          d->set_double_value(e * 0.1);
        }
        if (e % 4 == 3) {
          pb::XStat* b = event->add_stats();
          b->set_metadata_id(1);
          b->set_bytes_value(absl::StrCat("blob ", e % 5));
        }
      }
    }
  }
  return space;
}

TEST(WirePiecesTest, LongLinesDecodeLikeOneThread) {
  const std::string bytes = LongLineSpace(3000).SerializeAsString();
  EXPECT_TRUE(SameOnAnyThreads(bytes));
  // With the default smallest piece (64 KB) the long lines are split too.
  const std::string big = LongLineSpace(30000).SerializeAsString();
  ASSERT_GT(big.size(), size_t{2} << 20 >> 1);  // Lines of ~1 MB: pieces of 64-256 KB.
  EXPECT_TRUE(SameOnAnyThreads(big, uint64_t{8} << 20));
  absl::StatusOr<XSpaceData> data = Parse(big, 2, uint64_t{8} << 20);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->planes[0].lines[1].events.size(), 30000u);
  EXPECT_EQ(data->planes[1].lines[1].events.size(), 10000u);
  EXPECT_GT(data->planes[0].wide_values.size(), 15000u);
}

TEST(WirePiecesTest, ErrorsAndLimitsLikeOneThread) {
  const pb::XSpace good = LongLineSpace(3000);
  // Invalid UTF-8 late in a long line, then early in it too.
  pb::XSpace late = good;
  late.mutable_planes(0)->mutable_lines(1)->mutable_events(2900)->add_stats()->set_str_value("\xff");
  pb::XSpace both = late;
  both.mutable_planes(0)->mutable_lines(1)->mutable_events(40)->add_stats()->set_str_value("\xC0");
  // In the display name, on the wire after the events (one thread reads it
  // before decoding them).
  pb::XSpace name = late;
  name.mutable_planes(0)->mutable_lines(1)->set_display_name("\xC0");
  for (const pb::XSpace* bad : {&late, &both, &name}) {
    std::string bytes;
    {
      google::protobuf::LogSilencer silence;
      bytes = bad->SerializePartialAsString();
    }
    absl::StatusOr<XSpaceData> one = Parse(bytes, 1);
    ASSERT_FALSE(one.ok());
    EXPECT_THAT(one.status().message(),
                HasSubstr(bad == &late   ? "(plane 0, line 1, event 2900;"
                          : bad == &both ? "(plane 0, line 1, event 40;"
                                         : "XLine.display_name"));
    EXPECT_TRUE(SameOnAnyThreads(bytes));
  }
  // Cut inside a long line's events.
  const std::string bytes = good.SerializeAsString();
  for (size_t cut : {bytes.size() / 8, bytes.size() / 3, bytes.size() / 2 + 7}) {
    EXPECT_TRUE(SameOnAnyThreads(bytes.substr(0, cut))) << cut;
  }
  // The event metadata limit passed by ids first used late in a long line:
  // the same event is named.
  absl::StatusOr<XSpaceData> limited = Parse(bytes, 1, 0, 9);
  ASSERT_FALSE(limited.ok());
  EXPECT_THAT(limited.status().message(), HasSubstr("more than 9 event metadata"));
  EXPECT_THAT(limited.status().message(), HasSubstr("(plane 0, line 1, event "));
  EXPECT_TRUE(SameOnAnyThreads(bytes, 0, 9));
  EXPECT_TRUE(SameOnAnyThreads(bytes, 0, 11));
}

// Wire bytes of an XEvent with `stats` uint64 stats; `group` puts an
// (unknown) empty group before them.
std::string EventBytes(int i, int stats, bool group) {
  auto varint = [](uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
  };
  auto len = [&](int field, const std::string& body) {
    return absl::StrCat(varint(field << 3 | 2), varint(body.size()), body);
  };
  std::string event = absl::StrCat(varint(1 << 3), varint(1), varint(2 << 3), varint(i));
  if (group) absl::StrAppend(&event, varint(20 << 3 | 3), varint(20 << 3 | 4));
  for (int s = 0; s < stats; ++s) {
    absl::StrAppend(&event, len(4, absl::StrCat(varint(1 << 3), varint(1), varint(3 << 3),
                                                varint(uint64_t{1} << (20 + s)))));
  }
  return len(4, event);
}

TEST(WirePiecesTest, GroupsInsideEventsAreDecodedByOneThread) {
  // Stats after a group cannot be counted ahead: such a line is decoded
  // whole, with the same result.
  std::string line;
  for (int i = 0; i < 2000; ++i) line += EventBytes(i, 1 + i % 3, i == 1500);
  const std::string plane = absl::StrCat("\x1a", std::string(1, '\0'));  // An empty line first.
  std::string lines = plane;
  {
    std::string prefix;
    uint64_t n = line.size();
    prefix.push_back('\x1a');
    for (; n >= 0x80; n >>= 7) prefix.push_back(static_cast<char>(n | 0x80));
    prefix.push_back(static_cast<char>(n));
    lines += prefix + line;
  }
  std::string space = "\x0a";
  for (uint64_t n = lines.size(); ; n >>= 7) {
    space.push_back(static_cast<char>(n >= 0x80 ? (n | 0x80) : n));
    if (n < 0x80) break;
  }
  space += lines;
  absl::StatusOr<XSpaceData> one = Parse(space, 1);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->planes[0].lines.size(), 2u);
  EXPECT_EQ(one->planes[0].lines[1].events.size(), 2000u);
  EXPECT_EQ(one->planes[0].lines[1].stats_count(1500), 1u);  // 1500 % 3 + 1.
  EXPECT_TRUE(SameOnAnyThreads(space));
}

TEST(WirePiecesTest, CountPieceStatsCountsEveryEventsStats) {
  using wire_internal::CountPieceStats;
  using wire_internal::Span;
  auto span = [](const std::string& s) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    return Span{p, p + s.size()};
  };
  const std::string piece = EventBytes(1, 2, false) + EventBytes(2, 0, false) +
                            EventBytes(3, 5, false) + "\x08\x07";  // XLine.id too.
  uint64_t stats = 0;
  EXPECT_TRUE(CountPieceStats(span(piece), &stats));
  EXPECT_EQ(stats, 7u);
  // A group inside an event, or a truncated event: the count is not whole.
  const std::string grouped = EventBytes(1, 2, false) + EventBytes(2, 3, true);
  EXPECT_FALSE(CountPieceStats(span(grouped), &stats));
  const std::string cut = piece.substr(0, piece.size() - 5);
  EXPECT_FALSE(CountPieceStats(span(cut), &stats));
}

}  // namespace
}  // namespace tbprof::xplane
