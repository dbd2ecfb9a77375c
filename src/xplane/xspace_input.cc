// XSpaceInput (the bytes of an XSpace file: mapped, read or borrowed) and the
// UTF-8 check of the wire reader (xspace_wire_reader.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_wire_parser.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::xplane {

// ---- XSpaceInput -------------------------------------------------------------------------------

namespace {

using wire_internal::PageSize;

std::string ErrnoText(absl::string_view what, const std::string& path) {
  return absl::StrCat(path, ": ", what, ": ", std::strerror(errno));
}

}  // namespace

uint64_t wire_internal::PageSize() {
  static const uint64_t size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

XSpaceInput::~XSpaceInput() {
  if (storage_ != Storage::kBorrowed && data_ != nullptr) ::munmap(data_, capacity_);
}

std::unique_ptr<XSpaceInput> XSpaceInput::FromBytes(absl::string_view bytes,
                                                    absl::string_view source) {
  std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kBorrowed, std::string(source)));
  input->data_ = const_cast<char*>(bytes.data());
  input->size_ = bytes.size();
  return input;
}

absl::StatusOr<std::unique_ptr<XSpaceInput>> XSpaceInput::Open(const std::string& path,
                                                               const InputStreamOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenInputStream(path, options));
  struct stat st;
  const bool regular = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (!stream->is_gzip() && regular) {
    std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kMapped, path));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::UnavailableError(ErrnoText("cannot open", path));
    struct stat fst;
    if (::fstat(fd, &fst) != 0) {
      absl::Status status = absl::UnavailableError(ErrnoText("cannot stat", path));
      ::close(fd);
      return status;
    }
    input->size_ = static_cast<uint64_t>(fst.st_size);
    if (input->size_ > 0) {
      void* map = ::mmap(nullptr, input->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED) {
        absl::Status status = absl::UnavailableError(ErrnoText("cannot map", path));
        ::close(fd);
        return status;
      }
      input->data_ = static_cast<char*>(map);
      input->capacity_ = input->size_;
    }
    ::close(fd);
    return input;
  }
  std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kAnonymous, path));
  input->is_gzip_ = stream->is_gzip();
  TBPROF_RETURN_IF_ERROR(input->ReadStream(stream.get()));
  return input;
}

absl::Status XSpaceInput::ReadStream(InputStream* stream) {
  const uint64_t page = PageSize();
  uint64_t want = std::clamp<uint64_t>(stream->file_size() * (is_gzip_ ? 8 : 1), uint64_t{4} << 20,
                                       uint64_t{1} << 30);
  capacity_ = (want + page - 1) / page * page;
  void* map = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) {
    capacity_ = 0;
    return absl::UnavailableError(ErrnoText("cannot allocate a read buffer", source_));
  }
  data_ = static_cast<char*>(map);
  for (;;) {
    if (size_ == capacity_) {
      void* grown = ::mremap(data_, capacity_, capacity_ * 2, MREMAP_MAYMOVE);
      if (grown == MAP_FAILED) {
        return absl::UnavailableError(ErrnoText("cannot grow the read buffer", source_));
      }
      data_ = static_cast<char*>(grown);
      capacity_ *= 2;
    }
    TBPROF_ASSIGN_OR_RETURN(size_t n, stream->Read(data_ + size_, capacity_ - size_));
    if (n == 0) break;
    size_ += n;
  }
  return absl::OkStatus();
}

void XSpaceInput::ReleaseBefore(uint64_t offset) {
  if (storage_ == Storage::kBorrowed || data_ == nullptr) return;
  const uint64_t page = PageSize();
  uint64_t end = std::min(offset, size_) / page * page;
  if (end <= released_) return;
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

void XSpaceInput::ReleaseRange(uint64_t begin, uint64_t end) const {
  if (storage_ == Storage::kBorrowed || data_ == nullptr) return;
  const uint64_t page = PageSize();
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end <= begin) return;
  ::madvise(data_ + begin, end - begin, MADV_DONTNEED);
}

// ---- UTF-8 -------------------------------------------------------------------------------------

bool IsValidUtf8(absl::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t* end = p + s.size();
  while (p < end) {
    // ASCII runs, 8 bytes at a time.
    while (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if (word & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p == end) break;
    uint8_t c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;  // Continuation byte, overlong lead (C0, C1) or past F4.
    }
    if (end - p < len) return false;
    for (int i = 1; i < len; ++i) {
      uint8_t cc = p[i];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    p += len;
  }
  return true;
}

}  // namespace tbprof::xplane
