#include "src/xplane/xspace_builder.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace tbprof::xplane {

// ---- XEventBuilder ---------------------------------------------------------

Stat* XEventBuilder::AppendStat(uint32_t stat_metadata_index, StatKind kind) {
  std::vector<Event>& events = line_->events;
  std::vector<Stat>& stats = line_->stats;
  const uint32_t begin = events[event_index_].stats_begin;
  const uint32_t end = line_->stats_end(event_index_);
  // Replace an existing stat of the same metadata (one value per stat).
  for (uint32_t i = begin; i < end; ++i) {
    if (stats[i].metadata_index() == stat_metadata_index) {
      stats[i].set_kind(kind);
      return &stats[i];
    }
  }
  if (event_index_ + 1 == events.size()) {
    stats.push_back(Stat(stat_metadata_index, kind));
    return &stats.back();
  }
  // An older event: insert at the end of its stats, after which the later
  // events' stats begin one further on.
  stats.insert(stats.begin() + end, Stat(stat_metadata_index, kind));
  for (size_t j = event_index_ + 1; j < events.size(); ++j) ++events[j].stats_begin;
  return &stats[end];
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
  event.set_metadata_index(event_metadata_index);
  event.stats_begin = static_cast<uint32_t>(line_->stats.size());
  event.set_has_data(true);
  line_->events.push_back(event);
  return XEventBuilder(plane_, line_, line_->events.size() - 1);
}

XEventBuilder XLineBuilder::AddAggregatedEvent(uint32_t event_metadata_index,
                                               int64_t num_occurrences, int64_t duration_ps) {
  XEventBuilder builder = AddEvent(event_metadata_index, num_occurrences, duration_ps);
  line_->events.back().set_is_aggregate(true);
  return builder;
}

void XLineBuilder::AddInt64Stats(const std::vector<EventInt64Stat>& adds) {
  if (adds.empty()) return;
  std::vector<Event>& events = line_->events;
  std::vector<Stat>& stats = line_->stats;
  // The stats, valued in call order (so wide values are appended as the
  // AddInt64 calls would append them), then grouped by event.
  struct Item {
    uint32_t event_index;
    Stat stat;
  };
  std::vector<Item> items;
  items.reserve(adds.size());
  for (const EventInt64Stat& add : adds) {
    Item item{add.event_index, Stat(add.stat_metadata_index, StatKind::kInt64)};
    item.stat.set_int64_value(add.value, &plane_->plane()->wide_values);
    items.push_back(item);
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.event_index < b.event_index;
  });
  // Each touched event's final stats, in event order: `merged`, event
  // touched[t] owning [merged_begin[t], merged_begin[t + 1]).
  std::vector<uint32_t> touched;
  std::vector<size_t> merged_begin;
  std::vector<Stat> merged;
  for (size_t a = 0; a < items.size();) {
    const uint32_t e = items[a].event_index;
    touched.push_back(e);
    merged_begin.push_back(merged.size());
    const size_t first = merged.size();
    const absl::Span<const Stat> own = line_->event_stats(e);
    merged.insert(merged.end(), own.begin(), own.end());
    for (; a < items.size() && items[a].event_index == e; ++a) {
      const Stat& add = items[a].stat;
      auto same = std::find_if(merged.begin() + first, merged.end(), [&](const Stat& s) {
        return s.metadata_index() == add.metadata_index();
      });
      if (same != merged.end()) {
        *same = add;  // Replaces (one value per stat).
      } else {
        merged.push_back(add);
      }
    }
  }
  merged_begin.push_back(merged.size());
  size_t added = 0;
  for (size_t t = 0; t < touched.size(); ++t) {
    added += merged_begin[t + 1] - merged_begin[t] - line_->stats_count(touched[t]);
  }
  // Grow once, to the exact size, then move everything into place from the
  // back: each stat moves at most once, and never onto one not yet moved.
  const size_t old_size = stats.size();
  if (stats.capacity() < old_size + added) stats.reserve(old_size + added);
  stats.resize(old_size + added);
  size_t src_end = old_size;          // Old stats [0, src_end) are not yet moved.
  size_t dst_end = old_size + added;  // New positions [dst_end, end) are final.
  size_t next = events.size();        // Events [next, size) have their final stats_begin.
  for (size_t t = touched.size(); t-- > 0;) {
    const uint32_t e = touched[t];
    // The untouched events between e and `next` shift as a block.
    const size_t old_end = e + 1 < next ? events[e + 1].stats_begin : src_end;
    const size_t shift = dst_end - src_end;
    std::move_backward(stats.begin() + old_end, stats.begin() + src_end, stats.begin() + dst_end);
    for (size_t j = e + 1; j < next; ++j) events[j].stats_begin += static_cast<uint32_t>(shift);
    const size_t old_begin = events[e].stats_begin;
    const size_t count = merged_begin[t + 1] - merged_begin[t];
    const size_t new_begin = old_end + shift - count;
    std::copy(merged.begin() + merged_begin[t], merged.begin() + merged_begin[t + 1],
              stats.begin() + new_begin);
    events[e].stats_begin = static_cast<uint32_t>(new_begin);
    src_end = old_begin;
    dst_end = new_begin;
    next = e;
  }
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
    if (e.is_aggregate()) return true;
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
  for (size_t i = 0; i < line.events.size(); ++i) {
    const Event& e = line.events[i];
    bool keep = filter.Keep(e);
    std::vector<Stat>& stats = keep ? kept_stats : overflow.stats;
    Event copy = e;
    copy.stats_begin = static_cast<uint32_t>(stats.size());  // Both keep event order.
    const absl::Span<const Stat> own = line.event_stats(i);
    stats.insert(stats.end(), own.begin(), own.end());
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

// Sorts the events of `line` stably by `order`, their stats with them (the
// stats are rebuilt in the new event order: Line's invariant). The stats and
// then the events are rebuilt, so that only one of them is held twice.
template <typename Order>
void SortEvents(Line& line, const Order& order) {
  const std::vector<Event>& events = line.events;
  std::vector<uint32_t> perm(events.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](uint32_t a, uint32_t b) { return order(events[a], events[b]); });
  {
    std::vector<Stat> sorted_stats;
    sorted_stats.reserve(line.stats.size());
    for (uint32_t i : perm) {
      const absl::Span<const Stat> own = line.event_stats(i);
      sorted_stats.insert(sorted_stats.end(), own.begin(), own.end());
    }
    line.stats = std::move(sorted_stats);  // Same size: the old ranges still hold.
  }
  std::vector<Event> sorted;
  sorted.reserve(events.size());
  uint32_t begin = 0;
  for (uint32_t i : perm) {
    Event e = events[i];
    e.stats_begin = begin;
    begin += line.stats_count(i);
    sorted.push_back(e);
  }
  line.events = std::move(sorted);
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
    if (a.is_aggregate() != b.is_aggregate()) return b.is_aggregate();
    if (a.is_aggregate()) return false;
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
      // Most lines arrive in time order; sorting would still copy them.
      if (!std::is_sorted(plane.lines[i].events.begin(), plane.lines[i].events.end(),
                          event_order)) {
        SortEvents(plane.lines[i], event_order);
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
        if (e.is_aggregate()) continue;
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
        if (e.is_aggregate()) continue;
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
