// tbprof_xplane_floor: the floor of reading one xplane.pb, for
// scripts/benchmark.sh (issue 23, part 3).
//
//   tbprof_xplane_floor FILE [--threads N] [--read-only]
//
// Does only what every `tbprof report` / `tbprof inspect` of FILE must do
// before any view: open the file (mapped, or inflated when gzip) and decode it
// with tbprof's wire reader into the in-memory XSpaceData (ParseXSpaceInput,
// the same options as the CLI: threads by size unless --threads), then prints
// the model's counts so nothing can be optimised away. With --read-only it
// only opens the file and sums one byte per 64 (every cache line touched),
// without decoding: the cost of merely getting the bytes.
//
// The caller times the process (/usr/bin/time: wall, CPU, peak RSS); the
// tool also prints its own phase times on stderr. Exit status 1 on any error
// (the wire reader's message, with its byte offset), 2 on bad usage.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_wire_reader.h"

namespace {

constexpr char kUsage[] =
    "usage: tbprof_xplane_floor FILE [--threads N] [--read-only]\n"
    "Opens FILE and decodes it with tbprof's XSpace wire reader only (no view), printing\n"
    "the event and stat counts: the floor of `tbprof report` / `tbprof inspect` on FILE.\n";

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Run(int argc, char** argv) {
  std::string path;
  int threads = 0;
  bool read_only = false;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      if (!absl::SimpleAtoi(argv[++i], &threads) || threads < 0) {
        std::fputs(kUsage, stderr);
        return 2;
      }
    } else if (arg == "--read-only") {
      read_only = true;
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (path.empty() && !arg.empty() && arg[0] != '-') {
      path = std::string(arg);
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (path.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto input = tbprof::xplane::XSpaceInput::Open(path);
  if (!input.ok()) {
    std::fprintf(stderr, "tbprof_xplane_floor: %s\n",
                 std::string(input.status().message()).c_str());
    return 1;
  }
  const double open_s = Seconds(start);
  const uint64_t bytes = (*input)->bytes().size();
  if (read_only) {
    const absl::string_view data = (*input)->bytes();
    uint64_t sum = 0;
    for (size_t i = 0; i < data.size(); i += 64) sum += static_cast<unsigned char>(data[i]);
    std::printf("bytes %llu sum %llu\n", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(sum));
    std::fprintf(stderr, "open %.3f s, read %.3f s\n", open_s, Seconds(start) - open_s);
    return 0;
  }
  tbprof::xplane::XSpaceParseOptions options;
  options.threads = threads;
  auto space = tbprof::xplane::ParseXSpaceInput(input->get(), options);
  if (!space.ok()) {
    std::fprintf(stderr, "tbprof_xplane_floor: %s\n",
                 std::string(space.status().message()).c_str());
    return 1;
  }
  const double parse_s = Seconds(start) - open_s;
  uint64_t lines = 0, events = 0, stats = 0;
  for (const tbprof::xplane::Plane& plane : space->planes) {
    lines += plane.lines.size();
    for (const tbprof::xplane::Line& line : plane.lines) {
      events += line.events.size();
      stats += line.stats.size();
    }
  }
  std::printf("bytes %llu planes %zu lines %llu events %llu stats %llu strings %zu\n",
              static_cast<unsigned long long>(bytes), space->planes.size(),
              static_cast<unsigned long long>(lines), static_cast<unsigned long long>(events),
              static_cast<unsigned long long>(stats), space->strings.size());
  std::fprintf(stderr, "open %.3f s, parse %.3f s (%.0f MB/s)\n", open_s, parse_s,
               bytes / 1e6 / (parse_s > 0 ? parse_s : 1e-9));
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
