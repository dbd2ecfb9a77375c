#include "src/xplane/xspace_builder.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace tbprof::xplane {

// ---- XEventBuilder ---------------------------------------------------------

Stat* XEventBuilder::AppendStat(uint32_t stat_metadata_index, StatKind kind) {
  Event& event = line_->events[event_index_];
  std::vector<Stat>& stats = line_->stats;
  if (event.stats_count == std::numeric_limits<uint16_t>::max()) return nullptr;
  if (event.stats_count == 0) {
    event.stats_begin = static_cast<uint32_t>(stats.size());
  } else if (event.stats_begin + event.stats_count != stats.size()) {
    // Stats of an older event: move them to the end so they stay contiguous.
    uint32_t new_begin = static_cast<uint32_t>(stats.size());
    for (uint32_t i = 0; i < event.stats_count; ++i) stats.push_back(stats[event.stats_begin + i]);
    event.stats_begin = new_begin;
  }
  // Replace an existing stat of the same metadata (one value per stat).
  for (uint32_t i = 0; i < event.stats_count; ++i) {
    Stat& s = stats[event.stats_begin + i];
    if (s.metadata_index() == stat_metadata_index) {
      s.set_kind(kind);
      return &s;
    }
  }
  stats.push_back(Stat(stat_metadata_index, kind));
  ++event.stats_count;
  return &stats.back();
}

void XEventBuilder::AddInt64(uint32_t stat_metadata_index, int64_t value) {
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kInt64)) {
    s->set_int64_value(value, &plane_->plane()->wide_values);
  }
}
void XEventBuilder::AddUint64(uint32_t stat_metadata_index, uint64_t value) {
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kUint64)) {
    s->set_uint64_value(value, &plane_->plane()->wide_values);
  }
}
void XEventBuilder::AddDouble(uint32_t stat_metadata_index, double value) {
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kDouble)) {
    s->set_double_value(value, &plane_->plane()->wide_values);
  }
}
void XEventBuilder::AddString(uint32_t stat_metadata_index, absl::string_view value) {
  uint32_t id = plane_->space()->strings.Intern(value);
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kStr)) s->set_str_id(id);
}
void XEventBuilder::AddBytes(uint32_t stat_metadata_index, absl::string_view value) {
  uint32_t id = plane_->space()->strings.Intern(value);
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kBytes)) s->set_str_id(id);
}
void XEventBuilder::AddRef(uint32_t stat_metadata_index, absl::string_view value) {
  AddRefToMetadata(stat_metadata_index, plane_->GetOrCreateStatMetadata(value));
}
void XEventBuilder::AddRefToMetadata(uint32_t stat_metadata_index, uint32_t ref_metadata_index) {
  uint64_t ref_id = static_cast<uint64_t>(plane_->plane()->stat_metadata[ref_metadata_index].id);
  if (Stat* s = AppendStat(stat_metadata_index, StatKind::kRef)) {
    s->set_uint64_value(ref_id, &plane_->plane()->wide_values);
  }
}

// ---- XLineBuilder ----------------------------------------------------------

void XLineBuilder::SetName(absl::string_view name) {
  line_->name = plane_->space()->strings.Intern(name);
}
void XLineBuilder::SetDisplayName(absl::string_view name) {
  line_->display_name = plane_->space()->strings.Intern(name);
}

XEventBuilder XLineBuilder::AddEvent(uint32_t event_metadata_index, int64_t offset_ps,
                                     int64_t duration_ps) {
  Event event;
  event.offset_ps = offset_ps;
  event.duration_ps = duration_ps;
  event.metadata_index = event_metadata_index;
  event.stats_begin = static_cast<uint32_t>(line_->stats.size());
  event.stats_count = 0;
  event.is_aggregate = false;
  event.has_data = true;
  line_->events.push_back(event);
  return XEventBuilder(plane_, line_, line_->events.size() - 1);
}

XEventBuilder XLineBuilder::AddAggregatedEvent(uint32_t event_metadata_index,
                                               int64_t num_occurrences, int64_t duration_ps) {
  XEventBuilder builder = AddEvent(event_metadata_index, num_occurrences, duration_ps);
  line_->events.back().is_aggregate = true;
  return builder;
}

// ---- XPlaneBuilder ---------------------------------------------------------

