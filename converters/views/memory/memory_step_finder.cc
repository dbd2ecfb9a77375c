#include "converters/views/memory/memory_step_finder.h"

#include <algorithm>
#include <utility>

namespace tbprof::views::memory_profile {

StepFinder::StepFinder(std::vector<StepRoot> roots) : roots_(std::move(roots)) {
  std::stable_sort(roots_.begin(), roots_.end(),
                   [](const StepRoot& a, const StepRoot& b) { return a.begin_ps < b.begin_ps; });
  max_end_.reserve(roots_.size());
  int64_t max_end = INT64_MIN;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (roots_[i].step_num == kInvalidStepId) roots_[i].step_num = static_cast<int64_t>(i);
    max_end = std::max(max_end, roots_[i].end_ps);
    max_end_.push_back(max_end);
  }
}

}  // namespace tbprof::views::memory_profile
