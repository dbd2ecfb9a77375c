// Parses one Chrome trace event object ({"ph": "X", "name": ..., "args":
// {...}}) into a flat struct of the fields the Kineto mapping reads, in one
// pass, without allocating (except for strings with escapes).
//
// Fields are kept as Tokens (text + JSON kind): the mapper decides how to
// convert them, so quoted numbers ("ts": "123.5"), floats and integers wider
// than int64 all survive parsing. Keys not listed here are validated and
// skipped. When a key repeats, the last value wins.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_PARSER_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_PARSER_H_

#include <cstdint>

#include "converters/chrome_json/json_scan.h"

namespace tbprof::converters::json {

// The `args` members the mapping uses (Kineto spellings).
struct TraceEventArgs {
  Token device;           // "device" (GPU events: device ordinal)
  Token stream;           // "stream"
  Token correlation;      // "correlation"
  Token external_id;      // "External id" / "external id"
  Token registers;        // "registers per thread"
  Token shared_memory;    // "shared memory" (static + dynamic)
  Token est_occupancy;    // "est. achieved occupancy %"
  Token bytes;            // "bytes" (memcpy / memset)
  Token mem_bytes;        // "Bytes" ([memory] events)
  Token addr;             // "Addr"
  Token total_allocated;  // "Total Allocated"
  Token total_reserved;   // "Total Reserved"
  Token mem_device_id;    // "Device Id"
  Token mem_device_type;  // "Device Type"
  Token name;             // "name" (metadata events: thread / process name)
  Token labels;           // "labels" (process_labels metadata)
  Token sync_kind;        // "cuda_sync_kind"
  // "grid" / "block": [x, y, z] arrays of integers.
  Token grid;
  Token block;
  // What record_shapes / with_stack record on CPU ops (raw JSON for arrays).
  Token input_dims;       // "Input Dims": [[64, 64], [64, 64]]
  Token input_types;      // "Input type": ["float", "float"]
  Token concrete_inputs;  // "Concrete Inputs": ["", "[2, 2]", "1"]
  Token call_stack;       // "Call stack": "file.py(12): f;file.py(30): g"
};

struct RawTraceEvent {
  // Tokens first, kNumTokens of them in a row (Reset() addresses them by
  // index).
  static constexpr int kNumTokens = 32;
  Token ph, cat, name, pid, tid, ts, dur, id, scope;  // scope = "s".
  TraceEventArgs args;
  bool has_args = false;
  // Bit i set: token i may have been written since the last Reset() (set by
  // ParseTraceEvent). Code that fills tokens by hand must Reset() first and
  // set the bits itself, or build a fresh event.
  uint32_t set_tokens = 0;

  // Set by the reader: where the event starts in the (inflated) input and
  // its raw text. Views are valid only while the event is being handled.
  uint64_t byte_offset = 0;
  absl::string_view raw;

  // Marks every field absent (cheaper than assigning a fresh struct: only
  // the tokens in set_tokens are cleared).
  void Reset();
  // Token `index` (0 = ph ... 8 = scope, 9.. = args), 0 <= index < kNumTokens.
  Token* TokenAt(int index) {
    return reinterpret_cast<Token*>(reinterpret_cast<char*>(this) + index * sizeof(Token));
  }
  const Token* TokenAt(int index) const {
    return reinterpret_cast<const Token*>(reinterpret_cast<const char*>(this) +
                                          index * sizeof(Token));
  }
};

// Parses the object at the cursor (which must be at '{'); `depth` is the
// nesting depth of the object itself. Returns true with the cursor one past
// the closing brace; false with cursor->status() kIncomplete (input ended)
// or kError (position and message in the cursor). Strings with escapes are
// unescaped into `arena` (not reset here). *event is overwritten.
bool ParseTraceEvent(Cursor* cursor, int depth, StringArena* arena, RawTraceEvent* event);

// Parses a JSON array of up to 3 integers ("[13, 1, 1]"); missing entries
// are 1. False if the text is not such an array.
bool ParseDim3(absl::string_view json_array, int64_t dims[3]);

}  // namespace tbprof::converters::json

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_PARSER_H_
