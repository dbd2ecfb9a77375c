// Times the rocprofv3 JSON import in its phases, fastest of --repeat runs:
//   read    the file read and inflated into a padded buffer (ISA-L / zlib);
//   parse   simdjson On-Demand over it into the compact records
//           (converters/rocprof/rocprof_json.h);
//   map     records -> finalized XSpace (MapRocprofToXSpace);
//   total   ConvertRocprofToXSpace, the three in one call (what the CLI runs).
// Prints one line per phase: "<phase> <CPU seconds> <MB/s of JSON>".
//
//   tbprof_rocprof_bench FILE [--repeat N]
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "converters/rocprof/rocprof_json.h"
#include "converters/rocprof/rocprof_to_xspace.h"
#include "src/base/input_stream.h"

namespace {

// Process CPU time: the 2-core machine is shared, so wall time says more
// about the neighbours than about the code.
double Now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

int Fail(const std::string& message) {
  std::fprintf(stderr, "tbprof_rocprof_bench: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: tbprof_rocprof_bench FILE [--repeat N]");
  const std::string path = argv[1];
  int repeat = 3;
  if (argc >= 4 && std::string(argv[2]) == "--repeat") repeat = std::max(1, std::atoi(argv[3]));
  double best_read = 1e9, best_parse = 1e9, best_map = 1e9, best_total = 1e9;
  size_t json_bytes = 0;
  for (int i = 0; i < repeat; ++i) {
    double t0 = Now();
    absl::StatusOr<std::unique_ptr<tbprof::InputStream>> stream =
        tbprof::OpenInputStream(path, tbprof::InputStreamOptions());
    if (!stream.ok()) return Fail(std::string(stream.status().message()));
    std::string buffer;
    // As the import does (rocprof_to_xspace.cc).
    const uint64_t file_size = (*stream)->file_size();
    buffer.reserve(static_cast<size_t>(std::min<uint64_t>(
        (*stream)->is_gzip() ? file_size * 32 : file_size, uint64_t{1} << 30)));
    size_t filled = 0;
    for (;;) {
      buffer.resize(filled + (size_t{4} << 20));
      absl::StatusOr<size_t> n = (*stream)->Read(&buffer[filled], size_t{4} << 20);
      if (!n.ok()) return Fail(std::string(n.status().message()));
      if (*n == 0) break;
      filled += *n;
    }
    buffer.resize(filled + tbprof::converters::kRocprofJsonPadding);
    json_bytes = filled;
    double t1 = Now();
    absl::StatusOr<tbprof::converters::RocprofProfile> profile =
        tbprof::converters::ParseRocprofJson(absl::string_view(buffer.data(), filled),
                                             buffer.size(), path);
    if (!profile.ok()) return Fail(std::string(profile.status().message()));
    double t2 = Now();
    tbprof::xplane::XSpaceData space;
    tbprof::converters::MapRocprofToXSpace(*profile, &space);
    double t3 = Now();
    tbprof::xplane::XSpaceData space2;
    absl::StatusOr<tbprof::converters::RocprofSummary> summary =
        tbprof::converters::ConvertRocprofToXSpace(path, tbprof::converters::RocprofOptions(),
                                                   &space2);
    if (!summary.ok()) return Fail(std::string(summary.status().message()));
    double t4 = Now();
    best_read = std::min(best_read, t1 - t0);
    best_parse = std::min(best_parse, t2 - t1);
    best_map = std::min(best_map, t3 - t2);
    best_total = std::min(best_total, t4 - t3);
  }
  const double mb = static_cast<double>(json_bytes) / 1e6;
  for (auto [name, s] : {std::pair<const char*, double>{"read", best_read}, {"parse", best_parse},
                         {"map", best_map}, {"total", best_total}}) {
    std::printf("%s", absl::StrFormat("%-6s %.4f s  %7.0f MB/s\n", name, s, mb / s).c_str());
  }
  std::printf("%s", absl::StrFormat("json   %.1f MB\n", mb).c_str());
  return 0;
}
