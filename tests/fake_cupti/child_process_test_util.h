// Helpers of the collector's end-to-end tests: each scenario runs in a forked
// child (the collector is process-wide and cannot be reset), and some read
// what the collector printed on stderr.
#ifndef TBPROF_TESTS_FAKE_CUPTI_CHILD_PROCESS_TEST_UTIL_H_
#define TBPROF_TESTS_FAKE_CUPTI_CHILD_PROCESS_TEST_UTIL_H_

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace tbprof::testing_util {

// Runs `body` in a forked child, which exits 0 iff it saw no test failure;
// expects the child to exit with `expected_exit`.
inline void RunInChild(const std::function<void()>& body, int expected_exit = 0) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    body();
    fflush(stdout);
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child died with signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), expected_exit);
}

// Sends this process's stderr into the file `path` until Read(), which
// restores stderr and returns what was written.
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& path) : path_(path) {
    fflush(stderr);
    saved_ = dup(2);
    FILE* f = fopen(path.c_str(), "w");
    dup2(fileno(f), 2);
    fclose(f);
  }
  std::string Read() {
    fflush(stderr);
    dup2(saved_, 2);
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string path_;
  int saved_;
};

// A directory for everything a test program writes: ::testing::TempDir()
// + `prefix` + the program's pid, created, and removed with its contents
// when the tests end. Call it from a namespace-scope initializer, so that it
// runs once in the test process before any fork: forked children then write
// under their parent's directory.
inline std::string RegisterTestRoot(const std::string& prefix) {
  class RemoveRoot : public ::testing::Environment {
   public:
    explicit RemoveRoot(std::string root) : root_(std::move(root)) {}
    void TearDown() override {
      nftw(
          root_.c_str(),
          [](const char* path, const struct stat*, int, struct FTW*) { return remove(path); },
          16, FTW_DEPTH | FTW_PHYS);
    }

   private:
    std::string root_;
  };
  std::string root = ::testing::TempDir() + "/" + prefix + std::to_string(getpid());
  mkdir(root.c_str(), 0700);
  ::testing::AddGlobalTestEnvironment(new RemoveRoot(root));
  return root;
}

}  // namespace tbprof::testing_util

#endif  // TBPROF_TESTS_FAKE_CUPTI_CHILD_PROCESS_TEST_UTIL_H_
