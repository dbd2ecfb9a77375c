#include "converters/chrome_json/trace_json_reader.h"

#include "converters/chrome_json/trace_json_reader_core.h"
#include "converters/chrome_json/trace_json_segments.h"

namespace tbprof::converters::json {

absl::StatusOr<TraceJsonReadResult> ReadTraceJson(InputStream* in,
                                                  const TraceJsonReaderOptions& options,
                                                  TraceJsonHandler* handler) {
  ReaderCore reader(in, options, handler);
  if (options.threads < 2) return reader.Run();
  // The top-level values before the event array are few and small: read
  // them here, then the array on several threads.
  absl::StatusOr<TraceJsonReadResult> done;
  if (!reader.RunUntilEventArray(&done)) return done;
  return ReadEventArrayInSegments(in, options, handler, reader);
}

}  // namespace tbprof::converters::json
