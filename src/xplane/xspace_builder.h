// Writing side of XSpaceData: interned metadata, lines by id, events with
// stats, and a Finalize() step that yields the post-processed form the
// profile plugin expects.
//
// Usage:
//   XSpaceData space;
//   XSpaceBuilder builder(&space);
//   XPlaneBuilder* host = builder.GetOrCreatePlane(kHostThreadsPlaneName);
//   XLineBuilder* thread = host->GetOrCreateLine(/*line_id=*/tid);
//   XEventBuilder ev = thread->AddEvent(host->GetOrCreateEventMetadata("op"),
//                                       /*offset_ps=*/1000, /*duration_ps=*/500);
//   ev.AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId), 7);
//   builder.Finalize({});
//
// Builders are handles owned by XSpaceBuilder and valid for its lifetime.
// Not thread-safe.
#ifndef TBPROF_SRC_XPLANE_XSPACE_BUILDER_H_
#define TBPROF_SRC_XPLANE_XSPACE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::xplane {

class XPlaneBuilder;

// Adds stats to one event; a stat replaces the event's stat of the same
// metadata (one value per stat). Any event of the line may get stats: the
// most recent one's are appended (cheap), an older one's are inserted after
// its last stat, which moves the stats of all later events of the line (use
// XLineBuilder::AddInt64Stats to add to many older events). Valid until the
// line is finalized.
class XEventBuilder {
 public:
  XEventBuilder(XPlaneBuilder* plane, Line* line, size_t event_index)
      : plane_(plane), line_(line), event_index_(event_index) {}

  void AddInt64(uint32_t stat_metadata_index, int64_t value);
  void AddUint64(uint32_t stat_metadata_index, uint64_t value);
  void AddDouble(uint32_t stat_metadata_index, double value);
  // Interns `value` as a str_value.
  void AddString(uint32_t stat_metadata_index, absl::string_view value);
  // Stores `value` as a ref_value: the name of a (created) stat metadata.
  // Use for strings repeated across many events (kernel_details, tf_op).
  void AddRef(uint32_t stat_metadata_index, absl::string_view value);
  // AddRef() with the value's stat metadata already looked up (its index,
  // from GetOrCreateStatMetadata*()).
  void AddRefToMetadata(uint32_t stat_metadata_index, uint32_t ref_metadata_index);
  void AddBytes(uint32_t stat_metadata_index, absl::string_view value);

  int64_t offset_ps() const { return line_->events[event_index_].offset_ps; }
  int64_t duration_ps() const { return line_->events[event_index_].duration_ps; }
  void SetDurationPs(int64_t duration_ps) { line_->events[event_index_].duration_ps = duration_ps; }

 private:
  Stat* AppendStat(uint32_t stat_metadata_index, StatKind kind);

  XPlaneBuilder* plane_;
  Line* line_;
  size_t event_index_;
};

// One stat for XLineBuilder::AddInt64Stats: int64 `value` for stat metadata
// `stat_metadata_index` on event `event_index` of the line.
struct EventInt64Stat {
  uint32_t event_index;
  uint32_t stat_metadata_index;
  int64_t value;
};

class XLineBuilder {
 public:
  XLineBuilder(XPlaneBuilder* plane, Line* line) : plane_(plane), line_(line) {}

  void SetName(absl::string_view name);
  void SetDisplayName(absl::string_view name);
  void SetDisplayId(int64_t id) { line_->display_id = id; }
  void SetTimestampNs(int64_t timestamp_ns) { line_->timestamp_ns = timestamp_ns; }
  int64_t timestamp_ns() const { return line_->timestamp_ns; }
  int64_t id() const { return line_->id; }
  size_t num_events() const { return line_->events.size(); }
  void ReserveEvents(size_t n) { line_->events.reserve(n); }
  // Makes room for `events` more events holding `stats` more stats in all,
  // so that appending them does not regrow (and copy) large vectors.
  void ReserveMore(size_t events, size_t stats) {
    line_->events.reserve(line_->events.size() + events);
    line_->stats.reserve(line_->stats.size() + stats);
  }

  // Adds an event; `offset_ps` counts from this line's timestamp_ns and may
  // be negative before Finalize() normalizes time. `duration_ps` >= 0.
  XEventBuilder AddEvent(uint32_t event_metadata_index, int64_t offset_ps,
                         int64_t duration_ps);
  // Adds an aggregated event (XEvent.num_occurrences instead of offset).
  XEventBuilder AddAggregatedEvent(uint32_t event_metadata_index, int64_t num_occurrences,
                                   int64_t duration_ps);

  // Adds int64 stats to any events of this line (event_index <
  // num_events()), with the result of calling
  // XEventBuilder(..., add.event_index).AddInt64(add.stat_metadata_index,
  // add.value) for each of `adds` in order: same stats in the same order per
  // event, a later value replacing an earlier one of the same metadata, wide
  // values appended alike. But in one pass over the line's stats (and a sort
  // of `adds`), however many older events get stats, growing them once.
  void AddInt64Stats(const std::vector<EventInt64Stat>& adds);

