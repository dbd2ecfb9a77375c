// Damaged and hostile inputs: every one must end in a clear error or a
// counted warning, never a crash, a hang or unbounded memory. Runs through
// the library entry points `tbprof convert` uses (LoadInput, the converters,
// the views) and, where the message or exit code matters, through the tbprof
// binary. Large inputs are generated into the temp dir and deleted.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/raw_capture/raw_capture_to_xspace.h"
#include "converters/views/all/all_views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/resource_usage.h"
#include "src/capture/cupti_record_layout.h"
#include "src/capture/raw_capture_writer.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"
#include "tests/hostile_test_util.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace testing_util;  // NOLINT

class HostileInputsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("hostile"); }
  void TearDown() override { RemoveTree(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Converts `json` (written to a file) as `tbprof convert` loads it.
  absl::StatusOr<cli::LoadedInput> Load(const std::string& name, const std::string& json,
                                        cli::LoadOptions options = {}) {
    WriteFile(Path(name), json);
    return cli::LoadInput(Path(name), options);
  }

  std::string dir_;
};

// Every line's events are sorted and only nest (the plugin's contract).
void ExpectLinesNest(const xplane::XSpaceData& space) {
  const int64_t base = xplane::SpaceBaseNs(space);
  for (const xplane::Plane& plane : space.planes) {
    xplane::XPlaneVisitor pv(&space, &plane, base);
    pv.ForEachLine([&](const xplane::XLineVisitor& line) {
      std::vector<int64_t> open_ends;
      int64_t last_begin = INT64_MIN;
      line.ForEachEvent([&](const xplane::XEventVisitor& e) {
        EXPECT_GE(e.duration_ps(), 0) << line.name() << " " << e.name();
        EXPECT_GE(e.begin_ps(), last_begin) << "unsorted line " << line.name();
        last_begin = e.begin_ps();
        while (!open_ends.empty() && open_ends.back() <= e.begin_ps()) open_ends.pop_back();
        if (!open_ends.empty()) {
          EXPECT_LE(e.end_ps(), open_ends.back())
              << "partial overlap on line " << line.name() << ": " << e.name();
        }
        open_ends.push_back(e.end_ps());
      });
    });
  }
}

// Runs every view and the serialize/parse round trip over `space`.
void ExpectViewsRun(const xplane::XSpaceData& space) {
  absl::StatusOr<views::AllViews> all = views::ComputeAllViews(space);
  EXPECT_TRUE(all.ok() || all.status().code() == absl::StatusCode::kInvalidArgument)
      << all.status();
  absl::StatusOr<std::string> trace = views::ConvertXSpaceToTraceJson(space);
  EXPECT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<xplane::XSpaceData> again =
      xplane::ParseXSpaceData(xplane::SerializeXSpaceData(space), "round trip");
  EXPECT_TRUE(again.ok()) << again.status();
}

std::string Event(const std::string& fields) {
  return absl::StrCat(R"({"ph":"X","pid":1,"tid":1,)", fields, "}");
}

// ---- Nesting -------------------------------------------------------------------

TEST_F(HostileInputsTest, HundredThousandOpenBracketsIsATruncationError) {
  absl::StatusOr<cli::LoadedInput> loaded = Load("deep.json", std::string(100000, '['));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("deep.json"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("byte "));
}

TEST_F(HostileInputsTest, DeeplyNestedElementIsSkippedAndCounted) {
  std::string json = absl::StrCat(R"({"traceEvents":[)", std::string(100000, '['),
                                  std::string(100000, ']'), ",",
                                  Event(R"("name":"ok","ts":1,"dur":2)"), "]}");
  absl::StatusOr<cli::LoadedInput> loaded = Load("deep_element.json", json);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->json_summary->events_malformed, 1);
  EXPECT_EQ(loaded->json_summary->events_converted, 1);
}

TEST_F(HostileInputsTest, DeeplyNestedArgsAndTopLevelValuesDoNotRecurse) {
  const std::string deep_obj = [] {
    std::string s;
    for (int i = 0; i < 50000; ++i) s += R"({"a":)";
    s += "1";
    s += std::string(50000, '}');
    return s;
  }();
  std::string json = absl::StrCat(
      R"({"deviceProperties":)", deep_obj, R"(,"distributedInfo":)", deep_obj,
      R"(,"traceEvents":[)", Event(absl::StrCat(R"("name":"deep","ts":1,"dur":2,"args":)",
                                                deep_obj)),
      ",", Event(R"("name":"ok","ts":5,"dur":2)"), "]}");
  absl::StatusOr<cli::LoadedInput> loaded = Load("deep_args.json", json);
  if (loaded.ok()) {
    EXPECT_GE(loaded->json_summary->events_converted, 1);
    ExpectViewsRun(loaded->space);
  } else {
    EXPECT_THAT(loaded.status().message(), HasSubstr("deep_args.json"));
  }
}

