#include "src/capture/raw_capture_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::capture {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at offset; false on I/O error or short read.
  virtual bool Read(uint64_t offset, size_t n, void* dst) = 0;
};

namespace {

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  uint64_t size() const override { return data_.size(); }
  bool Read(uint64_t offset, size_t n, void* dst) override {
    if (offset > data_.size() || n > data_.size() - offset) return false;
    std::memcpy(dst, data_.data() + offset, n);
    return true;
  }

 private:
  std::string data_;
};

class FileSource : public ByteSource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  bool Read(uint64_t offset, size_t n, void* dst) override {
    auto* out = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t r = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      out += r;
      offset += static_cast<uint64_t>(r);
      n -= static_cast<size_t>(r);
    }
    return true;
  }

 private:
  int fd_;
  uint64_t size_;
};

uint64_t Round8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

}  // namespace

RawCaptureReader::RawCaptureReader(std::unique_ptr<ByteSource> source, std::string name)
    : source_(std::move(source)), name_(std::move(name)) {
  stats_.file_size = source_->size();
}

RawCaptureReader::~RawCaptureReader() = default;

absl::StatusOr<std::unique_ptr<RawCaptureReader>> RawCaptureReader::Open(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::UnavailableError(absl::StrCat(path, ": cannot open: ", std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return absl::UnavailableError(absl::StrCat(path, ": cannot stat: ", std::strerror(err)));
  }
  std::unique_ptr<RawCaptureReader> reader(new RawCaptureReader(
      std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size)), path));
  TBPROF_RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

absl::StatusOr<std::unique_ptr<RawCaptureReader>> RawCaptureReader::FromString(
    std::string data, std::string name) {
  std::unique_ptr<RawCaptureReader> reader(
      new RawCaptureReader(std::make_unique<StringSource>(std::move(data)), std::move(name)));
  TBPROF_RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

void RawCaptureReader::Problem(std::string text) {
  if (stats_.problems.size() < ReadStats::kMaxProblems) {
    stats_.problems.push_back(std::move(text));
  }
}

absl::Status RawCaptureReader::ReadHeader() {
  const uint64_t size = source_->size();
  char magic[sizeof(kFileMagic)];
  if (size < sizeof(magic)) {
    return absl::DataLossError(absl::StrCat(name_, ": file has ", size,
                                            " bytes, too short for a raw capture header"));
  }
  if (!source_->Read(0, sizeof(magic), magic)) {
    return absl::UnavailableError(absl::StrCat(name_, ": read error at offset 0"));
  }
  if (std::memcmp(magic, kFileMagic, sizeof(magic)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": not a tbprof raw capture (bad magic at offset 0)"));
  }
  uint32_t type = 0;
  uint64_t total = TryChunkAt(sizeof(magic), &type);
  if (total == 0) {
    return absl::DataLossError(absl::StrCat(
        name_, ": header chunk at offset 8 is truncated or corrupt (file size ", size, ")"));
  }
  if (type != static_cast<uint32_t>(ChunkType::kHeader)) {
    return absl::DataLossError(
        absl::StrCat(name_, ": first chunk at offset 8 has type ", type, ", expected header"));
  }
  std::string_view payload(reinterpret_cast<const char*>(payload_.data()), payload_size_);
  if (!DecodeHeader(payload, &header_)) {
    return absl::DataLossError(
        absl::StrCat(name_, ": header chunk at offset 8 is too short (", payload_size_,
                     " bytes)"));
  }
  if (header_.format_major != kFormatMajor) {
    return absl::UnimplementedError(absl::StrCat(name_, ": raw capture format ",
                                                 header_.format_major, ".",
                                                 header_.format_minor, " is not supported"));
  }
  pos_ = sizeof(magic) + total;
  stats_.chunks_read = 1;
  return absl::OkStatus();
}

uint64_t RawCaptureReader::TryChunkAt(uint64_t offset, uint32_t* type) {
  const uint64_t size = source_->size();
  if (offset > size || size - offset < kChunkHeaderSize) return 0;
  uint32_t hdr[4];
  if (!source_->Read(offset, sizeof(hdr), hdr)) return 0;
  if (hdr[0] != kChunkTag || hdr[2] > kMaxPayloadSize) return 0;
  uint64_t total = kChunkHeaderSize + Round8(hdr[2]);
  if (total > size - offset) return 0;
  payload_.resize(Round8(hdr[2]) / 8 + 1);
  if (!source_->Read(offset + kChunkHeaderSize, hdr[2], payload_.data())) return 0;
  std::string_view payload(reinterpret_cast<const char*>(payload_.data()), hdr[2]);
  if (ChunkCrc(hdr[1], payload) != hdr[3]) return 0;
  payload_size_ = hdr[2];
  *type = hdr[1];
  return total;
}

