#include "converters/views/operators/op_tree_launches.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace tbprof::views::op_tree_internal {

void LaunchTable::SortStably(std::vector<Launch>* launches) {
  std::vector<Launch>& v = *launches;
  auto by_id = [](const Launch& a, const Launch& b) { return a.id() < b.id(); };
  std::vector<size_t> runs = {0};  // Where each run begins, then the end.
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i].id() < v[i - 1].id()) runs.push_back(i);
  }
  if (runs.size() > 64) {
    std::stable_sort(v.begin(), v.end(), by_id);
    return;
  }
  runs.push_back(v.size());
  while (runs.size() > 2) {  // Merge neighbours, the earlier run first.
    std::vector<size_t> merged = {0};
    size_t r = 0;
    for (; r + 2 < runs.size(); r += 2) {
      std::inplace_merge(v.begin() + runs[r], v.begin() + runs[r + 1], v.begin() + runs[r + 2],
                         by_id);
      merged.push_back(runs[r + 2]);
    }
    if (r + 1 < runs.size()) merged.push_back(runs.back());
    runs = std::move(merged);
  }
}

}  // namespace tbprof::views::op_tree_internal
