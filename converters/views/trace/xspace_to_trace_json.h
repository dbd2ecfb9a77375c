// Trace-viewer data: an XSpace as Chrome trace event JSON (the object form
// with "traceEvents" and "displayTimeUnit"), which Perfetto UI,
// chrome://tracing and TensorBoard's legacy trace viewer
// (<host>.trace.json.gz, plugins <= 2.19) open.
//
// Layout: "/host:CPU" is one process (pid 701) with one thread per line
// (tid = line id); each "/device:GPU:<n>" plane is process pid 1 + n named
// "/device:GPU:<n>" with one thread per stream line; other planes with
// lines ("/device:CUSTOM:*", unmerged "/host:*") get their own pids;
// "/host:metadata" and "Task Environment" are left out. process_name,
// process_sort_index, thread_name and thread_sort_index metadata events name
// and order them. Events with a duration become "X" events, zero-duration
// events "i" (thread-scoped instant) events; ts/dur are microseconds written
// as exact decimals of the integer ps times (no floating-point rounding),
// relative to the space base. Stats become "args" (ref values resolved, the
// event metadata's stats included). Aggregated events (num_occurrences) have
// no time and are skipped.
#ifndef TBPROF_CONVERTERS_VIEWS_TRACE_XSPACE_TO_TRACE_JSON_H_
#define TBPROF_CONVERTERS_VIEWS_TRACE_XSPACE_TO_TRACE_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "converters/output/gzip_output_stream.h"
#include "src/xplane/xspace_data.h"

namespace tbprof {
class AtomicOutputFile;
}

namespace tbprof::views {

struct TraceJsonOptions {
  // Most timed events written; 0 means no limit. Past the limit the earliest
  // events in time are kept (all events beginning before a cutoff time), so
  // the trace shows a complete window rather than a sample.
  int64_t max_events = 1000000;
  // zlib level used by WriteXSpaceAsTraceJsonGz (-1 = zlib default, 0..9).
  // Level 1 compresses trace JSON several times faster than the default
  // at a modestly larger size, and trace files are written on every convert.
  int gzip_level = 1;
};

struct TraceJsonSummary {
  int64_t events_total = 0;    // Timed events in the planes shown.
  int64_t events_written = 0;  // "X" and "i" events written.
  bool truncated = false;      // events_written < events_total.
  int64_t cutoff_ps = 0;       // If truncated: events beginning at or after it were left out.
};

// Streams the JSON into `sink` in chunks of about 256 KiB, never holding the
// whole document. Top-level "metadata" records the event counts, the
// truncation (tbprof_truncated, tbprof_cutoff_us) and the XSpace's hostnames,
// errors and warnings. Errors: those returned by the sink.
absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJson(const xplane::XSpaceData& space,
                                                        const TraceJsonOptions& options,
                                                        const ByteSink& sink);

// Same, gzip-compressed into `file` (appended; the caller commits it).
absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJsonGz(const xplane::XSpaceData& space,
                                                          const TraceJsonOptions& options,
                                                          AtomicOutputFile* file);

// Same, the compressed bytes given to `compressed_sink` in order (from a
// second thread, which compresses while this one writes the text; the sink
// runs on that thread, one call at a time). Errors: the sink's, gzip's.
absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJsonGzTo(const xplane::XSpaceData& space,
                                                            const TraceJsonOptions& options,
                                                            ByteSink compressed_sink);

// The gzip-compressed JSON (level options.gzip_level) as a string; only the
// compressed bytes are ever held, for callers that stage files in memory.
absl::StatusOr<std::string> ConvertXSpaceToTraceJsonGz(const xplane::XSpaceData& space,
                                                       const TraceJsonOptions& options = {});

// The whole JSON document as a string (small spaces and tests).
absl::StatusOr<std::string> ConvertXSpaceToTraceJson(const xplane::XSpaceData& space,
                                                     const TraceJsonOptions& options = {});

// Appends `ps` picoseconds as microseconds in exact decimal form:
// 1234567 -> "1.234567", 5000000 -> "5", -1500000 -> "-1.5".
void AppendPicosAsMicros(int64_t ps, std::string* out);

// The same text written to `out`, which must have room for
// kMaxPicosAsMicrosChars bytes; returns the length (no terminating NUL).
inline constexpr size_t kMaxPicosAsMicrosChars = 28;  // "-9223372036854.775808"
size_t FormatPicosAsMicros(int64_t ps, char* out);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_TRACE_XSPACE_TO_TRACE_JSON_H_
