#include "src/xplane/xspace_merge.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::xplane {
namespace {

bool IsStringKind(StatKind kind) {
  return kind == StatKind::kStr || kind == StatKind::kBytes || kind == StatKind::kCompressedStr;
}

// Restores the begin-then-longest-first order of a line whose events were
// appended part after part, moving each event's stats with it. Lines with
// aggregated events (no times) keep their order.
void SortLine(Line* line) {
  const std::vector<Event>& events = line->events;
  bool sorted = true;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].is_aggregate()) return;
    if (i > 0 && (events[i].offset_ps < events[i - 1].offset_ps ||
                  (events[i].offset_ps == events[i - 1].offset_ps &&
                   events[i].duration_ps > events[i - 1].duration_ps))) {
      sorted = false;
    }
  }
  if (sorted) return;
  std::vector<uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (events[a].offset_ps != events[b].offset_ps) return events[a].offset_ps < events[b].offset_ps;
    return events[a].duration_ps > events[b].duration_ps;
  });
  Line sorted_line;
  sorted_line.events.reserve(events.size());
  sorted_line.stats.reserve(line->stats.size());
  for (uint32_t i : order) {
    Event e = events[i];
    e.stats_begin = static_cast<uint32_t>(sorted_line.stats.size());
    for (const Stat& s : line->event_stats(i)) sorted_line.stats.push_back(s);
    sorted_line.events.push_back(e);
  }
  line->events = std::move(sorted_line.events);
  line->stats = std::move(sorted_line.stats);
}

// Merges plane `from` of space `src` into plane `to` of `out`.
class PlaneMerger {
 public:
  PlaneMerger(const XSpaceData& src, const Plane& from, XSpaceData* out, Plane* to)
      : src_(src), from_(from), out_(out), to_(to), str_remap_(src.strings.size(), kUnmapped) {
    str_remap_[0] = 0;
  }

  absl::Status Merge() {
    // Stat metadata first: event metadata stats and event stats refer to them.
    absl::flat_hash_map<int64_t, uint32_t> stat_by_id, event_by_id;
    for (uint32_t i = 0; i < to_->stat_metadata.size(); ++i) stat_by_id[to_->stat_metadata[i].id] = i;
    for (uint32_t i = 0; i < to_->event_metadata.size(); ++i) {
      event_by_id[to_->event_metadata[i].id] = i;
    }
    stat_index_.resize(from_.stat_metadata.size());
    for (uint32_t i = 0; i < from_.stat_metadata.size(); ++i) {
      const StatMetadata& md = from_.stat_metadata[i];
      auto it = stat_by_id.find(md.id);
      if (it != stat_by_id.end()) {
        if (out_->strings.Get(to_->stat_metadata[it->second].name) != src_.strings.Get(md.name)) {
          return Mismatch("stat", md.id);
        }
        stat_index_[i] = it->second;
        continue;
      }
      StatMetadata copy = md;
      copy.name = Str(md.name);
      copy.description = Str(md.description);
      stat_index_[i] = static_cast<uint32_t>(to_->stat_metadata.size());
      to_->stat_metadata.push_back(copy);
      stat_by_id[md.id] = stat_index_[i];
    }
    event_index_.resize(from_.event_metadata.size());
    for (uint32_t i = 0; i < from_.event_metadata.size(); ++i) {
      const EventMetadata& md = from_.event_metadata[i];
      auto it = event_by_id.find(md.id);
      if (it != event_by_id.end()) {
        if (out_->strings.Get(to_->event_metadata[it->second].name) != src_.strings.Get(md.name)) {
          return Mismatch("event", md.id);
        }
        event_index_[i] = it->second;
        continue;
      }
      EventMetadata copy = md;
      copy.name = Str(md.name);
      copy.display_name = Str(md.display_name);
      copy.metadata = Str(md.metadata);
      for (Stat& s : copy.stats) s = CopyStat(s);
      event_index_[i] = static_cast<uint32_t>(to_->event_metadata.size());
      to_->event_metadata.push_back(std::move(copy));
      event_by_id[md.id] = event_index_[i];
    }
    for (const Line& line : from_.lines) {
      Line* target = nullptr;
      for (Line& l : to_->lines) {
        if (l.id == line.id) target = &l;
      }
      if (target == nullptr) {
        target = &to_->lines.emplace_back();
        target->id = line.id;
        target->display_id = line.display_id;
        target->name = Str(line.name);
        target->display_name = Str(line.display_name);
        target->timestamp_ns = line.timestamp_ns;
      }
      // Offsets are relative to the line's timestamp: bring them to the target's.
      const int64_t shift_ps = (line.timestamp_ns - target->timestamp_ns) * 1000;
      for (size_t i = 0; i < line.events.size(); ++i) {
        Event e = line.events[i];
        e.set_metadata_index(event_index_[e.metadata_index()]);
        if (!e.is_aggregate()) e.offset_ps += shift_ps;
        e.stats_begin = static_cast<uint32_t>(target->stats.size());
        for (const Stat& s : line.event_stats(i)) target->stats.push_back(CopyStat(s));
        target->events.push_back(e);
      }
      target->duration_ps = std::max(target->duration_ps, line.duration_ps + shift_ps);
    }
    return absl::OkStatus();
  }

