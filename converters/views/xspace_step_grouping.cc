#include "converters/views/xspace_step_grouping.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {

using xplane::HostEventType;
using xplane::StatKind;
using xplane::StatType;
using xplane::XEventVisitor;
using xplane::XLineVisitor;
using xplane::XPlaneVisitor;
using xplane::XStatVisitor;

namespace {

// Stats of one host event that grouping looks at.
struct HostEventStats {
  int root_level = 0;  // 0 = not a root.
  bool has_step_num = false;
  int64_t step_num = 0;
  bool has_iter_num = false;
  int64_t iter_num = 0;
  absl::string_view graph_type;
  bool has_correlation_id = false;
  int64_t correlation_id = 0;
  bool has_group_id = false;
  int64_t group_id = 0;
  absl::string_view step_name;
};

// Per stat metadata of a plane: whether ReadHostEventStats() reads stats
// of it. Most stats of a host event (shapes, call stacks, ...) are not read:
// a well-predicted test skips them without a jump through the switch.
std::vector<uint8_t> ReadStatMetadata(const XPlaneVisitor& plane) {
  std::vector<uint8_t> read(plane.num_stat_metadata(), 0);
  for (uint32_t i = 0; i < read.size(); ++i) {
    switch (plane.stat_type(i)) {
      case StatType::kIsRoot:
      case StatType::kStepNum:
      case StatType::kIterNum:
      case StatType::kGraphType:
      case StatType::kCorrelationId:
      case StatType::kGroupId:
      case StatType::kStepName:
        read[i] = 1;
        break;
      default:
        break;
    }
  }
  return read;
}

// `read_stat`: ReadStatMetadata() of the event's plane.
HostEventStats ReadHostEventStats(const XEventVisitor& event,
                                  const std::vector<uint8_t>& read_stat) {
  HostEventStats s;
  event.ForEachStat([&](const XStatVisitor& stat) {
    if (!read_stat[stat.metadata_index()]) return;
    switch (stat.type()) {
      case StatType::kIsRoot:
        s.root_level = static_cast<int>(stat.IntValue());
        break;
      case StatType::kStepNum:
        s.has_step_num = true;
        s.step_num = stat.IntValue();
        break;
      case StatType::kIterNum:
        s.has_iter_num = true;
        s.iter_num = stat.IntValue();
        break;
      case StatType::kGraphType:
        s.graph_type = stat.StrOrRefValue();
        break;
      case StatType::kCorrelationId:
        s.has_correlation_id = true;
        s.correlation_id = stat.IntOrUintValue();
        break;
      case StatType::kGroupId:
        s.has_group_id = true;
        s.group_id = stat.IntValue();
        break;
      case StatType::kStepName:
        s.step_name = stat.StrOrRefValue();
        break;
      default:
        break;
    }
  });
  if (s.root_level == 0 && event.host_event_type() == HostEventType::kTraceContext) {
    s.root_level = 1;
  }
  return s;
}

struct RootRef {
  int level;
  int64_t begin_ps;
  int64_t end_ps;
  uint32_t line;
  uint32_t event;
  bool nested_in_same_level_root;
  int64_t step_num;  // -1 if none.
  absl::string_view graph_type;
};

// Open event on a line's nesting stack. Pushed by writing the fields of a
// new element: copying a struct just written field by field stalls (the
// wide loads cannot forward from the narrow stores).
struct OpenEvent {
  uint32_t index;
  int64_t begin_ps;
  int64_t end_ps;
  uint32_t root_levels_mask;  // Root levels of this event and its ancestors.
};

uint32_t LevelBit(int level) { return 1u << std::min(std::max(level, 0), 31); }

void GroupPregrouped(const XPlaneVisitor& host, XSpaceStepGroups* out) {
  const std::vector<uint8_t> read_stat = ReadStatMetadata(host);
  for (size_t li = 0; li < host.num_lines(); ++li) {
    XLineVisitor line = host.line(li);
    std::vector<int32_t>& groups = out->host_event_group[li];
    groups.assign(line.num_events(), -1);
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      XEventVisitor event = line.event(ei);
      if (event.is_aggregate()) continue;
      HostEventStats s = ReadHostEventStats(event, read_stat);
      if (!s.has_group_id) continue;
      int32_t dense = GetOrAddPregroupedGroup(s.group_id, out);
      groups[ei] = dense;
      if (s.has_correlation_id) out->group_by_correlation_id.Add(s.correlation_id, dense);
      if (!s.step_name.empty()) {
        StepGroup& g = out->groups[dense];
        if (g.name.empty()) g.name = std::string(s.step_name);
        int64_t begin = event.begin_ps();
        int64_t end = event.end_ps();
        if (!g.has_host_span) {
          g.has_host_span = true;
          g.host_begin_ps = begin;
          g.host_end_ps = end;
        } else {
          g.host_begin_ps = std::min(g.host_begin_ps, begin);
          g.host_end_ps = std::max(g.host_end_ps, end);
        }
      }
    }
  }
}

}  // namespace

bool IsXSpaceGrouped(const xplane::XSpaceData& space) {
  const xplane::StringPool& pool = space.strings;
  for (const xplane::Plane& plane : space.planes) {
    for (const xplane::StatMetadata& md : plane.stat_metadata) {
      if (pool.Get(md.name) == xplane::StatTypeName(StatType::kGroupId)) return true;
    }
  }
  return false;
}

