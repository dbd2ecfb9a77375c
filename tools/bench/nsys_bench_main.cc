// tbprof_nsys_bench: the Nsight Systems import against its floor.
//
//   tbprof_nsys_bench EXPORT.sqlite [--scale N --out SCALED.sqlite] [--repeat R]
//
// With --scale, first writes SCALED.sqlite: EXPORT with its activity rows
// repeated N times (ScaleNsysExport), and measures that. Then times, R times
// each (fastest kept), on the same file in the same run:
//   floor   a bare SQLite scan of the rows and columns the importer reads
//           (ScanNsysExport);
//   import  ConvertNsysSqliteToXSpace: the same reads plus the XSpace built
//           and finalized (what `tbprof convert` does before the views);
// and prints both and their ratio (import / floor), in wall-clock and in CPU
// seconds (user + system; less sensitive to a busy machine).
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "tools/bench/nsys_floor.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// CPU seconds (user + system) of this process so far.
double CpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

int Usage() {
  std::fprintf(stderr,
               "usage: tbprof_nsys_bench EXPORT.sqlite [--scale N --out SCALED.sqlite] "
               "[--repeat R]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string path = argv[1], out;
  int scale = 0, repeat = 3;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return Usage();
    if (a == "--scale" && absl::SimpleAtoi(argv[i + 1], &scale) && scale > 0) {
    } else if (a == "--out") {
      out = argv[i + 1];
    } else if (a == "--repeat" && absl::SimpleAtoi(argv[i + 1], &repeat) && repeat > 0) {
    } else {
      return Usage();
    }
    ++i;
  }
  if (scale > 0) {
    if (out.empty()) return Usage();
    auto t0 = std::chrono::steady_clock::now();
    absl::Status s = tbprof::bench::ScaleNsysExport(path, out, scale);
    if (!s.ok()) {
      std::fprintf(stderr, "tbprof_nsys_bench: %s\n", std::string(s.message()).c_str());
      return 1;
    }
    std::fprintf(stderr, "scaled %s x%d -> %s in %.1f s\n", path.c_str(), scale, out.c_str(),
                 Seconds(t0));
    path = out;
  }
  struct stat st;
  const double mb = ::stat(path.c_str(), &st) == 0 ? st.st_size / 1e6 : 0;
  double floor_s = 1e300, import_s = 1e300, floor_cpu = 1e300, import_cpu = 1e300;
  int64_t rows = 0, kernels = 0, events = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = CpuSeconds();
    absl::StatusOr<tbprof::bench::NsysScan> scan = tbprof::bench::ScanNsysExport(path);
    const double f = Seconds(t0);
    floor_cpu = std::min(floor_cpu, CpuSeconds() - c0);
    if (!scan.ok()) {
      std::fprintf(stderr, "tbprof_nsys_bench: %s\n", std::string(scan.status().message()).c_str());
      return 1;
    }
    rows = scan->rows;
    floor_s = std::min(floor_s, f);
    t0 = std::chrono::steady_clock::now();
    c0 = CpuSeconds();
    absl::StatusOr<tbprof::converters::NsysSummary> summary;
    {
      tbprof::xplane::XSpaceData space;
      summary = tbprof::converters::ConvertNsysSqliteToXSpace(path, {}, &space);
    }  // Freeing the XSpace is part of the import's cost.
    const double c = Seconds(t0);
    import_cpu = std::min(import_cpu, CpuSeconds() - c0);
    if (!summary.ok()) {
      std::fprintf(stderr, "tbprof_nsys_bench: %s\n",
                   std::string(summary.status().message()).c_str());
      return 1;
    }
    kernels = summary->kernels;
    events = summary->kernels + summary->memcpys + summary->memsets + summary->api_calls +
             summary->nvtx_ranges + summary->syncs + summary->graph_launches;
    import_s = std::min(import_s, c);
  }
  std::printf("file     %s (%.1f MB, %lld rows read, %lld events, %lld kernels)\n", path.c_str(),
              mb, static_cast<long long>(rows), static_cast<long long>(events),
              static_cast<long long>(kernels));
  std::printf("floor    %.3f s wall  %.3f s CPU  (bare SQLite scan of the same rows and columns)\n",
              floor_s, floor_cpu);
  std::printf("import   %.3f s wall  %.3f s CPU  (ConvertNsysSqliteToXSpace)\n", import_s,
              import_cpu);
  std::printf("ratio    %.2fx wall  %.2fx CPU\n", import_s / floor_s, import_cpu / floor_cpu);
  return 0;
}
