#include "src/xplane/xspace_wire_writer.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "src/base/output_file.h"

namespace tbprof::xplane {
namespace {

using ::google::protobuf::io::CodedOutputStream;

// Every field number of the XSpace schema is < 16: a tag is one byte.
constexpr uint8_t Tag(int field, int wire_type) {
  return static_cast<uint8_t>((field << 3) | wire_type);
}
constexpr int kVarint = 0, kFixed64 = 1, kLen = 2;

inline uint64_t VarintSize(uint64_t v) { return CodedOutputStream::VarintSize64(v); }
inline uint64_t VarintFieldSize(uint64_t v) { return 1 + VarintSize(v); }
// Lengths of stats and events are nearly always under 128: one length byte,
// without computing a varint size.
inline uint64_t LenFieldSize(uint64_t n) { return (n < 0x80 ? 2 : 1 + VarintSize(n)) + n; }
inline uint64_t StringSizeIfNotEmpty(absl::string_view s) {
  return s.empty() ? 0 : LenFieldSize(s.size());
}

inline uint8_t* PutVarint(uint64_t v, uint8_t* p) {
  return CodedOutputStream::WriteVarint64ToArray(v, p);
}

// The bytes being written: the writer encodes straight into a 1 MiB buffer,
// which goes to `sink` whenever it is full (strings of a buffer's size or
// more go to `sink` as they are). The first error of `sink` is kept and
// later output dropped.
class WireOut {
 public:
  // Must outlive the WireOut.
  using Sink = absl::FunctionRef<absl::Status(absl::string_view)>;
  // Reserve() hands out at most this many bytes.
  static constexpr size_t kMaxReserve = 64;

  explicit WireOut(Sink sink)
      : sink_(sink), buffer_(new uint8_t[kSize]), pos_(buffer_.get()), end_(pos_ + kSize) {}

  // Room for `n` <= kMaxReserve bytes at the returned pointer; Advance() to
  // the end of what was written there.
  uint8_t* Reserve(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n) Flush();
    return pos_;
  }
  void Advance(uint8_t* end) { pos_ = end; }

  void Write(const char* data, size_t n) {
    if (n > static_cast<size_t>(end_ - pos_)) {
      Flush();
      if (n >= kSize) {
        if (status_.ok()) status_ = sink_(absl::string_view(data, n));
        return;
      }
    }
    std::memcpy(pos_, data, n);
    pos_ += n;
  }

  // Hands what is buffered to the sink; the first error of the sink.
  absl::Status Finish() {
    Flush();
    return status_;
  }

 private:
  static constexpr size_t kSize = size_t{1} << 20;

  void Flush() {
    if (pos_ != buffer_.get() && status_.ok()) {
      status_ = sink_(absl::string_view(reinterpret_cast<const char*>(buffer_.get()),
                                        static_cast<size_t>(pos_ - buffer_.get())));
    }
    pos_ = buffer_.get();
  }

