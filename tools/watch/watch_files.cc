#include "tools/watch/watch_files.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "converters/views/all/all_views.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::cli {
namespace {

constexpr absl::string_view kWatchedSuffixes[] = {
    ".json", ".json.gz", ".xplane.pb", ".xplane.pb.gz", ".tbcap",
    ".pickle", ".pkl", ".sqlite", ".nsys-rep"};
constexpr absl::string_view kXPlaneSuffix = ".xplane.pb";

}  // namespace

bool IsWatchedFileName(absl::string_view name) {
  if (name.empty() || name[0] == '.') return false;
  if (absl::EndsWithIgnoreCase(name, ".tmp") || absl::EndsWithIgnoreCase(name, ".part")) {
    return false;
  }
  for (absl::string_view suffix : kWatchedSuffixes) {
    if (name.size() > suffix.size() && absl::EndsWithIgnoreCase(name, suffix)) return true;
  }
  return false;
}

absl::StatusOr<std::map<std::string, FileStat>> ListWatchedFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(dir, ": the watched directory does not exist (",
                                              std::strerror(error), ")"));
    }
    return absl::PermissionDeniedError(
        absl::StrCat(dir, ": cannot read the watched directory: ", std::strerror(error)));
  }
  std::map<std::string, FileStat> files;
  std::set<std::string> hosts;  // "<host>" of "<host>.xplane.pb" files.
  const std::string prefix = absl::StrCat(dir, absl::EndsWith(dir, "/") ? "" : "/");
  while (struct dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (!IsWatchedFileName(name)) continue;
    struct stat st;
    if (::stat((prefix + name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    files[name] = {static_cast<int64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
    if (absl::EndsWithIgnoreCase(name, kXPlaneSuffix)) {
      hosts.insert(name.substr(0, name.size() - kXPlaneSuffix.size()));
    }
  }
  ::closedir(d);
  for (auto it = files.begin(); it != files.end();) {
    const std::string& name = it->first;
    // tbprof's views files, of a host or of the whole run.
    bool view_file = absl::EndsWith(name, absl::StrCat(".", logdir::kViewsFileSuffix));
    for (const std::string& suffix : views::PrecomputedViewSuffixes()) {
      const size_t n = suffix.size() + 1;
      if (name.size() > n && absl::EndsWith(name, absl::StrCat(".", suffix)) &&
          hosts.count(name.substr(0, name.size() - n))) {
        view_file = true;
      }
    }
    it = view_file ? files.erase(it) : std::next(it);
  }
  // The directory may have been removed while it was being read.
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(dir, ": the watched directory does not exist"));
  }
  return files;
}

absl::StatusOr<int64_t> ParseDurationMs(absl::string_view text) {
  absl::string_view number = text;
  double scale = 1000;  // Seconds by default.
  if (absl::ConsumeSuffix(&number, "ms")) {
    scale = 1;
  } else {
    absl::ConsumeSuffix(&number, "s");
  }
  double value = 0;
  if (number.empty() || !absl::SimpleAtod(number, &value) || !std::isfinite(value) || value < 0 ||
      value * scale > 1e12) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a duration such as 2, 0.5, 2s or 500ms, got '", text, "'"));
  }
  return static_cast<int64_t>(std::llround(value * scale));
}

void FileTracker::Observe(const std::map<std::string, FileStat>& listing, int64_t now_ms) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = listing.count(it->first) ? std::next(it) : entries_.erase(it);
  }
  for (const auto& [name, stat] : listing) {
    auto [it, inserted] = entries_.try_emplace(name);
    Entry& e = it->second;
    if (inserted) {
      e.stat = stat;
      e.unchanged_since_ms = now_ms;
      continue;
    }
    if (e.stat == stat) continue;
    e.stat = stat;
    e.unchanged_since_ms = now_ms;
    if (e.state == State::kFailed) {
      e.state = State::kPending;
      e.retry_at_ms = INT64_MAX;
    }
  }
}

std::vector<std::string> FileTracker::Ready(int64_t now_ms) const {
  std::vector<std::string> ready;
  for (const auto& [name, e] : entries_) {
    if (!Settled(e, now_ms)) continue;
    if (e.state == State::kPending || (e.state == State::kFailed && now_ms >= e.retry_at_ms)) {
      ready.push_back(name);
    }
  }
  return ready;
}

std::vector<std::string> FileTracker::Unsettled(int64_t now_ms) const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) {
    if (e.state == State::kPending && !Settled(e, now_ms)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> FileTracker::Pending() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) {
    if (e.state == State::kPending) out.push_back(name);
  }
  return out;
}

void FileTracker::MarkDone(const std::string& name) {
  auto it = entries_.find(name);
  if (it != entries_.end()) it->second.state = State::kDone;
}

void FileTracker::MarkFailed(const std::string& name, int64_t retry_at_ms) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  it->second.state = State::kFailed;
  it->second.retry_at_ms = retry_at_ms;
}

void FileTracker::MarkPending(const std::string& name, int64_t now_ms) {
  auto it = entries_.find(name);
  if (it == entries_.end()) return;
  it->second.state = State::kPending;
  it->second.unchanged_since_ms = now_ms;
  it->second.retry_at_ms = INT64_MAX;
}

FileStat FileTracker::stat(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? FileStat{} : it->second.stat;
}

}  // namespace tbprof::cli
