// Internal to the XSpace wire reader (xspace_wire_reader.h): the parser that
// decodes XSpace wire bytes straight into XSpaceData, split by what it
// decodes: xspace_wire_reader.cc (the space, checkpoints, errors, the entry
// point), xspace_wire_planes.cc (planes and their metadata),
// xspace_wire_lines.cc (lines, events, stats), xspace_wire_parallel.cc
// (decoding the lines on several threads) and xspace_wire_pieces.cc
// (cutting long lines into pieces for them). The field-level primitives
// (varints, tags, lengths, skipping) and the one field loop every message
// uses (ForEachField) are inline here. Include only from those files (and
// their tests).
#ifndef TBPROF_SRC_XPLANE_XSPACE_WIRE_PARSER_H_
#define TBPROF_SRC_XPLANE_XSPACE_WIRE_PARSER_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::xplane::wire_internal {

// The system's page size (xspace_input.cc).
uint64_t PageSize();

// protobuf's default recursion limit: nested messages and groups together.
constexpr int kMaxDepth = 100;
constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();
// Decoding gives back the file's pages it has passed (and reports progress)
// every this many bytes: 1 MB keeps ~1 MB of a mapped file resident per
// thread where 8 MB kept 8 (the reader's memory floor 1.7x -> 1.5x of a
// 27 MB file).
constexpr uint64_t kCheckpointBytes = uint64_t{1} << 20;
// Streaming (XSpaceParseOptions::line_events) hands a line's events over in
// pieces of this many: their events and stats (~200 KB) stay in cache.
constexpr size_t kStreamEvents = 4096;

// Tags (field << 3 | wire type) of the fields we read.
constexpr uint32_t Tag(uint32_t field, uint32_t wire_type) { return (field << 3) | wire_type; }
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4,
                   kFixed32 = 5;

struct Span {
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  absl::string_view view() const {
    return absl::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
  }
};

// An XStat as read, before its metadata id and string are resolved.
struct RawStat {
  int64_t metadata_id = 0;
  StatKind kind = StatKind::kNone;
  uint64_t bits = 0;  // Numeric value (double as bits).
  Span str;           // kStr, kBytes, kCompressedStr.
  const uint8_t* at = nullptr;  // Where the XStat starts, for errors.
};

struct RawStatMetadata {
  int64_t key = 0;
  int64_t id = 0;
  Span name, description;
};

struct RawEventMetadata {
  int64_t key = 0;
  int64_t id = 0;
  Span name, display_name, metadata;
  std::vector<RawStat> stats;
  std::vector<int64_t> child_ids;
};

// Metadata id -> index into the plane's vector: a flat table for the usual
// small ids, a hash map for the others.
class IdIndex {
 public:
  void Reset(int64_t max_id, size_t count) {
    dense_.clear();
    sparse_.clear();
    if (max_id >= 0 && static_cast<uint64_t>(max_id) <= 4 * count + 4096) {
      dense_.assign(static_cast<size_t>(max_id) + 1, kNoIndex);
    }
  }
  uint32_t Find(int64_t id) const {
    if (static_cast<uint64_t>(id) < dense_.size()) return dense_[static_cast<size_t>(id)];
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNoIndex : it->second;
  }
  void Insert(int64_t id, uint32_t index) {
    if (static_cast<uint64_t>(id) < dense_.size()) {
      dense_[static_cast<size_t>(id)] = index;
    } else {
      sparse_[id] = index;
    }
  }

 private:
  std::vector<uint32_t> dense_;
  absl::flat_hash_map<int64_t, uint32_t> sparse_;
};

// Metadata ids that a line-decoding group found in no map of a plane, in the
// order of their first use. While lines are decoded in parallel the plane's
// indices are read-only: such an id gets the provisional index
// known_* + k, and the implicit metadata are created after the threads
// join, group by group in file order, exactly as a single thread would have
// created them.
struct Provisional {
  std::vector<int64_t> stat_ids, event_ids;
  std::vector<const uint8_t*> stat_at;  // Where each stat id was first used, for errors.
  // Where each event id was first used (byte, line and event numbers), for errors.
  struct Use {
    const uint8_t* at;
    int64_t line_number, event_number;
  };
  std::vector<Use> event_use;
  absl::flat_hash_map<int64_t, uint32_t> stat_k, event_k;
  bool empty() const { return stat_ids.empty() && event_ids.empty(); }
};

