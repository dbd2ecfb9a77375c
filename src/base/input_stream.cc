#include "src/base/input_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#if defined(TBPROF_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof {
namespace {

absl::Status ErrnoToStatus(int err, const std::string& path, absl::string_view what) {
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case EISDIR:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnavailableError(message);
  }
}

// Owns a file descriptor and reads from it.
class FileReader {
 public:
  FileReader(int fd, std::string path, uint64_t size)
      : fd_(fd), path_(std::move(path)), size_(size) {}
  ~FileReader() { ::close(fd_); }

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) {
    while (true) {
      ssize_t n = ::read(fd_, buffer, capacity);
      if (n >= 0) {
        consumed_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno != EINTR) return ErrnoToStatus(errno, path_, "read failed");
    }
  }
  const std::string& path() const { return path_; }
  uint64_t consumed() const { return consumed_; }
  uint64_t size() const { return size_; }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  uint64_t consumed_ = 0;
};

class PlainInputStream : public InputStream {
 public:
  PlainInputStream(std::unique_ptr<FileReader> file, std::string prefix)
      : file_(std::move(file)), prefix_(std::move(prefix)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
    if (prefix_pos_ < prefix_.size()) {
      size_t n = std::min(capacity, prefix_.size() - prefix_pos_);
      std::memcpy(buffer, prefix_.data() + prefix_pos_, n);
      prefix_pos_ += n;
      return n;
    }
    return file_->Read(buffer, capacity);
  }
  uint64_t file_bytes_consumed() const override { return file_->consumed(); }
  uint64_t file_size() const override { return file_->size(); }
  bool is_gzip() const override { return false; }
  const std::string& path() const override { return file_->path(); }

 private:
  std::unique_ptr<FileReader> file_;
  std::string prefix_;  // Bytes read while sniffing the format.
  size_t prefix_pos_ = 0;
};

// What the gzip streams below share: the compressed input read from the file
// in 1 MiB pieces, the end and truncation of the stream, the limit on the
// inflated size, and the wording of their errors.
class GzipStreamBase : public InputStream {
 public:
  uint64_t file_size() const override { return file_->size(); }
  bool is_gzip() const override { return true; }
  const std::string& path() const override { return file_->path(); }

 protected:
  GzipStreamBase(std::unique_ptr<FileReader> file, const std::string& prefix,
                 const InputStreamOptions& options)
      : file_(std::move(file)), options_(options), in_(1 << 20) {
    std::memcpy(in_.data(), prefix.data(), prefix.size());
    compressed_seen_ = prefix.size();
  }

  // Reads the next piece of compressed input into in_; returns its size.
  // 0 is a clean end (after a complete member; finished_ is then set); input
  // that ends inside a member is kDataLoss.
  absl::StatusOr<size_t> ReadCompressed() {
    TBPROF_ASSIGN_OR_RETURN(size_t n, file_->Read(in_.data(), in_.size()));
    if (n == 0) {
      if (member_started_) {
        return absl::DataLossError(absl::StrCat(path(), ": truncated gzip: input ends at byte ",
                                                compressed_seen_,
                                                " in the middle of a compressed stream"));
      }
      finished_ = true;
    }
    compressed_seen_ += n;
    return n;
  }
  absl::Status Corrupt(uint64_t unread_input, absl::string_view reason) const {
    return absl::DataLossError(absl::StrCat(path(), ": corrupt gzip data at compressed byte ",
                                            compressed_seen_ - unread_input, ": ", reason));
  }
  // Counts bytes handed out; kResourceExhausted past max_inflated_bytes.
  absl::Status CountInflated(size_t produced) {
    inflated_ += produced;
    if (options_.max_inflated_bytes != 0 && inflated_ > options_.max_inflated_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          path(), ": gzip stream inflates past the limit of ", options_.max_inflated_bytes,
          " bytes (possible gzip bomb); raise it with --max-inflated-bytes if the file is "
          "genuine"));
    }
    return absl::OkStatus();
  }

  std::unique_ptr<FileReader> file_;
  InputStreamOptions options_;
  std::vector<char> in_;
  bool finished_ = false;
  bool member_started_ = false;  // Inside a member whose end was not seen yet.
  uint64_t compressed_seen_ = 0;
  uint64_t inflated_ = 0;
};

// Inflates gzip (and concatenated gzip members) from a file with zlib.
class GzipInputStream : public GzipStreamBase {
 public:
  GzipInputStream(std::unique_ptr<FileReader> file, const std::string& prefix,
                  const InputStreamOptions& options)
      : GzipStreamBase(std::move(file), prefix, options) {
    std::memset(&zs_, 0, sizeof(zs_));
    zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
    zs_.avail_in = static_cast<uInt>(prefix.size());
    // 16 + MAX_WBITS: gzip wrapper only.
    init_ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipInputStream() override { inflateEnd(&zs_); }

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
    if (!init_ok_) return absl::InternalError(absl::StrCat(path(), ": zlib init failed"));
    if (finished_) return 0;
    const uInt requested = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    zs_.next_out = reinterpret_cast<Bytef*>(buffer);
    zs_.avail_out = requested;
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0) {
        TBPROF_ASSIGN_OR_RETURN(size_t n, ReadCompressed());
        if (n == 0) break;
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(n);
      }
      member_started_ = true;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        // Another gzip member may follow (concatenated .gz files).
        if (inflateReset(&zs_) != Z_OK) {
          return absl::InternalError(absl::StrCat(path(), ": zlib reset failed"));
        }
        continue;
      }
      if (rc == Z_BUF_ERROR && zs_.avail_in == 0) continue;  // Needs input.
      if (rc != Z_OK) {
        return Corrupt(zs_.avail_in, zs_.msg != nullptr ? zs_.msg : "inflate failed");
      }
    }
    const size_t produced = requested - zs_.avail_out;
    TBPROF_RETURN_IF_ERROR(CountInflated(produced));
    return produced;
  }
  uint64_t file_bytes_consumed() const override { return compressed_seen_ - zs_.avail_in; }

 private:
  z_stream zs_;
  bool init_ok_ = false;
};

