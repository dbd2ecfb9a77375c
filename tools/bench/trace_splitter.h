// Streaming splitter for Chrome-trace JSON at the text level.
//
// SplitTrace() reads a trace (object form `{"traceEvents": [...], ...}` or
// bare array form `[...]`) from an InputStream chunk by chunk and hands the
// raw text of each top-level member and of each element of `traceEvents` to a
// visitor, without building a DOM. Only the nesting structure is checked
// (brackets, strings, commas); scalars are passed through as written. Memory
// is bounded by the largest single event or top-level member.
//
// Errors: kDataLoss for truncated input, kInvalidArgument for text that is
// not JSON; messages name the file and the byte offset in the decoded
// (uncompressed) text.
#ifndef TBPROF_TOOLS_BENCH_TRACE_SPLITTER_H_
#define TBPROF_TOOLS_BENCH_TRACE_SPLITTER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "src/base/input_stream.h"

namespace tbprof::bench {

class TraceVisitor {
 public:
  virtual ~TraceVisitor() = default;
  // Called once before anything else; `bare_array` is true for `[...]` input.
  virtual absl::Status OnStart(bool bare_array) { return absl::OkStatus(); }
  // A top-level member other than "traceEvents", in input order.
  // `raw_key` includes its quotes; `raw_value` is the value's exact text.
  virtual absl::Status OnMember(absl::string_view raw_key,
                                absl::string_view raw_value) {
    return absl::OkStatus();
  }
  // Bracket the events; OnEventsBegin comes after the members that precede
  // "traceEvents" and OnEventsEnd before the members that follow it.
  virtual absl::Status OnEventsBegin() { return absl::OkStatus(); }
  // One element of the events array, exact text, no surrounding whitespace.
  virtual absl::Status OnEvent(absl::string_view raw_event) = 0;
  virtual absl::Status OnEventsEnd() { return absl::OkStatus(); }
};

// Reads all of `input` and calls `visitor`. A visitor error stops the split
// and is returned unchanged. An object without "traceEvents" yields
// OnEventsBegin/OnEventsEnd with no events after the last member.
absl::Status SplitTrace(InputStream* input, TraceVisitor* visitor);

}  // namespace tbprof::bench

#endif  // TBPROF_TOOLS_BENCH_TRACE_SPLITTER_H_
