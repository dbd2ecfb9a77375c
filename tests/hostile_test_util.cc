#include "tests/hostile_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

#ifndef TBPROF_CLI_PATH
#error "TBPROF_CLI_PATH must name the tbprof binary"
#endif

extern char** environ;

namespace tbprof::testing_util {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

void RemoveTree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    ::chmod(path.c_str(), 0755);
    if (DIR* d = ::opendir(path.c_str())) {
      while (struct dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") RemoveTree(path + "/" + name);
      }
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

std::string MakeTempDir(const std::string& name) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/tbprof_", name, "_", ::getpid());
  RemoveTree(dir);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

namespace {
void ListInto(const std::string& dir, const std::string& prefix, std::vector<std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    struct stat st;
    ::lstat(path.c_str(), &st);
    if (S_ISDIR(st.st_mode)) {
      out->push_back(prefix + name + "/");
      ListInto(path, prefix + name + "/", out);
    } else {
      out->push_back(prefix + name);
    }
  }
  ::closedir(d);
}
}  // namespace

std::vector<std::string> ListTree(const std::string& dir) {
  std::vector<std::string> out;
  ListInto(dir, "", &out);
  return out;
}

ChildResult WaitChild(pid_t pid) {
  ChildResult result;
  int status = 0;
  struct rusage usage;
  std::memset(&usage, 0, sizeof(usage));
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.max_rss_kb = usage.ru_maxrss;
  return result;
}

namespace {
std::vector<char*> Argv(std::vector<std::string>* storage) {
  std::vector<char*> argv;
  for (std::string& s : *storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return argv;
}
}  // namespace

pid_t SpawnTbprof(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path) {
  std::vector<std::string> storage = {TBPROF_CLI_PATH};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv = Argv(&storage);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::alarm(300);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

ChildResult RunTbprof(const std::vector<std::string>& args, int alarm_seconds,
                      const std::vector<std::string>& env) {
  static int counter = 0;
  const std::string base =
      absl::StrCat(::testing::TempDir(), "/tbprof_run_", ::getpid(), "_", counter++);
  const std::string out_path = base + ".out", err_path = base + ".err";
  std::vector<std::string> storage = {TBPROF_CLI_PATH};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv = Argv(&storage);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) env_storage.push_back(*e);
  env_storage.insert(env_storage.end(), env.begin(), env.end());
  std::vector<char*> envp = Argv(&env_storage);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::alarm(alarm_seconds);  // Survives exec: a hang ends in SIGALRM.
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ChildResult result = WaitChild(pid);
  result.out = ReadAll(out_path);
  result.err = ReadAll(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return result;
}

ChildResult RunInChild(const std::function<int()>& fn, int alarm_seconds) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(alarm_seconds);
    int code = fn();
    std::fflush(nullptr);
    ::_exit(code);
  }
  return WaitChild(pid);
}

void WriteSpaceGzipBomb(const std::string& path, uint64_t inflated_mib) {
  const std::string block(1 << 20, ' ');
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  ASSERT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string compressed(deflateBound(&zs, block.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
  zs.avail_in = static_cast<uInt>(block.size());
  zs.next_out = reinterpret_cast<Bytef*>(compressed.data());
  zs.avail_out = static_cast<uInt>(compressed.size());
  ASSERT_EQ(deflate(&zs, Z_FULL_FLUSH), Z_OK);
  compressed.resize(compressed.size() - zs.avail_out);
  std::string tail(64, '\0');
  zs.next_out = reinterpret_cast<Bytef*>(tail.data());
  zs.avail_out = static_cast<uInt>(tail.size());
  ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  tail.resize(tail.size() - zs.avail_out);
  deflateEnd(&zs);

  const uLong block_crc = crc32(0, reinterpret_cast<const Bytef*>(block.data()), block.size());
  uLong crc = 0;
  for (uint64_t i = 0; i < inflated_mib; ++i) crc = crc32_combine(crc, block_crc, block.size());
  const uint32_t isize = static_cast<uint32_t>(inflated_mib << 20);  // Mod 2^32.

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const char header[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};
  out.write(header, sizeof(header));
  for (uint64_t i = 0; i < inflated_mib; ++i) out.write(compressed.data(), compressed.size());
  out.write(tail.data(), tail.size());
  const uint32_t trailer[2] = {static_cast<uint32_t>(crc), isize};
  out.write(reinterpret_cast<const char*>(trailer), sizeof(trailer));
}

void WriteWithHugeFill(const std::string& path, const std::string& prefix, char fill,
                       uint64_t repeat_bytes, const std::string& suffix) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << prefix;
  const std::string chunk(1 << 20, fill);
  for (uint64_t left = repeat_bytes; left > 0;) {
    uint64_t n = std::min<uint64_t>(left, chunk.size());
    out.write(chunk.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out << suffix;
}

std::string ReplaceInvalidUtf8(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t len = 0;
    uint32_t min = 0;
    if (c < 0x80) {
      len = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, min = 0x10000;
    }
    bool valid = len > 0 && i + len <= n;
    uint32_t cp = len == 1 ? c : (c & (0x7F >> len));
    for (size_t k = 1; valid && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) valid = false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (valid && len > 1 && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) {
      valid = false;
    }
    if (valid) {
      out.append(bytes, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace tbprof::testing_util
