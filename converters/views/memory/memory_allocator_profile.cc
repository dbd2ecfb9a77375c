#include "converters/views/memory/memory_allocator_profile.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "converters/views/memory/memory_snapshot_order.h"

namespace tbprof::views::memory_profile {

using tensorflow::profiler::ActiveAllocation;
using tensorflow::profiler::MemoryActivityMetadata;
using tensorflow::profiler::MemoryProfileSnapshot;
using tensorflow::profiler::PerAllocatorMemoryProfile;

namespace {

// How many snapshots ahead the address maps prefetch the slot of an
// address: a trace without steps keeps millions of blocks live, so nearly
// every lookup misses the cache, and the loops' lookups do not depend on
// each other's results for their addresses.
constexpr size_t kPrefetchAhead = 16;

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

// A row of the breakdown at the peak before merging: a live allocation
// (index >= 0: its place in time order) or a special one (index =
// -(special index + 1)), with what rows are sorted and merged by. The texts
// view the XSpace's strings or the special allocation's proto, so a trace
// with millions of live blocks sorts 64-byte rows, not protos.
struct Row {
  int64_t index = 0;
  int64_t allocation_bytes = 0;
  int64_t requested_bytes = 0;
  SnapTexts texts;
};

std::tuple<int64_t, int64_t, absl::string_view, absl::string_view, absl::string_view,
           absl::string_view>
RowKey(const Row& r) {
  return {-r.allocation_bytes, -r.requested_bytes,   r.texts.tf_op,
          r.texts.region_type, r.texts.data_type, r.texts.tensor_shape};
}

// Allocation and requested bytes of snapshot `snap`, read from its event.
void ReadRowBytes(uint32_t snap, const SnapContext& context, Row* row) {
  context.EventOf(snap).ForEachStat([&](const xplane::XStatVisitor& stat) {
    if (stat.type() == xplane::StatType::kAllocationBytes) {
      row->allocation_bytes = stat.IntOrUintValue();
    } else if (stat.type() == xplane::StatType::kRequestedBytes) {
      row->requested_bytes = stat.IntOrUintValue();
    }
  });
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
// `peak_step`: the step (index into context.step_ids) of the last snapshot
// (in time order) whose in_use equals the peak's.
void AddActiveAllocations(const TimeOrderedSnaps& snaps, const SnapContext& context,
                          size_t peak_index, const MemoryEventStats& peak, uint32_t peak_step,
                          PerAllocatorMemoryProfile* out) {
  const Snap& peak_snap = snaps[peak_index];

  // Allocations of the peak step still live at the peak time.
  int64_t unmapped_bytes = peak.heap_bytes;
  int64_t unmatched_dealloc_bytes = 0;
  absl::flat_hash_map<uint64_t, size_t> live;  // Address -> snap index.
  for (size_t i = 0; i < snaps.size() && snaps[i].time_ps <= peak_snap.time_ps; ++i) {
    if (i + kPrefetchAhead < snaps.size()) live.prefetch(snaps[i + kPrefetchAhead].address);
    const Snap& s = snaps[i];
    if (s.step != peak_step) continue;
    // From the Snap, or read again from the event when too large for it.
    const int64_t allocation_bytes = context.AllocationBytesOf(snaps.order[i], s);
    if (s.is_allocation) {
      live[s.address] = i;
      unmapped_bytes -= allocation_bytes;
    } else {
      if (live.erase(s.address) == 0) unmatched_dealloc_bytes += allocation_bytes;
      unmapped_bytes += allocation_bytes;
    }
  }
  unmapped_bytes -= unmatched_dealloc_bytes;

  // The live allocations in time order, so that their events are read
  // front to back rather than in the map's order (a cache miss each, with
  // millions live); the rows are sorted below whatever their order here.
  std::vector<uint32_t> live_indices;
  live_indices.reserve(live.size());
  for (const auto& [address, index] : live) live_indices.push_back(static_cast<uint32_t>(index));
  live = {};
  std::sort(live_indices.begin(), live_indices.end());
  std::vector<Row> rows;
  rows.reserve(live_indices.size() + 2);
  for (const uint32_t index : live_indices) {
    Row& row = rows.emplace_back();
    row.index = static_cast<int64_t>(index);
    ReadRowBytes(snaps.order[index], context, &row);
    row.texts = (*context.texts)[snaps[index].texts];
  }
  auto add_special = [&](int64_t bytes, absl::string_view op, absl::string_view region) {
    MemoryActivityMetadata* special = out->add_special_allocations();
    *special = SpecialAllocation(bytes, op, region, context.step_ids->Get(peak_step));
    // The proto's strings stay put while `out` lives (repeated message
    // fields own their elements).
    rows.push_back({-static_cast<int64_t>(out->special_allocations_size()),
                    special->allocation_bytes(), special->requested_bytes(),
                    {special->tf_op_name(), special->region_type(), special->data_type(),
                     special->tensor_shape()}});
  };
  if (unmapped_bytes > 0) {
    add_special(unmapped_bytes, "unused preallocated device memory", "persist/dynamic");
  }
  if (peak.stack_bytes > 0) add_special(peak.stack_bytes, "stack", "stack");
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    auto ka = RowKey(a), kb = RowKey(b);
    if (ka != kb) return ka < kb;
    return a.index < b.index;
  });

  // Merge identical rows; keep the first row's snapshot.
  for (size_t i = 0; i < rows.size();) {
    size_t j = i + 1;
    while (j < rows.size() && RowKey(rows[j]) == RowKey(rows[i])) ++j;
    ActiveAllocation* row = out->add_active_allocations();
    const int64_t index = rows[i].index;
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

}  // namespace

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
  StepIds& step_ids = *context.step_ids;
  absl::flat_hash_map<uint64_t, size_t> allocation_at;  // Address -> snap index.
  size_t peak_index = 0;
  uint32_t peak_step = step_ids.Intern(0);
  for (size_t i = 0; i < snaps.size(); ++i) {
    if (i + kPrefetchAhead < snaps.size()) {
      allocation_at.prefetch(snaps[i + kPrefetchAhead].address);
    }
    Snap& s = snaps[i];
    int64_t step_id = step_ids.Get(s.step);
    if (step_id == kInvalidStepId) {
      step_id = steps.StepAt(context.BeginPs(snaps.order[i], s), &cursor);
    }
    if (step_id == kInvalidStepId) {
      step_id = last_valid_step + 1;
    } else {
      last_valid_step = step_id;
    }
    s.step = step_ids.Intern(step_id);
    if (snaps.order[i] == summary_in.peak_snap) peak_index = i;
    if (s.in_use == summary_in.peak_snap_in_use) peak_step = s.step;
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


}  // namespace tbprof::views::memory_profile
