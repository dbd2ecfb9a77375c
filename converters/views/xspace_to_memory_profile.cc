#include "converters/views/xspace_to_memory_profile.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "converters/views/proto_json.h"
#include "src/base/radix_sort.h"
#include "src/base/radix_sort_pairs.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::ActiveAllocation;
using tensorflow::profiler::MemoryActivity;
using tensorflow::profiler::MemoryActivityMetadata;
using tensorflow::profiler::MemoryAggregationStats;
using tensorflow::profiler::MemoryProfile;
using tensorflow::profiler::MemoryProfileSnapshot;
using tensorflow::profiler::PerAllocatorMemoryProfile;

constexpr int64_t kInvalidStepId = -1;

// The texts of a memory event. Strings view the XSpace's string pool (or
// static storage).
struct SnapTexts {
  absl::string_view tf_op;
  absl::string_view region_type;
  absl::string_view data_type;
  absl::string_view tensor_shape;
};

// The distinct SnapTexts of a space's memory events; index 0 is all "".
// Events repeat a few texts millions of times, so a snapshot keeps an index.
class SnapTextTable {
 public:
  SnapTextTable() : texts_(1) {}
  const SnapTexts& operator[](uint32_t index) const { return texts_[index]; }

  // Keyed by where the texts are: equal texts at different places only cost
  // an extra entry, never a wrong one.
  uint32_t Intern(const SnapTexts& t) {
    if (t.tf_op.empty() && t.region_type.empty() && t.data_type.empty() &&
        t.tensor_shape.empty()) {
      return 0;
    }
    // A small direct-mapped cache of recent keys answers most calls without
    // hashing the whole key; it only remembers what the map would answer.
    CacheEntry& cached = cache_[CacheSlot(t)];
    if (cached.index != 0 && SamePlaces(cached.texts, t)) return cached.index;
    auto at = [](absl::string_view v) { return std::make_pair(v.data(), v.size()); };
    auto [it, inserted] = index_.try_emplace(
        std::make_tuple(at(t.tf_op), at(t.region_type), at(t.data_type), at(t.tensor_shape)),
        static_cast<uint32_t>(texts_.size()));
    if (inserted) texts_.push_back(t);
    cached = {t, it->second};
    return it->second;
  }

 private:
  struct CacheEntry {
    SnapTexts texts;
    uint32_t index = 0;  // 0: empty (index 0 is never cached).
  };
  static constexpr int kCacheBits = 10;
  static bool SamePlaces(const SnapTexts& a, const SnapTexts& b) {
    auto same = [](absl::string_view x, absl::string_view y) {
      return x.data() == y.data() && x.size() == y.size();
    };
    return same(a.tf_op, b.tf_op) && same(a.region_type, b.region_type) &&
           same(a.data_type, b.data_type) && same(a.tensor_shape, b.tensor_shape);
  }
  static size_t CacheSlot(const SnapTexts& t) {
    auto bits = [](absl::string_view v) {
      return reinterpret_cast<uintptr_t>(v.data()) ^ (static_cast<uint64_t>(v.size()) << 48);
    };
    const uint64_t mix = bits(t.tf_op) + 3 * bits(t.region_type) + 5 * bits(t.data_type) +
                         7 * bits(t.tensor_shape);
    return static_cast<size_t>((mix * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits));
  }

  std::vector<CacheEntry> cache_ = std::vector<CacheEntry>(size_t{1} << kCacheBits);
  using TextAt = std::pair<const char*, size_t>;
  std::vector<SnapTexts> texts_;
  absl::flat_hash_map<std::tuple<TextAt, TextAt, TextAt, TextAt>, uint32_t> index_;
};

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

// One memory event in the passes over all of them (48 bytes: a trace may
// hold millions). It keeps what those passes need; the few snapshots that
// are output read the other stats from the event again (found by the
// snapshot's index, which is its place in plane order: see SnapContext).
struct Snap {
  int64_t time_ps = 0;   // XEvent.offset_ps: relative to its line's timestamp.
  int64_t in_use = 0;    // bytes_reserved + bytes_allocated (stack + heap).
  // The `group_id` stat when read (kInvalidStepId without one); the step id
  // once BuildAllocatorProfile has run.
  int64_t step_id = kInvalidStepId;
  uint64_t address = 0;
  int64_t allocation_bytes = 0;
  uint32_t texts = 0;  // Index into the SnapTextTable (a deallocation's are
                       // its allocation's once BuildAllocatorProfile has run).
  uint32_t allocator : 31;  // Index into the allocators' memory ids.
  uint32_t is_allocation : 1;

