// The log directory never holds a partial or corrupt file, whatever happens
// to `tbprof convert`: two converts racing for one run, a read-only logdir,
// a full disk, a kill -9 in the middle of writing. At most hidden staging
// files (".<name>.staged-<pid>-<n>", ".<name>.tmp-<pid>-<n>") are left by a
// killed process, and those never match the profile plugin's "*.xplane.pb".
// Every failure must say what happened.
#include <fnmatch.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_io.h"
#include "tests/hostile_test_util.h"

namespace tbprof {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using namespace testing_util;  // NOLINT

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// A Chrome trace of `events` complete events on a few threads, with GPU
// kernels, big enough to take a while to convert and write.
std::string MakeTrace(int events) {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < events; ++i) {
    if (i) json += ",";
    if (i % 3 == 2) {
      absl::StrAppend(&json, R"({"ph":"X","cat":"kernel","pid":0,"tid":7,"name":"kernel_)",
                      i % 97, R"(","ts":)", i, R"(,"dur":1,"args":{"device":0,"stream":7,)",
                      R"("correlation":)", i, "}}");
    } else {
      absl::StrAppend(&json, R"({"ph":"X","cat":"cpu_op","pid":1,"tid":)", i % 4,
                      R"(,"name":"aten::op_)", i % 211, R"(","ts":)", i, R"(,"dur":1})");
    }
  }
  json += "]}";
  return json;
}

class LogdirSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("logdir_safety");
    ::chmod(dir_.c_str(), 0777);  // Writable by the unprivileged child below.
    input_ = dir_ + "/trace.json";
    WriteFile(input_, MakeTrace(3000));
    ::chmod(input_.c_str(), 0644);
  }
  void TearDown() override { RemoveTree(dir_); }

  // Checks the invariant for every run dir under `logdir`: visible files are
  // complete (every *.xplane.pb parses), hidden leftovers are staging files
  // that the plugin's glob ignores.
  void ExpectNoPartialFiles(const std::string& logdir) {
    for (const std::string& entry : ListTree(logdir)) {
      if (absl::EndsWith(entry, "/")) continue;
      const std::string name = BaseName(entry);
      if (name[0] == '.') {
        EXPECT_TRUE(absl::StrContains(name, ".tmp-") || absl::StrContains(name, ".staged-"))
            << "unexpected hidden file " << entry;
        EXPECT_NE(::fnmatch("*.xplane.pb", name.c_str(), 0), 0)
            << entry << " would be picked up by the plugin";
        continue;
      }
      if (absl::EndsWith(name, ".xplane.pb")) {
        std::string bytes = ReadAll(logdir + "/" + entry);
        absl::StatusOr<xplane::XSpaceData> space = xplane::ParseXSpaceData(bytes, entry);
        EXPECT_TRUE(space.ok()) << entry << " is corrupt: " << space.status();
        if (space.ok()) {
          EXPECT_FALSE(space->planes.empty()) << entry;
        }
      }
    }
  }

  std::string dir_;
  std::string input_;
};

// ---- Concurrent writers ---------------------------------------------------------

TEST_F(LogdirSafetyTest, TwoConvertsOfOneHostIntoOneRunOneWinsCleanly) {
  const std::string logdir = dir_ + "/tb";
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(round);
    const std::string run = absl::StrCat("race", round);
    std::vector<std::string> args = {"convert", input_, "--logdir", logdir, "--run", run,
                                     "--host", "worker0", "--quiet"};
    pid_t a = SpawnTbprof(args, dir_ + "/a.out", dir_ + "/a.err");
    pid_t b = SpawnTbprof(args, dir_ + "/b.out", dir_ + "/b.err");
    ChildResult ra = WaitChild(a), rb = WaitChild(b);
    ra.err = ReadAll(dir_ + "/a.err");
    rb.err = ReadAll(dir_ + "/b.err");
    EXPECT_EQ(ra.signal, 0);
    EXPECT_EQ(rb.signal, 0);
    EXPECT_EQ((ra.exit_code == 0) + (rb.exit_code == 0), 1)
        << "exactly one must win\nA: " << ra.err << "\nB: " << rb.err;
    const ChildResult& loser = ra.exit_code == 0 ? rb : ra;
    EXPECT_THAT(loser.err, HasSubstr("already exists"));
    EXPECT_THAT(loser.err, HasSubstr("--force"));
    EXPECT_TRUE(Exists(logdir + "/plugins/profile/" + run + "/worker0.xplane.pb"));
    ExpectNoPartialFiles(logdir);
    // Both processes ended normally: not even hidden files may be left.
    for (const std::string& entry : ListTree(logdir + "/plugins/profile/" + run)) {
      EXPECT_NE(BaseName(entry)[0], '.') << "leftover " << entry;
    }
  }
}

