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

HostEventStats ReadHostEventStats(const XEventVisitor& event) {
  HostEventStats s;
  event.ForEachStat([&](const XStatVisitor& stat) {
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

// Open event on a line's nesting stack.
struct OpenEvent {
  uint32_t index;
  int64_t begin_ps;
  int64_t end_ps;
  uint32_t root_levels_mask;  // Root levels of this event and its ancestors.
};

uint32_t LevelBit(int level) { return 1u << std::min(std::max(level, 0), 31); }

void GroupPregrouped(const XPlaneVisitor& host, XSpaceStepGroups* out) {
  for (size_t li = 0; li < host.num_lines(); ++li) {
    XLineVisitor line = host.line(li);
    std::vector<int32_t>& groups = out->host_event_group[li];
    groups.assign(line.num_events(), -1);
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      XEventVisitor event = line.event(ei);
      if (event.is_aggregate()) continue;
      HostEventStats s = ReadHostEventStats(event);
      if (!s.has_group_id) continue;
      int32_t dense = GetOrAddPregroupedGroup(s.group_id, out);
      groups[ei] = dense;
      if (s.has_correlation_id) out->group_by_correlation_id[s.correlation_id] = dense;
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
    return out;
  }

  // Pass 1: parents by nesting, roots, launch events.
  std::vector<std::vector<int32_t>> parents(host.num_lines());
  std::vector<RootRef> roots;
  struct Launch {
    uint32_t line;
    uint32_t event;
    int64_t correlation_id;
  };
  std::vector<Launch> launches;
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
      HostEventStats s = ReadHostEventStats(event);
      uint32_t mask = parent_mask;
      if (s.root_level > 0) {
        int64_t step_num = s.has_iter_num ? s.iter_num : (s.has_step_num ? s.step_num : -1);
        roots.push_back({s.root_level, begin, end, static_cast<uint32_t>(li),
                         static_cast<uint32_t>(ei),
                         (parent_mask & LevelBit(s.root_level)) != 0, step_num, s.graph_type});
        mask |= LevelBit(s.root_level);
      }
      if (s.has_correlation_id && event.host_event_type() == HostEventType::kUnknown) {
        launches.push_back({static_cast<uint32_t>(li), static_cast<uint32_t>(ei),
                            s.correlation_id});
      }
      stack.push_back({static_cast<uint32_t>(ei), begin, end, mask});
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

  // Pass 3: launch -> device links (the last launch with an id wins).
  out.group_by_correlation_id.reserve(launches.size());
  for (const Launch& l : launches) {
    out.group_by_correlation_id[l.correlation_id] = out.host_event_group[l.line][l.event];
  }
  return out;
}

}  // namespace tbprof::views
