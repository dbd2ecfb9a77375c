#include "src/logdir/profile_logdir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::logdir {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Removes the directories MakeTempDir() made when the test program ends.
struct TempDirs {
  ~TempDirs() {
    std::error_code ignored;
    for (const std::string& dir : dirs) std::filesystem::remove_all(dir, ignored);
  }
  std::vector<std::string> dirs;
};
TempDirs& CreatedTempDirs() {
  static TempDirs dirs;
  return dirs;
}

std::string MakeTempDir() {
  std::string pattern = ::testing::TempDir() + "/logdir_test_XXXXXX";
  char* dir = ::mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  CreatedTempDirs().dirs.push_back(pattern);
  return pattern;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// A one-plane space whose host plane has one event named `event_name`.
void BuildSpace(const std::string& event_name, xplane::XSpaceData* space) {
  xplane::XSpaceBuilder builder(space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* line = host->GetOrCreateLine(/*line_id=*/1);
  line->AddEvent(host->GetOrCreateEventMetadata(event_name), /*offset_ps=*/1000,
                 /*duration_ps=*/500);
  builder.Finalize({});
}

// Name of the first event of the first plane of the XSpace file at `path`.
std::string FirstEventName(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return "<" + bytes.status().ToString() + ">";
  absl::StatusOr<xplane::XSpaceData> space = xplane::ParseXSpaceData(*bytes, path);
  if (!space.ok()) return "<" + space.status().ToString() + ">";
  const xplane::Plane* plane = xplane::FindPlaneWithName(*space, xplane::kHostThreadsPlaneName);
  if (plane == nullptr || plane->lines.empty() || plane->lines[0].events.empty()) return "";
  xplane::XPlaneVisitor visitor(&*space, plane, xplane::SpaceBaseNs(*space));
  return std::string(visitor.line(0).event(0).name());
}

TEST(RunNameTest, FormatsLocalTime) {
  std::time_t t = 1700000000;
  std::string name = RunNameForTime(t);
  struct tm local;
  localtime_r(&t, &local);
  int year, month, day, hour, minute, second;
  char tail;
  ASSERT_EQ(std::sscanf(name.c_str(), "%4d_%2d_%2d_%2d_%2d_%2d%c", &year, &month, &day, &hour,
                        &minute, &second, &tail),
            6)
      << name;
  EXPECT_EQ(name.size(), 19u);
  EXPECT_EQ(year, local.tm_year + 1900);
  EXPECT_EQ(month, local.tm_mon + 1);
  EXPECT_EQ(day, local.tm_mday);
  EXPECT_EQ(hour, local.tm_hour);
  EXPECT_EQ(minute, local.tm_min);
  EXPECT_EQ(second, local.tm_sec);
  EXPECT_TRUE(ValidateRunName(DefaultRunName()).ok());
}

TEST(SanitizeHostNameTest, KeepsDotsAndReplacesSlashes) {
  EXPECT_EQ(SanitizeHostName("worker-3.example.com"), "worker-3.example.com");
  EXPECT_EQ(SanitizeHostName("a/b\\c"), "a_b_c");
  EXPECT_EQ(SanitizeHostName("10.0.0.1:6003"), "10.0.0.1_6003");
  EXPECT_EQ(SanitizeHostName("has space"), "has_space");
}

TEST(SanitizeHostNameTest, NeverEmptyHiddenOrCacheName) {
  EXPECT_EQ(SanitizeHostName(""), "localhost");
  EXPECT_EQ(SanitizeHostName(".hidden"), "_hidden");
  EXPECT_EQ(SanitizeHostName(".."), "_.");
  EXPECT_EQ(SanitizeHostName("ALL_HOSTS"), "ALL_HOSTS_");
  EXPECT_EQ(SanitizeHostName(std::string(500, 'x')).size(), 200u);
  // A host file is never a bare "xplane.pb".
  EXPECT_NE(HostFilePath("run", SanitizeHostName("")), "run/.xplane.pb");
}

TEST(ValidateRunNameTest, RejectsPathsAndEmpty) {
  EXPECT_TRUE(ValidateRunName("2024_01_02_03_04_05").ok());
  EXPECT_TRUE(ValidateRunName("my run.v2").ok());
  EXPECT_EQ(ValidateRunName("").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateRunName("..").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateRunName("a/b").code(), absl::StatusCode::kInvalidArgument);
}

TEST(PathsTest, RunDirectoryAndHostFile) {
  EXPECT_EQ(RunDirectory("/tmp/tb/", "r1"), "/tmp/tb/plugins/profile/r1");
  EXPECT_EQ(RunDirectory("tb", "r1"), "tb/plugins/profile/r1");
  EXPECT_EQ(HostFilePath("tb/plugins/profile/r1", "host.a"),
            "tb/plugins/profile/r1/host.a.xplane.pb");
  EXPECT_EQ(HostFilePath("d", "h", "overview_page.pb"), "d/h.overview_page.pb");
}

TEST(PathsTest, PluginCacheSuffixes) {
  EXPECT_TRUE(IsPluginCacheSuffix("SSTABLE"));
  EXPECT_TRUE(IsPluginCacheSuffix("trie.SSTABLE"));
  EXPECT_TRUE(IsPluginCacheSuffix("op_stats_v2.pb"));
  EXPECT_FALSE(IsPluginCacheSuffix("overview_page.pb"));
  EXPECT_FALSE(IsPluginCacheSuffix("xplane.pb"));
}

TEST(RunWriterTest, StageThenPublishWritesOnlyFinalFiles) {
  std::string logdir = MakeTempDir() + "/tb";
  auto writer = RunWriter::Open(logdir, "run1");
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_TRUE((*writer)->created_run_dir());
  const std::string run_dir = logdir + "/plugins/profile/run1";
  EXPECT_EQ((*writer)->run_dir(), run_dir);

  xplane::XSpaceData space;
  BuildSpace("first_op", &space);
  auto path = (*writer)->StageXSpace("node/7", space);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, run_dir + "/node_7.xplane.pb");
  auto extra = (*writer)->StageHostFile("node/7", "overview_page.pb", "payload");
  ASSERT_TRUE(extra.ok()) << extra.status();

  // Before Publish only hidden staging files exist.
  EXPECT_FALSE(Exists(*path));
  for (const std::string& name : ListDir(run_dir)) EXPECT_EQ(name[0], '.') << name;

  ASSERT_TRUE((*writer)->Publish().ok());
  EXPECT_THAT(ListDir(run_dir),
              UnorderedElementsAre("node_7.xplane.pb", "node_7.overview_page.pb"));
  EXPECT_EQ(FirstEventName(*path), "first_op");
  EXPECT_EQ((*writer)->staged_files().size(), 2u);
  EXPECT_GT((*writer)->staged_files()[0].bytes, 0u);
}

TEST(RunWriterTest, RefusesExistingHostFileUnlessForced) {
  std::string logdir = MakeTempDir();
  {
    auto writer = RunWriter::Open(logdir, "run");
    ASSERT_TRUE(writer.ok());
    xplane::XSpaceData space;
    BuildSpace("old", &space);
    ASSERT_TRUE((*writer)->StageXSpace("h", space).ok());
    ASSERT_TRUE((*writer)->Publish().ok());
  }
  const std::string path = logdir + "/plugins/profile/run/h.xplane.pb";
  xplane::XSpaceData space;
  BuildSpace("new", &space);
  {
    auto writer = RunWriter::Open(logdir, "run");
    ASSERT_TRUE(writer.ok());
    EXPECT_FALSE((*writer)->created_run_dir());
    auto staged = (*writer)->StageXSpace("h", space);
    EXPECT_EQ(staged.status().code(), absl::StatusCode::kAlreadyExists);
    EXPECT_THAT(staged.status().message(), HasSubstr("--force"));
    EXPECT_THAT(staged.status().message(), HasSubstr(path));
  }
  EXPECT_EQ(FirstEventName(path), "old");
  {
    auto writer = RunWriter::Open(logdir, "run", {/*force=*/true});
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->StageXSpace("h", space).ok());
    ASSERT_TRUE((*writer)->Publish().ok());
  }
  EXPECT_EQ(FirstEventName(path), "new");
  EXPECT_THAT(ListDir(logdir + "/plugins/profile/run"), UnorderedElementsAre("h.xplane.pb"));
}

