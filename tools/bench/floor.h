// The speed floor of a trace file: what the fastest general-purpose libraries
// need to merely read it, with no conversion at all.
//
// The floor of a Kineto trace (DESIGN.md, "Speed") is Intel ISA-L's inflate
// (for gzip input) plus simdjson On-Demand visiting every field of every
// event. tbprof_floor (floor_main.cc) times these pieces in the same run as
// the rest of scripts/benchmark.sh; this library holds the pieces so that the
// counting can be unit-tested on small documents.
#ifndef TBPROF_TOOLS_BENCH_FLOOR_H_
#define TBPROF_TOOLS_BENCH_FLOOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::bench {

// A growable byte buffer that always has kPadding readable bytes after its
// end, as simdjson requires of the text it parses. Growth is geometric
// (realloc), so appending N bytes costs O(N) amortised.
class PaddedBuffer {
 public:
  // simdjson::SIMDJSON_PADDING; checked against it in floor.cc.
  static constexpr size_t kPadding = 64;

  PaddedBuffer() = default;
  PaddedBuffer(PaddedBuffer&& other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  PaddedBuffer(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(PaddedBuffer&&) = delete;
  ~PaddedBuffer();

  // Makes room for at least `bytes` bytes of content (plus the padding).
  // Returns false when memory is exhausted (the buffer is then unchanged).
  bool Reserve(size_t bytes);
  // Appends `text`; false when memory is exhausted.
  bool Append(absl::string_view text);
  // Drops the content, keeps the memory.
  void Clear() { size_ = 0; }
  // The capacity() - size() writable bytes after the content, for reading
  // into the buffer in place; Extend(n) then adds the first n of them to the
  // content (n <= capacity() - size()).
  char* spare() { return data_ + size_; }
  void Extend(size_t n) { size_ += n; }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // Bytes of content the buffer holds without growing (padding excluded).
  size_t capacity() const { return capacity_; }

 private:
  char* data_ = nullptr;  // malloc'd; capacity_ + kPadding bytes.
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Byte counts of one inflate.
struct InflateStats {
  uint64_t compressed_bytes = 0;  // gzip bytes read from the file
  uint64_t inflated_bytes = 0;    // bytes handed to the sink
};

// True when the file at `path` begins with the gzip magic bytes 1f 8b.
// Errors: kNotFound / kPermissionDenied / kUnavailable when it cannot be read.
absl::StatusOr<bool> IsGzipFile(const std::string& path);

// The uncompressed size a gzip file announces in its trailer (ISIZE: the size
// modulo 2^32 of its last member), usable only as a hint for reserving
// memory; 0 if unknown.
uint64_t GzipSizeHint(const std::string& path);

// Inflates the gzip file `path` (concatenated members allowed) with ISA-L,
// reading and inflating in pieces of `chunk_bytes`, and hands each piece of
// output to `sink` in order. Memory is two buffers of `chunk_bytes` plus
// ISA-L's state, whatever the file size. Every member's CRC-32 is checked.
// Errors: those of opening and reading `path`; kDataLoss naming the file and
// the compressed byte offset for corrupt or truncated data; an error of
// `sink` stops the inflate and is returned unchanged.
absl::StatusOr<InflateStats> InflateGzipFile(
    const std::string& path, size_t chunk_bytes,
    const std::function<absl::Status(absl::string_view)>& sink);

// Inflates like InflateGzipFile() straight into `out` (replacing its
// content), growing it geometrically unless Reserve() made it large enough
// beforehand (GzipSizeHint()). Same errors, plus kResourceExhausted when
// memory runs out.
absl::StatusOr<InflateStats> InflateGzipFileToBuffer(const std::string& path,
                                                     size_t chunk_bytes, PaddedBuffer* out);

// Reads the whole file `path` (plain, not inflated) into `out`, replacing
// its content. Errors: those of opening and reading `path`;
// kResourceExhausted when memory runs out.
absl::Status ReadFileToPaddedBuffer(const std::string& path, PaddedBuffer* out);

// What VisitTraceEvents() saw. The sums exist so that the compiler cannot
// drop the work of converting numbers and unescaping strings.
struct VisitCounts {
  uint64_t events = 0;          // elements of traceEvents (or of a bare array)
  uint64_t fields = 0;          // key/value pairs inside events, nested objects included
  uint64_t members = 0;         // top-level members other than traceEvents
  uint64_t numbers = 0;         // numbers converted (int64, uint64 or double)
  uint64_t raw_numbers = 0;     // numbers simdjson could not convert (e.g. > 64 bits), kept as text
  uint64_t strings = 0;         // string values unescaped (keys not included)
  uint64_t string_bytes = 0;    // their unescaped bytes
  uint64_t key_bytes = 0;       // unescaped bytes of the keys below the top level
  uint64_t literals = 0;        // true, false and null
  double number_sum = 0;        // sum of every converted number
};

// Parses `json` (a Chrome trace: an object with "traceEvents", or a bare array
// of events) with simdjson On-Demand and visits every value of the document:
// every key is unescaped, every number converted (get_int64 / get_uint64 /
// get_double by its type, the raw token when it does not fit), every string
// unescaped, nested objects and arrays walked recursively. Members other
// than traceEvents are visited too but not counted as events. `json` must
// stay unchanged during the call.
// Errors: kInvalidArgument with simdjson's message and the byte offset for
// text that is not JSON or not a trace (e.g. a number at the top level).
absl::StatusOr<VisitCounts> VisitTraceEvents(const PaddedBuffer& json);

}  // namespace tbprof::bench

#endif  // TBPROF_TOOLS_BENCH_FLOOR_H_
