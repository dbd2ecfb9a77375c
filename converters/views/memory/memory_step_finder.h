// The step of a memory event without a `group_id` stat (internal to
// xspace_to_memory_profile.cc and its helpers): StepFinder assigns a time
// (picoseconds in space time) to the innermost (latest-starting) step root
// whose [begin_ps, end_ps) contains it, or kInvalidStepId when none does.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_STEP_FINDER_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_STEP_FINDER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "converters/views/memory/memory_event_stats.h"
#include "src/base/sorted_cursor.h"

namespace tbprof::views::memory_profile {

// A step root on /host:CPU: [begin_ps, end_ps) belongs to step `step_id`.
struct StepRoot {
  int64_t begin_ps;
  int64_t end_ps;
  int64_t step_num;  // kInvalidStepId if the root has neither step_num nor iter_num.
};

// Assigns each time to the innermost (latest-starting) root containing it.
class StepFinder {
 public:
  // Roots may come in any order; a root without a step number gets the
  // index of its place in (stable) begin order.
  explicit StepFinder(std::vector<StepRoot> roots);

  // Where the last StepAt() call left off: calls for times in ascending
  // order find their place in amortized constant time.
  struct Cursor {
    size_t upper = 0;  // Number of roots that begin at or before the last time.
  };

  int64_t StepAt(int64_t time_ps, Cursor* cursor) const {
    const size_t upper = UpperBoundFrom(roots_, time_ps, cursor->upper,
                                        [](const StepRoot& r) { return r.begin_ps; });
    cursor->upper = upper;
    for (size_t i = upper; i > 0; --i) {
      if (max_end_[i - 1] <= time_ps) break;  // No earlier root reaches time_ps.
      if (time_ps < roots_[i - 1].end_ps) return roots_[i - 1].step_num;
    }
    return kInvalidStepId;
  }

 private:
  std::vector<StepRoot> roots_;
  std::vector<int64_t> max_end_;  // Prefix maximum of end_ps.
};

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_STEP_FINDER_H_
