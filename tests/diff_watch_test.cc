// End-to-end tests of `tbprof diff` (exit codes, the CI gate, noise, nothing
// in common, HTML in headless Chromium when there is one) and `tbprof watch`
// (files appearing at once, slowly and half-written, bad files, SIGINT and
// SIGTERM, a directory that disappears), running the tbprof binary.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;
using testing_util::CliRun;
using testing_util::ReadFileOrEmpty;

const std::string kShared = TBPROF_SHARED_TESTDATA;
const std::string kFixtures = std::string(TBPROF_SOURCE_DIR) + "/testdata/chrome_json";
const std::string kResnet0 =
    kShared + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
const std::string kResnet4 =
    kShared + "/kineto/resnet50_v100_dataloader_workers4.pt.trace.json.gz";
const std::string kDlrm = kShared + "/kineto/dlrm_8ranks";

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

#define SKIP_WITHOUT_TESTDATA()                                                      \
  if (!Exists(kResnet0) || !Exists(kDlrm)) GTEST_SKIP() << "no traces in " << kShared; \
  static_assert(true, "")

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// Every file under `dir`, relative, sorted.
std::vector<std::string> ListFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> XPlaneFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& f : ListFiles(dir)) {
    if (absl::EndsWith(f, ".xplane.pb")) out.push_back(f);
  }
  return out;
}

// No staging leftovers: no hidden file anywhere under `dir`.
void ExpectNoHiddenFiles(const std::string& dir) {
  for (const std::string& f : ListFiles(dir)) {
    EXPECT_THAT(std::filesystem::path(f).filename().string(), Not(StartsWith("."))) << f;
  }
}

// A Chrome trace with one ProfilerStep#i of `steps_us[i]` per step, each
// running one `kernel` launched by the operator `op`.
std::string SyntheticTrace(const std::vector<int>& steps_us,
                           const std::string& kernel = "volta_sgemm_64x64_nn",
                           const std::string& op = "aten::mm") {
  std::string events;
  int64_t t = 1000;
  int corr = 1000;
  for (size_t i = 0; i < steps_us.size(); ++i) {
    const int d = steps_us[i];
    ++corr;
    absl::StrAppend(
        &events, events.empty() ? "" : ",\n",
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#", i,
        "\",\"pid\":100,\"tid\":100,\"ts\":", t, ",\"dur\":", d, "},\n",
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"", op, "\",\"pid\":100,\"tid\":100,\"ts\":",
        t + 10, ",\"dur\":", d - 20, ",\"args\":{\"External id\":", corr, "}},\n",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
        "\"tid\":100,\"ts\":",
        t + 15, ",\"dur\":5,\"args\":{\"correlation\":", corr, ",\"External id\":", corr, "}},\n",
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"", kernel, "\",\"pid\":0,\"tid\":7,\"ts\":",
        t + 25, ",\"dur\":", d - 40, ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":", corr,
        ",\"External id\":", corr,
        ",\"grid\":[1,1,1],\"block\":[128,1,1],\"registers per thread\":32,"
        "\"shared memory\":0}}");
    t += d;
  }
  return absl::StrCat("{\"traceEvents\":[\n", events, "\n]}\n");
}

class DiffWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_util::MakeTempDirectory("diff_watch_test_");
    ASSERT_FALSE(dir_.empty());
    logdir_ = dir_ + "/tb";
    traces_ = dir_ + "/traces";
    ASSERT_EQ(::mkdir(traces_.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Starts tbprof with `args`; stdout and stderr go to files.
  void Start(const std::vector<std::string>& args) {
    out_path_ = dir_ + "/stdout";
    err_path_ = dir_ + "/stderr";
    pid_ = testing_util::StartProgram(TBPROF_CLI_PATH, args, dir_);
  }

  // Waits for the started process (at most `timeout_s`, then kills it).
  CliRun Wait(int timeout_s = 120) {
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "tbprof did not exit within " << timeout_s << " s";
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    CliRun result;
    result.exit_code = testing_util::ExitCodeOf(status);
    result.out = ReadFileOrEmpty(out_path_);
    result.err = ReadFileOrEmpty(err_path_);
    return result;
  }

  CliRun Run(const std::vector<std::string>& args) {
    Start(args);
    return Wait();
  }

  // Waits until the running process's stdout has `lines` lines containing
  // `text` (false after `timeout_s`).
  bool WaitForOutput(const std::string& text, size_t lines, int timeout_s = 60) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      size_t n = 0;
      for (const std::string& line : Lines(ReadFileOrEmpty(out_path_))) {
        n += absl::StrContains(line, text);
      }
      if (n >= lines) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string dir_;
  std::string logdir_;
  std::string traces_;
  std::string out_path_;
  std::string err_path_;
  pid_t pid_ = -1;
};

// ---------------------------------------------------------------- diff

TEST_F(DiffWatchTest, DiffOfTheResnetTracesShowsTheInputWaitGone) {
  SKIP_WITHOUT_TESTDATA();
  const std::string html = dir_ + "/diff.html";
  CliRun r = Run({"diff", kResnet0, kResnet4, "--quiet", "--html", html, "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("== Step time"));
  EXPECT_THAT(r.out, HasSubstr("-29.783 (-19.7%)"));
  EXPECT_THAT(r.out, HasSubstr("Input (host wait)"));
  EXPECT_THAT(r.out, HasSubstr("-32.286"));
  EXPECT_THAT(r.out, HasSubstr("wgrad_alg0_engine"));
  EXPECT_THAT(r.out, HasSubstr("aten::cudnn_convolution_backward_input"));
  EXPECT_THAT(r.out, HasSubstr("GPU_0_caching"));
  EXPECT_THAT(r.out, HasSubstr("new is 19.7% faster"));
  EXPECT_THAT(r.out, HasSubstr("outside noise"));
  EXPECT_THAT(r.err, HasSubstr("wrote " + html));
  const std::string page = ReadFileOrEmpty(html);
  EXPECT_THAT(page, HasSubstr("id=\"render-status\""));
  EXPECT_THAT(page, HasSubstr("\"noise\":\"outside\""));

  r = Run({"diff", kResnet0, kResnet4, "--quiet", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"base\":"));
  EXPECT_THAT(r.out, HasSubstr("\"stepTime\":{\"available\":true"));
  EXPECT_THAT(r.out, HasSubstr("\"noise\":\"outside\""));
}

TEST_F(DiffWatchTest, FailIfSlowerGatesOnTheStepTime) {
  SKIP_WITHOUT_TESTDATA();
  // workers4 -> workers0 is 24.6% slower.
  CliRun r = Run({"diff", kResnet4, kResnet0, "--quiet", "--fail-if-slower", "5"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.out, HasSubstr("new is 24.6% slower"));
  EXPECT_THAT(Lines(r.err), SizeIs(1)) << r.err;
  EXPECT_THAT(r.err, HasSubstr("slower by more than 5% (outside noise) (exit status 3)"));
  r = Run({"diff", kResnet4, kResnet0, "--quiet", "--fail-if-slower", "30%"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("not slower by more than 30%"));
  // Faster is never a failure.
  r = Run({"diff", kResnet0, kResnet4, "--quiet", "--fail-if-slower", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(DiffWatchTest, ADifferenceWithinNoiseDoesNotTripTheGate) {
  const std::string base = dir_ + "/base.json", noisy = dir_ + "/noisy.json",
                    slow = dir_ + "/slow.json";
  // Steps 2..6 are kept (the first and last are dropped): sd 79 us.
  WriteFile(base, SyntheticTrace({1000, 1000, 1100, 900, 1050, 950, 1000}));
  WriteFile(noisy, SyntheticTrace({1030, 1030, 1130, 930, 1080, 980, 1030}));  // +3%
  WriteFile(slow, SyntheticTrace({1300, 1300, 1400, 1200, 1350, 1250, 1300}));  // +30%
  CliRun r = Run({"diff", base, noisy, "--fail-if-slower", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("new is 3.0% slower"));
  EXPECT_THAT(r.out, HasSubstr("within noise"));
  EXPECT_THAT(r.err, HasSubstr("but within noise"));
  r = Run({"diff", base, noisy, "--fail-if-slower", "1", "--ignore-noise"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = Run({"diff", base, slow, "--fail-if-slower", "10"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.out, HasSubstr("outside noise"));
  r = Run({"diff", base, slow, "--fail-if-slower", "40"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(DiffWatchTest, ProfilesWithNothingInCommonFailWithOneLine) {
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json", html = dir_ + "/d.html";
  WriteFile(a, SyntheticTrace({1000, 1000, 1000}, "kernel_a", "aten::add"));
  WriteFile(b, SyntheticTrace({1000, 1000, 1000}, "kernel_b", "aten::mul"));
  // Without steps (--steps none) and no kernel name in common.
  CliRun r = Run({"diff", a, b, "--steps", "none", "--html", html});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(Lines(r.err), SizeIs(1)) << r.err;
  EXPECT_THAT(r.err, AllOf(StartsWith("tbprof: error: "), HasSubstr(a), HasSubstr(b),
                           HasSubstr("nothing in common")));
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(Exists(html));
  EXPECT_THAT(ListFiles(dir_), Not(Contains(HasSubstr("d.html"))));
  // With steps on both sides they are comparable.
  r = Run({"diff", a, b});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 kernel names in both, 1 only in base, 1 only in new"));
}

TEST_F(DiffWatchTest, DiffBadInputsAndUsage) {
  const std::string good = kFixtures + "/kineto_small.json";
  CliRun r = Run({"diff", dir_ + "/missing.json", good});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(Lines(r.err), SizeIs(1)) << r.err;
  EXPECT_THAT(r.err, HasSubstr(dir_ + "/missing.json"));
  r = Run({"diff", kFixtures + "/invalid.json", good});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("invalid.json: byte 64"));
  r = Run({"diff", good});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("needs two inputs"));
  r = Run({"diff", good, good, "--fail-if-slower", "five"});
  EXPECT_EQ(r.exit_code, 2);
  r = Run({"diff", good, good, "--ignore-noise"});
  EXPECT_EQ(r.exit_code, 2);
  // The gate needs steps on both sides.
  r = Run({"diff", good, good, "--steps", "none", "--fail-if-slower", "5"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(good + ": no steps, so --fail-if-slower cannot compare"));
}

TEST_F(DiffWatchTest, DiffHtmlRendersInChromium) {
  SKIP_WITHOUT_TESTDATA();
  std::string chromium;
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser",
                                "/usr/bin/google-chrome"}) {
    if (Exists(candidate)) chromium = candidate;
  }
  if (chromium.empty()) GTEST_SKIP() << "no Chromium";
  const std::string html = dir_ + "/diff.html";
  ASSERT_EQ(Run({"diff", kResnet0, kResnet4, "--quiet", "--html", html}).exit_code, 0);
  const std::string dom = dir_ + "/dom.html";
  const std::string command = absl::StrCat(
      "timeout 120 ", chromium,
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --disable-extensions --user-data-dir=",
      dir_, "/chrome --dump-dom 'file://", html, "#selftest' > ", dom, " 2>/dev/null");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  // One chart, no script error, the four tables sorted by clicking.
  EXPECT_THAT(ReadFileOrEmpty(dom), HasSubstr("data-status=\"ok charts=1 errors=0 sorted=4\""));
}

// ---------------------------------------------------------------- watch

void CopyFile(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

TEST_F(DiffWatchTest, WatchOnceConvertsOneRunPerCycleAndSkipsBadFiles) {
  SKIP_WITHOUT_TESTDATA();
  // Three ranks of one torch cycle, a plain trace, a bad file, and names
  // that are not read.
  for (const char* name : {"worker0_step_12.1694128201545.pt.trace.json.gz",
                           "worker1_step_12.1694128201556.pt.trace.json.gz",
                           "worker2_step_12.1694128201554.pt.trace.json.gz"}) {
    CopyFile(kDlrm + "/" + name, traces_ + "/" + name);
  }
  CopyFile(kFixtures + "/kineto_small.json", traces_ + "/kineto_small.json");
  CopyFile(kFixtures + "/invalid.json", traces_ + "/invalid.json");
  CopyFile(kFixtures + "/invalid.json", traces_ + "/.hidden.json");
  CopyFile(kFixtures + "/invalid.json", traces_ + "/w9.1694128201560.pt.trace.json.tmp");
  CliRun r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // --once with a bad file.
  EXPECT_THAT(Lines(r.out), SizeIs(4)) << r.out;
  EXPECT_THAT(r.err, HasSubstr("tbprof: error: " + traces_ + "/invalid.json: byte 64"));
  EXPECT_THAT(r.err, HasSubstr("4 converted, 0 already in the logdir, 1 bad"));
  EXPECT_THAT(r.err, Not(HasSubstr("hidden")));
  EXPECT_THAT(r.err, Not(HasSubstr(".tmp")));
  std::vector<std::string> xplanes = XPlaneFiles(logdir_);
  ASSERT_THAT(xplanes, SizeIs(4));
  // One run for the cycle (named after its local time), hosts by worker.
  const std::string run = std::filesystem::path(xplanes[0]).parent_path().string();
  EXPECT_THAT(run, StartsWith("plugins/profile/20"));
  EXPECT_EQ(xplanes[0], run + "/worker0_step_12.xplane.pb");
  EXPECT_EQ(xplanes[1], run + "/worker1_step_12.xplane.pb");
  EXPECT_EQ(xplanes[2], run + "/worker2_step_12.xplane.pb");
  EXPECT_EQ(xplanes[3], "plugins/profile/kineto_small/node-a.xplane.pb");
  EXPECT_TRUE(Exists(logdir_ + "/" + run + "/worker0_step_12.overview_page.pb"));
  ExpectNoHiddenFiles(logdir_);

  // Again: nothing new; the files already in the logdir are left alone.
  std::remove((traces_ + "/invalid.json").c_str());
  r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("already in the logdir: worker0_step_12.1694128201545"));
  EXPECT_THAT(r.err, HasSubstr("0 converted, 4 already in the logdir, 0 bad"));
  EXPECT_THAT(XPlaneFiles(logdir_), SizeIs(4));
}

TEST_F(DiffWatchTest, WatchConvertsFilesAsTheyAppearSlowlyAndHalfWritten) {
  SKIP_WITHOUT_TESTDATA();
  Start({"watch", traces_, "--logdir", logdir_, "--settle", "0.5", "--poll", "0.1"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  // 1. A complete file appears at once (written aside, then renamed).
  const std::string rank0 = "rank0.1694128201545.pt.trace.json.gz";
  CopyFile(kDlrm + "/worker0_step_12.1694128201545.pt.trace.json.gz", traces_ + "/.tmp-" + rank0);
  std::filesystem::rename(traces_ + "/.tmp-" + rank0, traces_ + "/" + rank0);
  ASSERT_TRUE(WaitForOutput("converted " + rank0, 1)) << ReadFileOrEmpty(err_path_);

  // 2. A file written slowly: ten pieces, pauses shorter than --settle.
  const std::string rank1 = "rank1.1694128201556.pt.trace.json.gz";
  const std::string bytes1 =
      ReadFileOrEmpty(kDlrm + "/worker1_step_12.1694128201556.pt.trace.json.gz");
  {
    std::ofstream out(traces_ + "/" + rank1, std::ios::binary);
    for (int i = 0; i < 10; ++i) {
      const size_t from = bytes1.size() * i / 10, to = bytes1.size() * (i + 1) / 10;
      out.write(bytes1.data() + from, static_cast<std::streamsize>(to - from));
      out.flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      // Not read while it grows.
      EXPECT_THAT(ReadFileOrEmpty(out_path_), Not(HasSubstr(rank1)));
    }
  }

  // 3. A half-written file that stalls longer than --settle: it is read,
  //    does not parse yet, and is read again once complete. No error.
  const std::string rank2 = "rank2.1694128201554.pt.trace.json.gz";
  const std::string bytes2 =
      ReadFileOrEmpty(kDlrm + "/worker2_step_12.1694128201554.pt.trace.json.gz");
  {
    std::ofstream out(traces_ + "/" + rank2, std::ios::binary);
    out.write(bytes2.data(), static_cast<std::streamsize>(bytes2.size() / 2));
    out.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_THAT(ReadFileOrEmpty(out_path_), Not(HasSubstr(rank2)));
    out.write(bytes2.data() + bytes2.size() / 2,
              static_cast<std::streamsize>(bytes2.size() - bytes2.size() / 2));
  }

  // 4. A bad file: one line on stderr, watching goes on.
  WriteFile(traces_ + "/broken.json", "{\"traceEvents\": [ {\"ph\": \"X\" }, ]}");
  ASSERT_TRUE(WaitForOutput("converted rank", 3))
      << ReadFileOrEmpty(out_path_) << ReadFileOrEmpty(err_path_);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!absl::StrContains(ReadFileOrEmpty(err_path_), "broken.json") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // 5. A later file still converts after the bad one.
  CopyFile(kDlrm + "/worker3_step_12.1694128201557.pt.trace.json.gz",
           traces_ + "/rank3.1694128201557.pt.trace.json.gz");
  ASSERT_TRUE(WaitForOutput("converted rank", 4))
      << ReadFileOrEmpty(out_path_) << ReadFileOrEmpty(err_path_);

  ::kill(pid_, SIGTERM);
  CliRun r = Wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("stopped by SIGTERM: 4 converted, 0 already in the logdir, 1 bad"));
  std::vector<std::string> error_lines;
  for (const std::string& line : Lines(r.err)) {
    if (absl::StartsWith(line, "tbprof: error:")) error_lines.push_back(line);
  }
  EXPECT_THAT(error_lines, SizeIs(1)) << r.err;
  EXPECT_THAT(r.err, HasSubstr(traces_ + "/broken.json"));
  // The stalled file was read once while half-written, and waited for.
  EXPECT_THAT(r.err, HasSubstr(traces_ + "/" + rank2 + ": ends early; waiting"));
  // The four ranks of the cycle are the hosts of one run.
  std::vector<std::string> xplanes = XPlaneFiles(logdir_);
  ASSERT_THAT(xplanes, SizeIs(4));
  const std::string run = std::filesystem::path(xplanes[0]).parent_path().string();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(xplanes[i], absl::StrCat(run, "/rank", i, ".xplane.pb"));
  ExpectNoHiddenFiles(logdir_);
}

TEST_F(DiffWatchTest, AFileThatStaysTruncatedIsReportedOnceItIsOld) {
  SKIP_WITHOUT_TESTDATA();
  const std::string bytes =
      ReadFileOrEmpty(kDlrm + "/worker0_step_12.1694128201545.pt.trace.json.gz");
  const std::string cut = traces_ + "/cut.1694128201545.pt.trace.json.gz";
  WriteFile(cut, bytes.substr(0, bytes.size() / 3));
  CliRun r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // Young: left for later, not an error.
  EXPECT_THAT(r.err, HasSubstr("incomplete"));
  EXPECT_THAT(r.err, HasSubstr("0 converted, 0 already in the logdir, 0 bad, 1 left for later"));
  r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1",
           "--incomplete-timeout", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tbprof: error: " + cut + ": truncated gzip"));
  EXPECT_THAT(ListFiles(logdir_), IsEmpty());
}

TEST_F(DiffWatchTest, WatchStopsOnSigintWithASummary) {
  Start({"watch", traces_, "--logdir", logdir_, "--poll", "0.1"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid_, SIGINT);
  CliRun r = Wait(30);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("watching " + traces_));
  EXPECT_THAT(r.err, HasSubstr("stopped by SIGINT: 0 converted"));
  EXPECT_THAT(ListFiles(logdir_), IsEmpty());
}

// A large CPU-only trace (`events` events): long enough to read that a
// signal can arrive meanwhile.
std::string LargeTrace(int events) {
  std::string text = "{\"traceEvents\":[";
  text.reserve(static_cast<size_t>(events) * 80);
  for (int i = 0; i < events; ++i) {
    absl::StrAppend(&text, i ? "," : "",
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,"
                    "\"tid\":1,\"ts\":",
                    2 * i, ",\"dur\":1}");
  }
  return text + "]}";
}

TEST_F(DiffWatchTest, SignalsWhileAFileIsReadLeaveNothingPartial) {
  const std::string trace = LargeTrace(800'000);  // ~60 MB.
  for (int signals : {1, 2}) {
    SCOPED_TRACE(absl::StrCat(signals, " signal(s)"));
    std::filesystem::remove_all(logdir_);
    const std::string file = traces_ + "/big.1694128201545.pt.trace.json";
    WriteFile(file, trace);
    Start({"watch", traces_, "--logdir", logdir_, "--settle", "0.1", "--poll", "0.05",
           "--no-views"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Reading by now.
    for (int i = 0; i < signals; ++i) {
      ::kill(pid_, SIGINT);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CliRun r = Wait(60);
    // One signal: the file is abandoned after reading (or was converted
    // before the signal); two: the process ends at once while reading.
    const size_t xplanes = XPlaneFiles(logdir_).size();
    if (signals == 1 || r.exit_code == 0) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_THAT(r.err, HasSubstr(absl::StrCat("stopped by SIGINT: ", xplanes, " converted")));
    } else {
      EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
      EXPECT_THAT(r.err, HasSubstr("stopped at once (second signal)"));
      EXPECT_EQ(xplanes, 0u);
    }
    ExpectNoHiddenFiles(logdir_);
    std::remove(file.c_str());
  }
}

TEST_F(DiffWatchTest, WatchFailsWhenTheDirectoryDisappears) {
  Start({"watch", traces_, "--logdir", logdir_, "--poll", "0.1"});
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  std::filesystem::remove_all(traces_);
  CliRun r = Wait(30);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::vector<std::string> errors;
  for (const std::string& line : Lines(r.err)) {
    if (absl::StartsWith(line, "tbprof: error:")) errors.push_back(line);
  }
  EXPECT_THAT(errors, ::testing::ElementsAre(
                          "tbprof: error: " + traces_ + ": the watched directory disappeared"));
  EXPECT_THAT(ListFiles(logdir_), IsEmpty());
}

// A file too large for the TensorBoard budget is split into part runs as
// by convert (the ResNet-50 sample: 3 runs of 2 steps at 140 MiB), and is
// found in them on the next start.
TEST_F(DiffWatchTest, WatchSplitsAFileTooLargeForTensorBoard) {
  SKIP_WITHOUT_TESTDATA();
  CopyFile(kResnet0, traces_ + "/model.json.gz");
  CliRun r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1",
                  "--tensorboard-budget-mb", "140"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("split into 3 runs of 2 steps each (model_part1..3)"));
  EXPECT_THAT(r.out, HasSubstr("model_part1..3/"));
  std::vector<std::string> xplanes = XPlaneFiles(logdir_);
  ASSERT_THAT(xplanes, SizeIs(3));
  EXPECT_THAT(xplanes[0], StartsWith("plugins/profile/model_part1/"));
  EXPECT_THAT(xplanes[2], StartsWith("plugins/profile/model_part3/"));
  // The views of the whole trace stay in the run without _part.
  bool views_in_main_run = false;
  for (const std::string& f : ListFiles(logdir_)) {
    if (absl::StartsWith(f, "plugins/profile/model/") &&
        absl::EndsWith(f, ".overview_page.pb")) {
      views_in_main_run = true;
    }
  }
  EXPECT_TRUE(views_in_main_run);
  ExpectNoHiddenFiles(logdir_);

  r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1",
           "--tensorboard-budget-mb", "140"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("0 converted, 1 already in the logdir, 0 bad"));

  // --quiet: the paths of the parts on stdout, the split on stderr.
  CopyFile(kResnet0, traces_ + "/other.json.gz");
  r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1", "--quiet",
           "--no-views", "--tensorboard-budget-mb", "140"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(Lines(r.out), SizeIs(3)) << r.out;
  EXPECT_THAT(r.out, HasSubstr("/plugins/profile/other_part2/"));
  EXPECT_THAT(r.err, HasSubstr("split into 3 runs of 2 steps each (other_part1..3)"));

  // The default budget keeps it whole; 0 never splits.
  std::remove((traces_ + "/model.json.gz").c_str());
  std::remove((traces_ + "/other.json.gz").c_str());
  CopyFile(kResnet0, traces_ + "/whole.json.gz");
  r = Run({"watch", traces_, "--logdir", logdir_, "--once", "--settle", "0.1", "--no-views"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("split")));
  EXPECT_THAT(r.out, HasSubstr("/plugins/profile/whole/"));
}

// A torch cycle whose first worker is split for TensorBoard and whose second
// fits whole: on the next start both are found (each host once, whole or in
// parts), and every reader sees the cycle as one job of two hosts. A plain
// file named like a part run gets a run of its own, never a part of another.
TEST_F(DiffWatchTest, WatchReadsSplitRunsBackAsOneJob) {
  SKIP_WITHOUT_TESTDATA();
  CopyFile(kResnet0, traces_ + "/big.1694128201545.pt.trace.json.gz");
  CopyFile(kDlrm + "/worker1_step_12.1694128201556.pt.trace.json.gz",
           traces_ + "/small.1694128201556.pt.trace.json.gz");
  const std::vector<std::string> watch = {"watch", traces_, "--logdir", logdir_, "--once",
                                          "--settle", "0.1", "--no-views",
                                          "--tensorboard-budget-mb", "140"};
  CliRun r = Run(watch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("2 converted, 0 already in the logdir, 0 bad"));
  std::vector<std::string> xplanes = XPlaneFiles(logdir_);
  ASSERT_THAT(xplanes, SizeIs(4));  // big in 3 part runs, small whole.
  const std::string run = std::filesystem::path(xplanes[0]).parent_path().string();
  EXPECT_EQ(xplanes[0], run + "/small.xplane.pb");
  EXPECT_EQ(xplanes[1], run + "_part1/big.xplane.pb");

  r = Run(watch);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("already in the logdir: big.1694128201545.pt.trace.json.gz"));
  EXPECT_THAT(r.err, HasSubstr("0 converted, 2 already in the logdir, 0 bad"));
  EXPECT_THAT(XPlaneFiles(logdir_), SizeIs(4));

  // The logdir, the run and a part run are the same job of two hosts.
  for (const std::string& input :
       {logdir_, logdir_ + "/" + run, logdir_ + "/" + run + "_part2"}) {
    CliRun report = Run({"report", input, "--quiet", "--json"});
    ASSERT_EQ(report.exit_code, 0) << input << "\n" << report.err;
    EXPECT_THAT(report.out, HasSubstr("{\"hosts\":[{\"host\":\"big\""));
    EXPECT_THAT(report.out, HasSubstr("},{\"host\":\"small\""));
    EXPECT_THAT(report.out, Not(HasSubstr("\"host\":\"big_2\"")));
  }

  CopyFile(kFixtures + "/kineto_small.json", traces_ + "/big_part1.json");
  r = Run(watch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("/plugins/profile/big-part1/"));
}

TEST_F(DiffWatchTest, WatchUsageErrors) {
  CliRun r = Run({"watch", traces_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--logdir is required"));
  r = Run({"watch", dir_ + "/missing", "--logdir", logdir_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(dir_ + "/missing: cannot watch"));
  r = Run({"watch", traces_, "--logdir", logdir_, "--settle", "soon"});
  EXPECT_EQ(r.exit_code, 2);
  r = Run({"watch", traces_, "--logdir", logdir_, "--tensorboard-budget-mb", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--tensorboard-budget-mb"));
}

}  // namespace
}  // namespace tbprof