  Sink sink_;
  std::unique_ptr<uint8_t[]> buffer_;
  uint8_t* pos_;
  uint8_t* end_;
  absl::Status status_;
};

inline void WriteVarintField(WireOut* out, int field, uint64_t v) {
  uint8_t* p = out->Reserve(11);
  *p++ = Tag(field, kVarint);
  out->Advance(PutVarint(v, p));
}
inline void WriteLengthHeader(WireOut* out, int field, uint64_t len) {
  uint8_t* p = out->Reserve(11);
  *p++ = Tag(field, kLen);
  out->Advance(PutVarint(len, p));
}
inline void WriteBytesField(WireOut* out, int field, absl::string_view bytes) {
  WriteLengthHeader(out, field, bytes.size());
  if (!bytes.empty()) out->Write(bytes.data(), bytes.size());
}
inline void WriteStringIfNotEmpty(WireOut* out, int field, absl::string_view s) {
  if (!s.empty()) WriteBytesField(out, field, s);
}

// Size of XStat `s` of `plane` (values in `wide`), without tag and length.
inline uint64_t StatSize(const Plane& plane, const WideValues& wide, const StringPool& strings,
                         Stat s) {
  const int64_t id = plane.stat_metadata[s.metadata_index()].id;
  uint64_t size = id != 0 ? VarintFieldSize(static_cast<uint64_t>(id)) : 0;
  switch (s.kind()) {
    case StatKind::kNone: break;
    case StatKind::kDouble: size += 9; break;
    case StatKind::kUint64:
    case StatKind::kInt64:
    case StatKind::kRef: size += VarintFieldSize(s.uint64_value(wide)); break;
    case StatKind::kStr:
    case StatKind::kBytes:
    case StatKind::kCompressedStr: size += LenFieldSize(strings.Get(s.str_id()).size()); break;
  }
  return size;
}

inline uint64_t StatsSize(const Plane& plane, const WideValues& wide, const StringPool& strings,
                          const Stat* stats, size_t n) {
  uint64_t size = 0;
  for (size_t i = 0; i < n; ++i) size += LenFieldSize(StatSize(plane, wide, strings, stats[i]));
  return size;
}

// Writes `s` as a `field` entry (tag, length, message), encoded in place:
// its fixed fields go after a one-byte length, moved along in the rare case
// that the length needs more (a long string value).
inline void WriteStat(WireOut* out, int field, const Plane& plane, const WideValues& wide,
                      const StringPool& strings, Stat s) {
  uint8_t* const start = out->Reserve(WireOut::kMaxReserve);  // 2 + 22 + 9 at most.
  uint8_t* const body = start + 2;
  uint8_t* p = body;
  const int64_t id = plane.stat_metadata[s.metadata_index()].id;
  if (id != 0) {
    *p++ = Tag(1, kVarint);
    p = PutVarint(static_cast<uint64_t>(id), p);
  }
  absl::string_view str;
  switch (s.kind()) {
    case StatKind::kNone: break;
    case StatKind::kDouble:
      *p++ = Tag(2, kFixed64);
      p = CodedOutputStream::WriteLittleEndian64ToArray(s.uint64_value(wide), p);
      break;
    case StatKind::kUint64:
      *p++ = Tag(3, kVarint);
      p = PutVarint(s.uint64_value(wide), p);
      break;
    case StatKind::kInt64:
      *p++ = Tag(4, kVarint);
      p = PutVarint(s.uint64_value(wide), p);
      break;
    case StatKind::kRef:
      *p++ = Tag(7, kVarint);
      p = PutVarint(s.uint64_value(wide), p);
      break;
    case StatKind::kStr:
    case StatKind::kBytes:
    case StatKind::kCompressedStr:
      str = strings.Get(s.str_id());
      *p++ = Tag(s.kind() == StatKind::kStr ? 5 : s.kind() == StatKind::kBytes ? 6 : 8, kLen);
      p = PutVarint(str.size(), p);
      break;
  }
  const size_t head = static_cast<size_t>(p - body);
  const uint64_t total = head + str.size();
  start[0] = Tag(field, kLen);
  if (total < 0x80) {
    start[1] = static_cast<uint8_t>(total);
  } else {
    uint8_t length[10];
    const size_t length_bytes = static_cast<size_t>(PutVarint(total, length) - length);
    std::memmove(start + 1 + length_bytes, body, head);
    std::memcpy(start + 1, length, length_bytes);
    p += length_bytes - 1;
  }
  out->Advance(p);
  if (!str.empty()) out->Write(str.data(), str.size());
}

inline void WriteStats(WireOut* out, int field, const Plane& plane,
                       const WideValues& wide, const StringPool& strings, const Stat* stats,
                       size_t n) {
  for (size_t i = 0; i < n; ++i) WriteStat(out, field, plane, wide, strings, stats[i]);
}

// What is written of a line: its size, and its duration (a subset's lines
// end with their last kept event).
struct LinePlan {
  uint64_t size = 0;
  int64_t duration_ps = 0;
  bool skip = false;
};

class Writer {
 public:
  Writer(const XSpaceData& space, const EventWireSizes* sizes, const XSpaceWireSubset* subset)
      : space_(space), strings_(space.strings), sizes_(sizes), subset_(subset) {}

