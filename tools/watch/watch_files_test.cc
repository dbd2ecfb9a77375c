#include "tools/watch/watch_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(WatchFilesTest, CandidateNames) {
  EXPECT_TRUE(IsWatchedFileName("host_12.1694128201545.pt.trace.json"));
  EXPECT_TRUE(IsWatchedFileName("host_12.1694128201545.pt.trace.json.gz"));
  EXPECT_TRUE(IsWatchedFileName("model.xplane.pb"));
  EXPECT_TRUE(IsWatchedFileName("h.123.tbcap"));
  EXPECT_TRUE(IsWatchedFileName("snapshot.pickle"));
  EXPECT_TRUE(IsWatchedFileName("snapshot.pkl"));
  EXPECT_TRUE(IsWatchedFileName("report1.sqlite"));
  EXPECT_TRUE(IsWatchedFileName("report1.nsys-rep"));
  EXPECT_TRUE(IsWatchedFileName("TRACE.JSON"));
  EXPECT_FALSE(IsWatchedFileName(".w0.1.pt.trace.json"));  // Hidden.
  EXPECT_FALSE(IsWatchedFileName("w0.1.pt.trace.json.tmp"));
  EXPECT_FALSE(IsWatchedFileName("w0.1.pt.trace.json.part"));
  EXPECT_FALSE(IsWatchedFileName("notes.txt"));
  EXPECT_FALSE(IsWatchedFileName(".json"));
  EXPECT_FALSE(IsWatchedFileName(""));
}

TEST(WatchFilesTest, ParseDuration) {
  EXPECT_EQ(*ParseDurationMs("2"), 2000);
  EXPECT_EQ(*ParseDurationMs("0.5"), 500);
  EXPECT_EQ(*ParseDurationMs("1.5s"), 1500);
  EXPECT_EQ(*ParseDurationMs("250ms"), 250);
  EXPECT_EQ(*ParseDurationMs("0"), 0);
  EXPECT_FALSE(ParseDurationMs("").ok());
  EXPECT_FALSE(ParseDurationMs("-1").ok());
  EXPECT_FALSE(ParseDurationMs("2m").ok());
  EXPECT_FALSE(ParseDurationMs("nan").ok());
  EXPECT_FALSE(ParseDurationMs("ms").ok());
}

TEST(FileTrackerTest, FilesAreReadyAfterTheSettlePeriodWithoutChange) {
  FileTracker t(/*settle_ms=*/2000);
  t.Observe({{"a.json", {10, 1}}}, 0);
  EXPECT_THAT(t.Ready(1999), IsEmpty());
  EXPECT_THAT(t.Unsettled(1999), ElementsAre("a.json"));
  EXPECT_THAT(t.Pending(), ElementsAre("a.json"));
  // Still growing: the clock starts again.
  t.Observe({{"a.json", {20, 2}}}, 1000);
  EXPECT_THAT(t.Ready(2500), IsEmpty());
  t.Observe({{"a.json", {20, 2}}, {"b.json", {5, 1}}}, 2500);
  EXPECT_THAT(t.Ready(3000), ElementsAre("a.json"));
  EXPECT_THAT(t.Ready(4500), ElementsAre("a.json", "b.json"));
  t.MarkDone("a.json");
  EXPECT_THAT(t.Ready(4500), ElementsAre("b.json"));
  // Done stays done, even if the file changes.
  t.Observe({{"a.json", {30, 3}}, {"b.json", {5, 1}}}, 5000);
  EXPECT_THAT(t.Ready(9000), ElementsAre("b.json"));
  EXPECT_THAT(t.Unsettled(5000), IsEmpty());
  EXPECT_THAT(t.Pending(), ElementsAre("b.json"));
}

TEST(FileTrackerTest, FailedFilesComeBackWhenTheyChangeOrAtTheirRetryTime) {
  FileTracker t(1000);
  t.Observe({{"a.json", {10, 1}}, {"b.json", {10, 1}}}, 0);
  ASSERT_THAT(t.Ready(1000), ElementsAre("a.json", "b.json"));
  t.MarkFailed("a.json");
  t.MarkFailed("b.json", /*retry_at_ms=*/5000);
  EXPECT_THAT(t.Ready(4999), IsEmpty());
  EXPECT_THAT(t.Ready(5000), ElementsAre("b.json"));
  // a.json grows (it was still being written): settles, then is ready.
  t.Observe({{"a.json", {50, 2}}, {"b.json", {10, 1}}}, 6000);
  EXPECT_THAT(t.Ready(6500), ElementsAre("b.json"));
  EXPECT_THAT(t.Ready(7000), ElementsAre("a.json", "b.json"));
  // A file that disappears is forgotten.
  t.Observe({{"b.json", {10, 1}}}, 7000);
  EXPECT_THAT(t.Ready(9000), ElementsAre("b.json"));
  EXPECT_EQ(t.stat("a.json").size, 0);
  // Pending again after an abandoned read.
  t.MarkPending("b.json", 9000);
  EXPECT_THAT(t.Ready(9500), IsEmpty());
  EXPECT_THAT(t.Ready(10000), ElementsAre("b.json"));
}

class ListWatchedFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "/watch_files_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Touch(const std::string& name, const std::string& text = "{}") {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

TEST_F(ListWatchedFilesTest, ListsCandidatesOnly) {
  Touch("w0.1694128201545.pt.trace.json", "{\"traceEvents\": []}");
  Touch("w1.1694128201545.pt.trace.json.gz.part");
  Touch(".hidden.json");
  Touch("readme.txt");
  Touch("h.xplane.pb");
  Touch("h.trace.json.gz");  // A precomputed view of host "h".
  Touch("other.trace.json.gz");
  ASSERT_EQ(::mkdir((dir_ + "/sub.json").c_str(), 0755), 0);
  absl::StatusOr<std::map<std::string, FileStat>> files = ListWatchedFiles(dir_);
  ASSERT_TRUE(files.ok()) << files.status();
  std::vector<std::string> names;
  for (const auto& [name, stat] : *files) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("h.xplane.pb", "other.trace.json.gz",
                                 "w0.1694128201545.pt.trace.json"));
  EXPECT_EQ(files->at("w0.1694128201545.pt.trace.json").size, 19);
  EXPECT_GT(files->at("w0.1694128201545.pt.trace.json").mtime_ns, 0);
}

TEST_F(ListWatchedFilesTest, AMissingDirectoryIsNotFound) {
  absl::StatusOr<std::map<std::string, FileStat>> files = ListWatchedFiles(dir_ + "/gone");
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(files.status().message()), ::testing::HasSubstr(dir_ + "/gone"));
}

}  // namespace
}  // namespace tbprof::cli
