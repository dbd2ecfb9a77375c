#include "converters/views/trace/xspace_to_trace_json.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::views {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;
using ::testing::HasSubstr;
using xplane::StatType;

// Parses the JSON back with protobuf's JSON reader (numbers become doubles).
Struct ParseJson(const std::string& json) {
  Struct out;
  auto status = google::protobuf::util::JsonStringToMessage(json, &out);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json.substr(0, 2000);
  return out;
}

std::vector<const Struct*> EventsWith(const Struct& doc, absl::string_view ph,
                                      absl::string_view name = "") {
  std::vector<const Struct*> out;
  for (const Value& v : doc.fields().at("traceEvents").list_value().values()) {
    const Struct& e = v.struct_value();
    if (e.fields().at("ph").string_value() != ph) continue;
    if (!name.empty() && e.fields().at("name").string_value() != name) continue;
    out.push_back(&e);
  }
  return out;
}

double Num(const Struct& e, const std::string& key) { return e.fields().at(key).number_value(); }
std::string Str(const Struct& e, const std::string& key) {
  return e.fields().at(key).string_value();
}

// Host thread 42 with a launch and an instant event; GPU 0 stream 7 with a kernel.
void BuildSmallSpace(xplane::XSpaceData* space) {
  xplane::XSpaceBuilder builder(space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* thread = host->GetOrCreateLine(/*line_id=*/42);
  thread->SetName("python \"main\"");
  xplane::XEventBuilder launch =
      thread->AddEvent(host->GetOrCreateEventMetadata("cudaLaunchKernel"),
                       /*offset_ps=*/1234567, /*duration_ps=*/500000);
  launch.AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId), 77);
  thread->AddEvent(host->GetOrCreateEventMetadata("marker"), /*offset_ps=*/3000000,
                   /*duration_ps=*/0);
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  gpu->SetStatString(gpu->GetOrCreateStatMetadata(StatType::kGpuDeviceName), "NVIDIA H100");
  xplane::XLineBuilder* stream = gpu->GetOrCreateLine(/*line_id=*/7);
  stream->SetName("Stream #7");
  xplane::XEventBuilder kernel = stream->AddEvent(gpu->GetOrCreateEventMetadata("gemm<\x01\xff>"),
                                                  /*offset_ps=*/2000001, /*duration_ps=*/999999);
  kernel.AddRef(gpu->GetOrCreateStatMetadata(StatType::kKernelDetails), "regs:32 grid:1,1,1");
  kernel.AddDouble(gpu->GetOrCreateStatMetadata("ratio"), 0.5);
  kernel.AddUint64(gpu->GetOrCreateStatMetadata("big"), 18446744073709551615ull);
  builder.AddWarning("1 malformed event skipped");
  builder.Finalize({.normalize_timestamps = false});
}

