// The TensorBoard profile-plugin log directory:
//
//   <logdir>/plugins/profile/<run>/<host>.xplane.pb
//   <logdir>/plugins/profile/<run>/<host>.<suffix>     (extra per-host files)
//
// Files are published in two phases so that a reader (TensorBoard, another
// tbprof) never sees a partial file and a failed conversion leaves nothing
// behind: Stage*() writes a complete hidden file ".<name>.staged-<pid>-<n>"
// in the run directory (through AtomicOutputFile), and Publish() gives every
// staged file its final name. A writer destroyed without Publish() deletes
// its staged files and the directories it created, if they are empty.
//
// Names the plugin uses for its own caches (".cached_tools.json",
// "cache_version.txt", "*.SSTABLE", "ALL_HOSTS.*", "*.op_stats_v2.pb", ...)
// are never produced.
#ifndef TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_
#define TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_

#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::logdir {

// File name suffix of the XSpace file of a host.
inline constexpr absl::string_view kXSpaceSuffix = "xplane.pb";

// "YYYY_MM_DD_HH_MM_SS" for `time` in local time, the plugin's run naming.
std::string RunNameForTime(std::time_t time);
// RunNameForTime(now).
std::string DefaultRunName();

// Makes `host` usable as the <host> part of "<host>.xplane.pb": characters
// other than [A-Za-z0-9._-] become '_', a leading '.' becomes '_' (no hidden
// files), the result is at most 200 bytes and never empty ("localhost"),
// and never a plugin cache name ("ALL_HOSTS" becomes "ALL_HOSTS_"). Dots are
// kept: the plugin takes everything before ".xplane.pb" as the host.
std::string SanitizeHostName(absl::string_view host);

// Checks a run name: one non-empty path component, not "." or "..", no '/',
// no control characters. Errors: kInvalidArgument.
absl::Status ValidateRunName(absl::string_view run);

// "<logdir>/plugins/profile/<run>" (no trailing slash; `logdir` may end in '/').
std::string RunDirectory(absl::string_view logdir, absl::string_view run);
// "<run_dir>/<host>.<suffix>"; `host` must already be sanitized.
std::string HostFilePath(absl::string_view run_dir, absl::string_view host,
                         absl::string_view suffix = kXSpaceSuffix);

// True for suffixes whose file names the plugin writes itself (caches).
bool IsPluginCacheSuffix(absl::string_view suffix);

struct RunWriterOptions {
  // Replace existing host files instead of failing with kAlreadyExists.
  bool force = false;
};

// Writes the files of one run. Not thread-safe.
class RunWriter {
 public:
  // Creates <logdir>/plugins/profile/<run> and any missing parents (0755).
  // `run` must pass ValidateRunName. Errors: kInvalidArgument (bad run name,
  // a path component is not a directory), kPermissionDenied, kUnavailable;
  // each message names the directory.
  static absl::StatusOr<std::unique_ptr<RunWriter>> Open(const std::string& logdir,
                                                         const std::string& run,
                                                         const RunWriterOptions& options = {});

  // Abort()s unless Publish() succeeded.
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Serializes `space` (XSpace wire format, streamed) into a staged file for
  // "<host>.xplane.pb". `host` is sanitized first; the final path is returned.
  // Errors: kAlreadyExists (the host file exists, or was staged already in
  // this writer, and !force; the message mentions --force), write errors.
  // On error nothing is left behind for this host.
  absl::StatusOr<std::string> StageXSpace(absl::string_view host, const xplane::XSpaceData& space);

  // Stages "<host>.<suffix>" with `contents` (e.g. suffix "overview_page.pb").
  // Errors as StageXSpace, plus kInvalidArgument for an empty suffix, one
  // containing '/', or a plugin cache suffix (IsPluginCacheSuffix).
  absl::StatusOr<std::string> StageHostFile(absl::string_view host, absl::string_view suffix,
                                            absl::string_view contents);

  // Gives every staged file its final name: rename(2) with force, otherwise
  // link(2)+unlink so an existing file is never replaced. If one fails, the
  // files already published by this call are removed again (with force the
  // files they replaced are gone), the rest are deleted, and the error names
  // the file. After Publish() (success or failure) the writer is spent.
  absl::Status Publish();

  // Deletes staged files and removes the directories Open() created, as far
  // as they are empty. Idempotent.
  void Abort();

  const std::string& run_dir() const { return run_dir_; }
  // True if Open() created the run directory (it did not exist before).
  bool created_run_dir() const { return !created_dirs_.empty(); }
  // Bytes of each staged file, in staging order.
  struct StagedFile {
    std::string final_path;
    std::string staged_path;
    uint64_t bytes = 0;
  };
  const std::vector<StagedFile>& staged_files() const { return staged_; }

 private:
  RunWriter(std::string run_dir, std::vector<std::string> created_dirs, RunWriterOptions options);
  // Checks that `final_path` may be written; returns the staged path to use.
  absl::StatusOr<std::string> PrepareStage(const std::string& final_path);
  void RemoveCreatedDirsIfEmpty();

  std::string run_dir_;
  std::vector<std::string> created_dirs_;  // Outermost first.
  RunWriterOptions options_;
  std::vector<StagedFile> staged_;
  bool done_ = false;
};

}  // namespace tbprof::logdir

#endif  // TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_
