#include "converters/nsys/nsys_export.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "converters/nsys/nsys_db.h"

namespace tbprof::converters {
namespace {

// Removes the files directly inside `dir`, then `dir`.
void RemoveFolder(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      ::unlink(absl::StrCat(dir, "/", name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

std::string LastLine(const std::string& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!absl::StripAsciiWhitespace(line).empty()) last = line;
  }
  return std::string(absl::StripAsciiWhitespace(last));
}

// Runs argv with stdout and stderr into `log`; the exit status, or -1.
int RunLogged(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool IsNsysReportName(absl::string_view path) {
  return absl::EndsWithIgnoreCase(path, ".nsys-rep") || absl::EndsWithIgnoreCase(path, ".qdrep");
}

bool LooksLikeSqlite(absl::string_view head) {
  return absl::StartsWith(head, nsys::kSqliteMagic);
}

std::string FindNsysOnPath() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (dir.empty()) continue;
    std::string candidate = absl::StrCat(dir, "/nsys");
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

absl::StatusOr<NsysSummary> ConvertNsysReportToXSpace(const std::string& path,
                                                      const NsysOptions& options,
                                                      xplane::XSpaceData* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  const std::string nsys = FindNsysOnPath();
  if (nsys.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": an Nsight Systems report, which tbprof reads through `nsys export` but nsys is "
              "not on PATH; export it where nsys is installed with `nsys export --type sqlite "
              "--output report.sqlite ",
        path, "` and give tbprof the .sqlite file"));
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/tbprof-nsys-XXXXXX");
  if (::mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError(absl::StrCat(path, ": cannot create a temporary folder for the "
                                            "nsys export: ", std::strerror(errno)));
  }
  const std::string sqlite = dir + "/report.sqlite";
  const std::string log = dir + "/nsys-export.log";
  const int rc = RunLogged({nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
                            "--output", sqlite, path},
                           log);
  struct stat exported;
  if (rc != 0 || ::stat(sqlite.c_str(), &exported) != 0) {
    std::string last = LastLine(log);
    RemoveFolder(dir);
    return absl::InternalError(absl::StrCat(
        path, ": `", nsys, " export --type sqlite` failed (exit status ", rc, ")",
        last.empty() ? "" : absl::StrCat(": ", last)));
  }
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(sqlite, options, out);
  RemoveFolder(dir);
  if (!summary.ok()) {
    return absl::Status(summary.status().code(),
                        absl::StrCat(path, " (exported by nsys): ", summary.status().message()));
  }
  return summary;
}

bool SplitNsysProcessPath(const std::string& path, std::string* file, int64_t* pid) {
  constexpr char kMarker[] = "#pid=";
  constexpr size_t kMarkerSize = sizeof(kMarker) - 1;
  const size_t at = path.rfind(kMarker);
  if (at == std::string::npos || at == 0) return false;
  int64_t value = 0;
  if (!absl::SimpleAtoi(absl::string_view(path).substr(at + kMarkerSize), &value) ||
      value < 0) {
    return false;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return false;  // A file with that very name.
  const std::string base = path.substr(0, at);
  if (::stat(base.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  *file = base;
  *pid = value;
  return true;
}

std::vector<std::string> ExpandNsysProcesses(const std::string& path) {
  struct stat st;  // Only regular files: sniffing a pipe would eat its data.
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {path};
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof(head));
  if (!LooksLikeSqlite(absl::string_view(head, static_cast<size_t>(in.gcount())))) return {path};
  absl::StatusOr<std::vector<NsysProcess>> processes = ListNsysProcesses(path);
  if (!processes.ok() || processes->size() < 2) return {path};
  std::vector<std::string> out;
  for (const NsysProcess& p : *processes) out.push_back(absl::StrCat(path, "#pid=", p.pid));
  return out;
}

absl::StatusOr<NsysSummary> ConvertNsysToXSpace(const std::string& path,
                                                const NsysOptions& options,
                                                xplane::XSpaceData* out) {
  std::string file;
  int64_t pid = -1;
  if (SplitNsysProcessPath(path, &file, &pid)) {
    NsysOptions one = options;
    one.pid = pid;
    return ConvertNsysSqliteToXSpace(file, one, out);
  }
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof(head));
  if (LooksLikeSqlite(absl::string_view(head, static_cast<size_t>(in.gcount())))) {
    return ConvertNsysSqliteToXSpace(path, options, out);
  }
  if (IsNsysReportName(path)) return ConvertNsysReportToXSpace(path, options, out);
  return ConvertNsysSqliteToXSpace(path, options, out);  // Names the problem.
}

}  // namespace tbprof::converters
