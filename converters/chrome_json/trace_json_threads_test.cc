// The pipelined reader (threads >= 2) must be indistinguishable from the
// single-threaded one: the same handler calls in the same order with the same
// byte offsets, the same errors, and byte-identical XSpace output on every
// trace we have.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/chrome_json/trace_json_reader.h"
#include "gtest/gtest.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_io.h"

namespace tbprof::converters {
namespace {

// Serves a string with reads of `read_size` bytes at most.
class StringInputStream : public MemoryInputStream {
 public:
  StringInputStream(std::string data, size_t read_size)
      : MemoryInputStream(std::move(data), {read_size}, "mem.json") {}
};

// Records every call as one line; fails OnEvent number `fail_at` (1-based).
class LogHandler : public json::TraceJsonHandler {
 public:
  absl::Status OnEvent(const json::RawTraceEvent& e) override {
    ++events_;
    log.push_back(absl::StrCat("E@", e.byte_offset, " ", e.name.text, " ts=", e.ts.text,
                               " corr=", e.args.correlation.text, " raw=", e.raw));
    if (events_ == fail_at) return absl::ResourceExhaustedError(absl::StrCat("stop at ", events_));
    return absl::OkStatus();
  }
  void OnMalformedEvent(uint64_t offset, absl::string_view reason) override {
    log.push_back(absl::StrCat("M@", offset, " ", reason));
  }
  bool WantsTopLevelValue(absl::string_view key) override { return key != "skipme"; }
  absl::Status OnTopLevelValue(absl::string_view key, absl::string_view json,
                               uint64_t offset) override {
    log.push_back(absl::StrCat("T@", offset, " ", key, "=", json));
    return absl::OkStatus();
  }
  void OnTopLevelValueSkipped(absl::string_view key, uint64_t offset,
                              absl::string_view reason) override {
    log.push_back(absl::StrCat("S@", offset, " ", key, " ", reason));
  }
  std::vector<std::string> log;
  int64_t fail_at = -1;

