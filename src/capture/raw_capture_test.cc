#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/capture/raw_capture.h"
#include "src/capture/raw_capture_reader.h"
#include "src/capture/raw_capture_writer.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::capture {
namespace {

using ::testing::HasSubstr;

// A path for a test file, removed when the test program exits.
std::string TempPath(const std::string& name) {
  return testing_util::TempFilePath("raw_capture_test_" + std::to_string(getpid()) + "_" + name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CaptureHeader TestHeader() {
  CaptureHeader h;
  h.cupti_api_version_build = 130001;
  h.cupti_version_runtime = 130002;
  h.cuda_version_build = 13000;
  h.cuda_driver_version = 13010;
  h.cuda_runtime_version = 13000;
  h.pid = 4242;
  h.flags = kHeaderFlagNameIdsInRecords;
  h.start_cupti_ns = 1000;
  h.start_realtime_ns = 1700000000000000000;
  h.start_monotonic_ns = 555;
  h.buffer_bytes_budget = 64 << 20;
  h.buffer_size = 4 << 20;
  h.hostname = "host.example";
  h.command_line = "python train.py";
  h.step_pattern = "ProfilerStep#*";
  h.run_name = "run1";
  h.kind_sizes = {{layout::kKindConcurrentKernel, 216}, {layout::kKindRuntime, 40}};
  return h;
}

// Writes a small capture with one chunk of every type and returns its path;
// *chunk_ends receives the file offset just past each chunk (header first).
std::string WriteSmallCapture(const std::string& name, std::vector<uint64_t>* chunk_ends) {
  std::string path = TempPath(name);
  int err = 0;
  auto w = RawCaptureWriter::Create(path, TestHeader(), &err);
  EXPECT_NE(w, nullptr) << err;
  std::vector<uint64_t> ends;
  ends.push_back(w->bytes_written());
  auto mark = [&](bool ok) {
    EXPECT_TRUE(ok);
    ends.push_back(w->bytes_written());
  };
  StringEntry strings[] = {{/*id=*/1, "kernelA"}, {/*id=*/2, "ProfilerStep#3"}};
  mark(w->AppendStrings(strings, 2));
  layout::ApiRecord api{};
  api.kind = layout::kKindRuntime;
  api.cbid = 211;
  api.start = 10;
  api.end = 20;
  api.thread_id = 77;
  api.correlation_id = 5;
  mark(w->AppendActivityBuffer(/*stream_id=*/0, &api, sizeof(api)));
  DeviceProperties dev;
  dev.ordinal = 0;
  dev.name = "Fake H100";
  dev.uuid[0] = 0xab;
  dev.Set(DeviceAttr::kMultiprocessorCount, 132);
  dev.Set(DeviceAttr::kTotalMemoryBytes, int64_t{80} << 30);
  mark(w->AppendDeviceProperties(dev));
  mark(w->AppendThreadNames({{/*tid=*/77, "python"}, {/*tid=*/78, "pt_autograd_0"}}));
  mark(w->AppendDroppedRecords({/*cupti_ts_ns=*/30, /*dropped_by_cupti=*/7,
                                /*buffers_refused=*/2, /*discarded_bytes=*/0}));
  Marker m;
  m.kind = MarkerKind::kStep;
  m.cupti_ts_ns = 40;
  m.value = 3;
  m.tid = 77;
  m.name = "step";
  mark(w->AppendMarker(m));
  mark(w->AppendClockSample({/*cupti_ns=*/50, /*realtime_ns=*/60, /*monotonic_ns=*/70,
                             /*uncertainty_ns=*/80}));
  mark(w->AppendKindSizes({{layout::kKindMemcpy, 96}}));
  mark(w->AppendMessage({MessageSeverity::kWarning, /*code=*/39, "another profiler"}));
  mark(w->AppendCallbackNames({{/*domain=*/2, /*cbid=*/211, "cudaLaunchKernel_v7000"}}));
  Trailer t;
  t.activity_buffers = 1;
  t.activity_bytes = sizeof(api);
  t.end_reason = EndReason::kStopped;
  mark(w->Finish(t));
  *chunk_ends = ends;
  return path;
}

TEST(RawCaptureTest, RoundTripsEveryChunkType) {
  std::vector<uint64_t> ends;
  std::string path = WriteSmallCapture("roundtrip", &ends);
  auto cap_or = LoadRawCapture(path);
  ASSERT_TRUE(cap_or.ok()) << cap_or.status();
  const RawCapture& cap = *cap_or;
  EXPECT_EQ(cap.header.hostname, "host.example");
  EXPECT_EQ(cap.header.pid, 4242u);
  EXPECT_EQ(cap.header.cupti_version_runtime, 130002u);
  EXPECT_EQ(cap.header.cuda_driver_version, 13010);
  EXPECT_EQ(cap.header.start_realtime_ns, 1700000000000000000);
  EXPECT_EQ(cap.header.step_pattern, "ProfilerStep#*");
  ASSERT_EQ(cap.header.kind_sizes.size(), 2u);
  EXPECT_EQ(cap.String(1), "kernelA");
  EXPECT_EQ(cap.String(2), "ProfilerStep#3");
  EXPECT_EQ(cap.String(99), "");
  ASSERT_EQ(cap.buffers.size(), 1u);
  EXPECT_EQ(cap.buffers[0].size, sizeof(layout::ApiRecord));
  ActivityRecordIterator it(cap.buffers[0].records(), *cap.buffers[0].sizes);
  ActivityRecord rec;
  ASSERT_TRUE(it.Next(&rec));
  layout::ApiRecord api;
  ASSERT_TRUE(layout::CopyRecord(rec.data, rec.size, &api));
  EXPECT_EQ(api.cbid, 211u);
  EXPECT_EQ(api.thread_id, 77u);
  EXPECT_FALSE(it.Next(&rec));
  EXPECT_TRUE(it.ok());
  ASSERT_EQ(cap.devices.size(), 1u);
  EXPECT_EQ(cap.devices[0].name, "Fake H100");
  EXPECT_EQ(cap.devices[0].uuid[0], 0xab);
  EXPECT_EQ(cap.devices[0].Get(DeviceAttr::kMultiprocessorCount), 132);
  EXPECT_EQ(cap.devices[0].Get(DeviceAttr::kWarpSize, -1), -1);
  ASSERT_EQ(cap.thread_names.size(), 2u);
  EXPECT_EQ(cap.thread_names[1].name, "pt_autograd_0");
  ASSERT_EQ(cap.drops.size(), 1u);
  EXPECT_EQ(cap.drops[0].dropped_by_cupti, 7u);
  ASSERT_EQ(cap.markers.size(), 1u);
  EXPECT_EQ(cap.markers[0].value, 3);
  ASSERT_EQ(cap.clock_samples.size(), 1u);
  EXPECT_EQ(cap.clock_samples[0].uncertainty_ns, 80);
  ASSERT_EQ(cap.messages.size(), 1u);
  EXPECT_EQ(cap.messages[0].code, 39);
  EXPECT_EQ((cap.callback_names.at({2, 211})), "cudaLaunchKernel_v7000");
  ASSERT_TRUE(cap.trailer.has_value());
  EXPECT_EQ(cap.trailer->end_reason, EndReason::kStopped);
  EXPECT_EQ(cap.trailer->chunks, ends.size() - 1);  // all chunks before the trailer
  EXPECT_FALSE(cap.read_stats.lost_anything());
  EXPECT_TRUE(cap.read_stats.has_trailer);
  EXPECT_EQ(cap.undecodable_chunks, 0u);
  EXPECT_EQ(cap.unknown_chunks, 0u);
}

TEST(RawCaptureTest, KindSizesChunkAppliesToLaterBuffers) {
  std::string path = TempPath("kindsizes");
  int err = 0;
  auto w = RawCaptureWriter::Create(path, TestHeader(), &err);
  ASSERT_NE(w, nullptr);
  layout::ApiRecord api{};
  api.kind = layout::kKindRuntime;
  ASSERT_TRUE(w->AppendActivityBuffer(0, &api, sizeof(api)));
  ASSERT_TRUE(w->AppendKindSizes({{layout::kKindRuntime, 48}}));
  char bigger[48] = {};
  std::memcpy(bigger, &api, sizeof(api));
  ASSERT_TRUE(w->AppendActivityBuffer(0, bigger, sizeof(bigger)));
  w.reset();
  auto cap = LoadRawCapture(path);
  ASSERT_TRUE(cap.ok());
  ASSERT_EQ(cap->buffers.size(), 2u);
  EXPECT_EQ(cap->buffers[0].sizes->Get(layout::kKindRuntime), 40u);
  EXPECT_EQ(cap->buffers[1].sizes->Get(layout::kKindRuntime), 48u);
  EXPECT_FALSE(cap->trailer.has_value());
  EXPECT_THAT(RawCaptureReader::Open(path).value()->LossSummary(), HasSubstr(""));
}

TEST(RawCaptureTest, TruncationAtEveryByteKeepsEveryCompleteChunk) {
  std::vector<uint64_t> ends;
  std::string full = ReadFile(WriteSmallCapture("truncate", &ends));
  ASSERT_EQ(ends.back(), full.size());
  const uint64_t header_end = ends.front();
  for (size_t len = 0; len < full.size(); ++len) {
    SCOPED_TRACE(len);
    auto reader = RawCaptureReader::FromString(full.substr(0, len), "cut.tbcap");
    if (len < header_end) {
      ASSERT_FALSE(reader.ok());
      EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss);
      EXPECT_THAT(std::string(reader.status().message()), HasSubstr("cut.tbcap"));
      continue;
    }
    ASSERT_TRUE(reader.ok()) << reader.status();
    RawCapture cap = LoadRawCaptureFrom(reader->get());
    size_t complete = 0;  // chunks after the header fully inside [0, len)
    uint64_t last_end = header_end;
    for (size_t i = 1; i < ends.size(); ++i) {
      if (ends[i] <= len) {
        ++complete;
        last_end = ends[i];
      }
    }
    EXPECT_EQ(cap.read_stats.chunks_read, complete + 1);
    EXPECT_EQ(cap.read_stats.truncated_bytes, len - last_end);
    EXPECT_EQ(cap.read_stats.corrupt_chunks, 0u);
    EXPECT_FALSE(cap.read_stats.has_trailer);
    EXPECT_EQ(cap.undecodable_chunks, 0u);
    EXPECT_THAT((*reader)->LossSummary(), HasSubstr("no trailer"));
  }
}

TEST(RawCaptureTest, CorruptChunkIsSkippedAndCounted) {
  std::vector<uint64_t> ends;
  std::string data = ReadFile(WriteSmallCapture("corrupt", &ends));
  // Flip a payload byte of the third chunk (the activity buffer).
  data[ends[1] + kChunkHeaderSize + 3] ^= 0x40;
  auto reader = RawCaptureReader::FromString(data, "c.tbcap");
  ASSERT_TRUE(reader.ok());
  RawCapture cap = LoadRawCaptureFrom(reader->get());
  EXPECT_EQ(cap.read_stats.corrupt_chunks, 1u);
  EXPECT_EQ(cap.read_stats.skipped_bytes, ends[2] - ends[1]);
  EXPECT_TRUE(cap.buffers.empty());
  EXPECT_TRUE(cap.trailer.has_value());
  EXPECT_EQ(cap.devices.size(), 1u);
  ASSERT_FALSE(cap.read_stats.problems.empty());
  EXPECT_THAT(cap.read_stats.problems[0],
              HasSubstr("CRC mismatch in chunk (type 2) at offset " + std::to_string(ends[1])));
}

TEST(RawCaptureTest, GarbageBetweenChunksIsSkipped) {
  std::vector<uint64_t> ends;
  std::string data = ReadFile(WriteSmallCapture("garbage", &ends));
  data.insert(ends[4], std::string(40, '\x5a'));
  auto reader = RawCaptureReader::FromString(data, "g.tbcap");
  ASSERT_TRUE(reader.ok());
  RawCapture cap = LoadRawCaptureFrom(reader->get());
  EXPECT_EQ(cap.read_stats.skipped_bytes, 40u);
  EXPECT_EQ(cap.read_stats.chunks_read, ends.size());
  EXPECT_TRUE(cap.trailer.has_value());
}

TEST(RawCaptureTest, CorruptLengthInMiddleResyncs) {
  std::vector<uint64_t> ends;
  std::string data = ReadFile(WriteSmallCapture("badlen", &ends));
  uint32_t huge = 1u << 29;  // plausible but past the end of the file
  std::memcpy(&data[ends[2] + 8], &huge, 4);  // the device chunk
  auto reader = RawCaptureReader::FromString(data, "l.tbcap");
  ASSERT_TRUE(reader.ok());
  RawCapture cap = LoadRawCaptureFrom(reader->get());
  EXPECT_EQ(cap.read_stats.corrupt_chunks, 1u);
  EXPECT_EQ(cap.read_stats.truncated_bytes, 0u);
  EXPECT_TRUE(cap.devices.empty());  // the damaged chunk
  EXPECT_TRUE(cap.trailer.has_value());
}

TEST(RawCaptureTest, HeaderErrors) {
  EXPECT_EQ(RawCaptureReader::Open("/nonexistent/x.tbcap").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(RawCaptureReader::FromString("not a capture at all", "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<uint64_t> ends;
  std::string data = ReadFile(WriteSmallCapture("hdr", &ends));
  std::string broken = data;
  broken[kChunkHeaderSize + 8 + 20] ^= 1;  // inside the header payload
  auto r = RawCaptureReader::FromString(broken, "h.tbcap");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("offset 8"));

  CaptureHeader h = TestHeader();
  h.format_major = 2;
  std::string path = TempPath("v2");
  int err = 0;
  ASSERT_NE(RawCaptureWriter::Create(path, h, &err), nullptr);
  EXPECT_EQ(RawCaptureReader::Open(path).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(RawCaptureTest, WriterRefusesExistingFileAndOversizedPayload) {
  std::vector<uint64_t> ends;
  std::string path = WriteSmallCapture("exists", &ends);
  int err = 0;
  EXPECT_EQ(RawCaptureWriter::Create(path, TestHeader(), &err), nullptr);
  EXPECT_EQ(err, EEXIST);
  int fd = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(RawCaptureWriter::FromFd(fd, TestHeader(), &err), nullptr);
  EXPECT_EQ(err, EBADF);
}

// Pins the byte layout documented in docs/raw_capture_format.md.
TEST(RawCaptureTest, ByteLayoutMatchesTheDocumentation) {
  std::string path = TempPath("layout");
  int err = 0;
  CaptureHeader h = TestHeader();
  auto w = RawCaptureWriter::Create(path, h, &err);
  ASSERT_NE(w, nullptr);
  Trailer t;
  t.end_reason = EndReason::kProcessExit;
  ASSERT_TRUE(w->Finish(t));
  std::string b = ReadFile(path);
  auto u32 = [&](size_t off) {
    uint32_t v;
    std::memcpy(&v, &b[off], 4);
    return v;
  };
  auto u64 = [&](size_t off) {
    uint64_t v;
    std::memcpy(&v, &b[off], 8);
    return v;
  };
  EXPECT_EQ(b.substr(0, 8), std::string("\x89TBCAP\r\n", 8));
  EXPECT_EQ(b.substr(8, 4), "TBCK");
  EXPECT_EQ(u32(12), 1u);  // header type
  const uint32_t header_size = u32(16);
  EXPECT_EQ(u32(20), Crc32(Crc32(0, &b[12], 8), &b[24], header_size));
  const size_t p = 24;  // header payload
  EXPECT_EQ(u32(p + 0), 1u);  // major 1, minor 0
  EXPECT_EQ(u32(p + 4), 130001u);
  EXPECT_EQ(u32(p + 24), 4242u);  // pid
  EXPECT_EQ(u32(p + 28), kHeaderFlagNameIdsInRecords);
  EXPECT_EQ(u32(p + 36), 4u << 20);  // buffer_size
  EXPECT_EQ(u64(p + 48), 1700000000000000000u);
  EXPECT_EQ(u32(p + 72), h.hostname.size());
  EXPECT_EQ(b.substr(p + 76, h.hostname.size()), h.hostname);
  const size_t trailer = p + ((header_size + 7) / 8) * 8;
  EXPECT_EQ(b.substr(trailer, 4), "TBCK");
  EXPECT_EQ(u32(trailer + 4), 11u);
  EXPECT_EQ(u32(trailer + 8), 88u);
  EXPECT_EQ(u64(trailer + 16), 1u);  // chunks before the trailer
  EXPECT_EQ(u32(trailer + 16 + 80), 2u);  // end reason: process exit
  EXPECT_EQ(b.size(), trailer + 16 + 88);
}

// Random damage anywhere past the header never crashes the reader or the
// record walker, and never loses more than it reports.
TEST(RawCaptureTest, RandomCorruptionIsContained) {
  std::vector<uint64_t> ends;
  std::string full = ReadFile(WriteSmallCapture("random", &ends));
  std::mt19937 rng(12345);
  for (int round = 0; round < 2000; ++round) {
    std::string data = full;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      size_t pos = ends[0] + rng() % (data.size() - ends[0]);
      data[pos] = static_cast<char>(rng());
    }
    if (rng() % 4 == 0) data.resize(ends[0] + rng() % (data.size() - ends[0]));
    auto reader = RawCaptureReader::FromString(data, "fuzz.tbcap");
    ASSERT_TRUE(reader.ok()) << reader.status();
    RawCapture cap = LoadRawCaptureFrom(reader->get());
    for (const auto& buf : cap.buffers) {
      ActivityRecordIterator it(buf.records(), *buf.sizes);
      ActivityRecord r;
      while (it.Next(&r)) ASSERT_LE(r.offset + r.size, buf.size);
    }
    const ReadStats& st = cap.read_stats;
    EXPECT_LE(st.skipped_bytes + st.truncated_bytes, data.size() - ends[0]);
  }
}

}  // namespace
}  // namespace tbprof::capture