// ---- Huge strings ------------------------------------------------------------------

constexpr uint64_t kHugeBytes = uint64_t{200} << 20;

TEST_F(HostileInputsTest, DefaultElementCapKeepsTheReaderBufferSmall) {
  // A 1 GB string must not become a 1 GB buffer: the default cap is far below.
  EXPECT_LE(converters::ChromeJsonOptions().max_element_bytes, size_t{256} << 20);
  EXPECT_GT(converters::ChromeJsonOptions().max_element_bytes, size_t{1} << 20);
}

TEST_F(HostileInputsTest, HugeStringInAnEventStopsAtTheElementCapWithBoundedMemory) {
  const std::string path = Path("huge_name.json");
  WriteWithHugeFill(path, R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":")",
                    'a', kHugeBytes, R"("}]})");
  ChildResult child = RunInChild([&] {
    converters::ChromeJsonOptions options;
    options.max_element_bytes = size_t{16} << 20;
    xplane::XSpaceData space;
    absl::StatusOr<converters::ChromeJsonSummary> summary =
        converters::ConvertChromeJsonToXSpace(path, options, &space);
    if (summary.ok()) return 1;
    if (summary.status().code() != absl::StatusCode::kResourceExhausted) return 2;
    if (!absl::StrContains(summary.status().message(), "larger than")) return 3;
    if (!absl::StrContains(summary.status().message(), "huge_name.json")) return 4;
    return 0;
  });
  ::unlink(path.c_str());
  EXPECT_EQ(child.signal, 0);
  EXPECT_EQ(child.exit_code, 0) << "1: accepted, 2: wrong code, 3/4: message";
  // The cap is 16 MB; the file is 200 MB. (Sanitizer builds add their own.)
  EXPECT_LT(child.max_rss_kb, 160 * 1024 + (kSanitizerSlackMb() << 10));
}

TEST_F(HostileInputsTest, HugeStringInASkippedTopLevelValueIsStreamed) {
  const std::string path = Path("huge_metadata.json");
  WriteWithHugeFill(path, R"({"metadata":")", 'b', kHugeBytes,
                    absl::StrCat(R"(","traceEvents":[)", Event(R"("name":"ok","ts":1,"dur":2)"),
                                 "]}"));
  ChildResult child = RunInChild([&] {
    converters::ChromeJsonOptions options;
    options.max_element_bytes = size_t{16} << 20;
    xplane::XSpaceData space;
    absl::StatusOr<converters::ChromeJsonSummary> summary =
        converters::ConvertChromeJsonToXSpace(path, options, &space);
    if (!summary.ok()) return 1;
    return summary->events_converted == 1 ? 0 : 2;
  });
  ::unlink(path.c_str());
  EXPECT_EQ(child.signal, 0);
  EXPECT_EQ(child.exit_code, 0);
  EXPECT_LT(child.max_rss_kb, 160 * 1024 + (kSanitizerSlackMb() << 10));
}

// ---- Absurd numbers ----------------------------------------------------------------

TEST_F(HostileInputsTest, HugeCountsIdsAndSizesAreSkippedOrClampedNotTrusted) {
  std::vector<std::string> events = {
      Event(R"("name":"ok","ts":10,"dur":5)"),
      // ids far outside int64, negative, fractional, as strings.
      R"({"ph":"X","name":"big pid","pid":1e30,"tid":-9223372036854775808,"ts":11,"dur":1})",
      R"({"ph":"X","name":"str ids","pid":"99999999999999999999999","tid":"x","ts":12,"dur":1})",
      // GPU work claiming absurd devices, streams and launch sizes.
      R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":13,"dur":1,"args":{"device":4294967296,"stream":-1,"correlation":18446744073709551616,"grid":[1000000000,1000000000,1000000000],"block":[1e9,-1,0],"registers per thread":1e12,"shared memory":-5}})",
      R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":14,"dur":1,"args":{"device":-7,"stream":9223372036854775807,"correlation":-1,"grid":"x","block":[],"est. achieved occupancy %":1e308}})",
      R"({"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":15,"dur":1,"args":{"device":2147483647,"stream":1}})",
      R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":16,"dur":1,"args":{"device":0,"stream":1,"bytes":1e300}})",
      // Memory events with impossible sizes.
      R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":17,"args":{"Device Type":1,"Device Id":1e15,"Bytes":1e300,"Total Allocated":-1e300,"Addr":-1}})",
      R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":18,"args":{"Device Type":1,"Device Id":0,"Bytes":-9223372036854775808,"Total Reserved":9223372036854775807}})",
  };
  // Many distinct devices: one plane each, bounded by the events given.
  for (int d = 0; d < 200; ++d) {
    events.push_back(absl::StrCat(R"({"ph":"X","cat":"kernel","name":"kd","pid":0,"tid":7,"ts":)",
                                  20 + d, R"(,"dur":1,"args":{"device":)", d * 1000003,
                                  R"(,"stream":7}})"));
  }
  std::string json = absl::StrCat(
      R"({"deviceProperties":[{"id":1e12,"name":"x","numSms":-1,"maxThreadsPerBlock":0,)"
      R"("regsPerBlock":-5,"sharedMemPerBlock":1e300,"computeMajor":99999999999},)"
      R"({"id":0,"numSms":0,"maxThreadsPerMultiprocessor":0,"warpSize":0}],)"
      R"("distributedInfo":{"rank":1e30},"traceEvents":[)",
      absl::StrJoin(events, ","), "]}");
  absl::StatusOr<cli::LoadedInput> loaded = Load("huge_numbers.json", json);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_GE(loaded->json_summary->events_converted, 1);
  ExpectLinesNest(loaded->space);
  ExpectViewsRun(loaded->space);
}

