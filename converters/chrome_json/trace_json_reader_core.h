// The state machine behind ReadTraceJson (trace_json_reader.h): the top-level
// object or array, the traceEvents array, and each event parsed in place.
// Internal to the reader; three uses share it so that every byte is read by
// the same code whatever the number of threads:
//
//  * stream mode: reads an InputStream to its end, calling the handler (or,
//    with a batch, recording the calls in it);
//  * prefix mode (RunUntilEventArray): the same, but it stops where the
//    traceEvents array begins, so that the array can be cut into segments
//    and parsed on several threads (trace_json_segments.h);
//  * segment mode (ParseSegment): parses the elements of a fixed buffer that
//    begins at an element of the array, stopping where the buffer ends or
//    the array does, and says where and in which state it stopped.
//
// Reads always ask the stream for exactly chunk_bytes (however many bytes
// are still pending), so the sequence of reads, and therefore where a
// damaged gzip stream fails, does not depend on where elements end.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_CORE_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_CORE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/chrome_json/json_scan.h"
#include "converters/chrome_json/trace_event_batch.h"
#include "converters/chrome_json/trace_event_parser.h"
#include "converters/chrome_json/trace_json_reader.h"
#include "src/base/input_stream.h"

namespace tbprof::converters::json {

enum class ReaderState : uint8_t {
  kStart,
  kObjectKeyOrEnd,
  kObjectKey,
  kColon,
  kValue,
  kSkippingValue,
  kObjectCommaOrEnd,
  kArrayElementOrEnd,  // Just after the event array's '['.
  kArrayElement,       // After a ',' in the event array.
  kArrayCommaOrEnd,    // After an element of the event array.
  kAfterDocument,
};

inline bool InEventArray(ReaderState s) {
  return s == ReaderState::kArrayElementOrEnd || s == ReaderState::kArrayElement ||
         s == ReaderState::kArrayCommaOrEnd;
}

// Where a reader is inside the event array: enough to go on from there.
struct ArrayPosition {
  ReaderState state = ReaderState::kArrayElementOrEnd;
  uint64_t offset = 0;   // Input offset of the next unconsumed byte.
  int event_depth = 3;   // Nesting depth of an event object.
  bool bare_array = false;
};

// How ParseSegment ended.
struct SegmentStop {
  // True when the segment ended right after a ',' and its whitespace, so the
  // next element starts exactly at the segment's end.
  bool clean = false;
  ArrayPosition position;  // Where parsing stopped (the segment's end if clean).
  int64_t elements = 0;    // Elements completed (events and malformed ones).
};

class ReaderCore {
 public:
  // Stream mode: reads `in` and calls `handler`.
  ReaderCore(InputStream* in, const TraceJsonReaderOptions& options, TraceJsonHandler* handler);

  // Stream mode, going on at `at` (in or just after the event array; the
  // bytes before it were handled elsewhere): `so_far` holds the counts up to
  // there. The stream's next byte is the one at at.offset.
  void Resume(const ArrayPosition& at, const TraceJsonReadResult& so_far);

  // Reads to the end of the input.
  absl::StatusOr<TraceJsonReadResult> Run();

  // Prefix mode: reads until the event array's '[' has been consumed (true)
  // or the input is done (false: Run()'s result is in *done).
  bool RunUntilEventArray(absl::StatusOr<TraceJsonReadResult>* done);
  // After RunUntilEventArray returned true: the position, the counts so far,
  // and the bytes already read past the '[' (moved into *pending).
  ArrayPosition array_position() const;
  const TraceJsonReadResult& result() const { return result_; }
  absl::string_view pending() const { return absl::string_view(buf_ + pos_, end_ - pos_); }
  // Whether the input has ended, and the read error that comes after the
  // pending bytes (OK if none).
  bool at_eof() const { return eof_; }
  const absl::Status& deferred_read_error() const { return deferred_read_error_; }

