// Reading side of XSpaceData: cheap value-type visitors over planes, lines,
// events and stats, with names resolved and stats typed through the schema.
//
// Times are integer picoseconds relative to the space's base (the smallest
// line timestamp_ns in the space), so they never overflow even for files
// whose lines carry Unix-epoch timestamps.
//
// Visitors borrow the XSpaceData; it must outlive them and stay unmodified.
#ifndef TBPROF_SRC_XPLANE_XSPACE_VISITOR_H_
#define TBPROF_SRC_XPLANE_XSPACE_VISITOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::xplane {

class XPlaneVisitor;

class XStatVisitor {
 public:
  XStatVisitor(const XPlaneVisitor* plane, const Stat* stat) : plane_(plane), stat_(stat) {}

  StatKind kind() const { return stat_->kind(); }
  StatType type() const;
  absl::string_view name() const;
  uint32_t metadata_index() const { return stat_->metadata_index(); }

  // int64_value only (0 otherwise), as the plugin's IntValue().
  int64_t IntValue() const { return stat_->kind() == StatKind::kInt64 ? stat_->int64_value(wide()) : 0; }
  // int64 or uint64 value (uint64 cast), 0 otherwise.
  int64_t IntOrUintValue() const;
  uint64_t UintValue() const {
    return stat_->kind() == StatKind::kUint64 ? stat_->uint64_value(wide()) : 0;
  }
  double DoubleValue() const {
    return stat_->kind() == StatKind::kDouble ? stat_->double_value(wide()) : 0;
  }
  // Any numeric value as double.
  double NumericValue() const;
  // str_value or the name a ref_value points to; "" otherwise.
  absl::string_view StrOrRefValue() const;
  // The stat-metadata id a kRef stat points to (its string is that
  // metadata's name); 0 for other kinds.
  uint64_t RefId() const { return stat_->kind() == StatKind::kRef ? stat_->uint64_value(wide()) : 0; }
  absl::string_view BytesValue() const;
  // Human-readable rendering of any kind.
  std::string ToString() const;

 private:
  const WideValues& wide() const;  // The plane's (Stat).

  const XPlaneVisitor* plane_;
  const Stat* stat_;
};

class XEventVisitor {
 public:
  // `event` points into line->events.
  XEventVisitor(const XPlaneVisitor* plane, const Line* line, const Event* event)
      : plane_(plane), line_(line), event_(event) {}

  absl::string_view name() const;
  absl::string_view display_name() const;
  uint32_t metadata_index() const { return event_->metadata_index(); }
  HostEventType host_event_type() const;

  int64_t begin_ps() const;
  int64_t duration_ps() const { return event_->duration_ps; }
  int64_t end_ps() const { return begin_ps() + event_->duration_ps; }
  // Raw XEvent.offset_ps (line-relative).
  int64_t offset_ps() const { return event_->offset_ps; }
  bool is_aggregate() const { return event_->is_aggregate(); }
  int64_t num_occurrences() const { return event_->is_aggregate() ? event_->offset_ps : 0; }

  size_t num_stats() const { return stats_end() - event_->stats_begin; }
  // Visits the event's own stats, then its metadata's stats.
  template <typename Fn>
  void ForEachStat(Fn&& fn) const;
  // Visits the event's own stats only (not its metadata's).
  template <typename Fn>
  void ForEachOwnStat(Fn&& fn) const {
    const Stat* stats = line_->stats.data();
    for (uint32_t i = event_->stats_begin, end = stats_end(); i < end; ++i) {
      fn(XStatVisitor(plane_, stats + i));
    }
  }
  // First stat of `type` (event's own first, then its metadata's).
  std::optional<XStatVisitor> GetStat(StatType type) const;
  std::optional<XStatVisitor> GetStatByName(absl::string_view name) const;

  const XPlaneVisitor& plane() const { return *plane_; }
  const Event& raw() const { return *event_; }

 private:
  // End of the event's stats in line_->stats (Line::stats_end of its index,
  // found without computing the index).
  uint32_t stats_end() const {
    const Event* next = event_ + 1;
    return next != line_->events.data() + line_->events.size()
               ? next->stats_begin
               : static_cast<uint32_t>(line_->stats.size());
  }

  const XPlaneVisitor* plane_;
  const Line* line_;
  const Event* event_;
};

class XLineVisitor {
 public:
  XLineVisitor(const XPlaneVisitor* plane, const Line* line) : plane_(plane), line_(line) {}

  int64_t id() const { return line_->id; }
  int64_t display_id() const { return line_->display_id; }
  absl::string_view name() const;
  absl::string_view display_name() const;
  int64_t timestamp_ns() const { return line_->timestamp_ns; }
  int64_t duration_ps() const { return line_->duration_ps; }
  size_t num_events() const { return line_->events.size(); }
  XEventVisitor event(size_t i) const { return XEventVisitor(plane_, line_, &line_->events[i]); }

