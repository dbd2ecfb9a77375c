// Lookups at ascending positions in a sorted sequence, without a binary
// search per lookup: the answer of the previous lookup is the starting
// point of the next.
#ifndef TBPROF_SRC_BASE_SORTED_CURSOR_H_
#define TBPROF_SRC_BASE_SORTED_CURSOR_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tbprof {

// For `items` sorted by key(item) ascending, the number of items whose key is
// <= `value` (what std::upper_bound gives), found by moving from `hint` (the
// result of the previous call, or 0). Lookups at ascending values take
// amortized constant time; any value is answered correctly, a far one in
// time linear in how far the answer moved.
template <typename Items, typename Key>
size_t UpperBoundFrom(const Items& items, int64_t value, size_t hint, Key key) {
  size_t upper = std::min(hint, static_cast<size_t>(items.size()));
  while (upper < items.size() && key(items[upper]) <= value) ++upper;
  while (upper > 0 && key(items[upper - 1]) > value) --upper;
  return upper;
}

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_SORTED_CURSOR_H_