#if defined(TBPROF_HAVE_ISAL)
// What went wrong, in the words zlib uses for the same faults.
const char* IsalInflateError(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid block type";
    case ISAL_INVALID_SYMBOL:
      return "invalid code";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    case ISAL_NEED_DICT:
      return "needs a preset dictionary";
    default:
      return "inflate failed";
  }
}

// GzipInputStream's contract with Intel ISA-L's inflater, about 3x faster
// than zlib's (its CRC-32 alone is several times faster). Same reads, same
// errors (messages in zlib's words), same offsets.
class IsalGzipInputStream : public GzipStreamBase {
 public:
  IsalGzipInputStream(std::unique_ptr<FileReader> file, const std::string& prefix,
                      const InputStreamOptions& options)
      : GzipStreamBase(std::move(file), prefix, options),
        state_(std::make_unique<inflate_state>()) {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
    state_->next_in = reinterpret_cast<uint8_t*>(in_.data());
    state_->avail_in = static_cast<uint32_t>(prefix.size());
  }

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
    if (finished_) return 0;
    const uint32_t requested = static_cast<uint32_t>(std::min<size_t>(capacity, 1u << 30));
    state_->next_out = reinterpret_cast<uint8_t*>(buffer);
    state_->avail_out = requested;
    while (state_->avail_out > 0) {
      if (state_->block_state == ISAL_BLOCK_FINISH) {
        // A member ended; another may follow (concatenated .gz files).
        member_started_ = false;
        isal_inflate_reset(state_.get());
        state_->crc_flag = ISAL_GZIP;
      }
      if (state_->avail_in == 0) {
        TBPROF_ASSIGN_OR_RETURN(size_t n, ReadCompressed());
        if (n == 0) break;
        state_->next_in = reinterpret_cast<uint8_t*>(in_.data());
        state_->avail_in = static_cast<uint32_t>(n);
      }
      member_started_ = true;
      int rc = isal_inflate(state_.get());
      if (rc < 0 || rc == ISAL_NEED_DICT) return Corrupt(state_->avail_in, IsalInflateError(rc));
    }
    const size_t produced = requested - state_->avail_out;
    TBPROF_RETURN_IF_ERROR(CountInflated(produced));
    return produced;
  }
  uint64_t file_bytes_consumed() const override { return compressed_seen_ - state_->avail_in; }

 private:
  std::unique_ptr<inflate_state> state_;  // ~40 KB: on the heap.
};
#endif  // TBPROF_HAVE_ISAL

}  // namespace

absl::StatusOr<std::unique_ptr<InputStream>> OpenInputStream(
    const std::string& path, const InputStreamOptions& options) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoToStatus(errno, path, "cannot open");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoToStatus(err, path, "cannot stat");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, expected a file"));
  }
  auto file = std::make_unique<FileReader>(fd, path, static_cast<uint64_t>(st.st_size));
  // Sniff up to two bytes for the gzip magic.
  std::string prefix(2, '\0');
  size_t got = 0;
  while (got < 2) {
    TBPROF_ASSIGN_OR_RETURN(size_t n, file->Read(&prefix[got], 2 - got));
    if (n == 0) break;
    got += n;
  }
  prefix.resize(got);
  if (got == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f &&
      static_cast<unsigned char>(prefix[1]) == 0x8b) {
#if defined(TBPROF_HAVE_ISAL)
    if (!options.force_zlib) {
      return std::unique_ptr<InputStream>(
          new IsalGzipInputStream(std::move(file), std::move(prefix), options));
    }
#endif
    return std::unique_ptr<InputStream>(
        new GzipInputStream(std::move(file), std::move(prefix), options));
  }
  return std::unique_ptr<InputStream>(new PlainInputStream(std::move(file), std::move(prefix)));
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             const InputStreamOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, OpenInputStream(path, options));
  std::string out;
  if (!in->is_gzip()) out.reserve(in->file_size());
  constexpr size_t kChunk = 1 << 20;
  while (true) {
    size_t old = out.size();
    out.resize(old + kChunk);
    TBPROF_ASSIGN_OR_RETURN(size_t n, in->Read(&out[old], kChunk));
    out.resize(old + n);
    if (n == 0) break;
  }
  return out;
}

MemoryInputStream::MemoryInputStream(std::string data, std::vector<size_t> read_sizes,
                                     std::string path)
    : owned_(std::move(data)), read_sizes_(std::move(read_sizes)), path_(std::move(path)) {
  data_ = owned_;
}

std::unique_ptr<MemoryInputStream> MemoryInputStream::Borrowing(absl::string_view data,
                                                                std::vector<size_t> read_sizes,
                                                                std::string path) {
  auto stream = std::make_unique<MemoryInputStream>(std::string(), std::move(read_sizes),
                                                    std::move(path));
  stream->data_ = data;
  return stream;
}

absl::StatusOr<size_t> MemoryInputStream::Read(char* buffer, size_t capacity) {
  size_t limit = capacity;
  if (!read_sizes_.empty()) limit = read_sizes_[std::min(calls_, read_sizes_.size() - 1)];
  ++calls_;
  const size_t n = std::min({capacity, limit, data_.size() - pos_});
  std::memcpy(buffer, data_.data() + pos_, n);
  pos_ += n;
  return n;
}

}  // namespace tbprof
