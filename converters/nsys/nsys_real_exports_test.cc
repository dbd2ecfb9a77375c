// The truth of the import on the real exports in ../shared/testdata/nsys
// (skipped without it): kernel count and total time per kernel name in
// tbprof's kernel stats view equal a plain SQL query over the same table,
// exactly; so do the copies, API calls and NVTX ranges; and times are
// absolute (session start + offset).
#include <sqlite3.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "converters/views/kernels/xspace_to_kernel_stats.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

const std::string kDir = "../shared/testdata/nsys";

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Runs `sql` on `path` (read-only) and returns rows as text columns.
std::vector<std::vector<std::string>> Sql(const std::string& path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(absl::StrCat("file:", path, "?mode=ro&immutable=1").c_str(), &db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const unsigned char* text = sqlite3_column_text(stmt, i);
      row.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

int64_t SqlInt(const std::string& path, const std::string& sql) {
  auto rows = Sql(path, sql);
  // -1 for no row or NULL (min() of an empty table).
  return rows.empty() || rows[0].empty() || rows[0][0].empty() ? -1 : std::stoll(rows[0][0]);
}

class NsysRealExportsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(NsysRealExportsTest, KernelStatsEqualPlainSql) {
  const std::string path = absl::StrCat(kDir, "/", GetParam());
  if (!Exists(path)) GTEST_SKIP() << "no " << path;
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();

  // Plain SQL: per demangled kernel name, count and total ns.
  std::map<std::string, std::pair<int64_t, int64_t>> expected;
  for (const auto& row : Sql(path,
                             "SELECT s.value, count(*), sum(k.end - k.start) "
                             "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                             "ON s.id = k.demangledName GROUP BY s.value")) {
    expected[row[0]] = {std::stoll(row[1]), std::stoll(row[2])};
  }
  ASSERT_FALSE(expected.empty());

  views::KernelStatsOptions options;
  options.max_kernels = 1 << 30;
  tensorflow::profiler::KernelStatsDb db = views::ConvertXSpaceToKernelStatsDb(space, options);
  std::map<std::string, std::pair<int64_t, int64_t>> ours;
  for (const auto& report : db.reports()) {
    auto& [count, total] = ours[report.name()];
    count += report.occurrences();
    total += static_cast<int64_t>(report.total_duration_ns());
  }
  EXPECT_EQ(ours.size(), expected.size());
  for (const auto& [name, want] : expected) {
    auto it = ours.find(name);
    ASSERT_NE(it, ours.end()) << name;
    EXPECT_EQ(it->second.first, want.first) << name;
    EXPECT_EQ(it->second.second, want.second) << name;
  }
  EXPECT_EQ(summary->kernels, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));

  // The legacy export records its A100 (TARGET_INFO_GPU): saxpy's launch of
  // 512 threads with 26 registers fits 4 blocks (2048 threads) per SM by
  // threads and by registers (26 -> 32 per thread in 256-register warp
  // allocations: 16384 per block of 65536): 100% theoretical occupancy.
  if (std::string(GetParam()) == "saxpy_mpi_legacy_schema.sqlite") {
    ASSERT_EQ(db.reports_size(), 1);
    EXPECT_EQ(db.reports(0).occupancy_pct(), 100.0f);
  }
}

TEST_P(NsysRealExportsTest, CopiesCallsRangesAndAbsoluteTimes) {
  const std::string path = absl::StrCat(kDir, "/", GetParam());
  if (!Exists(path)) GTEST_SKIP() << "no " << path;
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->memcpys, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
  EXPECT_EQ(summary->memsets, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
  EXPECT_EQ(summary->api_calls,
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE end >= start"));
  EXPECT_EQ(summary->nvtx_ranges,
            SqlInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) "
                         "AND end IS NOT NULL AND end >= start"));

  // Bytes per memcpy direction name on the GPU planes = SQL per copyKind.
  int64_t ours_bytes = 0;
  for (const xplane::Plane* plane : xplane::FindGpuPlanes(space)) {
    xplane::XPlaneVisitor pv(&space, plane, 0);
    pv.ForEachLine([&](const xplane::XLineVisitor& line) {
      line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
        std::optional<xplane::XStatVisitor> d = ev.GetStat(xplane::StatType::kMemcpyDetails);
        if (!d.has_value()) return;
        absl::string_view text = d->StrOrRefValue();
        ours_bytes += std::stoll(std::string(text.substr(10, text.find(' ') - 10)));
      });
    });
  }
  EXPECT_EQ(ours_bytes, SqlInt(path, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));

  // Device events named by an op: those whose launching API call (same
  // process and correlation id) starts inside an NVTX range of its thread.
  int64_t with_op = 0;
  for (const xplane::Plane* plane : xplane::FindGpuPlanes(space)) {
    xplane::XPlaneVisitor pv(&space, plane, 0);
    pv.ForEachLine([&](const xplane::XLineVisitor& line) {
      line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
        with_op += ev.GetStat(xplane::StatType::kTfOp).has_value() ? 1 : 0;
      });
    });
  }
  EXPECT_EQ(with_op,
            SqlInt(path,
                   "WITH dev AS (SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL "
                   "UNION ALL SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                   "UNION ALL SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET) "
                   "SELECT count(*) FROM dev d WHERE EXISTS (SELECT 1 FROM "
                   "CUPTI_ACTIVITY_KIND_RUNTIME r JOIN NVTX_EVENTS n ON n.globalTid = r.globalTid "
                   "WHERE r.correlationId = d.correlationId AND r.globalTid >> 24 = "
                   "d.globalPid >> 24 AND n.eventType IN (59, 60) AND n.start <= r.start "
                   "AND n.end >= r.start AND coalesce(n.text, '') NOT LIKE 'ProfilerStep#%')"));

  // The session starts at the earliest event: utcEpochNs + min(start).
  const int64_t epoch = SqlInt(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
  int64_t first = INT64_MAX;
  for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                            "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                            "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"}) {
    const int64_t t = SqlInt(path, absl::StrCat("SELECT min(start) FROM ", table,
                                                " WHERE end IS NOT NULL AND end >= start"));
    if (t >= 0) first = std::min(first, t);
  }
  const xplane::Plane* env = xplane::FindPlaneWithName(space, xplane::kTaskEnvPlaneName);
  ASSERT_NE(env, nullptr);
  xplane::XPlaneVisitor pv(&space, env, 0);
  EXPECT_EQ(pv.GetStat(xplane::StatType::kProfileStartTime)->IntValue(), epoch + first);
}

INSTANTIATE_TEST_SUITE_P(RealExports, NsysRealExportsTest,
                         ::testing::Values("h100_2gpu_pytorch_nvtx.sqlite",
                                           "saxpy_mpi_legacy_schema.sqlite"));

}  // namespace
}  // namespace tbprof::converters
