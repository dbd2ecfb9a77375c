// `tbprof convert / report / inspect / diff` on PyTorch CUDA memory
// snapshots (testdata/memory_snapshot, written by make_fixtures.py), end to
// end through the binary: recognised by content, the peak and the blocks
// live at it in the report, and bad pickles as one clear line with nothing
// left in the logdir.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile_test_util.h"

namespace tbprof {
namespace {

using ::tbprof::testing_util::ChildResult;
using ::tbprof::testing_util::ListTree;
using ::tbprof::testing_util::MakeTempDir;
using ::tbprof::testing_util::ReadAll;
using ::tbprof::testing_util::RemoveTree;
using ::tbprof::testing_util::RunTbprof;
using ::tbprof::testing_util::WriteFile;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kFixtures = "testdata/memory_snapshot/";

class MemorySnapshotCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("memory_snapshot_cli"); }
  void TearDown() override { RemoveTree(dir_); }
  std::string dir_;
};

TEST_F(MemorySnapshotCliTest, ConvertWritesTheMemoryProfile) {
  const std::string logdir = dir_ + "/logdir";
  ChildResult r = RunTbprof({"convert", kFixtures + "small.p5.pickle", "--logdir", logdir,
                             "--run", "r1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("PyTorch memory snapshot"));
  std::vector<std::string> files = ListTree(logdir);
  EXPECT_THAT(files, Contains("plugins/profile/r1/small.p5.xplane.pb"));
  EXPECT_THAT(files, Contains("plugins/profile/r1/small.p5.memory_profile.json.gz"));
}

TEST_F(MemorySnapshotCliTest, RecognisedByContentAndInDirectories) {
  const std::string renamed = dir_ + "/snapshot.bin";
  WriteFile(renamed, ReadAll(kFixtures + "small.p4.pickle"));
  ChildResult r = RunTbprof({"inspect", renamed});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("PyTorch memory snapshot"));
  EXPECT_THAT(r.out, HasSubstr("GPU:0 memory snapshot"));

  const std::string inputs = dir_ + "/inputs";
  ASSERT_EQ(RunTbprof({"inspect", kFixtures + "small.p4.pickle.gz"}).exit_code, 0);
  ASSERT_EQ(::mkdir(inputs.c_str(), 0755), 0);
  WriteFile(inputs + "/rank0.pickle", ReadAll(kFixtures + "small.p2.pickle"));
  WriteFile(inputs + "/rank1.pkl", ReadAll(kFixtures + "random.p5.pickle"));
  const std::string logdir = dir_ + "/logdir";
  r = RunTbprof({"convert", inputs, "--logdir", logdir, "--run", "r"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> files = ListTree(logdir);
  EXPECT_THAT(files, Contains("plugins/profile/r/rank0.xplane.pb"));
  EXPECT_THAT(files, Contains("plugins/profile/r/rank1.xplane.pb"));
}

TEST_F(MemorySnapshotCliTest, ReportShowsThePeakAndItsBlocks) {
  ChildResult r = RunTbprof({"report", kFixtures + "small.p4.pickle"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("GPU_0_caching: peak 25.0 MiB"));
  EXPECT_THAT(r.out, HasSubstr("/home/u/train.py:40:step0"));
  // The snapshot's CUDA devices, not the "CPU" of a space without GPU planes.
  EXPECT_THAT(r.out, HasSubstr("Device      CUDA GPU 0, 1 (memory snapshot) x 2"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("Device      CPU")));
  r = RunTbprof({"report", kFixtures + "small.p4.pickle", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("GPU_0_caching"));
  EXPECT_THAT(r.out, HasSubstr("26214400"));  // 25 MiB.
}

// What only the snapshot knows (segments, fragmentation, the stacks of the
// blocks live at the peak) follows the views in every form of the report.
TEST_F(MemorySnapshotCliTest, ReportHasTheSnapshotSection) {
  ChildResult r = RunTbprof({"report", kFixtures + "small.p4.pickle"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Memory snapshot, GPU 0: peak 25.0 MiB"));
  EXPECT_THAT(r.out, HasSubstr("reserved but free"));
  EXPECT_THAT(r.out, HasSubstr("c10/cuda/CUDACachingAllocator.cpp:1181:malloc"));
  r = RunTbprof({"report", kFixtures + "small.p4.pickle", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"appendices\":[{\"host\":\"small.p4\",\"memory_snapshot\":{"));
  EXPECT_THAT(r.out, HasSubstr("\"peak_allocated_bytes\":26214400"));
  const std::string html = dir_ + "/report.html";
  r = RunTbprof({"report", "--html", html, kFixtures + "small.p4.pickle"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = ReadAll(html);
  EXPECT_THAT(page, HasSubstr("id=\"appendix-memory_snapshot-small.p4\""));
  EXPECT_THAT(page, HasSubstr("CUDACachingAllocator.cpp:1181:malloc"));
  // A trace's report has no appendix.
  r = RunTbprof({"report", "--json", "testdata/samples/h100_bert_small_inference.json.gz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("appendices")));
}

TEST_F(MemorySnapshotCliTest, DiffLoadsBothSnapshots) {
  ChildResult r = RunTbprof({"diff", kFixtures + "small.p4.pickle", kFixtures + "small.p5.pickle"});
  // Both load; diff compares kernels, operators and steps, which a memory
  // snapshot does not have.
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("byte")));
  EXPECT_TRUE(r.exit_code == 0 || absl::StrContains(r.err, "nothing in common")) << r.err;
}

TEST_F(MemorySnapshotCliTest, BadPicklesAreOneLineAndLeaveNothing) {
  struct Case {
    const char* file;
    const char* message;
  };
  for (const Case& k : std::vector<Case>{
           {"code.p2.pickle", "this pickle asks to run code; tbprof reads only plain data"},
           {"truncated.p4.pickle", "byte 2: truncated pickle"},
           {"huge_length.p4.pickle", "byte 2: truncated pickle: a string of 10000000000 bytes"},
           {"not_snapshot.p4.pickle", "not a PyTorch memory snapshot"},
       }) {
    SCOPED_TRACE(k.file);
    const std::string logdir = dir_ + "/bad_" + k.file;
    ChildResult r = RunTbprof({"convert", kFixtures + k.file, "--logdir", logdir});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_THAT(r.err, HasSubstr(kFixtures + k.file));
    EXPECT_THAT(r.err, HasSubstr(k.message));
    std::vector<std::string> lines = absl::StrSplit(r.err, '\n', absl::SkipEmpty());
    EXPECT_EQ(lines.size(), 1u) << r.err;
    EXPECT_THAT(ListTree(logdir), IsEmpty());
    r = RunTbprof({"report", kFixtures + k.file});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_THAT(r.err, HasSubstr(k.message));
  }
}

}  // namespace
}  // namespace tbprof
