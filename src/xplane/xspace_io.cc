#include "src/xplane/xspace_io.h"

#include <algorithm>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;
using ::google::protobuf::io::CodedOutputStream;

// ---- proto -> data ---------------------------------------------------------

class PlaneReader {
 public:
  PlaneReader(XSpaceData* space, Plane* plane) : space_(space), plane_(plane) {}

  void Read(const pb::XPlane& proto) {
    plane_->id = proto.id();
    plane_->name = space_->strings.Intern(proto.name());
    std::vector<int64_t> stat_keys;
    for (const auto& [key, md] : proto.stat_metadata()) stat_keys.push_back(key);
    std::sort(stat_keys.begin(), stat_keys.end());
    for (int64_t key : stat_keys) {
      const pb::XStatMetadata& md = proto.stat_metadata().at(key);
      StatMetadata out;
      out.key = key;
      out.id = md.id();
      out.name = space_->strings.Intern(md.name());
      out.description = space_->strings.Intern(md.description());
      stat_index_.emplace(key, static_cast<uint32_t>(plane_->stat_metadata.size()));
      plane_->stat_metadata.push_back(out);
    }
    std::vector<int64_t> event_keys;
    for (const auto& [key, md] : proto.event_metadata()) event_keys.push_back(key);
    std::sort(event_keys.begin(), event_keys.end());
    for (int64_t key : event_keys) {
      event_index_.emplace(key, static_cast<uint32_t>(plane_->event_metadata.size()));
      plane_->event_metadata.emplace_back();
    }
    for (size_t i = 0; i < event_keys.size(); ++i) {
      const pb::XEventMetadata& md = proto.event_metadata().at(event_keys[i]);
      EventMetadata& out = plane_->event_metadata[i];
      out.key = event_keys[i];
      out.id = md.id();
      out.name = space_->strings.Intern(md.name());
      out.display_name = space_->strings.Intern(md.display_name());
      out.metadata = space_->strings.Intern(md.metadata());
      for (const pb::XStat& s : md.stats()) out.stats.push_back(ReadStat(s));
      out.child_ids.assign(md.child_id().begin(), md.child_id().end());
    }
    for (const pb::XStat& s : proto.stats()) plane_->stats.push_back(ReadStat(s));
    for (const pb::XLine& line_proto : proto.lines()) ReadLine(line_proto, plane_->lines.emplace_back());
  }

 private:
  uint32_t StatIndex(int64_t id) {
    auto it = stat_index_.find(id);
    if (it != stat_index_.end()) return it->second;
    StatMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    uint32_t index = static_cast<uint32_t>(plane_->stat_metadata.size());
    plane_->stat_metadata.push_back(md);
    stat_index_.emplace(id, index);
    return index;
  }

  uint32_t EventIndex(int64_t id) {
    auto it = event_index_.find(id);
    if (it != event_index_.end()) return it->second;
    EventMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    uint32_t index = static_cast<uint32_t>(plane_->event_metadata.size());
    plane_->event_metadata.push_back(std::move(md));
    event_index_.emplace(id, index);
    return index;
  }

  Stat ReadStat(const pb::XStat& proto) {
    Stat s;
    s.set_metadata_index(StatIndex(proto.metadata_id()));
    WideValues* wide = &plane_->wide_values;
    switch (proto.value_case()) {
      case pb::XStat::kDoubleValue:
        s.set_kind(StatKind::kDouble);
        s.set_double_value(proto.double_value(), wide);
        break;
      case pb::XStat::kUint64Value:
        s.set_kind(StatKind::kUint64);
        s.set_uint64_value(proto.uint64_value(), wide);
        break;
      case pb::XStat::kInt64Value:
        s.set_kind(StatKind::kInt64);
        s.set_int64_value(proto.int64_value(), wide);
        break;
      case pb::XStat::kStrValue:
        s.set_kind(StatKind::kStr);
        s.set_str_id(space_->strings.Intern(proto.str_value()));
        break;
      case pb::XStat::kBytesValue:
        s.set_kind(StatKind::kBytes);
        s.set_str_id(space_->strings.Intern(proto.bytes_value()));
        break;
      case pb::XStat::kRefValue:
        s.set_kind(StatKind::kRef);
        s.set_uint64_value(proto.ref_value(), wide);
        break;
      case pb::XStat::kCompressedStrValue:
        s.set_kind(StatKind::kCompressedStr);
        s.set_str_id(space_->strings.Intern(proto.compressed_str_value()));
        break;
      case pb::XStat::VALUE_NOT_SET:
        s.set_kind(StatKind::kNone);
        break;
    }
    return s;
  }

