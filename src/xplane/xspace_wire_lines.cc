// The XSpace wire reader: lines, events and stats (the hot path).
#include <cstdint>
#include <limits>

#include "src/base/huge_pages.h"
#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane::wire_internal {

namespace {

// Walks the fields of [p, end) only skipping them, and calls
// `on_len(tag, value)` for each length-delimited one. Returns false where it
// stops early: a group, an invalid wire type or a field running past `end`.
template <typename OnLen>
inline bool SkipWalk(const uint8_t* p, const uint8_t* end, OnLen&& on_len) {
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
        if (end - p < 8) return false;
        p += 8;
        break;
      case kLen: {
        uint64_t len = 0;
        for (int shift = 0; p < end && shift < 64; shift += 7) {
          uint8_t b = *p++;
          len |= static_cast<uint64_t>(b & 0x7f) << shift;
          if (b < 0x80) break;
        }
        if (len > static_cast<uint64_t>(end - p)) return false;
        on_len(tag, Span{p, p + len});
        p += len;
        break;
      }
      case kFixed32:
        if (end - p < 4) return false;
        p += 4;
        break;
      default:
        return false;  // Groups and bad wire types: rare or an error.
    }
  }
  return true;
}

// Where ParseEvent() puts an event and its stats: appended to a line.
struct AppendSink {
  Line* line;
  uint32_t next_stat() const { return static_cast<uint32_t>(line->stats.size()); }
  Stat* NewStat() { return &line->stats.emplace_back(); }
  void AddEvent(const Event& e) { line->events.push_back(e); }
};

// Where ParseEvent() puts an event and its stats: written in order into the
// slices a piece of a split line was given (LineTask).
struct SliceSink {
  Event* event;
  Stat* stat;
  Stat* stat_end;
  uint32_t stat_index;  // Of `stat` in the line.
  uint32_t next_stat() const { return stat_index; }
  // Null past the slice: counting the stats ahead found fewer (it cannot,
  // when it walked every event whole, which the split requires).
  Stat* NewStat() {
    if (__builtin_expect(stat == stat_end, 0)) return nullptr;
    ++stat_index;
    return stat++;
  }
  void AddEvent(const Event& e) { *event++ = e; }
};

}  // namespace

size_t CountEventStats(Span event, bool* whole) {
  size_t count = 0;
  const bool walked = SkipWalk(event.p, event.end,
                               [&count](uint32_t tag, Span) { count += tag == Tag(4, kLen); });
  if (whole != nullptr) *whole = walked;
  return count;
}

bool CountPieceStats(Span piece, uint64_t* stats) {
  uint64_t count = 0;
  bool whole = true;
  const bool walked = SkipWalk(piece.p, piece.end, [&](uint32_t tag, Span value) {
    if (tag != Tag(4, kLen)) return;
    bool event_whole = true;
    count += CountEventStats(value, &event_whole);
    whole = whole && event_whole;
  });
  *stats = count;
  return walked && whole;
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

template <typename Sink>
bool WireParser::ParseEvent(const uint8_t* p, const uint8_t* end, int depth, Sink& sink) {
  if (!CheckDepth(depth, p)) return false;
  const uint8_t* const start = p;
  Event e;
  e.stats_begin = sink.next_stat();  // Stats are added in order.
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
        if (!ParseStat(span.p, span.end, depth - 1, &raw)) return Field::kFailed;
        Stat* stat = sink.NewStat();
        if (stat == nullptr) return ReadOrFailed(Fail(span.p, "more stats than counted"));
        return ReadOrFailed(ResolveStat(raw, stat));
      }
      default:
        return Field::kUnknown;
    }
  });
  if (!read) return false;
  const uint32_t index = EventIndex(metadata_id, start);
  if (__builtin_expect(index >= MaxEventMetadata(), 0)) return FailTooManyEventMetadata(start);
  e.set_metadata_index(index);
  sink.AddEvent(e);
  return true;
}

WireParser::Field WireParser::ReadLineField(uint32_t tag, const uint8_t* end, const uint8_t*& p,
                                            Line* line, Span* name, Span* display_name) {
  switch (tag) {
    case Tag(1, kVarint):
      return ReadOrFailed(ReadInt64(p, end, &line->id));
    case Tag(2, kLen):
      return ReadOrFailed(ReadUtf8(p, end, "XLine.name", name));
    case Tag(3, kVarint):
      return ReadOrFailed(ReadInt64(p, end, &line->timestamp_ns));
    case Tag(9, kVarint):
      return ReadOrFailed(ReadInt64(p, end, &line->duration_ps));
    case Tag(10, kVarint):
      return ReadOrFailed(ReadInt64(p, end, &line->display_id));
    case Tag(11, kLen):
      return ReadOrFailed(ReadUtf8(p, end, "XLine.display_name", display_name));
    default:
      return Field::kUnknown;
  }
}

void WireParser::ReleaseWalked(const uint8_t* p, const uint8_t** released_to) {
  if (static_cast<uint64_t>(p - *released_to) < kCheckpointBytes) return;
  input_->ReleaseRange(static_cast<uint64_t>(*released_to - base_), static_cast<uint64_t>(p - base_));
  *released_to = p;
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
    if (tag != Tag(4, kLen)) return ReadLineField(tag, span.end, p, line, &name, &display_name);
    Span skipped;
    if (!ReadLen(p, span.end, &skipped)) return Field::kFailed;
    ++events;
    if (count_stats) stats += CountEventStats(skipped);
    if (release_walk_1) ReleaseWalked(p, &released_to);
    return Field::kRead;
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
    // Both are filled to their capacity below.
    AdviseHugePagesFor(line->events);
    AdviseHugePagesFor(line->stats);
  }
  event_number_ = 0;
  AppendSink sink{line};
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
    if (!ParseEvent(event.p, event.end, depth - 1, sink)) return false;
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

bool WireParser::DecodePiece(const LineTask& task) {
  Line* line = task.line;
  if (task.first_piece) {  // As ParseLine() does before the events.
    line->name = Intern(task.name);
    line->display_name = Intern(task.display_name);
  }
  SliceSink sink{task.events_begin(), task.stats_begin(), task.stats_begin() + task.stats,
                 static_cast<uint32_t>(task.first_stat)};
  // The line's own fields were checked when it was split.
  event_number_ = static_cast<int64_t>(task.first_event);
  const uint8_t* p = task.span.p;
  const uint8_t* end = task.span.end;
  while (p < end) {
    uint32_t tag = 0;
    ReadTag(p, end, &tag);
    Span event;
    if (tag != Tag(4, kLen)) {
      SkipField(p, end, tag, task.depth);
      continue;
    }
    ReadLen(p, end, &event);
    if (!ParseEvent(event.p, event.end, task.depth - 1, sink)) return false;
    ++event_number_;
    if (__builtin_expect(p >= next_checkpoint_, 0) && !Checkpoint(p)) return false;
  }
  event_number_ = -1;
  return true;
}

void WireParser::HandOverEvents(Line* line, bool line_end, size_t wide_floor) {
  options_.line_events(*out_, *ps_->plane, *line, line_end);
  line->events.clear();
  line->stats.clear();
  wide_->resize(wide_floor);
}

}  // namespace tbprof::xplane::wire_internal
