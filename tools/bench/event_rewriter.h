// Text-level rewriting of one Chrome-trace event for a shifted copy.
//
// A scaled trace repeats the original events N times. Copy k keeps every byte
// of an event except:
//   - "ts" and args."external ts": + k * time_stride_us (microseconds, the
//     Chrome trace unit; fractional digits are kept exactly as written);
//   - ids, when >= 0: + k * id_stride. Ids are the event's "id" and
//     "bind_id" (flows, async events) and args "correlation",
//     "External id"/"external id", "Ev Idx", "Python id", "Python parent id",
//     "Record function id", "Sequence number". One stride for all of them
//     keeps a flow id equal to its launch's correlation id. Negative ids are
//     sentinels and stay as they are; hex string ids ("0x1f") shift too;
//   - "ProfilerStep#N" names: N + k * step_stride;
//   - metadata events ("ph": "M") appear in copy 0 only.
// Numbers may be written as ints, decimals or quoted strings; anything the
// rewriter does not understand is copied unchanged.
#ifndef TBPROF_TOOLS_BENCH_EVENT_REWRITER_H_
#define TBPROF_TOOLS_BENCH_EVENT_REWRITER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::bench {

// What ScanEvent() learns about the original events.
struct TraceExtent {
  uint64_t num_events = 0;
  uint64_t num_metadata_events = 0;
  uint64_t num_malformed_events = 0;  // Not an object: copied as they are.
  bool has_time = false;
  int64_t min_ts_us = 0;   // floor(min ts)
  int64_t max_end_us = 0;  // ceil(max ts + dur)
  int64_t max_id = -1;     // Largest non-negative id of any kind, -1 if none.
  bool has_steps = false;
  int64_t min_step = 0;
  int64_t max_step = 0;
};

// Updates `extent` with one event's text.
void ScanEvent(absl::string_view event, TraceExtent* extent);

// Per-copy offsets. Copy k adds k times each stride.
struct CopyStrides {
  int64_t time_stride_us = 0;
  int64_t id_stride = 0;
  int64_t step_stride = 0;
};

// Strides for `extent` with `gap_us` of idle time between copies: the time
// stride covers the whole span plus the gap, the id stride is the smallest
// power of ten above max_id (ids stay readable: copy 3 of id 42 is 3042 when
// the stride is 1000), the step stride is the number of step numbers.
CopyStrides ComputeStrides(const TraceExtent& extent, int64_t gap_us);

// Appends copy `copy` (0-based) of `event` to `out`. Returns false, and
// appends nothing, when the event is left out of this copy (metadata events
// in copies after the first).
bool RewriteEvent(absl::string_view event, int64_t copy, const CopyStrides& strides,
                  std::string* out);

// Helpers, exposed for tests.
// `raw` + delta for a JSON number or quoted number ("12", "12.345", "\"7\"").
// nullopt when `raw` is no number it can shift exactly.
std::optional<std::string> ShiftNumberText(absl::string_view raw, int64_t delta);
// Value of a non-negative integer id written as a number, a quoted number or
// a quoted hex string; nullopt otherwise (negative, null, other strings).
std::optional<int64_t> ParseIdText(absl::string_view raw);

}  // namespace tbprof::bench

#endif  // TBPROF_TOOLS_BENCH_EVENT_REWRITER_H_