  Snap() : allocator(0), is_allocation(0) {}
};
static_assert(sizeof(Snap) <= 48, "Snap must stay compact");

// A step root on /host:CPU: [begin_ps, end_ps) belongs to step `step_id`.
struct StepRoot {
  int64_t begin_ps;
  int64_t end_ps;
  int64_t step_num;  // kInvalidStepId if the root has neither step_num nor iter_num.
};

// Assigns each time to the innermost (latest-starting) root containing it.
class StepFinder {
 public:
  explicit StepFinder(std::vector<StepRoot> roots) : roots_(std::move(roots)) {
    std::stable_sort(roots_.begin(), roots_.end(),
                     [](const StepRoot& a, const StepRoot& b) { return a.begin_ps < b.begin_ps; });
    max_end_.reserve(roots_.size());
    int64_t max_end = INT64_MIN;
    for (size_t i = 0; i < roots_.size(); ++i) {
      if (roots_[i].step_num == kInvalidStepId) roots_[i].step_num = static_cast<int64_t>(i);
      max_end = std::max(max_end, roots_[i].end_ps);
      max_end_.push_back(max_end);
    }
  }

  // Where the last StepAt() call left off: calls for times in ascending
  // order find their place in amortized constant time.
  struct Cursor {
    size_t upper = 0;  // Number of roots that begin at or before the last time.
  };

  int64_t StepAt(int64_t time_ps, Cursor* cursor) const {
    size_t upper = cursor->upper;  // Moved to upper_bound(time_ps) by begin_ps.
    while (upper < roots_.size() && roots_[upper].begin_ps <= time_ps) ++upper;
    while (upper > 0 && roots_[upper - 1].begin_ps > time_ps) --upper;
    cursor->upper = upper;
    for (size_t i = upper; i > 0; --i) {
      if (max_end_[i - 1] <= time_ps) break;  // No earlier root reaches time_ps.
      if (time_ps < roots_[i - 1].end_ps) return roots_[i - 1].step_num;
    }
    return kInvalidStepId;
  }

 private:
  std::vector<StepRoot> roots_;
  std::vector<int64_t> max_end_;  // Prefix maximum of end_ps.
};

void FillStats(const MemoryEventStats& s, MemoryAggregationStats* stats) {
  stats->set_stack_reserved_bytes(s.stack_bytes);
  stats->set_heap_allocated_bytes(s.heap_bytes);
  stats->set_free_memory_bytes(s.free_bytes);
  stats->set_fragmentation(s.fragmentation);
  stats->set_peak_bytes_in_use(s.peak_bytes_in_use);
}

// Names of TensorFlow DataType values, kept alive for the snapshots.
class DataTypeNames {
 public:
  absl::string_view Get(int64_t data_type) {
    if (data_type >= 0 && data_type < kCached) {
      absl::string_view& cached = cache_[data_type];
      if (cached.data() == nullptr) cached = Lookup(data_type);
      return cached;
    }
    return Lookup(data_type);
  }

 private:
  static constexpr int64_t kCached = 256;
  absl::string_view Lookup(int64_t data_type) {
    auto [it, inserted] = names_.try_emplace(data_type);
    if (inserted) it->second = TensorflowDataTypeName(data_type);
    return it->second;
  }

  absl::string_view cache_[kCached] = {};  // names_ entries of small values.
  absl::node_hash_map<int64_t, std::string> names_;  // Stable addresses.
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
  void MemoryId(std::string* id) const {
    if (type == xplane::StatType::kAllocatorName) {
      id->assign(name.data(), name.size());
    } else if (type == xplane::StatType::kUnknown) {
      id->clear();
    } else {
      *id = absl::StrCat(static_cast<int64_t>(value));
    }
  }
};

