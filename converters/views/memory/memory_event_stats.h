// The stats of one MemoryAllocation / MemoryDeallocation event as the
// memory profile reads them (internal to xspace_to_memory_profile.cc and its
// helpers). ReadMemoryEvent() reads every stat the profile uses in one visit
// of the event's stats (own, then its metadata's; the last of a type wins),
// computes fragmentation when the event has no `fragmentation` stat, and
// names the event's allocator by an AllocatorStat, which compares equal for
// events whose allocator ids are equal without building the id string.
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_EVENT_STATS_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_EVENT_STATS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "converters/views/memory/memory_text_tables.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::memory_profile {

// The step id of a snapshot that has none (yet).
constexpr int64_t kInvalidStepId = -1;

// All the stats of one memory event.
struct MemoryEventStats {
  int64_t stack_bytes = 0;
  int64_t heap_bytes = 0;
  int64_t free_bytes = 0;
  int64_t peak_bytes_in_use = 0;
  double fragmentation = 0;
  int64_t requested_bytes = 0;
  int64_t allocation_bytes = 0;
  uint64_t address = 0;
  int64_t group_id = kInvalidStepId;  // The `group_id` stat, if any.
  SnapTexts texts;

  int64_t in_use() const { return stack_bytes + heap_bytes; }
};

// The stat that names an event's allocator (the last of allocator_name,
// index_on_host and device_ordinal), as a value that compares equal for
// events whose allocator ids are equal strings, without building them.
struct AllocatorStat {
  xplane::StatType type = xplane::StatType::kUnknown;  // kUnknown: none.
  xplane::StatKind kind = xplane::StatKind::kNone;
  // IntOrUintValue() of an index, RefId() of a ref name, the address of
  // the (interned) text of a str name.
  uint64_t value = 0;
  absl::string_view name;  // allocator_name's StrOrRefValue().

  bool operator==(const AllocatorStat& o) const {
    return type == o.type && kind == o.kind && value == o.value && name.size() == o.name.size();
  }
  // The allocator id: the name, or the index in decimal; "" if none.
  void MemoryId(std::string* id) const;
};

// The allocation_bytes of one memory event, as ReadMemoryEvent() reads it,
// without reading its other stats.
int64_t AllocationBytesOf(const xplane::XEventVisitor& event);

// Reads the stats of one MemoryAllocation/MemoryDeallocation event into
// `stats` and, when `allocator` is not null, its allocator stat into it.
void ReadMemoryEvent(const xplane::XEventVisitor& event, DataTypeNames* data_types,
                     MemoryEventStats* stats, AllocatorStat* allocator);

}  // namespace tbprof::views::memory_profile

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_MEMORY_EVENT_STATS_H_
