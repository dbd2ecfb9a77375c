#include "converters/views/steps/correlation_groups.h"

#include <algorithm>
#include <utility>

#include "src/base/radix_sort.h"
#include "src/base/radix_sort_pairs.h"

namespace tbprof::views {

std::vector<uint32_t> CorrelationGroups::OrderById() const {
  const size_t n = pending_ids_.size();
  // Launch order by id, stably (the order of addition among equal ids):
  // merged runs, or a radix sort of packed (id - min) << index bits | index
  // keys when they fit in 64 bits, else of (id - min, index) pairs.
  // Launches of one thread come with ascending ids: a few runs are merged.
  constexpr size_t kMaxMergedRuns = 8;
  int64_t min_id = pending_ids_[0], max_id = min_id;
  std::vector<size_t> run_begin = {0};
  for (size_t i = 0; i < n; ++i) {
    const int64_t id = pending_ids_[i];
    if (i > 0 && id < pending_ids_[i - 1] && run_begin.size() <= kMaxMergedRuns) {
      run_begin.push_back(i);  // Counted up to one past the most merged.
    }
    min_id = std::min(min_id, id);
    max_id = std::max(max_id, id);
  }
  const uint64_t base = static_cast<uint64_t>(min_id);
  std::vector<uint32_t> by_id;  // Empty if the launches are sorted.
  if (run_begin.size() > 1 && run_begin.size() <= kMaxMergedRuns) {
    // Pairwise merges of neighbouring runs; std::merge takes the first
    // range's element on ties, so equal ids keep their order of addition.
    by_id.resize(n);
    for (size_t i = 0; i < n; ++i) by_id[i] = static_cast<uint32_t>(i);
    run_begin.push_back(n);
    std::vector<uint32_t> buffer(n);
    auto lower = [&](uint32_t a, uint32_t b) { return pending_ids_[a] < pending_ids_[b]; };
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
        keys[i] = (static_cast<uint64_t>(pending_ids_[i]) - base) << index_bits | i;
      }
      RadixSortUint64(&keys, &scratch);  // Keys are unique: the order is total.
      const uint64_t mask = UINT64_MAX >> (64 - index_bits);
      for (size_t i = 0; i < n; ++i) by_id[i] = static_cast<uint32_t>(keys[i] & mask);
    } else {
      std::vector<KeyValue> items(n), scratch;
      for (size_t i = 0; i < n; ++i) {
        items[i] = {static_cast<uint64_t>(pending_ids_[i]) - base,
                    static_cast<uint32_t>(i)};
      }
      RadixSortPairs(&items, &scratch);
      for (size_t i = 0; i < n; ++i) by_id[i] = items[i].value;
    }
  }
  return by_id;
}

void CorrelationGroups::Finish() {
  const size_t n = pending_ids_.size();
  ids_.clear();
  groups_.clear();
  if (n == 0) return;
  std::vector<uint32_t> by_id = OrderById();
  if (!by_id.empty()) {
    // Into id order: the ids first, then, with their old order freed, the
    // groups (the launches are never held twice over). by_id of a few merged
    // runs reads the old order in a few sequential streams.
    std::vector<int64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = pending_ids_[by_id[i]];
    pending_ids_ = std::move(ids);
    std::vector<int32_t> groups(n);
    for (size_t i = 0; i < n; ++i) groups[i] = pending_groups_[by_id[i]];
    pending_groups_ = std::move(groups);
    by_id = {};
  }
  // Drop the earlier launches of repeated ids (a later launch with the same
  // id wins). Capacity past the size is left as it is: Reserve() may have
  // asked for far more than was added, and pages never written cost no
  // memory, while shrinking would copy.
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (kept > 0 && pending_ids_[kept - 1] == pending_ids_[i]) {
      pending_groups_[kept - 1] = pending_groups_[i];
    } else {
      pending_ids_[kept] = pending_ids_[i];
      pending_groups_[kept] = pending_groups_[i];
      ++kept;
    }
  }
  pending_ids_.resize(kept);
  pending_groups_.resize(kept);
  ids_ = std::move(pending_ids_);
  groups_ = std::move(pending_groups_);
  pending_ids_ = {};
  pending_groups_ = {};
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
