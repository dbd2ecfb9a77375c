#include "src/logdir/profile_logdir.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
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


// ---- Streamed host files ------------------------------------------------------

// `n` bytes of a repeating pattern.
std::string Pattern(size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>('a' + (i * 7) % 26);
  return out;
}

TEST(RunWriterStreamTest, StreamedFileIsStagedInOrderAndPublishedWithTheRest) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  const std::string run_dir = (*writer)->run_dir();
  auto stream = (*writer)->BeginHostFile("node/1", "trace.json.gz");
  ASSERT_TRUE(stream.ok()) << stream.status();
  EXPECT_EQ((*stream)->final_path(), run_dir + "/node_1.trace.json.gz");
  // 3.5 MB in pieces on another thread (past the 1 MiB buffer), while this
  // thread stages other files.
  const std::string contents = Pattern(3500000);
  std::thread appender([&] {
    for (size_t at = 0; at < contents.size(); at += 300000) {
      ASSERT_TRUE((*stream)->Append(absl::string_view(contents).substr(at, 300000)).ok());
    }
  });
  xplane::XSpaceData space;
  BuildSpace("op", &space);
  ASSERT_TRUE((*writer)->StageXSpace("node/1", space).ok());
  ASSERT_TRUE((*writer)->StageHostFile("node/1", "overview_page.pb", "small").ok());
  appender.join();
  EXPECT_EQ((*stream)->bytes_written(), contents.size());
  for (const std::string& name : ListDir(run_dir)) EXPECT_EQ(name[0], '.') << name;

  auto path = (*writer)->FinishHostFile(*std::move(stream));
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, run_dir + "/node_1.trace.json.gz");
  ASSERT_EQ((*writer)->staged_files().size(), 3u);
  EXPECT_EQ((*writer)->staged_files()[2].final_path, *path);
  EXPECT_EQ((*writer)->staged_files()[2].bytes, contents.size());
  for (const std::string& name : ListDir(run_dir)) EXPECT_EQ(name[0], '.') << name;

  ASSERT_TRUE((*writer)->Publish().ok());
  EXPECT_THAT(ListDir(run_dir), UnorderedElementsAre("node_1.xplane.pb", "node_1.overview_page.pb",
                                                     "node_1.trace.json.gz"));
  EXPECT_EQ(*ReadFileToString(*path), contents);
}

TEST(RunWriterStreamTest, NameIsReservedUntilFinishedOrAbandoned) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run", {/*force=*/true});
  ASSERT_TRUE(writer.ok());
  auto stream = (*writer)->BeginHostFile("h", "trace.json.gz");
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE((*stream)->Append("partial").ok());
  EXPECT_EQ((*writer)->BeginHostFile("h", "trace.json.gz").status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ((*writer)->StageHostFile("h", "trace.json.gz", "x").status().code(),
            absl::StatusCode::kAlreadyExists);
  (*writer)->AbandonHostFile(*std::move(stream));
  // The abandoned stream left no file behind, and its name is free again.
  EXPECT_THAT(ListDir((*writer)->run_dir()), IsEmpty());
  ASSERT_TRUE((*writer)->StageHostFile("h", "trace.json.gz", "whole").ok());
  ASSERT_TRUE((*writer)->Publish().ok());
  EXPECT_EQ(*ReadFileToString((*writer)->run_dir() + "/h.trace.json.gz"), "whole");
}

TEST(RunWriterStreamTest, UnfinishedStreamLeavesNothing) {
  std::string parent = MakeTempDir();
  std::string logdir = parent + "/tb";
  {
    auto writer = RunWriter::Open(logdir, "run");
    ASSERT_TRUE(writer.ok());
    auto stream = (*writer)->BeginHostFile("h", "trace.json.gz");
    ASSERT_TRUE(stream.ok());
    ASSERT_TRUE((*stream)->Append(Pattern(2 << 20)).ok());
    EXPECT_THAT(ListDir((*writer)->run_dir()), ::testing::SizeIs(1));  // The hidden file.
    stream->reset();  // Dropped, e.g. on an error path.
    EXPECT_THAT(ListDir((*writer)->run_dir()), IsEmpty());
    // Publishing the rest ignores the unfinished stream.
    ASSERT_TRUE((*writer)->StageHostFile("h", "overview_page.pb", "x").ok());
    ASSERT_TRUE((*writer)->Publish().ok());
    EXPECT_THAT(ListDir((*writer)->run_dir()), UnorderedElementsAre("h.overview_page.pb"));
  }
  {
    auto writer = RunWriter::Open(parent + "/tb2", "run");
    ASSERT_TRUE(writer.ok());
    auto stream = (*writer)->BeginHostFile("h", "trace.json.gz");
    ASSERT_TRUE(stream.ok());
    ASSERT_TRUE((*stream)->Append("x").ok());
    stream->reset();
  }  // Destroyed without Publish().
  EXPECT_FALSE(Exists(parent + "/tb2"));
}