TEST(RunWriterTest, SameHostTwiceInOneRunIsAnError) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run", {/*force=*/true});
  ASSERT_TRUE(writer.ok());
  xplane::XSpaceData space;
  BuildSpace("op", &space);
  ASSERT_TRUE((*writer)->StageXSpace("h", space).ok());
  EXPECT_EQ((*writer)->StageXSpace("h", space).status().code(), absl::StatusCode::kAlreadyExists);
}

TEST(RunWriterTest, DestroyWithoutPublishLeavesNothing) {
  std::string parent = MakeTempDir();
  std::string logdir = parent + "/new_logdir";
  {
    auto writer = RunWriter::Open(logdir, "run");
    ASSERT_TRUE(writer.ok());
    xplane::XSpaceData space;
    BuildSpace("op", &space);
    ASSERT_TRUE((*writer)->StageXSpace("h", space).ok());
  }
  EXPECT_FALSE(Exists(logdir));
  EXPECT_THAT(ListDir(parent), IsEmpty());
}

TEST(RunWriterTest, AbortKeepsDirectoriesThatExistedBefore) {
  std::string logdir = MakeTempDir();
  ASSERT_EQ(::mkdir((logdir + "/plugins").c_str(), 0755), 0);
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  (*writer)->Abort();
  EXPECT_TRUE(Exists(logdir + "/plugins"));
  EXPECT_FALSE(Exists(logdir + "/plugins/profile"));
}