TEST_F(LogdirSafetyTest, TwoForcedConvertsBothSucceedAndTheFileIsWhole) {
  const std::string logdir = dir_ + "/tb";
  for (int round = 0; round < 4; ++round) {
    std::vector<std::string> args = {"convert", input_, "--logdir", logdir, "--run", "forced",
                                     "--host", "worker0", "--quiet", "--force"};
    pid_t a = SpawnTbprof(args, dir_ + "/a.out", dir_ + "/a.err");
    pid_t b = SpawnTbprof(args, dir_ + "/b.out", dir_ + "/b.err");
    ChildResult ra = WaitChild(a), rb = WaitChild(b);
    EXPECT_EQ(ra.exit_code, 0) << ReadAll(dir_ + "/a.err");
    EXPECT_EQ(rb.exit_code, 0) << ReadAll(dir_ + "/b.err");
    ExpectNoPartialFiles(logdir);
  }
}

TEST_F(LogdirSafetyTest, TwoConvertsOfDistinctHostsBothSucceed) {
  const std::string logdir = dir_ + "/tb";
  pid_t a = SpawnTbprof({"convert", input_, "--logdir", logdir, "--run", "r", "--host", "h0",
                         "--quiet"},
                        dir_ + "/a.out", dir_ + "/a.err");
  pid_t b = SpawnTbprof({"convert", input_, "--logdir", logdir, "--run", "r", "--host", "h1",
                         "--quiet"},
                        dir_ + "/b.out", dir_ + "/b.err");
  EXPECT_EQ(WaitChild(a).exit_code, 0) << ReadAll(dir_ + "/a.err");
  EXPECT_EQ(WaitChild(b).exit_code, 0) << ReadAll(dir_ + "/b.err");
  EXPECT_TRUE(Exists(logdir + "/plugins/profile/r/h0.xplane.pb"));
  EXPECT_TRUE(Exists(logdir + "/plugins/profile/r/h1.xplane.pb"));
  ExpectNoPartialFiles(logdir);
}

// ---- Read-only logdir ---------------------------------------------------------------

TEST_F(LogdirSafetyTest, LogdirUnderARegularFileIsAClearError) {
  WriteFile(dir_ + "/not_a_dir", "x");
  ChildResult r = RunTbprof({"convert", input_, "--logdir", dir_ + "/not_a_dir/tb", "--quiet"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("not_a_dir"));
  EXPECT_THAT(r.err, AnyOf(HasSubstr("not a directory"), HasSubstr("Not a directory")));
}

TEST_F(LogdirSafetyTest, ReadOnlyLogdirIsAClearErrorAndLeavesNothing) {
  const std::string logdir = dir_ + "/ro";
  ::mkdir(logdir.c_str(), 0755);
  ::chmod(logdir.c_str(), 0555);
  // Root ignores permission bits: run tbprof as "nobody" then (root may
  // drop privileges), else as ourselves.
  std::string err_path = dir_ + "/ro.err";
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(90);
    ::execl("/bin/sh", "sh", "-c",
            absl::StrCat("exec '", TBPROF_CLI_PATH, "' convert '", input_, "' --logdir '", logdir,
                         "' --quiet 2>'", err_path, "'")
                .c_str(),
            static_cast<char*>(nullptr));
    ::_exit(91);
  }
  ChildResult r = WaitChild(pid);
  ASSERT_NE(r.exit_code, 90) << "could not drop privileges";
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  std::string err = ReadAll(err_path);
  EXPECT_THAT(err, HasSubstr(logdir));
  EXPECT_THAT(err, AnyOf(HasSubstr("ermission denied"), HasSubstr("not writable")));
  ::chmod(logdir.c_str(), 0755);
  EXPECT_TRUE(ListTree(logdir).empty()) << "a failed convert must leave nothing";
}

// A mount point for the duration of a test; Mounted() is false where the
// test may not mount (not root, no CAP_SYS_ADMIN, seccomp).
class ScopedTmpfs {
 public:
  ScopedTmpfs(const std::string& path, const std::string& options) : path_(path) {
    ::mkdir(path.c_str(), 0755);
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!mounted_) error_ = std::strerror(errno);
  }
  ~ScopedTmpfs() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  void Remount(unsigned long flags, const std::string& options) {
    ::mount("tmpfs", path_.c_str(), "tmpfs", MS_REMOUNT | flags, options.c_str());
  }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

