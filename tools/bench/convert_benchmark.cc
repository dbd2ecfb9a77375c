// Microbenchmarks of the JSON -> XSpace path on a scaled real Kineto trace.
//
// The ResNet-50 sample is scaled (TBPROF_BENCH_COPIES copies, default 3,
// about 105 MB) into a memory-backed file (/dev/shm when present) once, so
// the numbers exclude disk I/O. Bytes processed are uncompressed JSON bytes.
//
//   build-release/tools/bench/tbprof_convert_benchmark --benchmark_min_time=1
// Times are wall-clock (the converter may use more than one thread).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_io.h"
#include "tools/bench/trace_scaler.h"

namespace tbprof::bench {
namespace {

constexpr char kSample[] = "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";

struct ScaledTrace {
  std::string path;
  uint64_t bytes = 0;
  std::string error;
};

const ScaledTrace& GetScaledTrace() {
  static const ScaledTrace* trace = [] {
    auto* t = new ScaledTrace;
    const char* copies_env = std::getenv("TBPROF_BENCH_COPIES");
    ScaleOptions options;
    options.copies = copies_env ? std::atoi(copies_env) : 3;
    if (options.copies < 1) options.copies = 1;
    const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    t->path = absl::StrCat(dir, "/tbprof_convert_benchmark_", getpid(), ".json");
    absl::StatusOr<std::unique_ptr<AtomicOutputFile>> file = AtomicOutputFile::Create(t->path);
    if (!file.ok()) {
      t->error = std::string(file.status().message());
      return t;
    }
    absl::StatusOr<ScaleResult> result =
        ScaleTrace(std::string(TBPROF_SHARED_TESTDATA) + kSample, options,
                   [&](absl::string_view text) { return (*file)->Append(text); });
    absl::Status status = result.ok()
                              ? (*file)->Commit(AtomicOutputFile::Overwrite::kReplace)
                              : result.status();
    if (!status.ok()) {
      t->error = std::string(status.message());
      return t;
    }
    t->bytes = result->output_bytes;
    std::atexit([] { std::remove(GetScaledTrace().path.c_str()); });
    return t;
  }();
  return *trace;
}

// Splitting and rewriting alone: the floor of any text-level pass.
void BM_ScaleTraceRewrite(benchmark::State& state) {
  const ScaledTrace& trace = GetScaledTrace();
  if (!trace.error.empty()) return state.SkipWithError(trace.error.c_str());
  ScaleOptions options;
  options.copies = 2;
  uint64_t bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<ScaleResult> result =
        ScaleTrace(trace.path, options, [&](absl::string_view text) {
          benchmark::DoNotOptimize(text.data());
          return absl::OkStatus();
        });
    if (!result.ok()) return state.SkipWithError(std::string(result.status().message()).c_str());
    bytes += result->output_bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_ScaleTraceRewrite)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parse + build + finalize the XSpace.
void BM_ConvertChromeJsonToXSpace(benchmark::State& state) {
  const ScaledTrace& trace = GetScaledTrace();
  if (!trace.error.empty()) return state.SkipWithError(trace.error.c_str());
  int64_t events = 0;
  for (auto _ : state) {
    xplane::XSpaceData space;
    absl::StatusOr<converters::ChromeJsonSummary> summary =
        converters::ConvertChromeJsonToXSpace(trace.path, {}, &space);
    if (!summary.ok()) {
      return state.SkipWithError(std::string(summary.status().message()).c_str());
    }
    events += summary->events_read;
    benchmark::DoNotOptimize(space);
  }
  state.SetBytesProcessed(static_cast<int64_t>(trace.bytes * state.iterations()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events),
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ConvertChromeJsonToXSpace)->Unit(benchmark::kMillisecond)->UseRealTime();

// Writing the xplane.pb bytes of an already converted space.
void BM_SerializeXSpace(benchmark::State& state) {
  const ScaledTrace& trace = GetScaledTrace();
  if (!trace.error.empty()) return state.SkipWithError(trace.error.c_str());
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(trace.path, {}, &space);
  if (!summary.ok()) return state.SkipWithError(std::string(summary.status().message()).c_str());
  uint64_t bytes = 0;
  for (auto _ : state) {
    std::string wire = xplane::SerializeXSpaceData(space);
    bytes += wire.size();
    benchmark::DoNotOptimize(wire.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_SerializeXSpace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tbprof::bench

BENCHMARK_MAIN();