TEST(XSpaceToTraceJsonTest, WritesProcessesThreadsAndEvents) {
  xplane::XSpaceData space;
  BuildSmallSpace(&space);
  absl::StatusOr<std::string> json = ConvertXSpaceToTraceJson(space);
  ASSERT_TRUE(json.ok()) << json.status();
  Struct doc = ParseJson(*json);
  EXPECT_EQ(Str(doc, "displayTimeUnit"), "ns");

  std::vector<std::string> processes;
  for (const Struct* e : EventsWith(doc, "M", "process_name")) {
    processes.push_back(
        absl::StrCat(Num(*e, "pid"), "=",
                     e->fields().at("args").struct_value().fields().at("name").string_value()));
  }
  EXPECT_THAT(processes, ::testing::ElementsAre("701=/host:CPU", "1=/device:GPU:0"));
  std::vector<std::string> threads;
  for (const Struct* e : EventsWith(doc, "M", "thread_name")) {
    threads.push_back(
        absl::StrCat(Num(*e, "pid"), "/", Num(*e, "tid"), "=",
                     e->fields().at("args").struct_value().fields().at("name").string_value()));
  }
  EXPECT_THAT(threads, ::testing::ElementsAre("701/42=python \"main\"", "1/7=Stream #7"));

  std::vector<const Struct*> launches = EventsWith(doc, "X", "cudaLaunchKernel");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_DOUBLE_EQ(Num(*launches[0], "ts"), 1.234567);
  EXPECT_DOUBLE_EQ(Num(*launches[0], "dur"), 0.5);
  EXPECT_EQ(Num(*launches[0], "pid"), 701);
  EXPECT_EQ(Num(*launches[0], "tid"), 42);
  EXPECT_EQ(
      launches[0]->fields().at("args").struct_value().fields().at("correlation_id").number_value(),
      77);
  // Exact decimals in the text, not just close doubles.
  EXPECT_THAT(*json, HasSubstr("\"ts\":1.234567,\"dur\":0.5,"));
  EXPECT_THAT(*json, HasSubstr("\"ts\":2.000001,\"dur\":0.999999,"));

  std::vector<const Struct*> instants = EventsWith(doc, "i", "marker");
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(Str(*instants[0], "s"), "t");
  EXPECT_DOUBLE_EQ(Num(*instants[0], "ts"), 3);
  EXPECT_EQ(instants[0]->fields().count("dur"), 0u);

  // The kernel: name with a control byte and an invalid UTF-8 byte, ref arg resolved.
  std::vector<const Struct*> kernels = EventsWith(doc, "X");
  const Struct* kernel = nullptr;
  for (const Struct* e : kernels) {
    if (Num(*e, "pid") == 1) kernel = e;
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(Str(*kernel, "name"), "gemm<\x01\xEF\xBF\xBD>");
  const auto& args = kernel->fields().at("args").struct_value().fields();
  EXPECT_EQ(args.at("kernel_details").string_value(), "regs:32 grid:1,1,1");
  EXPECT_DOUBLE_EQ(args.at("ratio").number_value(), 0.5);
  EXPECT_THAT(*json, HasSubstr("\"big\":18446744073709551615"));

  const auto& metadata = doc.fields().at("metadata").struct_value().fields();
  EXPECT_EQ(metadata.at("tbprof_events_total").number_value(), 3);
  EXPECT_FALSE(metadata.at("tbprof_truncated").bool_value());
  EXPECT_EQ(metadata.at("warnings").list_value().values(0).string_value(),
            "1 malformed event skipped");
  EXPECT_THAT(*json,
              HasSubstr("\"name\":\"process_labels\",\"args\":{\"labels\":\"NVIDIA H100\"}"));
}

TEST(XSpaceToTraceJsonTest, MaxEventsKeepsTheEarliestEvents) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  // 10 events, 1 us apart, alternating between a host thread and a stream.
  for (int i = 0; i < 10; ++i) {
    xplane::XPlaneBuilder* plane = i % 2 == 0 ? host : gpu;
    plane->GetOrCreateLine(1)->AddEvent(plane->GetOrCreateEventMetadata(absl::StrCat("e", i)),
                                        /*offset_ps=*/i * 1000000, /*duration_ps=*/1000);
  }
  builder.Finalize({.normalize_timestamps = false});

  std::string json;
  absl::StatusOr<TraceJsonSummary> summary =
      WriteXSpaceAsTraceJson(space, {.max_events = 4}, [&json](absl::string_view bytes) {
        json.append(bytes.data(), bytes.size());
        return absl::OkStatus();
      });
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->events_total, 10);
  EXPECT_EQ(summary->events_written, 4);
  EXPECT_TRUE(summary->truncated);
  EXPECT_EQ(summary->cutoff_ps, 4000000);
  Struct doc = ParseJson(json);
  std::vector<std::string> names;
  for (const Struct* e : EventsWith(doc, "X")) names.push_back(Str(*e, "name"));
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ::testing::ElementsAre("e0", "e1", "e2", "e3"));
  const auto& metadata = doc.fields().at("metadata").struct_value().fields();
  EXPECT_TRUE(metadata.at("tbprof_truncated").bool_value());
  EXPECT_DOUBLE_EQ(metadata.at("tbprof_cutoff_us").number_value(), 4);

  absl::StatusOr<TraceJsonSummary> unlimited = WriteXSpaceAsTraceJson(
      space, {.max_events = 0}, [](absl::string_view) { return absl::OkStatus(); });
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(unlimited->events_written, 10);
  EXPECT_FALSE(unlimited->truncated);
}