// Reads the stats of one MemoryAllocation/MemoryDeallocation event into
// `stats` and, when `allocator` is not null, its allocator stat into it.
void ReadMemoryEvent(const xplane::XEventVisitor& event, DataTypeNames* data_types,
                     MemoryEventStats* stats, AllocatorStat* allocator) {
  bool has_fragmentation = false;
  SnapTexts& texts = stats->texts;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case xplane::StatType::kIndexOnHost:
      case xplane::StatType::kDeviceOrdinal:
        if (allocator != nullptr) {
          *allocator = {stat.type(), stat.kind(), static_cast<uint64_t>(stat.IntOrUintValue()), {}};
        }
        break;
      case xplane::StatType::kAllocatorName:
        if (allocator != nullptr) {
          const absl::string_view name = stat.StrOrRefValue();
          const uint64_t value = stat.kind() == xplane::StatKind::kRef
                                     ? stat.RefId()
                                     : reinterpret_cast<uintptr_t>(name.data());
          *allocator = {stat.type(), stat.kind(), value, name};
        }
        break;
      case xplane::StatType::kBytesReserved:
        stats->stack_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAllocated:
        stats->heap_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAvailable:
        stats->free_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kFragmentation:
        stats->fragmentation = stat.NumericValue();
        has_fragmentation = true;
        break;
      case xplane::StatType::kPeakBytesInUse:
        stats->peak_bytes_in_use = stat.IntOrUintValue();
        break;
      case xplane::StatType::kRequestedBytes:
        stats->requested_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAllocationBytes:
        stats->allocation_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAddress:
        stats->address = static_cast<uint64_t>(stat.IntOrUintValue());
        break;
      case xplane::StatType::kTfOp:
        texts.tf_op = stat.StrOrRefValue();
        break;
      case xplane::StatType::kRegionType:
        texts.region_type = stat.StrOrRefValue();
        break;
      case xplane::StatType::kDataType:
        if (stat.kind() == xplane::StatKind::kStr || stat.kind() == xplane::StatKind::kRef) {
          texts.data_type = stat.StrOrRefValue();
        } else {
          texts.data_type = data_types->Get(stat.IntOrUintValue());
        }
        break;
      case xplane::StatType::kTensorShapes:
        texts.tensor_shape = stat.StrOrRefValue();
        break;
      case xplane::StatType::kGroupId:
        stats->group_id = stat.IntOrUintValue();
        break;
      default:
        break;
    }
  });
  if (!has_fragmentation) {
    const int64_t held = stats->heap_bytes + stats->free_bytes;
    stats->fragmentation = held > 0 ? static_cast<double>(stats->free_bytes) / held : 0.0;
  }
}

// What the per-allocator work reads besides the snapshots: the host plane
// (to read an event's stats again) and the tables the snapshots index.
struct SnapContext {
  const xplane::XPlaneVisitor* plane;
  const SnapTextTable* texts;
  DataTypeNames* data_types;
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
  MemoryEventStats StatsOf(uint32_t snap) const {
    MemoryEventStats stats;
    ReadMemoryEvent(EventOf(snap), data_types, &stats, nullptr);
    return stats;
  }
};

// `s` is snapshot `snap` (its index in plane order).
void FillSnapshot(uint32_t snap, const Snap& s, const SnapContext& context,
                  MemoryProfileSnapshot* out) {
  const MemoryEventStats stats = context.StatsOf(snap);
  out->set_time_offset_ps(s.time_ps);
  FillStats(stats, out->mutable_aggregation_stats());
  MemoryActivityMetadata* meta = out->mutable_activity_metadata();
  meta->set_memory_activity(s.is_allocation ? tensorflow::profiler::ALLOCATION
                                            : tensorflow::profiler::DEALLOCATION);
  meta->set_requested_bytes(stats.requested_bytes);
  meta->set_allocation_bytes(stats.allocation_bytes);
  meta->set_address(stats.address);
  const SnapTexts& t = (*context.texts)[s.texts];
  meta->set_tf_op_name(std::string(t.tf_op));
  meta->set_step_id(s.step_id);
  meta->set_region_type(std::string(t.region_type));
  meta->set_data_type(std::string(t.data_type));
  meta->set_tensor_shape(std::string(t.tensor_shape));
}

// One allocator's snapshots in time order, without moving them:
// (*this)[i] = snaps[order[i]].
struct TimeOrderedSnaps {
  Snap* snaps;
  absl::Span<const uint32_t> order;

  size_t size() const { return order.size(); }
  Snap& operator[](size_t i) const { return snaps[order[i]]; }
};

// Max-box filter: exactly `max_num` indices when snaps.size() > max_num.
std::vector<size_t> SampleTimeline(const TimeOrderedSnaps& snaps, int64_t max_num) {
  std::vector<size_t> picked;
  const int64_t n = static_cast<int64_t>(snaps.size());
  if (max_num <= 0 || n <= max_num) {
    picked.resize(snaps.size());
    for (size_t i = 0; i < picked.size(); ++i) picked[i] = i;
    return picked;
  }
  const int64_t width = n / max_num;
  const int64_t narrow_boxes = max_num * (width + 1) - n;  // Boxes of `width`.
  picked.reserve(max_num);
  int64_t start = 0;
  for (int64_t box = 0; box < max_num; ++box) {
    const int64_t w = box < narrow_boxes ? width : width + 1;
    size_t best = start;
    int64_t best_in_use = snaps[best].in_use;
    for (int64_t i = start + 1; i < start + w; ++i) {
      const int64_t in_use = snaps[i].in_use;
      if (in_use > best_in_use) {
        best = i;
        best_in_use = in_use;
      }
    }
    picked.push_back(best);
    start += w;
  }
  return picked;
}

