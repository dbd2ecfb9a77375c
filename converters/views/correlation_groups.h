// CorrelationGroups: the step group of each launch event's correlation id,
// kept as ids sorted with their groups (12 bytes a launch) instead of a hash
// table. Contract: Add() launches (and SetGroup() them) in any order, call
// Finish() once, then Contains() / Find(); among launches with equal ids the
// last added wins; Find() with one Cursor per walk is amortized fast when
// the queried ids nearly ascend, and correct for any order.
#ifndef TBPROF_CONVERTERS_VIEWS_CORRELATION_GROUPS_H_
#define TBPROF_CONVERTERS_VIEWS_CORRELATION_GROUPS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof::views {

// The group of each launch's correlation id, as ids sorted with their
// groups: 12 bytes a launch instead of a hash table's random accesses.
// Device events come in time order, in which their correlation ids nearly
// ascend, so a lookup searches outward from where the previous one ended.
class CorrelationGroups {
 public:
  // Where the previous Find() ended; one per walk over device events.
  struct Cursor {
    size_t position = 0;
  };

  // Adds a launch; when several launches share an id, the last added wins.
  void Add(int64_t correlation_id, int32_t group) { pending_.push_back({correlation_id, group}); }
  // Sets the group of the launch added `index`-th (before Finish()).
  void SetGroup(size_t index, int32_t group) { pending_[index].group = group; }
  // Sorts what was added. Call once, after the last Add().
  void Finish();

  bool Contains(int64_t correlation_id) const;
  // Group of the launch with this correlation id, or -1 (also for a launch
  // without a group).
  int32_t Find(int64_t correlation_id, Cursor* cursor) const;

 private:
  struct Launch {
    int64_t correlation_id;
    int32_t group;
  };
  // Index of the first id >= correlation_id, searched from `hint` outward.
  size_t LowerBound(int64_t correlation_id, size_t hint) const;

  std::vector<Launch> pending_;  // Until Finish().
  std::vector<int64_t> ids_;     // Ascending, unique.
  std::vector<int32_t> groups_;  // groups_[i]: the group of ids_[i].
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_CORRELATION_GROUPS_H_