  void ReadLine(const pb::XLine& proto, Line& line) {
    line.id = proto.id();
    line.display_id = proto.display_id();
    line.name = space_->strings.Intern(proto.name());
    line.display_name = space_->strings.Intern(proto.display_name());
    line.timestamp_ns = proto.timestamp_ns();
    line.duration_ps = proto.duration_ps();
    line.events.reserve(proto.events_size());
    for (const pb::XEvent& ev : proto.events()) {
      Event e;
      e.set_metadata_index(EventIndex(ev.metadata_id()));
      e.duration_ps = ev.duration_ps();
      e.set_has_data(ev.data_case() != pb::XEvent::DATA_NOT_SET);
      e.set_is_aggregate(ev.data_case() == pb::XEvent::kNumOccurrences);
      e.offset_ps = e.is_aggregate() ? ev.num_occurrences() : ev.offset_ps();
      e.stats_begin = static_cast<uint32_t>(line.stats.size());
      for (const pb::XStat& s : ev.stats()) line.stats.push_back(ReadStat(s));
      line.events.push_back(e);
    }
  }

  XSpaceData* space_;
  Plane* plane_;
  absl::flat_hash_map<int64_t, uint32_t> stat_index_;
  absl::flat_hash_map<int64_t, uint32_t> event_index_;
};

// ---- data -> proto ---------------------------------------------------------

void WriteStatProto(const XSpaceData& space, const Plane& plane, const Stat& s, pb::XStat* out) {
  out->set_metadata_id(plane.stat_metadata[s.metadata_index()].id);
  switch (s.kind()) {
    case StatKind::kNone:
      break;
    case StatKind::kDouble:
      out->set_double_value(s.double_value(plane.wide_values));
      break;
    case StatKind::kUint64:
      out->set_uint64_value(s.uint64_value(plane.wide_values));
      break;
    case StatKind::kInt64:
      out->set_int64_value(s.int64_value(plane.wide_values));
      break;
    case StatKind::kStr:
      out->set_str_value(std::string(space.strings.Get(s.str_id())));
      break;
    case StatKind::kBytes:
      out->set_bytes_value(std::string(space.strings.Get(s.str_id())));
      break;
    case StatKind::kRef:
      out->set_ref_value(s.uint64_value(plane.wide_values));
      break;
    case StatKind::kCompressedStr:
      out->set_compressed_str_value(std::string(space.strings.Get(s.str_id())));
      break;
  }
}

// ---- wire-format sizes and writers -----------------------------------------

using WireSize = size_t;

inline WireSize TagSize(int field) { return CodedOutputStream::VarintSize32(static_cast<uint32_t>(field) << 3); }
inline WireSize VarintFieldSize(int field, uint64_t v) { return TagSize(field) + CodedOutputStream::VarintSize64(v); }
inline WireSize LengthFieldSize(int field, size_t len) {
  return TagSize(field) + CodedOutputStream::VarintSize64(len) + len;
}

inline void WriteVarintField(CodedOutputStream* out, int field, uint64_t v) {
  out->WriteTag(static_cast<uint32_t>(field) << 3);
  out->WriteVarint64(v);
}
inline void WriteLengthHeader(CodedOutputStream* out, int field, size_t len) {
  out->WriteTag((static_cast<uint32_t>(field) << 3) | 2);
  out->WriteVarint64(len);
}
inline void WriteBytesField(CodedOutputStream* out, int field, absl::string_view bytes) {
  WriteLengthHeader(out, field, bytes.size());
  // An empty view may have a null data(): memcpy(dst, nullptr, 0) is UB.
  if (!bytes.empty()) out->WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
}
inline void WriteStringIfNotEmpty(CodedOutputStream* out, int field, absl::string_view s) {
  if (!s.empty()) WriteBytesField(out, field, s);
}
inline WireSize StringSizeIfNotEmpty(int field, absl::string_view s) {
  return s.empty() ? 0 : LengthFieldSize(field, s.size());
}

