#include "converters/chrome_json/trace_json_reader.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::converters::json {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Serves `data` with reads of at most the given sizes (the last size
// repeats), so a test controls exactly where chunk boundaries fall.
class StringInputStream : public MemoryInputStream {
 public:
  StringInputStream(std::string data, std::vector<size_t> read_sizes)
      : MemoryInputStream(std::move(data), std::move(read_sizes), "mem.json") {}
};

struct Recorded {
  std::vector<std::string> events;  // "offset:name:raw"
  std::vector<std::string> malformed;
  std::vector<std::string> top_level;
};

class RecordingHandler : public TraceJsonHandler {
 public:
  absl::Status OnEvent(const RawTraceEvent& e) override {
    std::string args;
    if (e.has_args) {
      absl::StrAppend(&args, " dev=", e.args.device.text, " grid=", e.args.grid.text,
                      " corr=", e.args.correlation.text);
    }
    rec.events.push_back(
        absl::StrCat(e.byte_offset, ":", e.name.text, ":", e.ts.text, args, " raw=", e.raw));
    return absl::OkStatus();
  }
  void OnMalformedEvent(uint64_t offset, absl::string_view reason) override {
    rec.malformed.push_back(absl::StrCat(offset, ": ", reason));
  }
  bool WantsTopLevelValue(absl::string_view key) override { return key != "skipme"; }
  absl::Status OnTopLevelValue(absl::string_view key, absl::string_view json,
                               uint64_t offset) override {
    rec.top_level.push_back(absl::StrCat(key, "@", offset, "=", json));
    return absl::OkStatus();
  }
  Recorded rec;
};

absl::StatusOr<TraceJsonReadResult> Read(const std::string& doc, std::vector<size_t> read_sizes,
                                         Recorded* out, size_t chunk_bytes = 4096) {
  StringInputStream in(doc, std::move(read_sizes));
  RecordingHandler handler;
  TraceJsonReaderOptions options;
  options.chunk_bytes = chunk_bytes;
  auto result = ReadTraceJson(&in, options, &handler);
  *out = handler.rec;
  return result;
}

// Escapes, nested args, a number at a boundary, a skipped top-level value
// and top-level values on both sides of traceEvents.
const char kDoc[] =
    "\xEF\xBB\xBF{\"schemaVersion\": 1, \"skipme\": {\"x\": [\"]}\", {\"y\": \"\\\"\"}]},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"name\": \"a\\\"b\\u00e9\", \"ts\": 1.5, \"dur\": 2,"
    "   \"args\": {\"device\": 0, \"Input Dims\": [[1, 2], [[3]]], \"grid\": [1, 2, 3],"
    "              \"nested\": {\"k\": {\"k2\": [true, false, null]}}, \"correlation\": 77}},\n"
    "  {\"name\": \"}{][\", \"ph\": \"i\", \"ts\": \"123.25\", \"pid\": \"stream 7\"},\n"
    "  {\"ph\": \"X\", \"ts\": 12x, \"name\": \"broken\"},\n"
    "  5,\n"
    "  {\"ph\": \"E\", \"ts\": 1623143093496523}\n"
    " ],\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU \\\"zero\\\"\"}],\n"
    " \"displayTimeUnit\": \"ms\"\n"
    "}\n";

TEST(TraceJsonReaderTest, ParsesObjectForm) {
  Recorded rec;
  auto result = Read(kDoc, {}, &rec);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->bare_array);
  EXPECT_EQ(result->elements, 5);
  ASSERT_EQ(rec.events.size(), 3u);
  EXPECT_THAT(rec.events[0], HasSubstr(":a\"b\xC3\xA9:1.5 dev=0 grid=[1, 2, 3] corr=77 raw={"));
  EXPECT_THAT(rec.events[1], HasSubstr(":}{][:123.25"));
  EXPECT_THAT(rec.events[2], HasSubstr("::1623143093496523"));
  // Offsets count from the first byte of the file (BOM included).
  std::string doc = kDoc;
  EXPECT_EQ(rec.events[0].substr(0, rec.events[0].find(':')),
            absl::StrCat(doc.find("{\"ph\": \"X\", \"name\"")));
  ASSERT_EQ(rec.malformed.size(), 2u);
  EXPECT_EQ(rec.malformed[0], absl::StrCat(doc.find("12x") + 2, ": expected ',' or '}' in object"));
  EXPECT_EQ(rec.malformed[1],
            absl::StrCat(doc.find("  5,") + 2, ": trace event is not a JSON object"));
  EXPECT_THAT(rec.top_level,
              ElementsAre(HasSubstr("schemaVersion@"), HasSubstr("deviceProperties@"),
                          HasSubstr("displayTimeUnit@")));
  EXPECT_THAT(rec.top_level[1], HasSubstr("=[{\"id\": 0, \"name\": \"GPU \\\"zero\\\"\"}]"));
}

