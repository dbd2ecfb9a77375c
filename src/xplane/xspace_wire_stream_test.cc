// The wire reader's streaming mode (XSpaceParseOptions::line_events): the
// pieces it hands over are the lines of the full model, in order, on one
// thread and on several; nothing is kept; errors are those of a full parse.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;

// Planes with a line far longer than one piece, an empty line, implicit
// metadata ids, wide values and metadata stats.
std::string StreamSpace() {
  pb::XSpace space;
  for (int p = 0; p < 3; ++p) {
    pb::XPlane* plane = space.add_planes();
    plane->set_name(absl::StrCat("/plane:", p));
    (*plane->mutable_event_metadata())[1].set_name("known");
    pb::XStat* md_stat = (*plane->mutable_event_metadata())[1].add_stats();
    md_stat->set_metadata_id(2);
    md_stat->set_int64_value(int64_t{1} << 45);  // A wide value of the plane's own.
    (*plane->mutable_stat_metadata())[1].set_name("s");
    (*plane->mutable_stat_metadata())[2].set_name("w");
    const int lines = p == 1 ? 1 : 4;
    for (int l = 0; l < lines; ++l) {
      pb::XLine* line = plane->add_lines();
      line->set_id(l);
      line->set_name(absl::StrCat("line ", l));
      line->set_timestamp_ns(1000 * l);
      // The first plane's long line puts the middle of the lines' bytes just
      // past the second plane: two threads split there.
      const int events = l == 2 ? 0 : l == 1 ? (p == 0 ? 20'000 : 10'000) : 300 + 4096 * p;
      for (int e = 0; e < events; ++e) {
        pb::XEvent* event = line->add_events();
        event->set_metadata_id(e % 9 == 0 ? 100 + (l + e) % 5 : 1);  // 100..104: implicit.
        event->set_offset_ps(e * 10);
        event->set_duration_ps(e % 7);
        for (int s = 0; s < e % 4; ++s) {
          pb::XStat* stat = event->add_stats();
          stat->set_metadata_id(s == 2 ? 60 + l : 1 + s % 2);  // 60..63: implicit.
          if (s == 0) stat->set_str_value(absl::StrCat("v", e % 13));
          if (s == 1) stat->set_int64_value((int64_t{1} << 40) + e);  // Wide.
          if (s == 2) stat->set_uint64_value(e);
        }
      }
    }
  }
  return space.SerializeAsString();
}

// What the pieces add up to: per plane, its lines rebuilt from the pieces,
// with their wide values copied into `wide`.
struct Rebuilt {
  std::vector<std::vector<Line>> lines;
  std::vector<WideValues> wide;
  size_t largest_piece = 0;
  size_t line_ends = 0;
};

absl::StatusOr<XSpaceData> ParseStreaming(absl::string_view bytes, int threads, Rebuilt* out) {
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, "stream.xplane.pb");
  XSpaceParseOptions options;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  bool new_line = true;
  options.line_events = [&](const XSpaceData& space, const Plane& plane, const Line& line,
                            bool line_end) {
    size_t p = 0;
    while (p < space.planes.size() && &space.planes[p] != &plane) ++p;
    ASSERT_LT(p, space.planes.size());
    if (out->lines.size() <= p) {
      out->lines.resize(p + 1);
      out->wide.resize(p + 1);
    }
    if (new_line) {
      Line& copy = out->lines[p].emplace_back();
      copy.id = line.id;
      copy.name = line.name;
      copy.timestamp_ns = line.timestamp_ns;
    }
    Line& copy = out->lines[p].back();
    EXPECT_EQ(copy.id, line.id);
    out->largest_piece = std::max(out->largest_piece, line.events.size());
    const uint32_t stats_base = static_cast<uint32_t>(copy.stats.size());
    for (size_t i = 0; i < line.events.size(); ++i) {
      Event e = line.events[i];
      e.stats_begin += stats_base;
      copy.events.push_back(e);
    }
    for (const Stat& stat : line.stats) {
      copy.stats.push_back(stat.copy_wide_value(plane.wide_values, &out->wide[p]));
    }
    new_line = line_end;
    out->line_ends += line_end;
  };
  return ParseXSpaceInput(input.get(), options);
}