uint64_t RawCaptureReader::FindNextChunk(uint64_t from) {
  const uint64_t size = source_->size();
  uint64_t off = Round8(from);
  constexpr size_t kWindow = 1 << 16;
  std::vector<uint32_t> window(kWindow / 4);
  while (off + kChunkHeaderSize <= size) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kWindow, size - off)) & ~size_t{7};
    if (n == 0 || !source_->Read(off, n, window.data())) break;
    for (size_t i = 0; i < n / 4; i += 2) {
      if (window[i] != kChunkTag) continue;
      uint32_t type;
      if (TryChunkAt(off + i * 4, &type) != 0) return off + i * 4;
    }
    off += n;
  }
  return size;
}

bool RawCaptureReader::Next(Chunk* chunk) {
  const uint64_t size = source_->size();
  while (pos_ < size) {
    const uint64_t remaining = size - pos_;
    uint32_t hdr[4] = {0, 0, 0, 0};
    if (remaining < kChunkHeaderSize || !source_->Read(pos_, sizeof(hdr), hdr)) {
      stats_.truncated_bytes += remaining;
      Problem(absl::StrCat(name_, ": truncated chunk header at offset ", pos_, " (",
                           remaining, " bytes lost)"));
      pos_ = size;
      break;
    }
    const bool header_ok = hdr[0] == kChunkTag && hdr[2] <= kMaxPayloadSize;
    const uint64_t total = kChunkHeaderSize + Round8(hdr[2]);
    if (header_ok && total > remaining) {
      // Either the last chunk was cut short, or its length is corrupt.
      uint64_t next = FindNextChunk(pos_ + 8);
      if (next >= size) {
        stats_.truncated_bytes += remaining;
        Problem(absl::StrCat(name_, ": truncated chunk (type ", hdr[1], ") at offset ", pos_,
                             ": ", remaining, " of ", total, " bytes present"));
        pos_ = size;
        break;
      }
      stats_.corrupt_chunks++;
      stats_.skipped_bytes += next - pos_;
      Problem(absl::StrCat(name_, ": chunk at offset ", pos_, " has a bad length; skipped ",
                           next - pos_, " bytes"));
      pos_ = next;
      continue;
    }
    if (!header_ok) {
      uint64_t next = FindNextChunk(pos_ + 8);
      stats_.corrupt_chunks++;
      stats_.skipped_bytes += next - pos_;
      Problem(absl::StrCat(name_, ": bad chunk header at offset ", pos_, "; skipped ",
                           next - pos_, " bytes"));
      pos_ = next;
      continue;
    }
    uint32_t type = 0;
    if (TryChunkAt(pos_, &type) == 0) {
      stats_.corrupt_chunks++;
      stats_.skipped_bytes += total;
      Problem(absl::StrCat(name_, ": CRC mismatch in chunk (type ", hdr[1], ") at offset ",
                           pos_, "; skipped ", total, " bytes"));
      pos_ += total;
      continue;
    }
    chunk->type = type;
    chunk->offset = pos_;
    chunk->payload =
        std::string_view(reinterpret_cast<const char*>(payload_.data()), payload_size_);
    pos_ += total;
    stats_.chunks_read++;
    if (type == static_cast<uint32_t>(ChunkType::kTrailer)) stats_.has_trailer = true;
    return true;
  }
  return false;
}

std::string RawCaptureReader::LossSummary() const {
  std::string out;
  if (stats_.lost_anything()) {
    out = absl::StrCat(name_, ": ", stats_.corrupt_chunks, " corrupt chunk(s), ",
                       stats_.skipped_bytes, " bytes skipped, ", stats_.truncated_bytes,
                       " bytes truncated at the end");
    if (!stats_.problems.empty()) absl::StrAppend(&out, "; first: ", stats_.problems[0]);
  }
  if (!stats_.has_trailer && pos_ >= stats_.file_size) {
    absl::StrAppend(&out, out.empty() ? absl::StrCat(name_, ": ") : "; ",
                    "no trailer (the process ended without closing the capture)");
  }
  return out;
}

}  // namespace tbprof::capture
