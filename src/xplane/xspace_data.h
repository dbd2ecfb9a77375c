// The in-memory form of an XSpace: compact, columnar and lossless.
//
// A protobuf XSpace costs about as much memory as the Chrome JSON it came
// from (hundreds of bytes per event), which rules out multi-GB traces on a
// 24 GB machine. XSpaceData holds the same information with events of 32
// bytes, stats of 12 bytes and every string interned once. It converts
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

// One XStat: which stat metadata, which member of the value oneof, and the
// value, in 12 bytes (a file holds millions; 16 with natural alignment).
// The metadata index and the kind share one word, so a plane holds at most
// kMaxStatMetadata stat metadata (the wire reader rejects files with more;
// builders cannot get near it: each needs its own name). The value is two
// 32-bit words; an 8-byte value is copied in and out, never read in place.
class Stat {
 public:
  static constexpr uint32_t kMaxStatMetadata = (uint32_t{1} << 29) - 1;

  Stat() = default;
  Stat(uint32_t metadata_index, StatKind kind) { set_metadata_index(metadata_index); set_kind(kind); }

  uint32_t metadata_index() const { return bits_ & kIndexMask; }
  StatKind kind() const { return static_cast<StatKind>(bits_ >> kKindShift); }
  void set_metadata_index(uint32_t index) { bits_ = (bits_ & ~kIndexMask) | (index & kIndexMask); }
  void set_kind(StatKind kind) {
    bits_ = (bits_ & kIndexMask) | (static_cast<uint32_t>(kind) << kKindShift);
  }

  // The value as the member that kind() names; the others read the same
  // bits (as the proto's oneof storage would).
  uint64_t uint64_value() const { return uint64_t{value_[1]} << 32 | value_[0]; }
  int64_t int64_value() const { return static_cast<int64_t>(uint64_value()); }
  double double_value() const {
    const uint64_t bits = uint64_value();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  uint32_t str_id() const { return value_[0]; }  // StringPool id (kStr, kBytes, kCompressedStr).

  void set_uint64_value(uint64_t v) {
    value_[0] = static_cast<uint32_t>(v);
    value_[1] = static_cast<uint32_t>(v >> 32);
  }
  void set_int64_value(int64_t v) { set_uint64_value(static_cast<uint64_t>(v)); }
  void set_double_value(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof d);
    set_uint64_value(bits);
  }
  void set_str_id(uint32_t id) { set_uint64_value(id); }

 private:
  static constexpr int kKindShift = 29;
  static constexpr uint32_t kIndexMask = (uint32_t{1} << kKindShift) - 1;

  uint32_t bits_ = 0;  // metadata index | kind << kKindShift.
  uint32_t value_[2] = {0, 0};
};
static_assert(sizeof(Stat) == 12, "Stat must stay compact");
static_assert(static_cast<int>(StatKind::kCompressedStr) < 8, "StatKind must fit in 3 bits");

struct Event {
  int64_t offset_ps;        // Or num_occurrences when is_aggregate.
  int64_t duration_ps;
  uint32_t metadata_index;  // Index into Plane::event_metadata.
  uint32_t stats_begin;     // Range in Line::stats.
  uint16_t stats_count;
  bool is_aggregate;        // XEvent.data holds num_occurrences.
  bool has_data;            // XEvent.data oneof is set at all.
};
static_assert(sizeof(Event) <= 32, "Event must stay compact");

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

struct Line {
  int64_t id = 0;
  int64_t display_id = 0;
  uint32_t name = 0;
  uint32_t display_name = 0;
  int64_t timestamp_ns = 0;
  int64_t duration_ps = 0;
  std::vector<Event> events;
  std::vector<Stat> stats;  // Storage for all events' stats of this line.
};

struct Plane {
  int64_t id = 0;
  uint32_t name = 0;
  std::deque<Line> lines;
  std::vector<EventMetadata> event_metadata;
  std::vector<StatMetadata> stat_metadata;
  std::vector<Stat> stats;  // Plane-level stats.
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
