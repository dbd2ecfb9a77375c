// `tbprof` end to end on Nsight Systems exports: convert, report, inspect and
// diff read them through LoadInput (synthetic exports always; the real ones
// of ../shared/testdata/nsys when present); a `.nsys-rep` is exported by the
// `nsys` on PATH (a fake one here) or refused with one line saying how to
// export it; bad databases give one line naming the file, a non-zero exit and
// nothing in the logdir.
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "converters/nsys/nsys_test_db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile_test_util.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace testing_util;  // NOLINT

const std::string kRealH100 = "../shared/testdata/nsys/h100_2gpu_pytorch_nvtx.sqlite";
const std::string kRealLegacy = "../shared/testdata/nsys/saxpy_mpi_legacy_schema.sqlite";

// Sets PATH for one test (RunTbprof passes this process's environment on).
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& value) : old_(getenv("PATH") ? getenv("PATH") : "") {
    setenv("PATH", value.c_str(), 1);
  }
  ~ScopedPath() { setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

int NonEmptyLines(const std::string& text) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) n += !line.empty();
  return n;
}

class NsysCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    export_ = converters::nsys_test::WriteDb(
        absl::StrCat(::testing::UnitTest::GetInstance()->current_test_info()->name(), ".sqlite"),
        converters::nsys_test::ExampleSql());
  }
  void TearDown() override { RemoveTree(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  // Runs `args`; expects failure with one stderr line naming `file`, and no
  // file in `logdir`.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& file,
                     const std::string& logdir, const std::string& what) {
    ChildResult r = RunTbprof(args);
    EXPECT_EQ(r.signal, 0);
    EXPECT_NE(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr(file));
    EXPECT_THAT(r.err, HasSubstr(what));
    EXPECT_EQ(NonEmptyLines(r.err), 1) << r.err;
    for (const std::string& entry : ListTree(logdir)) {
      EXPECT_THAT(entry, Not(HasSubstr("."))) << "nothing may be written: " << entry;
    }
  }

  std::string dir_, export_;
};

TEST_F(NsysCliTest, ConvertReportInspectDiffReadTheExport) {
  const std::string logdir = Path("tb");
  ChildResult r = RunTbprof({"convert", export_, "--logdir", logdir, "--run", "r", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Two processes ran CUDA: one host each.
  EXPECT_TRUE(Exists(logdir + "/plugins/profile/r/node7_pid100.xplane.pb"))
      << absl::StrJoin(ListTree(logdir), " ");
  EXPECT_TRUE(Exists(logdir + "/plugins/profile/r/node7_pid200.xplane.pb"))
      << absl::StrJoin(ListTree(logdir), " ");

  r = RunTbprof({"report", export_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("void k<int>(int)"));
  EXPECT_THAT(r.out, HasSubstr("scale2(float*, int)"));

  r = RunTbprof({"inspect", export_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Nsight Systems export"));
  EXPECT_THAT(r.out, HasSubstr("#pid=200"));
  EXPECT_THAT(r.out, HasSubstr("/device:GPU:0"));
  EXPECT_THAT(r.out, HasSubstr("kernel_details"));

  r = RunTbprof({"diff", export_, export_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(NsysCliTest, RealExportsConvertAndReport) {
  for (const std::string& file : {kRealH100, kRealLegacy}) {
    if (!Exists(file)) GTEST_SKIP() << "no " << file;
    const std::string logdir = Path("real");
    ChildResult r = RunTbprof({"convert", file, "--logdir", logdir, "--run", "r", "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = RunTbprof({"report", file});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(file == kRealH100 ? "sm80_xmma_gemm" : "saxpy"));
  }
  if (!Exists(kRealH100) || !Exists(kRealLegacy)) return;
  ChildResult r = RunTbprof({"diff", kRealLegacy, kRealH100});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(NsysCliTest, ReportIsExportedByNsysOnPath) {
  const std::string bin = Path("bin");
  ASSERT_EQ(mkdir(bin.c_str(), 0755), 0);
  WriteFile(bin + "/nsys",
            absl::StrCat("#!/bin/sh\n[ \"$1\" = export ] || exit 3\nout=\n",
                         "while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=\"$2\"; shift; "
                         "done\n/bin/cp '",
                         export_, "' \"$out\"\n"));
  ASSERT_EQ(chmod((bin + "/nsys").c_str(), 0755), 0);
  const std::string report = Path("run.nsys-rep");
  WriteFile(report, "a binary Nsight Systems report");
  ScopedPath path(bin);
  const std::string logdir = Path("tb");
  ChildResult r = RunTbprof({"convert", report, "--logdir", logdir, "--run", "r", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A report is exported when read, so its processes share one host.
  EXPECT_TRUE(Exists(logdir + "/plugins/profile/r/node7.xplane.pb"));
}

TEST_F(NsysCliTest, ReportWithoutNsysSaysHowToExport) {
  const std::string report = Path("run.nsys-rep");
  WriteFile(report, "a binary Nsight Systems report");
  ScopedPath path(Path("no-such-bin"));
  ExpectRefused({"convert", report, "--logdir", Path("tb"), "--run", "r", "--quiet"}, report,
                Path("tb"), "nsys export --type sqlite");
}

TEST_F(NsysCliTest, BadDatabasesAreOneLineAndNothingWritten) {
  const std::string other = converters::nsys_test::WriteDb("not_nsys.sqlite", "CREATE TABLE t (a INTEGER);");
  ExpectRefused({"convert", other, "--logdir", Path("tb"), "--quiet"}, other, Path("tb"),
                "not an Nsight Systems export");

  const std::string whole = ReadAll(export_);
  const std::string cut = Path("cut.sqlite");
  WriteFile(cut, whole.substr(0, whole.size() / 2));
  ExpectRefused({"convert", cut, "--logdir", Path("tb"), "--quiet"}, cut, Path("tb"),
                "truncated or damaged");

  const std::string header_only = Path("header.sqlite");
  WriteFile(header_only, whole.substr(0, 100));
  ExpectRefused({"convert", header_only, "--logdir", Path("tb"), "--quiet"}, header_only,
                Path("tb"), header_only);

  const std::string empty = converters::nsys_test::WriteDb("empty_export.sqlite", converters::nsys_test::SchemaSql());
  ExpectRefused({"convert", empty, "--logdir", Path("tb"), "--quiet"}, empty, Path("tb"),
                "no trace events");
}

}  // namespace
}  // namespace tbprof