 private:
  XPlaneBuilder* plane_;
  Line* line_;
};

class XPlaneBuilder {
 public:
  XPlaneBuilder(XSpaceData* space, Plane* plane);
  XPlaneBuilder(const XPlaneBuilder&) = delete;
  XPlaneBuilder& operator=(const XPlaneBuilder&) = delete;

  void SetId(int64_t id) { plane_->id = id; }
  int64_t id() const { return plane_->id; }
  absl::string_view name() const;

  // Returns the index of the event metadata named `name`, creating it (with
  // id = index + 1) on first use.
  uint32_t GetOrCreateEventMetadata(absl::string_view name);
  // The same for a name already in the space's StringPool (its id), without
  // hashing the text again.
  uint32_t GetOrCreateEventMetadataForName(uint32_t name_id);
  EventMetadata& event_metadata(uint32_t index) { return plane_->event_metadata[index]; }
  void SetEventDisplayName(uint32_t index, absl::string_view display_name);

  // Index of the stat metadata named `name` (or StatTypeName(type)).
  uint32_t GetOrCreateStatMetadata(absl::string_view name);
  uint32_t GetOrCreateStatMetadataForName(uint32_t name_id);
  uint32_t GetOrCreateStatMetadata(StatType type) {
    return GetOrCreateStatMetadata(StatTypeName(type));
  }

  // Line with XLine.id == line_id, created (named "") on first use.
  XLineBuilder* GetOrCreateLine(int64_t line_id);
  // Existing line or nullptr.
  XLineBuilder* FindLine(int64_t line_id);

  // Plane-level stats (e.g. GPU capabilities). A later value for the same
  // stat replaces the earlier one.
  void SetStatInt64(uint32_t stat_metadata_index, int64_t value);
  void SetStatUint64(uint32_t stat_metadata_index, uint64_t value);
  void SetStatDouble(uint32_t stat_metadata_index, double value);
  void SetStatString(uint32_t stat_metadata_index, absl::string_view value);

  XSpaceData* space() { return space_; }
  Plane* plane() { return plane_; }

 private:
  friend class XEventBuilder;
  Stat* FindOrAppendPlaneStat(uint32_t stat_metadata_index);

  XSpaceData* space_;
  Plane* plane_;
  absl::flat_hash_map<uint32_t, uint32_t> event_metadata_by_name_;  // string id -> index
  absl::flat_hash_map<uint32_t, uint32_t> stat_metadata_by_name_;   // string id -> index
  absl::flat_hash_map<int64_t, std::unique_ptr<XLineBuilder>> lines_;
};

// What Finalize() does to reach the post-processed form.
struct FinalizeOptions {
  // Make every line's timestamp_ns 0 and offsets count from the earliest
  // event of the whole space; records the epoch start/stop (given by
  // `epoch_ns_of_zero`, the epoch time of timestamp_ns == 0 before
  // normalization) in a "Task Environment" plane.
  bool normalize_timestamps = true;
  int64_t epoch_ns_of_zero = 0;
  // Make events on every line only nest: an event that starts inside an
  // enclosing event and ends after it moves, with its true duration, to an
  // extra line of the same plane named "<line> (overlapping)" (ids from
  // 0x40000000), placed after the plane's other lines. Durations are facts and
  // are never cut. Counted in FinalizeStats::events_moved.
  bool enforce_nesting = true;
};

struct FinalizeStats {
  int64_t events_moved = 0;       // Partial overlaps moved to "(overlapping)" lines.
  int64_t session_start_ps = 0;   // Earliest event, before normalization.
  int64_t session_end_ps = 0;     // Latest event end, before normalization.
};

class XSpaceBuilder {
 public:
  explicit XSpaceBuilder(XSpaceData* space);
  XSpaceBuilder(const XSpaceBuilder&) = delete;
  XSpaceBuilder& operator=(const XSpaceBuilder&) = delete;

  // Plane named `name`, created (with the next free id) on first use.
  XPlaneBuilder* GetOrCreatePlane(absl::string_view name);
  XPlaneBuilder* FindPlane(absl::string_view name);

  void AddError(std::string message) { space_->errors.push_back(std::move(message)); }
  void AddWarning(std::string message) { space_->warnings.push_back(std::move(message)); }
  void AddHostname(std::string hostname) { space_->hostnames.push_back(std::move(hostname)); }

  // Sorts planes (/host:CPU, then /device:GPU:n by n, then the rest by name),
  // lines by id, events by (begin asc, duration desc); optionally
  // normalizes time and enforces nesting. Call once, after the last event.
  FinalizeStats Finalize(const FinalizeOptions& options);

  XSpaceData* space() { return space_; }

 private:
  XSpaceData* space_;
  std::vector<std::unique_ptr<XPlaneBuilder>> planes_;
};

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_BUILDER_H_
