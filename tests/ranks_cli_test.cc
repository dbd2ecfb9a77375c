// `tbprof` end to end on jobs of many ranks (issue 26), on copies of the
// real 8-rank DLRM job in ../shared/testdata (skipped when it is absent):
// a bad rank among good ones is named and left out while the others are
// converted, published and reported (exit status 4), `--strict` keeps
// all-or-nothing, and nothing half-written ever appears in the logdir.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_util::CliRun;
using testing_util::DirectoryEntries;
using testing_util::PathExists;
using testing_util::ReadFileOrEmpty;

const std::string kDlrm = std::string(TBPROF_SHARED_TESTDATA) + "/kineto/dlrm_8ranks";

// Runs the tbprof binary in a temporary directory of its own.
class CliProcessTest : public ::testing::Test {
 protected:
  void MakeTempDir() {
    dir_ = testing_util::MakeTempDirectory("ranks_cli_");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  CliRun Run(const std::vector<std::string>& args) {
    return testing_util::RunProgram(TBPROF_CLI_PATH, args, dir_);
  }

  std::string dir_;
};

class RanksCliTest : public CliProcessTest {
 protected:
  void SetUp() override {
    if (!PathExists(kDlrm)) GTEST_SKIP() << "no " << kDlrm;
    MakeTempDir();
    ranks_ = dir_ + "/ranks";
    std::filesystem::create_directory(ranks_);
    for (const std::string& name : DirectoryEntries(kDlrm)) {
      std::string contents = ReadFileOrEmpty(kDlrm + "/" + name);
      if (absl::StartsWith(name, "worker3_")) {
        bad_rank_ = ranks_ + "/" + name;
        contents.resize(contents.size() / 3);  // A rank whose job was killed mid-write.
      }
      std::ofstream(ranks_ + "/" + name, std::ios::binary) << contents;
    }
    ASSERT_FALSE(bad_rank_.empty());
  }


