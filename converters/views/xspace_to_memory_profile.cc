#include "converters/views/xspace_to_memory_profile.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
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

// One memory event, before it becomes a MemoryProfileSnapshot. Strings view
// the XSpace's string pool (or static storage).
struct Snap {
  int64_t time_ps = 0;       // XEvent.offset_ps: relative to its line's timestamp.
  int64_t begin_ps = 0;      // Relative to the space base, to find its step.
  uint64_t visit_index = 0;  // Position in plane order (line by line).
  int64_t stack_bytes = 0;
  int64_t heap_bytes = 0;
  int64_t free_bytes = 0;
  int64_t peak_bytes_in_use = 0;
  double fragmentation = 0;
  bool has_fragmentation = false;
  MemoryActivity activity = tensorflow::profiler::UNKNOWN_ACTIVITY;
  int64_t requested_bytes = 0;
  int64_t allocation_bytes = 0;
  uint64_t address = 0;
  int64_t step_id = kInvalidStepId;
  int64_t group_id = kInvalidStepId;  // From a `group_id` stat, if any.
  absl::string_view tf_op;
  absl::string_view region_type;
  absl::string_view data_type;
  absl::string_view tensor_shape;

  int64_t in_use() const { return stack_bytes + heap_bytes; }
};

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

void FillStats(const Snap& s, MemoryAggregationStats* stats) {
  stats->set_stack_reserved_bytes(s.stack_bytes);
  stats->set_heap_allocated_bytes(s.heap_bytes);
  stats->set_free_memory_bytes(s.free_bytes);
  stats->set_fragmentation(s.fragmentation);
  stats->set_peak_bytes_in_use(s.peak_bytes_in_use);
}

void FillSnapshot(const Snap& s, MemoryProfileSnapshot* out) {
  out->set_time_offset_ps(s.time_ps);
  FillStats(s, out->mutable_aggregation_stats());
  MemoryActivityMetadata* meta = out->mutable_activity_metadata();
  meta->set_memory_activity(s.activity);
  meta->set_requested_bytes(s.requested_bytes);
  meta->set_allocation_bytes(s.allocation_bytes);
  meta->set_address(s.address);
  meta->set_tf_op_name(std::string(s.tf_op));
  meta->set_step_id(s.step_id);
  meta->set_region_type(std::string(s.region_type));
  meta->set_data_type(std::string(s.data_type));
  meta->set_tensor_shape(std::string(s.tensor_shape));
}

// Reads one MemoryAllocation/MemoryDeallocation event into `snap` and its
// allocator id into `memory_id`.
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

void ReadMemoryEvent(const xplane::XEventVisitor& event, bool is_allocation,
                     DataTypeNames* data_types, Snap* snap, std::string* memory_id) {
  snap->time_ps = event.offset_ps();
  snap->begin_ps = event.begin_ps();
  snap->activity =
      is_allocation ? tensorflow::profiler::ALLOCATION : tensorflow::profiler::DEALLOCATION;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case xplane::StatType::kIndexOnHost:
      case xplane::StatType::kDeviceOrdinal:
        *memory_id = absl::StrCat(stat.IntOrUintValue());
        break;
      case xplane::StatType::kAllocatorName:
        memory_id->assign(stat.StrOrRefValue().data(), stat.StrOrRefValue().size());
        break;
      case xplane::StatType::kBytesReserved:
        snap->stack_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAllocated:
        snap->heap_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAvailable:
        snap->free_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kFragmentation:
        snap->fragmentation = stat.NumericValue();
        snap->has_fragmentation = true;
        break;
      case xplane::StatType::kPeakBytesInUse:
        snap->peak_bytes_in_use = stat.IntOrUintValue();
        break;
      case xplane::StatType::kRequestedBytes:
        snap->requested_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAllocationBytes:
        snap->allocation_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAddress:
        snap->address = static_cast<uint64_t>(stat.IntOrUintValue());
        break;
      case xplane::StatType::kTfOp:
        snap->tf_op = stat.StrOrRefValue();
        break;
      case xplane::StatType::kRegionType:
        snap->region_type = stat.StrOrRefValue();
        break;
      case xplane::StatType::kDataType:
        if (stat.kind() == xplane::StatKind::kStr || stat.kind() == xplane::StatKind::kRef) {
          snap->data_type = stat.StrOrRefValue();
        } else {
          snap->data_type = data_types->Get(stat.IntOrUintValue());
        }
        break;
      case xplane::StatType::kTensorShapes:
        snap->tensor_shape = stat.StrOrRefValue();
        break;
      case xplane::StatType::kGroupId:
        snap->group_id = stat.IntOrUintValue();
        break;
      default:
        break;
    }
  });
  if (!snap->has_fragmentation) {
    const int64_t held = snap->heap_bytes + snap->free_bytes;
    snap->fragmentation = held > 0 ? static_cast<double>(snap->free_bytes) / held : 0.0;
  }
}