// What decoding a plane's lines needs besides the bytes.
struct PlaneState {
  Plane* plane = nullptr;
  int64_t number = -1;  // Position among the planes, for errors.
  IdIndex stat_index;
  IdIndex event_index;
  uint32_t known_stats = 0;   // Metadata counts before the lines were decoded.
  uint32_t known_events = 0;
  std::vector<Provisional> provisional;  // Per group (parallel decoding only).
  // Parallel decoding only. String ids must come out in the order one
  // thread interns strings: a plane's own strings, then its lines', plane
  // after plane. So the strings of all but the first plane's setup, and of
  // every run of lines but the first group's in the first plane, go to
  // pools of their own, merged in that order after the join.
  std::unique_ptr<StringPool> setup_pool;
  std::vector<std::unique_ptr<StringPool>> line_pools;  // Per group.
  // Likewise the wide values (Stat) of the lines of groups 1, 2, ...; group
  // 0 appends to the plane's own, which come first.
  std::vector<WideValues> line_wide;  // Per group.
};

// One line to decode, or one piece of a split line: its bytes and where the
// result goes.
struct LineTask {
  PlaneState* plane = nullptr;
  int64_t line_number = 0;  // Within its plane, for errors.
  Span span;
  int depth = 0;
  Line* line = nullptr;
  // A piece of a line split at event boundaries (ParseInParallel): the
  // pieces of a line are consecutive tasks whose spans cover the line's
  // bytes in order. Its events go to line->events[first_event, +events)
  // and their stats to line->stats[first_stat, +stats), both allocated at
  // their final size before the pieces are decoded. The line's own fields
  // were read when it was split; its first piece interns its name and
  // display name (`name`, `display_name`).
  bool piece = false;
  bool first_piece = false;
  bool last_piece = false;
  bool stats_counted = false;  // Counting its stats walked every event whole.
  uint64_t first_event = 0, events = 0;
  uint64_t first_stat = 0, stats = 0;
  Span name, display_name;
  // Whole lines: their events and stats. Pieces: their slices.
  Event* events_begin() const { return line->events.data() + (piece ? first_event : 0); }
  size_t events_size() const { return piece ? events : line->events.size(); }
  Stat* stats_begin() const { return line->stats.data() + (piece ? first_stat : 0); }
  size_t stats_size() const { return piece ? stats : line->stats.size(); }
  // The task that holds the line's own fields (name, display name).
  bool holds_line_fields() const { return !piece || first_piece; }
  // The line is complete once this task is decoded.
  bool ends_line() const { return !piece || last_piece; }
};

// Shared by the threads that decode lines in parallel.
struct ParallelShared {
  explicit ParallelShared(size_t groups) : done(new std::atomic<uint64_t>[groups]) {
    for (size_t g = 0; g < groups; ++g) done[g].store(0, std::memory_order_relaxed);
  }
  std::atomic<bool> cancel{false};
  std::unique_ptr<std::atomic<uint64_t>[]> done;  // Line bytes decoded, per group.
  std::mutex mutex;
  std::condition_variable finished_cv;
  size_t running = 0;  // Worker threads not yet finished (guarded by mutex).
};

// Number of stats (field 4) an XEvent holds, by a walk that only skips
// fields; a malformed event or a group stops the count (the parse reports
// the former later), and `*whole` (when given) is then set false: only a
// whole walk promises that decoding the event yields no more stats.
size_t CountEventStats(Span event, bool* whole = nullptr);

// Sets `*stats` to the number of stats of the events (field 4) in `piece`,
// a run of XLine fields. False where a walk stopped early (see
// CountEventStats), so that decoding may yield more.
bool CountPieceStats(Span piece, uint64_t* stats);

