// Streaming reader for Chrome trace JSON: the object form
//   {"traceEvents": [ {...}, ... ], "deviceProperties": [...], ...}
// (other top-level keys before or after traceEvents) and the bare array form
//   [ {...}, {...} ]
// (whose closing ']' may be missing, as the Trace Event Format allows).
//
// The input is read in chunks into one buffer; only an element that straddles
// a chunk boundary is moved (and the buffer grows only for an element larger
// than the buffer). Each trace event is parsed in place and handed to the
// handler; a malformed event is skipped and reported, never fatal. Top-level
// values the handler asks for are delivered whole; others are skipped
// without being buffered.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/chrome_json/trace_event_parser.h"
#include "src/base/input_stream.h"

namespace tbprof::converters::json {

struct TraceJsonReaderOptions {
  // Bytes asked for by every read of the input, whatever is pending (so the
  // reads, and where a damaged stream fails, do not depend on the threads).
  size_t chunk_bytes = size_t{64} << 10;
  // Largest single trace event or delivered top-level value (the buffer
  // never grows beyond this): kResourceExhausted past it for an event; a
  // wanted top-level value that large is skipped (OnTopLevelValueSkipped).
  size_t max_element_bytes = size_t{64} << 20;
  // Called after every read with (file bytes consumed, file size); with
  // threads >= 2, after each segment, on the calling thread.
  std::function<void(uint64_t, uint64_t)> progress;
  // 1: read, parse and call the handler on the calling thread. >= 2: the
  // top-level values before traceEvents are read on the calling thread;
  // then one thread reads (and inflates) the input, `threads` worker
  // threads parse segments of the event array, and the calling thread makes
  // the handler calls (trace_json_segments.h): every handler call except
  // WantsTopLevelValue in the same order and with the same arguments as with
  // 1 thread, errors and byte offsets included.
  int threads = 1;
};

class TraceJsonHandler {
 public:
  virtual ~TraceJsonHandler() = default;
  // A syntactically valid object in the event array. Views in `event` are
  // valid only during the call. A non-OK status stops reading and is
  // returned (prefixed with the file name).
  virtual absl::Status OnEvent(const RawTraceEvent& event) = 0;
  // An element of the event array that is not a valid JSON object; it was
  // skipped. `byte_offset` is where the problem was found.
  virtual void OnMalformedEvent(uint64_t byte_offset, absl::string_view reason) = 0;
  // Whether OnTopLevelValue should receive the value of top-level `key`.
  // With threads >= 2 it is called on the reading thread, concurrently with
  // the other calls: it must depend on `key` alone.
  virtual bool WantsTopLevelValue(absl::string_view key) = 0;
  // The complete JSON text of a wanted top-level value.
  virtual absl::Status OnTopLevelValue(absl::string_view key, absl::string_view json,
                                       uint64_t byte_offset) = 0;
  // A wanted top-level value was larger than max_element_bytes and skipped.
  virtual void OnTopLevelValueSkipped(absl::string_view key, uint64_t byte_offset,
                                      absl::string_view reason) {}
};

struct TraceJsonReadResult {
  bool bare_array = false;
  bool missing_array_end = false;  // Bare array without its closing ']'.
  uint64_t bytes_read = 0;         // Bytes of JSON (after inflation).
  int64_t elements = 0;            // Elements of the event array.
};

// Reads all of `in`. Errors name in->path() and the byte offset (in the
// inflated JSON): kDataLoss for an empty file, invalid JSON outside an event
// or a truncated document (and the stream's own gzip errors);
// kInvalidArgument for valid JSON that is not a trace (a scalar document, an
// object without a traceEvents array, traceEvents that is not an array);
// kResourceExhausted for a trace event larger than max_element_bytes.
absl::StatusOr<TraceJsonReadResult> ReadTraceJson(InputStream* in,
                                                  const TraceJsonReaderOptions& options,
                                                  TraceJsonHandler* handler);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_H_
