// Lower-bound search that starts from a hint: for lookups in a sorted array
// whose answers move little from one call to the next (ids looked up in
// about the order they are stored), it costs O(log distance from the hint)
// instead of O(log n).
#ifndef TBPROF_CONVERTERS_VIEWS_COMMON_GALLOP_SEARCH_H_
#define TBPROF_CONVERTERS_VIEWS_COMMON_GALLOP_SEARCH_H_

#include <algorithm>
#include <cstddef>

namespace tbprof::views {

// The first index i in [0, n) for which below(i) is false, or n if none.
// `below(i)` says that element i sorts before the value searched for, and
// must be true for a prefix of [0, n) and false after it (a sorted array).
// Steps of 1, 2, 4, ... away from `hint` (any value; past n counts as n)
// bracket the answer, then a binary search inside the bracket finds it.
template <typename Below>
size_t GallopLowerBound(size_t n, size_t hint, Below below) {
  size_t lo, hi;  // The answer is in [lo, hi].
  if (hint < n && below(hint)) {
    // Up from below(lo) to !below(hi) (or hi == n).
    lo = hint;
    for (size_t step = 1;; step *= 2) {
      hi = lo + step;
      if (hi >= n) {
        hi = n;
        break;
      }
      if (!below(hi)) break;
      lo = hi;
    }
    ++lo;
  } else {
    // Down from !below(hi) (or hi == n) to below(lo).
    hi = std::min(hint, n);
    for (size_t step = 1;; step *= 2) {
      if (hi < step) {
        lo = 0;
        break;
      }
      lo = hi - step;
      if (below(lo)) {
        ++lo;
        break;
      }
      hi = lo;
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (below(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_COMMON_GALLOP_SEARCH_H_