 private:
  int64_t events_ = 0;
};

std::string ReadLog(const std::string& doc, int threads, size_t chunk, size_t read_size,
                    int64_t fail_at = -1, size_t max_element = size_t{64} << 20) {
  StringInputStream in(doc, read_size);
  LogHandler handler;
  handler.fail_at = fail_at;
  json::TraceJsonReaderOptions options;
  options.chunk_bytes = chunk;
  options.threads = threads;
  options.max_element_bytes = max_element;
  auto result = json::ReadTraceJson(&in, options, &handler);
  std::string out;
  for (const std::string& line : handler.log) absl::StrAppend(&out, line, "\n");
  if (result.ok()) {
    absl::StrAppend(&out, "OK bare=", result->bare_array, " open=", result->missing_array_end,
                    " bytes=", result->bytes_read, " elements=", result->elements);
  } else {
    absl::StrAppend(&out, "ERROR ", result.status().ToString());
  }
  return out;
}

// Many events with a malformed one every few events (so every chunk of a
// small buffer holds one), escapes, top-level values on both sides and one
// large value.
std::string MakeDoc(int events, bool close) {
  std::string doc = "{\"metadata\": {\"a\": [1, 2, \"x\\\"y\"]}, \"skipme\": [[[]]],\n";
  absl::StrAppend(&doc, "\"hostname\": \"", std::string(3000, 'h'), "\",\n\"traceEvents\": [\n");
  for (int i = 0; i < events; ++i) {
    if (i > 0) doc += ",\n";
    switch (i % 7) {
      case 3:
        absl::StrAppend(&doc, "{\"ph\": \"X\", \"ts\": 1", i, "x, \"name\": \"bad\"}");
        break;
      case 5:
        absl::StrAppend(&doc, i);  // Not an object.
        break;
      default:
        absl::StrAppend(&doc, "{\"ph\": \"X\", \"name\": \"op\\u00e9\\n", i, "\", \"ts\": ", 1000 + i,
                        ", \"dur\": 3, \"pid\": 1, \"tid\": ", i % 3,
                        ", \"args\": {\"correlation\": ", i, ", \"big\": \"",
                        std::string(static_cast<size_t>(i % 97), 'z'), "\"}}");
    }
  }
  if (!close) return doc;
  absl::StrAppend(&doc, "\n],\n\"deviceProperties\": [{\"id\": 0}],\n\"skipme\": 1}\n");
  return doc;
}

TEST(TraceJsonThreadsTest, SameCallsForEveryChunkSize) {
  const std::string doc = MakeDoc(400, true);
  for (size_t chunk : {16, 64, 200, 1000, 4096, 1 << 20}) {
    for (size_t read_size : {size_t{7}, size_t{333}, size_t{1} << 20}) {
      SCOPED_TRACE(absl::StrCat("chunk ", chunk, " read ", read_size));
      std::string serial = ReadLog(doc, 1, chunk, read_size);
      ASSERT_TRUE(absl::StrContains(serial, "OK ")) << serial.substr(serial.size() - 300);
      for (int threads : {2, 3, 4}) EXPECT_EQ(ReadLog(doc, threads, chunk, read_size), serial);
    }
  }
}

TEST(TraceJsonThreadsTest, SameErrors) {
  std::vector<std::string> docs = {
      MakeDoc(300, false),                                        // Truncated.
      MakeDoc(300, true) + "x",                                   // Text after the document.
      "[{\"ph\": \"X\"}, {\"ph\": \"i\", \"ts\": 1}",              // Bare, no ']'.
      "{\"traceEvents\": [{\"ph\": \"X\"}, 3 4]}",                // Missing comma.
      "{\"traceEvents\": 5}",                                    // Not an array.
      "",                                                         // Empty.
      "{\"a\": 1}",                                               // No traceEvents.
  };
  std::string big = MakeDoc(50, false);
  absl::StrAppend(&big, ", {\"ph\": \"X\", \"name\": \"", std::string(5000, 'n'), "\"}]}");
  docs.push_back(big);  // An event larger than max_element below.
  for (size_t i = 0; i < docs.size(); ++i) {
    for (size_t chunk : {16, 100, 4096}) {
      SCOPED_TRACE(absl::StrCat("doc ", i, " chunk ", chunk));
      std::string serial = ReadLog(docs[i], 1, chunk, 1 << 20, -1, 4096);
      for (int threads : {2, 4}) {
        EXPECT_EQ(ReadLog(docs[i], threads, chunk, 1 << 20, -1, 4096), serial);
      }
    }
  }
}

TEST(TraceJsonThreadsTest, HandlerErrorStopsAtTheSameEvent) {
  const std::string doc = MakeDoc(400, true);
  for (int64_t fail_at : {1, 2, 57, 200, 286}) {
    for (size_t chunk : {64, 4096}) {
      std::string serial = ReadLog(doc, 1, chunk, 1 << 20, fail_at);
      ASSERT_TRUE(absl::StrContains(serial, absl::StrCat("stop at ", fail_at))) << serial;
      EXPECT_EQ(ReadLog(doc, 2, chunk, 1 << 20, fail_at), serial);
    }
  }
}

// Element starts guessed inside strings: names full of "}, {" and "},\n{"
// so that most cuts of the reading thread are wrong and must be caught.
TEST(TraceJsonThreadsTest, WrongCutsInsideStringsAreCaught) {
  std::string doc = "{\"traceEvents\": [\n";
  for (int i = 0; i < 600; ++i) {
    if (i > 0) doc += ",\n";
    absl::StrAppend(&doc, "{\"ph\": \"X\", \"name\": \"a}, {b},\\n{c}  ,  {", i,
                    "\", \"ts\": ", i, ", \"args\": {\"note\": \"", std::string(i % 50, '}'),
                    ",{\"}}");
  }
  doc += "\n]}";
  for (size_t chunk : {16, 64, 333, 4096}) {
    SCOPED_TRACE(absl::StrCat("chunk ", chunk));
    std::string serial = ReadLog(doc, 1, chunk, 1 << 20);
    ASSERT_TRUE(absl::StrContains(serial, "OK ")) << serial.substr(serial.size() - 300);
    for (int threads : {2, 3}) EXPECT_EQ(ReadLog(doc, threads, chunk, 1 << 20), serial);
  }
}

// Fails its read number `fail_at` (1-based) after serving `read_size` bytes
// per read before it.
class FailingStream : public MemoryInputStream {
 public:
  FailingStream(std::string data, int fail_at)
      : MemoryInputStream(std::move(data), {}, "mem.json"), fail_at_(fail_at) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
    if (++reads_ >= fail_at_) return absl::DataLossError("mem.json: the disk is on fire");
    return MemoryInputStream::Read(buffer, capacity);
  }

