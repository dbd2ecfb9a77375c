#include "converters/views/steps/correlation_groups.h"

#include <algorithm>
#include <utility>

#include "converters/views/common/gallop_search.h"
#include "src/base/radix_sort.h"
#include "src/base/radix_sort_pairs.h"

namespace tbprof::views {

namespace {

// The smallest id and the bits that (id - smallest) needs, over `ids`
// (not empty).
struct IdRange {
  uint64_t base = 0;
  int bits = 0;
};
IdRange IdRangeOf(const std::vector<int64_t>& ids) {
  int64_t min_id = ids[0], max_id = min_id;
  for (int64_t id : ids) {
    min_id = std::min(min_id, id);
    max_id = std::max(max_id, id);
  }
  IdRange r;
  r.base = static_cast<uint64_t>(min_id);
  const uint64_t range = static_cast<uint64_t>(max_id) - r.base;
  while (r.bits < 64 && (range >> r.bits) != 0) ++r.bits;
  return r;
}

}  // namespace

bool CorrelationGroups::MergeRunsInPlace() {
  // Launches of one thread come with ascending ids: the pending launches are
  // a few ascending runs, merged pairwise, ids and groups together (no
  // index permutation to gather by afterwards, and fewer fresh pages: a
  // second copy of the launches is all that is allocated).
  constexpr size_t kMaxMergedRuns = 8;
  const size_t n = pending_ids_.size();
  std::vector<size_t> run_begin = {0};
  for (size_t i = 1; i < n; ++i) {
    if (pending_ids_[i] < pending_ids_[i - 1]) {
      if (run_begin.size() == kMaxMergedRuns) return false;
      run_begin.push_back(i);
    }
  }
  if (run_begin.size() == 1) return true;
  run_begin.push_back(n);
  std::vector<int64_t> ids(n);
  std::vector<int32_t> groups(n);
  while (run_begin.size() > 2) {
    std::vector<size_t> merged = {0};
    for (size_t r = 0; r + 1 < run_begin.size(); r += 2) {
      const size_t begin = run_begin[r], mid = run_begin[r + 1];
      const size_t end = r + 2 < run_begin.size() ? run_begin[r + 2] : mid;
      // Stable: on equal ids the first run's launch goes first.
      size_t i = begin, j = mid, out = begin;
      while (i < mid && j < end) {
        if (pending_ids_[j] < pending_ids_[i]) {
          ids[out] = pending_ids_[j];
          groups[out++] = pending_groups_[j++];
        } else {
          ids[out] = pending_ids_[i];
          groups[out++] = pending_groups_[i++];
        }
      }
      for (; i < mid; ++i, ++out) {
        ids[out] = pending_ids_[i];
        groups[out] = pending_groups_[i];
      }
      for (; j < end; ++j, ++out) {
        ids[out] = pending_ids_[j];
        groups[out] = pending_groups_[j];
      }
      merged.push_back(end);
    }
    pending_ids_.swap(ids);
    pending_groups_.swap(groups);
    run_begin = std::move(merged);
  }
  return true;
}

bool CorrelationGroups::SortByIdPacked() {
  // Ids and groups as one key, (id - min) << 32 | group, sorted on the id
  // bits only by a least-significant-digit radix sort, which is stable:
  // launches of equal ids keep their order of addition without an index in
  // the key (fewer digits to pass over than OrderById(), and no gather).
  const size_t n = pending_ids_.size();
  const IdRange ids = IdRangeOf(pending_ids_);
  const uint64_t base = ids.base;
  const int range_bits = ids.bits;
  if (range_bits > 32) return false;
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = (static_cast<uint64_t>(pending_ids_[i]) - base) << 32 |
              static_cast<uint32_t>(pending_groups_[i]);
  }
  std::vector<uint64_t> scratch;
  RadixSortUint64Bits(&keys, &scratch, 32, 32 + range_bits);
  for (size_t i = 0; i < n; ++i) {
    pending_ids_[i] = static_cast<int64_t>(base + (keys[i] >> 32));
    pending_groups_[i] = static_cast<int32_t>(static_cast<uint32_t>(keys[i]));
  }
  return true;
}

std::vector<uint32_t> CorrelationGroups::OrderById() const {
  const size_t n = pending_ids_.size();
  // Launch order by id, stably (the order of addition among equal ids): a
  // radix sort of packed (id - min) << index bits | index keys when they
  // fit in 64 bits, else of (id - min, index) pairs.
  const IdRange ids = IdRangeOf(pending_ids_);
  const uint64_t base = ids.base;
  const int range_bits = ids.bits;
  std::vector<uint32_t> by_id(n);
  int index_bits = 0;
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
      items[i] = {static_cast<uint64_t>(pending_ids_[i]) - base, static_cast<uint32_t>(i)};
    }
    RadixSortPairs(&items, &scratch);
    for (size_t i = 0; i < n; ++i) by_id[i] = items[i].value;
  }
  return by_id;
}

void CorrelationGroups::Finish() {
  const size_t n = pending_ids_.size();
  ids_.clear();
  groups_.clear();
  if (n == 0) return;
  if (!MergeRunsInPlace() && !SortByIdPacked()) {
    std::vector<uint32_t> by_id = OrderById();
    // Into id order: the ids first, then, with their old order freed, the
    // groups (the launches are never held twice over).
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
  return GallopLowerBound(ids_.size(), hint, [&](size_t i) { return ids_[i] < correlation_id; });
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
