// The in-memory form of an XSpace: compact, columnar and lossless.
//
// A protobuf XSpace costs about as much memory as the Chrome JSON it came
// from (hundreds of bytes per event), which rules out multi-GB traces on a
// 24 GB machine. XSpaceData holds the same information with events of 24
// bytes, stats of 8 bytes and every string interned once. It converts
// losslessly to and from tensorflow.profiler.XSpace (xspace_io.h) and is
// serialized to the XSpace wire format without building protobuf messages.
//
// Write through XSpaceBuilder (xspace_builder.h), read through the visitors
// (xspace_visitor.h); analysis code should not poke at these structs.
//
// Identity: metadata are referred to by *index* into their plane's vectors;
// each metadata also keeps the int64 `id` written to the proto, so files read
// from disk keep their original ids.
#ifndef TBPROF_SRC_XPLANE_XSPACE_DATA_H_
#define TBPROF_SRC_XPLANE_XSPACE_DATA_H_

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tbprof::xplane {

// Interns strings; ids are dense, stable, and id 0 is the empty string.
// string_views returned by Get() stay valid for the pool's lifetime.
class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  uint32_t Intern(absl::string_view s);
  absl::string_view Get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // Bytes held by string contents (not counting the index).
  uint64_t content_bytes() const { return content_bytes_; }

 private:
  char* Allocate(size_t n);

  std::vector<absl::string_view> strings_;
  absl::flat_hash_map<absl::string_view, uint32_t> index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_pos_ = nullptr;
  size_t block_left_ = 0;
  uint64_t content_bytes_ = 0;
};

// Which member of XStat's `value` oneof is set.
enum class StatKind : uint8_t {
  kNone = 0,       // No value set (valid in the proto, rare).
  kDouble,
  kUint64,
  kInt64,
  kStr,            // value.str_id: StringPool id.
  kBytes,          // value.str_id: StringPool id (raw bytes).
  kRef,            // value.uint64: id of an XStatMetadata whose name is the value.
  kCompressedStr,  // value.str_id: StringPool id (gzip bytes).
};

// Values of a plane's stats that do not fit in the 32 bits a Stat holds:
// Plane::wide_values.
using WideValues = std::vector<uint64_t>;

// One XStat: which stat metadata, which member of the value oneof, and the
// value, in 8 bytes (a file holds millions; 16 with a 64-bit value).
//
// A value that fits in 32 bits is held in the Stat: an int64 that fits in an
// int32, a uint64 or ref that fits in a uint32, a double whose low 32 bits
// are 0 (its high half is kept), a string id. Any other value is appended to
// the WideValues of the stat's plane and the Stat holds its index there
// (is_wide()). So every value read or written passes the plane's
// wide_values; a Stat copied to another plane must have its wide value
// copied too (see copy_wide_value()). Real traces keep ~7% of their stats
// wide (byte counts past 2 GB, addresses, timestamps).
//
// The metadata index, the wide flag and the kind share one word, so a plane
// holds at most kMaxStatMetadata stat metadata (the wire reader rejects
// files with more; builders cannot get near it: each needs its own name).
class Stat {
 public:
  static constexpr uint32_t kMaxStatMetadata = (uint32_t{1} << 28) - 1;

  Stat() = default;
  Stat(uint32_t metadata_index, StatKind kind) { set_metadata_index(metadata_index); set_kind(kind); }

  uint32_t metadata_index() const { return bits_ & kIndexMask; }
  StatKind kind() const { return static_cast<StatKind>(bits_ >> kKindShift); }
  bool is_wide() const { return (bits_ & kWideBit) != 0; }
  void set_metadata_index(uint32_t index) { bits_ = (bits_ & ~kIndexMask) | (index & kIndexMask); }
  // Changes the kind only; set the value after it.
  void set_kind(StatKind kind) {
    bits_ = (bits_ & ~kKindMask) | (static_cast<uint32_t>(kind) << kKindShift);
  }