  void WriteSpace(WireOut* out) {
    std::vector<std::vector<uint32_t>> local_sizes;
    for (size_t p = 0; p < space_.planes.size(); ++p) {
      const Plane& plane = space_.planes[p];
      const std::vector<std::vector<uint32_t>>* sizes;
      if (sizes_ != nullptr) {
        sizes = &(*sizes_)[p];
      } else {
        local_sizes = ComputePlaneEventWireSizes(space_, plane);
        sizes = &local_sizes;
      }
      const std::vector<Stat>& stats = subset_ ? subset_->plane_stats[p] : plane.stats;
      const WideValues& stats_wide = subset_ ? subset_->plane_stats_wide[p] : plane.wide_values;
      const uint64_t size = PlanLines(p, plane, *sizes, stats, stats_wide);
      WriteLengthHeader(out, 1, size);
      WritePlane(out, p, plane, *sizes, stats, stats_wide);
      local_sizes.clear();
      local_sizes.shrink_to_fit();
    }
    for (const std::string& s : space_.errors) WriteBytesField(out, 2, s);
    for (const std::string& s : space_.warnings) WriteBytesField(out, 3, s);
    if (subset_ != nullptr) {
      for (const std::string& s : subset_->extra_warnings) WriteBytesField(out, 3, s);
    }
    for (const std::string& s : space_.hostnames) WriteBytesField(out, 4, s);
  }

 private:
  // Group of each event of line `l` of plane `p` (subsets only).
  const std::vector<uint32_t>& Groups(size_t p, size_t l) const { return (*subset_->group)[p][l]; }
  bool Kept(uint32_t group) const { return (*subset_->part_of_group)[group] == subset_->part; }

  // Fills lines_ for plane `p` and returns the plane's size.
  uint64_t PlanLines(size_t p, const Plane& plane, const std::vector<std::vector<uint32_t>>& sizes,
                     const std::vector<Stat>& stats, const WideValues& stats_wide) {
    uint64_t size = 0;
    if (plane.id != 0) size += VarintFieldSize(static_cast<uint64_t>(plane.id));
    size += StringSizeIfNotEmpty(strings_.Get(plane.name));
    lines_.assign(plane.lines.size(), LinePlan{});
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      const std::vector<uint32_t>& event_sizes = sizes[l];
      LinePlan& plan = lines_[l];
      uint64_t events = 0;
      plan.duration_ps = line.duration_ps;
      if (subset_ == nullptr) {
        for (uint32_t s : event_sizes) events += EventEntryBytes(s);
      } else {
        const std::vector<uint32_t>& groups = Groups(p, l);
        size_t kept = 0;
        int64_t end = 0;
        for (size_t i = 0; i < line.events.size(); ++i) {
          if (!Kept(groups[i])) continue;
          ++kept;
          events += EventEntryBytes(event_sizes[i]);
          const Event& e = line.events[i];
          if (!e.is_aggregate()) end = std::max(end, e.offset_ps + e.duration_ps);
        }
        if (kept == 0 && !line.events.empty()) {
          plan.skip = true;
          continue;
        }
        if (kept > 0) plan.duration_ps = end;
      }
      plan.size = LineHeaderSize(line, plan.duration_ps) + events;
      size += LenFieldSize(plan.size);
    }
    for (const EventMetadata& md : plane.event_metadata) {
      if (md.implicit) continue;
      size += LenFieldSize(MapEntrySize(md.key, EventMetadataSize(plane, md)));
    }
    for (const StatMetadata& md : plane.stat_metadata) {
      if (md.implicit) continue;
      size += LenFieldSize(MapEntrySize(md.key, StatMetadataSize(md)));
    }
    size += StatsSize(plane, stats_wide, strings_, stats.data(), stats.size());
    return size;
  }

  uint64_t LineHeaderSize(const Line& line, int64_t duration_ps) const {
    uint64_t size = 0;
    if (line.id != 0) size += VarintFieldSize(static_cast<uint64_t>(line.id));
    size += StringSizeIfNotEmpty(strings_.Get(line.name));
    if (line.timestamp_ns != 0) size += VarintFieldSize(static_cast<uint64_t>(line.timestamp_ns));
    if (duration_ps != 0) size += VarintFieldSize(static_cast<uint64_t>(duration_ps));
    if (line.display_id != 0) size += VarintFieldSize(static_cast<uint64_t>(line.display_id));
    size += StringSizeIfNotEmpty(strings_.Get(line.display_name));
    return size;
  }

