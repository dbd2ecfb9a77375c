// Step-root naming shared by the collector (TBPROF_STEPS windows) and the
// raw-capture converter: NVTX range names matching the capture's step pattern
// (a glob such as "ProfilerStep#*") are training steps.
#ifndef TBPROF_SRC_CAPTURE_STEP_PATTERN_H_
#define TBPROF_SRC_CAPTURE_STEP_PATTERN_H_

#include <cstdint>

namespace tbprof::capture {

// Glob match with '*' (any run, also empty) and '?' (one character).
bool GlobMatch(const char* pattern, const char* text);

// The step number in a step-root name: the digits right after the last '#',
// else the trailing digits; -1 when there are none.
int64_t StepNumberFromName(const char* name);

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_STEP_PATTERN_H_
