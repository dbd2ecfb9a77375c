// The speed floor of an Nsight Systems SQLite export, and a scaler that makes
// big exports out of small real ones, for tbprof_nsys_bench.
//
// The floor is a bare SQLite scan of the rows and columns the importer
// (converters/nsys) reads: one SELECT per table, every row stepped and every
// column value fetched (integers as int64, text as bytes), nothing built.
// The importer cannot be faster than SQLite handing it the same values.
#ifndef TBPROF_TOOLS_BENCH_NSYS_FLOOR_H_
#define TBPROF_TOOLS_BENCH_NSYS_FLOOR_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tbprof::bench {

struct NsysScan {
  int64_t rows = 0;
  int64_t values = 0;
  uint64_t checksum = 0;  // Sum of integers and text lengths (keeps the work).
};

// Scans the export at `path` (read-only, immutable) as described above.
// Errors: the file is not an SQLite database, or a query fails (naming the
// table).
absl::StatusOr<NsysScan> ScanNsysExport(const std::string& path);

// Copies the export `in` to `out` with the rows of its activity tables
// (kernels, runtime/driver calls, memcpys, memsets, synchronizations, graph
// launches, NVTX events) repeated `copies` times in total: copy k has its
// times shifted by k times the capture's span and its correlation ids by k
// times the largest one, so the copies follow each other like more steps of
// the same run. Errors name the file and table.
absl::Status ScaleNsysExport(const std::string& in, const std::string& out, int copies);

}  // namespace tbprof::bench

#endif  // TBPROF_TOOLS_BENCH_NSYS_FLOOR_H_
