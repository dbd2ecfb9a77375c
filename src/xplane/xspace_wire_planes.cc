// The XSpace wire reader: planes and their stat and event metadata.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane::wire_internal {

bool WireParser::ParseStatMetadataEntry(Span entry, int depth, RawStatMetadata* md) {
  if (!CheckDepth(depth, entry.p)) return false;
  return ForEachField(entry.p, entry.end, depth, [&](uint32_t tag, const uint8_t*& p) {
    if (tag == Tag(1, kVarint)) return ReadOrFailed(ReadInt64(p, entry.end, &md->key));
    if (tag != Tag(2, kLen)) return Field::kUnknown;
    Span value;
    if (!ReadLen(p, entry.end, &value) || !CheckDepth(depth - 1, value.p)) return Field::kFailed;
    // Repeated occurrences of the value merge, as protobuf parses them.
    return ReadOrFailed(ForEachField(value.p, value.end, depth - 1, [&](uint32_t value_tag,
                                                                       const uint8_t*& q) {
      switch (value_tag) {
        case Tag(1, kVarint):
          return ReadOrFailed(ReadInt64(q, value.end, &md->id));
        case Tag(2, kLen):
          return ReadOrFailed(ReadUtf8(q, value.end, "XStatMetadata.name", &md->name));
        case Tag(3, kLen):
          return ReadOrFailed(
              ReadUtf8(q, value.end, "XStatMetadata.description", &md->description));
        default:
          return Field::kUnknown;
      }
    }));
  });
}

bool WireParser::ParseEventMetadataEntry(Span entry, int depth, RawEventMetadata* md) {
  if (!CheckDepth(depth, entry.p)) return false;
  return ForEachField(entry.p, entry.end, depth, [&](uint32_t tag, const uint8_t*& p) {
    if (tag == Tag(1, kVarint)) return ReadOrFailed(ReadInt64(p, entry.end, &md->key));
    if (tag != Tag(2, kLen)) return Field::kUnknown;
    Span value;
    return ReadOrFailed(ReadLen(p, entry.end, &value) && ParseEventMetadata(value, depth - 1, md));
  });
}

bool WireParser::ParseEventMetadata(Span value, int depth, RawEventMetadata* md) {
  if (!CheckDepth(depth, value.p)) return false;
  const uint8_t* end = value.end;
  return ForEachField(value.p, end, depth, [&](uint32_t tag, const uint8_t*& p) {
    switch (tag) {
      case Tag(1, kVarint):
        return ReadOrFailed(ReadInt64(p, end, &md->id));
      case Tag(2, kLen):
        return ReadOrFailed(ReadUtf8(p, end, "XEventMetadata.name", &md->name));
      case Tag(3, kLen):
        return ReadOrFailed(ReadLen(p, end, &md->metadata));
      case Tag(4, kLen):
        return ReadOrFailed(ReadUtf8(p, end, "XEventMetadata.display_name", &md->display_name));
      case Tag(5, kLen): {
        Span stat;
        if (!ReadLen(p, end, &stat)) return Field::kFailed;
        RawStat& s = md->stats.emplace_back();
        return ReadOrFailed(ParseStat(stat.p, stat.end, depth - 1, &s));
      }
      case Tag(6, kVarint):
        return ReadOrFailed(ReadInt64(p, end, &md->child_ids.emplace_back()));
      case Tag(6, kLen): {  // Packed.
        Span packed;
        if (!ReadLen(p, end, &packed)) return Field::kFailed;
        for (const uint8_t* q = packed.p; q < packed.end;) {
          if (!ReadInt64(q, packed.end, &md->child_ids.emplace_back())) return Field::kFailed;
        }
        return Field::kRead;
      }
      default:
        return Field::kUnknown;
    }
  });
}