  void WriteEvent(WireOut* out, const Plane& plane, const Line& line, size_t i,
                  uint32_t size) const {
    const Event& e = line.events[i];
    uint8_t* p = out->Reserve(1 + 5 + 3 * 11);
    *p++ = Tag(4, kLen);
    p = PutVarint(size, p);
    const int64_t md_id = plane.event_metadata[e.metadata_index()].id;
    if (md_id != 0) {
      *p++ = Tag(1, kVarint);
      p = PutVarint(static_cast<uint64_t>(md_id), p);
    }
    if (e.has_data() && !e.is_aggregate()) {
      *p++ = Tag(2, kVarint);
      p = PutVarint(static_cast<uint64_t>(e.offset_ps), p);
    }
    if (e.duration_ps != 0) {
      *p++ = Tag(3, kVarint);
      p = PutVarint(static_cast<uint64_t>(e.duration_ps), p);
    }
    out->Advance(p);
    WriteStats(out, 4, plane, plane.wide_values, strings_, line.stats.data() + e.stats_begin,
               line.stats_count(i));
    if (e.has_data() && e.is_aggregate()) {
      WriteVarintField(out, 5, static_cast<uint64_t>(e.offset_ps));
    }
  }

  void WriteLine(WireOut* out, size_t p, size_t l, const Plane& plane,
                 const std::vector<uint32_t>& event_sizes) const {
    const Line& line = plane.lines[l];
    const int64_t duration_ps = lines_[l].duration_ps;
    if (line.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(line.id));
    WriteStringIfNotEmpty(out, 2, strings_.Get(line.name));
    if (line.timestamp_ns != 0) WriteVarintField(out, 3, static_cast<uint64_t>(line.timestamp_ns));
    if (subset_ == nullptr) {
      for (size_t i = 0; i < line.events.size(); ++i) WriteEvent(out, plane, line, i, event_sizes[i]);
    } else {
      const std::vector<uint32_t>& groups = Groups(p, l);
      for (size_t i = 0; i < line.events.size(); ++i) {
        if (Kept(groups[i])) WriteEvent(out, plane, line, i, event_sizes[i]);
      }
    }
    if (duration_ps != 0) WriteVarintField(out, 9, static_cast<uint64_t>(duration_ps));
    if (line.display_id != 0) WriteVarintField(out, 10, static_cast<uint64_t>(line.display_id));
    WriteStringIfNotEmpty(out, 11, strings_.Get(line.display_name));
  }

  uint64_t EventMetadataSize(const Plane& plane, const EventMetadata& md) const {
    uint64_t size = 0;
    if (md.id != 0) size += VarintFieldSize(static_cast<uint64_t>(md.id));
    size += StringSizeIfNotEmpty(strings_.Get(md.name));
    size += StringSizeIfNotEmpty(strings_.Get(md.metadata));
    size += StringSizeIfNotEmpty(strings_.Get(md.display_name));
    size += StatsSize(plane, plane.wide_values, strings_, md.stats.data(), md.stats.size());
    if (!md.child_ids.empty()) size += LenFieldSize(PackedSize(md.child_ids));
    return size;
  }

  static uint64_t PackedSize(const std::vector<int64_t>& values) {
    uint64_t size = 0;
    for (int64_t v : values) size += VarintSize(static_cast<uint64_t>(v));
    return size;
  }

  uint64_t StatMetadataSize(const StatMetadata& md) const {
    uint64_t size = 0;
    if (md.id != 0) size += VarintFieldSize(static_cast<uint64_t>(md.id));
    size += StringSizeIfNotEmpty(strings_.Get(md.name));
    size += StringSizeIfNotEmpty(strings_.Get(md.description));
    return size;
  }

  // Map entries are messages {key = 1; value = 2}, both always written.
  static uint64_t MapEntrySize(int64_t key, uint64_t value_size) {
    return VarintFieldSize(static_cast<uint64_t>(key)) + LenFieldSize(value_size);
  }