TEST(XSpaceToTraceJsonTest, SinkErrorIsReturned) {
  xplane::XSpaceData space;
  BuildSmallSpace(&space);
  absl::StatusOr<TraceJsonSummary> summary = WriteXSpaceAsTraceJson(
      space, {}, [](absl::string_view) { return absl::ResourceExhaustedError("disk full"); });
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(XSpaceToTraceJsonTest, GzipFileHoldsTheSameJson) {
  xplane::XSpaceData space;
  BuildSmallSpace(&space);
  char dir_template[] = "/tmp/tbprof_trace_json_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/host.trace.json.gz";
  {
    auto file = AtomicOutputFile::Create(path);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<TraceJsonSummary> summary = WriteXSpaceAsTraceJsonGz(space, {}, file->get());
    ASSERT_TRUE(summary.ok()) << summary.status();
    ASSERT_TRUE((*file)->Commit(AtomicOutputFile::Overwrite::kRefuse).ok());
  }
  absl::StatusOr<std::string> from_file = ReadFileToString(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  absl::StatusOr<std::string> direct = ConvertXSpaceToTraceJson(space);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(*from_file, *direct);
  absl::StatusOr<std::string> in_memory = ConvertXSpaceToTraceJsonGz(space, {.gzip_level = 9});
  ASSERT_TRUE(in_memory.ok()) << in_memory.status();
  const std::string path9 = std::string(dir_template) + "/host9.trace.json.gz";
  ASSERT_TRUE(WriteFileAtomically(path9, *in_memory, AtomicOutputFile::Overwrite::kRefuse).ok());
  absl::StatusOr<std::string> from_memory = ReadFileToString(path9);
  ASSERT_TRUE(from_memory.ok()) << from_memory.status();
  EXPECT_EQ(*from_memory, *direct);
  unlink(path9.c_str());
  unlink(path.c_str());
  rmdir(dir_template);
}

TEST(XSpaceToTraceJsonTest, PicosAsExactMicros) {
  auto micros = [](int64_t ps) {
    std::string s;
    AppendPicosAsMicros(ps, &s);
    return s;
  };
  EXPECT_EQ(micros(0), "0");
  EXPECT_EQ(micros(1), "0.000001");
  EXPECT_EQ(micros(1234567), "1.234567");
  EXPECT_EQ(micros(5000000), "5");
  EXPECT_EQ(micros(1500000), "1.5");
  EXPECT_EQ(micros(-1500000), "-1.5");
  EXPECT_EQ(micros(1428625746340715000), "1428625746340.715");
  EXPECT_EQ(micros(INT64_MIN), "-9223372036854.775808");
  EXPECT_EQ(micros(INT64_MAX), "9223372036854.775807");
  EXPECT_EQ(micros(99000000), "99");
  EXPECT_EQ(micros(100000000), "100");
  EXPECT_EQ(micros(10), "0.00001");
  EXPECT_EQ(micros(100100), "0.1001");
}

// The digit-pair formatting against a plain one, on every digit count and
// fractions with any number of trailing zeros.
TEST(FormatPicosAsMicrosTest, MatchesPlainDecimalFormatting) {
  auto plain = [](int64_t ps) {
    const bool negative = ps < 0;
    const uint64_t m = negative ? ~static_cast<uint64_t>(ps) + 1 : static_cast<uint64_t>(ps);
    std::string text = absl::StrCat(negative ? "-" : "", m / 1000000);
    if (m % 1000000 != 0) {
      std::string fraction = absl::StrCat(1000000 + m % 1000000).substr(1);
      while (fraction.back() == '0') fraction.pop_back();
      absl::StrAppend(&text, ".", fraction);
    }
    return text;
  };
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    // Magnitudes of every size, and fractions cut to 0..6 significant digits.
    int64_t ps = static_cast<int64_t>(x >> (x % 64));
    static constexpr int64_t kCut[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    ps -= ps % kCut[(x >> 8) % 7];
    if ((x >> 20) & 1) ps = -ps;
    char text[kMaxPicosAsMicrosChars];
    ASSERT_EQ(std::string(text, FormatPicosAsMicros(ps, text)), plain(ps)) << ps;
  }
}

}  // namespace
}  // namespace tbprof::views
