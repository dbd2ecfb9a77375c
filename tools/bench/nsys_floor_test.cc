#include "tools/bench/nsys_floor.h"

#include <sqlite3.h>

#include "converters/nsys/nsys_test_db.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "gtest/gtest.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::bench {
namespace {

TEST(NsysFloorTest, ScanCountsEveryRowTheImporterReads) {
  const std::string path =
      converters::nsys_test::WriteDb("floor.sqlite", converters::nsys_test::ExampleSql());
  absl::StatusOr<NsysScan> scan = ScanNsysExport(path);
  ASSERT_TRUE(scan.ok()) << scan.status();
  // 8 strings, 3 processes, 2 thread names, 5 runtime, 4 NVTX, 3 kernels,
  // 1 memcpy, 1 memset, 1 sync, 1 graph launch.
  EXPECT_EQ(scan->rows, 8 + 3 + 2 + 5 + 4 + 3 + 1 + 1 + 1 + 1);
  EXPECT_GT(scan->values, scan->rows);
  EXPECT_FALSE(ScanNsysExport(path + ".missing").ok());
}

TEST(NsysFloorTest, ScaledExportRepeatsActivityAfterTheOriginal) {
  const std::string path =
      converters::nsys_test::WriteDb("small.sqlite", converters::nsys_test::ExampleSql());
  const std::string scaled = testing_util::TempFilePath("scaled.sqlite");
  ASSERT_TRUE(ScaleNsysExport(path, scaled, 3).ok());
  xplane::XSpaceData one, three;
  absl::StatusOr<converters::NsysSummary> a =
      converters::ConvertNsysSqliteToXSpace(path, {}, &one);
  absl::StatusOr<converters::NsysSummary> b =
      converters::ConvertNsysSqliteToXSpace(scaled, {}, &three);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(b->kernels, 3 * a->kernels);
  EXPECT_EQ(b->api_calls, 3 * a->api_calls);
  EXPECT_EQ(b->nvtx_ranges, 3 * a->nvtx_ranges);
  EXPECT_EQ(b->memcpys, 3 * a->memcpys);
  EXPECT_EQ(b->step_roots, 3 * a->step_roots);
  absl::StatusOr<NsysScan> scan = ScanNsysExport(scaled);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->rows, 8 + 3 + 2 + 3 * (5 + 4 + 3 + 1 + 1 + 1 + 1));
}

}  // namespace
}  // namespace tbprof::bench
