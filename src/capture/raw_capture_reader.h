// Reads raw capture files (docs/raw_capture_format.md) without libcupti.
//
// RawCaptureReader streams chunks; it recovers from damage instead of
// failing: a chunk with a bad CRC is skipped, garbage is skipped by scanning
// for the next valid chunk, and a truncated tail (a job killed mid-write)
// ends the stream. stats() says what was lost and where. Only a missing or
// broken file header is an error (kDataLoss).
#ifndef TBPROF_SRC_CAPTURE_RAW_CAPTURE_READER_H_
#define TBPROF_SRC_CAPTURE_RAW_CAPTURE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include <string_view>
#include "src/capture/capture_records.h"
#include "src/capture/raw_capture_format.h"

namespace tbprof::capture {

// What a reader had to skip. Byte counts are exact.
struct ReadStats {
  uint64_t file_size = 0;
  uint64_t chunks_read = 0;      // valid chunks, header included
  uint64_t corrupt_chunks = 0;   // chunks dropped for a bad CRC or bad length
  uint64_t skipped_bytes = 0;    // bytes of corrupt chunks and garbage
  uint64_t truncated_bytes = 0;  // incomplete bytes at the end of the file
  bool has_trailer = false;
  // Up to kMaxProblems descriptions, each naming the byte offset.
  std::vector<std::string> problems;
  static constexpr size_t kMaxProblems = 16;

  bool lost_anything() const {
    return corrupt_chunks > 0 || skipped_bytes > 0 || truncated_bytes > 0;
  }
};

// One chunk. `payload` is 8-byte aligned and valid until the next Next().
struct Chunk {
  uint32_t type = 0;             // a ChunkType value, or an unknown one
  uint64_t offset = 0;           // file offset of the chunk header
  std::string_view payload;
};

class ByteSource;

class RawCaptureReader {
 public:
  // Opens `path` and reads its header.
  // Errors: kNotFound (no such file), kInvalidArgument (not a raw capture:
  // wrong magic), kDataLoss (header truncated or corrupt), kUnimplemented
  // (unsupported major format version). Messages name the file and offset.
  static absl::StatusOr<std::unique_ptr<RawCaptureReader>> Open(const std::string& path);
  // Same, over bytes in memory; `name` is used in messages.
  static absl::StatusOr<std::unique_ptr<RawCaptureReader>> FromString(std::string data,
                                                                      std::string name);
  ~RawCaptureReader();
  RawCaptureReader(const RawCaptureReader&) = delete;
  RawCaptureReader& operator=(const RawCaptureReader&) = delete;

  const CaptureHeader& header() const { return header_; }
  const std::string& name() const { return name_; }

  // Returns the next valid chunk after the header; false at the end.
  // Damage is skipped and accounted in stats().
  bool Next(Chunk* chunk);

  const ReadStats& stats() const { return stats_; }
  // One line describing what was lost ("" if nothing), for warnings.
  std::string LossSummary() const;

 private:
  RawCaptureReader(std::unique_ptr<ByteSource> source, std::string name);
  absl::Status ReadHeader();
  // Reads and validates the chunk at `offset`; on success fills the payload
  // buffer and returns the chunk's total size, else 0.
  uint64_t TryChunkAt(uint64_t offset, uint32_t* type);
  // Returns the offset of the next valid chunk at or after `from`, or the
  // file size if there is none.
  uint64_t FindNextChunk(uint64_t from);
  void Problem(std::string text);

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  CaptureHeader header_;
  ReadStats stats_;
  uint64_t pos_ = 0;
  std::vector<uint64_t> payload_;  // 8-byte aligned storage
  uint32_t payload_size_ = 0;
};

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_RAW_CAPTURE_READER_H_
