// The events of one segment of the traceEvents array, parsed on a worker
// thread and handed in input order to the thread that makes the handler
// calls (ReadTraceJson with threads >= 2, see trace_json_segments.h).
//
// A TraceEventBatch holds the parsed events (their views point into the
// segment's bytes, which the segment owns), the arena of their unescaped
// strings, and the malformed elements among them with their places, so that
// DeliverBatch (trace_json_reader_core.h) makes exactly the calls the
// single-threaded reader makes for the same bytes.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_BATCH_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "converters/chrome_json/json_scan.h"
#include "converters/chrome_json/trace_event_parser.h"

namespace tbprof::converters::json {

// An element of the array that is not a valid event (OnMalformedEvent).
struct MalformedElement {
  uint32_t before_event;  // Delivered before events[before_event] (or at the end).
  uint64_t byte_offset;
  std::string reason;
};

struct TraceEventBatch {
  StringArena arena;                  // Unescaped strings of the events.
  std::vector<RawTraceEvent> events;  // The first num_events are valid.
  size_t num_events = 0;
  std::vector<MalformedElement> malformed;

  // A slot for the next event; counts only after CommitEvent().
  RawTraceEvent* NextEvent() {
    if (num_events == events.size()) events.emplace_back();
    return &events[num_events];
  }
  void CommitEvent() { ++num_events; }
  // Forgets the contents, keeping the capacities.
  void Clear() {
    num_events = 0;
    malformed.clear();
    arena.Reset();
  }
};

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_BATCH_H_
