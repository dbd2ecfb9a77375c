#include "src/xplane/xspace_io.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_wire_reader.h"
#include "src/xplane/xspace_wire_writer.h"

namespace tbprof::xplane {
namespace {

namespace pb = ::tensorflow::profiler;

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
  return SerializeXSpaceWire(data, /*sizes=*/nullptr, /*subset=*/nullptr);
}

absl::Status WriteXSpaceData(const XSpaceData& data, AtomicOutputFile* file) {
  return WriteXSpaceWire(data, /*sizes=*/nullptr, /*subset=*/nullptr, file);
}

absl::StatusOr<XSpaceData> ParseXSpaceData(absl::string_view bytes, absl::string_view source) {
  std::unique_ptr<XSpaceInput> input = XSpaceInput::FromBytes(bytes, source);
  return ParseXSpaceInput(input.get());
}

}  // namespace tbprof::xplane