// Cuts items of the given sizes (in order) into at most `parts` runs of
// consecutive items with about equal byte totals: run g is items
// [bounds[g], bounds[g + 1]); each cut is placed where the bytes before it
// come closest to g/parts of the total. Never an empty run.
std::vector<size_t> SplitIntoRuns(const std::vector<uint64_t>& sizes, int parts);

class WireParser {
 public:
  WireParser(XSpaceInput* input, const XSpaceParseOptions& options, XSpaceData* out)
      : input_(input),
        options_(options),
        out_(out),
        base_(reinterpret_cast<const uint8_t*>(input->bytes().data())),
        size_(input->bytes().size()),
        strings_(&out->strings) {}

  // A worker of ParseInParallel(): decodes the lines of group `group` into
  // the planes `main` has set up, interning strings into the planes'
  // line_pools.
  WireParser(const WireParser& main, int group, ParallelShared* shared)
      : input_(main.input_),
        options_(main.options_),
        out_(nullptr),
        base_(main.base_),
        size_(main.size_),
        strings_(nullptr),
        group_(group),
        shared_(shared) {}

  // One thread, everything in file order.
  absl::Status Parse();

  // Locates every line first, then decodes the lines on up to `threads`
  // threads, each taking a contiguous run of lines (in bytes, about equal).
  // The result is identical to Parse()'s, errors included. Returns false,
  // having released no pages and called no progress, when anything outside
  // the lines is malformed (the caller then runs Parse() on a fresh parser,
  // which reports the first error in file order) or when the lines make
  // only one run (nothing to share).
  absl::StatusOr<bool> ParseInParallel(int threads);

 private:
  // -- Primitives: each returns false after recording the error. --

  // The most event metadata a plane may hold (options, at most
  // Event::kMaxEventMetadata).
  uint32_t MaxEventMetadata() const {
    return std::min(options_.max_event_metadata, Event::kMaxEventMetadata);
  }
  bool FailTooManyEventMetadata(const uint8_t* at) {
    return Fail(at, absl::StrCat("more than ", MaxEventMetadata(),
                                 " event metadata in one plane (the most tbprof holds)"));
  }

  bool FailTooManyStatMetadata(const uint8_t* at) {
    return Fail(at, absl::StrCat("more than ", Stat::kMaxStatMetadata,
                                 " stat metadata in one plane (the most tbprof holds)"));
  }

  bool Fail(const uint8_t* at, absl::string_view what) {
    if (error_.empty()) {
      error_ = std::string(what);
      error_offset_ = static_cast<uint64_t>(at - base_);
    }
    return false;
  }

  bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
    if (__builtin_expect(p < end && *p < 0x80, 1)) {
      *value = *p++;
      return true;
    }
    return ReadVarintSlow(p, end, value, 10);
  }

  // Up to `max_bytes` bytes; bits past 64 are dropped, as protobuf does.
  bool ReadVarintSlow(const uint8_t*& p, const uint8_t* end, uint64_t* value, int max_bytes) {
    const uint8_t* start = p;
    uint64_t result = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (p == end) {
        return Fail(start, end == base_ + size_ ? "the file ends inside a varint (truncated?)"
                                                : "varint runs past the end of its enclosing message");
      }
      uint8_t b = *p++;
      if (i < 10) result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (b < 0x80) {
        *value = result;
        return true;
      }
    }
    return Fail(start, "varint longer than its maximum size");
  }

  bool ReadTag(const uint8_t*& p, const uint8_t* end, uint32_t* tag) {
    if (__builtin_expect(*p < 0x80, 1)) {  // Callers check p < end.
      *tag = *p++;
    } else {
      uint64_t v = 0;
      if (!ReadVarintSlow(p, end, &v, 5)) return false;
      *tag = static_cast<uint32_t>(v);  // protobuf drops the bits past 32 too.
    }
    if (__builtin_expect(*tag < 8, 0)) return Fail(p - 1, "field number 0");
    return true;
  }

  // Reads a length prefix and the span it covers.
  bool ReadLen(const uint8_t*& p, const uint8_t* end, Span* span) {
    const uint8_t* start = p;
    uint64_t len = 0;
    if (!ReadVarint(p, end, &len)) return false;
    if (__builtin_expect(len > static_cast<uint64_t>(end - p), 0)) {
      return Fail(start, absl::StrCat("length ", len, " runs past the end of ",
                                      end == base_ + size_ ? "the file" : "its enclosing message",
                                      " (", end - p, " bytes left",
                                      end == base_ + size_ ? ": truncated?)" : ")"));
    }
    span->p = p;
    span->end = p + len;
    p += len;
    return true;
  }

  bool ReadFixed64(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
    if (end - p < 8) return Fail(p, "truncated 64-bit field");
    std::memcpy(value, p, 8);
    p += 8;
    return true;
  }

  // Skips the value of a field we do not read; `depth` is the nesting budget
  // left inside the current message.
  bool SkipField(const uint8_t*& p, const uint8_t* end, uint32_t tag, int depth) {
    uint64_t ignored = 0;
    Span span;
    switch (tag & 7) {
      case kVarint:
        return ReadVarint(p, end, &ignored);
      case kFixed64:
        return ReadFixed64(p, end, &ignored);
      case kLen:
        return ReadLen(p, end, &span);
      case kStartGroup:
        return SkipGroup(p, end, tag >> 3, depth - 1);
      case kEndGroup:
        return Fail(p, absl::StrCat("end-group tag of field ", tag >> 3, " outside a group"));
      case kFixed32:
        if (end - p < 4) return Fail(p, "truncated 32-bit field");
        p += 4;
        return true;
      default:
        return Fail(p, absl::StrCat("invalid wire type ", tag & 7, " of field ", tag >> 3));
    }
  }

  bool SkipGroup(const uint8_t*& p, const uint8_t* end, uint32_t field, int depth) {
    if (!CheckDepth(depth, p)) return false;
    while (p < end) {
      uint32_t tag = 0;
      if (!ReadTag(p, end, &tag)) return false;
      if ((tag & 7) == kEndGroup) {
        if ((tag >> 3) == field) return true;
        return Fail(p, absl::StrCat("end-group tag of field ", tag >> 3, " closes group ", field));
      }
      if (!SkipField(p, end, tag, depth)) return false;
    }
    return Fail(p, absl::StrCat("group of field ", field, " is not closed"));
  }

  // Reads a length-delimited string field, checking UTF-8 (proto3 `string`).
  bool ReadUtf8(const uint8_t*& p, const uint8_t* end, absl::string_view field, Span* span) {
    if (!ReadLen(p, end, span)) return false;
    if (!IsValidUtf8(span->view())) return Fail(span->p, absl::StrCat("invalid UTF-8 in ", field));
    return true;
  }

  // Records the error when a message's nesting budget is spent.
  bool CheckDepth(int depth, const uint8_t* at) {
    if (__builtin_expect(depth < 0, 0)) return Fail(at, "nesting deeper than 100 levels");
    return true;
  }

  // Reads a varint field as int64 (two's complement, as protobuf does).
  bool ReadInt64(const uint8_t*& p, const uint8_t* end, int64_t* value) {
    uint64_t v = 0;
    if (!ReadVarint(p, end, &v)) return false;
    *value = static_cast<int64_t>(v);
    return true;
  }

  // What a message's field handler did with one field.
  enum class Field {
    kRead,     // Read its value.
    kUnknown,  // Not one of ours: ForEachField skips it.
    kFailed,   // An error was recorded.
  };

  // The loop of every message: reads each tag of [p, end) and calls
  // `handle(tag, p)`, which reads the value at `p` (advancing it) or answers
  // Field::kUnknown; unknown fields are skipped with the nesting budget
  // `depth`. Returns false once an error is recorded.
  template <typename Handler>
  bool ForEachField(const uint8_t* p, const uint8_t* end, int depth, Handler&& handle) {
    while (p < end) {
      uint32_t tag = 0;
      if (!ReadTag(p, end, &tag)) return false;
      switch (handle(tag, p)) {
        case Field::kRead:
          break;
        case Field::kUnknown:
          if (!SkipField(p, end, tag, depth)) return false;
          break;
        case Field::kFailed:
          return false;
      }
    }
    return true;
  }

  // A handler's answer for a value read by `ok`.
  static Field ReadOrFailed(bool ok) { return ok ? Field::kRead : Field::kFailed; }

  // -- Model building. --

  uint32_t Intern(Span s) { return strings_->Intern(s.view()); }

  void UsePool(StringPool* pool) {
    strings_ = pool;
    utf8_checked_.clear();
  }

  // Interns a string whose UTF-8 is not yet checked; each distinct string is
  // checked once.
  bool InternUtf8(Span s, absl::string_view field, uint32_t* id) {
    *id = Intern(s);
    if (*id >= utf8_checked_.size()) utf8_checked_.resize(strings_->size(), 0);
    if (!utf8_checked_[*id]) {
      if (!IsValidUtf8(s.view())) return Fail(s.p, absl::StrCat("invalid UTF-8 in ", field));
      utf8_checked_[*id] = 1;
    }
    return true;
  }

  // The index of stat metadata `id` in the current plane, creating implicit
  // metadata for an id no map holds (provisional while lines are decoded in
  // parallel; `at` is where the id is used).
  uint32_t StatIndex(int64_t id, const uint8_t* at) {
    const uint32_t index = ps_->stat_index.Find(id);
    if (__builtin_expect(index != kNoIndex, 1)) return index;
    return MissingIndex(MetadataKind::kStat, id, at);
  }

  // The index of event metadata `id` in the current plane, creating implicit
  // metadata as StatIndex() does. The caller rejects an index >=
  // MaxEventMetadata() (provisional ones saturate at kNoIndex - 1).
  uint32_t EventIndex(int64_t id, const uint8_t* at) {
    const uint32_t index = ps_->event_index.Find(id);
    if (__builtin_expect(index != kNoIndex, 1)) return index;
    return MissingIndex(MetadataKind::kEvent, id, at);
  }

  // StatIndex() and EventIndex() for an id the plane's index lacks
  // (xspace_wire_planes.cc). Past 2^28 distinct provisional ids this may
  // fail where one thread would not (or the reverse); no file gets near.
  // Past the event limit a provisional index fails (ParseInParallel then
  // finds where one thread fails: at this event or before).
  enum class MetadataKind { kStat, kEvent };
  uint32_t MissingIndex(MetadataKind kind, int64_t id, const uint8_t* at);

  // -- Messages. `depth` is the nesting budget left for the message's own
  // children (protobuf counts the message itself before parsing it). --

  // Reads field `tag` of an XLine other than its events (id, name,
  // timestamp, duration, display id and name) at `p`, which it advances;
  // kUnknown for other tags. The names are checked UTF-8, not interned.
  Field ReadLineField(uint32_t tag, const uint8_t* end, const uint8_t*& p, Line* line, Span* name,
                      Span* display_name);
  // A walk over a line has reached `p`: gives back the pages from
  // *released_to once kCheckpointBytes have been passed, and moves it.
  void ReleaseWalked(const uint8_t* p, const uint8_t** released_to);
  bool ParseStat(const uint8_t* p, const uint8_t* end, int depth, RawStat* s);
  bool ResolveStat(const RawStat& raw, Stat* out);
  bool ParseStatMetadataEntry(Span entry, int depth, RawStatMetadata* md);
  bool ParseEventMetadataEntry(Span entry, int depth, RawEventMetadata* md);
  bool ParseEventMetadata(Span value, int depth, RawEventMetadata* md);
  // Decodes one XEvent into `sink` (AppendSink: pushed onto a line; SliceSink:
  // written into a piece's preallocated slices).
  template <typename Sink>
  bool ParseEvent(const uint8_t* p, const uint8_t* end, int depth, Sink& sink);
  bool ParseLine(Span span, int depth, Line* line);
  // Decodes the events of a piece of a split line (LineTask::piece) into its
  // slices, interning the line's name first when it is the first piece.
  bool DecodePiece(const LineTask& task);
  // Streaming (XSpaceParseOptions::line_events): hands `line`'s events
  // decoded so far to the caller and empties it (events, stats and the
  // plane's wide values past `wide_floor`).
  void HandOverEvents(Line* line, bool line_end, size_t wide_floor);
  bool ParsePlane(Span span, int depth);
  // The XSpace's own fields, planes included (see collect_tasks_).
  bool ParseSpace();

  // -- Parallel line decoding (ParseInParallel). --

  // Decodes tasks_[begin, end) in order as group `group_`.
  bool DecodeTasks(size_t begin, size_t end);
  // Group boundaries: groups g = [bounds[g], bounds[g + 1]) of tasks_.
  std::vector<size_t> SplitTasks(int threads) const;
  // Replaces the tasks of lines too big to balance by pieces of about equal
  // bytes, cut at event boundaries (xspace_wire_pieces.cc): a walk over each
  // such line's own fields here (reading them into the Line, which must not
  // be malformed), a count of the pieces' stats on `threads` threads, then
  // the lines' events and stats allocated at their final size. Returns false
  // when one thread must parse instead: a split line is malformed outside
  // its events, holds groups (its stats cannot be counted ahead) or more
  // stats than a line can; no pages but a mapped file's are released.
  bool SplitLongLines(int threads);
  // Appends the pieces of `task`'s line to `out` (or `task` itself when it
  // makes one piece): cut after the first event at which a piece reaches
  // `piece_bytes`. Reads the line's own fields into the Line.
  bool SplitLine(const LineTask& task, uint64_t piece_bytes, std::vector<LineTask>* out);
  // After the threads joined: interns the strings of the pools of
  // PlaneState into the space's pool and appends the groups' wide values to
  // their planes', in the order one thread would have, and rewrites the ids
  // and indices that referred to them.
  void MergeStrings(const std::vector<size_t>& bounds);
  // Creates the implicit metadata group `group` used, in order, and rewrites
  // its provisional indices.
  bool ResolveProvisional(size_t group, size_t begin, size_t end);
  uint64_t LineBytesDone() const;

  bool Checkpoint(const uint8_t* p);
  absl::Status Error() const;

  XSpaceInput* input_;
  const XSpaceParseOptions& options_;
  XSpaceData* out_;  // Null in a worker.
  const uint8_t* base_;
  uint64_t size_;
  StringPool* strings_;  // The space's pool, or a worker's own.
  WideValues* wide_ = nullptr;  // Where wide stat values go.

  PlaneState own_state_;         // The plane being read, in Parse().
  PlaneState* ps_ = nullptr;     // The plane whose lines are being decoded.
  std::vector<uint8_t> utf8_checked_;  // By string id (of strings_).
  // Streaming: the buffers every line decodes its events into, in turn.
  std::vector<Event> stream_events_;
  std::vector<Stat> stream_stats_;

  // ParseInParallel(): planes are set up and their lines only located.
  bool collect_tasks_ = false;
  std::deque<PlaneState> states_;
  std::vector<LineTask> tasks_;
  uint64_t line_bytes_ = 0;  // Of all tasks.
  // While decoding lines in parallel: this thread's group (-1: not in
  // parallel decoding), the state shared by the groups, the line bytes of
  // this group's finished tasks and where its current task and its first
  // task begin.
  int group_ = -1;
  ParallelShared* shared_ = nullptr;
  uint64_t tasks_done_bytes_ = 0;
  const uint8_t* task_begin_ = nullptr;
  uint64_t release_from_ = 0;
  size_t groups_ = 0;

  // Where we are, for error messages.
  int64_t planes_ = 0;  // Planes read so far.
  int64_t plane_number_ = -1, line_number_ = -1, event_number_ = -1;
  std::string error_;
  uint64_t error_offset_ = 0;
  absl::Status stop_;  // From options.progress.
  const uint8_t* next_checkpoint_ = nullptr;
};

}  // namespace tbprof::xplane::wire_internal

#endif  // TBPROF_SRC_XPLANE_XSPACE_WIRE_PARSER_H_
