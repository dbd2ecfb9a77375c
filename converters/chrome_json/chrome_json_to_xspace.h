// Converts PyTorch profiler / Kineto / generic Chrome trace JSON into the
// post-processed XSpace the TensorBoard profile plugin expects.
//
// The input (plain or gzip, object form {"traceEvents": [...], ...} or a bare
// array) is streamed in chunks and never held whole. Mapping (DESIGN.md
// "Kineto / Chrome trace mapping"):
//   - host events -> /host:CPU, one line per (pid, tid), named from
//     thread_name metadata; runtime/driver events keep `correlation_id`;
//     ProfilerStep#N -> step root (`_r` = 1, `step_num` = N), and the
//     outermost events of other threads inside a step get `_ct`/`_c` linking
//     them to the root's `_pt`/`_p` (so e.g. autograd-thread launches count);
//   - kernels / copies / memsets -> /device:GPU:<device>, line "Stream #<s>",
//     with `correlation_id`, `kernel_details` (occ_pct from our occupancy
//     calculator when deviceProperties allow), `theoretical_occupancy_pct`,
//     `est_achieved_occupancy_pct`, `memcpy_details` / `Memset_details`
//     ("num_bytes:N" first) and `tf_op` = the launching CPU op; copies are
//     named MemcpyHToD/DToH/DToD/HToH/PToP with the Kineto name as display
//     name. GPU annotations and CUDA syncs go to their own lines per stream
//     ("GPU annotations (stream s)", "CUDA sync (stream s)"), so only lines
//     named "Stream #" hold device work;
//   - [memory] instants -> MemoryAllocation / MemoryDeallocation with the
//     plugin's int64 allocator stats;
//   - deviceProperties -> GPU plane stats; flows, counters and other phases
//     are counted as ignored.
// Time: `ts`/`dur` are microseconds (displayTimeUnit only affects display),
// converted exactly to ns; the Task Environment gets the epoch start
// (baseTimeNanoseconds + ts when given, else ts taken as epoch).
#ifndef TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_
#define TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_

#include <cstddef>
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
  // Largest single trace event (or needed top-level value) in bytes, e.g.
  // one event with a huge string. The read buffer grows to hold one element
  // and never beyond this, so it bounds the reader's memory. A larger event
  // stops the conversion with kResourceExhausted; a larger optional
  // top-level value (metadata, deviceProperties, ...) is skipped with a
  // warning.
  size_t max_element_bytes = size_t{64} << 20;
  // Stop with kResourceExhausted ("memory use reached ...") once the
  // process's resident memory exceeds this many bytes (0 = no limit);
  // checked every few thousand events and between the final steps.
  uint64_t max_memory_bytes = 0;
  // How many malformed-event examples (with byte offsets) to keep.
  int max_error_examples = 5;
  // Called now and then with (input file bytes consumed, input file size).
  std::function<void(uint64_t, uint64_t)> progress;
  // Threads for reading: 1 = all on the calling thread; N >= 2 = one thread
  // reads and inflates, N threads parse segments of the event array, while
  // the calling thread builds the XSpace (json::TraceJsonReaderOptions::
  // threads); the result is the same byte for byte, errors and their byte
  // offsets included. 0 = automatic: 2 when the machine has at least 2
  // hardware threads and the input is at least parallel_min_bytes of JSON
  // (a gzip file counts as 8x its size), else 1.
  int threads = 0;
  uint64_t parallel_min_bytes = uint64_t{4} << 20;
  // Bytes per read of the input. With two or more threads each read becomes
  // a segment of parsed events (~800 bytes per event in flight, at most 8
  // segments at once): 64 KB keeps them at a few MB for a trace of small
  // events. Tests and fuzzing use small values so that buffer and segment
  // boundaries fall everywhere; the result does not depend on it.
  size_t read_chunk_bytes = size_t{64} << 10;
};

struct ChromeJsonSummary {
  int64_t events_read = 0;  // Elements of traceEvents seen.
  // Every element of traceEvents lands in exactly one of these four counts
  // (a matched "B"/"E" pair counts twice as converted).
  int64_t events_converted = 0;  // Became (part of) an XEvent.
  int64_t events_ignored = 0;    // Well-formed but not represented (flows, unknown phases).
  int64_t metadata_events = 0;   // "M" events (thread names etc.), used but not events.
  int64_t events_malformed = 0;  // Skipped because malformed.
  std::vector<std::string> malformed_examples;  // "byte 1234: reason".
  int64_t kernels = 0, memcpys = 0, memsets = 0, memory_events = 0;
  int64_t step_roots = 0;        // ProfilerStep#N roots on /host:CPU.
  int64_t events_moved = 0;  // Partial overlaps moved to "(overlapping)" lines.
  bool bare_array = false;       // The file was a bare JSON array of events.
  // Host name found in the trace (top-level "hostname", metadata.hostname or
  // metadata.system.uname.node), "" if none; also added to XSpace.hostnames.
  // The caller falls back to the file name / rank.
  std::string hostname_hint;
  int64_t rank = -1;  // distributedInfo.rank when present.
};

// Reads `path` and fills `out` (must be empty, else kInvalidArgument) with a
// finalized XSpace (sorted, nested, time-normalized, Task Environment plane).
// Errors (each naming `path`, with a byte offset where it applies):
// kNotFound, kDataLoss (truncated gzip, invalid JSON, empty file),
// kInvalidArgument (a JSON document that is not a trace),
// kResourceExhausted (limits). Malformed single events are skipped, counted
// in the summary and listed in XSpace.warnings.
absl::StatusOr<ChromeJsonSummary> ConvertChromeJsonToXSpace(const std::string& path,
                                                            const ChromeJsonOptions& options,
                                                            xplane::XSpaceData* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_CHROME_JSON_CHROME_JSON_TO_XSPACE_H_
