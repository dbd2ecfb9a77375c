// Makes a large Chrome/Kineto trace out of a real one for benchmarks.
//
// ScaleTrace() reads the input twice, streaming (plain or gzip): once to
// learn its time span, largest id and step numbers, then once per copy to
// write copy k of every event (see event_rewriter.h for what changes). Top-
// level members other than "traceEvents" (deviceProperties, schemaVersion,
// baseTimeNanoseconds, ...) are written once, in their input order, around
// the events. Memory stays bounded by the largest event plus those members,
// whatever the output size.
#ifndef TBPROF_TOOLS_BENCH_TRACE_SCALER_H_
#define TBPROF_TOOLS_BENCH_TRACE_SCALER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/bench/event_rewriter.h"

namespace tbprof::bench {

struct ScaleOptions {
  // Number of copies (>= 1). When 0, enough copies are made for the output
  // to reach at least target_bytes of (uncompressed) JSON.
  int64_t copies = 0;
  uint64_t target_bytes = 0;
  // Idle time between the end of copy k and the start of copy k+1.
  int64_t gap_us = 1000;
};

struct ScaleResult {
  int64_t copies = 0;
  uint64_t output_bytes = 0;  // Uncompressed JSON bytes handed to the sink.
  TraceExtent extent;          // Of the input.
  CopyStrides strides;
};

// Receives the output text in order, in chunks of about 1 MB.
using TextSink = std::function<absl::Status(absl::string_view)>;

// Errors: those of OpenInputStream and SplitTrace for the input (file name
// and byte offset), kInvalidArgument for bad options or when the ids of the
// requested copies would overflow int64, and whatever `sink` returns.
absl::StatusOr<ScaleResult> ScaleTrace(const std::string& input_path,
                                       const ScaleOptions& options, const TextSink& sink);

}  // namespace tbprof::bench

#endif  // TBPROF_TOOLS_BENCH_TRACE_SCALER_H_
