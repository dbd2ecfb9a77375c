#include "tools/bench/floor.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "simdjson.h"
#include "src/base/status_macros.h"

namespace tbprof::bench {

static_assert(PaddedBuffer::kPadding == simdjson::SIMDJSON_PADDING,
              "PaddedBuffer must pad as simdjson requires");

namespace ondemand = simdjson::ondemand;

namespace {

absl::Status ErrnoStatus(int err, const std::string& path, absl::string_view what) {
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

// An open file descriptor, closed on destruction.
class Fd {
 public:
  static absl::StatusOr<Fd> Open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, path, "cannot open");
    return Fd(fd);
  }
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  explicit Fd(int fd) : fd_(fd) {}
  int fd_;
};

// Reads up to `capacity` bytes (fewer only at end of file).
absl::StatusOr<size_t> ReadFully(int fd, const std::string& path, char* buffer, size_t capacity) {
  size_t done = 0;
  while (done < capacity) {
    ssize_t n = ::read(fd, buffer + done, capacity - done);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, path, "read failed");
    }
    done += static_cast<size_t>(n);
  }
  return done;
}

// ---------------------------------------------------------------- visiting

// Recursive On-Demand walk. Returns simdjson error codes (no exceptions);
// the public function turns them into a Status with an offset.
class Visitor {
 public:
  explicit Visitor(VisitCounts* counts) : c_(counts) {}

  simdjson::error_code Value(ondemand::value value) {
    ondemand::json_type type;
    SIMDJSON_TRY(value.type().get(type));
    switch (type) {
      case ondemand::json_type::object: {
        ondemand::object object;
        SIMDJSON_TRY(value.get_object().get(object));
        return Object(object);
      }
      case ondemand::json_type::array: {
        ondemand::array array;
        SIMDJSON_TRY(value.get_array().get(array));
        for (auto element : array) {
          ondemand::value v;
          SIMDJSON_TRY(element.get(v));
          SIMDJSON_TRY(Value(v));
        }
        return simdjson::SUCCESS;
      }
      case ondemand::json_type::number:
        return Number(value);
      case ondemand::json_type::string: {
        std::string_view text;
        SIMDJSON_TRY(value.get_string().get(text));
        ++c_->strings;
        c_->string_bytes += text.size();
        return simdjson::SUCCESS;
      }
      case ondemand::json_type::boolean: {
        bool b;
        SIMDJSON_TRY(value.get_bool().get(b));
        (void)b;
        ++c_->literals;
        return simdjson::SUCCESS;
      }
      case ondemand::json_type::null: {
        bool is_null;
        SIMDJSON_TRY(value.is_null().get(is_null));
        if (!is_null) return simdjson::INCORRECT_TYPE;
        ++c_->literals;
        return simdjson::SUCCESS;
      }
    }
    return simdjson::INCORRECT_TYPE;
  }

  // Every key/value pair of `object`, counted in `fields`.
  simdjson::error_code Object(ondemand::object object) {
    for (auto field : object) {
      std::string_view key;
      SIMDJSON_TRY(field.unescaped_key().get(key));
      ++c_->fields;
      c_->key_bytes += key.size();
      ondemand::value v;
      SIMDJSON_TRY(field.value().get(v));
      SIMDJSON_TRY(Value(v));
    }
    return simdjson::SUCCESS;
  }

  // The elements of traceEvents (or of a bare array), counted as events.
  simdjson::error_code Events(ondemand::array events) {
    for (auto element : events) {
      ondemand::value v;
      SIMDJSON_TRY(element.get(v));
      ++c_->events;
      SIMDJSON_TRY(Value(v));
    }
    return simdjson::SUCCESS;
  }

 private:
  simdjson::error_code Number(ondemand::value value) {
    // Peeking at the token does not consume the value.
    std::string_view raw = value.raw_json_token();
    ondemand::number number;
    if (value.get_number().get(number) != simdjson::SUCCESS) {
      // Too large for 64 bits (or otherwise unconvertible): keep the text,
      // as a converter keeps the digits of a > int64 id.
      ++c_->raw_numbers;
      c_->string_bytes += raw.size();
      return simdjson::SUCCESS;
    }
    ++c_->numbers;
    switch (number.get_number_type()) {
      case ondemand::number_type::signed_integer:
        c_->number_sum += static_cast<double>(number.get_int64());
        break;
      case ondemand::number_type::unsigned_integer:
        c_->number_sum += static_cast<double>(number.get_uint64());
        break;
      case ondemand::number_type::floating_point_number:
        c_->number_sum += number.get_double();
        break;
    }
    return simdjson::SUCCESS;
  }

