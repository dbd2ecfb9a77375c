#include "tools/bench/floor.h"

#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::bench {
namespace {

using ::testing::HasSubstr;

PaddedBuffer Padded(const std::string& text) {
  PaddedBuffer buffer;
  EXPECT_TRUE(buffer.Append(text));
  return buffer;
}

// Two events with 3 + 5 fields, one of them a nested args object with 2
// fields, a > 64-bit id and an escaped string; two top-level members.
constexpr char kTrace[] = R"({
  "schemaVersion": 1,
  "traceEvents": [
    {"ph": "X", "name": "a\"b", "ts": 1.5},
    {"ph": "X", "ts": 2, "dur": 18446744073709551616, "flag": true,
     "args": {"stream": 7, "in": [[1, 2], null]}}
  ],
  "displayTimeUnit": "ms"
})";

TEST(VisitTraceEventsTest, CountsEventsFieldsAndValues) {
  absl::StatusOr<VisitCounts> counts = VisitTraceEvents(Padded(kTrace));
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->events, 2u);
  EXPECT_EQ(counts->fields, 3u + 5u + 2u);
  EXPECT_EQ(counts->members, 2u);
  // 1, 1.5, 2, 7, 1, 2 converted; the 2^64 kept as its 20 digits.
  EXPECT_EQ(counts->numbers, 6u);
  EXPECT_EQ(counts->raw_numbers, 1u);
  EXPECT_DOUBLE_EQ(counts->number_sum, 1 + 1.5 + 2 + 7 + 1 + 2);
  // "X", "a\"b" (3 bytes unescaped), "X", "ms".
  EXPECT_EQ(counts->strings, 4u);
  EXPECT_EQ(counts->string_bytes, 1u + 3u + 1u + 2u + 20u);
  EXPECT_EQ(counts->literals, 2u);  // true, null
  // Keys inside events (top-level member names are not counted).
  EXPECT_EQ(counts->key_bytes, std::string("phnamets" "phtsdurflagargs" "streamin").size());
}

TEST(VisitTraceEventsTest, BareArrayForm) {
  absl::StatusOr<VisitCounts> counts =
      VisitTraceEvents(Padded(R"([{"ph": "i", "ts": 3}, {"ph": "M", "args": {}}])"));
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->events, 2u);
  EXPECT_EQ(counts->fields, 4u);
  EXPECT_EQ(counts->members, 0u);
}

TEST(VisitTraceEventsTest, ObjectWithoutEvents) {
  absl::StatusOr<VisitCounts> counts = VisitTraceEvents(Padded(R"({"a": [1, {"b": 2}]})"));
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->events, 0u);
  EXPECT_EQ(counts->members, 1u);
  EXPECT_EQ(counts->numbers, 2u);
}

TEST(VisitTraceEventsTest, RejectsBrokenJson) {
  for (const char* text : {R"({"traceEvents": [{"ph": "X",]})", R"({"traceEvents": [1, 2)",
                           "42", R"([{"a": 1}] x)", ""}) {
    absl::StatusOr<VisitCounts> counts = VisitTraceEvents(Padded(text));
    EXPECT_FALSE(counts.ok()) << text;
    EXPECT_EQ(counts.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(counts.status().message(), HasSubstr("simdjson")) << text;
  }
}

TEST(PaddedBufferTest, GrowsAndKeepsContent) {
  PaddedBuffer buffer;
  std::string expected;
  for (int i = 0; i < 2000; ++i) {
    std::string piece = absl::StrCat(i, ",");
    ASSERT_TRUE(buffer.Append(piece));
    expected += piece;
  }
  ASSERT_EQ(std::string(buffer.data(), buffer.size()), expected);
  ASSERT_GE(buffer.capacity(), buffer.size());
}

// A path for a test file in ::testing::TempDir(), removed when the test
// program exits.
std::string TempPath(const std::string& name) { return testing_util::TempFilePath(name); }

// Writes `text` gzip-compressed as `members` concatenated gzip members.
std::string WriteGzip(const std::string& name, const std::string& text, int members) {
  std::string path = TempPath(name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  size_t piece = text.size() / members + 1;
  for (size_t pos = 0; pos < text.size(); pos += piece) {
    std::string part = text.substr(pos, piece);
    uLongf bound = compressBound(part.size()) + 32;
    std::string out(bound, '\0');
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = reinterpret_cast<Bytef*>(part.data());
    zs.avail_in = static_cast<uInt>(part.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    std::fwrite(out.data(), 1, zs.total_out, f);
    deflateEnd(&zs);
  }
  std::fclose(f);
  return path;
}

TEST(InflateGzipFileTest, StreamsEveryMemberInSmallPieces) {
  std::string text;
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&text, "{\"ts\": ", i, "},");
  std::string path = WriteGzip("floor_members.json.gz", text, 3);
  ASSERT_TRUE(*IsGzipFile(path));
  std::string got;
  absl::StatusOr<InflateStats> stats =
      InflateGzipFile(path, 4096, [&](absl::string_view piece) {
        EXPECT_LE(piece.size(), 4096u);
        got.append(piece.data(), piece.size());
        return absl::OkStatus();
      });
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(got, text);
  EXPECT_EQ(stats->inflated_bytes, text.size());

  PaddedBuffer buffer;
  ASSERT_TRUE(InflateGzipFileToBuffer(path, 4096, &buffer).ok());
  EXPECT_EQ(std::string(buffer.data(), buffer.size()), text);
}

TEST(InflateGzipFileTest, TruncatedAndCorruptAreDataLoss) {
  std::string text(100000, 'x');
  std::string path = WriteGzip("floor_trunc.json.gz", text, 1);
  std::string bytes;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  auto write = [&](const std::string& name, const std::string& data) {
    std::string p = TempPath(name);
    std::FILE* f = std::fopen(p.c_str(), "wb");
    std::fwrite(data.data(), 1, data.size(), f);
    std::fclose(f);
    return p;
  };
  auto discard = [](absl::string_view) { return absl::OkStatus(); };
  std::string truncated = write("floor_t.gz", bytes.substr(0, bytes.size() / 2));
  absl::StatusOr<InflateStats> stats = InflateGzipFile(truncated, 1024, discard);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(stats.status().message(), HasSubstr(truncated));

  std::string corrupt = bytes;
  corrupt[corrupt.size() - 6] ^= 0x55;  // Inside the CRC-32 of the trailer.
  stats = InflateGzipFile(write("floor_c.gz", corrupt), 1024, discard);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDataLoss);

  stats = InflateGzipFile(absl::StrCat(::testing::TempDir(), "/no_such.gz"), 1024, discard);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kNotFound);
}

TEST(ReadFileToPaddedBufferTest, ReadsPlainFile) {
  std::string path = TempPath("floor_plain.json");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fputs(kTrace, f);
  std::fclose(f);
  ASSERT_FALSE(*IsGzipFile(path));
  PaddedBuffer buffer;
  ASSERT_TRUE(ReadFileToPaddedBuffer(path, &buffer).ok());
  EXPECT_EQ(std::string(buffer.data(), buffer.size()), kTrace);
  absl::StatusOr<VisitCounts> counts = VisitTraceEvents(buffer);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->events, 2u);
}

}  // namespace
}  // namespace tbprof::bench
