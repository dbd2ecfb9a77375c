// The XSpace wire reader: lines, events and stats (the hot path).
#include <cstdint>
#include <limits>

#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane::wire_internal {

// Number of stats (field 4) an XEvent holds, by a walk that only skips
// fields; a malformed event stops the count (the parse reports it later).
size_t CountEventStats(Span event) {
  size_t count = 0;
  const uint8_t* p = event.p;
  const uint8_t* end = event.end;
  while (p < end) {
    uint32_t tag = *p++;
    if (tag >= 0x80) {
      tag &= 0x7f;
      for (int shift = 7; p < end && shift < 35; shift += 7) {
        uint8_t b = *p++;
        tag |= static_cast<uint32_t>(b & 0x7f) << shift;  // Bits past 32 drop, as in ReadTag.
        if (b < 0x80) break;
      }
    }
    switch (tag & 7) {
      case kVarint:
        while (p < end && *p++ >= 0x80) {
        }
        break;
      case kFixed64:
        if (end - p < 8) return count;
        p += 8;
        break;
      case kLen: {
        uint64_t len = 0;
        for (int shift = 0; p < end && shift < 64; shift += 7) {
          uint8_t b = *p++;
          len |= static_cast<uint64_t>(b & 0x7f) << shift;
          if (b < 0x80) break;
        }
        if (len > static_cast<uint64_t>(end - p)) return count;
        p += len;
        count += tag == Tag(4, kLen);
        break;
      }
      case kFixed32:
        if (end - p < 4) return count;
        p += 4;
        break;
      default:
        return count;  // Groups and bad wire types: rare or an error.
    }
  }
  return count;
}

bool WireParser::ParseStat(const uint8_t* p, const uint8_t* end, int depth, RawStat* s) {
  if (!CheckDepth(depth, p)) return false;
  s->at = p;
  // A str_value replaced by a later value is still checked, as protobuf does.
  auto replace_value = [&]() {
    if (s->kind == StatKind::kStr && !IsValidUtf8(s->str.view())) {
      return Fail(s->str.p, "invalid UTF-8 in XStat.str_value");
    }
    return true;
  };
  return ForEachField(p, end, depth, [&](uint32_t tag, const uint8_t*& q) {
    uint64_t v = 0;
    switch (tag) {
      case Tag(1, kVarint):
        return ReadOrFailed(ReadInt64(q, end, &s->metadata_id));
      case Tag(2, kFixed64):
        if (!ReadFixed64(q, end, &v) || !replace_value()) return Field::kFailed;
        s->kind = StatKind::kDouble;
        s->bits = v;
        return Field::kRead;
      case Tag(3, kVarint):
      case Tag(4, kVarint):
      case Tag(7, kVarint):
        if (!ReadVarint(q, end, &v) || !replace_value()) return Field::kFailed;
        s->kind = tag == Tag(3, kVarint)   ? StatKind::kUint64
                  : tag == Tag(4, kVarint) ? StatKind::kInt64
                                           : StatKind::kRef;
        s->bits = v;
        return Field::kRead;
      case Tag(5, kLen):
      case Tag(6, kLen):
      case Tag(8, kLen): {
        Span str;
        if (!ReadLen(q, end, &str) || !replace_value()) return Field::kFailed;
        s->kind = tag == Tag(5, kLen)   ? StatKind::kStr
                  : tag == Tag(6, kLen) ? StatKind::kBytes
                                        : StatKind::kCompressedStr;
        s->str = str;
        s->bits = 0;
        return Field::kRead;
      }
      default:
        return Field::kUnknown;
    }
  });
}

bool WireParser::ResolveStat(const RawStat& raw, Stat* out) {
  const uint32_t index = StatIndex(raw.metadata_id, raw.at);
  if (__builtin_expect(index > Stat::kMaxStatMetadata, 0)) {
    return FailTooManyStatMetadata(raw.at);
  }
  out->set_metadata_index(index);
  out->set_kind(raw.kind);
  out->set_uint64_value(raw.bits, wide_);
  switch (raw.kind) {
    case StatKind::kStr: {
      uint32_t id = 0;
      if (!InternUtf8(raw.str, "XStat.str_value", &id)) return false;
      out->set_str_id(id);
      return true;
    }
    case StatKind::kBytes:
    case StatKind::kCompressedStr:
      out->set_str_id(Intern(raw.str));
      return true;
    default:
      return true;
  }
}

