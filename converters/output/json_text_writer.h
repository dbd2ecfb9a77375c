// Minimal streaming JSON text output: values are appended to a buffer that
// is handed to a ByteSink in chunks, so documents of any size are written in
// constant memory. The caller writes the punctuation ({ } [ ] , :) itself.
#ifndef TBPROF_CONVERTERS_OUTPUT_JSON_TEXT_WRITER_H_
#define TBPROF_CONVERTERS_OUTPUT_JSON_TEXT_WRITER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "converters/output/gzip_output_stream.h"
#include "converters/output/json_string.h"  // AppendJsonString, for the writer's users.

namespace tbprof::views {

// Appends a JSON number for a finite double (shortest round-trip form), or
// the string "nan" / "inf" / "-inf" for the others.
void AppendJsonDouble(double value, std::string* out);

class JsonTextWriter {
 public:
  // `sink` must outlive the writer.
  explicit JsonTextWriter(const ByteSink* sink);

  void Raw(absl::string_view text) { buffer_.append(text.data(), text.size()); }
  void String(absl::string_view s) { AppendJsonString(s, &buffer_); }
  void Int(int64_t v);
  void Uint(uint64_t v);
  void Double(double v) { AppendJsonDouble(v, &buffer_); }
  // Direct access for callers that format into the buffer themselves.
  std::string* buffer() { return &buffer_; }

  // Hands the buffer to the sink once it holds a chunk's worth of bytes.
  // Returns the sink's first error (later calls keep returning it).
  absl::Status MaybeFlush() { return buffer_.size() >= kChunkBytes ? Flush() : status_; }
  // Hands everything buffered to the sink. After a sink error the buffer is
  // dropped and the error returned again.
  absl::Status Flush();
  // OK, or the sink's first error.
  const absl::Status& status() const { return status_; }

 private:
  static constexpr size_t kChunkBytes = 256 * 1024;
  const ByteSink* sink_;
  std::string buffer_;
  absl::Status status_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_OUTPUT_JSON_TEXT_WRITER_H_
