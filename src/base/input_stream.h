// Sequential byte sources for large inputs: plain files and gzip files.
//
// OpenInputStream() detects gzip by its magic bytes, so callers never care
// whether "trace.json" is compressed. Reads are chunked; nothing holds the
// whole file. Errors name the file and, for damaged gzip, the compressed
// byte offset where inflation failed.
#ifndef TBPROF_SRC_BASE_INPUT_STREAM_H_
#define TBPROF_SRC_BASE_INPUT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof {

// Limits applied while reading.
struct InputStreamOptions {
  // Largest number of bytes a gzip stream may inflate to before reading
  // fails with kResourceExhausted (gzip-bomb guard). 0 means no limit.
  uint64_t max_inflated_bytes = 0;
  // gzip is inflated with Intel ISA-L when the build has it (TBPROF_HAVE_ISAL)
  // and with zlib otherwise; this forces zlib (tests compare the two).
  bool force_zlib = false;
};

class InputStream {
 public:
  virtual ~InputStream() = default;

  // Reads up to `capacity` bytes into `buffer`. Returns the number of bytes
  // read; 0 means end of input. Errors: kDataLoss for truncated/corrupt
  // gzip, kResourceExhausted past max_inflated_bytes, kUnavailable for I/O.
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t capacity) = 0;

  // Bytes consumed from the underlying file so far (compressed bytes for
  // gzip), for progress reporting.
  virtual uint64_t file_bytes_consumed() const = 0;
  // Total size of the underlying file in bytes (0 if unknown).
  virtual uint64_t file_size() const = 0;
  // True when the stream inflates gzip.
  virtual bool is_gzip() const = 0;
  // Path this stream reads, for error messages.
  virtual const std::string& path() const = 0;
};

// Serves bytes held in memory as a plain (not gzip) InputStream, for tests
// and benchmarks. The k-th Read() returns at most read_sizes[k] bytes (the
// last size repeats; no sizes = as much as asked), so a caller controls
// exactly where chunk boundaries fall. path() is `path`.
class MemoryInputStream : public InputStream {
 public:
  // Owns a copy of `data`.
  explicit MemoryInputStream(std::string data, std::vector<size_t> read_sizes = {},
                             std::string path = "memory");
  // Reads `data` in place; it must outlive the stream.
  static std::unique_ptr<MemoryInputStream> Borrowing(absl::string_view data,
                                                      std::vector<size_t> read_sizes = {},
                                                      std::string path = "memory");

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override;
  uint64_t file_bytes_consumed() const override { return pos_; }
  uint64_t file_size() const override { return data_.size(); }
  bool is_gzip() const override { return false; }
  const std::string& path() const override { return path_; }

 private:
  std::string owned_;
  absl::string_view data_;
  std::vector<size_t> read_sizes_;
  size_t calls_ = 0;
  size_t pos_ = 0;
  std::string path_;
};

// Opens `path` for reading; gzip is detected from the first two bytes.
// Errors: kNotFound if the file does not exist, kInvalidArgument if it is a
// directory, kPermissionDenied, kUnavailable for other open failures.
absl::StatusOr<std::unique_ptr<InputStream>> OpenInputStream(
    const std::string& path, const InputStreamOptions& options = {});

// Reads a whole (possibly gzipped) file into memory. Only for inputs known
// to be small (protobuf files, test data).
absl::StatusOr<std::string> ReadFileToString(
    const std::string& path, const InputStreamOptions& options = {});

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_INPUT_STREAM_H_