  template <typename Fn>
  void ForEachEvent(Fn&& fn) const {
    for (const Event& e : line_->events) fn(XEventVisitor(plane_, line_, &e));
  }

 private:
  const XPlaneVisitor* plane_;
  const Line* line_;
};

class XPlaneVisitor {
 public:
  // `base_ns` is subtracted from line timestamps (see SpaceBaseNs()).
  XPlaneVisitor(const XSpaceData* space, const Plane* plane, int64_t base_ns);

  int64_t id() const { return plane_->id; }
  absl::string_view name() const { return space_->strings.Get(plane_->name); }
  size_t num_lines() const { return plane_->lines.size(); }
  XLineVisitor line(size_t i) const { return XLineVisitor(this, &plane_->lines[i]); }

  template <typename Fn>
  void ForEachLine(Fn&& fn) const {
    for (const Line& l : plane_->lines) fn(XLineVisitor(this, &l));
  }
  template <typename Fn>
  void ForEachStat(Fn&& fn) const {
    for (const Stat& s : plane_->stats) fn(XStatVisitor(this, &s));
  }
  std::optional<XStatVisitor> GetStat(StatType type) const;

  // Metadata lookups by index.
  size_t num_event_metadata() const { return plane_->event_metadata.size(); }
  size_t num_stat_metadata() const { return plane_->stat_metadata.size(); }
  absl::string_view event_name(uint32_t metadata_index) const {
    return space_->strings.Get(plane_->event_metadata[metadata_index].name);
  }
  HostEventType host_event_type(uint32_t metadata_index) const {
    return host_event_types_[metadata_index];
  }
  StatType stat_type(uint32_t stat_metadata_index) const {
    return stat_types_[stat_metadata_index];
  }
  absl::string_view stat_name(uint32_t stat_metadata_index) const {
    return space_->strings.Get(plane_->stat_metadata[stat_metadata_index].name);
  }
  // Name of the stat metadata with XStatMetadata.id == id ("" if none).
  absl::string_view stat_name_by_id(uint64_t id) const;
  // Index of the stat metadata named `name`, or nullopt.
  std::optional<uint32_t> FindStatMetadata(absl::string_view name) const;

  int64_t base_ns() const { return base_ns_; }
  const XSpaceData& space() const { return *space_; }
  const Plane& raw() const { return *plane_; }
  absl::string_view str(uint32_t string_id) const { return space_->strings.Get(string_id); }

 private:
  const XSpaceData* space_;
  const Plane* plane_;
  int64_t base_ns_;
  std::vector<StatType> stat_types_;
  std::vector<HostEventType> host_event_types_;
  // Stat metadata index by id (the first of equal ids): a table when every
  // id is small and not negative (the usual 0..n), a hash map otherwise.
  bool small_stat_ids_ = false;
  std::vector<uint32_t> stat_index_by_small_id_;  // UINT32_MAX: no such id.
  absl::flat_hash_map<int64_t, uint32_t> stat_index_by_id_;
};

// Smallest line timestamp_ns in the space (0 for an empty space).
int64_t SpaceBaseNs(const XSpaceData& space);

// Plane with exactly this name, or nullptr.
const Plane* FindPlaneWithName(const XSpaceData& space, absl::string_view name);
// Planes whose names start with `prefix`, in space order.
std::vector<const Plane*> FindPlanesWithPrefix(const XSpaceData& space, absl::string_view prefix);
// "/device:GPU:n" planes sorted by n.
std::vector<const Plane*> FindGpuPlanes(const XSpaceData& space);

// ---- inline and template definitions ---------------------------------------
// (The small accessors are inline: the views call them for every event.)

inline const WideValues& XStatVisitor::wide() const { return plane_->raw().wide_values; }
inline StatType XStatVisitor::type() const { return plane_->stat_type(stat_->metadata_index()); }
inline absl::string_view XStatVisitor::name() const {
  return plane_->stat_name(stat_->metadata_index());
}
inline absl::string_view XEventVisitor::name() const {
  return plane_->event_name(event_->metadata_index());
}
inline HostEventType XEventVisitor::host_event_type() const {
  return plane_->host_event_type(event_->metadata_index());
}
inline int64_t XEventVisitor::begin_ps() const {
  return (line_->timestamp_ns - plane_->base_ns()) * 1000 + event_->offset_ps;
}

template <typename Fn>
void XEventVisitor::ForEachStat(Fn&& fn) const {
  ForEachOwnStat(fn);
  for (const Stat& s : plane_->raw().event_metadata[event_->metadata_index()].stats) {
    fn(XStatVisitor(plane_, &s));
  }
}

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_VISITOR_H_