XPlaneBuilder::XPlaneBuilder(XSpaceData* space, Plane* plane) : space_(space), plane_(plane) {
  for (uint32_t i = 0; i < plane_->event_metadata.size(); ++i) {
    event_metadata_by_name_.emplace(plane_->event_metadata[i].name, i);
  }
  for (uint32_t i = 0; i < plane_->stat_metadata.size(); ++i) {
    stat_metadata_by_name_.emplace(plane_->stat_metadata[i].name, i);
  }
  for (Line& line : plane_->lines) {
    lines_.emplace(line.id, std::make_unique<XLineBuilder>(this, &line));
  }
}

absl::string_view XPlaneBuilder::name() const { return space_->strings.Get(plane_->name); }

uint32_t XPlaneBuilder::GetOrCreateEventMetadata(absl::string_view name) {
  return GetOrCreateEventMetadataForName(space_->strings.Intern(name));
}

uint32_t XPlaneBuilder::GetOrCreateEventMetadataForName(uint32_t name_id) {
  auto [it, inserted] = event_metadata_by_name_.try_emplace(
      name_id, static_cast<uint32_t>(plane_->event_metadata.size()));
  if (inserted) {
    EventMetadata md;
    md.id = md.key = static_cast<int64_t>(plane_->event_metadata.size()) + 1;
    md.name = name_id;
    plane_->event_metadata.push_back(std::move(md));
  }
  return it->second;
}

void XPlaneBuilder::SetEventDisplayName(uint32_t index, absl::string_view display_name) {
  plane_->event_metadata[index].display_name = space_->strings.Intern(display_name);
}

uint32_t XPlaneBuilder::GetOrCreateStatMetadata(absl::string_view name) {
  return GetOrCreateStatMetadataForName(space_->strings.Intern(name));
}

uint32_t XPlaneBuilder::GetOrCreateStatMetadataForName(uint32_t name_id) {
  auto [it, inserted] = stat_metadata_by_name_.try_emplace(
      name_id, static_cast<uint32_t>(plane_->stat_metadata.size()));
  if (inserted) {
    StatMetadata md;
    md.id = md.key = static_cast<int64_t>(plane_->stat_metadata.size()) + 1;
    md.name = name_id;
    plane_->stat_metadata.push_back(md);
  }
  return it->second;
}

XLineBuilder* XPlaneBuilder::GetOrCreateLine(int64_t line_id) {
  auto it = lines_.find(line_id);
  if (it != lines_.end()) return it->second.get();
  Line& line = plane_->lines.emplace_back();
  line.id = line_id;
  line.display_id = line_id;
  auto builder = std::make_unique<XLineBuilder>(this, &line);
  XLineBuilder* result = builder.get();
  lines_.emplace(line_id, std::move(builder));
  return result;
}

XLineBuilder* XPlaneBuilder::FindLine(int64_t line_id) {
  auto it = lines_.find(line_id);
  return it == lines_.end() ? nullptr : it->second.get();
}

Stat* XPlaneBuilder::FindOrAppendPlaneStat(uint32_t stat_metadata_index) {
  for (Stat& s : plane_->stats) {
    if (s.metadata_index() == stat_metadata_index) return &s;
  }
  plane_->stats.push_back(Stat(stat_metadata_index, StatKind::kNone));
  return &plane_->stats.back();
}

void XPlaneBuilder::SetStatInt64(uint32_t index, int64_t value) {
  Stat* s = FindOrAppendPlaneStat(index);
  s->set_kind(StatKind::kInt64);
  s->set_int64_value(value, &plane_->wide_values);
}
void XPlaneBuilder::SetStatUint64(uint32_t index, uint64_t value) {
  Stat* s = FindOrAppendPlaneStat(index);
  s->set_kind(StatKind::kUint64);
  s->set_uint64_value(value, &plane_->wide_values);
}
void XPlaneBuilder::SetStatDouble(uint32_t index, double value) {
  Stat* s = FindOrAppendPlaneStat(index);
  s->set_kind(StatKind::kDouble);
  s->set_double_value(value, &plane_->wide_values);
}
void XPlaneBuilder::SetStatString(uint32_t index, absl::string_view value) {
  uint32_t id = space_->strings.Intern(value);
  Stat* s = FindOrAppendPlaneStat(index);
  s->set_kind(StatKind::kStr);
  s->set_str_id(id);
}

// ---- XSpaceBuilder ---------------------------------------------------------

XSpaceBuilder::XSpaceBuilder(XSpaceData* space) : space_(space) {
  for (Plane& plane : space_->planes) {
    planes_.push_back(std::make_unique<XPlaneBuilder>(space_, &plane));
  }
}