std::tuple<int64_t, int64_t, absl::string_view, absl::string_view, absl::string_view,
           absl::string_view>
RowKey(const MemoryActivityMetadata& m) {
  return {-m.allocation_bytes(), -m.requested_bytes(), m.tf_op_name(),
          m.region_type(),       m.data_type(),        m.tensor_shape()};
}

MemoryActivityMetadata SpecialAllocation(int64_t bytes, absl::string_view op,
                                         absl::string_view region, int64_t step_id) {
  MemoryActivityMetadata m;
  m.set_memory_activity(tensorflow::profiler::ALLOCATION);
  m.set_requested_bytes(bytes);
  m.set_allocation_bytes(bytes);
  m.set_address(0);
  m.set_tf_op_name(std::string(op));
  m.set_step_id(step_id);
  m.set_region_type(std::string(region));
  m.set_data_type(TensorflowDataTypeName(0));
  m.set_tensor_shape("unknown");
  return m;
}

// Fills active_allocations, special_allocations and memory_profile_snapshots.
// `peak` holds the stats of snaps[peak_index].
// `peak_step`: the step id of the last snapshot (in time order) whose
// in_use equals the peak's.
void AddActiveAllocations(const TimeOrderedSnaps& snaps, const SnapContext& context,
                          size_t peak_index, const MemoryEventStats& peak, int64_t peak_step,
                          PerAllocatorMemoryProfile* out) {
  const Snap& peak_snap = snaps[peak_index];

  // Allocations of the peak step still live at the peak time.
  int64_t unmapped_bytes = peak.heap_bytes;
  int64_t unmatched_dealloc_bytes = 0;
  absl::flat_hash_map<uint64_t, size_t> live;  // address -> snap index
  for (size_t i = 0; i < snaps.size() && snaps[i].time_ps <= peak_snap.time_ps; ++i) {
    const Snap& s = snaps[i];
    if (s.step_id != peak_step) continue;
    if (s.is_allocation) {
      live[s.address] = i;
      unmapped_bytes -= s.allocation_bytes;
    } else {
      if (live.erase(s.address) == 0) unmatched_dealloc_bytes += s.allocation_bytes;
      unmapped_bytes += s.allocation_bytes;
    }
  }
  unmapped_bytes -= unmatched_dealloc_bytes;

  // Rows: (snapshot index or -(special index + 1), metadata).
  std::vector<std::pair<int64_t, MemoryActivityMetadata>> rows;
  rows.reserve(live.size() + 2);
  for (const auto& [address, index] : live) {
    MemoryProfileSnapshot tmp;
    FillSnapshot(snaps.order[index], snaps[index], context, &tmp);
    rows.emplace_back(static_cast<int64_t>(index), std::move(*tmp.mutable_activity_metadata()));
  }
  auto add_special = [&](int64_t bytes, absl::string_view op, absl::string_view region) {
    MemoryActivityMetadata* special = out->add_special_allocations();
    *special = SpecialAllocation(bytes, op, region, peak_step);
    rows.emplace_back(-static_cast<int64_t>(out->special_allocations_size()), *special);
  };
  if (unmapped_bytes > 0) {
    add_special(unmapped_bytes, "unused preallocated device memory", "persist/dynamic");
  }
  if (peak.stack_bytes > 0) add_special(peak.stack_bytes, "stack", "stack");
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    auto ka = RowKey(a.second), kb = RowKey(b.second);
    if (ka != kb) return ka < kb;
    return a.first < b.first;
  });

  // Merge identical rows; keep the first row's snapshot.
  for (size_t i = 0; i < rows.size();) {
    size_t j = i + 1;
    while (j < rows.size() && RowKey(rows[j].second) == RowKey(rows[i].second)) ++j;
    ActiveAllocation* row = out->add_active_allocations();
    const int64_t index = rows[i].first;
    if (index < 0) {
      row->set_snapshot_index(index);
      row->set_special_index(-index - 1);
    } else {
      row->set_snapshot_index(out->memory_profile_snapshots_size());
      row->set_special_index(-1);
      FillSnapshot(snaps.order[index], snaps[index], context, out->add_memory_profile_snapshots());
    }
    row->set_num_occurrences(static_cast<int64_t>(j - i));
    i = j;
  }
}

