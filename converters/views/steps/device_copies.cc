#include "converters/views/steps/device_copies.h"

#include <algorithm>

#include "converters/views/common/gallop_search.h"

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
  return GallopLowerBound(entries_.size(), hint, [&](size_t i) { return entries_[i].id < id; });
}

const DeviceCopy* DeviceCopies::Find(int64_t correlation_id, Cursor* cursor) const {
  const size_t i = LowerBound(correlation_id, cursor->position);
  cursor->position = i;
  return i < entries_.size() && entries_[i].id == correlation_id ? &entries_[i].copy : nullptr;
}

}  // namespace tbprof::views