bool WireParser::ParseEvent(const uint8_t* p, const uint8_t* end, int depth, Line* line) {
  if (!CheckDepth(depth, p)) return false;
  const uint8_t* const start = p;
  Event e;
  e.stats_begin = static_cast<uint32_t>(line->stats.size());  // Stats are appended in order.
  int64_t metadata_id = 0;
  const bool read = ForEachField(p, end, depth, [&](uint32_t tag, const uint8_t*& q) {
    switch (tag) {
      case Tag(1, kVarint):
        return ReadOrFailed(ReadInt64(q, end, &metadata_id));
      case Tag(2, kVarint):
      case Tag(5, kVarint):
        if (!ReadInt64(q, end, &e.offset_ps)) return Field::kFailed;
        e.set_has_data(true);
        e.set_is_aggregate(tag == Tag(5, kVarint));
        return Field::kRead;
      case Tag(3, kVarint):
        return ReadOrFailed(ReadInt64(q, end, &e.duration_ps));
      case Tag(4, kLen): {
        Span span;
        if (!ReadLen(q, end, &span)) return Field::kFailed;
        RawStat raw;
        return ReadOrFailed(ParseStat(span.p, span.end, depth - 1, &raw) &&
                            ResolveStat(raw, &line->stats.emplace_back()));
      }
      default:
        return Field::kUnknown;
    }
  });
  if (!read) return false;
  const uint32_t index = EventIndex(metadata_id, start);
  if (__builtin_expect(index >= MaxEventMetadata(), 0)) return FailTooManyEventMetadata(start);
  e.set_metadata_index(index);
  line->events.push_back(e);
  return true;
}

bool WireParser::ParseLine(Span span, int depth, Line* line) {
  if (!CheckDepth(depth, span.p)) return false;
  // Walk 1: the line's own fields; events are only counted. It touches
  // every page of the line before walk 2 decodes them: for a mapped file,
  // the pages it passed are given back every kCheckpointBytes (walk 2 reads
  // them back from the page cache), so a long line is not resident whole.
  Span name, display_name;
  size_t events = 0, stats = 0;
  const bool release_walk_1 = input_->released_pages_read_back() &&
                              static_cast<uint64_t>(span.end - span.p) > 2 * kCheckpointBytes;
  const uint8_t* released_to = span.p;
  // Streaming needs the stats counted only where a line could pass the
  // limit below: each XStat takes at least 2 bytes.
  const bool stream = options_.line_events != nullptr && group_ < 0;
  const bool count_stats =
      !stream || static_cast<uint64_t>(span.end - span.p) / 2 > std::numeric_limits<uint32_t>::max();
  const bool read = ForEachField(span.p, span.end, depth, [&](uint32_t tag, const uint8_t*& p) {
    switch (tag) {
      case Tag(1, kVarint):
        return ReadOrFailed(ReadInt64(p, span.end, &line->id));
      case Tag(2, kLen):
        return ReadOrFailed(ReadUtf8(p, span.end, "XLine.name", &name));
      case Tag(3, kVarint):
        return ReadOrFailed(ReadInt64(p, span.end, &line->timestamp_ns));
      case Tag(4, kLen): {
        Span skipped;
        if (!ReadLen(p, span.end, &skipped)) return Field::kFailed;
        ++events;
        if (count_stats) stats += CountEventStats(skipped);
        if (release_walk_1 && static_cast<uint64_t>(p - released_to) >= kCheckpointBytes) {
          input_->ReleaseRange(static_cast<uint64_t>(released_to - base_),
                               static_cast<uint64_t>(p - base_));
          released_to = p;
        }
        return Field::kRead;
      }
      case Tag(9, kVarint):
        return ReadOrFailed(ReadInt64(p, span.end, &line->duration_ps));
      case Tag(10, kVarint):
        return ReadOrFailed(ReadInt64(p, span.end, &line->display_id));
      case Tag(11, kLen):
        return ReadOrFailed(ReadUtf8(p, span.end, "XLine.display_name", &display_name));
      default:
        return Field::kUnknown;
    }
  });
  if (!read) return false;
  line->name = Intern(name);
  line->display_name = Intern(display_name);
  // Walk 2: the events (fields were checked by walk 1).
  // Exact sizes: growing the vectors would copy them and, for a moment,
  // hold them twice.
  // Event::stats_begin is 32 bits.
  if (stats > std::numeric_limits<uint32_t>::max() - line->stats.size()) {
    return Fail(span.p, "more than 4294967295 stats in one line (the most tbprof holds)");
  }
  size_t wide_floor = 0;
  if (stream) {
    line->events.swap(stream_events_);
    line->stats.swap(stream_stats_);
    line->events.reserve(std::min(events, kStreamEvents));
    wide_floor = wide_->size();
  } else {
    line->events.reserve(events);
    line->stats.reserve(line->stats.size() + stats);
  }
  event_number_ = 0;
  const uint8_t* p = span.p;
  while (p < span.end) {
    uint32_t tag = 0;
    ReadTag(p, span.end, &tag);
    Span event;
    if (tag != Tag(4, kLen)) {
      SkipField(p, span.end, tag, depth);
      continue;
    }
    ReadLen(p, span.end, &event);
    if (!ParseEvent(event.p, event.end, depth - 1, line)) return false;
    ++event_number_;
    if (stream && line->events.size() == kStreamEvents) HandOverEvents(line, false, wide_floor);
    if (__builtin_expect(p >= next_checkpoint_, 0) && !Checkpoint(p)) return false;
  }
  event_number_ = -1;
  if (stream) {
    HandOverEvents(line, true, wide_floor);
    line->events.swap(stream_events_);
    line->stats.swap(stream_stats_);
  }
  return true;
}

void WireParser::HandOverEvents(Line* line, bool line_end, size_t wide_floor) {
  options_.line_events(*out_, *ps_->plane, *line, line_end);
  line->events.clear();
  line->stats.clear();
  wide_->resize(wide_floor);
}

}  // namespace tbprof::xplane::wire_internal