TEST(TraceJsonReaderTest, SameResultForEveryChunkBoundary) {
  Recorded reference;
  ASSERT_TRUE(Read(kDoc, {}, &reference).ok());
  std::string doc = kDoc;
  for (size_t split = 0; split <= doc.size(); ++split) {
    Recorded rec;
    // First read ends at `split`, the rest comes in one piece.
    auto result = Read(doc, {split == 0 ? doc.size() : split, doc.size()}, &rec);
    ASSERT_TRUE(result.ok()) << "split " << split << ": " << result.status();
    ASSERT_EQ(rec.events, reference.events) << "split " << split;
    ASSERT_EQ(rec.malformed, reference.malformed) << "split " << split;
    ASSERT_EQ(rec.top_level, reference.top_level) << "split " << split;
  }
  // Tiny reads and a tiny buffer that must grow for the larger events.
  for (size_t step = 1; step <= 9; ++step) {
    Recorded rec;
    auto result = Read(doc, {step}, &rec, /*chunk_bytes=*/step);
    ASSERT_TRUE(result.ok()) << "step " << step << ": " << result.status();
    EXPECT_EQ(rec.events, reference.events) << "step " << step;
    EXPECT_EQ(rec.malformed, reference.malformed) << "step " << step;
    EXPECT_EQ(rec.top_level, reference.top_level) << "step " << step;
  }
}

TEST(TraceJsonReaderTest, BareArrayWithAndWithoutClosingBracket) {
  Recorded rec;
  auto result =
      Read(R"([{"ph": "X", "name": "a", "ts": 1}, {"ph": "i", "name": "b", "ts": 2}])", {}, &rec);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->bare_array);
  EXPECT_FALSE(result->missing_array_end);
  EXPECT_EQ(rec.events.size(), 2u);
  // The Trace Event Format allows a missing ']' (and a trailing comma).
  for (const char* doc : {"[{\"ph\": \"X\", \"ts\": 1},\n", "[{\"ph\": \"X\", \"ts\": 1}  ",
                          "[{\"ph\": \"X\", \"ts\": 1}, ]"}) {
    result = Read(doc, {}, &rec);
    ASSERT_TRUE(result.ok()) << doc << ": " << result.status();
    EXPECT_EQ(rec.events.size(), 1u);
  }
  EXPECT_TRUE(Read("[{\"ph\": \"X\", \"ts\": 1}", {}, &rec)->missing_array_end);
  EXPECT_TRUE(Read("[]", {}, &rec).ok());
}

TEST(TraceJsonReaderTest, DeepEventsAreMalformedNotFatal) {
  std::string deep = R"({"traceEvents": [{"ph": "X", "args": )" + std::string(70, '[') +
                     std::string(70, ']') + R"(}, {"ph": "i", "ts": 1}]})";
  Recorded rec;
  auto result = Read(deep, {}, &rec);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(rec.malformed.size(), 1u);
  EXPECT_THAT(rec.malformed[0], HasSubstr("nesting deeper than 64 levels"));
  EXPECT_EQ(rec.events.size(), 1u);

  // A too-deep top-level value is handed over (the handler decides), not fatal.
  std::string deep_meta = R"({"metadata": )" + std::string(70, '[') + std::string(70, ']') +
                          R"(, "traceEvents": [{"ph": "i", "ts": 1}]})";
  result = Read(deep_meta, {}, &rec);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(rec.top_level.size(), 1u);
  EXPECT_THAT(rec.top_level[0], HasSubstr("metadata@13=[[["));
  EXPECT_EQ(rec.events.size(), 1u);
}

