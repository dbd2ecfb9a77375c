// Times the memory-snapshot import phases on one file and reports the peak
// resident memory after each, for docs/benchmarks.md:
//   tbprof_memory_snapshot_bench snapshot.pickle
// Phases: map the file, read the pickle into the snapshot model (the reader
// gives the mapped pages back as it goes), analyze (peaks, live blocks),
// build the XSpace memory events.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "converters/memory_snapshot/memory_snapshot.h"
#include "converters/memory_snapshot/memory_snapshot_analysis.h"
#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_wire_reader.h"

namespace {

// User + system CPU seconds of this process so far (the machine may be
// shared, so wall time alone can mislead).
double CpuSeconds() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double PeakRssMb() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SNAPSHOT.pickle\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  Clock::time_point t0 = Clock::now();
  auto input = tbprof::xplane::XSpaceInput::Open(path);
  if (!input.ok()) {
    std::fprintf(stderr, "%s\n", std::string(input.status().message()).c_str());
    return 1;
  }
  const double file_mb = static_cast<double>((*input)->bytes().size()) / (1 << 20);
  tbprof::converters::pickle::PickleReadOptions options;
  tbprof::xplane::XSpaceInput* raw = input->get();
  options.progress = [raw](uint64_t offset) { raw->ReleaseBefore(offset); };
  auto snapshot = tbprof::converters::memory_snapshot::ReadMemorySnapshot(raw->bytes(), path,
                                                                          options);
  Clock::time_point t1 = Clock::now();
  const double cpu1 = CpuSeconds();
  if (!snapshot.ok()) {
    std::fprintf(stderr, "%s\n", std::string(snapshot.status().message()).c_str());
    return 1;
  }
  input->reset();
  const double read_rss = PeakRssMb();
  tbprof::converters::memory_snapshot::SnapshotAnalysis analysis =
      tbprof::converters::memory_snapshot::AnalyzeSnapshot(*snapshot);
  Clock::time_point t2 = Clock::now();
  const double cpu2 = CpuSeconds();
  tbprof::xplane::XSpaceData space;
  tbprof::converters::MemorySnapshotSummary summary =
      tbprof::converters::ConvertSnapshotToXSpace(*snapshot, &space);
  Clock::time_point t3 = Clock::now();
  const double cpu3 = CpuSeconds();
  std::printf("file %.1f MB, %zu events, %zu stacks, %zu segments\n", file_mb,
              snapshot->events.size(), snapshot->stacks.size(), snapshot->segments.size());
  std::printf("read pickle   %.2f s wall  %.2f s CPU  peak RSS %.0f MB (%.2fx the file)\n",
              seconds(t0, t1), cpu1, read_rss, read_rss / file_mb);
  std::printf("analyze       %.2f s wall  %.2f s CPU\n", seconds(t1, t2), cpu2 - cpu1);
  std::printf("to XSpace     %.2f s wall  %.2f s CPU  (%lld memory events; analysis again)\n",
              seconds(t2, t3), cpu3 - cpu2, static_cast<long long>(summary.memory_events));
  std::printf("total         %.2f s wall  %.2f s CPU  peak RSS %.0f MB (%.2fx the file)\n",
              seconds(t0, t3), cpu3, PeakRssMb(), PeakRssMb() / file_mb);
  if (!analysis.devices.empty()) {
    std::printf("device 0 peak %lld bytes\n",
                static_cast<long long>(analysis.devices[0].peak_allocated_bytes));
  }
  return 0;
}