// x % 1000 == 0, by multiplying with the inverse of 125 modulo 2^64 (the
// multiples of 125 are exactly the x that map to at most max / 125).
bool DivisibleBy1000(uint64_t x) {
  constexpr uint64_t kInv125 = [] {
    uint64_t a = 125, inv = a;  // Newton's iteration doubles the correct low bits.
    for (int i = 0; i < 6; ++i) inv *= 2 - a * inv;
    return inv;
  }();
  return (x & 7) == 0 && x * kInv125 <= UINT64_MAX / 125;
}

// Sorts `order` (indices into `snaps`, ascending) by the snapshots' time,
// stably: by (time, place in plane order). Events of one line are already
// in time order, so the common single-thread case costs one check and a few
// threads a merge of their runs; otherwise a radix sort of packed
// (time - min) / unit << index bits | position keys (the unit 1000 when
// every time difference is a multiple of it), or of (time, position) pairs
// when those do not fit in 64 bits.
void SortByTime(const Snap* snaps, absl::Span<uint32_t> order) {
  const size_t n = order.size();
  // Where each ascending run starts (up to kMaxMergedRuns + 1 of them).
  constexpr size_t kMaxMergedRuns = 8;
  std::vector<size_t> run_begin = {0};
  for (size_t i = 1; i < n && run_begin.size() <= kMaxMergedRuns; ++i) {
    if (snaps[order[i]].time_ps < snaps[order[i - 1]].time_ps) run_begin.push_back(i);
  }
  if (run_begin.size() == 1) return;
  auto earlier = [snaps](uint32_t a, uint32_t b) { return snaps[a].time_ps < snaps[b].time_ps; };
  if (run_begin.size() <= kMaxMergedRuns) {
    // Few runs (one per thread line): merge neighbours pairwise, in place
    // (std::inplace_merge is stable: the first range's element goes first
    // on ties).
    run_begin.push_back(n);
    while (run_begin.size() > 2) {
      std::vector<size_t> merged = {0};
      for (size_t r = 0; r + 1 < run_begin.size(); r += 2) {
        const size_t begin = run_begin[r], mid = run_begin[r + 1];
        const size_t end = r + 2 < run_begin.size() ? run_begin[r + 2] : mid;
        std::inplace_merge(order.begin() + begin, order.begin() + mid, order.begin() + end,
                           earlier);
        merged.push_back(end);
      }
      run_begin = std::move(merged);
    }
    return;
  }
  int64_t min_ps = snaps[order[0]].time_ps, max_ps = min_ps;
  for (uint32_t index : order) {
    min_ps = std::min(min_ps, snaps[index].time_ps);
    max_ps = std::max(max_ps, snaps[index].time_ps);
  }
  const uint64_t base = static_cast<uint64_t>(min_ps);
  bool whole_ns = true;
  for (uint32_t index : order) {
    whole_ns &= DivisibleBy1000(static_cast<uint64_t>(snaps[index].time_ps) - base);
  }
  const uint64_t unit = whole_ns ? 1000 : 1;
  const uint64_t range = (static_cast<uint64_t>(max_ps) - base) / unit;
  int range_bits = 0, index_bits = 0;
  while (range_bits < 64 && (range >> range_bits) != 0) ++range_bits;
  while (index_bits < 64 && ((n - 1) >> index_bits) != 0) ++index_bits;
  std::vector<uint32_t> by_position(order.begin(), order.end());
  if (range_bits + index_bits <= 64) {
    std::vector<uint64_t> keys(n), scratch;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t time = (static_cast<uint64_t>(snaps[by_position[i]].time_ps) - base) / unit;
      keys[i] = index_bits == 0 ? time : time << index_bits | i;
    }
    RadixSortUint64(&keys, &scratch);  // Keys are unique: the order is total.
    const uint64_t mask = index_bits == 0 ? 0 : UINT64_MAX >> (64 - index_bits);
    for (size_t i = 0; i < n; ++i) order[i] = by_position[keys[i] & mask];
    return;
  }
  std::vector<KeyValue> items(n), scratch;
  for (size_t i = 0; i < n; ++i) {
    items[i] = {(static_cast<uint64_t>(snaps[by_position[i]].time_ps) - base) / unit,
                static_cast<uint32_t>(i)};
  }
  RadixSortPairs(&items, &scratch);  // Stable: equal times keep their positions.
  for (size_t i = 0; i < n; ++i) order[i] = by_position[items[i].value];
}

