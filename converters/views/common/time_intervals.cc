#include "converters/views/common/time_intervals.h"

#include <algorithm>

namespace tbprof::views {

void MergeIntervals(std::vector<TimeInterval>* v) {
  std::sort(v->begin(), v->end(), [](const TimeInterval& a, const TimeInterval& b) {
    return a.begin_ps < b.begin_ps;
  });
  size_t out = 0;
  for (const TimeInterval& i : *v) {
    if (i.end_ps <= i.begin_ps) continue;
    if (out > 0 && i.begin_ps <= (*v)[out - 1].end_ps) {
      (*v)[out - 1].end_ps = std::max((*v)[out - 1].end_ps, i.end_ps);
    } else {
      (*v)[out++] = i;
    }
  }
  v->resize(out);
}

std::vector<TimeInterval> IntersectIntervals(const std::vector<TimeInterval>& a,
                                             const std::vector<TimeInterval>& b) {
  std::vector<TimeInterval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t begin = std::max(a[i].begin_ps, b[j].begin_ps);
    const int64_t end = std::min(a[i].end_ps, b[j].end_ps);
    if (begin < end) out.push_back({begin, end});
    if (a[i].end_ps < b[j].end_ps) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

int64_t CoveredPs(const std::vector<TimeInterval>& v, int64_t begin, int64_t end) {
  auto it = std::upper_bound(v.begin(), v.end(), begin,
                             [](int64_t t, const TimeInterval& i) { return t < i.end_ps; });
  int64_t total = 0;
  for (; it != v.end() && it->begin_ps < end; ++it) {
    total += std::min(end, it->end_ps) - std::max(begin, it->begin_ps);
  }
  return total;
}

}  // namespace tbprof::views
