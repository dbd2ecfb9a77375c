// The snapshots of the memory profile (internal to
// xspace_to_memory_profile.cc and its helpers): a compact Snap per memory
// event for the passes over all of them, the SnapContext that finds a
// snapshot's event again (by its index in plane order) to read the stats a
// Snap does not keep, and FillSnapshot(), which writes the plugin's
// MemoryProfileSnapshot of one snapshot.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAP_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAP_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "converters/views/memory/memory_event_stats.h"
#include "converters/views/memory/memory_text_tables.h"
#include "proto/memory_profile.pb.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::memory_profile {

// Values that a Snap holds as 4-byte indices: each distinct value once,
// index 0 is `first` (kInvalidStepId). Interning repeats of the
// last value costs no hash lookup (a step's events come together).
template <typename T>
class InternedValues {
 public:
  explicit InternedValues(T first) : values_{first}, last_value_(first) {
    index_.emplace(first, 0);
  }
  uint32_t Intern(T value) {
    if (value == last_value_) return last_index_;
    auto [it, inserted] = index_.try_emplace(value, static_cast<uint32_t>(values_.size()));
    if (inserted) values_.push_back(value);
    last_value_ = value;
    last_index_ = it->second;
    return last_index_;
  }
  T Get(uint32_t index) const { return values_[index]; }
  size_t size() const { return values_.size(); }

 private:
  std::vector<T> values_;
  absl::flat_hash_map<T, uint32_t> index_;
  T last_value_;
  uint32_t last_index_ = 0;
};
using StepIds = InternedValues<int64_t>;  // Index 0: kInvalidStepId.

// One memory event in the passes over all of them (40 bytes: a trace may
// hold millions). The address is kept whole, not interned: a trace may hold
// millions of distinct addresses (a memory snapshot of a long run), and a
// hash table of them cost more memory and time than 8 bytes per event. It keeps what those passes need; the few snapshots that
// are output, and the events of the peak step, read the other stats from
// the event again (found by the snapshot's index, which is its place in
// plane order: see SnapContext).
struct Snap {
  int64_t time_ps = 0;   // XEvent.offset_ps: relative to its line's timestamp.
  int64_t in_use = 0;    // bytes_reserved + bytes_allocated (stack + heap).
  uint64_t address = 0;  // The `addr` stat.
  // Index into SnapContext::step_ids: of the `group_id` stat when read (0,
  // kInvalidStepId, without one); of the step id once BuildAllocatorProfile
  // has run.
  uint32_t step = 0;
  uint32_t texts = 0;  // Index into the SnapTextTable (a deallocation's are
                       // its allocation's once BuildAllocatorProfile has run).
  uint32_t allocator : 31;  // Index into the allocators' memory ids.
  uint32_t is_allocation : 1;
  // The `allocation_bytes` stat when in [0, kWideAllocationBytes), else
  // kWideAllocationBytes: read it from the event (SnapContext::
  // AllocationBytesOf). Fills what would be padding.
  uint32_t allocation_bytes = 0;

  static constexpr uint32_t kWideAllocationBytes = 0xffffffffu;
  void set_allocation_bytes(int64_t bytes) {
    allocation_bytes = bytes >= 0 && bytes < int64_t{kWideAllocationBytes}
                           ? static_cast<uint32_t>(bytes)
                           : kWideAllocationBytes;
  }

  Snap() : allocator(0), is_allocation(0) {}
};
static_assert(sizeof(Snap) <= 40, "Snap must stay compact");

// What the per-allocator work reads besides the snapshots: the host plane
// (to read an event's stats again) and the tables the snapshots index.
struct SnapContext {
  const xplane::XPlaneVisitor* plane;
  const SnapTextTable* texts;
  DataTypeNames* data_types;
  StepIds* step_ids;
  std::vector<int64_t> line_begin_ps;  // Per host line: its start in space time.
  // The event of snapshot i (all snapshots in plane order) is event
  // memory_events[i] of the line whose snapshots end first after i.
  std::vector<uint32_t> memory_events;
  std::vector<size_t> line_memory_end;  // Per host line: end of its snapshots.

  size_t LineOf(uint32_t snap) const {
    return static_cast<size_t>(
        std::upper_bound(line_memory_end.begin(), line_memory_end.end(), size_t{snap}) -
        line_memory_end.begin());
  }
  xplane::XEventVisitor EventOf(uint32_t snap) const {
    return plane->line(LineOf(snap)).event(memory_events[snap]);
  }
  // The event's begin in space time (XEventVisitor::begin_ps()).
  int64_t BeginPs(uint32_t snap, const Snap& s) const {
    return line_begin_ps[LineOf(snap)] + s.time_ps;
  }
  // The allocation_bytes of snapshot `snap`, `s`: from the Snap if it holds
  // them, else from its event.
  int64_t AllocationBytesOf(uint32_t snap, const Snap& s) const {
    if (s.allocation_bytes != Snap::kWideAllocationBytes) return s.allocation_bytes;
    return memory_profile::AllocationBytesOf(EventOf(snap));
  }
  MemoryEventStats StatsOf(uint32_t snap) const {
    MemoryEventStats stats;
    ReadMemoryEvent(EventOf(snap), data_types, &stats, nullptr);
    return stats;
  }
};

// One allocator's snapshots in time order, without moving them:
// (*this)[i] = snaps[order[i]].
struct TimeOrderedSnaps {
  Snap* snaps;
  absl::Span<const uint32_t> order;

  size_t size() const { return order.size(); }
  Snap& operator[](size_t i) const { return snaps[order[i]]; }
};

// Copies the aggregation stats of `s` into `stats`.
void FillStats(const MemoryEventStats& s,
               tensorflow::profiler::MemoryAggregationStats* stats);

// `s` is snapshot `snap` (its index in plane order).
void FillSnapshot(uint32_t snap, const Snap& s, const SnapContext& context,
                  tensorflow::profiler::MemoryProfileSnapshot* out);

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_SNAP_H_
