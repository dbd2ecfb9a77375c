#include "src/logdir/profile_logdir.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_io.h"

namespace tbprof::logdir {
namespace {

constexpr size_t kMaxHostNameBytes = 200;

// Suffixes of files the plugin writes into the run directory.
constexpr absl::string_view kPluginCacheSuffixes[] = {
    "SSTABLE",          "metadata.SSTABLE",     "trie.SSTABLE",        "op_stats_v2.pb",
    "dcn_collective_stats.pb", "smart_suggestion.pb", "hlo_proto.pb",
};
// Whole file names the plugin writes.
constexpr absl::string_view kPluginCacheFileNames[] = {".cached_tools.json", "cache_version.txt"};

absl::Status DirError(int err, const std::string& dir, absl::string_view what) {
  std::string message = absl::StrCat(dir, ": ", what, ": ", std::strerror(err));
  switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOTDIR:
    case EEXIST:
      return absl::InvalidArgumentError(message);
    case ENOSPC:
    case EDQUOT:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// mkdir -p; appends each directory it creates to `created` (outermost first).
absl::Status MakeDirectories(const std::string& path, std::vector<std::string>* created) {
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    std::string prefix = path.substr(0, pos);
    if (prefix.empty() || prefix == "." || prefix == "..") continue;
    if (::mkdir(prefix.c_str(), 0755) == 0) {
      created->push_back(prefix);
      continue;
    }
    int err = errno;
    if (err == EEXIST) {
      if (!IsDirectory(prefix)) return DirError(ENOTDIR, prefix, "cannot create directory");
      continue;
    }
    // Permission errors on existing ancestors (e.g. "/") are fine as long as
    // the component exists; mkdir reports EACCES before EEXIST on some systems.
    if ((err == EACCES || err == EPERM || err == EROFS) && IsDirectory(prefix)) continue;
    return DirError(err, prefix, "cannot create directory");
  }
  return absl::OkStatus();
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string StagedPathFor(const std::string& run_dir, const std::string& final_path) {
  static std::atomic<uint64_t> counter{0};
  return absl::StrCat(run_dir, "/.", BaseName(final_path), ".staged-", ::getpid(), "-",
                      counter++);
}

// `status` with `staged_path` in its message replaced by `final_path`: the
// user knows the final file, not the hidden staging file.
absl::Status NameFinalPath(const absl::Status& status, const std::string& staged_path,
                           const std::string& final_path) {
  std::string message(status.message());
  size_t at = message.find(staged_path);
  if (at != std::string::npos) message.replace(at, staged_path.size(), final_path);
  return absl::Status(status.code(), message);
}

bool IsPluginCacheFileName(absl::string_view name) {
  for (absl::string_view cache : kPluginCacheFileNames) {
    if (name == cache) return true;
  }
  return absl::StartsWith(name, "ALL_HOSTS.");
}

}  // namespace

std::string RunNameForTime(std::time_t time) {
  struct tm local;
  localtime_r(&time, &local);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y_%m_%d_%H_%M_%S", &local);
  return buffer;
}

std::string DefaultRunName() { return RunNameForTime(std::time(nullptr)); }

std::string SanitizeHostName(absl::string_view host) {
  std::string out;
  out.reserve(host.size());
  for (char c : host) {
    bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
              c == '-';
    out.push_back(ok ? c : '_');
  }
  if (out.size() > kMaxHostNameBytes) out.resize(kMaxHostNameBytes);
  if (!out.empty() && out[0] == '.') out[0] = '_';
  if (out.empty()) out = "localhost";
  if (out == "ALL_HOSTS") out = "ALL_HOSTS_";
  return out;
}

absl::Status ValidateRunName(absl::string_view run) {
  if (run.empty()) return absl::InvalidArgumentError("run name is empty");
  if (run == "." || run == "..") {
    return absl::InvalidArgumentError(absl::StrCat("run name '", run, "' is not allowed"));
  }
  for (char c : run) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("run name '", run, "' must be a single directory name (no '/')"));
    }
  }
  if (run.size() > 200) return absl::InvalidArgumentError("run name longer than 200 bytes");
  return absl::OkStatus();
}

std::string RunDirectory(absl::string_view logdir, absl::string_view run) {
  absl::string_view base = logdir;
  while (base.size() > 1 && absl::EndsWith(base, "/")) base.remove_suffix(1);
  if (base.empty()) base = ".";
  if (base == "/") return absl::StrCat("/plugins/profile/", run);
  return absl::StrCat(base, "/plugins/profile/", run);
}

std::string HostFilePath(absl::string_view run_dir, absl::string_view host,
                         absl::string_view suffix) {
  return absl::StrCat(run_dir, "/", host, ".", suffix);
}

