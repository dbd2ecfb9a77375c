#include "converters/nsys/nsys_export.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "converters/nsys/nsys_test_db.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::converters {
namespace {

using ::testing::HasSubstr;

// Sets PATH for one test and restores it.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& value) {
    const char* old = getenv("PATH");
    old_ = old != nullptr ? old : "";
    setenv("PATH", value.c_str(), 1);
  }
  ~ScopedPath() { setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

// A folder holding a fake `nsys` that copies `export_from` to --output (or
// fails when `export_from` is empty).
std::string FakeNsysFolder(const std::string& name, const std::string& export_from) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  mkdir(dir.c_str(), 0755);
  const std::string script = dir + "/nsys";
  std::ofstream out(script);
  out << "#!/bin/sh\n"
      << "[ \"$1\" = export ] || exit 3\n"
      << "out=\n"
      << "while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=\"$2\"; shift; done\n";
  if (export_from.empty()) {
    out << "echo 'ERROR: report is damaged' >&2\nexit 1\n";
  } else {
    out << "/bin/cp '" << export_from << "' \"$out\"\n";
  }
  out.close();
  chmod(script.c_str(), 0755);
  return dir;
}

TEST(NsysExportTest, ReportNamesAndSqliteMagic) {
  EXPECT_TRUE(IsNsysReportName("a/run.nsys-rep"));
  EXPECT_TRUE(IsNsysReportName("old.QDREP"));
  EXPECT_FALSE(IsNsysReportName("run.sqlite"));
  EXPECT_TRUE(LooksLikeSqlite(std::string("SQLite format 3\0rest", 20)));
  EXPECT_FALSE(LooksLikeSqlite("SQLite format 2"));
}

TEST(NsysExportTest, ReportWithoutNsysSaysHowToExport) {
  const std::string report = testing_util::TempFilePath("run.nsys-rep");
  std::ofstream(report) << "not really a report";
  ScopedPath path(::testing::TempDir() + "/no-such-folder");
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> s = ConvertNsysToXSpace(report, NsysOptions(), &space);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr(report));
  EXPECT_THAT(s.status().message(), HasSubstr("nsys export --type sqlite"));
  EXPECT_EQ(std::string(s.status().message()).find('\n'), std::string::npos);
}

TEST(NsysExportTest, ReportExportedByNsysOnPath) {
  const std::string exported = nsys_test::WriteDb("exported.sqlite", nsys_test::ExampleSql());
  const std::string report = testing_util::TempFilePath("good.nsys-rep");
  std::ofstream(report) << "binary report";
  ScopedPath path(FakeNsysFolder("fake_nsys_ok", exported));
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> s = ConvertNsysToXSpace(report, NsysOptions(), &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->kernels, 3);
  EXPECT_EQ(s->hostname, "node7");
}

TEST(NsysExportTest, FailedExportNamesReportAndNsysMessage) {
  const std::string report = testing_util::TempFilePath("bad.nsys-rep");
  std::ofstream(report) << "binary report";
  ScopedPath path(FakeNsysFolder("fake_nsys_fails", ""));
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> s = ConvertNsysToXSpace(report, NsysOptions(), &space);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr(report));
  EXPECT_THAT(s.status().message(), HasSubstr("report is damaged"));
}

TEST(NsysExportTest, OneInputPerProcessOfAnExport) {
  const std::string two = nsys_test::WriteDb("two_processes.sqlite", nsys_test::ExampleSql());
  EXPECT_EQ(ExpandNsysProcesses(two),
            (std::vector<std::string>{two + "#pid=100", two + "#pid=200"}));
  std::string file;
  int64_t pid = 0;
  ASSERT_TRUE(SplitNsysProcessPath(two + "#pid=200", &file, &pid));
  EXPECT_EQ(file, two);
  EXPECT_EQ(pid, 200);
  EXPECT_FALSE(SplitNsysProcessPath(two, &file, &pid));
  EXPECT_FALSE(SplitNsysProcessPath(two + "#pid=x", &file, &pid));
  EXPECT_FALSE(SplitNsysProcessPath("/no/such.sqlite#pid=1", &file, &pid));
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> s = ConvertNsysToXSpace(two + "#pid=200", NsysOptions(), &space);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->kernels, 1);
  EXPECT_EQ(space.hostnames[0], "node7_pid200");

  const std::string one = nsys_test::WriteDb(
      "one_process.sqlite",
      nsys_test::ExampleSql() +
          "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = " +
          std::to_string(nsys_test::kPid200) +
          "; DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid = " +
          std::to_string(nsys_test::kPid200 + 201) + ";");
  EXPECT_EQ(ExpandNsysProcesses(one), std::vector<std::string>{one});
  const std::string text = testing_util::TempFilePath("text.json");
  std::ofstream(text) << "{}";
  EXPECT_EQ(ExpandNsysProcesses(text), std::vector<std::string>{text});
}

}  // namespace
}  // namespace tbprof::converters
