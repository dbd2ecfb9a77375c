// Helpers shared by hostile_inputs_test.cc and logdir_safety_test.cc: files,
// directory listings, running the tbprof binary or a function in a child
// process while measuring its peak memory, and a gzip bomb generator.
#ifndef TBPROF_TESTS_HOSTILE_TEST_UTIL_H_
#define TBPROF_TESTS_HOSTILE_TEST_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tbprof::testing_util {

// Extra peak memory (MB) that a sanitizer build may use on top of what the
// code under test allocates (ASan's quarantine and shadow memory).
constexpr int64_t kSanitizerSlackMb() {
#if defined(__SANITIZE_ADDRESS__)
  return 512;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return 512;
#else
  return 0;
#endif
#else
  return 0;
#endif
}

std::string ReadAll(const std::string& path);
void WriteFile(const std::string& path, const std::string& contents);
bool Exists(const std::string& path);
// A fresh empty directory under the test temp dir.
std::string MakeTempDir(const std::string& name);
void RemoveTree(const std::string& path);
// Every entry under `dir`, relative, directories with a trailing '/'.
std::vector<std::string> ListTree(const std::string& dir);

struct ChildResult {
  int exit_code = -1;   // -1 if killed by a signal.
  int signal = 0;       // The signal that ended it, 0 if it exited.
  int64_t max_rss_kb = 0;
  std::string out, err;
};

// Runs the tbprof binary with `args`; stdout/stderr captured. The child is
// killed by SIGALRM after `alarm_seconds` (a hang guard, not a timing
// assertion). `env` entries ("NAME=value") are added to the environment.
ChildResult RunTbprof(const std::vector<std::string>& args, int alarm_seconds = 300,
                      const std::vector<std::string>& env = {});
// Starts tbprof without waiting; returns the pid (stdout/stderr to files).
pid_t SpawnTbprof(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path);
// Waits for `pid` and fills exit code / signal / peak RSS.
ChildResult WaitChild(pid_t pid);

// Runs `fn` in a forked child (its return value is the exit code) and
// reports the child's peak resident memory.
ChildResult RunInChild(const std::function<int()>& fn, int alarm_seconds = 300);

// Writes a gzip file that inflates to `inflated_mib` MiB of spaces: one
// deflated MiB repeated (a full flush makes each copy independent), so a
// 10 GB bomb costs ~10 MB on disk and no time to build.
void WriteSpaceGzipBomb(const std::string& path, uint64_t inflated_mib);

// Streams `prefix`, then `repeat_bytes` copies of `fill`, then `suffix` into
// `path` without holding them in memory.
void WriteWithHugeFill(const std::string& path, const std::string& prefix, char fill,
                       uint64_t repeat_bytes, const std::string& suffix);

// Decodes `bytes` as UTF-8 the way a text editor or `str(..., errors=
// "replace")` would and re-encodes it: every byte that is not part of a
// valid UTF-8 sequence becomes U+FFFD (EF BF BD).
std::string ReplaceInvalidUtf8(const std::string& bytes);

}  // namespace tbprof::testing_util

#endif  // TBPROF_TESTS_HOSTILE_TEST_UTIL_H_
