#include "src/base/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof {
namespace {

constexpr size_t kBufferSize = 1 << 20;

absl::Status WriteError(int err, const std::string& target, absl::string_view what) {
  std::string message = absl::StrCat(target, ": ", what, ": ", std::strerror(err));
  if (err == ENOSPC || err == EDQUOT) {
    return absl::ResourceExhaustedError(absl::StrCat(message, " (disk full?)"));
  }
  if (err == EACCES || err == EPERM || err == EROFS) {
    return absl::PermissionDeniedError(message);
  }
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
  return absl::UnavailableError(message);
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

AtomicOutputFile::AtomicOutputFile(int fd, std::string target_path, std::string temp_path)
    : fd_(fd), target_path_(std::move(target_path)), temp_path_(std::move(temp_path)) {
  buffer_.reserve(kBufferSize);
}

absl::StatusOr<std::unique_ptr<AtomicOutputFile>> AtomicOutputFile::Create(
    const std::string& target_path) {
  static std::atomic<uint64_t> counter{0};
  std::string temp_path = absl::StrCat(DirName(target_path), "/.", BaseName(target_path),
                                       ".tmp-", ::getpid(), "-", counter++);
  int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return WriteError(errno, target_path, "cannot create file");
  return std::unique_ptr<AtomicOutputFile>(
      new AtomicOutputFile(fd, target_path, std::move(temp_path)));
}

AtomicOutputFile::~AtomicOutputFile() { Abandon(); }

void AtomicOutputFile::Abandon() {
  if (done_) return;
  done_ = true;
  ::close(fd_);
  ::unlink(temp_path_.c_str());
}

absl::Status AtomicOutputFile::WriteAll(absl::string_view data) {
  size_t pos = 0;
  while (pos < data.size()) {
    ssize_t n = ::write(fd_, data.data() + pos, data.size() - pos);
    if (n < 0) {
      if (errno == EINTR) continue;
      return WriteError(errno, target_path_, "write failed");
    }
    pos += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status AtomicOutputFile::FlushBuffer() {
  TBPROF_RETURN_IF_ERROR(WriteAll(buffer_));
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status AtomicOutputFile::Append(absl::string_view data) {
  if (done_) return absl::FailedPreconditionError(absl::StrCat(target_path_, ": already closed"));
  bytes_written_ += data.size();
  if (data.size() >= kBufferSize) {
    // A whole buffer's worth (e.g. the chunks of a stream adaptor): written
    // as it is, after what is buffered, not copied first.
    TBPROF_RETURN_IF_ERROR(FlushBuffer());
    return WriteAll(data);
  }
  if (buffer_.size() + data.size() > kBufferSize) TBPROF_RETURN_IF_ERROR(FlushBuffer());
  buffer_.append(data.data(), data.size());
  return absl::OkStatus();
}

absl::Status AtomicOutputFile::Commit(Overwrite overwrite) {
  if (done_) return absl::FailedPreconditionError(absl::StrCat(target_path_, ": already closed"));
  absl::Status status = FlushBuffer();
  if (status.ok() && ::fsync(fd_) != 0) status = WriteError(errno, target_path_, "fsync failed");
  if (status.ok() && ::close(fd_) != 0) status = WriteError(errno, target_path_, "close failed");
  fd_ = -1;
  if (status.ok()) {
    if (overwrite == Overwrite::kReplace) {
      if (::rename(temp_path_.c_str(), target_path_.c_str()) != 0) {
        status = WriteError(errno, target_path_, "rename failed");
      }
    } else if (::link(temp_path_.c_str(), target_path_.c_str()) != 0) {
      status = errno == EEXIST
                   ? absl::AlreadyExistsError(absl::StrCat(
                         target_path_, ": already exists (use --force to replace it)"))
                   : WriteError(errno, target_path_, "cannot publish file");
    }
  }
  ::unlink(temp_path_.c_str());  // After link(2) or a failure; no-op after rename.
  done_ = true;
  return status;
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents,
                                 AtomicOutputFile::Overwrite overwrite) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<AtomicOutputFile> file, AtomicOutputFile::Create(path));
  TBPROF_RETURN_IF_ERROR(file->Append(contents));
  return file->Commit(overwrite);
}

absl::StatusOr<std::string> GzipCompress(absl::string_view data) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("zlib deflateInit2 failed");
  }
  std::string out;
  out.resize(deflateBound(&zs, data.size()) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = out.size() - zs.avail_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return absl::InternalError("zlib deflate failed");
  out.resize(produced);
  return out;
}

}  // namespace tbprof