TEST(RunWriterTest, PublishIsAllOrNothing) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  xplane::XSpaceData a, b;
  BuildSpace("a", &a);
  BuildSpace("b", &b);
  ASSERT_TRUE((*writer)->StageXSpace("a", a).ok());
  ASSERT_TRUE((*writer)->StageXSpace("b", b).ok());
  // Someone else publishes "b" between staging and publishing.
  const std::string run_dir = (*writer)->run_dir();
  { std::ofstream(run_dir + "/b.xplane.pb") << "theirs"; }
  absl::Status status = (*writer)->Publish();
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("b.xplane.pb"));
  EXPECT_THAT(ListDir(run_dir), UnorderedElementsAre("b.xplane.pb"));
}

TEST(RunWriterTest, RejectsPluginCacheNames) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->StageHostFile("h", "SSTABLE", "x").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->StageHostFile("h", "metadata.SSTABLE", "x").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->StageHostFile("cache_version", "txt", "x").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->StageHostFile("h", "a/b", "x").status().code(),
            absl::StatusCode::kInvalidArgument);
  // "ALL_HOSTS" is renamed, so its files never collide with the plugin's.
  auto path = (*writer)->StageHostFile("ALL_HOSTS", "kernel_stats.pb", "x");
  ASSERT_TRUE(path.ok());
  EXPECT_THAT(*path, HasSubstr("/ALL_HOSTS_.kernel_stats.pb"));
}

TEST(RunWriterTest, LogdirUnderARegularFileFails) {
  std::string parent = MakeTempDir();
  std::string file = parent + "/not_a_dir";
  { std::ofstream(file) << "x"; }
  auto writer = RunWriter::Open(file + "/logdir", "run");
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(writer.status().message(), HasSubstr(file));
  EXPECT_THAT(ListDir(parent), UnorderedElementsAre("not_a_dir"));
}

TEST(RunWriterTest, BadRunNameFailsBeforeCreatingAnything) {
  std::string logdir = MakeTempDir();
  EXPECT_EQ(RunWriter::Open(logdir, "a/b").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ListDir(logdir), IsEmpty());
}

}  // namespace
}  // namespace tbprof::logdir
