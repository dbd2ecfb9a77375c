#include "src/logdir/part_runs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::logdir {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class PartRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/part_runs_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    logdir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(logdir_, ignored);
  }
  std::string File(const std::string& run, const std::string& name) {
    const std::string dir = RunDirectory(logdir_, run);
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "x";
    return path;
  }
  bool Exists(const std::string& path) { return std::filesystem::exists(path); }

  std::string logdir_;
};

TEST(PartRunNameTest, RunPartDigits) {
  EXPECT_TRUE(IsPartRunName("r_part1", "r"));
  EXPECT_TRUE(IsPartRunName("r_part012", "r"));
  EXPECT_FALSE(IsPartRunName("r_part", "r"));
  EXPECT_FALSE(IsPartRunName("r_part1x", "r"));
  EXPECT_FALSE(IsPartRunName("r", "r"));
  EXPECT_FALSE(IsPartRunName("rr_part1", "r"));
  EXPECT_FALSE(IsPartRunName("r_part1", "r_part1"));
  EXPECT_FALSE(IsPartRunName("q_part1", "r"));
}

TEST(PartRunNameTest, BaseRunOfPartRun) {
  EXPECT_EQ(BaseRunOfPartRun("r_part1"), "r");
  EXPECT_EQ(BaseRunOfPartRun("2025_01_31_part_part07"), "2025_01_31_part");
  EXPECT_EQ(BaseRunOfPartRun("r_part"), "");
  EXPECT_EQ(BaseRunOfPartRun("r_part1x"), "");
  EXPECT_EQ(BaseRunOfPartRun("_part1"), "");
  EXPECT_EQ(BaseRunOfPartRun("r"), "");
}

TEST_F(PartRunsTest, ListsOnlyPartRunDirectoriesSorted) {
  EXPECT_THAT(*ListPartRuns(logdir_, "r"), IsEmpty());  // No plugins/profile yet.
  File("r_part2", "h.xplane.pb");
  File("r_part1", "h.xplane.pb");
  File("r", "h.xplane.pb");
  File("r_other", "h.xplane.pb");
  File("r_part10", "h.xplane.pb");
  std::ofstream(RunDirectory(logdir_, "r_part3")) << "a file, not a run";
  EXPECT_THAT(*ListPartRuns(logdir_, "r"), ElementsAre("r_part1", "r_part10", "r_part2"));
}

TEST_F(PartRunsTest, RemovesOnlyTheHostsStaleFiles) {
  const std::string kept = File("r_part1", "h.xplane.pb");
  const std::string stale = File("r_part2", "h.xplane.pb");
  const std::string stale_view = File("r_part2", "h.trace.json.gz");
  const std::string other_host = File("r_part2", "g.xplane.pb");
  const std::string dotted_host = File("r_part2", "h.b.xplane.pb");
  const std::string cache = File("r_part2", "h.op_stats_v2.pb");
  const std::string alone = File("r_part3", "h.xplane.pb");
  const std::string main_run = File("r", "h.xplane.pb");
  const std::string other_run = File("q_part1", "h.xplane.pb");
  RemovedPartRunFiles removed;
  ASSERT_TRUE(RemoveStalePartRunFiles(logdir_, "r", {"h"}, {"xplane.pb", "trace.json.gz"},
                                      {kept}, &removed)
                  .ok());
  EXPECT_THAT(removed.files, UnorderedElementsAre(stale, stale_view, alone));
  EXPECT_THAT(removed.dirs, ElementsAre(RunDirectory(logdir_, "r_part3")));
  EXPECT_TRUE(Exists(kept));
  EXPECT_FALSE(Exists(stale));
  EXPECT_FALSE(Exists(stale_view));
  EXPECT_TRUE(Exists(other_host));
  EXPECT_TRUE(Exists(dotted_host));
  EXPECT_TRUE(Exists(cache));
  EXPECT_TRUE(Exists(main_run));
  EXPECT_TRUE(Exists(other_run));
  EXPECT_FALSE(Exists(RunDirectory(logdir_, "r_part3")));
}

TEST_F(PartRunsTest, LeavesEmptyDirectoriesItDidNotEmptyAndSymlinks) {
  std::filesystem::create_directories(RunDirectory(logdir_, "r_part1"));
  const std::string target = File("elsewhere", "t");
  const std::string link = RunDirectory(logdir_, "r_part2") + "/h.xplane.pb";
  std::filesystem::create_directories(RunDirectory(logdir_, "r_part2"));
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  RemovedPartRunFiles removed;
  ASSERT_TRUE(RemoveStalePartRunFiles(logdir_, "r", {"h"}, {"xplane.pb"}, {}, &removed).ok());
  EXPECT_THAT(removed.files, IsEmpty());
  EXPECT_TRUE(Exists(RunDirectory(logdir_, "r_part1")));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(Exists(target));
}

}  // namespace
}  // namespace tbprof::logdir