  // The value as the member that kind() names; `wide` is the wide_values of
  // the stat's plane.
  uint64_t uint64_value(const WideValues& wide) const {
    if (is_wide()) return wide[value_];
    switch (kind()) {
      case StatKind::kInt64: return static_cast<uint64_t>(int64_t{static_cast<int32_t>(value_)});
      case StatKind::kDouble: return uint64_t{value_} << 32;
      default: return value_;
    }
  }
  int64_t int64_value(const WideValues& wide) const {
    return static_cast<int64_t>(uint64_value(wide));
  }
  double double_value(const WideValues& wide) const {
    const uint64_t bits = uint64_value(wide);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  uint32_t str_id() const { return value_; }  // StringPool id (kStr, kBytes, kCompressedStr).

  // Stores `v` as the member that kind() names (set the kind first): in the
  // Stat when it fits, else appended to `wide`, the wide_values of the plane
  // the stat belongs to.
  void set_uint64_value(uint64_t v, WideValues* wide) {
    bool fits;
    uint32_t narrow;
    switch (kind()) {
      case StatKind::kInt64:
        fits = static_cast<int64_t>(v) == int64_t{static_cast<int32_t>(static_cast<uint32_t>(v))};
        narrow = static_cast<uint32_t>(v);
        break;
      case StatKind::kDouble:
        fits = static_cast<uint32_t>(v) == 0;
        narrow = static_cast<uint32_t>(v >> 32);
        break;
      default:
        fits = v <= 0xffffffffu;
        narrow = static_cast<uint32_t>(v);
    }
    if (fits) {
      bits_ &= ~kWideBit;
      value_ = narrow;
    } else {
      bits_ |= kWideBit;
      value_ = static_cast<uint32_t>(wide->size());
      wide->push_back(v);
    }
  }
  void set_int64_value(int64_t v, WideValues* wide) { set_uint64_value(static_cast<uint64_t>(v), wide); }
  void set_double_value(double d, WideValues* wide) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof d);
    set_uint64_value(bits, wide);
  }
  void set_str_id(uint32_t id) {
    bits_ &= ~kWideBit;
    value_ = id;
  }

  // For code that moves wide values between WideValues: the index of a wide
  // stat's value, and setting it.
  uint32_t wide_index() const { return value_; }
  void set_wide_index(uint32_t index) {
    bits_ |= kWideBit;
    value_ = index;
  }
  // A copy of this stat of plane `from` for plane `to` (its wide value
  // appended to `to`).
  Stat copy_wide_value(const WideValues& from, WideValues* to) const {
    Stat copy = *this;
    if (is_wide()) {
      copy.set_wide_index(static_cast<uint32_t>(to->size()));
      to->push_back(from[value_]);
    }
    return copy;
  }

 private:
  static constexpr int kKindShift = 29;
  static constexpr uint32_t kWideBit = uint32_t{1} << 28;
  static constexpr uint32_t kIndexMask = kWideBit - 1;
  static constexpr uint32_t kKindMask = ~uint32_t{0} << kKindShift;

  uint32_t bits_ = 0;  // metadata index | wide << 28 | kind << kKindShift.
  uint32_t value_ = 0;
};
static_assert(sizeof(Stat) == 8, "Stat must stay compact");
static_assert(static_cast<int>(StatKind::kCompressedStr) < 8, "StatKind must fit in 3 bits");

// One XEvent in 24 bytes (a file holds tens of millions): its times, its
// metadata index and data flags in one word, and where its stats begin in
// Line::stats. How many stats it has is not stored: see Line.
//
// The metadata index and the flags share one word, so a plane holds at most
// kMaxEventMetadata event metadata (the wire reader rejects files with more;
// builders cannot get near it: each needs its own name).
class Event {
 public:
  static constexpr uint32_t kMaxEventMetadata = (uint32_t{1} << 30) - 1;

  int64_t offset_ps = 0;     // Or num_occurrences when is_aggregate().
  int64_t duration_ps = 0;
  uint32_t stats_begin = 0;  // Where the event's stats begin in Line::stats.