XPlaneBuilder* XSpaceBuilder::FindPlane(absl::string_view name) {
  for (auto& builder : planes_) {
    if (builder->name() == name) return builder.get();
  }
  return nullptr;
}

XPlaneBuilder* XSpaceBuilder::GetOrCreatePlane(absl::string_view name) {
  if (XPlaneBuilder* found = FindPlane(name)) return found;
  int64_t next_id = 0;
  for (const Plane& p : space_->planes) next_id = std::max(next_id, p.id + 1);
  Plane& plane = space_->planes.emplace_back();
  plane.id = next_id;
  plane.name = space_->strings.Intern(name);
  planes_.push_back(std::make_unique<XPlaneBuilder>(space_, &plane));
  return planes_.back().get();
}

namespace {

// Sort rank of a plane: host threads first, GPUs by ordinal, then others.
std::pair<int, int64_t> PlaneRank(absl::string_view name) {
  if (name == kHostThreadsPlaneName) return {0, 0};
  if (auto ordinal = ParseGpuPlaneOrdinal(name)) return {1, *ordinal};
  return {2, 0};
}

// Moves the events that partially overlap an enclosing event (they start
// inside it and end after it, e.g. kernels of one stream under programmatic
// dependent launch) out of `line`, with their stats, into `overflow`
// (appended; events stay sorted). Durations are never changed. Events must be
// sorted by (begin asc, duration desc). Returns the number moved.
// Decides, in order, whether each event of a sorted line stays on it: an
// event that starts inside an open event and ends after it does not.
class OverlapFilter {
 public:
  bool Keep(const Event& e) {
    if (e.is_aggregate) return true;
    while (!open_ends_.empty() && open_ends_.back() <= e.offset_ps) open_ends_.pop_back();
    int64_t end = e.offset_ps + e.duration_ps;
    if (!open_ends_.empty() && end > open_ends_.back()) return false;
    open_ends_.push_back(end);
    return true;
  }