// Max-box filter: exactly `max_num` indices when snaps.size() > max_num.
std::vector<size_t> SampleTimeline(const std::vector<Snap>& snaps, int64_t max_num) {
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
      if (snaps[i].in_use() > snaps[best].in_use()) best = i;
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
void AddActiveAllocations(const std::vector<Snap>& snaps, size_t peak_index,
                          PerAllocatorMemoryProfile* out) {
  const Snap& peak = snaps[peak_index];
  int64_t peak_step = 0;
  for (const Snap& s : snaps) {
    if (s.in_use() == peak.in_use()) peak_step = s.step_id;
  }

  // Allocations of the peak step still live at the peak time.
  int64_t unmapped_bytes = peak.heap_bytes;
  int64_t unmatched_dealloc_bytes = 0;
  absl::flat_hash_map<uint64_t, size_t> live;  // address -> snap index
  for (size_t i = 0; i < snaps.size() && snaps[i].time_ps <= peak.time_ps; ++i) {
    const Snap& s = snaps[i];
    if (s.step_id != peak_step) continue;
    if (s.activity == tensorflow::profiler::ALLOCATION) {
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
    FillSnapshot(snaps[index], &tmp);
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
      FillSnapshot(snaps[index], out->add_memory_profile_snapshots());
    }
    row->set_num_occurrences(static_cast<int64_t>(j - i));
    i = j;
  }
}

// Stable sort by time; events of one line are already in time order, so
// the common single-thread case costs one check.
void SortByTime(std::vector<Snap>* snaps) {
  auto earlier = [](const Snap& a, const Snap& b) { return a.time_ps < b.time_ps; };
  if (std::is_sorted(snaps->begin(), snaps->end(), earlier)) return;
  std::vector<std::pair<int64_t, uint32_t>> order(snaps->size());
  for (size_t i = 0; i < snaps->size(); ++i) {
    order[i] = {(*snaps)[i].time_ps, static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end());  // (time, index): stable by construction.
  std::vector<Snap> sorted;
  sorted.reserve(snaps->size());
  for (const auto& [time, index] : order) sorted.push_back(std::move((*snaps)[index]));
  snaps->swap(sorted);
}

void BuildAllocatorProfile(std::vector<Snap> snaps, const StepFinder& steps,
                           const MemoryProfileOptions& options, PerAllocatorMemoryProfile* out) {
  // Summary, in plane order as the plugin visits the events: the lifetime
  // peak is the last event's peak_bytes_in_use; the peak is the last event
  // whose stack + heap reaches the largest value seen so far.
  const int64_t lifetime_peak = snaps.back().peak_bytes_in_use;
  uint64_t peak_visit = snaps.front().visit_index;
  int64_t peak_in_use = 0;
  for (const Snap& s : snaps) {
    if (s.in_use() >= peak_in_use) {
      peak_in_use = s.in_use();
      peak_visit = s.visit_index;
    }
  }

  SortByTime(&snaps);

  // Step ids: enclosing root, else previous valid + 1.
  int64_t last_valid_step = -1;
  for (Snap& s : snaps) {
    s.step_id = s.group_id != kInvalidStepId ? s.group_id : steps.StepAt(s.begin_ps);
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
    if (s.activity == tensorflow::profiler::DEALLOCATION) {
      auto it = allocation_at.find(s.address);
      if (it == allocation_at.end()) continue;
      const Snap& alloc = snaps[it->second];
      s.tf_op = alloc.tf_op;
      s.region_type = alloc.region_type;
      s.data_type = alloc.data_type;
      s.tensor_shape = alloc.tensor_shape;
      allocation_at.erase(it);
    } else {
      allocation_at.try_emplace(s.address, i);
    }
  }

  size_t peak_index = 0;  // The peak event's place in time order.
  while (snaps[peak_index].visit_index != peak_visit) ++peak_index;
  const Snap& peak = snaps[peak_index];
  auto* summary = out->mutable_profile_summary();
  summary->set_peak_bytes_usage_lifetime(lifetime_peak);
  FillStats(peak, summary->mutable_peak_stats());
  summary->mutable_peak_stats()->set_peak_bytes_in_use(peak.in_use());
  summary->set_peak_stats_time_ps(peak.time_ps);
  summary->set_memory_capacity(peak.in_use() + peak.free_bytes);

  for (size_t index : SampleTimeline(snaps, options.max_num_snapshots)) {
    FillSnapshot(snaps[index], out->add_sampled_timeline_snapshots());
  }
  AddActiveAllocations(snaps, peak_index, out);
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
  std::vector<StepRoot> roots;
  absl::btree_map<std::string, std::vector<Snap>> snaps_by_allocator;  // Sorted ids.
  DataTypeNames data_types;
  std::string memory_id;
  std::string last_memory_id = "\x01";  // Not a valid id: forces the first lookup.
  std::vector<Snap>* last_snaps = nullptr;
  uint64_t visit_index = 0;
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& event) {
      const xplane::HostEventType type = event.host_event_type();
      if (type == xplane::HostEventType::kMemoryAllocation ||
          type == xplane::HostEventType::kMemoryDeallocation) {
        Snap snap;
        snap.visit_index = visit_index++;
        memory_id.clear();
        ReadMemoryEvent(event, type == xplane::HostEventType::kMemoryAllocation, &data_types, &snap,
                        &memory_id);
        if (last_snaps == nullptr || memory_id != last_memory_id) {
          last_snaps = &snaps_by_allocator[memory_id];
          last_memory_id = memory_id;
        }
        last_snaps->push_back(snap);
        return;
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
    });
  });

  const StepFinder steps(std::move(roots));
  for (auto& [memory_id, snaps] : snaps_by_allocator) {
    if (snaps.empty()) continue;
    profile.add_memory_ids(memory_id);
    BuildAllocatorProfile(std::move(snaps), steps, options,
                          &(*profile.mutable_memory_profile_per_allocator())[memory_id]);
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