  std::string ranks_, bad_rank_;
};

TEST_F(RanksCliTest, ConvertLeavesOutABadRankAndPublishesTheOthers) {
  const std::string logdir = dir_ + "/tb";
  CliRun r = Run({"convert", ranks_, "--logdir", logdir, "--run", "job"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  // Named once when it fails and once at the end, with the reason.
  EXPECT_THAT(r.err, HasSubstr("skipped " + bad_rank_ + ": truncated gzip"));
  EXPECT_THAT(r.err, HasSubstr("1 of 8 inputs failed and were left out"));
  const std::vector<std::string> files = DirectoryEntries(logdir + "/plugins/profile/job");
  int xplanes = 0;
  for (const std::string& name : files) {
    EXPECT_NE(name[0], '.') << "a staged file was left: " << name;
    EXPECT_FALSE(absl::StartsWith(name, "worker3_")) << name;
    if (absl::EndsWith(name, ".xplane.pb")) ++xplanes;
  }
  EXPECT_EQ(xplanes, 7);
  // The run that was published reads as 7 ranks of a job of 8.
  CliRun report = Run({"report", logdir, "--quiet", "--width", "100"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("7 ranks of 8"));
}

TEST_F(RanksCliTest, ARankWithoutEventsIsLeftOutWithNothingStaged) {
  const std::string empty = ranks_ + "/worker8_empty.pt.trace.json";
  std::ofstream(empty) << R"({"traceEvents": []})";
  std::filesystem::remove(bad_rank_);
  const std::string logdir = dir_ + "/tb";
  CliRun r = Run({"convert", ranks_, "--logdir", logdir, "--run", "job", "--quiet"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr("skipped " + empty + ": no trace events to convert"));
  int xplanes = 0;
  for (const std::string& name : DirectoryEntries(logdir + "/plugins/profile/job")) {
    EXPECT_NE(name[0], '.') << "a staged file was left: " << name;
    EXPECT_FALSE(absl::StartsWith(name, "worker8_empty")) << name;
    xplanes += absl::EndsWith(name, ".xplane.pb");
  }
  EXPECT_EQ(xplanes, 7);
}

TEST_F(RanksCliTest, ConvertStrictPublishesNothing) {
  const std::string logdir = dir_ + "/tb";
  CliRun r = Run({"convert", ranks_, "--logdir", logdir, "--run", "job", "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tbprof: error: " + bad_rank_ + ": truncated gzip"));
  EXPECT_FALSE(PathExists(logdir + "/plugins/profile/job"));
}

TEST_F(RanksCliTest, ConvertWithEveryInputBadFailsAndPublishesNothing) {
  const std::string logdir = dir_ + "/tb";
  const std::string other = ranks_ + "/copy_of_bad.pt.trace.json.gz";
  std::filesystem::copy_file(bad_rank_, other);
  CliRun r = Run({"convert", bad_rank_, other, "--logdir", logdir, "--run", "job"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("none of the 2 inputs could be converted"));
  EXPECT_FALSE(PathExists(logdir + "/plugins/profile/job"));
}

TEST_F(RanksCliTest, ConvertOfOneBadInputIsAPlainFailure) {
  CliRun r = Run({"convert", bad_rank_, "--logdir", dir_ + "/tb", "--run", "job"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, Not(HasSubstr("skipped")));
  EXPECT_FALSE(PathExists(dir_ + "/tb/plugins/profile/job"));
}

TEST_F(RanksCliTest, ReportGoesOnPastABadRank) {
  CliRun r = Run({"report", ranks_, "--quiet", "--width", "100"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.err, HasSubstr("skipped " + bad_rank_ + ": truncated gzip"));
  EXPECT_THAT(r.out, HasSubstr("7 ranks of 8"));

  CliRun strict = Run({"report", ranks_, "--quiet", "--strict"});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.err, HasSubstr(bad_rank_));
  EXPECT_EQ(strict.out, "");
}

TEST_F(RanksCliTest, ADuplicateRankIsNamedInOneLine) {
  std::filesystem::remove(bad_rank_);
  std::filesystem::copy_file(kDlrm + "/" + bad_rank_.substr(bad_rank_.rfind('/') + 1),
                             ranks_ + "/zz_rank3_again.pt.trace.json.gz");
  std::filesystem::copy_file(kDlrm + "/" + bad_rank_.substr(bad_rank_.rfind('/') + 1), bad_rank_);
  CliRun r = Run({"report", ranks_, "--quiet", "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every rank counts once: 8 ranks, not 9.
  EXPECT_THAT(r.out, HasSubstr("Distributed: 8 ranks of 8, nccl"));
  CliRun json = Run({"report", ranks_, "--quiet", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"ranksInRun\":\"8\""));
  EXPECT_THAT(json.out,
              HasSubstr("duplicate rank ids: rank 3 in worker3_step_12.1694128201557 (" +
                        bad_rank_ + "), zz_rank3_again (" + ranks_ +
                        "/zz_rank3_again.pt.trace.json.gz), the same profile; counted as "
                        "worker3_step_12.1694128201557. Each rank counts once: 1 host is left "
                        "out of the distributed view"));
}

TEST_F(RanksCliTest, AFileNamedTwiceIsReadOnce) {
  std::filesystem::remove(bad_rank_);
  std::filesystem::copy_file(kDlrm + "/" + bad_rank_.substr(bad_rank_.rfind('/') + 1), bad_rank_);
  CliRun r = Run({"report", ranks_, bad_rank_, "--quiet", "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tbprof: " + bad_rank_ + " is named twice; read once"));
  EXPECT_THAT(r.out, HasSubstr("tbprof report: 8 hosts"));
  EXPECT_THAT(r.out, HasSubstr("Distributed: 8 ranks of 8, nccl"));
  EXPECT_THAT(r.out, Not(HasSubstr("duplicate rank ids")));
}

// Two ranks, each split by `convert` into part runs: every reader sees the
// job whole, each rank once, however the run is named.
class SplitRunTest : public CliProcessTest {
 protected:
  void SetUp() override {
    const std::string kineto = std::string(TBPROF_SHARED_TESTDATA) + "/kineto/";
    traces_ = {kineto + "resnet50_v100_dataloader_workers0.pt.trace.json.gz",
               kineto + "resnet50_v100_dataloader_workers4.pt.trace.json.gz"};
    for (const std::string& t : traces_) {
      if (!PathExists(t)) GTEST_SKIP() << "no " << t;
    }
    MakeTempDir();
    std::vector<std::string> args = {"convert", traces_[0], traces_[1], "--run", "job",
                                     "--quiet", "--no-views"};
    std::vector<std::string> whole = args, split = args;
    whole.insert(whole.end(), {"--logdir", dir_ + "/whole", "--tensorboard-budget-mb", "0"});
    split.insert(split.end(), {"--logdir", dir_ + "/tb", "--tensorboard-budget-mb", "140"});
    ASSERT_EQ(Run(whole).exit_code, 0);
    CliRun r = Run(split);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    profile_ = dir_ + "/tb/plugins/profile/";
    ASSERT_TRUE(PathExists(profile_ + "job_part3")) << "expected a split:\n" << r.err;
    ASSERT_FALSE(PathExists(profile_ + "job")) << "every host split, no views: no base run";
    CliRun expected = Run({"report", dir_ + "/whole", "--quiet", "--width", "100"});
    ASSERT_EQ(expected.exit_code, 0) << expected.err;
    expected_report_ = WithoutTitle(expected.out);
  }

  static std::string WithoutTitle(const std::string& report) {
    return report.substr(report.find('\n') + 1);
  }

  std::vector<std::string> traces_;
  std::string profile_, expected_report_;
};

TEST_F(SplitRunTest, ReportSeesTheWholeJobFromTheLogdirTheRunOrAnyPart) {
  const std::vector<std::vector<std::string>> namings = {
      {dir_ + "/tb"},
      {profile_ + "job"},  // The base run: no directory of its own here.
      {profile_ + "job_part2"},
      {profile_ + "job_part1", profile_ + "job_part2", profile_ + "job_part3/", dir_ + "/tb/"},
  };
  for (const std::vector<std::string>& inputs : namings) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"--quiet", "--width", "100"});
    CliRun r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << inputs[0] << "\n" << r.err;
    EXPECT_EQ(WithoutTitle(r.out), expected_report_) << inputs[0];
    if (inputs.size() > 1) {
      EXPECT_THAT(r.err, HasSubstr("job_part2 is a part of run job, read already"));
    } else if (absl::StrContains(inputs[0], "_part")) {
      EXPECT_THAT(r.err, HasSubstr("job_part2 is a part of run job, which is read whole"));
    }
  }
}

// Every host is split by its own size, so one process per rank gives the
// layout of one process for the directory.
TEST_F(SplitRunTest, RanksConvertedBySeparateProcessesSplitAsOneProcess) {
  std::vector<std::string> one_process = {}, per_rank = {};
  for (const std::string& trace : traces_) {
    CliRun r = Run({"convert", trace, "--logdir", dir_ + "/separate", "--run", "job",
                    "--quiet", "--no-views", "--tensorboard-budget-mb", "140"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const std::string& run : DirectoryEntries(profile_)) {
    for (const std::string& file : DirectoryEntries(profile_ + run)) {
      one_process.push_back(run + "/" + file);
    }
    const std::string other = dir_ + "/separate/plugins/profile/" + run;
    for (const std::string& file : DirectoryEntries(other)) per_rank.push_back(run + "/" + file);
  }
  EXPECT_EQ(per_rank, one_process);
  EXPECT_GE(one_process.size(), 6u);
}

TEST_F(SplitRunTest, ConvertAndInspectSayWhatAllHostsNeed) {
  CliRun r = Run({"convert", traces_[0], traces_[1], "--logdir", dir_ + "/again", "--run",
                  "job", "--no-views"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("TensorBoard, this run of 2 hosts ("));
  EXPECT_THAT(r.out, HasSubstr("the trace viewer of ALL_HOSTS ~"));
  EXPECT_THAT(r.out, HasSubstr("tbprof report " + dir_ + "/again (its distributed view"));
  CliRun inspect = Run({"inspect", dir_ + "/tb", "--quiet"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_THAT(inspect.out, HasSubstr("TensorBoard, this run of 2 hosts ("));
}

TEST_F(SplitRunTest, InspectShowsEachHostOnceWithItsParts) {
  CliRun r = Run({"inspect", profile_ + "job_part2", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One section per host, each its part 1 read with the others.
  size_t sections = 0;
  for (size_t at = r.out.find("split for TensorBoard: part 1 of "); at != std::string::npos;
       at = r.out.find("split for TensorBoard: part 1 of ", at + 1)) {
    ++sections;
  }
  EXPECT_EQ(sections, 2u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("job_part1/resnet50_v100_dataloader_workers0.xplane.pb"));
  EXPECT_THAT(r.out, HasSubstr("job_part1/resnet50_v100_dataloader_workers4.xplane.pb"));
}

TEST_F(SplitRunTest, DiffOfTheSplitRunAndTheWholeOneFindsTheSameSteps) {
  CliRun r = Run({"diff", dir_ + "/whole", profile_ + "job_part1", "--quiet", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CliRun same = Run({"diff", dir_ + "/whole", dir_ + "/whole", "--quiet", "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  // Only the names of the inputs differ from comparing the run with itself.
  std::string a = r.out, b = same.out;
  for (std::string* s : {&a, &b}) {
    for (const std::string& name : {profile_ + "job_part1", dir_ + "/whole"}) {
      for (size_t at = s->find(name); at != std::string::npos; at = s->find(name)) {
        s->replace(at, name.size(), "INPUT");
      }
    }
  }
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace tbprof