bool IsPluginCacheSuffix(absl::string_view suffix) {
  for (absl::string_view cache : kPluginCacheSuffixes) {
    if (suffix == cache || absl::EndsWith(suffix, absl::StrCat(".", cache))) return true;
  }
  return false;
}

// ---- StagedFileStream --------------------------------------------------------

StagedFileStream::StagedFileStream(std::string final_path, std::string staged_path,
                                   std::unique_ptr<AtomicOutputFile> file)
    : final_path_(std::move(final_path)),
      staged_path_(std::move(staged_path)),
      file_(std::move(file)) {}

StagedFileStream::~StagedFileStream() = default;  // ~AtomicOutputFile deletes an unfinished file.

absl::Status StagedFileStream::Append(absl::string_view bytes) {
  if (!status_.ok()) return status_;
  absl::Status status = file_->Append(bytes);
  if (!status.ok()) status_ = NameFinalPath(status, staged_path_, final_path_);
  return status_;
}

uint64_t StagedFileStream::bytes_written() const { return file_->bytes_written(); }

// ---- RunWriter ---------------------------------------------------------------

absl::StatusOr<std::unique_ptr<RunWriter>> RunWriter::Open(const std::string& logdir,
                                                           const std::string& run,
                                                           const RunWriterOptions& options) {
  TBPROF_RETURN_IF_ERROR(ValidateRunName(run));
  std::string run_dir = RunDirectory(logdir, run);
  std::vector<std::string> created;
  absl::Status status = MakeDirectories(run_dir, &created);
  if (status.ok() && ::access(run_dir.c_str(), W_OK | X_OK) != 0) {
    status = DirError(errno, run_dir, "directory is not writable");
  }
  std::unique_ptr<RunWriter> writer(new RunWriter(run_dir, std::move(created), options));
  if (!status.ok()) return status;  // ~RunWriter removes what was created.
  return writer;
}

RunWriter::RunWriter(std::string run_dir, std::vector<std::string> created_dirs,
                     RunWriterOptions options)
    : run_dir_(std::move(run_dir)), created_dirs_(std::move(created_dirs)), options_(options) {}

RunWriter::~RunWriter() {
  if (!done_) Abort();
}

absl::StatusOr<std::string> RunWriter::PrepareStage(const std::string& final_path) {
  if (done_) {
    return absl::FailedPreconditionError(absl::StrCat(run_dir_, ": run already published"));
  }
  for (const StagedFile& staged : staged_) {
    if (staged.final_path == final_path) {
      return absl::AlreadyExistsError(
          absl::StrCat(final_path, ": written twice in one run (host names must be unique)"));
    }
  }
  for (const Reserved& reserved : reserved_) {
    if (reserved.final_path == final_path) {
      return absl::AlreadyExistsError(
          absl::StrCat(final_path, ": written twice in one run (host names must be unique)"));
    }
  }
  if (!options_.force && PathExists(final_path)) {
    return absl::AlreadyExistsError(
        absl::StrCat(final_path, ": already exists (use --force to replace it)"));
  }
  return StagedPathFor(run_dir_, final_path);
}

absl::StatusOr<std::string> RunWriter::CommitStaged(const std::string& final_path,
                                                    const std::string& staged_path,
                                                    AtomicOutputFile* file, absl::Status status) {
  const uint64_t bytes = file->bytes_written();
  if (status.ok()) status = file->Commit(AtomicOutputFile::Overwrite::kReplace);
  if (!status.ok()) {
    file->Abandon();
    ::unlink(staged_path.c_str());
    return NameFinalPath(status, staged_path, final_path);
  }
  staged_.push_back({final_path, staged_path, bytes});
  return final_path;
}

absl::StatusOr<std::string> RunWriter::StageXSpace(absl::string_view host,
                                                   const xplane::XSpaceData& space) {
  return StageXSpaceWith(
      host, [&space](AtomicOutputFile* file) { return xplane::WriteXSpaceData(space, file); });
}

absl::StatusOr<std::string> RunWriter::StageXSpaceWith(
    absl::string_view host, const std::function<absl::Status(AtomicOutputFile*)>& write) {
  std::string final_path = HostFilePath(run_dir_, SanitizeHostName(host), kXSpaceSuffix);
  TBPROF_ASSIGN_OR_RETURN(std::string staged_path, PrepareStage(final_path));
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<AtomicOutputFile> file,
                          AtomicOutputFile::Create(staged_path));
  absl::Status status = write(file.get());
  return CommitStaged(final_path, staged_path, file.get(), std::move(status));
}

