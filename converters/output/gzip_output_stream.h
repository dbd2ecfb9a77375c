// Streaming gzip compression into a byte sink, so large outputs (trace JSON
// of millions of events) are compressed as they are produced and never held
// whole in memory. Level 1 uses Intel ISA-L's igzip when tbprof is built with
// it (several times faster than zlib, a standard single-member gzip stream);
// every other level, and builds without ISA-L, use zlib.
//
//   TBPROF_ASSIGN_OR_RETURN(auto gz, GzipOutputStream::Create(
//       [&](absl::string_view bytes) { return file->Append(bytes); }));
//   TBPROF_RETURN_IF_ERROR(gz->Append(chunk));  // any number of times
//   TBPROF_RETURN_IF_ERROR(gz->Finish());
#ifndef TBPROF_CONVERTERS_OUTPUT_GZIP_OUTPUT_STREAM_H_
#define TBPROF_CONVERTERS_OUTPUT_GZIP_OUTPUT_STREAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::views {

// Receives output bytes in order. A non-OK status stops the producer, which
// returns it unchanged.
using ByteSink = std::function<absl::Status(absl::string_view)>;

class GzipOutputStream {
 public:
  // `level` is a zlib level: -1 (default, 6), 0 (store) .. 9 (smallest).
  // Errors: kInvalidArgument for a bad level, kInternal if zlib fails.
  static absl::StatusOr<std::unique_ptr<GzipOutputStream>> Create(ByteSink sink, int level = -1);
  ~GzipOutputStream();
  GzipOutputStream(const GzipOutputStream&) = delete;
  GzipOutputStream& operator=(const GzipOutputStream&) = delete;

  // Compresses `data`; compressed bytes reach the sink in chunks of up to
  // 256 KiB. Errors: the sink's, kInternal from zlib, kFailedPrecondition
  // after Finish() or an earlier error.
  absl::Status Append(absl::string_view data);

  // Flushes the rest and the gzip trailer into the sink. Call once.
  absl::Status Finish();

  // Uncompressed bytes accepted / compressed bytes given to the sink.
  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t bytes_out() const { return bytes_out_; }

  // Implementation detail: the compression library behind the stream.
  class Engine;

 private:
  GzipOutputStream(ByteSink sink, std::unique_ptr<Engine> engine);
  absl::Status Emit(absl::string_view bytes);

  ByteSink sink_;
  std::unique_ptr<Engine> engine_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
  bool done_ = false;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_OUTPUT_GZIP_OUTPUT_STREAM_H_