class Serializer {
 public:
  explicit Serializer(const XSpaceData& space) : space_(space) {}

  WireSize StatSize(const Plane& plane, const Stat& s) const {
    WireSize size = 0;
    int64_t id = plane.stat_metadata[s.metadata_index()].id;
    if (id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(id));
    switch (s.kind()) {
      case StatKind::kNone: break;
      case StatKind::kDouble: size += TagSize(2) + 8; break;
      case StatKind::kUint64: size += VarintFieldSize(3, s.uint64_value(plane.wide_values)); break;
      case StatKind::kInt64: size += VarintFieldSize(4, static_cast<uint64_t>(s.int64_value(plane.wide_values))); break;
      case StatKind::kStr: size += LengthFieldSize(5, space_.strings.Get(s.str_id()).size()); break;
      case StatKind::kBytes: size += LengthFieldSize(6, space_.strings.Get(s.str_id()).size()); break;
      case StatKind::kRef: size += VarintFieldSize(7, s.uint64_value(plane.wide_values)); break;
      case StatKind::kCompressedStr: size += LengthFieldSize(8, space_.strings.Get(s.str_id()).size()); break;
    }
    return size;
  }

  void WriteStat(CodedOutputStream* out, const Plane& plane, const Stat& s) const {
    int64_t id = plane.stat_metadata[s.metadata_index()].id;
    if (id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(id));
    switch (s.kind()) {
      case StatKind::kNone: break;
      case StatKind::kDouble:
        out->WriteTag((2u << 3) | 1);
        out->WriteLittleEndian64(absl::bit_cast<uint64_t>(s.double_value(plane.wide_values)));
        break;
      case StatKind::kUint64: WriteVarintField(out, 3, s.uint64_value(plane.wide_values)); break;
      case StatKind::kInt64: WriteVarintField(out, 4, static_cast<uint64_t>(s.int64_value(plane.wide_values))); break;
      case StatKind::kStr: WriteBytesField(out, 5, space_.strings.Get(s.str_id())); break;
      case StatKind::kBytes: WriteBytesField(out, 6, space_.strings.Get(s.str_id())); break;
      case StatKind::kRef: WriteVarintField(out, 7, s.uint64_value(plane.wide_values)); break;
      case StatKind::kCompressedStr: WriteBytesField(out, 8, space_.strings.Get(s.str_id())); break;
    }
  }

  WireSize StatsSize(const Plane& plane, const Stat* stats, size_t n, int field) const {
    WireSize size = 0;
    for (size_t i = 0; i < n; ++i) size += LengthFieldSize(field, StatSize(plane, stats[i]));
    return size;
  }
  void WriteStats(CodedOutputStream* out, const Plane& plane, const Stat* stats, size_t n,
                  int field) const {
    for (size_t i = 0; i < n; ++i) {
      WriteLengthHeader(out, field, StatSize(plane, stats[i]));
      WriteStat(out, plane, stats[i]);
    }
  }

  // Event `i` of `line`.
  WireSize EventSize(const Plane& plane, const Line& line, size_t i) const {
    const Event& e = line.events[i];
    WireSize size = 0;
    int64_t md_id = plane.event_metadata[e.metadata_index()].id;
    if (md_id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(md_id));
    if (e.has_data()) {
      size += VarintFieldSize(e.is_aggregate() ? 5 : 2, static_cast<uint64_t>(e.offset_ps));
    }
    if (e.duration_ps != 0) size += VarintFieldSize(3, static_cast<uint64_t>(e.duration_ps));
    size += StatsSize(plane, line.stats.data() + e.stats_begin, line.stats_count(i), 4);
    return size;
  }