int32_t GetOrAddPregroupedGroup(int64_t group_id, XSpaceStepGroups* groups) {
  auto [it, inserted] = groups->dense_index_by_group_id.try_emplace(
      group_id, static_cast<int32_t>(groups->groups.size()));
  if (inserted) {
    StepGroup g;
    g.group_id = group_id;
    groups->groups.push_back(std::move(g));
  }
  return it->second;
}

XSpaceStepGroups GroupXSpaceSteps(const xplane::XSpaceData& space,
                                  const XPlaneVisitor* host_plane) {
  XSpaceStepGroups out;
  out.pregrouped = IsXSpaceGrouped(space);
  if (host_plane == nullptr) return out;
  const XPlaneVisitor& host = *host_plane;
  out.host_event_group.resize(host.num_lines());
  if (out.pregrouped) {
    GroupPregrouped(host, &out);
    out.group_by_correlation_id.Finish();
    return out;
  }

  // Pass 1: parents by nesting, roots, launch events.
  const std::vector<uint8_t> read_stat = ReadStatMetadata(host);
  std::vector<std::vector<int32_t>> parents(host.num_lines());
  std::vector<RootRef> roots;
  // Launches go into the index at once, their groups set in pass 3; this
  // holds where each is (line << 32 | event).
  std::vector<uint64_t> launch_events;
  std::vector<OpenEvent> stack;
  for (size_t li = 0; li < host.num_lines(); ++li) {
    XLineVisitor line = host.line(li);
    const size_t n = line.num_events();
    parents[li].assign(n, -1);
    out.host_event_group[li].assign(n, -1);
    stack.clear();
    for (size_t ei = 0; ei < n; ++ei) {
      XEventVisitor event = line.event(ei);
      if (event.is_aggregate()) continue;  // Counts, not times.
      const int64_t begin = event.begin_ps();
      const int64_t end = begin + event.duration_ps();
      while (!stack.empty() &&
             !(stack.back().begin_ps <= begin && end <= stack.back().end_ps)) {
        stack.pop_back();
      }
      uint32_t parent_mask = 0;
      if (!stack.empty()) {
        parents[li][ei] = static_cast<int32_t>(stack.back().index);
        parent_mask = stack.back().root_levels_mask;
      }
      HostEventStats s = ReadHostEventStats(event, read_stat);
      uint32_t mask = parent_mask;
      if (s.root_level > 0) {
        int64_t step_num = s.has_iter_num ? s.iter_num : (s.has_step_num ? s.step_num : -1);
        roots.push_back({s.root_level, begin, end, static_cast<uint32_t>(li),
                         static_cast<uint32_t>(ei),
                         (parent_mask & LevelBit(s.root_level)) != 0, step_num, s.graph_type});
        mask |= LevelBit(s.root_level);
      }
      if (s.has_correlation_id && event.host_event_type() == HostEventType::kUnknown) {
        out.group_by_correlation_id.Add(s.correlation_id, -1);
        launch_events.push_back(static_cast<uint64_t>(li) << 32 | ei);
      }
      OpenEvent& open = stack.emplace_back();  // In place: see OpenEvent.
      open.index = static_cast<uint32_t>(ei);
      open.begin_ps = begin;
      open.end_ps = end;
      open.root_levels_mask = mask;
    }
  }

  // Pass 2: groups, in the plugin's root order.
  std::stable_sort(roots.begin(), roots.end(), [](const RootRef& a, const RootRef& b) {
    if (a.level != b.level) return a.level > b.level;
    return a.begin_ps < b.begin_ps;
  });
  for (const RootRef& root : roots) {
    std::vector<int32_t>& groups = out.host_event_group[root.line];
    if (groups[root.event] >= 0 || root.nested_in_same_level_root) continue;
    const int32_t gid = static_cast<int32_t>(out.groups.size());
    groups[root.event] = gid;
    // Descendants follow the root in begin order and start before its end.
    const std::vector<int32_t>& parent = parents[root.line];
    XLineVisitor line = host.line(root.line);
    for (size_t j = root.event + 1; j < line.num_events(); ++j) {
      XEventVisitor event = line.event(j);
      if (event.is_aggregate() || event.begin_ps() >= root.end_ps) break;
      int32_t p = parent[j];
      if (groups[j] < 0 && p >= 0 && groups[p] == gid) groups[j] = gid;
    }
    StepGroup g;
    g.group_id = gid;
    g.step_num = root.step_num;
    g.has_host_span = true;
    g.host_begin_ps = root.begin_ps;
    g.host_end_ps = root.end_ps;
    absl::string_view prefix =
        root.graph_type.empty() ? line.event(root.event).name() : root.graph_type;
    g.name = absl::StrCat(prefix, " ", root.step_num >= 0 ? root.step_num : gid);
    out.groups.push_back(std::move(g));
  }

  parents = {};  // Free before the launch index is built.

  // Pass 3: launch -> device links (the last launch with an id wins).
  for (size_t i = 0; i < launch_events.size(); ++i) {
    const uint64_t at = launch_events[i];
    out.group_by_correlation_id.SetGroup(i, out.host_event_group[at >> 32][at & 0xffffffffu]);
  }
  launch_events = {};
  out.group_by_correlation_id.Finish();
  return out;
}

}  // namespace tbprof::views