  uint32_t metadata_index() const { return bits_ & kIndexMask; }  // Into Plane::event_metadata.
  // XEvent.data holds num_occurrences (offset_ps holds it).
  bool is_aggregate() const { return (bits_ & kAggregateBit) != 0; }
  // The XEvent.data oneof is set at all.
  bool has_data() const { return (bits_ & kHasDataBit) != 0; }

  // `index` <= kMaxEventMetadata (higher bits are dropped).
  void set_metadata_index(uint32_t index) { bits_ = (bits_ & ~kIndexMask) | (index & kIndexMask); }
  void set_is_aggregate(bool v) { bits_ = v ? bits_ | kAggregateBit : bits_ & ~kAggregateBit; }
  void set_has_data(bool v) { bits_ = v ? bits_ | kHasDataBit : bits_ & ~kHasDataBit; }

 private:
  static constexpr uint32_t kAggregateBit = uint32_t{1} << 30;
  static constexpr uint32_t kHasDataBit = uint32_t{1} << 31;
  static constexpr uint32_t kIndexMask = kAggregateBit - 1;

  uint32_t bits_ = 0;  // metadata index | is_aggregate << 30 | has_data << 31.
};
static_assert(sizeof(Event) == 24, "Event must stay compact");

struct EventMetadata {
  int64_t key = 0;            // Key in XPlane.event_metadata (normally == id).
  int64_t id = 0;
  uint32_t name = 0;          // StringPool ids.
  uint32_t display_name = 0;
  uint32_t metadata = 0;      // Serialized extra metadata (bytes).
  std::vector<Stat> stats;    // Stats constant for all events of this kind.
  std::vector<int64_t> child_ids;
  // Created while reading a file whose events name a missing metadata id;
  // not written back.
  bool implicit = false;
};

struct StatMetadata {
  int64_t key = 0;  // Key in XPlane.stat_metadata (normally == id).
  int64_t id = 0;
  uint32_t name = 0;
  uint32_t description = 0;
  bool implicit = false;  // See EventMetadata::implicit.
};

// One XLine.
//
// Invariant: the stats of the line's events lie in `stats` contiguously and
// in event order, with nothing between them: event i's stats are
// [events[i].stats_begin, stats_end(i)), where stats_end(i) is the next
// event's stats_begin, or stats.size() for the last event. So
// events[0].stats_begin == 0 and stats_begin never decreases. Whoever
// appends, inserts, removes or reorders events or stats keeps it (appending
// an event with its stats after the last one does; XSpaceBuilder does).
struct Line {
  int64_t id = 0;
  int64_t display_id = 0;
  uint32_t name = 0;
  uint32_t display_name = 0;
  int64_t timestamp_ns = 0;
  int64_t duration_ps = 0;
  std::vector<Event> events;
  std::vector<Stat> stats;  // The stats of all events, in event order (see above).

  // End of event i's stats in `stats` (i < events.size()).
  uint32_t stats_end(size_t i) const {
    return i + 1 < events.size() ? events[i + 1].stats_begin : static_cast<uint32_t>(stats.size());
  }
  // Number of stats of event i.
  uint32_t stats_count(size_t i) const { return stats_end(i) - events[i].stats_begin; }
  // The stats of event i.
  absl::Span<const Stat> event_stats(size_t i) const {
    return absl::Span<const Stat>(stats.data() + events[i].stats_begin, stats_count(i));
  }
  absl::Span<Stat> mutable_event_stats(size_t i) {
    return absl::Span<Stat>(stats.data() + events[i].stats_begin, stats_count(i));
  }
};

struct Plane {
  int64_t id = 0;
  uint32_t name = 0;
  std::deque<Line> lines;
  std::vector<EventMetadata> event_metadata;
  std::vector<StatMetadata> stat_metadata;
  std::vector<Stat> stats;  // Plane-level stats.
  // The values of this plane's wide stats (lines', metadata's and its own).
  WideValues wide_values;
};

struct XSpaceData {
  StringPool strings;
  std::deque<Plane> planes;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  std::vector<std::string> hostnames;
};

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_DATA_H_
