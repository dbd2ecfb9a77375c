// Smoke test of libtbprof_cupti.so against the real libcupti.so.13 on a
// machine without a GPU (no fake is loaded in this process): symbols resolve,
// InitializeInjection() returns 1, CUPTI's failure to trace (no libcuda) is
// reported in one line and the process goes on. On a GPU machine the same
// test traces nothing (no CUDA work) and must also stop cleanly.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/capture/raw_capture.h"
#include "tests/fake_cupti/child_process_test_util.h"

namespace tbprof {
namespace {

TEST(CollectorRealCuptiTest, InjectionNeverHurtsTheProcess) {
  std::ifstream probe(TBPROF_REAL_CUPTI);
  if (!probe.good()) GTEST_SKIP() << "no real libcupti at " << TBPROF_REAL_CUPTI;
  static const std::string root = testing_util::RegisterTestRoot("collector_real_");
  std::string logdir = root + "/capture";
  std::string err_path = logdir + ".stderr";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("TBPROF_LOGDIR", logdir.c_str(), 1);
    setenv("TBPROF_RUN", "real", 1);
    setenv("TBPROF_BUFFER_MB", "8", 1);
    setenv("TBPROF_CUPTI_LIBRARY", TBPROF_REAL_CUPTI, 1);
    FILE* f = freopen(err_path.c_str(), "w", stderr);
    (void)f;
    void* h = dlopen(TBPROF_COLLECTOR_PATH, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) _exit(10);
    auto init = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
    auto stop = reinterpret_cast<int (*)()>(dlsym(h, "tbprof_stop"));
    if (init == nullptr || stop == nullptr) _exit(11);
    if (init() != 1) _exit(12);
    stop();
    exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  int lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_LE(lines, 1) << text;
  if (lines == 1) {
    EXPECT_THAT(text, ::testing::HasSubstr("the job continues")) << text;
  }
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string path = logdir + "/plugins/profile/real/" + host + "." + std::to_string(pid) +
                     ".tbcap";
  auto cap = capture::LoadRawCapture(path);
  ASSERT_TRUE(cap.ok()) << cap.status();
  EXPECT_TRUE(cap->trailer.has_value());
  EXPECT_GE(cap->header.cupti_version_runtime, 130000u);
}

}  // namespace
}  // namespace tbprof
