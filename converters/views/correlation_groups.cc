#include "converters/views/correlation_groups.h"

#include <algorithm>
#include <utility>

#include "src/base/radix_sort.h"
#include "src/base/radix_sort_pairs.h"

namespace tbprof::views {

void CorrelationGroups::Finish() {
  const size_t n = pending_.size();
  ids_.clear();
  groups_.clear();
  if (n == 0) return;
  // Launch order by id, stably (the order of addition among equal ids):
  // merged runs, or a radix sort of packed (id - min) << index bits | index
  // keys when they fit in 64 bits, else of (id - min, index) pairs.
  // Launches of one thread come with ascending ids: a few runs are merged.
  constexpr size_t kMaxMergedRuns = 8;
  int64_t min_id = pending_[0].correlation_id, max_id = min_id;
  std::vector<size_t> run_begin = {0};
  for (size_t i = 0; i < n; ++i) {
    const int64_t id = pending_[i].correlation_id;
    if (i > 0 && id < pending_[i - 1].correlation_id && run_begin.size() <= kMaxMergedRuns) {
      run_begin.push_back(i);  // Counted up to one past the most merged.
    }
    min_id = std::min(min_id, id);
    max_id = std::max(max_id, id);
  }
  const uint64_t base = static_cast<uint64_t>(min_id);
  std::vector<uint32_t> by_id;  // Indices into pending_; empty if pending_ is sorted.
  if (run_begin.size() > 1 && run_begin.size() <= kMaxMergedRuns) {
    // Pairwise merges of neighbouring runs; std::merge takes the first
    // range's element on ties, so equal ids keep their order of addition.
    by_id.resize(n);
    for (size_t i = 0; i < n; ++i) by_id[i] = static_cast<uint32_t>(i);
    run_begin.push_back(n);
    std::vector<uint32_t> buffer(n);
    auto lower = [&](uint32_t a, uint32_t b) {
      return pending_[a].correlation_id < pending_[b].correlation_id;
    };
    while (run_begin.size() > 2) {
      std::vector<size_t> merged = {0};
      for (size_t r = 0; r + 1 < run_begin.size(); r += 2) {
        const size_t begin = run_begin[r], mid = run_begin[r + 1];
        const size_t end = r + 2 < run_begin.size() ? run_begin[r + 2] : mid;
        std::merge(by_id.begin() + begin, by_id.begin() + mid, by_id.begin() + mid,
                   by_id.begin() + end, buffer.begin() + begin, lower);
        merged.push_back(end);
      }
      by_id.swap(buffer);
      run_begin = std::move(merged);
    }
  } else if (run_begin.size() > 1) {
    by_id.resize(n);
    const uint64_t range = static_cast<uint64_t>(max_id) - base;
    int range_bits = 0, index_bits = 0;
    while (range_bits < 64 && (range >> range_bits) != 0) ++range_bits;
    while (index_bits < 64 && ((n - 1) >> index_bits) != 0) ++index_bits;
    if (range_bits + index_bits <= 64 && index_bits > 0) {
      std::vector<uint64_t> keys(n), scratch;
      for (size_t i = 0; i < n; ++i) {
        keys[i] = (static_cast<uint64_t>(pending_[i].correlation_id) - base) << index_bits | i;
      }
      RadixSortUint64(&keys, &scratch);  // Keys are unique: the order is total.
      const uint64_t mask = UINT64_MAX >> (64 - index_bits);
      for (size_t i = 0; i < n; ++i) by_id[i] = static_cast<uint32_t>(keys[i] & mask);
    } else {
      std::vector<KeyValue> items(n), scratch;
      for (size_t i = 0; i < n; ++i) {
        items[i] = {static_cast<uint64_t>(pending_[i].correlation_id) - base,
                    static_cast<uint32_t>(i)};
      }
      RadixSortPairs(&items, &scratch);
      for (size_t i = 0; i < n; ++i) by_id[i] = items[i].value;
    }
  }
  ids_.reserve(n);
  groups_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Launch& l = pending_[by_id.empty() ? i : by_id[i]];
    if (!ids_.empty() && ids_.back() == l.correlation_id) {
      groups_.back() = l.group;  // A later launch with the same id wins.
    } else {
      ids_.push_back(l.correlation_id);
      groups_.push_back(l.group);
    }
  }
  pending_ = {};
  ids_.shrink_to_fit();
  groups_.shrink_to_fit();
}

size_t CorrelationGroups::LowerBound(int64_t correlation_id, size_t hint) const {
  const size_t n = ids_.size();
  size_t lo, hi;  // The answer is in [lo, hi].
  if (hint < n && ids_[hint] < correlation_id) {
    // Gallop up from ids_[lo] < correlation_id to ids_[hi] >= it (or n).
    lo = hint;
    size_t step = 1;
    while (true) {
      hi = lo + step;
      if (hi >= n) {
        hi = n;
        break;
      }
      if (ids_[hi] >= correlation_id) break;
      lo = hi;
      step *= 2;
    }
    ++lo;
  } else {
    // Gallop down from ids_[hi] >= correlation_id (or hi == n) to ids_[lo] < it.
    hi = std::min(hint, n);
    size_t step = 1;
    while (true) {
      if (hi < step) {
        lo = 0;
        break;
      }
      lo = hi - step;
      if (ids_[lo] < correlation_id) {
        ++lo;
        break;
      }
      hi = lo;
      step *= 2;
    }
  }
  return static_cast<size_t>(
      std::lower_bound(ids_.begin() + lo, ids_.begin() + hi, correlation_id) - ids_.begin());
}

bool CorrelationGroups::Contains(int64_t correlation_id) const {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), correlation_id);
  return it != ids_.end() && *it == correlation_id;
}

int32_t CorrelationGroups::Find(int64_t correlation_id, Cursor* cursor) const {
  const size_t i = LowerBound(correlation_id, cursor->position);
  cursor->position = i;
  return i < ids_.size() && ids_[i] == correlation_id ? groups_[i] : -1;
}

}  // namespace tbprof::views
