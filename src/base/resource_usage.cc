#include "src/base/resource_usage.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tbprof {
namespace {

// Reads the first unsigned number of `path`; false if none ("max" included).
bool ReadNumberFile(const char* path, uint64_t* value) {
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return false;
  bool ok = std::fscanf(f, "%" SCNu64, value) == 1;
  std::fclose(f);
  return ok;
}

uint64_t MemTotalBytes() {
  FILE* f = std::fopen("/proc/meminfo", "re");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemTotal: %" SCNu64 " kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib * 1024;
}

}  // namespace

uint64_t ResidentMemoryBytes() {
  FILE* f = std::fopen("/proc/self/statm", "re");
  if (f == nullptr) return 0;
  uint64_t size_pages = 0, resident_pages = 0;
  int n = std::fscanf(f, "%" SCNu64 " %" SCNu64, &size_pages, &resident_pages);
  std::fclose(f);
  if (n != 2) return 0;
  long page = ::sysconf(_SC_PAGESIZE);
  return resident_pages * static_cast<uint64_t>(page > 0 ? page : 4096);
}

uint64_t UsableMemoryBytes() {
  uint64_t total = MemTotalBytes();
  uint64_t limit = 0;
  // A cgroup limit far above RAM means "no limit" (v1 reports ~2^63).
  if (ReadNumberFile("/sys/fs/cgroup/memory.max", &limit) ||
      ReadNumberFile("/sys/fs/cgroup/memory/memory.limit_in_bytes", &limit)) {
    if (limit > 0 && (total == 0 || limit < total)) total = limit;
  }
  return total;
}

uint64_t DefaultMemoryLimitBytes() { return UsableMemoryBytes() / 5 * 4; }

absl::Status CheckMemoryLimit(uint64_t limit_bytes, const std::string& what) {
  if (limit_bytes == 0) return absl::OkStatus();
  uint64_t rss = ResidentMemoryBytes();
  if (rss <= limit_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat(what, ": memory use reached ", rss >> 20, " MB, over the limit of ",
                   limit_bytes >> 20, " MB (raise it with --max-memory-mb, or convert a "
                   "smaller trace)"));
}

}  // namespace tbprof
