#include "converters/views/steps/xspace_step_grouping.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "converters/views/steps/selected_stats.h"
#include "converters/views/steps/xspace_to_step_db.h"
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

// Stats of one host event that grouping looks at. The flags come first,
// together: the struct is set up for every host event, and a small one is
// zeroed with a few vector stores (a larger one took a `rep stos`, whose
// start-up cost showed in profiles).
struct HostEventStats {
  bool has_step_num = false;
  bool has_iter_num = false;
  bool has_correlation_id = false;
  bool has_group_id = false;
  PrecisionHint precision_hint = PrecisionHint::kUnknown;  // With a hints builder only.
  int root_level = 0;  // 0 = not a root.
  int64_t step_num = 0;
  int64_t iter_num = 0;
  int64_t correlation_id = 0;
  int64_t group_id = 0;
  absl::string_view graph_type;
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

// Marks the `input_types` stat of `hints` (may be null) in a
// ReadStatMetadata() table: 2, read for the hints.
void MarkHintStat(const LaunchPrecisionHintsBuilder* hints, std::vector<uint8_t>* read_stat) {
  if (hints != nullptr) (*read_stat)[hints->types_stat()] = 2;
}

// `read_stat`: ReadStatMetadata() of the event's plane, maybe marked by
// MarkHintStat(), as SelectedStats. With `hints` (may be null: the marked stats are skipped),
// s.precision_hint starts at `inherited_hint` and is refined by the
// event's input types.
HostEventStats ReadHostEventStats(const XEventVisitor& event, const SelectedStats& read_stat,
                                  LaunchPrecisionHintsBuilder* hints = nullptr,
                                  PrecisionHint inherited_hint = PrecisionHint::kUnknown) {
  HostEventStats s;
  s.precision_hint = inherited_hint;
  read_stat.ForEach(event, [&](const XStatVisitor& stat, uint8_t read) {
    if (read == 2) {  // Input types: read for the hints only.
      if (hints != nullptr) hints->Refine(stat, &s.precision_hint);
      return;
    }
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

// The group of each event of the host lines while grouping (-1: none): 2
// bytes per event when the groups fit (fewer than 65535), else 4.
class EventGroupTable {
 public:
  EventGroupTable(const XPlaneVisitor& host, size_t max_groups)
      : narrow_(max_groups < std::numeric_limits<uint16_t>::max()) {
    for (size_t li = 0; li < host.num_lines(); ++li) {
      const size_t n = host.line(li).num_events();
      if (narrow_) {
        narrow_groups_.emplace_back(n, 0);
      } else {
        wide_groups_.emplace_back(n, 0);
      }
    }
  }
  int32_t Get(size_t line, size_t event) const {
    return narrow_ ? int32_t{narrow_groups_[line][event]} - 1
                   : static_cast<int32_t>(wide_groups_[line][event]) - 1;
  }
  void Set(size_t line, size_t event, int32_t group) {
    if (narrow_) {
      narrow_groups_[line][event] = static_cast<uint16_t>(group + 1);
    } else {
      wide_groups_[line][event] = static_cast<uint32_t>(group + 1);
    }
  }
  // The groups of `line` as runs; the table's copy is freed.
  LineEventGroups TakeLine(size_t line) {
    LineEventGroups runs;
    if (narrow_) {
      for (uint16_t g : narrow_groups_[line]) runs.Append(int32_t{g} - 1);
      narrow_groups_[line] = {};
    } else {
      for (uint32_t g : wide_groups_[line]) runs.Append(static_cast<int32_t>(g) - 1);
      wide_groups_[line] = {};
    }
    return runs;
  }

 private:
  bool narrow_;
  // [line][event]: group + 1, 0 for none.
  std::vector<std::vector<uint16_t>> narrow_groups_;
  std::vector<std::vector<uint32_t>> wide_groups_;
};

void GroupPregrouped(const XPlaneVisitor& host, XSpaceStepGroups* out) {
  out->host_event_group.resize(host.num_lines());
  const SelectedStats read_stat(host, ReadStatMetadata(host));
  std::vector<int32_t> groups;
  for (size_t li = 0; li < host.num_lines(); ++li) {
    XLineVisitor line = host.line(li);
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
    out->host_event_group[li] = LineEventGroups(groups);
  }
}

}  // namespace

LineEventGroups::LineEventGroups(const std::vector<int32_t>& group_of_event) {
  for (int32_t group : group_of_event) Append(group);
  runs_.shrink_to_fit();
}

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
                                  const XPlaneVisitor* host_plane,
                                  LaunchPrecisionHintsBuilder* hints) {
  XSpaceStepGroups out;
  out.pregrouped = IsXSpaceGrouped(space);
  if (host_plane == nullptr) return out;
  const XPlaneVisitor& host = *host_plane;
  if (out.pregrouped) {
    GroupPregrouped(host, &out);
    out.group_by_correlation_id.Finish();
    return out;
  }

  // Pass 1: roots, launch events.
  std::vector<uint8_t> read_table = ReadStatMetadata(host);
  MarkHintStat(hints, &read_table);
  const SelectedStats read_stat(host, std::move(read_table));
  std::vector<RootRef> roots;
  // Launches go into the index at once, their groups set in pass 3; this
  // marks which events they are, a bit per event of each line.
  std::vector<std::vector<uint64_t>> is_launch(host.num_lines());
  {
    size_t num_events = 0;  // At most one launch per event.
    for (size_t li = 0; li < host.num_lines(); ++li) num_events += host.line(li).num_events();
    out.group_by_correlation_id.Reserve(num_events);
  }
  // The nesting stack: `stack[0, depth)`, grown by doubling (a push is a
  // store and an increment; vector::emplace_back was a call per event).
  std::vector<OpenEvent> stack(64);
  size_t depth = 0;
  for (size_t li = 0; li < host.num_lines(); ++li) {
    XLineVisitor line = host.line(li);
    const size_t n = line.num_events();
    is_launch[li].assign((n + 63) / 64, 0);
    depth = 0;
    // The hints are built from the thread lines, aggregates included.
    LaunchPrecisionHintsBuilder* const line_hints =
        hints != nullptr && !IsDerivedLine(line.id(), line.name()) ? hints : nullptr;
    if (line_hints != nullptr) line_hints->StartLine();
    for (size_t ei = 0; ei < n; ++ei) {
      XEventVisitor event = line.event(ei);
      if (event.is_aggregate()) {  // Counts, not times.
        if (line_hints != nullptr) line_hints->AddEvent(event);
        continue;
      }
      const int64_t begin = event.begin_ps();
      const int64_t end = begin + event.duration_ps();
      while (depth > 0 &&
             !(stack[depth - 1].begin_ps <= begin && end <= stack[depth - 1].end_ps)) {
        --depth;
      }
      const uint32_t parent_mask = depth == 0 ? 0 : stack[depth - 1].root_levels_mask;
      HostEventStats s =
          line_hints != nullptr
              ? ReadHostEventStats(event, read_stat, line_hints, line_hints->Open(begin))
              : ReadHostEventStats(event, read_stat);
      if (line_hints != nullptr) {
        line_hints->Close(end, s.precision_hint, s.has_correlation_id, s.correlation_id);
      }
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
        is_launch[li][ei / 64] |= uint64_t{1} << (ei % 64);
      }
      if (depth == stack.size()) stack.resize(2 * depth);
      OpenEvent& open = stack[depth++];  // In place: see OpenEvent.
      open.index = static_cast<uint32_t>(ei);
      open.begin_ps = begin;
      open.end_ps = end;
      open.root_levels_mask = mask;
    }
  }

  // Pass 2: groups, in the plugin's root order. The group of each event is
  // run-length encoded into `out` at the end.
  EventGroupTable event_group(host, roots.size());
  std::stable_sort(roots.begin(), roots.end(), [](const RootRef& a, const RootRef& b) {
    if (a.level != b.level) return a.level > b.level;
    return a.begin_ps < b.begin_ps;
  });
  std::vector<OpenEvent> open_in_root;
  for (const RootRef& root : roots) {
    const size_t li = root.line;
    if (event_group.Get(li, root.event) >= 0 || root.nested_in_same_level_root) continue;
    const int32_t gid = static_cast<int32_t>(out.groups.size());
    event_group.Set(li, root.event, gid);
    // Descendants follow the root in begin order and start before its end.
    // An event's parent is found again as in pass 1, by nesting; the stack
    // starts at the root: the innermost event around an event inside the
    // root is the root or comes after it (events before it that contain
    // the event contain the root too).
    XLineVisitor line = host.line(root.line);
    open_in_root.clear();
    OpenEvent& top = open_in_root.emplace_back();
    top.index = root.event;
    top.begin_ps = root.begin_ps;
    top.end_ps = root.end_ps;
    for (size_t j = root.event + 1; j < line.num_events(); ++j) {
      XEventVisitor event = line.event(j);
      const int64_t begin = event.begin_ps();
      if (event.is_aggregate() || begin >= root.end_ps) break;
      const int64_t end = begin + event.duration_ps();
      while (!open_in_root.empty() && !(open_in_root.back().begin_ps <= begin &&
                                        end <= open_in_root.back().end_ps)) {
        open_in_root.pop_back();
      }
      if (!open_in_root.empty() && event_group.Get(li, open_in_root.back().index) == gid &&
          event_group.Get(li, j) < 0) {
        event_group.Set(li, j, gid);
      }
      OpenEvent& open = open_in_root.emplace_back();  // In place: see OpenEvent.
      open.index = static_cast<uint32_t>(j);
      open.begin_ps = begin;
      open.end_ps = end;
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

  // Pass 3: launch -> device links (the last launch with an id wins), in
  // the order of pass 1.
  size_t launch = 0;
  for (size_t li = 0; li < is_launch.size(); ++li) {
    for (size_t w = 0; w < is_launch[li].size(); ++w) {
      for (uint64_t bits = is_launch[li][w]; bits != 0; bits &= bits - 1) {
        const size_t ei = w * 64 + static_cast<size_t>(__builtin_ctzll(bits));
        out.group_by_correlation_id.SetGroup(launch++, event_group.Get(li, ei));
      }
    }
  }
  is_launch = {};
  out.host_event_group.reserve(host.num_lines());
  for (size_t li = 0; li < host.num_lines(); ++li) {
    out.host_event_group.push_back(event_group.TakeLine(li));
  }
  out.group_by_correlation_id.Finish();
  return out;
}

}  // namespace tbprof::views
