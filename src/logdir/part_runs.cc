#include "src/logdir/part_runs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::logdir {
namespace {

absl::Status ErrnoError(int error, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", std::strerror(error));
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

// The profile directory, <logdir>/plugins/profile (RunDirectory() less "/<run>").
std::string ProfileDirectory(absl::string_view logdir) {
  std::string run_dir = RunDirectory(logdir, "x");
  run_dir.resize(run_dir.size() - 2);
  return run_dir;
}

}  // namespace

bool IsPartRunName(absl::string_view name, absl::string_view run) {
  if (!absl::ConsumePrefix(&name, run) || !absl::ConsumePrefix(&name, "_part")) return false;
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](char c) { return absl::ascii_isdigit(c); });
}

std::string BaseRunOfPartRun(absl::string_view name) {
  const size_t at = name.rfind("_part");
  if (at == absl::string_view::npos || at == 0) return "";
  const absl::string_view base = name.substr(0, at);
  return IsPartRunName(name, base) ? std::string(base) : "";
}

absl::StatusOr<std::vector<std::string>> ListPartRuns(absl::string_view logdir,
                                                      absl::string_view run) {
  const std::string profile_dir = ProfileDirectory(logdir);
  std::vector<std::string> runs;
  DIR* dir = ::opendir(profile_dir.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return runs;
    return ErrnoError(errno, absl::StrCat(profile_dir, ": cannot list the runs"));
  }
  while (const struct dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!IsPartRunName(name, run)) continue;
    struct stat st;
    if (::lstat(RunDirectory(logdir, name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      runs.push_back(name);
    }
  }
  ::closedir(dir);
  std::sort(runs.begin(), runs.end());
  return runs;
}

absl::Status RemoveStalePartRunFiles(absl::string_view logdir, absl::string_view run,
                                     const std::vector<std::string>& hosts,
                                     const std::vector<std::string>& suffixes,
                                     const std::set<std::string>& keep,
                                     RemovedPartRunFiles* removed) {
  RemovedPartRunFiles ignored;
  if (removed == nullptr) removed = &ignored;
  absl::StatusOr<std::vector<std::string>> part_runs = ListPartRuns(logdir, run);
  if (!part_runs.ok()) return part_runs.status();
  absl::Status first_error;
  for (const std::string& part_run : *part_runs) {
    const std::string run_dir = RunDirectory(logdir, part_run);
    bool removed_any = false;
    for (const std::string& host : hosts) {
      for (const std::string& suffix : suffixes) {
        const std::string path = HostFilePath(run_dir, host, suffix);
        if (keep.count(path) > 0) continue;
        struct stat st;
        if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (::unlink(path.c_str()) != 0) {
          if (first_error.ok()) first_error = ErrnoError(errno, absl::StrCat(path, ": cannot remove"));
          continue;
        }
        removed->files.push_back(path);
        removed_any = true;
      }
    }
    // rmdir(2) removes only an empty directory: anything else stays.
    if (removed_any && ::rmdir(run_dir.c_str()) == 0) removed->dirs.push_back(run_dir);
  }
  return first_error;
}

}  // namespace tbprof::logdir