  void WriteEvent(CodedOutputStream* out, const Plane& plane, const Line& line, size_t i) const {
    const Event& e = line.events[i];
    int64_t md_id = plane.event_metadata[e.metadata_index()].id;
    if (md_id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(md_id));
    if (e.has_data() && !e.is_aggregate()) {
      WriteVarintField(out, 2, static_cast<uint64_t>(e.offset_ps));
    }
    if (e.duration_ps != 0) WriteVarintField(out, 3, static_cast<uint64_t>(e.duration_ps));
    WriteStats(out, plane, line.stats.data() + e.stats_begin, line.stats_count(i), 4);
    if (e.has_data() && e.is_aggregate()) {
      WriteVarintField(out, 5, static_cast<uint64_t>(e.offset_ps));
    }
  }

  WireSize LineSize(const Plane& plane, const Line& line) const {
    WireSize size = 0;
    if (line.id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(line.id));
    size += StringSizeIfNotEmpty(2, space_.strings.Get(line.name));
    if (line.timestamp_ns != 0) size += VarintFieldSize(3, static_cast<uint64_t>(line.timestamp_ns));
    for (size_t i = 0; i < line.events.size(); ++i) {
      size += LengthFieldSize(4, EventSize(plane, line, i));
    }
    if (line.duration_ps != 0) size += VarintFieldSize(9, static_cast<uint64_t>(line.duration_ps));
    if (line.display_id != 0) size += VarintFieldSize(10, static_cast<uint64_t>(line.display_id));
    size += StringSizeIfNotEmpty(11, space_.strings.Get(line.display_name));
    return size;
  }

  void WriteLine(CodedOutputStream* out, const Plane& plane, const Line& line) const {
    if (line.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(line.id));
    WriteStringIfNotEmpty(out, 2, space_.strings.Get(line.name));
    if (line.timestamp_ns != 0) WriteVarintField(out, 3, static_cast<uint64_t>(line.timestamp_ns));
    for (size_t i = 0; i < line.events.size(); ++i) {
      WriteLengthHeader(out, 4, EventSize(plane, line, i));
      WriteEvent(out, plane, line, i);
    }
    if (line.duration_ps != 0) WriteVarintField(out, 9, static_cast<uint64_t>(line.duration_ps));
    if (line.display_id != 0) WriteVarintField(out, 10, static_cast<uint64_t>(line.display_id));
    WriteStringIfNotEmpty(out, 11, space_.strings.Get(line.display_name));
  }

  WireSize EventMetadataSize(const Plane& plane, const EventMetadata& md) const {
    WireSize size = 0;
    if (md.id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(md.id));
    size += StringSizeIfNotEmpty(2, space_.strings.Get(md.name));
    size += StringSizeIfNotEmpty(3, space_.strings.Get(md.metadata));
    size += StringSizeIfNotEmpty(4, space_.strings.Get(md.display_name));
    size += StatsSize(plane, md.stats.data(), md.stats.size(), 5);
    if (!md.child_ids.empty()) size += LengthFieldSize(6, PackedSize(md.child_ids));
    return size;
  }

  static WireSize PackedSize(const std::vector<int64_t>& values) {
    WireSize size = 0;
    for (int64_t v : values) size += CodedOutputStream::VarintSize64(static_cast<uint64_t>(v));
    return size;
  }

  void WriteEventMetadata(CodedOutputStream* out, const Plane& plane, const EventMetadata& md) const {
    if (md.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(md.id));
    WriteStringIfNotEmpty(out, 2, space_.strings.Get(md.name));
    WriteStringIfNotEmpty(out, 3, space_.strings.Get(md.metadata));
    WriteStringIfNotEmpty(out, 4, space_.strings.Get(md.display_name));
    WriteStats(out, plane, md.stats.data(), md.stats.size(), 5);
    if (!md.child_ids.empty()) {
      WriteLengthHeader(out, 6, PackedSize(md.child_ids));
      for (int64_t v : md.child_ids) out->WriteVarint64(static_cast<uint64_t>(v));
    }
  }

  WireSize StatMetadataSize(const StatMetadata& md) const {
    WireSize size = 0;
    if (md.id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(md.id));
    size += StringSizeIfNotEmpty(2, space_.strings.Get(md.name));
    size += StringSizeIfNotEmpty(3, space_.strings.Get(md.description));
    return size;
  }