// What one allocator's events give in plane order, as the plugin visits
// them: the lifetime peak is the last event's peak_bytes_in_use; the peak
// is the last event whose stack + heap reaches the largest value seen so
// far (the first event if none does).
struct AllocatorSummary {
  int64_t lifetime_peak = 0;
  uint32_t peak_snap = 0;  // Index (in plane order) of the peak event.
  int64_t peak_in_use = 0;
  int64_t peak_snap_in_use = 0;  // The in_use of the peak event.
  bool seen = false;

  // `s` is snapshot `snap`.
  void Add(uint32_t snap, const Snap& s, int64_t peak_bytes_in_use) {
    if (!seen) {
      peak_snap = snap;
      peak_snap_in_use = s.in_use;
    }
    seen = true;
    lifetime_peak = peak_bytes_in_use;
    if (s.in_use >= peak_in_use) {
      peak_in_use = s.in_use;
      peak_snap = snap;
      peak_snap_in_use = s.in_use;
    }
  }
};

// `order` holds the indices into `all_snaps` of one allocator's snapshots,
// in plane order; sorted by time here.
void BuildAllocatorProfile(Snap* all_snaps, absl::Span<uint32_t> order,
                           const AllocatorSummary& summary_in, const SnapContext& context,
                           const StepFinder& steps, const MemoryProfileOptions& options,
                           PerAllocatorMemoryProfile* out) {
  SortByTime(all_snaps, order);
  const TimeOrderedSnaps snaps{all_snaps, order};

  // One pass in time order for:
  //  * step ids: enclosing root, else previous valid + 1;
  //  * deallocations inherit the texts of the allocation at their address
  //    (allocations keep theirs, so the order of the two does not matter);
  //  * the peak event's place in time order;
  //  * the peak step: the step of the last event whose in_use is the peak's.
  int64_t last_valid_step = -1;
  StepFinder::Cursor cursor;
  absl::flat_hash_map<uint64_t, size_t> allocation_at;
  size_t peak_index = 0;
  int64_t peak_step = 0;
  for (size_t i = 0; i < snaps.size(); ++i) {
    Snap& s = snaps[i];
    if (s.step_id == kInvalidStepId) {
      s.step_id = steps.StepAt(context.BeginPs(snaps.order[i], s), &cursor);
    }
    if (s.step_id == kInvalidStepId) {
      s.step_id = last_valid_step + 1;
    } else {
      last_valid_step = s.step_id;
    }
    if (snaps.order[i] == summary_in.peak_snap) peak_index = i;
    if (s.in_use == summary_in.peak_snap_in_use) peak_step = s.step_id;
    if (!s.is_allocation) {
      auto it = allocation_at.find(s.address);
      if (it == allocation_at.end()) continue;
      s.texts = snaps[it->second].texts;
      allocation_at.erase(it);
    } else {
      allocation_at.try_emplace(s.address, i);
    }
  }
  allocation_at = {};

  const Snap& peak_snap = snaps[peak_index];
  const MemoryEventStats peak = context.StatsOf(snaps.order[peak_index]);
  auto* summary = out->mutable_profile_summary();
  summary->set_peak_bytes_usage_lifetime(summary_in.lifetime_peak);
  FillStats(peak, summary->mutable_peak_stats());
  summary->mutable_peak_stats()->set_peak_bytes_in_use(peak.in_use());
  summary->set_peak_stats_time_ps(peak_snap.time_ps);
  summary->set_memory_capacity(peak.in_use() + peak.free_bytes);

  for (size_t index : SampleTimeline(snaps, options.max_num_snapshots)) {
    FillSnapshot(snaps.order[index], snaps[index], context,
                 out->add_sampled_timeline_snapshots());
  }
  AddActiveAllocations(snaps, context, peak_index, peak, peak_step, out);
}

}  // namespace

