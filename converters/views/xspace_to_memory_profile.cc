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
    auto at = [](absl::string_view v) { return std::make_pair(v.data(), v.size()); };
    auto [it, inserted] = index_.try_emplace(
        std::make_tuple(at(t.tf_op), at(t.region_type), at(t.data_type), at(t.tensor_shape)),
        static_cast<uint32_t>(texts_.size()));
    if (inserted) texts_.push_back(t);
    return it->second;
  }

 private:
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

// One memory event in the passes over all of them (56 bytes: a trace may
// hold millions). It keeps what those passes need; the few snapshots that
// are output read the other stats from the event again (`ref`).
struct Snap {
  int64_t time_ps = 0;   // XEvent.offset_ps: relative to its line's timestamp.
  uint64_t ref = 0;      // Line index << 32 | event index: the event, and its
                         // position in plane order (line by line).
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
static_assert(sizeof(Snap) <= 56, "Snap must stay compact");

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

  int64_t StepAt(int64_t time_ps) const {
    auto it = std::upper_bound(roots_.begin(), roots_.end(), time_ps,
                               [](int64_t t, const StepRoot& r) { return t < r.begin_ps; });
    for (size_t i = it - roots_.begin(); i > 0; --i) {
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
    auto [it, inserted] = names_.try_emplace(data_type);
    if (inserted) it->second = TensorflowDataTypeName(data_type);
    return it->second;
  }

 private:
  absl::node_hash_map<int64_t, std::string> names_;  // Stable addresses.
};

// Reads the stats of one MemoryAllocation/MemoryDeallocation event into
// `stats` and, when `memory_id` is not null, its allocator id into it.
void ReadMemoryEvent(const xplane::XEventVisitor& event, DataTypeNames* data_types,
                     MemoryEventStats* stats, std::string* memory_id) {
  bool has_fragmentation = false;
  SnapTexts& texts = stats->texts;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case xplane::StatType::kIndexOnHost:
      case xplane::StatType::kDeviceOrdinal:
        if (memory_id != nullptr) *memory_id = absl::StrCat(stat.IntOrUintValue());
        break;
      case xplane::StatType::kAllocatorName:
        if (memory_id != nullptr) {
          memory_id->assign(stat.StrOrRefValue().data(), stat.StrOrRefValue().size());
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

  xplane::XEventVisitor EventOf(const Snap& s) const {
    return plane->line(static_cast<size_t>(s.ref >> 32)).event(s.ref & 0xffffffffu);
  }
  // The event's begin in space time (XEventVisitor::begin_ps()).
  int64_t BeginPs(const Snap& s) const { return line_begin_ps[s.ref >> 32] + s.time_ps; }
  MemoryEventStats StatsOf(const Snap& s) const {
    MemoryEventStats stats;
    ReadMemoryEvent(EventOf(s), data_types, &stats, nullptr);
    return stats;
  }
};

void FillSnapshot(const Snap& s, const SnapContext& context, MemoryProfileSnapshot* out) {
  const MemoryEventStats stats = context.StatsOf(s);
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

// Max-box filter: exactly `max_num` indices when snaps.size() > max_num.
std::vector<size_t> SampleTimeline(absl::Span<const Snap> snaps, int64_t max_num) {
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
    for (int64_t i = start + 1; i < start + w; ++i) {
      if (snaps[i].in_use > snaps[best].in_use) best = i;
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
void AddActiveAllocations(absl::Span<const Snap> snaps, const SnapContext& context,
                          size_t peak_index, const MemoryEventStats& peak,
                          PerAllocatorMemoryProfile* out) {
  const Snap& peak_snap = snaps[peak_index];
  int64_t peak_step = 0;
  for (const Snap& s : snaps) {
    if (s.in_use == peak_snap.in_use) peak_step = s.step_id;
  }

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
    FillSnapshot(snaps[index], context, &tmp);
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
      FillSnapshot(snaps[index], context, out->add_memory_profile_snapshots());
    }
    row->set_num_occurrences(static_cast<int64_t>(j - i));
    i = j;
  }
}

// Stable sort by time; events of one line are already in time order, so
// the common single-thread case costs one check. In place: (time, ref) is
// unique, and ref grows with the position before sorting.
void SortByTime(absl::Span<Snap> snaps) {
  auto earlier = [](const Snap& a, const Snap& b) { return a.time_ps < b.time_ps; };
  if (std::is_sorted(snaps.begin(), snaps.end(), earlier)) return;
  std::sort(snaps.begin(), snaps.end(), [](const Snap& a, const Snap& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.ref < b.ref;
  });
}

// What one allocator's events give in plane order, as the plugin visits
// them: the lifetime peak is the last event's peak_bytes_in_use; the peak
// is the last event whose stack + heap reaches the largest value seen so
// far (the first event if none does).
struct AllocatorSummary {
  int64_t lifetime_peak = 0;
  uint64_t peak_ref = 0;
  int64_t peak_in_use = 0;
  bool seen = false;

  void Add(const Snap& s, int64_t peak_bytes_in_use) {
    if (!seen) peak_ref = s.ref;
    seen = true;
    lifetime_peak = peak_bytes_in_use;
    if (s.in_use >= peak_in_use) {
      peak_in_use = s.in_use;
      peak_ref = s.ref;
    }
  }
};

// `snaps` are one allocator's, in plane order; sorted by time here.
void BuildAllocatorProfile(absl::Span<Snap> snaps, const AllocatorSummary& summary_in,
                           const SnapContext& context, const StepFinder& steps,
                           const MemoryProfileOptions& options, PerAllocatorMemoryProfile* out) {
  SortByTime(snaps);

  // Step ids: enclosing root, else previous valid + 1.
  int64_t last_valid_step = -1;
  for (Snap& s : snaps) {
    if (s.step_id == kInvalidStepId) s.step_id = steps.StepAt(context.BeginPs(s));
    if (s.step_id == kInvalidStepId) {
      s.step_id = last_valid_step + 1;
    } else {
      last_valid_step = s.step_id;
    }
  }

  // Deallocations inherit the metadata of the allocation at their address.
  absl::flat_hash_map<uint64_t, size_t> allocation_at;
  for (size_t i = 0; i < snaps.size(); ++i) {
    Snap& s = snaps[i];
    if (!s.is_allocation) {
      auto it = allocation_at.find(s.address);
      if (it == allocation_at.end()) continue;
      s.texts = snaps[it->second].texts;
      allocation_at.erase(it);
    } else {
      allocation_at.try_emplace(s.address, i);
    }
  }

  size_t peak_index = 0;  // The peak event's place in time order.
  while (snaps[peak_index].ref != summary_in.peak_ref) ++peak_index;
  const Snap& peak_snap = snaps[peak_index];
  const MemoryEventStats peak = context.StatsOf(peak_snap);
  auto* summary = out->mutable_profile_summary();
  summary->set_peak_bytes_usage_lifetime(summary_in.lifetime_peak);
  FillStats(peak, summary->mutable_peak_stats());
  summary->mutable_peak_stats()->set_peak_bytes_in_use(peak.in_use());
  summary->set_peak_stats_time_ps(peak_snap.time_ps);
  summary->set_memory_capacity(peak.in_use() + peak.free_bytes);

  for (size_t index : SampleTimeline(snaps, options.max_num_snapshots)) {
    FillSnapshot(snaps[index], context, out->add_sampled_timeline_snapshots());
  }
  AddActiveAllocations(snaps, context, peak_index, peak, out);
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
  // All snapshots in one vector of exactly their number (no copies as it
  // grows), each with the index of its allocator in `memory_ids`.
  size_t num_memory_events = 0;
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& event) {
      if (is_memory_event(event.host_event_type())) ++num_memory_events;
    });
  });
  std::vector<Snap> all_snaps;
  all_snaps.reserve(num_memory_events);
  std::vector<std::string> memory_ids;
  absl::flat_hash_map<std::string, uint32_t> allocator_index;
  std::vector<AllocatorSummary> summaries;  // Per allocator.

  std::vector<StepRoot> roots;
  SnapTextTable texts;
  DataTypeNames data_types;
  SnapContext context{&plane, &texts, &data_types, {}};
  context.line_begin_ps.reserve(plane.num_lines());
  std::string memory_id;
  std::string last_memory_id;  // memory_ids[last_allocator], once there is one.
  uint32_t last_allocator = 0;
  for (size_t li = 0; li < plane.num_lines(); ++li) {
    const xplane::XLineVisitor line = plane.line(li);
    context.line_begin_ps.push_back((line.timestamp_ns() - plane.base_ns()) * 1000);
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      const xplane::XEventVisitor event = line.event(ei);
      const xplane::HostEventType type = event.host_event_type();
      if (is_memory_event(type)) {
        MemoryEventStats stats;
        memory_id.clear();
        ReadMemoryEvent(event, &data_types, &stats, &memory_id);
        if (memory_ids.empty() || memory_id != last_memory_id) {
          auto [it, inserted] =
              allocator_index.try_emplace(memory_id, static_cast<uint32_t>(memory_ids.size()));
          if (inserted) {
            memory_ids.push_back(memory_id);
            summaries.emplace_back();
          }
          last_allocator = it->second;
          last_memory_id = memory_id;
        }
        Snap& snap = all_snaps.emplace_back();
        snap.time_ps = event.offset_ps();
        snap.ref = static_cast<uint64_t>(li) << 32 | ei;
        snap.in_use = stats.in_use();
        snap.step_id = stats.group_id;
        snap.address = stats.address;
        snap.allocation_bytes = stats.allocation_bytes;
        snap.texts = texts.Intern(stats.texts);
        snap.allocator = last_allocator;
        snap.is_allocation = type == xplane::HostEventType::kMemoryAllocation;
        summaries[last_allocator].Add(snap, stats.peak_bytes_in_use);
        continue;
      }
      bool is_root = type == xplane::HostEventType::kTraceContext;
      int64_t step_num = kInvalidStepId, iter_num = kInvalidStepId;
      if (root_stat.has_value() || is_root) {
        event.ForEachStat([&](const xplane::XStatVisitor& stat) {
          if (root_stat.has_value() && stat.metadata_index() == *root_stat) {
            is_root |= stat.IntOrUintValue() != 0;
          } else if (stat.type() == xplane::StatType::kStepNum) {
            step_num = stat.IntOrUintValue();
          } else if (stat.type() == xplane::StatType::kIterNum) {
            iter_num = stat.IntOrUintValue();
          }
        });
      }
      if (is_root) {
        roots.push_back(
            {event.begin_ps(), event.end_ps(), step_num != kInvalidStepId ? step_num : iter_num});
      }
    }
  }

  const StepFinder steps(std::move(roots));
  // Each allocator's snapshots side by side, in plane order, without a copy.
  if (memory_ids.size() > 1) {
    std::sort(all_snaps.begin(), all_snaps.end(), [](const Snap& a, const Snap& b) {
      return a.allocator != b.allocator ? a.allocator < b.allocator : a.ref < b.ref;
    });
  }
  std::vector<size_t> first_snap(memory_ids.size() + 1, 0);  // Of allocator a: [a], [a + 1].
  for (const Snap& s : all_snaps) ++first_snap[s.allocator + 1];
  for (size_t a = 0; a < memory_ids.size(); ++a) first_snap[a + 1] += first_snap[a];

  std::vector<uint32_t> by_id(memory_ids.size());
  for (uint32_t i = 0; i < by_id.size(); ++i) by_id[i] = i;
  std::sort(by_id.begin(), by_id.end(),
            [&](uint32_t a, uint32_t b) { return memory_ids[a] < memory_ids[b]; });
  for (uint32_t allocator : by_id) {
    const std::string& id = memory_ids[allocator];
    profile.add_memory_ids(id);
    PerAllocatorMemoryProfile* out = &(*profile.mutable_memory_profile_per_allocator())[id];
    absl::Span<Snap> snaps(all_snaps.data() + first_snap[allocator],
                           first_snap[allocator + 1] - first_snap[allocator]);
    BuildAllocatorProfile(snaps, summaries[allocator], context, steps, options, out);
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