// ---- Bad times -------------------------------------------------------------------------

TEST_F(HostileInputsTest, NegativeNanAndInfiniteTimesAreCountedNeverFatal) {
  std::vector<std::string> events = {
      Event(R"("name":"ok","ts":100,"dur":5)"),
      Event(R"("name":"neg ts","ts":-1e18,"dur":5)"),
      Event(R"("name":"neg dur","ts":101,"dur":-5)"),
      Event(R"("name":"nan str","ts":"NaN","dur":5)"),
      Event(R"("name":"nan literal","ts":NaN,"dur":5)"),
      Event(R"("name":"inf","ts":1e400,"dur":5)"),
      Event(R"("name":"inf dur","ts":102,"dur":"inf")"),
      Event(R"("name":"huge dur","ts":103,"dur":1e300)"),
      Event(R"("name":"int64 edge","ts":9223372036854775807,"dur":9223372036854775807)"),
      Event(R"("name":"neg zero","ts":-0.0,"dur":-0)"),
      Event(R"("name":"frac","ts":104.0000000001,"dur":0.0000001)"),
      R"({"ph":"B","name":"b","pid":1,"tid":2,"ts":1e300})",
      R"({"ph":"E","pid":1,"tid":2,"ts":-5})",
      R"({"ph":"E","pid":1,"tid":3,"ts":5})",
      R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":-1e300,"args":{"Bytes":5}})",
  };
  absl::StatusOr<cli::LoadedInput> loaded =
      Load("bad_times.json", absl::StrCat("[", absl::StrJoin(events, ","), "]"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const converters::ChromeJsonSummary& s = *loaded->json_summary;
  EXPECT_GE(s.events_converted, 1);
  EXPECT_GT(s.events_malformed + s.events_ignored, 0) << "bad times must be counted";
  ExpectLinesNest(loaded->space);
  ExpectViewsRun(loaded->space);
}

// ---- Invalid UTF-8 -----------------------------------------------------------------

TEST_F(HostileInputsTest, InvalidUtf8AnywhereStillWritesAFileTheParserAccepts) {
  // XSpace string fields are proto3 `string`s: the plugin's parser rejects
  // the whole file if one holds invalid UTF-8. Put bad bytes in every
  // string the converter copies (found by the chrome_json fuzzer).
  const std::string bad = "x\xE2\xE2\xFF\xC0\x80\xED\xA0\x80y";
  std::vector<std::string> events = {
      absl::StrCat(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":")", bad, R"("}})"),
      absl::StrCat(R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":")", bad,
                   R"("}})"),
      absl::StrCat(R"({"ph":"X","cat":")", bad, R"(","name":")", bad,
                   R"(","pid":1,"tid":1,"ts":1,"dur":50,"args":{"correlation":3,")", bad,
                   R"(":")", bad, R"("}})"),
      absl::StrCat(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,)"
                   R"("tid":1,"ts":0,"dur":100})"),
      absl::StrCat(R"({"ph":"X","cat":"cuda_runtime","name":")", bad,
                   R"(","pid":1,"tid":1,"ts":2,"dur":5,"args":{"correlation":3}})"),
      absl::StrCat(R"({"ph":"X","cat":"kernel","name":")", bad,
                   R"(","pid":0,"tid":")", bad, R"(","ts":10,"dur":5,"args":{"device":0,)"
                   R"("stream":7,"correlation":3}})"),
      absl::StrCat(R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD )", bad,
                   R"(","pid":0,"tid":7,"ts":20,"dur":5,"args":{"device":0,"stream":7,)"
                   R"("bytes":64}})"),
      absl::StrCat(R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":30,)"
                   R"("args":{"Device Type":1,"Device Id":0,"Bytes":64,"Addr":1,)"
                   R"("Total Allocated":64,"Total Reserved":128}})"),
      absl::StrCat(R"({"ph":"B","name":")", bad, R"(","pid":")", bad, R"(","tid":2,"ts":40})"),
      absl::StrCat(R"({"ph":"E","pid":")", bad, R"(","tid":2,"ts":45})"),
      // A named row (string pid/tid) becomes a line named after the tid.
      absl::StrCat(R"({"ph":"X","cat":"Trace","name":"t","pid":"Spans","tid":"PyTorch )", bad,
                   R"(","ts":0,"dur":60})"),
  };
  std::string json = absl::StrCat(
      R"({"hostname":")", bad, R"(","metadata":{"hostname":")", bad,
      R"("},"deviceProperties":[{"id":0,"name":")", bad, R"(","numSms":80}],)", R"(")", bad,
      R"(":1,"rocm)", bad, R"(":{"a":[)", std::string(100, '['), R"(]},"traceEvents":[)",
      absl::StrJoin(events, ","), "]}");
  absl::StatusOr<cli::LoadedInput> loaded = Load("bad_utf8.json", json);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_GE(loaded->json_summary->events_converted, 3);
  absl::StatusOr<xplane::XSpaceData> again =
      xplane::ParseXSpaceData(xplane::SerializeXSpaceData(loaded->space), "bad_utf8 output");
  EXPECT_TRUE(again.ok()) << again.status();
  ExpectViewsRun(loaded->space);
}

