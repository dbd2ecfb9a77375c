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
// Large files are written to their staged file as they are produced, never
// held whole in memory: StageXSpace() streams the serialization, and
// BeginHostFile() hands out a StagedFileStream for bytes made elsewhere
// (e.g. on another thread).
//
// Names the plugin uses for its own caches (".cached_tools.json",
// "cache_version.txt", "*.SSTABLE", "ALL_HOSTS.*", "*.op_stats_v2.pb", ...)
// are never produced.
#ifndef TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_
#define TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"

namespace tbprof {
class AtomicOutputFile;
}

namespace tbprof::logdir {

// File name suffix of the XSpace file of a host.
inline constexpr absl::string_view kXSpaceSuffix = "xplane.pb";
// tbprof's views file (docs/views_file.md): "<host>.tbprof_views.json.gz"
// beside a host's xplane.pb, or "tbprof_run.tbprof_views.json.gz" for a
// whole run. Never a trace: every tbprof reader skips files with it.
inline constexpr absl::string_view kViewsFileSuffix = "tbprof_views.json.gz";

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

// The bytes of one host file being staged in pieces (RunWriter::
// BeginHostFile()). They go through a 1 MiB buffer into a hidden temporary
// file in the run directory; the run writer is not touched until it gets the
// stream back (FinishHostFile() or AbandonHostFile()), so one other thread
// may Append() while the writer's thread stages other files. A stream
// destroyed without FinishHostFile() deletes its temporary file; destroy it
// before its writer, whose Abort() would otherwise leave the run directory
// it created (still holding the temporary file) behind.
class StagedFileStream {
 public:
  ~StagedFileStream();
  StagedFileStream(const StagedFileStream&) = delete;
  StagedFileStream& operator=(const StagedFileStream&) = delete;

  // Appends bytes. Errors: those of writing (kResourceExhausted when the
  // disk is full, kUnavailable, ...), naming the final path; after the first
  // error every call returns it and FinishHostFile() fails with it.
  absl::Status Append(absl::string_view bytes);

  // The path the file will have once published.
  const std::string& final_path() const { return final_path_; }
  uint64_t bytes_written() const;

 private:
  friend class RunWriter;
  StagedFileStream(std::string final_path, std::string staged_path,
                   std::unique_ptr<AtomicOutputFile> file);

  std::string final_path_;
  std::string staged_path_;
  std::unique_ptr<AtomicOutputFile> file_;  // Target: staged_path_.
  absl::Status status_;                     // The first error.
};

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
  // The same with the XSpace bytes written by `write` (e.g. a part of a
  // split, xplane::XSpaceSplit::WritePart). Errors as StageXSpace, plus
  // those `write` returns.
  absl::StatusOr<std::string> StageXSpaceWith(
      absl::string_view host, const std::function<absl::Status(AtomicOutputFile*)>& write);

  // Stages "<host>.<suffix>" with `contents` (e.g. suffix "overview_page.pb").
  // Errors as StageXSpace, plus kInvalidArgument for an empty suffix, one
  // containing '/', or a plugin cache suffix (IsPluginCacheSuffix).
  absl::StatusOr<std::string> StageHostFile(absl::string_view host, absl::string_view suffix,
                                            absl::string_view contents);

  // StageHostFile() in pieces: checks the name as StageHostFile() does and
  // reserves it at once (staging it again fails with kAlreadyExists until
  // AbandonHostFile()), and returns a stream to append the contents to. The
  // file is staged by FinishHostFile(); until then Publish() ignores it.
  // Errors: as StageHostFile(), and those of creating the file.
  absl::StatusOr<std::unique_ptr<StagedFileStream>> BeginHostFile(absl::string_view host,
                                                                  absl::string_view suffix);
  // Completes a stream of this writer: flushes it to disk and stages it,
  // after the files staged before (staged_files() order). Returns the final
  // path. Errors: the stream's first error, or one of flushing it, naming
  // the final path; then nothing of the file is left and its name is free.
  // kInvalidArgument for a stream this writer did not begin.
  absl::StatusOr<std::string> FinishHostFile(std::unique_ptr<StagedFileStream> stream);
  // Deletes a stream of this writer and frees its name.
  void AbandonHostFile(std::unique_ptr<StagedFileStream> stream);

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
  // "<run_dir>/<host>.<suffix>" after the checks of StageHostFile().
  absl::StatusOr<std::string> HostFileFinalPath(absl::string_view host, absl::string_view suffix);
  // Commits `file` (target `staged_path`) and records it as staged; on error
  // deletes it and returns the error naming `final_path`.
  absl::StatusOr<std::string> CommitStaged(const std::string& final_path,
                                           const std::string& staged_path,
                                           AtomicOutputFile* file, absl::Status status);
  // Frees the name `stream` reserved in BeginHostFile(); false if this
  // writer did not begin it (or it was handed back already).
  bool ReleaseReservation(const StagedFileStream* stream);
  void RemoveCreatedDirsIfEmpty();

  std::string run_dir_;
  std::vector<std::string> created_dirs_;  // Outermost first.
  RunWriterOptions options_;
  std::vector<StagedFile> staged_;
  // Streams begun and not yet handed back, with their final paths.
  struct Reserved {
    std::string final_path;
    const StagedFileStream* stream;
  };
  std::vector<Reserved> reserved_;
  bool done_ = false;
};

}  // namespace tbprof::logdir

#endif  // TBPROF_SRC_LOGDIR_PROFILE_LOGDIR_H_