 private:
  int fail_at_;
  int reads_ = 0;
};

// A read error comes after the bytes read before it, whichever thread reads:
// the same events, malformed elements and error.
TEST(TraceJsonThreadsTest, ReadErrorsComeAfterTheSameBytes) {
  const std::string doc = MakeDoc(400, true);
  for (size_t chunk : {64, 1000}) {
    for (int fail_at = 1; static_cast<size_t>(fail_at) * chunk < doc.size() + 2 * chunk;
         fail_at += 3) {
      SCOPED_TRACE(absl::StrCat("chunk ", chunk, " fail at read ", fail_at));
      std::string logs[2];
      for (int t = 0; t < 2; ++t) {
        FailingStream in(doc, fail_at);
        LogHandler handler;
        json::TraceJsonReaderOptions options;
        options.chunk_bytes = chunk;
        options.threads = t + 1;
        auto result = json::ReadTraceJson(&in, options, &handler);
        for (const std::string& line : handler.log) absl::StrAppend(&logs[t], line, "\n");
        absl::StrAppend(&logs[t], result.ok() ? "OK" : result.status().ToString());
      }
      EXPECT_EQ(logs[1], logs[0]);
    }
  }
}

// Every trace under `dir`, recursively.
void ListTraces(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      ListTraces(path, out);
    } else if (absl::EndsWith(name, ".json") || absl::EndsWith(name, ".json.gz")) {
      out->push_back(path);
    }
  }
  closedir(d);
  std::sort(out->begin(), out->end());
}

std::string Convert(const std::string& path, int threads, int64_t max_events) {
  ChromeJsonOptions options;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  options.max_events = max_events;
  xplane::XSpaceData space;
  auto summary = ConvertChromeJsonToXSpace(path, options, &space);
  if (!summary.ok()) return absl::StrCat("ERROR ", summary.status().ToString());
  std::string out = absl::StrCat(
      "read=", summary->events_read, " converted=", summary->events_converted,
      " ignored=", summary->events_ignored, " meta=", summary->metadata_events,
      " malformed=", summary->events_malformed, " kernels=", summary->kernels,
      " steps=", summary->step_roots, " moved=", summary->events_moved,
      " host=", summary->hostname_hint, " rank=", summary->rank, "\n");
  for (const std::string& m : summary->malformed_examples) absl::StrAppend(&out, m, "\n");
  absl::StrAppend(&out, xplane::SerializeXSpaceData(space));
  return out;
}

TEST(TraceJsonThreadsTest, ByteIdenticalOnAllTestTraces) {
  std::vector<std::string> traces;
  ListTraces(absl::StrCat(TBPROF_SOURCE_DIR, "/testdata/chrome_json"), &traces);
  std::vector<std::string> shared;
  ListTraces(absl::StrCat(TBPROF_SHARED_TESTDATA, "/kineto"), &shared);
  traces.insert(traces.end(), shared.begin(), shared.end());
  ASSERT_GE(traces.size(), 10u);
  for (const std::string& path : traces) {
    SCOPED_TRACE(path);
    const std::string serial = Convert(path, 1, 0);
    for (int threads : {2, 3, 4}) {
      std::string parallel = Convert(path, threads, 0);
      EXPECT_EQ(parallel.size(), serial.size());
      EXPECT_TRUE(parallel == serial) << parallel.substr(0, 300) << "\nvs\n"
                                      << serial.substr(0, 300);
    }
    // --max-events stops at the same event with the same message.
    EXPECT_EQ(Convert(path, 2, 1000), Convert(path, 1, 1000));
  }
}

// A damaged or cut gzip file: the same result with 1 and 2 threads (the
// reads are the same, so the inflater fails at the same place).
TEST(TraceJsonThreadsTest, DamagedGzipGivesTheSameResult) {
  absl::StatusOr<std::string> gz = GzipCompress(MakeDoc(3000, true));
  ASSERT_TRUE(gz.ok());
  const std::string dir = ::testing::TempDir();
  for (size_t at : {size_t{30}, gz->size() / 3, gz->size() / 2, gz->size() - 9}) {
    for (bool cut : {true, false}) {
      SCOPED_TRACE(absl::StrCat(cut ? "cut" : "flipped", " at ", at));
      std::string damaged = cut ? gz->substr(0, at) : *gz;
      if (!cut) damaged[at] = static_cast<char>(damaged[at] ^ 0x55);
      const std::string path = absl::StrCat(dir, "/damaged.json.gz");
      ASSERT_TRUE(WriteFileAtomically(path, damaged, AtomicOutputFile::Overwrite::kReplace).ok());
      const std::string serial = Convert(path, 1, 0);
      EXPECT_TRUE(absl::StartsWith(serial, "ERROR ")) << serial.substr(0, 200);
      EXPECT_EQ(Convert(path, 2, 0), serial);
    }
  }
}

}  // namespace
}  // namespace tbprof::converters
