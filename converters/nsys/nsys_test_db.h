// Test helper: small synthetic Nsight Systems exports written with the
// SQLite C API (the schema of nsys 2026, trimmed to what tbprof reads).
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_TEST_DB_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_TEST_DB_H_

#include <cstdint>
#include <string>

namespace tbprof::converters::nsys_test {

inline constexpr int64_t kEpochNs = 1700000000000000000;
// Serialized global ids: pid 100 thread 101, pid 200 thread 201.
inline constexpr int64_t kPid100 = (int64_t{1} << 48) | (int64_t{100} << 24);
inline constexpr int64_t kPid200 = (int64_t{1} << 48) | (int64_t{200} << 24);

// CREATE TABLE statements of the export's tables (no rows).
std::string SchemaSql();
// SchemaSql() plus rows: one H100 (device 0), pid 100 launching a kernel
// inside "aten::mm" and an NCCL kernel from a CUDA graph inside "my_range",
// all inside "ProfilerStep#4"; a memcpy, memset, sync; pid 200 launching one
// kernel on device 1.
std::string ExampleSql();

// Runs `sql` in a new database file named `name` under TempDir; returns its
// path. Fails the test on an SQL error.
std::string WriteDb(const std::string& name, const std::string& sql);

}  // namespace tbprof::converters::nsys_test

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_TEST_DB_H_