  // Map entries are messages {key = 1; value = 2}, both always written.
  template <typename Md, typename SizeFn>
  static WireSize MapEntrySize(const Md& md, SizeFn value_size) {
    return VarintFieldSize(1, static_cast<uint64_t>(md.key)) + LengthFieldSize(2, value_size);
  }

  WireSize PlaneSize(const Plane& plane, std::vector<WireSize>* line_sizes) const {
    WireSize size = 0;
    if (plane.id != 0) size += VarintFieldSize(1, static_cast<uint64_t>(plane.id));
    size += StringSizeIfNotEmpty(2, space_.strings.Get(plane.name));
    line_sizes->clear();
    for (const Line& line : plane.lines) {
      line_sizes->push_back(LineSize(plane, line));
      size += LengthFieldSize(3, line_sizes->back());
    }
    for (const EventMetadata& md : plane.event_metadata) {
      if (md.implicit) continue;
      size += LengthFieldSize(4, MapEntrySize(md, EventMetadataSize(plane, md)));
    }
    for (const StatMetadata& md : plane.stat_metadata) {
      if (md.implicit) continue;
      size += LengthFieldSize(5, MapEntrySize(md, StatMetadataSize(md)));
    }
    size += StatsSize(plane, plane.stats.data(), plane.stats.size(), 6);
    return size;
  }

  void WritePlane(CodedOutputStream* out, const Plane& plane,
                  const std::vector<WireSize>& line_sizes) const {
    if (plane.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(plane.id));
    WriteStringIfNotEmpty(out, 2, space_.strings.Get(plane.name));
    for (size_t i = 0; i < plane.lines.size(); ++i) {
      WriteLengthHeader(out, 3, line_sizes[i]);
      WriteLine(out, plane, plane.lines[i]);
    }
    for (const EventMetadata& md : plane.event_metadata) {
      if (md.implicit) continue;
      WireSize value_size = EventMetadataSize(plane, md);
      WriteLengthHeader(out, 4, MapEntrySize(md, value_size));
      WriteVarintField(out, 1, static_cast<uint64_t>(md.key));
      WriteLengthHeader(out, 2, value_size);
      WriteEventMetadata(out, plane, md);
    }
    for (const StatMetadata& md : plane.stat_metadata) {
      if (md.implicit) continue;
      WireSize value_size = StatMetadataSize(md);
      WriteLengthHeader(out, 5, MapEntrySize(md, value_size));
      WriteVarintField(out, 1, static_cast<uint64_t>(md.key));
      WriteLengthHeader(out, 2, value_size);
      if (md.id != 0) WriteVarintField(out, 1, static_cast<uint64_t>(md.id));
      WriteStringIfNotEmpty(out, 2, space_.strings.Get(md.name));
      WriteStringIfNotEmpty(out, 3, space_.strings.Get(md.description));
    }
    WriteStats(out, plane, plane.stats.data(), plane.stats.size(), 6);
  }

  void WriteSpace(CodedOutputStream* out) const {
    std::vector<WireSize> line_sizes;
    for (const Plane& plane : space_.planes) {
      WireSize size = PlaneSize(plane, &line_sizes);
      WriteLengthHeader(out, 1, size);
      WritePlane(out, plane, line_sizes);
    }
    for (const std::string& s : space_.errors) WriteBytesField(out, 2, s);
    for (const std::string& s : space_.warnings) WriteBytesField(out, 3, s);
    for (const std::string& s : space_.hostnames) WriteBytesField(out, 4, s);
  }

 private:
  const XSpaceData& space_;
};

// Adapts AtomicOutputFile to protobuf's copying stream interface.
class FileCopyingStream : public ::google::protobuf::io::CopyingOutputStream {
 public:
  explicit FileCopyingStream(AtomicOutputFile* file) : file_(file) {}
  bool Write(const void* buffer, int size) override {
    if (!status_.ok()) return false;
    status_ = file_->Append(absl::string_view(static_cast<const char*>(buffer), size));
    return status_.ok();
  }
  const absl::Status& status() const { return status_; }

 private:
  AtomicOutputFile* file_;
  absl::Status status_;
};

}  // namespace