bool WireParser::ParsePlane(Span span, int depth) {
  if (!CheckDepth(depth, span.p)) return false;
  Plane& plane = out_->planes.emplace_back();
  PlaneState* ps = collect_tasks_ ? &states_.emplace_back() : &own_state_;
  ps->plane = &plane;
  ps->number = plane_number_;
  ps_ = ps;
  wide_ = &plane.wide_values;
  if (collect_tasks_) {
    if (ps->number == 0) {
      UsePool(&out_->strings);
    } else {
      ps->setup_pool = std::make_unique<StringPool>();
      UsePool(ps->setup_pool.get());
    }
  }
  // Walk 1: everything but the lines, which are only located.
  int64_t id = 0;
  Span name;
  std::vector<Span> lines, stats;
  std::vector<RawStatMetadata> stat_md;
  std::vector<RawEventMetadata> event_md;
  const bool read = ForEachField(span.p, span.end, depth, [&](uint32_t tag, const uint8_t*& p) {
    Span field;
    switch (tag) {
      case Tag(1, kVarint):
        return ReadOrFailed(ReadInt64(p, span.end, &id));
      case Tag(2, kLen):
        return ReadOrFailed(ReadUtf8(p, span.end, "XPlane.name", &name));
      case Tag(3, kLen):
        if (!ReadLen(p, span.end, &field)) return Field::kFailed;
        lines.push_back(field);
        return Field::kRead;
      case Tag(4, kLen):
        return ReadOrFailed(ReadLen(p, span.end, &field) &&
                            ParseEventMetadataEntry(field, depth - 1, &event_md.emplace_back()));
      case Tag(5, kLen):
        return ReadOrFailed(ReadLen(p, span.end, &field) &&
                            ParseStatMetadataEntry(field, depth - 1, &stat_md.emplace_back()));
      case Tag(6, kLen):
        if (!ReadLen(p, span.end, &field)) return Field::kFailed;
        stats.push_back(field);
        return Field::kRead;
      default:
        return Field::kUnknown;
    }
  });
  if (!read) return false;

  // Metadata as protobuf's maps hold it: the last entry of a key wins, in
  // key order.
  auto last_per_key = [](auto& entries) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    size_t kept = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;
      if (kept != i) entries[kept] = std::move(entries[i]);
      ++kept;
    }
    entries.resize(kept);
  };
  last_per_key(stat_md);
  last_per_key(event_md);
  if (stat_md.size() > Stat::kMaxStatMetadata) {
    return FailTooManyStatMetadata(span.p);
  }
  if (event_md.size() > MaxEventMetadata()) return FailTooManyEventMetadata(span.p);
  plane.id = id;
  plane.name = Intern(name);
  int64_t max_key = -1;
  for (const RawStatMetadata& md : stat_md) max_key = std::max(max_key, md.key);
  ps->stat_index.Reset(max_key, stat_md.size());
  plane.stat_metadata.reserve(stat_md.size());
  for (const RawStatMetadata& raw : stat_md) {
    StatMetadata& md = plane.stat_metadata.emplace_back();
    md.key = raw.key;
    md.id = raw.id;
    md.name = Intern(raw.name);
    md.description = Intern(raw.description);
    ps->stat_index.Insert(raw.key, static_cast<uint32_t>(plane.stat_metadata.size() - 1));
  }
  max_key = -1;
  for (const RawEventMetadata& md : event_md) max_key = std::max(max_key, md.key);
  ps->event_index.Reset(max_key, event_md.size());
  plane.event_metadata.resize(event_md.size());
  for (size_t i = 0; i < event_md.size(); ++i) {
    ps->event_index.Insert(event_md[i].key, static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < event_md.size(); ++i) {
    const RawEventMetadata& raw = event_md[i];
    EventMetadata& md = plane.event_metadata[i];
    md.key = raw.key;
    md.id = raw.id;
    md.name = Intern(raw.name);
    md.display_name = Intern(raw.display_name);
    md.metadata = Intern(raw.metadata);
    md.stats.resize(raw.stats.size());
    for (size_t j = 0; j < raw.stats.size(); ++j) {
      if (!ResolveStat(raw.stats[j], &md.stats[j])) return false;
    }
    md.child_ids = raw.child_ids;
  }
  plane.stats.reserve(stats.size());
  for (Span s : stats) {
    RawStat raw;
    if (!ParseStat(s.p, s.end, depth - 1, &raw) || !ResolveStat(raw, &plane.stats.emplace_back())) {
      return false;
    }
  }

  ps->known_stats = static_cast<uint32_t>(plane.stat_metadata.size());
  ps->known_events = static_cast<uint32_t>(plane.event_metadata.size());
  if (collect_tasks_) {  // Decoded later, by ParseInParallel().
    for (size_t i = 0; i < lines.size(); ++i) {
      LineTask& task = tasks_.emplace_back();
      task.plane = ps;
      task.line_number = static_cast<int64_t>(i);
      task.span = lines[i];
      task.depth = depth - 1;
      task.line = &plane.lines.emplace_back();
      line_bytes_ += static_cast<uint64_t>(lines[i].end - lines[i].p);
    }
    ps_ = nullptr;
    return true;
  }

  // Walk 2: the lines, in file order.
  line_number_ = 0;
  for (Span line : lines) {
    if (!ParseLine(line, depth - 1, &plane.lines.emplace_back())) return false;
    ++line_number_;
  }
  line_number_ = -1;
  ps_ = nullptr;
  return true;
}

uint32_t WireParser::MissingIndex(MetadataKind kind, int64_t id, const uint8_t* at) {
  const bool stat = kind == MetadataKind::kStat;
  if (group_ >= 0) {  // Provisional: created after the threads join.
    Provisional& pv = ps_->provisional[static_cast<size_t>(group_)];
    std::vector<int64_t>& ids = stat ? pv.stat_ids : pv.event_ids;
    auto [it, inserted] =
        (stat ? pv.stat_k : pv.event_k).try_emplace(id, static_cast<uint32_t>(ids.size()));
    if (inserted) {
      ids.push_back(id);
      if (stat) {
        pv.stat_at.push_back(at);
      } else {
        pv.event_use.push_back({at, line_number_, event_number_});
      }
    }
    const uint32_t known = stat ? ps_->known_stats : ps_->known_events;
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{known} + it->second, kNoIndex - 1));
  }
  Plane& plane = *ps_->plane;
  uint32_t index = 0;
  if (stat) {
    StatMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    index = static_cast<uint32_t>(plane.stat_metadata.size());
    plane.stat_metadata.push_back(md);
    ps_->stat_index.Insert(id, index);
  } else {
    EventMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    index = static_cast<uint32_t>(plane.event_metadata.size());
    plane.event_metadata.push_back(std::move(md));
    ps_->event_index.Insert(id, index);
  }
  return index;
}

}  // namespace tbprof::xplane::wire_internal