  void WritePlane(WireOut* out, size_t p, const Plane& plane,
                  const std::vector<std::vector<uint32_t>>& sizes, const std::vector<Stat>& stats,
                  const WideValues& stats_wide) const {
    if (plane.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(plane.id));
    WriteStringIfNotEmpty(out, 2, strings_.Get(plane.name));
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      if (lines_[l].skip) continue;
      WriteLengthHeader(out, 3, lines_[l].size);
      WriteLine(out, p, l, plane, sizes[l]);
    }
    for (const EventMetadata& md : plane.event_metadata) {
      if (md.implicit) continue;
      const uint64_t value_size = EventMetadataSize(plane, md);
      WriteLengthHeader(out, 4, MapEntrySize(md.key, value_size));
      WriteVarintField(out, 1, static_cast<uint64_t>(md.key));
      WriteLengthHeader(out, 2, value_size);
      if (md.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(md.id));
      WriteStringIfNotEmpty(out, 2, strings_.Get(md.name));
      WriteStringIfNotEmpty(out, 3, strings_.Get(md.metadata));
      WriteStringIfNotEmpty(out, 4, strings_.Get(md.display_name));
      WriteStats(out, 5, plane, plane.wide_values, strings_, md.stats.data(), md.stats.size());
      if (!md.child_ids.empty()) {
        WriteLengthHeader(out, 6, PackedSize(md.child_ids));
        for (int64_t v : md.child_ids) {
          out->Advance(PutVarint(static_cast<uint64_t>(v), out->Reserve(10)));
        }
      }
    }
    for (const StatMetadata& md : plane.stat_metadata) {
      if (md.implicit) continue;
      const uint64_t value_size = StatMetadataSize(md);
      WriteLengthHeader(out, 5, MapEntrySize(md.key, value_size));
      WriteVarintField(out, 1, static_cast<uint64_t>(md.key));
      WriteLengthHeader(out, 2, value_size);
      if (md.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(md.id));
      WriteStringIfNotEmpty(out, 2, strings_.Get(md.name));
      WriteStringIfNotEmpty(out, 3, strings_.Get(md.description));
    }
    WriteStats(out, 6, plane, stats_wide, strings_, stats.data(), stats.size());
  }

  const XSpaceData& space_;
  const StringPool& strings_;
  const EventWireSizes* sizes_;
  const XSpaceWireSubset* subset_;
  std::vector<LinePlan> lines_;  // Of the plane being written.
};

}  // namespace

std::vector<std::vector<uint32_t>> ComputePlaneEventWireSizes(const XSpaceData& space,
                                                              const Plane& plane) {
  std::vector<std::vector<uint32_t>> sizes(plane.lines.size());
  const StringPool& strings = space.strings;
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    std::vector<uint32_t>& out = sizes[l];
    out.resize(line.events.size());
    const size_t n = line.events.size();
    for (size_t i = 0; i < n; ++i) {
      const Event& e = line.events[i];
      uint64_t size = 0;
      const int64_t md_id = plane.event_metadata[e.metadata_index()].id;
      if (md_id != 0) size += VarintFieldSize(static_cast<uint64_t>(md_id));
      if (e.has_data()) size += VarintFieldSize(static_cast<uint64_t>(e.offset_ps));
      if (e.duration_ps != 0) size += VarintFieldSize(static_cast<uint64_t>(e.duration_ps));
      const uint32_t end = i + 1 < n ? line.events[i + 1].stats_begin
                                     : static_cast<uint32_t>(line.stats.size());
      size += StatsSize(plane, plane.wide_values, strings, line.stats.data() + e.stats_begin,
                        end - e.stats_begin);
      out[i] = static_cast<uint32_t>(size);
    }
  }
  return sizes;
}

EventWireSizes ComputeEventWireSizes(const XSpaceData& space) {
  EventWireSizes sizes;
  sizes.reserve(space.planes.size());
  for (const Plane& plane : space.planes) {
    sizes.push_back(ComputePlaneEventWireSizes(space, plane));
  }
  return sizes;
}

std::string SerializeXSpaceWire(const XSpaceData& space, const EventWireSizes* sizes,
                                const XSpaceWireSubset* subset) {
  std::string out;
  auto append = [&out](absl::string_view chunk) {
    out.append(chunk.data(), chunk.size());
    return absl::OkStatus();
  };
  WireOut wire(append);
  Writer(space, sizes, subset).WriteSpace(&wire);
  wire.Finish().IgnoreError();  // Appending to a string does not fail.
  return out;
}

absl::Status WriteXSpaceWire(const XSpaceData& space, const EventWireSizes* sizes,
                             const XSpaceWireSubset* subset, AtomicOutputFile* file) {
  auto append = [file](absl::string_view chunk) { return file->Append(chunk); };
  WireOut wire(append);
  Writer(space, sizes, subset).WriteSpace(&wire);
  return wire.Finish();
}

}  // namespace tbprof::xplane