 private:
  std::vector<int64_t> open_ends_;
};

int64_t MoveOverlapsOut(Line& line, Line& overflow) {
  // Nearly every line has no such event: find out without copying it.
  size_t first_moved = 0;
  {
    OverlapFilter filter;
    while (first_moved < line.events.size() && filter.Keep(line.events[first_moved])) {
      ++first_moved;
    }
  }
  if (first_moved == line.events.size()) return 0;
  int64_t moved = 0;
  OverlapFilter filter;
  std::vector<Event> kept;
  std::vector<Stat> kept_stats;
  kept.reserve(line.events.size());
  for (const Event& e : line.events) {
    bool keep = filter.Keep(e);
    std::vector<Stat>& stats = keep ? kept_stats : overflow.stats;
    Event copy = e;
    copy.stats_begin = static_cast<uint32_t>(stats.size());
    stats.insert(stats.end(), line.stats.begin() + e.stats_begin,
                 line.stats.begin() + e.stats_begin + e.stats_count);
    if (keep) {
      kept.push_back(copy);
    } else {
      overflow.events.push_back(copy);
      ++moved;
    }
  }
  line.events = std::move(kept);
  line.stats = std::move(kept_stats);
  return moved;
}

// First line id from which overflow lines are numbered: below the plugin's
// derived-line ids (0xdeadbeef...) and above the ids our converters use.
constexpr int64_t kFirstOverflowLineId = 0x40000000;

int64_t ClampToInt64(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace

FinalizeStats XSpaceBuilder::Finalize(const FinalizeOptions& options) {
  FinalizeStats stats;
  // Order planes; builders' plane pointers become invalid afterwards.
  std::vector<size_t> order(space_->planes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    auto ra = PlaneRank(space_->strings.Get(space_->planes[a].name));
    auto rb = PlaneRank(space_->strings.Get(space_->planes[b].name));
    if (ra != rb) return ra < rb;
    if (ra.first == 2) {
      return space_->strings.Get(space_->planes[a].name) <
             space_->strings.Get(space_->planes[b].name);
    }
    return false;
  });
  std::deque<Plane> sorted;
  for (size_t i : order) sorted.push_back(std::move(space_->planes[i]));
  space_->planes = std::move(sorted);
  planes_.clear();

  // Sort lines and events.
  auto event_order = [](const Event& a, const Event& b) {
    // Aggregated events carry a count, not a time: keep them last.
    if (a.is_aggregate != b.is_aggregate) return b.is_aggregate;
    if (a.is_aggregate) return false;
    if (a.offset_ps != b.offset_ps) return a.offset_ps < b.offset_ps;
    return a.duration_ps > b.duration_ps;
  };
  for (Plane& plane : space_->planes) {
    std::stable_sort(plane.lines.begin(), plane.lines.end(),
                     [](const Line& a, const Line& b) { return a.id < b.id; });
    int64_t next_overflow_id = kFirstOverflowLineId;
    for (const Line& line : plane.lines) {
      if (line.id >= next_overflow_id && line.id < kThreadIdStepInfo) next_overflow_id = line.id + 1;
    }
    // Overflow lines are appended and then checked in turn, so events that
    // overlap on an overflow line move on to another one.
    for (size_t i = 0; i < plane.lines.size(); ++i) {
      std::vector<Event>& events = plane.lines[i].events;
      // Most lines arrive in time order; stable_sort would still copy them.
      if (!std::is_sorted(events.begin(), events.end(), event_order)) {
        std::stable_sort(events.begin(), events.end(), event_order);
      }
      if (!options.enforce_nesting) continue;
      Line overflow;
      int64_t moved = MoveOverlapsOut(plane.lines[i], overflow);
      if (moved == 0) continue;
      stats.events_moved += moved;
      const Line& source = plane.lines[i];
      overflow.id = next_overflow_id++;
      overflow.display_id = overflow.id;
      overflow.timestamp_ns = source.timestamp_ns;
      overflow.name = space_->strings.Intern(
          absl::StrCat(space_->strings.Get(source.name), " (overlapping)"));
      plane.lines.push_back(std::move(overflow));
    }
  }
  // Builders index lines by address; re-create them over the sorted planes.
  for (Plane& plane : space_->planes) {
    planes_.push_back(std::make_unique<XPlaneBuilder>(space_, &plane));
  }

  // Session span, relative to the smallest line timestamp.
  bool any_event = false;
  int64_t ref_ns = std::numeric_limits<int64_t>::max();
  for (const Plane& plane : space_->planes) {
    for (const Line& line : plane.lines) {
      if (!line.events.empty()) ref_ns = std::min(ref_ns, line.timestamp_ns);
    }
  }
  __int128 start_ps = 0, end_ps = 0;
  for (const Plane& plane : space_->planes) {
    for (const Line& line : plane.lines) {
      __int128 line_base_ps = static_cast<__int128>(line.timestamp_ns - ref_ns) * 1000;
      for (const Event& e : line.events) {
        if (e.is_aggregate) continue;
        __int128 begin = line_base_ps + e.offset_ps;
        __int128 end = begin + e.duration_ps;
        if (!any_event) {
          start_ps = begin;
          end_ps = end;
          any_event = true;
        } else {
          start_ps = std::min(start_ps, begin);
          end_ps = std::max(end_ps, end);
        }
      }
    }
  }
  if (!any_event) return stats;
  stats.session_start_ps = ClampToInt64(start_ps);
  stats.session_end_ps = ClampToInt64(end_ps);
  if (!options.normalize_timestamps) return stats;

  for (Plane& plane : space_->planes) {
    for (Line& line : plane.lines) {
      __int128 shift = static_cast<__int128>(line.timestamp_ns - ref_ns) * 1000 - start_ps;
      int64_t line_end = 0;
      for (Event& e : line.events) {
        if (e.is_aggregate) continue;
        e.offset_ps = ClampToInt64(shift + e.offset_ps);
        line_end = std::max(line_end, e.offset_ps + e.duration_ps);
      }
      line.timestamp_ns = 0;
      line.duration_ps = line_end;
    }
  }
  // Record the real (epoch) session span for the plugin.
  __int128 epoch_start_ns = static_cast<__int128>(options.epoch_ns_of_zero) + ref_ns + start_ps / 1000;
  __int128 epoch_stop_ns = epoch_start_ns + (end_ps - start_ps) / 1000;
  XPlaneBuilder* env = GetOrCreatePlane(kTaskEnvPlaneName);
  env->SetStatInt64(env->GetOrCreateStatMetadata(StatType::kProfileStartTime),
                    ClampToInt64(epoch_start_ns));
  env->SetStatInt64(env->GetOrCreateStatMetadata(StatType::kProfileStopTime),
                    ClampToInt64(epoch_stop_ns));
  return stats;
}

}  // namespace tbprof::xplane
