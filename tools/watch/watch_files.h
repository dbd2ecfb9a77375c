// Which files of a watched directory `tbprof watch` converts, and when a file
// is complete enough to read.
//
// A file is a candidate when its name has a trace suffix (.json, .json.gz,
// .xplane.pb, .xplane.pb.gz, .tbcap), is not hidden (leading '.') and does
// not end in .tmp or .part (names writers use while writing). A candidate is
// *settled* once its size and modification time have stayed the same for
// the settle period, measured from the first listing that showed them; only
// settled files are read. Reading then decides: a file that does not parse
// yet is retried when it changes (see watch_command.cc).
#ifndef TBPROF_TOOLS_WATCH_WATCH_FILES_H_
#define TBPROF_TOOLS_WATCH_WATCH_FILES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::cli {

// True for names `tbprof watch` considers (see above).
bool IsWatchedFileName(absl::string_view name);

// Size and modification time of a file.
struct FileStat {
  int64_t size = 0;
  int64_t mtime_ns = 0;  // Wall clock, since the epoch.
  bool operator==(const FileStat& o) const { return size == o.size && mtime_ns == o.mtime_ns; }
  bool operator!=(const FileStat& o) const { return !(*this == o); }
};

// The candidate regular files directly in `dir`, by name. Precomputed view
// files beside a "<host>.xplane.pb" ("<host>.trace.json.gz", ...) are left
// out, as `tbprof convert DIR` does. Errors: kNotFound when `dir` does not
// exist (any more) or is not a directory, kPermissionDenied when it cannot be
// read; each names `dir`.
absl::StatusOr<std::map<std::string, FileStat>> ListWatchedFiles(const std::string& dir);

// "2", "0.5", "2s", "1.5s", "500ms" -> milliseconds (>= 0). Errors:
// kInvalidArgument.
absl::StatusOr<int64_t> ParseDurationMs(absl::string_view text);

// Follows the files of a directory from listing to listing and says which
// are ready to read. Times are milliseconds of a monotonic clock. Not
// thread-safe.
class FileTracker {
 public:
  explicit FileTracker(int64_t settle_ms) : settle_ms_(settle_ms) {}

  // Records a listing taken at `now_ms`. New files and files whose stat
  // changed start (again) to settle; files missing from `listing` are
  // forgotten. A file marked done stays done whatever happens to it.
  void Observe(const std::map<std::string, FileStat>& listing, int64_t now_ms);

  // Files to read now, in name order: settled files not read yet, and failed
  // files that changed and settled again or whose retry time has come.
  std::vector<std::string> Ready(int64_t now_ms) const;

  // Files not done, not failed and not settled yet (still being written).
  std::vector<std::string> Unsettled(int64_t now_ms) const;
  // Files not done and not failed (settled or not): not read yet.
  std::vector<std::string> Pending() const;

  // The file was converted (or needs no conversion): never ready again.
  void MarkDone(const std::string& name);
  // Reading failed: ready again once the file changes and settles, or at
  // `retry_at_ms` if it does not change.
  void MarkFailed(const std::string& name, int64_t retry_at_ms = INT64_MAX);
  // Reading was abandoned (the file changed meanwhile): ready again once it
  // settles.
  void MarkPending(const std::string& name, int64_t now_ms);

  // The stat of the last listing that showed `name` (zeros if none).
  FileStat stat(const std::string& name) const;

 private:
  enum class State { kPending, kDone, kFailed };
  struct Entry {
    FileStat stat;
    int64_t unchanged_since_ms = 0;
    State state = State::kPending;
    int64_t retry_at_ms = INT64_MAX;
  };
  bool Settled(const Entry& e, int64_t now_ms) const {
    return now_ms - e.unchanged_since_ms >= settle_ms_;
  }

  int64_t settle_ms_;
  std::map<std::string, Entry> entries_;
};

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_WATCH_WATCH_FILES_H_