TEST(RunWriterStreamTest, RefusesExistingFileAndForeignStreams) {
  std::string logdir = MakeTempDir();
  {
    auto writer = RunWriter::Open(logdir, "run");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->StageHostFile("h", "trace.json.gz", "old").ok());
    ASSERT_TRUE((*writer)->Publish().ok());
  }
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  auto refused = (*writer)->BeginHostFile("h", "trace.json.gz");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(refused.status().message(), HasSubstr("--force"));
  EXPECT_EQ((*writer)->BeginHostFile("h", "SSTABLE").status().code(),
            absl::StatusCode::kInvalidArgument);

  auto other = RunWriter::Open(logdir, "run2");
  ASSERT_TRUE(other.ok());
  auto stream = (*other)->BeginHostFile("h", "trace.json.gz");
  ASSERT_TRUE(stream.ok());
  EXPECT_EQ((*writer)->FinishHostFile(*std::move(stream)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->FinishHostFile(nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Another writer of the same run, with the same file name reserved.
  auto mine = (*writer)->BeginHostFile("h", "kernel_stats.pb");
  auto same_run = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(mine.ok() && same_run.ok());
  auto theirs = (*same_run)->BeginHostFile("h", "kernel_stats.pb");
  ASSERT_TRUE(theirs.ok());
  EXPECT_EQ((*writer)->FinishHostFile(*std::move(theirs)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*writer)->FinishHostFile(*std::move(mine)).ok());
  EXPECT_EQ(*ReadFileToString((*writer)->run_dir() + "/h.trace.json.gz"), "old");
}

// Restores RLIMIT_FSIZE and SIGXFSZ when it goes out of scope.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    saved_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, saved_handler_);
  }
  bool ok() const { return ok_; }

 private:
  struct rlimit saved_;
  void (*saved_handler_)(int);
  bool ok_ = false;
};

TEST(RunWriterStreamTest, WriteErrorLeavesNothingAndNamesTheFinalFile) {
  std::string logdir = MakeTempDir();
  auto writer = RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  const std::string run_dir = (*writer)->run_dir();
  ASSERT_TRUE((*writer)->StageHostFile("h", "overview_page.pb", "x").ok());
  auto stream = (*writer)->BeginHostFile("h", "trace.json.gz");
  ASSERT_TRUE(stream.ok());
  absl::Status append_status;
  {
    FileSizeLimit limit(1 << 20);
    ASSERT_TRUE(limit.ok());
    for (int i = 0; i < 8 && append_status.ok(); ++i) {
      append_status = (*stream)->Append(Pattern(1 << 20));
    }
  }
  ASSERT_FALSE(append_status.ok());
  EXPECT_THAT(append_status.message(), HasSubstr(run_dir + "/h.trace.json.gz"));
  EXPECT_THAT(append_status.message(), ::testing::Not(HasSubstr("staged")));
  EXPECT_EQ((*stream)->Append("more").code(), append_status.code());  // Sticky.
  auto finished = (*writer)->FinishHostFile(*std::move(stream));
  EXPECT_EQ(finished.status(), append_status);
  // Only the other staged file is left, and the run still publishes whole.
  EXPECT_THAT(ListDir(run_dir), ::testing::SizeIs(1));
  ASSERT_TRUE((*writer)->Publish().ok());
  EXPECT_THAT(ListDir(run_dir), UnorderedElementsAre("h.overview_page.pb"));
}

}  // namespace
}  // namespace tbprof::logdir
