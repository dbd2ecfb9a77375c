#include "converters/memory_snapshot/memory_snapshot_report.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::converters {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

MemorySnapshotSummary Small() {
  xplane::XSpaceData space;
  absl::StatusOr<MemorySnapshotSummary> s = ConvertMemorySnapshotToXSpace(
      "testdata/memory_snapshot/small.p4.pickle", MemorySnapshotOptions(), &space);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : MemorySnapshotSummary();
}

TEST(MemorySnapshotReportTest, Text) {
  MemorySnapshotReportOptions options;
  options.max_blocks = 3;
  options.max_frames = 2;
  std::string text = FormatMemorySnapshotText(Small(), options);
  EXPECT_THAT(text, HasSubstr("Memory snapshot, GPU 0: peak 25.0 MiB allocated at trace event 5"));
  EXPECT_THAT(text, HasSubstr("40.0 MiB reserved then"));
  EXPECT_THAT(text, HasSubstr("live before recording: 3.00 MiB in 2 blocks"));
  EXPECT_THAT(text, HasSubstr("at dump: 2 segments, 40.0 MiB reserved, 9.00 MiB active, "
                              "31.0 MiB reserved but free"));
  EXPECT_THAT(text, HasSubstr("live at the peak: 4 blocks, largest 3:"));
  EXPECT_THAT(text, HasSubstr("        c10/cuda/CUDACachingAllocator.cpp:1181:malloc\n"));
  EXPECT_THAT(text, HasSubstr("... 2 more frames"));
  EXPECT_THAT(text, Not(HasSubstr("1.00 MiB  0x7f3a")));  // GPU 0's 4th block is cut.
  EXPECT_THAT(text, HasSubstr("Memory snapshot, GPU 1: peak 3.00 MiB"));
}

TEST(MemorySnapshotReportTest, DeviceTypeNamesTheCudaDevices) {
  // small.p4 records GPU 0 and GPU 1; the report's Device line says so
  // instead of the "CPU" of a space without GPU planes.
  EXPECT_EQ(MemorySnapshotDeviceType(Small()), "CUDA GPU 0, 1 (memory snapshot)");
  EXPECT_EQ(MemorySnapshotDeviceType(MemorySnapshotSummary()), "CUDA GPU (memory snapshot)");
}

TEST(MemorySnapshotReportTest, JsonParsesInPython) {
  std::string json = MemorySnapshotToJson(Small());
  EXPECT_THAT(json, HasSubstr("\"peak_allocated_bytes\":26214400"));
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") != 0) GTEST_SKIP();
  const std::string path = testing::TempDir() + "/memory_snapshot_report.json";
  std::ofstream(path) << json;
  std::string command = "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                        "b=d[\"devices\"][0][\"live_at_peak\"]; "
                        "assert sum(x[\"size\"] for x in b)==d[\"devices\"][0][\"peak_allocated_bytes\"]; "
                        "assert b[0][\"frames\"][2].startswith(\"/home/u/train.py\")' " + path;
  EXPECT_EQ(std::system(command.c_str()), 0) << json;
  std::remove(path.c_str());
}

TEST(MemorySnapshotReportTest, HtmlIsEscaped) {
  MemorySnapshotSummary s = Small();
  s.analysis.warnings.push_back("<script>");
  std::string html = MemorySnapshotToHtml(s);
  EXPECT_THAT(html, HasSubstr("<h3>GPU 0</h3>"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, HasSubstr("4 blocks live at the peak"));
}

}  // namespace
}  // namespace tbprof::converters