void ConvertXSpaceProtoToData(const pb::XSpace& proto, XSpaceData* out) {
  for (const pb::XPlane& plane : proto.planes()) {
    PlaneReader(out, &out->planes.emplace_back()).Read(plane);
  }
  out->errors.assign(proto.errors().begin(), proto.errors().end());
  out->warnings.assign(proto.warnings().begin(), proto.warnings().end());
  out->hostnames.assign(proto.hostnames().begin(), proto.hostnames().end());
}

void ConvertXSpaceDataToProto(const XSpaceData& data, pb::XSpace* out) {
  for (const Plane& plane : data.planes) {
    pb::XPlane* p = out->add_planes();
    p->set_id(plane.id);
    p->set_name(std::string(data.strings.Get(plane.name)));
    for (const Line& line : plane.lines) {
      pb::XLine* l = p->add_lines();
      l->set_id(line.id);
      l->set_display_id(line.display_id);
      l->set_name(std::string(data.strings.Get(line.name)));
      l->set_display_name(std::string(data.strings.Get(line.display_name)));
      l->set_timestamp_ns(line.timestamp_ns);
      l->set_duration_ps(line.duration_ps);
      for (size_t i = 0; i < line.events.size(); ++i) {
        const Event& e = line.events[i];
        pb::XEvent* ev = l->add_events();
        ev->set_metadata_id(plane.event_metadata[e.metadata_index()].id);
        if (e.has_data()) {
          if (e.is_aggregate()) {
            ev->set_num_occurrences(e.offset_ps);
          } else {
            ev->set_offset_ps(e.offset_ps);
          }
        }
        ev->set_duration_ps(e.duration_ps);
        for (const Stat& s : line.event_stats(i)) WriteStatProto(data, plane, s, ev->add_stats());
      }
    }
    for (const EventMetadata& md : plane.event_metadata) {
      if (md.implicit) continue;
      pb::XEventMetadata& m = (*p->mutable_event_metadata())[md.key];
      m.set_id(md.id);
      m.set_name(std::string(data.strings.Get(md.name)));
      m.set_display_name(std::string(data.strings.Get(md.display_name)));
      m.set_metadata(std::string(data.strings.Get(md.metadata)));
      for (const Stat& s : md.stats) WriteStatProto(data, plane, s, m.add_stats());
      for (int64_t c : md.child_ids) m.add_child_id(c);
    }
    for (const StatMetadata& md : plane.stat_metadata) {
      if (md.implicit) continue;
      pb::XStatMetadata& m = (*p->mutable_stat_metadata())[md.key];
      m.set_id(md.id);
      m.set_name(std::string(data.strings.Get(md.name)));
      m.set_description(std::string(data.strings.Get(md.description)));
    }
    for (const Stat& s : plane.stats) WriteStatProto(data, plane, s, p->add_stats());
  }
  for (const std::string& s : data.errors) out->add_errors(s);
  for (const std::string& s : data.warnings) out->add_warnings(s);
  for (const std::string& s : data.hostnames) out->add_hostnames(s);
}

std::string SerializeXSpaceData(const XSpaceData& data) {
  std::string out;
  {
    ::google::protobuf::io::StringOutputStream stream(&out);
    CodedOutputStream coded(&stream);
    Serializer(data).WriteSpace(&coded);
  }
  return out;
}

absl::Status WriteXSpaceData(const XSpaceData& data, AtomicOutputFile* file) {
  FileCopyingStream sink(file);
  {
    ::google::protobuf::io::CopyingOutputStreamAdaptor adaptor(&sink, 1 << 20);
    {
      CodedOutputStream coded(&adaptor);
      Serializer(data).WriteSpace(&coded);
      if (coded.HadError() && sink.status().ok()) {
        return absl::InternalError(absl::StrCat(file->target_path(), ": serialization failed"));
      }
    }
    adaptor.Flush();
  }
  return sink.status();
}

absl::StatusOr<XSpaceData> ParseXSpaceData(absl::string_view bytes, absl::string_view source) {
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, source);
  return ParseXSpaceInput(input.get());
}

}  // namespace tbprof::xplane