absl::Status ReadStatus(const std::string& doc) {
  Recorded rec;
  return Read(doc, {}, &rec).status();
}

TEST(TraceJsonReaderTest, StructuralErrorsNameFileAndOffset) {
  absl::Status s = ReadStatus("");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("mem.json: byte 0: empty file"));
  EXPECT_EQ(ReadStatus(" \n\t ").code(), absl::StatusCode::kDataLoss);

  s = ReadStatus(R"({"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X")");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("byte 49: truncated JSON"));
  EXPECT_THAT(s.message(), HasSubstr("starting at byte 39"));
  s = ReadStatus(R"({"traceEvents": [{"ph": "X", "ts": 1}])");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);

  s = ReadStatus(R"({"traceEvents": [{"ph": "X"} {"ph": "X"}]})");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("byte 29: invalid JSON: expected ',' or ']'"));
  s = ReadStatus(R"({"a" 1, "traceEvents": []})");
  EXPECT_THAT(s.message(), HasSubstr("byte 5: invalid JSON: expected ':'"));
  s = ReadStatus(R"({"traceEvents": []} x)");
  EXPECT_THAT(s.message(), HasSubstr("byte 20: invalid JSON: unexpected text after"));
  s = ReadStatus(R"({"a": [1, 2}, "traceEvents": []})");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("byte 11:"));
}

TEST(TraceJsonReaderTest, ValidJsonThatIsNotATrace) {
  absl::Status s = ReadStatus("42");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a Chrome trace"));
  s = ReadStatus(R"({"foo": [1, 2, 3]})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("no traceEvents array"));
  s = ReadStatus(R"({"traceEvents": {"ph": "X"}})");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("byte 16: not a Chrome trace: traceEvents is not an array"));
}

TEST(TraceJsonReaderTest, ElementLargerThanTheLimit) {
  std::string doc =
      R"({"traceEvents": [{"ph": "X", "name": ")" + std::string(5000, 'x') + R"("}]})";
  StringInputStream in(doc, {});
  RecordingHandler handler;
  TraceJsonReaderOptions options;
  options.chunk_bytes = 256;
  options.max_element_bytes = 1024;
  absl::Status s = ReadTraceJson(&in, options, &handler).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // With room to grow, the same document reads fine.
  StringInputStream in2(doc, {});
  options.max_element_bytes = 1 << 20;
  EXPECT_TRUE(ReadTraceJson(&in2, options, &handler).ok());
}

TEST(TraceJsonReaderTest, EveryReadAsksForOneChunk) {
  // Reads never depend on where elements end (a damaged gzip stream then
  // fails at the same place whatever the number of threads), and a large
  // element is read whole before it is parsed again.
  std::string big = R"({"traceEvents": [{"ph": "X", "name": ")" + std::string(2 << 20, 'x') +
                    R"("}, {"ph": "X", "name": "small"}]})";
  class CountingStream : public StringInputStream {
   public:
    using StringInputStream::StringInputStream;
    absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
      ++reads;
      if (capacity != 4096) ++other_sizes;
      return StringInputStream::Read(buffer, capacity);
    }
    int reads = 0;
    int other_sizes = 0;
  };
  for (int threads : {1, 2}) {
    CountingStream in(big, {});
    RecordingHandler handler;
    TraceJsonReaderOptions options;
    options.chunk_bytes = 4096;
    options.threads = threads;
    ASSERT_TRUE(ReadTraceJson(&in, options, &handler).ok());
    EXPECT_EQ(handler.rec.events.size(), 2u);
    EXPECT_EQ(in.other_sizes, 0);
    EXPECT_EQ(in.reads, static_cast<int>(big.size() / 4096) + 2);  // The last one returns 0.
  }
}

TEST(TraceJsonReaderTest, HandlerErrorsStopReading) {
  class Failing : public RecordingHandler {
    absl::Status OnEvent(const RawTraceEvent&) override {
      return absl::ResourceExhaustedError("too many");
    }
  } handler;
  StringInputStream in(R"([{"ph": "X"}])", {});
  absl::Status s = ReadTraceJson(&in, {}, &handler).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("mem.json: too many"));
}

}  // namespace
}  // namespace tbprof::converters::json