// ---- Overlaps and correlation ids -------------------------------------------------

TEST_F(HostileInputsTest, PartiallyOverlappingEventsAreMadeToNestAndCounted) {
  std::vector<std::string> events = {
      Event(R"("name":"A","ts":0,"dur":100)"),   Event(R"("name":"B","ts":50,"dur":100)"),
      Event(R"("name":"C","ts":120,"dur":10)"),  Event(R"("name":"D","ts":90,"dur":200)"),
      Event(R"("name":"E","ts":0,"dur":100)"),   Event(R"("name":"F","ts":99,"dur":2)"),
  };
  absl::StatusOr<cli::LoadedInput> loaded =
      Load("overlap.json", absl::StrCat(R"({"traceEvents":[)", absl::StrJoin(events, ","), "]}"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_GT(loaded->json_summary->events_moved, 0);
  ExpectLinesNest(loaded->space);
  ExpectViewsRun(loaded->space);
}

TEST_F(HostileInputsTest, DuplicateAndMissingCorrelationIds) {
  auto launch = [](int ts, const std::string& corr) {
    return absl::StrCat(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,)"
                        R"("tid":1,"ts":)",
                        ts, R"(,"dur":2,"args":{)", corr, "}}");
  };
  auto kernel = [](int ts, const std::string& corr) {
    return absl::StrCat(R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)", ts,
                        R"(,"dur":5,"args":{"device":0,"stream":7)", corr.empty() ? "" : ",",
                        corr, "}}");
  };
  std::vector<std::string> events = {
      Event(R"("name":"ProfilerStep#1","cat":"user_annotation","ts":0,"dur":1000)"),
      launch(10, R"("correlation":7)"),     launch(20, R"("correlation":7)"),
      launch(30, ""),                       launch(40, R"("correlation":"seven")"),
      kernel(100, R"("correlation":7)"),    kernel(200, R"("correlation":7)"),
      kernel(300, R"("correlation":999)"),  kernel(400, ""),
      kernel(500, R"("correlation":null)"),
  };
  absl::StatusOr<cli::LoadedInput> loaded = Load(
      "correlation.json", absl::StrCat(R"({"traceEvents":[)", absl::StrJoin(events, ","), "]}"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->json_summary->kernels, 5);
  ExpectLinesNest(loaded->space);
  absl::StatusOr<views::AllViews> all = views::ComputeAllViews(loaded->space);
  ASSERT_TRUE(all.ok()) << all.status();
  int64_t occurrences = 0;
  for (const auto& report : all->kernel_stats.reports()) occurrences += report.occurrences();
  EXPECT_EQ(occurrences, 5) << "every kernel counts, whatever its correlation id";
}

// ---- Gzip bombs --------------------------------------------------------------------------

TEST_F(HostileInputsTest, DefaultInflationLimitScalesWithTheFileAndHasAFloor) {
  EXPECT_EQ(cli::EffectiveMaxInflatedBytes(cli::kAutoLimit, 1000), uint64_t{1} << 30);
  EXPECT_EQ(cli::EffectiveMaxInflatedBytes(cli::kAutoLimit, uint64_t{100} << 20),
            uint64_t{200} * (uint64_t{100} << 20));
  EXPECT_EQ(cli::EffectiveMaxInflatedBytes(12345, 1), 12345u);
  EXPECT_EQ(cli::EffectiveMaxInflatedBytes(0, 1), 0u);
}

TEST_F(HostileInputsTest, TenGigabyteGzipBombStopsAtTheUserLimit) {
  const std::string bomb = Path("bomb.json.gz");
  WriteSpaceGzipBomb(bomb, /*inflated_mib=*/10240);
  struct stat st;
  ASSERT_EQ(::stat(bomb.c_str(), &st), 0);
  EXPECT_LT(st.st_size, 64 << 20);
  const std::string logdir = Path("tb");
  ChildResult r = RunTbprof({"convert", bomb, "--logdir", logdir, "--run", "r", "--quiet",
                             "--max-inflated-bytes", "256M"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("bomb.json.gz"));
  EXPECT_THAT(r.err, HasSubstr("--max-inflated-bytes"));
  EXPECT_THAT(r.err, HasSubstr(std::to_string(uint64_t{256} << 20)));
  EXPECT_LT(r.max_rss_kb, 256 * 1024 + (kSanitizerSlackMb() << 10));
  for (const std::string& entry : ListTree(logdir)) {
    EXPECT_THAT(entry, Not(HasSubstr("xplane.pb"))) << "nothing may be written";
  }
}

TEST_F(HostileInputsTest, GzipBombStopsAtTheDefaultLimit) {
  // 3 GB of spaces in ~3 MB: the default (max(1 GiB, 200x file)) stops it.
  const std::string bomb = Path("default_bomb.json.gz");
  WriteSpaceGzipBomb(bomb, /*inflated_mib=*/3072);
  ChildResult r = RunTbprof({"convert", bomb, "--logdir", Path("tb"), "--quiet"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("gzip bomb"));
  EXPECT_LT(r.max_rss_kb, 256 * 1024 + (kSanitizerSlackMb() << 10));
}

TEST_F(HostileInputsTest, GzipBombNamedXPlaneIsBoundedToo) {
  const std::string bomb = Path("host.xplane.pb.gz");
  WriteSpaceGzipBomb(bomb, /*inflated_mib=*/2048);
  ChildResult r = RunTbprof({"convert", bomb, "--logdir", Path("tb"), "--quiet",
                             "--max-inflated-bytes", "64M"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("host.xplane.pb.gz"));
  EXPECT_LT(r.max_rss_kb, 384 * 1024 + (kSanitizerSlackMb() << 10));
}

// ---- Damaged XSpace files ---------------------------------------------------------------

// A small but realistic XSpace: a host plane with a step and a launch, a GPU
// plane with a kernel; ids and times large enough to need multi-byte varints.
std::string SmallXSpaceBytes() {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* thread = host->GetOrCreateLine(/*line_id=*/123456);
  thread->SetName("python");
  thread->SetTimestampNs(1700000000000000000);
  const uint32_t step = host->GetOrCreateEventMetadata("ProfilerStep#3");
  xplane::XEventBuilder root = thread->AddEvent(step, /*offset_ps=*/0, /*duration_ps=*/900000000);
  root.AddInt64(host->GetOrCreateStatMetadata(xplane::StatType::kIsRoot), 1);
  root.AddInt64(host->GetOrCreateStatMetadata(xplane::StatType::kStepNum), 3);
  xplane::XEventBuilder launch = thread->AddEvent(
      host->GetOrCreateEventMetadata("cudaLaunchKernel"), /*offset_ps=*/1000000,
      /*duration_ps=*/5000000);
  launch.AddInt64(host->GetOrCreateStatMetadata(xplane::StatType::kCorrelationId), 77);
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane("/device:GPU:0");
  xplane::XLineBuilder* stream = gpu->GetOrCreateLine(/*line_id=*/7);
  stream->SetName("Stream #7");
  stream->SetTimestampNs(1700000000000000000);
  xplane::XEventBuilder kernel = stream->AddEvent(
      gpu->GetOrCreateEventMetadata("volta_h884gemm_64x64"), /*offset_ps=*/9000000,
      /*duration_ps=*/40000000);
  kernel.AddInt64(gpu->GetOrCreateStatMetadata(xplane::StatType::kCorrelationId), 77);
  kernel.AddString(gpu->GetOrCreateStatMetadata(xplane::StatType::kKernelDetails),
                   "regs:64 static_shared:0 dynamic_shared:0 grid:80,1,1 block:256,1,1 "
                   "occ_pct:50");
  builder.Finalize({});
  return xplane::SerializeXSpaceData(space);
}

TEST_F(HostileInputsTest, XPlaneSavedAsTextIsRejectedWithAHint) {
  const std::string original = SmallXSpaceBytes();
  const std::string mangled = ReplaceInvalidUtf8(original);
  ASSERT_NE(mangled, original) << "the test XSpace must contain non-UTF-8 bytes";
  WriteFile(Path("host.xplane.pb"), mangled);
  absl::StatusOr<cli::LoadedInput> loaded = cli::LoadInput(Path("host.xplane.pb"), {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("host.xplane.pb"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("U+FFFD"));

  ChildResult r = RunTbprof({"convert", Path("host.xplane.pb"), "--logdir", Path("tb"),
                             "--run", "r", "--quiet"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("U+FFFD"));
  EXPECT_FALSE(Exists(Path("tb/plugins/profile/r/host.xplane.pb")));
}

TEST_F(HostileInputsTest, TruncatedXPlaneIsAnErrorAtEveryCut) {
  const std::string original = SmallXSpaceBytes();
  // The space has planes only (no trailing fields): every proper prefix cuts
  // a plane, so every one must be rejected.
  std::vector<size_t> cuts = {1, 2, 3, 10, original.size() / 3, original.size() / 2,
                              original.size() - 1};
  for (size_t cut : cuts) {
    SCOPED_TRACE(cut);
    WriteFile(Path("cut.xplane.pb"), original.substr(0, cut));
    absl::StatusOr<cli::LoadedInput> loaded = cli::LoadInput(Path("cut.xplane.pb"), {});
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.status().message(), HasSubstr("cut.xplane.pb"));
  }
  // Each byte position through the whole file: nothing crashes.
  for (size_t cut = 0; cut < original.size(); ++cut) {
    WriteFile(Path("cut.xplane.pb"), original.substr(0, cut));
    (void)cli::LoadInput(Path("cut.xplane.pb"), {});
  }
  WriteFile(Path("whole.xplane.pb"), original);
  absl::StatusOr<cli::LoadedInput> whole = cli::LoadInput(Path("whole.xplane.pb"), {});
  ASSERT_TRUE(whole.ok()) << whole.status();  // The test can tell good from bad.
  ExpectViewsRun(whole->space);
}

// ---- Raw captures --------------------------------------------------------------------------

namespace layout = capture::layout;

std::string WriteSmallCapture(const std::string& path) {
  capture::CaptureHeader h;
  h.hostname = "capturehost";
  h.start_cupti_ns = 1700000000000000000;
  h.start_realtime_ns = 1700000000000000000;
  h.flags = capture::kHeaderFlagNameIdsInRecords;
  h.kind_sizes = {{layout::kKindConcurrentKernel, sizeof(layout::KernelRecord)},
                  {layout::kKindRuntime, sizeof(layout::ApiRecord)}};
  int err = 0;
  auto writer = capture::RawCaptureWriter::Create(path, h, &err);
  EXPECT_NE(writer, nullptr) << err;
  if (writer == nullptr) return "";
  capture::StringEntry names[] = {{2, "my_kernel"}};
  writer->AppendStrings(names, 1);
  for (int buffer = 0; buffer < 4; ++buffer) {
    std::string records;
    for (int i = 0; i < 50; ++i) {
      const uint64_t t = h.start_cupti_ns + 1000000 * buffer + 10000 * i;
      layout::ApiRecord api{};
      api.kind = layout::kKindRuntime;
      api.cbid = 211;
      api.start = t;
      api.end = t + 100;
      api.thread_id = 9;
      api.correlation_id = buffer * 100 + i + 1;
      records.append(reinterpret_cast<const char*>(&api), sizeof(api));
      layout::KernelRecord k{};
      k.kind = layout::kKindConcurrentKernel;
      k.start = t + 1000;
      k.end = t + 5000;
      k.stream_id = 7;
      k.grid_x = k.grid_y = k.grid_z = 1;
      k.block_x = 128, k.block_y = k.block_z = 1;
      k.correlation_id = api.correlation_id;
      k.name = 2;
      records.append(reinterpret_cast<const char*>(&k), sizeof(k));
    }
    writer->AppendActivityBuffer(0, records.data(), records.size());
  }
  capture::Trailer t;
  t.stop_cupti_ns = h.start_cupti_ns + 10000000;
  writer->Finish(t);
  writer.reset();
  return ReadAll(path);
}

TEST_F(HostileInputsTest, CaptureCutMidChunkKeepsWhatWasWrittenAndWarns) {
  const std::string full = WriteSmallCapture(Path("full.tbcap"));
  ASSERT_FALSE(full.empty());
  xplane::XSpaceData whole_space;
  absl::StatusOr<converters::RawCaptureSummary> whole =
      converters::ConvertRawCaptureToXSpace(Path("full.tbcap"), {}, &whole_space);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->kernels, 200);

  // Cut in the middle of the third activity buffer (of four).
  WriteFile(Path("cut.tbcap"), full.substr(0, full.size() * 5 / 8));
  xplane::XSpaceData space;
  absl::StatusOr<converters::RawCaptureSummary> cut =
      converters::ConvertRawCaptureToXSpace(Path("cut.tbcap"), {}, &space);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_GT(cut->kernels, 0);
  EXPECT_LT(cut->kernels, 200);
  EXPECT_THAT(absl::StrJoin(space.warnings, "\n"), AnyOf(HasSubstr("truncat"), HasSubstr("cut")));
  ExpectViewsRun(space);

  // Every cut point: a clear error (header cut) or a space; never a crash.
  for (size_t at = 0; at < full.size(); at += 61) {
    WriteFile(Path("cut.tbcap"), full.substr(0, at));
    xplane::XSpaceData s;
    absl::StatusOr<converters::RawCaptureSummary> r =
        converters::ConvertRawCaptureToXSpace(Path("cut.tbcap"), {}, &s);
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("cut.tbcap"));
    }
  }
}

TEST_F(HostileInputsTest, CaptureWithNonUtf8StringsWritesAFileTheParserAccepts) {
  // NVTX, thread and host names come from the traced job and may be any
  // bytes (found by the raw_capture fuzzer: a host name with a 0x83 byte).
  const std::string bad = "r\xE9sum\xE9 \xFF\xC0\x80 \xED\xA0\x80";
  capture::CaptureHeader h;
  h.hostname = "host" + bad;
  h.command_line = "python " + bad;
  h.step_pattern = "ProfilerStep#*";
  h.start_cupti_ns = 1700000000000000000;
  h.start_realtime_ns = 1700000000000000000;
  h.flags = capture::kHeaderFlagNameIdsInRecords;
  h.kind_sizes = {{layout::kKindConcurrentKernel, sizeof(layout::KernelRecord)},
                  {layout::kKindRuntime, sizeof(layout::ApiRecord)},
                  {layout::kKindMarker, sizeof(layout::MarkerRecord)}};
  int err = 0;
  const std::string path = Path("utf8.tbcap");
  auto writer = capture::RawCaptureWriter::Create(path, h, &err);
  ASSERT_NE(writer, nullptr) << err;
  const std::string kernel_name = "kern" + bad, range_name = "range" + bad;
  capture::StringEntry names[] = {{2, kernel_name}, {3, range_name}};
  writer->AppendStrings(names, 2);
  writer->AppendThreadNames({{9, "thread" + bad}});
  writer->AppendCallbackNames({{2, 211, "cudaLaunch" + bad}});
  capture::DeviceProperties device;
  device.name = "GPU" + bad;
  writer->AppendDeviceProperties(device);
  capture::Message message;
  message.severity = capture::MessageSeverity::kWarning;
  message.text = "warning " + bad;
  writer->AppendMessage(message);
  std::string records;
  layout::MarkerRecord begin{};
  begin.kind = layout::kKindMarker;
  begin.flags = layout::kFlagMarkerStart;
  begin.timestamp = h.start_cupti_ns + 10;
  begin.id = 1;
  begin.object_kind = layout::kObjectThread;
  begin.object_id.pt.thread_id = 9;
  begin.name = 3;
  records.append(reinterpret_cast<const char*>(&begin), sizeof(begin));
  layout::ApiRecord api{};
  api.kind = layout::kKindRuntime;
  api.cbid = 211;
  api.start = h.start_cupti_ns + 100;
  api.end = h.start_cupti_ns + 200;
  api.thread_id = 9;
  api.correlation_id = 5;
  records.append(reinterpret_cast<const char*>(&api), sizeof(api));
  layout::KernelRecord k{};
  k.kind = layout::kKindConcurrentKernel;
  k.start = h.start_cupti_ns + 1000;
  k.end = h.start_cupti_ns + 2000;
  k.stream_id = 7;
  k.grid_x = k.grid_y = k.grid_z = k.block_x = k.block_y = k.block_z = 1;
  k.correlation_id = 5;
  k.name = 2;
  records.append(reinterpret_cast<const char*>(&k), sizeof(k));
  layout::MarkerRecord end = begin;
  end.flags = layout::kFlagMarkerEnd;
  end.timestamp = h.start_cupti_ns + 5000;
  end.name = 0;
  records.append(reinterpret_cast<const char*>(&end), sizeof(end));
  writer->AppendActivityBuffer(0, records.data(), records.size());
  capture::Trailer t;
  t.stop_cupti_ns = h.start_cupti_ns + 10000;
  writer->Finish(t);
  writer.reset();

  xplane::XSpaceData space;
  absl::StatusOr<converters::RawCaptureSummary> summary =
      converters::ConvertRawCaptureToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->kernels, 1);
  absl::StatusOr<xplane::XSpaceData> again =
      xplane::ParseXSpaceData(xplane::SerializeXSpaceData(space), "utf8 capture output");
  EXPECT_TRUE(again.ok()) << again.status();
  ExpectViewsRun(space);
}

TEST_F(HostileInputsTest, CaptureChunkClaimingAGigabyteIsNotAllocated) {
  std::string full = WriteSmallCapture(Path("full.tbcap"));
  ASSERT_FALSE(full.empty());
  // Overwrite the size field of the last chunk header with the format's
  // maximum: a reader that trusts it would allocate 1 GiB.
  size_t at = full.rfind(std::string("TBCK", 4));
  ASSERT_NE(at, std::string::npos);
  const uint32_t huge = capture::kMaxPayloadSize;
  full.replace(at + 8, 4, reinterpret_cast<const char*>(&huge), 4);
  WriteFile(Path("huge_chunk.tbcap"), full);
  ChildResult child = RunInChild([&] {
    xplane::XSpaceData space;
    absl::StatusOr<converters::RawCaptureSummary> r =
        converters::ConvertRawCaptureToXSpace(Path("huge_chunk.tbcap"), {}, &space);
    return r.ok() && r->kernels == 200 ? 0 : 1;
  });
  EXPECT_EQ(child.signal, 0);
  EXPECT_EQ(child.exit_code, 0);
  EXPECT_LT(child.max_rss_kb, 256 * 1024 + (kSanitizerSlackMb() << 10));
}

// ---- Limits ------------------------------------------------------------------------------

TEST_F(HostileInputsTest, MaxEventsAndMaxMemoryGiveClearErrors) {
  std::vector<std::string> events;
  for (int i = 0; i < 100; ++i) events.push_back(Event(absl::StrCat(R"("name":"e","ts":)", i * 10,
                                                                   R"(,"dur":5)")));
  const std::string path = Path("events.json");
  WriteFile(path, absl::StrCat("[", absl::StrJoin(events, ","), "]"));

  ChildResult r = RunTbprof({"convert", path, "--logdir", Path("tb"), "--quiet",
                             "--max-events", "10"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("more than 10 trace events"));

  r = RunTbprof({"convert", path, "--logdir", Path("tb"), "--quiet", "--max-memory-mb", "1"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("over the limit of 1 MB"));
  EXPECT_THAT(r.err, HasSubstr("--max-memory-mb"));
  EXPECT_THAT(ListTree(Path("tb")), Not(::testing::Contains(HasSubstr("xplane.pb"))));

  r = RunTbprof({"convert", path, "--logdir", Path("tb"), "--quiet", "--max-memory-mb", "0",
                 "--max-events", "0", "--max-inflated-bytes", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(HostileInputsTest, MemoryGuardStopsAConversionThatGrowsPastIt) {
  // ~400k events; with a limit just above the process's size at start the
  // converter must stop itself with the memory message, not finish or die.
  const std::string path = Path("many.json");
  {
    std::string json = "[";
    for (int i = 0; i < 400000; ++i) {
      absl::StrAppend(&json, i ? "," : "", R"({"ph":"X","pid":1,"tid":)", i % 64,
                      R"(,"name":"op)", i % 5000, R"(","ts":)", i, R"(,"dur":1})");
    }
    json += "]";
    WriteFile(path, json);
  }
  ChildResult child = RunInChild([&] {
    converters::ChromeJsonOptions options;
    options.max_memory_bytes = ResidentMemoryBytes() + (uint64_t{8} << 20);
    xplane::XSpaceData space;
    absl::StatusOr<converters::ChromeJsonSummary> s =
        converters::ConvertChromeJsonToXSpace(path, options, &space);
    if (s.ok()) return 1;
    if (s.status().code() != absl::StatusCode::kResourceExhausted) return 2;
    return absl::StrContains(s.status().message(), "memory use reached") ? 0 : 3;
  });
  EXPECT_EQ(child.signal, 0);
  EXPECT_EQ(child.exit_code, 0) << "1: no stop, 2: wrong code, 3: wrong message";
}

}  // namespace
}  // namespace tbprof
