// CorrelationGroups: the step group of each launch event's correlation id,
// kept as ids sorted with their groups (12 bytes a launch) instead of a hash
// table. Contract: Add() launches (and SetGroup() them) in any order, call
// Finish() once, then Contains() / Find(); among launches with equal ids the
// last added wins; Find() with one Cursor per walk is amortized fast when
// the queried ids nearly ascend, and correct for any order.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_CORRELATION_GROUPS_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_CORRELATION_GROUPS_H_

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

  // Room for `n` Add() calls without reallocation (a hint; an upper bound
  // such as the number of events costs no memory beyond the launches added:
  // pages never written are never mapped).
  void Reserve(size_t n) {
    pending_ids_.reserve(n);
    pending_groups_.reserve(n);
  }
  // Adds a launch; when several launches share an id, the last added wins.
  void Add(int64_t correlation_id, int32_t group) {
    pending_ids_.push_back(correlation_id);
    pending_groups_.push_back(group);
  }
  // Sets the group of the launch added `index`-th (before Finish()).
  void SetGroup(size_t index, int32_t group) { pending_groups_[index] = group; }
  // Sorts what was added. Call once, after the last Add().
  void Finish();

  bool Contains(int64_t correlation_id) const;
  // Group of the launch with this correlation id, or -1 (also for a launch
  // without a group).
  int32_t Find(int64_t correlation_id, Cursor* cursor) const;

 private:
  // Index of the first id >= correlation_id, searched from `hint` outward.
  size_t LowerBound(int64_t correlation_id, size_t hint) const;
  // Sorts the pending launches by id, stably, when they are a few ascending
  // runs (or one): true; false, leaving them as they are, for more runs.
  bool MergeRunsInPlace();
  // Sorts the pending launches by id, stably, when the ids span at most 32
  // bits: true; false, leaving them as they are, for wider ranges.
  bool SortByIdPacked();
  // Indices into the pending launches in order of id, stably (a radix sort;
  // any id range).
  std::vector<uint32_t> OrderById() const;

  // The launches added, until Finish() (12 bytes each: millions in a trace).
  std::vector<int64_t> pending_ids_;
  std::vector<int32_t> pending_groups_;
  std::vector<int64_t> ids_;     // Ascending, unique.
  std::vector<int32_t> groups_;  // groups_[i]: the group of ids_[i].
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_CORRELATION_GROUPS_H_