uint64_t Value(const Stat& s, const WideValues& wide) {
  return s.kind() == StatKind::kStr ? s.str_id() : s.uint64_value(wide);
}

TEST(WireStreamTest, PiecesAddUpToTheFullModel) {
  const std::string bytes = StreamSpace();
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat(threads, " threads"));
    std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, "full.xplane.pb");
    absl::StatusOr<XSpaceData> full = ParseXSpaceInput(input.get());
    ASSERT_TRUE(full.ok()) << full.status();
    Rebuilt rebuilt;
    absl::StatusOr<XSpaceData> streamed = ParseStreaming(bytes, threads, &rebuilt);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    // One thread: lines in pieces; two: whole lines after the join.
    EXPECT_EQ(rebuilt.largest_piece, threads == 1 ? 4096u : 20'000u);
    EXPECT_EQ(rebuilt.line_ends, 9u);
    ASSERT_EQ(streamed->planes.size(), full->planes.size());
    ASSERT_EQ(rebuilt.lines.size(), full->planes.size());
    for (size_t p = 0; p < full->planes.size(); ++p) {
      const Plane& fp = full->planes[p];
      const Plane& sp = streamed->planes[p];
      // Everything but the lines' events is as in the full model.
      EXPECT_EQ(sp.event_metadata.size(), fp.event_metadata.size());
      EXPECT_EQ(sp.stat_metadata.size(), fp.stat_metadata.size());
      ASSERT_EQ(sp.lines.size(), fp.lines.size());
      ASSERT_EQ(rebuilt.lines[p].size(), fp.lines.size());
      for (size_t l = 0; l < fp.lines.size(); ++l) {
        EXPECT_TRUE(sp.lines[l].events.empty());
        EXPECT_TRUE(sp.lines[l].stats.empty());
        EXPECT_EQ(sp.lines[l].name, fp.lines[l].name);
        const Line& a = fp.lines[l];
        const Line& b = rebuilt.lines[p][l];
        EXPECT_EQ(b.name, a.name);
        EXPECT_EQ(b.timestamp_ns, a.timestamp_ns);
        ASSERT_EQ(b.events.size(), a.events.size());
        ASSERT_EQ(b.stats.size(), a.stats.size());
        for (size_t e = 0; e < a.events.size(); ++e) {
          EXPECT_EQ(b.events[e].offset_ps, a.events[e].offset_ps);
          EXPECT_EQ(b.events[e].duration_ps, a.events[e].duration_ps);
          EXPECT_EQ(b.events[e].metadata_index(), a.events[e].metadata_index());
          EXPECT_EQ(b.events[e].stats_begin, a.events[e].stats_begin);
        }
        for (size_t s = 0; s < a.stats.size(); ++s) {
          EXPECT_EQ(b.stats[s].metadata_index(), a.stats[s].metadata_index());
          EXPECT_EQ(b.stats[s].kind(), a.stats[s].kind());
          EXPECT_EQ(Value(b.stats[s], rebuilt.wide[p]), Value(a.stats[s], fp.wide_values));
        }
      }
      // The plane's own wide values stay.
      ASSERT_EQ(sp.event_metadata[0].stats.size(), 1u);
      EXPECT_EQ(sp.event_metadata[0].stats[0].int64_value(sp.wide_values), int64_t{1} << 45);
    }
  }
}

TEST(WireStreamTest, ErrorsAreThoseOfAFullParse) {
  const std::string bytes = StreamSpace();
  for (size_t cut : {bytes.size() / 3, bytes.size() - 5}) {
    const std::string truncated = bytes.substr(0, cut);
    for (int threads : {1, 2}) {
      std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(truncated, "stream.xplane.pb");
      XSpaceParseOptions options;
      options.threads = threads;
      options.parallel_min_bytes = 0;
      absl::StatusOr<XSpaceData> full = ParseXSpaceInput(input.get(), options);
      Rebuilt rebuilt;
      absl::StatusOr<XSpaceData> streamed = ParseStreaming(truncated, threads, &rebuilt);
      ASSERT_FALSE(full.ok());
      EXPECT_EQ(streamed.status(), full.status());
    }
  }
}

}  // namespace
}  // namespace tbprof::xplane
