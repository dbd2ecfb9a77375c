#include "tests/cli_process_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace tbprof::testing_util {

CliRun RunProgram(const std::string& binary, const std::vector<std::string>& args,
                  const std::string& scratch_dir) {
  const pid_t pid = StartProgram(binary, args, scratch_dir);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliRun run;
  run.exit_code = ExitCodeOf(status);
  run.out = ReadFileOrEmpty(scratch_dir + "/stdout");
  run.err = ReadFileOrEmpty(scratch_dir + "/stderr");
  return run;
}

pid_t StartProgram(const std::string& binary, const std::vector<std::string>& args,
                   const std::string& scratch_dir) {
  const std::string out_path = scratch_dir + "/stdout", err_path = scratch_dir + "/stderr";
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int ExitCodeOf(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> DirectoryEntries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string MakeTempDirectory(const std::string& prefix) {
  std::string pattern = ::testing::TempDir() + "/" + prefix + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

std::string ReadGzipFile(const std::string& path) {
  gzFile file = ::gzopen(path.c_str(), "rb");
  if (file == nullptr) return "";
  std::string out;
  char buffer[1 << 16];
  int n;
  while ((n = ::gzread(file, buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  ::gzclose(file);
  return out;
}

}  // namespace tbprof::testing_util
