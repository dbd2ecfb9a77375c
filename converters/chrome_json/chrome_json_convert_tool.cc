// Developer tool: converts one Chrome/Kineto JSON trace to <out>.xplane.pb and
// prints the summary and phase timings. Usage:
//   chrome_json_convert_tool <trace.json[.gz]> [<out.xplane.pb>|-] [--lines]
// (The user-facing CLI is `tbprof convert`; this exists to measure the
// converter alone.)
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_io.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <trace.json[.gz]> [<out.xplane.pb>|-] [--lines]\n", argv[0]);
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  tbprof::xplane::XSpaceData space;
  tbprof::converters::ChromeJsonOptions options;
  auto summary = tbprof::converters::ConvertChromeJsonToXSpace(argv[1], options, &space);
  if (!summary.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(summary.status().message()).c_str());
    return 1;
  }
  auto t1 = Clock::now();
  uint64_t written = 0;
  bool dump_lines = argc >= 4 && std::string(argv[3]) == "--lines";
  if (argc >= 3 && std::string(argv[2]) != "-") {
    auto file = tbprof::AtomicOutputFile::Create(argv[2]);
    if (!file.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(file.status().message()).c_str());
      return 1;
    }
    absl::Status s = tbprof::xplane::WriteXSpaceData(space, file->get());
    if (s.ok()) s = (*file)->Commit(tbprof::AtomicOutputFile::Overwrite::kReplace);
    if (!s.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(s.message()).c_str());
      return 1;
    }
    written = (*file)->bytes_written();
  }
  auto t2 = Clock::now();
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto& s = *summary;
  std::printf(
      "read=%lld converted=%lld ignored=%lld malformed=%lld metadata=%lld kernels=%lld "
      "memcpys=%lld memsets=%lld memory=%lld steps=%lld truncated=%lld host=\"%s\" rank=%lld\n",
      (long long)s.events_read, (long long)s.events_converted, (long long)s.events_ignored,
      (long long)s.events_malformed, (long long)s.metadata_events, (long long)s.kernels,
      (long long)s.memcpys, (long long)s.memsets, (long long)s.memory_events,
      (long long)s.step_roots, (long long)s.events_moved, s.hostname_hint.c_str(),
      (long long)s.rank);
  for (const std::string& w : space.warnings) std::printf("warning: %s\n", w.c_str());
  if (dump_lines) {
    for (const auto& plane : space.planes) {
      std::printf("plane %lld \"%s\"\n", (long long)plane.id,
                  std::string(space.strings.Get(plane.name)).c_str());
      for (const auto& line : plane.lines) {
        std::printf("  line %lld \"%s\" events=%zu\n", (long long)line.id,
                    std::string(space.strings.Get(line.name)).c_str(), line.events.size());
      }
    }
  }
  std::printf("convert_ms=%.1f write_ms=%.1f xplane_bytes=%llu\n", ms(t1 - t0), ms(t2 - t1),
              (unsigned long long)written);
  return 0;
}
