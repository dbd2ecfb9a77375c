// Memory figures of this process and machine, for limits that turn an
// out-of-memory kill into a clear error (`tbprof convert --max-memory-mb`).
// Linux only (/proc, cgroups); elsewhere the functions return 0 ("unknown"),
// which callers treat as "no limit".
#ifndef TBPROF_SRC_BASE_RESOURCE_USAGE_H_
#define TBPROF_SRC_BASE_RESOURCE_USAGE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace tbprof {

// Resident set size of this process in bytes (/proc/self/statm), 0 if
// unknown. Costs one small file read (a few microseconds): call it every so
// many thousand events, not per event.
uint64_t ResidentMemoryBytes();

// Memory this process may use in bytes: the smaller of physical RAM
// (/proc/meminfo MemTotal) and the cgroup limit (v2 memory.max, v1
// memory.limit_in_bytes) when one is set; 0 if unknown.
uint64_t UsableMemoryBytes();

// Default memory limit of a conversion: 80% of UsableMemoryBytes(), so the
// tool stops with a message before the kernel's OOM killer stops it
// without one; 0 (no limit) if the machine's memory is unknown.
uint64_t DefaultMemoryLimitBytes();

// OK while ResidentMemoryBytes() <= limit_bytes (or limit_bytes is 0 or the
// RSS unknown); else kResourceExhausted: "<what>: memory use reached N MB,
// over the limit of M MB (--max-memory-mb)".
absl::Status CheckMemoryLimit(uint64_t limit_bytes, const std::string& what);

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_RESOURCE_USAGE_H_
