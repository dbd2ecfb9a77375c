#include "converters/views/steps/device_copies.h"

#include <algorithm>

namespace tbprof::views {

void DeviceCopies::Finish() {
  const auto by_id = [](const Entry& a, const Entry& b) { return a.id < b.id; };
  // Copies come in device time order, usually with ascending ids already.
  if (!std::is_sorted(entries_.begin(), entries_.end(), by_id)) {
    std::stable_sort(entries_.begin(), entries_.end(), by_id);
  }
  // Of equal ids, the last added (last in the stable order) wins.
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (kept > 0 && entries_[kept - 1].id == entries_[i].id) {
      entries_[kept - 1] = entries_[i];
    } else {
      entries_[kept++] = entries_[i];
    }
  }
  entries_.resize(kept);
  entries_.shrink_to_fit();
}

size_t DeviceCopies::LowerBound(int64_t id, size_t hint) const {
  const size_t n = entries_.size();
  size_t lo, hi;  // The answer is in [lo, hi].
  if (hint < n && entries_[hint].id < id) {
    // Gallop up from entries_[lo].id < id to entries_[hi].id >= id (or n).
    lo = hint;
    size_t step = 1;
    while (true) {
      hi = lo + step;
      if (hi >= n) {
        hi = n;
        break;
      }
      if (entries_[hi].id >= id) break;
      lo = hi;
      step *= 2;
    }
    ++lo;
  } else {
    // Gallop down from entries_[hi].id >= id (or hi == n) to entries_[lo].id < id.
    hi = std::min(hint, n);
    size_t step = 1;
    while (true) {
      if (hi < step) {
        lo = 0;
        break;
      }
      lo = hi - step;
      if (entries_[lo].id < id) {
        ++lo;
        break;
      }
      hi = lo;
      step *= 2;
    }
  }
  return static_cast<size_t>(
      std::lower_bound(entries_.begin() + lo, entries_.begin() + hi, id,
                       [](const Entry& e, int64_t v) { return e.id < v; }) -
      entries_.begin());
}

const DeviceCopy* DeviceCopies::Find(int64_t correlation_id, Cursor* cursor) const {
  const size_t i = LowerBound(correlation_id, cursor->position);
  cursor->position = i;
  return i < entries_.size() && entries_[i].id == correlation_id ? &entries_[i].copy : nullptr;
}

}  // namespace tbprof::views
