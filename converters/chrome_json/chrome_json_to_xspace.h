// Converts PyTorch profiler / Kineto / generic Chrome trace JSON into the
// post-processed XSpace the TensorBoard profile plugin expects.
//
// The input is streamed (plain or gzip) and never held whole; see
// ../../DESIGN mapping rules in docs/kineto_mapping.md.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_
#define TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

struct ChromeJsonOptions {
  // Gzip-bomb guard: inflated bytes allowed (0 = unlimited).
  uint64_t max_inflated_bytes = 0;
  // Stop with kResourceExhausted after this many trace events (0 = unlimited).
  int64_t max_events = 0;
  // How many malformed-event examples (with byte offsets) to keep.
  int max_error_examples = 5;
  // Called now and then with (input file bytes consumed, input file size).
  std::function<void(uint64_t, uint64_t)> progress;
};

struct ChromeJsonSummary {
  int64_t events_read = 0;        // Elements of traceEvents seen.
  int64_t events_converted = 0;   // Became XEvents.
  int64_t events_ignored = 0;     // Well-formed but not represented (flows, unknown phases).
  int64_t metadata_events = 0;    // "M" events (thread names etc.), used but not events.
  int64_t events_malformed = 0;   // Skipped because malformed.
  std::vector<std::string> malformed_examples;  // "byte 1234: reason".
  int64_t kernels = 0, memcpys = 0, memsets = 0, memory_events = 0;
  int64_t step_roots = 0;         // ProfilerStep#N roots on /host:CPU.
  int64_t events_truncated = 0;   // Cut by Finalize() to nest inside their parent.
  bool bare_array = false;        // The file was a bare JSON array of events.
  // Host name found in the trace (distributedInfo rank, metadata node name),
  // "" if none; the caller falls back to the file name.
  std::string hostname_hint;
  int64_t rank = -1;              // distributedInfo.rank when present.
};

// Reads `path` and fills `out` (must be empty) with a finalized XSpace.
// Errors (each naming `path`, with a byte offset where it applies):
// kNotFound, kDataLoss (truncated gzip, invalid JSON, empty file),
// kInvalidArgument (a JSON document that is not a trace),
// kResourceExhausted (limits). Malformed single events are skipped, counted
// in the summary and listed in XSpace.warnings.
absl::StatusOr<ChromeJsonSummary> ConvertChromeJsonToXSpace(
    const std::string& path, const ChromeJsonOptions& options, xplane::XSpaceData* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_