MemoryProfile ConvertXSpaceToMemoryProfile(const xplane::XSpaceData& space,
                                           const MemoryProfileOptions& options) {
  MemoryProfile profile;
  profile.set_num_hosts(1);
  profile.set_version(1);
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (host == nullptr) return profile;
  xplane::XPlaneVisitor plane(&space, host, xplane::SpaceBaseNs(space));

  const std::optional<uint32_t> root_stat =
      plane.FindStatMetadata(xplane::StatTypeName(xplane::StatType::kIsRoot));
  auto is_memory_event = [](xplane::HostEventType type) {
    return type == xplane::HostEventType::kMemoryAllocation ||
           type == xplane::HostEventType::kMemoryDeallocation;
  };
  // Pass 1 over all events: the step roots, and where the memory events are
  // (their event indices, line by line), so that the snapshots fill one
  // vector of exactly their number. Only the `_r` stat is looked for in
  // other events: in the event's own stats, and once per event metadata in
  // the metadata's.
  std::vector<StepRoot> roots;
  auto read_root = [&](const xplane::XEventVisitor& event, bool is_root) {
    int64_t step_num = kInvalidStepId, iter_num = kInvalidStepId;
    event.ForEachStat([&](const xplane::XStatVisitor& stat) {
      if (root_stat.has_value() && stat.metadata_index() == *root_stat) {
        is_root |= stat.IntOrUintValue() != 0;
      } else if (stat.type() == xplane::StatType::kStepNum) {
        step_num = stat.IntOrUintValue();
      } else if (stat.type() == xplane::StatType::kIterNum) {
        iter_num = stat.IntOrUintValue();
      }
    });
    if (is_root) {
      roots.push_back(
          {event.begin_ps(), event.end_ps(), step_num != kInvalidStepId ? step_num : iter_num});
    }
  };
  // Per event metadata: 1 if its memory events, 2 if its own stats make
  // every event of it a root (a non-zero `_r`), 0 otherwise.
  std::vector<uint8_t> metadata_kind(plane.num_event_metadata(), 0);
  for (uint32_t m = 0; m < metadata_kind.size(); ++m) {
    const xplane::HostEventType type = plane.host_event_type(m);
    if (is_memory_event(type)) {
      metadata_kind[m] = 1;
    } else if (root_stat.has_value()) {
      for (const xplane::Stat& stat : host->event_metadata[m].stats) {
        if (stat.metadata_index() == *root_stat &&
            xplane::XStatVisitor(&plane, &stat).IntOrUintValue() != 0) {
          metadata_kind[m] = 2;
        }
      }
    }
  }
  std::vector<uint32_t> memory_events;  // Event indices, line after line.
  std::vector<size_t> line_memory_end(plane.num_lines(), 0);  // End in memory_events.
  for (size_t li = 0; li < plane.num_lines(); ++li) {
    const xplane::Line& line = host->lines[li];
    const xplane::Stat* line_stats = line.stats.data();
    const uint32_t root_index = root_stat.value_or(UINT32_MAX);
    for (size_t ei = 0; ei < line.events.size(); ++ei) {
      const xplane::Event& e = line.events[ei];
      const uint8_t kind = metadata_kind[e.metadata_index];
      if (kind == 1) {
        memory_events.push_back(static_cast<uint32_t>(ei));
        continue;
      }
      bool is_root = kind == 2;
      if (!is_root && root_stat.has_value()) {
        for (uint32_t i = 0; i < e.stats_count; ++i) {
          const xplane::Stat& stat = line_stats[e.stats_begin + i];
          if (stat.metadata_index() == root_index &&
              xplane::XStatVisitor(&plane, &stat).IntOrUintValue() != 0) {
            is_root = true;
            break;
          }
        }
      }
      const bool is_trace_context =
          plane.host_event_type(e.metadata_index) == xplane::HostEventType::kTraceContext;
      if (is_root || is_trace_context) read_root(plane.line(li).event(ei), is_trace_context);
    }
    line_memory_end[li] = memory_events.size();
  }

  // Pass 2 over the memory events, in plane order: one snapshot each, with
  // the index of its allocator in `memory_ids`.
  std::vector<Snap> all_snaps;
  all_snaps.reserve(memory_events.size());
  std::vector<std::string> memory_ids;
  absl::flat_hash_map<std::string, uint32_t> allocator_index;
  std::vector<AllocatorSummary> summaries;  // Per allocator.
  SnapTextTable texts;
  DataTypeNames data_types;
  SnapContext context{&plane, &texts, &data_types, {}, {}, {}};
  context.line_begin_ps.reserve(plane.num_lines());
  context.memory_events = std::move(memory_events);
  context.line_memory_end = std::move(line_memory_end);
  std::string memory_id;
  AllocatorStat last_allocator_stat;  // Of the last event, which had allocator `last_allocator`.
  uint32_t last_allocator = 0;
  size_t next_memory_event = 0;
  for (size_t li = 0; li < plane.num_lines(); ++li) {
    const xplane::XLineVisitor line = plane.line(li);
    context.line_begin_ps.push_back((line.timestamp_ns() - plane.base_ns()) * 1000);
    for (; next_memory_event < context.line_memory_end[li]; ++next_memory_event) {
      const uint32_t ei = context.memory_events[next_memory_event];
      const xplane::XEventVisitor event = line.event(ei);
      MemoryEventStats stats;
      AllocatorStat allocator_stat;
      ReadMemoryEvent(event, &data_types, &stats, &allocator_stat);
      if (memory_ids.empty() || !(allocator_stat == last_allocator_stat)) {
        allocator_stat.MemoryId(&memory_id);
        auto [it, inserted] =
            allocator_index.try_emplace(memory_id, static_cast<uint32_t>(memory_ids.size()));
        if (inserted) {
          memory_ids.push_back(memory_id);
          summaries.emplace_back();
        }
        last_allocator = it->second;
        last_allocator_stat = allocator_stat;
      }
      Snap& snap = all_snaps.emplace_back();
      snap.time_ps = event.offset_ps();
      snap.in_use = stats.in_use();
      snap.step_id = stats.group_id;
      snap.address = stats.address;
      snap.allocation_bytes = stats.allocation_bytes;
      snap.texts = texts.Intern(stats.texts);
      snap.allocator = last_allocator;
      snap.is_allocation = event.host_event_type() == xplane::HostEventType::kMemoryAllocation;
      summaries[last_allocator].Add(static_cast<uint32_t>(next_memory_event), snap,
                                    stats.peak_bytes_in_use);
    }
  }

  const StepFinder steps(std::move(roots));
  // Each allocator's snapshots as a run of indices into all_snaps, in plane
  // order (a stable counting sort by allocator; the snapshots do not move).
  std::vector<size_t> first_snap(memory_ids.size() + 1, 0);  // Of allocator a: [a], [a + 1].
  for (const Snap& s : all_snaps) ++first_snap[s.allocator + 1];
  for (size_t a = 0; a < memory_ids.size(); ++a) first_snap[a + 1] += first_snap[a];
  std::vector<uint32_t> order(all_snaps.size());
  {
    std::vector<size_t> next(first_snap.begin(), first_snap.end() - 1);
    for (size_t i = 0; i < all_snaps.size(); ++i) {
      order[next[all_snaps[i].allocator]++] = static_cast<uint32_t>(i);
    }
  }

  std::vector<uint32_t> by_id(memory_ids.size());
  for (uint32_t i = 0; i < by_id.size(); ++i) by_id[i] = i;
  std::sort(by_id.begin(), by_id.end(),
            [&](uint32_t a, uint32_t b) { return memory_ids[a] < memory_ids[b]; });
  for (uint32_t allocator : by_id) {
    const std::string& id = memory_ids[allocator];
    profile.add_memory_ids(id);
    PerAllocatorMemoryProfile* out = &(*profile.mutable_memory_profile_per_allocator())[id];
    absl::Span<uint32_t> snaps(order.data() + first_snap[allocator],
                               first_snap[allocator + 1] - first_snap[allocator]);
    BuildAllocatorProfile(all_snaps.data(), snaps, summaries[allocator], context, steps, options,
                          out);
  }
  return profile;
}