 private:
  static constexpr uint32_t kUnmapped = std::numeric_limits<uint32_t>::max();

  uint32_t Str(uint32_t id) {
    if (str_remap_[id] == kUnmapped) str_remap_[id] = out_->strings.Intern(src_.strings.Get(id));
    return str_remap_[id];
  }
  Stat CopyStat(const Stat& stat) {
    Stat s = stat.copy_wide_value(from_.wide_values, &to_->wide_values);
    s.set_metadata_index(stat_index_[stat.metadata_index()]);
    if (IsStringKind(s.kind())) s.set_str_id(Str(s.str_id()));
    return s;
  }
  absl::Status Mismatch(const char* what, int64_t id) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "plane \"", src_.strings.Get(from_.name), "\": ", what, " metadata id ", id,
        " has another name than in the first part; these are not parts of one profile"));
  }

  const XSpaceData& src_;
  const Plane& from_;
  XSpaceData* out_;
  Plane* to_;
  std::vector<uint32_t> str_remap_;
  std::vector<uint32_t> stat_index_, event_index_;
};

// The index of the int64 plane stat of `plane` named `name`, or -1.
int FindPlaneStat(const XSpaceData& space, const Plane& plane, absl::string_view name) {
  for (size_t i = 0; i < plane.stats.size(); ++i) {
    const Stat& s = plane.stats[i];
    if (s.kind() == StatKind::kInt64 &&
        space.strings.Get(plane.stat_metadata[s.metadata_index()].name) == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

bool IsSplitPartWarning(absl::string_view warning) {
  return absl::StartsWith(warning, "tbprof: part ") &&
         absl::StrContains(warning, " of a profile split to fit TensorBoard's memory");
}

absl::StatusOr<XSpaceData> MergeXSpaceParts(std::vector<XSpaceData> parts) {
  if (parts.empty()) return absl::InvalidArgumentError("no parts to merge");
  XSpaceData out = std::move(parts[0]);
  out.warnings.erase(std::remove_if(out.warnings.begin(), out.warnings.end(),
                                    [](const std::string& w) { return IsSplitPartWarning(w); }),
                     out.warnings.end());
  const std::string start_name(StatTypeName(StatType::kProfileStartTime));
  const std::string stop_name(StatTypeName(StatType::kProfileStopTime));
  for (size_t p = 1; p < parts.size(); ++p) {
    const XSpaceData& part = parts[p];
    for (const Plane& from : part.planes) {
      const absl::string_view name = part.strings.Get(from.name);
      Plane* to = nullptr;
      for (Plane& plane : out.planes) {
        if (plane.id == from.id && out.strings.Get(plane.name) == name) to = &plane;
      }
      if (to == nullptr) {
        to = &out.planes.emplace_back();
        to->id = from.id;
        to->name = out.strings.Intern(name);
      }
      if (absl::Status status = PlaneMerger(part, from, &out, to).Merge(); !status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("part ", p + 1, ": ", status.message()));
      }
      if (name != kTaskEnvPlaneName) continue;
      // The session spans every part.
      const int start = FindPlaneStat(out, *to, start_name);
      const int stop = FindPlaneStat(out, *to, stop_name);
      const int part_start = FindPlaneStat(part, from, start_name);
      const int part_stop = FindPlaneStat(part, from, stop_name);
      if (start >= 0 && part_start >= 0) {
        Stat& s = to->stats[start];
        s.set_int64_value(std::min(s.int64_value(to->wide_values),
                                   from.stats[part_start].int64_value(from.wide_values)),
                          &to->wide_values);
      }
      if (stop >= 0 && part_stop >= 0) {
        Stat& s = to->stats[stop];
        s.set_int64_value(std::max(s.int64_value(to->wide_values),
                                   from.stats[part_stop].int64_value(from.wide_values)),
                          &to->wide_values);
      }
    }
    XSpaceData empty;
    parts[p] = std::move(empty);  // Free the part as soon as it is merged.
  }
  for (Plane& plane : out.planes) {
    for (Line& line : plane.lines) SortLine(&line);
  }
  return out;
}

}  // namespace tbprof::xplane
