// Reading the traceEvents array on several threads (ReadTraceJson with
// threads >= 2), with the same handler calls, in the same order, with the
// same arguments as one thread makes.
//
// One thread reads the input, always chunk_bytes per read like the
// single-threaded reader, and cuts what it reads into segments of a few
// chunks, each cut just before a '{' that follows '}' and ',' (with only
// whitespace around): a guess at where an element starts. Worker threads
// parse the segments (ReaderCore::ParseSegment). The calling thread takes
// them in input order and delivers their events to the handler. A segment
// parsed from a true element start that ends cleanly (its end is right
// after a ',' and whitespace) proves that the next segment starts at an
// element too, so the guesses are checked as they are used. The first
// segment that does not end cleanly (the array ends in it, a guess was
// wrong, or something to report) hands over to a single-threaded reader
// resumed exactly where that segment stopped, fed with the rest of the bytes
// in order; it does the rest of the document, errors included. The output is
// therefore the single-threaded reader's, whatever the guesses.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_SEGMENTS_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_SEGMENTS_H_

#include "absl/status/statusor.h"
#include "converters/chrome_json/trace_json_reader.h"
#include "converters/chrome_json/trace_json_reader_core.h"
#include "src/base/input_stream.h"

namespace tbprof::converters::json {

// Reads the rest of `in` after `prefix`, a stream reader on `in` whose
// RunUntilEventArray() returned true (it has consumed the array's '['),
// parsing on options.threads worker threads plus one reading thread.
absl::StatusOr<TraceJsonReadResult> ReadEventArrayInSegments(InputStream* in,
                                                             const TraceJsonReaderOptions& options,
                                                             TraceJsonHandler* handler,
                                                             const ReaderCore& prefix);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_JSON_SEGMENTS_H_
