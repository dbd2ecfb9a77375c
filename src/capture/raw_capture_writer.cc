#include "src/capture/raw_capture_writer.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace tbprof::capture {
namespace {

constexpr size_t kPendingFlushBytes = 64 * 1024;
constexpr char kZeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};

size_t PadFor(size_t payload_size) { return (8 - payload_size % 8) % 8; }

}  // namespace

std::unique_ptr<RawCaptureWriter> RawCaptureWriter::Create(const std::string& path,
                                                           const CaptureHeader& header,
                                                           int* error_errno) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error_errno = errno;
    return nullptr;
  }
  return FromFd(fd, header, error_errno);
}

std::unique_ptr<RawCaptureWriter> RawCaptureWriter::FromFd(int fd, const CaptureHeader& header,
                                                           int* error_errno) {
  std::unique_ptr<RawCaptureWriter> w(new RawCaptureWriter(fd));
  if (!w->Start(header)) {
    *error_errno = w->error();
    return nullptr;
  }
  *error_errno = 0;
  return w;
}

RawCaptureWriter::~RawCaptureWriter() {
  if (fd_ >= 0) {
    Flush();
    ::close(fd_);
  }
}

bool RawCaptureWriter::Start(const CaptureHeader& header) {
  pending_.append(kFileMagic, sizeof(kFileMagic));
  bytes_ += sizeof(kFileMagic);
  if (!AppendChunk(ChunkType::kHeader, EncodeHeader(header))) return false;
  return Flush();
}

bool RawCaptureWriter::WriteAll(const ::iovec* iov_in, int iovcnt) {
  struct iovec iov[8];
  if (iovcnt > 8) {
    error_ = EINVAL;
    return false;
  }
  for (int i = 0; i < iovcnt; ++i) iov[i] = iov_in[i];
  int first = 0;
  while (first < iovcnt) {
    ssize_t n = ::writev(fd_, iov + first, iovcnt - first);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    auto left = static_cast<size_t>(n);
    while (first < iovcnt && left >= iov[first].iov_len) {
      left -= iov[first].iov_len;
      ++first;
    }
    if (first < iovcnt) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  return true;
}

bool RawCaptureWriter::Flush() {
  if (error_ != 0 || fd_ < 0) return error_ == 0 && pending_.empty();
  if (pending_.empty()) return true;
  struct iovec iov = {pending_.data(), pending_.size()};
  bool ok = WriteAll(&iov, 1);
  pending_.clear();
  return ok;
}

bool RawCaptureWriter::AppendParts(ChunkType type, const std::string_view* parts,
                                   size_t num_parts) {
  if (error_ != 0 || finished_ || fd_ < 0) {
    if (error_ == 0) error_ = EBADF;
    return false;
  }
  size_t payload_size = 0;
  for (size_t i = 0; i < num_parts; ++i) payload_size += parts[i].size();
  if (payload_size > kMaxPayloadSize) {
    error_ = EFBIG;
    return false;
  }
  uint32_t header[4] = {kChunkTag, static_cast<uint32_t>(type),
                        static_cast<uint32_t>(payload_size), 0};
  uint32_t crc = Crc32(0, &header[1], 8);
  for (size_t i = 0; i < num_parts; ++i) crc = Crc32(crc, parts[i].data(), parts[i].size());
  header[3] = crc;
  size_t pad = PadFor(payload_size);
  size_t total = kChunkHeaderSize + payload_size + pad;

  if (payload_size < kPendingFlushBytes) {
    pending_.append(reinterpret_cast<const char*>(header), sizeof(header));
    for (size_t i = 0; i < num_parts; ++i) pending_.append(parts[i].data(), parts[i].size());
    pending_.append(kZeros, pad);
    ++chunks_;
    bytes_ += total;
    if (pending_.size() >= kPendingFlushBytes) return Flush();
    return true;
  }
  if (!Flush()) return false;
  struct iovec iov[8];
  int n = 0;
  iov[n++] = {header, sizeof(header)};
  for (size_t i = 0; i < num_parts && n < 7; ++i) {
    iov[n++] = {const_cast<char*>(parts[i].data()), parts[i].size()};
  }
  if (pad > 0) iov[n++] = {const_cast<char*>(kZeros), pad};
  if (!WriteAll(iov, n)) return false;
  ++chunks_;
  bytes_ += total;
  return true;
}

bool RawCaptureWriter::AppendChunk(ChunkType type, std::string_view payload) {
  return AppendParts(type, &payload, 1);
}

bool RawCaptureWriter::AppendActivityBuffer(uint32_t stream_id, const void* records,
                                            size_t size) {
  uint32_t prefix[2] = {stream_id, 0};
  std::string_view parts[2] = {
      std::string_view(reinterpret_cast<const char*>(prefix), sizeof(prefix)),
      std::string_view(static_cast<const char*>(records), size)};
  return AppendParts(ChunkType::kActivityBuffer, parts, 2);
}

bool RawCaptureWriter::AppendStrings(const StringEntry* entries, size_t count) {
  // Split so that no chunk exceeds ~1 MiB.
  size_t i = 0;
  while (i < count) {
    std::string payload;
    size_t bytes = 0;
    size_t j = i;
    while (j < count && (j == i || bytes + entries[j].text.size() < (1u << 20))) {
      bytes += entries[j].text.size() + 12;
      ++j;
    }
    EncodeStrings(entries + i, j - i, &payload);
    if (!AppendChunk(ChunkType::kStrings, payload)) return false;
    i = j;
  }
  return true;
}

bool RawCaptureWriter::AppendDeviceProperties(const DeviceProperties& p) {
  return AppendChunk(ChunkType::kDeviceProperties, EncodeDeviceProperties(p));
}
bool RawCaptureWriter::AppendThreadNames(const std::vector<ThreadName>& names) {
  return AppendChunk(ChunkType::kThreadNames, EncodeThreadNames(names));
}
bool RawCaptureWriter::AppendDroppedRecords(const DroppedRecords& d) {
  return AppendChunk(ChunkType::kDroppedRecords, EncodeDroppedRecords(d));
}
bool RawCaptureWriter::AppendMarker(const Marker& m) {
  return AppendChunk(ChunkType::kMarker, EncodeMarker(m));
}
bool RawCaptureWriter::AppendClockSample(const ClockSample& c) {
  return AppendChunk(ChunkType::kClockCalibration, EncodeClockSample(c));
}
bool RawCaptureWriter::AppendKindSizes(const std::vector<KindSize>& sizes) {
  return AppendChunk(ChunkType::kKindSizes, EncodeKindSizes(sizes));
}
bool RawCaptureWriter::AppendCallbackNames(const std::vector<CallbackName>& names) {
  return AppendChunk(ChunkType::kCallbackNames, EncodeCallbackNames(names));
}
bool RawCaptureWriter::AppendMessage(const Message& m) {
  return AppendChunk(ChunkType::kMessage, EncodeMessage(m));
}

bool RawCaptureWriter::Finish(Trailer trailer) {
  trailer.chunks = chunks_;
  if (!AppendChunk(ChunkType::kTrailer, EncodeTrailer(trailer))) return false;
  if (!Flush()) return false;
  finished_ = true;
  bool ok = true;
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
    error_ = errno;
    ok = false;
  }
  if (::close(fd_) != 0 && ok) {
    error_ = errno;
    ok = false;
  }
  fd_ = -1;
  return ok;
}

}  // namespace tbprof::capture