  VisitCounts* c_;
};

absl::Status JsonError(simdjson::error_code error, ondemand::document& doc, const char* begin) {
  std::string where;
  const char* location = nullptr;
  if (doc.current_location().get(location) == simdjson::SUCCESS && location != nullptr) {
    where = absl::StrCat(" at byte ", location - begin);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("simdjson: ", simdjson::error_message(error), where));
}

}  // namespace

// ---------------------------------------------------------------- PaddedBuffer

PaddedBuffer::~PaddedBuffer() { std::free(data_); }

bool PaddedBuffer::Reserve(size_t bytes) {
  if (bytes <= capacity_ && data_ != nullptr) return true;
  void* grown = std::realloc(data_, bytes + kPadding);
  if (grown == nullptr) return false;
  data_ = static_cast<char*>(grown);
  capacity_ = bytes;
  std::memset(data_ + capacity_, 0, kPadding);
  return true;
}

bool PaddedBuffer::Append(absl::string_view text) {
  if (size_ + text.size() > capacity_ || data_ == nullptr) {
    size_t want = std::max(size_ + text.size(), capacity_ + capacity_ / 2 + (1 << 16));
    if (!Reserve(want)) return false;
  }
  if (!text.empty()) std::memcpy(data_ + size_, text.data(), text.size());
  size_ += text.size();
  return true;
}

// ---------------------------------------------------------------- files

