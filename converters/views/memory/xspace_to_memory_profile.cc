#include "converters/views/memory/xspace_to_memory_profile.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "converters/views/memory/memory_allocator_profile.h"
#include "converters/views/memory/memory_event_stats.h"
#include "converters/views/memory/memory_snap.h"
#include "converters/views/memory/memory_snapshot_order.h"
#include "converters/views/memory/memory_step_finder.h"
#include "converters/views/memory/memory_text_tables.h"
#include "converters/output/proto_json.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

using memory_profile::AllocatorStat;
using memory_profile::AllocatorSummary;
using memory_profile::BuildAllocatorProfile;
using memory_profile::DataTypeNames;
using memory_profile::kInvalidStepId;
using memory_profile::MemoryEventStats;
using memory_profile::OrderByAllocator;
using memory_profile::ReadMemoryEvent;
using memory_profile::Snap;
using memory_profile::SnapContext;
using memory_profile::SnapTextTable;
using memory_profile::StepFinder;
using memory_profile::StepIds;
using memory_profile::StepRoot;
using tensorflow::profiler::MemoryProfile;
using tensorflow::profiler::PerAllocatorMemoryProfile;

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
  const uint32_t root_index = root_stat.value_or(UINT32_MAX);
  for (size_t li = 0; li < plane.num_lines(); ++li) {
    const xplane::XLineVisitor line = plane.line(li);
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      const xplane::XEventVisitor event = line.event(ei);
      const uint32_t metadata = event.metadata_index();
      const uint8_t kind = metadata_kind[metadata];
      if (kind == 1) {
        memory_events.push_back(static_cast<uint32_t>(ei));
        continue;
      }
      bool is_root = kind == 2;
      if (!is_root && root_stat.has_value()) {
        event.ForEachOwnStat([&](const xplane::XStatVisitor& stat) {
          is_root |= stat.metadata_index() == root_index && stat.IntOrUintValue() != 0;
        });
      }
      const bool is_trace_context =
          plane.host_event_type(metadata) == xplane::HostEventType::kTraceContext;
      if (is_root || is_trace_context) read_root(event, is_trace_context);
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
  StepIds step_ids(kInvalidStepId);
  SnapContext context{&plane, &texts, &data_types, &step_ids, {}, {}, {}};
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
      snap.step = step_ids.Intern(stats.group_id);
      snap.address = stats.address;
      snap.set_allocation_bytes(stats.allocation_bytes);
      snap.texts = texts.Intern(stats.texts);
      snap.allocator = last_allocator;
      snap.is_allocation = event.host_event_type() == xplane::HostEventType::kMemoryAllocation;
      summaries[last_allocator].Add(static_cast<uint32_t>(next_memory_event), snap,
                                    stats.peak_bytes_in_use);
    }
  }

  const StepFinder steps(std::move(roots));
  // Each allocator's snapshots as a run of indices into all_snaps, in plane
  // order (the snapshots do not move).
  std::vector<uint32_t> order;
  std::vector<size_t> first_snap;  // Of allocator a: [a], [a + 1].
  OrderByAllocator(all_snaps, memory_ids.size(), &order, &first_snap);

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

}  // namespace tbprof::views