absl::StatusOr<std::string> MemoryProfileToJson(const MemoryProfile& profile) {
  return MessageToJson(profile);
}

std::string TensorflowDataTypeName(int64_t data_type) {
  static constexpr absl::string_view kNames[] = {
      "INVALID",
      "float",
      "double",
      "int32",
      "uint8",
      "int16",
      "int8",
      "string",
      "complex64",
      "int64",
      "bool",
      "qint8",
      "quint8",
      "qint32",
      "bfloat16",
      "qint16",
      "quint16",
      "uint16",
      "complex128",
      "half",
      "resource",
      "variant",
      "uint32",
      "uint64",
      "float8_e5m2",
      "float8_e4m3fn",
      "float8_e4m3fnuz",
      "float8_e4m3b11fnuz",
      "float8_e5m2fnuz",
      "int4",
      "uint4",
  };
  constexpr int64_t kNumNames = sizeof(kNames) / sizeof(kNames[0]);
  constexpr int64_t kRefOffset = 100;
  if (data_type >= 0 && data_type < kNumNames) return std::string(kNames[data_type]);
  if (data_type > kRefOffset && data_type - kRefOffset < kNumNames) {
    return absl::StrCat(kNames[data_type - kRefOffset], "_ref");
  }
  return absl::StrCat("unknown dtype enum (", data_type, ")");
}

}  // namespace tbprof::views