absl::StatusOr<bool> IsGzipFile(const std::string& path) {
  TBPROF_ASSIGN_OR_RETURN(Fd fd, Fd::Open(path));
  unsigned char magic[2] = {0, 0};
  TBPROF_ASSIGN_OR_RETURN(size_t n,
                          ReadFully(fd.get(), path, reinterpret_cast<char*>(magic), 2));
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

uint64_t GzipSizeHint(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  unsigned char tail[4];
  uint64_t size = 0;
  if (::fstat(fd, &st) == 0 && st.st_size >= 18 &&
      ::pread(fd, tail, 4, st.st_size - 4) == 4) {
    size = uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 |
           uint64_t{tail[3]} << 24;
  }
  ::close(fd);
  return size;
}

namespace {

// The inflate loop of InflateGzipFile() and InflateGzipFileToBuffer().
// `next_out(&size)` gives where the next output goes and how much fits;
// `produced(n)` is told how many bytes landed there.
template <typename NextOut, typename Produced>
absl::StatusOr<InflateStats> InflateLoop(const std::string& path, size_t chunk_bytes,
                                         NextOut next_out, Produced produced) {
  TBPROF_ASSIGN_OR_RETURN(Fd fd, Fd::Open(path));
  std::vector<uint8_t> in(chunk_bytes);
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_GZIP;

  InflateStats stats;
  bool in_member = false;  // Inside a member whose end has not been seen.
  bool eof = false;
  while (true) {
    if (state->avail_in == 0 && !eof) {
      TBPROF_ASSIGN_OR_RETURN(
          size_t n, ReadFully(fd.get(), path, reinterpret_cast<char*>(in.data()), in.size()));
      eof = n < in.size();
      stats.compressed_bytes += n;
      state->next_in = in.data();
      state->avail_in = static_cast<uint32_t>(n);
    }
    if (state->avail_in == 0 && eof) break;
    if (state->block_state == ISAL_BLOCK_FINISH) {
      // Another gzip member follows (concatenated .gz files).
      isal_inflate_reset(state.get());
      state->crc_flag = ISAL_GZIP;
    }
    in_member = true;
    size_t capacity = 0;
    TBPROF_ASSIGN_OR_RETURN(uint8_t* out, next_out(&capacity));
    state->next_out = out;
    state->avail_out = static_cast<uint32_t>(std::min<size_t>(capacity, 1u << 30));
    const uint32_t avail_before = state->avail_out;
    int rc = isal_inflate(state.get());
    if (rc != ISAL_DECOMP_OK) {
      return absl::DataLossError(absl::StrCat(
          path, ": corrupt gzip data at compressed byte ",
          stats.compressed_bytes - state->avail_in, " (ISA-L error ", rc, ")"));
    }
    size_t n = avail_before - state->avail_out;
    if (n > 0) {
      stats.inflated_bytes += n;
      TBPROF_RETURN_IF_ERROR(produced(out, n));
    }
    if (state->block_state == ISAL_BLOCK_FINISH) in_member = false;
  }
  if (in_member) {
    return absl::DataLossError(absl::StrCat(path, ": truncated gzip: input ends at byte ",
                                            stats.compressed_bytes,
                                            " in the middle of a compressed stream"));
  }
  return stats;
}

}  // namespace

absl::StatusOr<InflateStats> InflateGzipFile(
    const std::string& path, size_t chunk_bytes,
    const std::function<absl::Status(absl::string_view)>& sink) {
  std::vector<uint8_t> out(chunk_bytes);
  return InflateLoop(
      path, chunk_bytes,
      [&](size_t* capacity) -> absl::StatusOr<uint8_t*> {
        *capacity = out.size();
        return out.data();
      },
      [&](const uint8_t* data, size_t n) {
        return sink(absl::string_view(reinterpret_cast<const char*>(data), n));
      });
}

absl::StatusOr<InflateStats> InflateGzipFileToBuffer(const std::string& path,
                                                     size_t chunk_bytes, PaddedBuffer* out) {
  out->Clear();
  return InflateLoop(
      path, chunk_bytes,
      [&](size_t* capacity) -> absl::StatusOr<uint8_t*> {
        // Grows only when nearly full, so a buffer reserved to the exact
        // size is never reallocated.
        constexpr size_t kMinSpare = 64 << 10;
        if (out->capacity() - out->size() < kMinSpare &&
            !out->Reserve(std::max(out->size() + chunk_bytes, out->capacity() * 2))) {
          return absl::ResourceExhaustedError(absl::StrCat(path, ": out of memory"));
        }
        *capacity = out->capacity() - out->size();
        return reinterpret_cast<uint8_t*>(out->spare());
      },
      [&](const uint8_t*, size_t n) {
        out->Extend(n);
        return absl::OkStatus();
      });
}

absl::Status ReadFileToPaddedBuffer(const std::string& path, PaddedBuffer* out) {
  TBPROF_ASSIGN_OR_RETURN(Fd fd, Fd::Open(path));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, path, "cannot stat");
  out->Clear();
  if (!out->Reserve(static_cast<size_t>(st.st_size))) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": out of memory"));
  }
  while (true) {
    // Grows only when the file is larger than it was at fstat time.
    if (out->size() == out->capacity() && !out->Reserve(out->capacity() * 2 + 4096)) {
      return absl::ResourceExhaustedError(absl::StrCat(path, ": out of memory"));
    }
    TBPROF_ASSIGN_OR_RETURN(
        size_t n, ReadFully(fd.get(), path, out->spare(), out->capacity() - out->size()));
    if (n == 0) break;
    out->Extend(n);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- visit

absl::StatusOr<VisitCounts> VisitTraceEvents(const PaddedBuffer& json) {
  VisitCounts counts;
  ondemand::parser parser;
  ondemand::document doc;
  const char* begin = json.data() != nullptr ? json.data() : "";
  simdjson::padded_string_view view(begin, json.size(), json.size() + PaddedBuffer::kPadding);
  if (json.data() == nullptr) {
    return absl::InvalidArgumentError("simdjson: empty document");
  }
  simdjson::error_code error = parser.iterate(view).get(doc);
  if (error) return absl::InvalidArgumentError(absl::StrCat("simdjson: ", simdjson::error_message(error)));

  Visitor visitor(&counts);
  ondemand::json_type type;
  error = doc.type().get(type);
  if (!error && type == ondemand::json_type::array) {
    ondemand::array events;
    error = doc.get_array().get(events);
    if (!error) error = visitor.Events(events);
  } else if (!error && type == ondemand::json_type::object) {
    ondemand::object top;
    error = doc.get_object().get(top);
    if (!error) {
      for (auto field : top) {
        std::string_view key;
        if ((error = field.unescaped_key().get(key))) break;
        ondemand::value value;
        if ((error = field.value().get(value))) break;
        if (key == "traceEvents") {
          ondemand::array events;
          if ((error = value.get_array().get(events))) break;
          if ((error = visitor.Events(events))) break;
        } else {
          ++counts.members;
          if ((error = visitor.Value(value))) break;
        }
      }
    }
  } else if (!error) {
    error = simdjson::INCORRECT_TYPE;
  }
  if (error) return JsonError(error, doc, begin);
  // Past the last token current_location() says OUT_OF_BOUNDS; a location
  // means text after the trace.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(
        "simdjson: ", simdjson::error_message(simdjson::TRAILING_CONTENT), " at byte ",
        rest - begin));
  }
  return counts;
}

}  // namespace tbprof::bench
