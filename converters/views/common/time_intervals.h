// Sets of time intervals [begin_ps, end_ps) on one clock: the union of the
// device events of a class (rank comms), the windows of the steps (GPU
// summary), and the time of an interval covered by such a set.
#ifndef TBPROF_CONVERTERS_VIEWS_COMMON_TIME_INTERVALS_H_
#define TBPROF_CONVERTERS_VIEWS_COMMON_TIME_INTERVALS_H_

#include <cstdint>
#include <vector>

namespace tbprof::views {

struct TimeInterval {
  int64_t begin_ps = 0;
  int64_t end_ps = 0;
};

// Sorts `v` by begin and merges overlapping or touching intervals; empty
// and inverted intervals (end <= begin) are dropped. The result is "merged":
// sorted, disjoint and non-empty, what the functions below take.
void MergeIntervals(std::vector<TimeInterval>* v);

// The intersection of two merged sets (merged).
std::vector<TimeInterval> IntersectIntervals(const std::vector<TimeInterval>& a,
                                             const std::vector<TimeInterval>& b);

// Time of [begin, end) inside the merged set `v` (binary search + the
// intervals that overlap).
int64_t CoveredPs(const std::vector<TimeInterval>& v, int64_t begin, int64_t end);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_COMMON_TIME_INTERVALS_H_