absl::StatusOr<std::string> RunWriter::HostFileFinalPath(absl::string_view host,
                                                         absl::string_view suffix) {
  if (suffix.empty() || absl::StrContains(suffix, '/') || absl::StartsWith(suffix, ".")) {
    return absl::InvalidArgumentError(absl::StrCat("bad host file suffix '", suffix, "'"));
  }
  if (IsPluginCacheSuffix(suffix)) {
    return absl::InvalidArgumentError(
        absl::StrCat("suffix '", suffix, "' is a name the profile plugin uses for its caches"));
  }
  std::string name = absl::StrCat(SanitizeHostName(host), ".", suffix);
  if (IsPluginCacheFileName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("file name '", name, "' is a name the profile plugin uses for its caches"));
  }
  return absl::StrCat(run_dir_, "/", name);
}

absl::StatusOr<std::string> RunWriter::StageHostFile(absl::string_view host,
                                                     absl::string_view suffix,
                                                     absl::string_view contents) {
  TBPROF_ASSIGN_OR_RETURN(std::string final_path, HostFileFinalPath(host, suffix));
  TBPROF_ASSIGN_OR_RETURN(std::string staged_path, PrepareStage(final_path));
  absl::Status status =
      WriteFileAtomically(staged_path, contents, AtomicOutputFile::Overwrite::kReplace);
  if (!status.ok()) {
    ::unlink(staged_path.c_str());
    return absl::Status(status.code(), absl::StrCat(final_path, ": ", status.message()));
  }
  staged_.push_back({final_path, staged_path, contents.size()});
  return final_path;
}

absl::StatusOr<std::unique_ptr<StagedFileStream>> RunWriter::BeginHostFile(
    absl::string_view host, absl::string_view suffix) {
  TBPROF_ASSIGN_OR_RETURN(std::string final_path, HostFileFinalPath(host, suffix));
  TBPROF_ASSIGN_OR_RETURN(std::string staged_path, PrepareStage(final_path));
  absl::StatusOr<std::unique_ptr<AtomicOutputFile>> file = AtomicOutputFile::Create(staged_path);
  if (!file.ok()) return NameFinalPath(file.status(), staged_path, final_path);
  std::unique_ptr<StagedFileStream> stream(
      new StagedFileStream(final_path, std::move(staged_path), *std::move(file)));
  reserved_.push_back({std::move(final_path), stream.get()});
  return stream;
}

bool RunWriter::ReleaseReservation(const StagedFileStream* stream) {
  auto it = std::find_if(reserved_.begin(), reserved_.end(),
                         [stream](const Reserved& r) { return r.stream == stream; });
  if (stream == nullptr || it == reserved_.end()) return false;
  reserved_.erase(it);
  return true;
}

absl::StatusOr<std::string> RunWriter::FinishHostFile(std::unique_ptr<StagedFileStream> stream) {
  if (!ReleaseReservation(stream.get())) {
    return absl::InvalidArgumentError(
        absl::StrCat(run_dir_, ": FinishHostFile() with a stream this writer did not begin"));
  }
  if (done_) {
    return absl::FailedPreconditionError(absl::StrCat(run_dir_, ": run already published"));
  }
  return CommitStaged(stream->final_path_, stream->staged_path_, stream->file_.get(),
                      stream->status_);
}

void RunWriter::AbandonHostFile(std::unique_ptr<StagedFileStream> stream) {
  ReleaseReservation(stream.get());
}

absl::Status RunWriter::Publish() {
  if (done_) {
    return absl::FailedPreconditionError(absl::StrCat(run_dir_, ": run already published"));
  }
  absl::Status status;
  size_t published = 0;
  for (; published < staged_.size(); ++published) {
    const StagedFile& file = staged_[published];
    if (options_.force) {
      if (::rename(file.staged_path.c_str(), file.final_path.c_str()) != 0) {
        status = DirError(errno, file.final_path, "cannot publish file");
        break;
      }
    } else {
      if (::link(file.staged_path.c_str(), file.final_path.c_str()) != 0) {
        status = errno == EEXIST
                     ? absl::AlreadyExistsError(absl::StrCat(
                           file.final_path, ": already exists (use --force to replace it)"))
                     : DirError(errno, file.final_path, "cannot publish file");
        break;
      }
      ::unlink(file.staged_path.c_str());
    }
  }
  if (!status.ok()) {
    // Take back what this call published, so the run is all or nothing.
    for (size_t i = 0; i < published; ++i) ::unlink(staged_[i].final_path.c_str());
    for (size_t i = published; i < staged_.size(); ++i) ::unlink(staged_[i].staged_path.c_str());
    RemoveCreatedDirsIfEmpty();
  }
  done_ = true;
  return status;
}

void RunWriter::Abort() {
  for (const StagedFile& file : staged_) ::unlink(file.staged_path.c_str());
  if (!done_) RemoveCreatedDirsIfEmpty();
  done_ = true;
}

void RunWriter::RemoveCreatedDirsIfEmpty() {
  // Innermost first; rmdir(2) fails harmlessly on a non-empty directory.
  for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) {
    if (::rmdir(it->c_str()) != 0) break;
  }
  created_dirs_.clear();
}

}  // namespace tbprof::logdir
