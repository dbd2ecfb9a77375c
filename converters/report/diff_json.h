// The machine-readable form of `tbprof diff` (`--json`), also the data the
// HTML page embeds. One object, times in ms unless a name says otherwise,
// keys in lowerCamelCase as in `tbprof report --json`:
//
//   {"base": SIDE, "new": SIDE,
//    "stepTime": {"available": bool, "deltaMs", "deltaPct", "noiseMs",
//                 "noise": "within"|"outside"|"unknown", "noiseRule": text},
//    "verdict": text,
//    "categories": [{"key", "label", "baseMs", "newMs", "deltaMs"}],
//    "kernels": TABLE, "operators": TABLE,
//    "communication": {"base": AGG, "new": AGG, "deltaMs", "kernels": TABLE},
//    "memory": [{"allocator", "baseBytes", "newBytes", "deltaBytes"}],
//    "gate": {"failIfSlowerPct", "ignoreNoise", "tripped", "message"}}   (with a gate)
//   SIDE  = {"source", "hosts": [..], "steps": {"count", "meanMs", "sdMs", "minMs", "maxMs"},
//            "kernels": AGG}
//   AGG   = {"count", "totalMs", "meanUs"}
//   TABLE = {"inBoth", "onlyBase", "onlyNew",
//            "rows": [{"name", "base": AGG|null, "new": AGG|null, "deltaMs", "meanDeltaPct"}]}
// Rows are ordered by |deltaMs|, largest first; "baseBytes"/"newBytes" are
// null for an allocator that only one side has, and so is "deltaBytes".
#ifndef TBPROF_CONVERTERS_REPORT_DIFF_JSON_H_
#define TBPROF_CONVERTERS_REPORT_DIFF_JSON_H_

#include <optional>
#include <string>

#include "converters/views/diff/diff_model.h"

namespace tbprof::views {

struct DiffJsonOptions {
  // Rows per table; the rest are left out (the counts stay).
  size_t max_rows = SIZE_MAX;
  // The `--fail-if-slower` check, when one was asked for.
  std::optional<SlowerGate> gate;
  double gate_pct = 0;
  bool gate_ignore_noise = false;
};

// The object above, without a trailing newline.
std::string RenderDiffJson(const ProfileDiff& diff, const DiffJsonOptions& options = {});

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_DIFF_JSON_H_