  // Segment mode: parses `bytes` (input offset `at.offset`, starting in
  // at.state) into `batch`, whose events point into `bytes`. Never reads,
  // never calls a handler; stops at the end of the bytes, at the end of the
  // array, or before anything that is not a complete element (an element cut
  // by the end, invalid JSON between elements), leaving that to a stream
  // reader resumed at the stop.
  // An element longer than MaxElementBytes(options) stops it too (the
  // stream reader reports it as too large).
  static SegmentStop ParseSegment(absl::string_view bytes, const ArrayPosition& at,
                                  const TraceJsonReaderOptions& options, const std::string& path,
                                  TraceEventBatch* batch);

  // The longest element (or top-level value) the stream reader accepts: it
  // fails (or skips the value) when that many bytes of one are pending.
  static size_t MaxElementBytes(const TraceJsonReaderOptions& options) {
    return std::max(std::max<size_t>(options.chunk_bytes, 1), options.max_element_bytes);
  }

 private:
  enum class Step { kProgress, kNeedMore, kError };
  struct SegmentTag {};
  ReaderCore(SegmentTag, absl::string_view bytes, const ArrayPosition& at,
             const std::string& path, TraceEventBatch* batch);

  // Runs to the end of the input (false, *done set), or with
  // stop_in_event_array until the event array's '[' is consumed (true).
  bool RunUntil(bool stop_in_event_array, absl::StatusOr<TraceJsonReadResult>* done);
  Step DoStep();
  // Whether the element (or key, or top-level value) [start, end) is longer
  // than accepted: it is then handled as incomplete, so that Refill reports
  // it (or skips the value) whatever the reads brought in, and a segment
  // leaves it to a stream reader.
  // Whether the pending bytes (one incomplete element, key or value) reached
  // the limit: Refill then reports them (or skips the value), even at the
  // end of the input.
  bool PendingAtLimit() const { return end_ - pos_ >= element_limit_; }
  bool TooLong(const char* start, const char* end) const {
    return static_cast<size_t>(end - start) > element_limit_;
  }
  Step ParseElement();
  Step EndOfArray();
  absl::Status Refill();
  absl::Status AtEndOfInput();
  void MalformedEvent(uint64_t byte_offset, absl::string_view reason);
  void TopLevelValueSkipped(uint64_t byte_offset, absl::string_view reason);

  const char* data() const { return buf_ + pos_; }
  const char* data_end() const { return buf_ + end_; }
  uint64_t OffsetOf(const char* p) const { return base_ + static_cast<uint64_t>(p - buf_); }
  void Consume(const char* p) { pos_ = static_cast<size_t>(p - buf_); }
  // Skips whitespace and commits it; false if the buffer ran out.
  bool SkipWhitespace() {
    const char* p = data();
    const char* e = data_end();
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    Consume(p);
    return p < e;
  }
  Step Fail(absl::StatusCode code, uint64_t offset, absl::string_view message);
  Step InvalidJson(const char* at, absl::string_view message);
  // Replaces the buffer by one of `cap` bytes holding the pending bytes.
  void Reallocate(size_t cap);

  InputStream* in_ = nullptr;  // Null in segment mode.
  const TraceJsonReaderOptions* options_ = nullptr;
  TraceJsonHandler* handler_ = nullptr;
  TraceEventBatch* batch_ = nullptr;  // Segment mode: receives the events.
  const std::string* path_ = nullptr;
  size_t element_limit_ = 0;  // MaxElementBytes().

  std::unique_ptr<char[]> owned_;  // Stream mode: the buffer.
  char* buf_ = nullptr;
  size_t cap_ = 0;
  size_t pos_ = 0;     // First unconsumed byte.
  size_t end_ = 0;     // End of valid data.
  uint64_t base_ = 0;  // Input offset of buf_[0].
  bool eof_ = false;

  ReaderState state_ = ReaderState::kStart;
  absl::Status status_;
  absl::Status deferred_read_error_;  // See Refill().
  std::string key_;
  bool seen_trace_events_ = false;
  int event_depth_ = 0;
  ResumableSkipper skipper_;
  StringArena arena_;
  RawTraceEvent event_;
  TraceJsonReadResult result_;
};

// Makes the handler calls recorded in `batch`, in input order; a handler
// error is returned prefixed with `path`.
absl::Status DeliverBatch(const TraceEventBatch& batch, const std::string& path,
                          TraceJsonHandler* handler);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_READER_CORE_H_
