// Running the tbprof binary from a test: one child process with its stdout
// and stderr captured through files in a scratch directory, plus the small
// file helpers the CLI tests share.
#ifndef TBPROF_TESTS_CLI_PROCESS_TEST_UTIL_H_
#define TBPROF_TESTS_CLI_PROCESS_TEST_UTIL_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace tbprof::testing_util {

struct CliRun {
  int exit_code = -1;  // 128 + signal number when killed by a signal.
  std::string out, err;
};

// Runs `binary` with `args` (no shell) and waits for it; `scratch_dir` (which
// must exist) receives the files "stdout" and "stderr".
CliRun RunProgram(const std::string& binary, const std::vector<std::string>& args,
                  const std::string& scratch_dir);

// RunProgram without the wait, for a test that talks to the process while it
// runs (reads its output so far, sends it signals): starts `binary` with
// `args` (no shell), its stdout and stderr going to the files "stdout" and
// "stderr" in `scratch_dir` (which must exist), and returns its pid at once.
// The caller reaps it (waitpid) and may turn the status into an exit code
// with ExitCodeOf.
pid_t StartProgram(const std::string& binary, const std::vector<std::string>& args,
                   const std::string& scratch_dir);
// A waitpid status as CliRun::exit_code: the exit status, or 128 + the signal
// number when the process was killed by a signal.
int ExitCodeOf(int wait_status);

// The whole file, "" when it cannot be read.
std::string ReadFileOrEmpty(const std::string& path);
// Every entry of `dir` but "." and "..", hidden ones included, sorted.
std::vector<std::string> DirectoryEntries(const std::string& dir);
bool PathExists(const std::string& path);
// A new empty directory under ::testing::TempDir() named `prefix`XXXXXX.
std::string MakeTempDirectory(const std::string& prefix);
// The decompressed contents of a gzip file ("" when it cannot be read).
std::string ReadGzipFile(const std::string& path);

}  // namespace tbprof::testing_util

#endif  // TBPROF_TESTS_CLI_PROCESS_TEST_UTIL_H_