TEST_F(LogdirSafetyTest, ReadOnlyFilesystemIsAClearError) {
  ScopedTmpfs fs(dir_ + "/rofs", "size=1m,mode=0755");
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.error() << ")";
  ::mkdir((dir_ + "/rofs/tb").c_str(), 0755);
  fs.Remount(MS_RDONLY, "size=1m");
  ChildResult r = RunTbprof({"convert", input_, "--logdir", dir_ + "/rofs/tb", "--quiet"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("rofs/tb"));
  EXPECT_THAT(r.err, HasSubstr("Read-only file system"));
}

// ---- Full disk ------------------------------------------------------------------------

TEST_F(LogdirSafetyTest, FullTmpfsIsAClearErrorAndLeavesNothing) {
  ScopedTmpfs fs(dir_ + "/small", "size=64k,mode=0755");
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.error() << ")";
  WriteFile(input_, MakeTrace(60000));  // Output far larger than 64 KB.
  ChildResult r = RunTbprof({"convert", input_, "--logdir", dir_ + "/small/tb", "--run", "r",
                             "--quiet"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("small/tb/plugins/profile/r/"));
  EXPECT_THAT(r.err, AnyOf(HasSubstr("No space left"), HasSubstr("disk full"),
                           HasSubstr("disk is full")));
  ExpectNoPartialFiles(dir_ + "/small/tb");
  for (const std::string& entry : ListTree(dir_ + "/small")) {
    EXPECT_TRUE(absl::EndsWith(entry, "/")) << "left behind: " << entry;
  }
}

TEST_F(LogdirSafetyTest, FileSizeLimitActsLikeAFullDisk) {
  // Works without mount rights: RLIMIT_FSIZE makes write() fail with EFBIG
  // once SIGXFSZ is ignored (both survive exec).
  WriteFile(input_, MakeTrace(60000));
  const std::string logdir = dir_ + "/tb";
  const std::string err_path = dir_ + "/fsize.err";
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::execl("/bin/sh", "sh", "-c",
            absl::StrCat("exec '", TBPROF_CLI_PATH, "' convert '", input_, "' --logdir '", logdir,
                         "' --run r --quiet 2>'", err_path, "'")
                .c_str(),
            static_cast<char*>(nullptr));
    ::_exit(91);
  }
  ChildResult r = WaitChild(pid);
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.exit_code, 0);
  std::string err = ReadAll(err_path);
  EXPECT_THAT(err, HasSubstr(logdir + "/plugins/profile/r/"));
  EXPECT_THAT(err, HasSubstr("File too large"));
  ExpectNoPartialFiles(logdir);
  for (const std::string& entry : ListTree(logdir)) {
    EXPECT_TRUE(absl::EndsWith(entry, "/")) << "left behind: " << entry;
  }
}

// ---- kill -9 -------------------------------------------------------------------------------

TEST_F(LogdirSafetyTest, KillNineMidWriteLeavesOnlyHiddenFilesAndRunStaysUsable) {
  WriteFile(input_, MakeTrace(600000));
  const std::string logdir = dir_ + "/tb";
  const std::string run_dir = logdir + "/plugins/profile/killed";
  int killed_while_writing = 0;
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE(round);
    pid_t pid = SpawnTbprof({"convert", input_, "--logdir", logdir, "--run", "killed", "--host",
                             "w", "--quiet", "--force"},
                            dir_ + "/k.out", dir_ + "/k.err");
    // Wait until a hidden staging/temp file of this process exists (it is
    // writing), then kill it a little later each round.
    const std::string marker = absl::StrCat("-", pid, "-");
    bool writing = false;
    for (int i = 0; i < 60000 && !writing; ++i) {
      for (const std::string& entry : ListTree(run_dir)) {
        if (BaseName(entry)[0] == '.' && absl::StrContains(entry, marker)) writing = true;
      }
      if (!writing) ::usleep(500);
      int status;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        break;
      }
    }
    if (pid < 0) continue;  // Finished before we saw it writing.
    ::usleep(round * 3000);
    ::kill(pid, SIGKILL);
    ChildResult r = WaitChild(pid);
    if (r.signal == SIGKILL && writing) ++killed_while_writing;
    ExpectNoPartialFiles(logdir);
  }
  EXPECT_GT(killed_while_writing, 0) << "the test never caught tbprof writing";

  // Leftovers do not get in the way: the next convert works and is whole.
  WriteFile(input_, MakeTrace(3000));
  ChildResult r = RunTbprof({"convert", input_, "--logdir", logdir, "--run", "killed", "--host",
                             "w", "--quiet", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Exists(run_dir + "/w.xplane.pb"));
  ExpectNoPartialFiles(logdir);
}

}  // namespace
}  // namespace tbprof
