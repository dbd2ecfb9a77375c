// Append-only writer of raw capture files (docs/raw_capture_format.md).
//
// Every chunk is complete on disk before the next one starts, so a process
// killed mid-capture leaves a file whose complete chunks are all readable.
// The writer is used by one thread at a time (the collector's writer thread).
//
// NOTE: this class is linked into the injected collector library, which must
// not pull absl/protobuf into arbitrary jobs, so errors are reported as errno
// values (error()) instead of absl::Status. After the first failed write every
// Append* returns false and writes nothing.
#ifndef TBPROF_SRC_CAPTURE_RAW_CAPTURE_WRITER_H_
#define TBPROF_SRC_CAPTURE_RAW_CAPTURE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/uio.h>

#include "src/capture/capture_records.h"

namespace tbprof::capture {

class RawCaptureWriter {
 public:
  // Creates `path` exclusively (fails with EEXIST if it exists) and writes the
  // magic and the header chunk. Returns nullptr and sets *error_errno on error.
  static std::unique_ptr<RawCaptureWriter> Create(const std::string& path,
                                                  const CaptureHeader& header,
                                                  int* error_errno);
  // Wraps an already open file descriptor (takes ownership) and writes the
  // magic and header. Used by tests and fuzzers.
  static std::unique_ptr<RawCaptureWriter> FromFd(int fd, const CaptureHeader& header,
                                                  int* error_errno);

  ~RawCaptureWriter();  // Flushes what is buffered and closes; no trailer.
  RawCaptureWriter(const RawCaptureWriter&) = delete;
  RawCaptureWriter& operator=(const RawCaptureWriter&) = delete;

  // Appends one raw CUPTI activity buffer: `size` bytes of back-to-back
  // records (name pointers already rewritten to string ids by the caller).
  // Written immediately (with any buffered small chunks before it).
  bool AppendActivityBuffer(uint32_t stream_id, const void* records, size_t size);
  bool AppendStrings(const StringEntry* entries, size_t count);
  bool AppendDeviceProperties(const DeviceProperties& p);
  bool AppendThreadNames(const std::vector<ThreadName>& names);
  bool AppendDroppedRecords(const DroppedRecords& d);
  bool AppendMarker(const Marker& m);
  bool AppendClockSample(const ClockSample& c);
  bool AppendKindSizes(const std::vector<KindSize>& sizes);
  bool AppendMessage(const Message& m);
  bool AppendCallbackNames(const std::vector<CallbackName>& names);
  // Appends any chunk; payloads above kMaxPayloadSize fail with EFBIG.
  bool AppendChunk(ChunkType type, std::string_view payload);

  // Writes buffered small chunks to the file (no fsync).
  bool Flush();
  // Appends the trailer (its `chunks` field is filled in), flushes, fsyncs and
  // closes. Later calls fail.
  bool Finish(Trailer trailer);

  uint64_t chunks_written() const { return chunks_; }
  uint64_t bytes_written() const { return bytes_; }
  int error() const { return error_; }

 private:
  explicit RawCaptureWriter(int fd) : fd_(fd) {}
  bool Start(const CaptureHeader& header);
  // Appends a chunk whose payload is the concatenation of `parts`.
  bool AppendParts(ChunkType type, const std::string_view* parts, size_t num_parts);
  bool WriteAll(const ::iovec* iov, int iovcnt);

  int fd_ = -1;
  int error_ = 0;
  bool finished_ = false;
  uint64_t chunks_ = 0;
  uint64_t bytes_ = 0;
  std::string pending_;  // small chunks not yet written
};

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_RAW_CAPTURE_WRITER_H_
