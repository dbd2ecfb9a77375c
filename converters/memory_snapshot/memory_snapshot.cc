#include "converters/memory_snapshot/memory_snapshot.h"

#include <climits>

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "converters/common/utf8.h"
#include "converters/memory_snapshot/memory_snapshot_analysis.h"
#include "src/base/status_macros.h"

namespace tbprof::converters::memory_snapshot {

absl::string_view ActionName(Action action) {
  switch (action) {
    case Action::kAlloc: return "alloc";
    case Action::kFreeRequested: return "free_requested";
    case Action::kFreeCompleted: return "free_completed";
    case Action::kSegmentAlloc: return "segment_alloc";
    case Action::kSegmentFree: return "segment_free";
    case Action::kSegmentMap: return "segment_map";
    case Action::kSegmentUnmap: return "segment_unmap";
    case Action::kSnapshot: return "snapshot";
    case Action::kOom: return "oom";
    case Action::kOther: return "other";
  }
  return "other";
}

namespace {

using pickle::Kind;
using pickle::Value;

// Fewest pickle bytes per trace event expected in a real snapshot (the
// events vector's initial capacity is the file size over this).
constexpr size_t kTypicalEventBytes = 64;

// Handle tags of the visitor's reductions.
enum Tag : uint16_t {
  kOther = 1,   // Anything this reader does not use.
  kEmptyList,   // [] (empty frames, blocks or trace).
  kFrame,       // id: Snapshot::frames.
  kStack,       // id: Snapshot::stacks.
  kEvent,       // id: Snapshot::events.
  kEventList,   // id: event_lists_.
  kBlock,       // id: blocks_.
  kBlockList,   // id: block_lists_.
  kHistory,     // id: the stack of a block's history entry.
  kHistoryList, // id: the stack of the first history entry.
  kSegment,     // id: Snapshot::segments.
  kSegmentList, // id: unused (segments are kept in order of reduction).
  kTraceLists,  // id: trace_lists_.
  kTop,         // The snapshot dict.
};

Action ParseAction(absl::string_view s) {
  if (s == "alloc") return Action::kAlloc;
  if (s == "free_requested") return Action::kFreeRequested;
  if (s == "free_completed") return Action::kFreeCompleted;
  if (s == "segment_alloc") return Action::kSegmentAlloc;
  if (s == "segment_free") return Action::kSegmentFree;
  if (s == "segment_map") return Action::kSegmentMap;
  if (s == "segment_unmap") return Action::kSegmentUnmap;
  if (s == "snapshot") return Action::kSnapshot;
  if (s == "oom") return Action::kOom;
  return Action::kOther;
}

BlockState ParseState(absl::string_view s) {
  if (s == "active_allocated") return BlockState::kActiveAllocated;
  if (s == "active_pending_free") return BlockState::kActivePendingFree;
  if (s == "inactive") return BlockState::kInactive;
  return BlockState::kUnknown;
}

struct StackHash {
  size_t operator()(const std::vector<uint32_t>& v) const {
    return absl::HashOf(absl::MakeConstSpan(v));
  }
};

class SnapshotVisitor : public pickle::PickleVisitor {
 public:
  explicit SnapshotVisitor(Snapshot* out) : out_(out) { stack_ids_[{}] = 0; }

  absl::StatusOr<Value> Reduce(Kind kind, absl::Span<const Value> items,
                               uint64_t offset) override {
    if (kind == Kind::kDict) return ReduceDict(items);
    if (kind == Kind::kList) {
      if (!MaybeTaken(offset)) return ReduceList(items);
      auto it = taken_.find(offset);
      if (it == taken_.end()) return ReduceList(items);
      // A trace list whose events were taken as they came.
      std::vector<uint32_t> ids = std::move(it->second);
      taken_.erase(it);
      if (!items.empty()) return Value::Handle(kOther, 0);
      event_lists_.push_back(std::move(ids));
      return Value::Handle(kEventList, event_lists_.size() - 1);
    }
    return Value::Handle(kOther, 0);
  }

  // Trace events are kept as 4-byte ids as they are appended, instead of
  // 16-byte values held until their list is complete.
  bool TakeListItems(uint64_t list_offset, absl::Span<const Value> items) override {
    for (const Value& v : items) {
      if (!v.IsHandle(kEvent)) return false;
    }
    taken_filter_[list_offset % kTakenFilterBits / 64] |= uint64_t{1} << (list_offset % 64);
    std::vector<uint32_t>& ids = taken_[list_offset];
    for (const Value& v : items) ids.push_back(static_cast<uint32_t>(v.u));
    return true;
  }

  // The segments of a bare list, or of the top dict, in file order.
  std::vector<Segment> TakeSegments(uint64_t list_id) {
    return list_id < segment_lists_.size() ? std::move(segment_lists_[list_id])
                                           : std::vector<Segment>();
  }
  const std::vector<std::vector<uint32_t>>& trace_lists() const { return trace_lists_; }
  std::vector<std::vector<uint32_t>>& event_lists() { return event_lists_; }
  uint64_t top_segments = UINT64_MAX;    // segment list id of the top dict.
  uint64_t top_traces = UINT64_MAX;      // trace_lists_ id of the top dict.
  bool top_has_traces_key = false;

 private:
  uint32_t Intern(const Value& v) {
    if (v.kind != Kind::kString) return 0;
    auto [it, inserted] =
        string_ids_.try_emplace(std::string(v.string()), static_cast<uint32_t>(out_->strings.size()));
    // Names end up in XSpace string fields, which must be UTF-8: each byte
    // that does not start a valid sequence becomes U+FFFD.
    if (inserted) out_->strings.emplace_back(SanitizeUtf8(v.string(), &utf8_scratch_));
    return it->second;
  }
  static int64_t Int(const Value& v, bool* ok) {
    int64_t x = 0;
    if (!v.AsInt64(&x)) *ok = false;
    return x;
  }
  // Stack id of a frames value (list of frames, empty list, or other).
  static uint32_t StackOf(const Value& v) { return v.IsHandle(kStack) ? static_cast<uint32_t>(v.u) : 0; }

  absl::StatusOr<Value> ReduceList(absl::Span<const Value> items) {
    if (items.empty()) return Value::Handle(kEmptyList, 0);
    const uint16_t tag = items[0].kind == Kind::kHandle ? items[0].tag : 0;
    for (const Value& v : items) {
      bool same = v.kind == Kind::kHandle &&
                  (v.tag == tag || (tag == kEventList && v.tag == kEmptyList) ||
                   (tag == kEmptyList && (v.tag == kEventList || v.tag == kEmptyList)));
      if (!same) return Value::Handle(kOther, 0);
    }
    switch (tag) {
      case kFrame: {
        frames_.clear();
        for (const Value& v : items) frames_.push_back(static_cast<uint32_t>(v.u));
        // Most stacks recur: a direct-mapped cache in front of the map.
        uint64_t h = frames_.size();
        for (uint32_t frame : frames_) h = (h ^ frame) * uint64_t{0x9E3779B97F4A7C15};
        uint32_t& cached = stack_cache_[h >> (64 - kStackCacheBits)];
        if (cached != 0 && out_->stacks[cached] == frames_) return Value::Handle(kStack, cached);
        auto [it, inserted] =
            stack_ids_.try_emplace(frames_, static_cast<uint32_t>(out_->stacks.size()));
        if (inserted) out_->stacks.push_back(frames_);
        cached = it->second;
        return Value::Handle(kStack, it->second);
      }
      case kEvent: {
        std::vector<uint32_t> ids;
        ids.reserve(items.size());
        for (const Value& v : items) ids.push_back(static_cast<uint32_t>(v.u));
        event_lists_.push_back(std::move(ids));
        return Value::Handle(kEventList, event_lists_.size() - 1);
      }
      case kEventList:
      case kEmptyList: {
        // A list of per-device traces (each a list of events, or empty).
        std::vector<uint32_t> lists;
        for (const Value& v : items) {
          lists.push_back(v.tag == kEventList ? static_cast<uint32_t>(v.u) : UINT32_MAX);
        }
        trace_lists_.push_back(std::move(lists));
        return Value::Handle(kTraceLists, trace_lists_.size() - 1);
      }
      case kBlock: {
        std::vector<Block> blocks;
        blocks.reserve(items.size());
        for (const Value& v : items) blocks.push_back(blocks_[v.u]);
        block_lists_.push_back(std::move(blocks));
        return Value::Handle(kBlockList, block_lists_.size() - 1);
      }
      case kHistory:
        return Value::Handle(kHistoryList, items[0].u);
      case kSegment: {
        std::vector<Segment> segments;
        segments.reserve(items.size());
        for (const Value& v : items) segments.push_back(std::move(pending_segments_[v.u]));
        segment_lists_.push_back(std::move(segments));
        return Value::Handle(kSegmentList, segment_lists_.size() - 1);
      }
      default:
        return Value::Handle(kOther, 0);
    }
  }

  absl::StatusOr<Value> ReduceDict(absl::Span<const Value> items) {
    // Fields by key; unknown keys are ignored.
    const Value* f[16] = {};
    enum { kAction, kAddr, kSize, kStream, kTime, kFrames, kFilename, kLine, kName, kState,
           kRequested, kTotal, kBlocks, kDevice, kAddress, kType };
    const Value *segments = nullptr, *traces = nullptr, *history = nullptr, *real_size = nullptr;
    for (size_t k = 0; k + 1 < items.size(); k += 2) {
      if (items[k].kind != Kind::kString) continue;
      const absl::string_view key = items[k].string();
      const Value* v = &items[k + 1];
      // By length first: most keys are rejected or found with one compare.
      switch (key.size()) {
        case 4:
          if (key == "addr") f[kAddr] = v;
          else if (key == "size") f[kSize] = v;
          else if (key == "line") f[kLine] = v;
          else if (key == "name") f[kName] = v;
          break;
        case 5:
          if (key == "state") f[kState] = v;
          break;
        case 6:
          if (key == "action") f[kAction] = v;
          else if (key == "stream") f[kStream] = v;
          else if (key == "frames") f[kFrames] = v;
          else if (key == "blocks") f[kBlocks] = v;
          else if (key == "device") f[kDevice] = v;
          break;
        case 7:
          if (key == "time_us") f[kTime] = v;
          else if (key == "address") f[kAddress] = v;
          else if (key == "history") history = v;
          break;
        case 8:
          if (key == "filename") f[kFilename] = v;
          else if (key == "segments") segments = v;
          break;
        case 9:
          if (key == "real_size") real_size = v;
          break;
        case 10:
          if (key == "total_size") f[kTotal] = v;
          break;
        case 12:
          if (key == "segment_type") f[kType] = v;
          break;
        case 13:
          if (key == "device_traces") traces = v;
          break;
        case 14:
          if (key == "requested_size") f[kRequested] = v;
          break;
        default:
          break;
      }
    }
    bool ok = true;
    if (segments != nullptr || traces != nullptr) {
      if (segments != nullptr && segments->IsHandle(kSegmentList)) top_segments = segments->u;
      if (traces != nullptr) {
        top_has_traces_key = true;
        if (traces->IsHandle(kTraceLists)) top_traces = traces->u;
      }
      return Value::Handle(kTop, 0);
    }
    if (f[kAction] != nullptr && f[kAction]->kind == Kind::kString) {
      TraceEvent e;
      e.action = ParseAction(f[kAction]->string());
      if (e.action == Action::kOther) ++out_->unknown_actions;
      if (f[kAddr] != nullptr) e.addr = static_cast<uint64_t>(Int(*f[kAddr], &ok));
      if (f[kSize] != nullptr) e.size = Int(*f[kSize], &ok);
      if (f[kStream] != nullptr) e.stream = Int(*f[kStream], &ok);
      if (f[kTime] != nullptr) {
        e.time_us = Int(*f[kTime], &ok);
        e.has_time = ok;
      }
      if (f[kFrames] != nullptr) e.stack = StackOf(*f[kFrames]);
      const bool needs_block = e.action != Action::kSnapshot && e.action != Action::kOom &&
                               e.action != Action::kOther;
      if (needs_block && (f[kAddr] == nullptr || f[kSize] == nullptr || !ok || e.size < 0 || e.size > kMaxSizeBytes)) {
        e.action = Action::kOther;
        ++out_->malformed_events;
      }
      out_->events.push_back(e);
      return Value::Handle(kEvent, out_->events.size() - 1);
    }
    if (f[kFilename] != nullptr && f[kName] != nullptr) {
      Frame fr;
      fr.filename = Intern(*f[kFilename]);
      fr.name = Intern(*f[kName]);
      if (f[kLine] != nullptr) fr.line = Int(*f[kLine], &ok);
      out_->frames.push_back(fr);
      return Value::Handle(kFrame, out_->frames.size() - 1);
    }
    if (f[kTotal] != nullptr || f[kBlocks] != nullptr) {
      Segment s;
      if (f[kDevice] != nullptr) s.device = Int(*f[kDevice], &ok);
      if (f[kAddress] != nullptr) s.address = static_cast<uint64_t>(Int(*f[kAddress], &ok));
      if (f[kTotal] != nullptr) s.total_size = Int(*f[kTotal], &ok);
      if (f[kStream] != nullptr) s.stream = Int(*f[kStream], &ok);
      if (f[kType] != nullptr) s.segment_type = Intern(*f[kType]);
      if (f[kFrames] != nullptr) s.stack = StackOf(*f[kFrames]);
      if (f[kBlocks] != nullptr && f[kBlocks]->IsHandle(kBlockList)) {
        s.blocks = std::move(block_lists_[f[kBlocks]->u]);
        uint64_t addr = s.address;
        for (Block& b : s.blocks) {
          if (b.addr == 0) b.addr = addr;  // Blocks without "address" follow each other.
          addr = b.addr + static_cast<uint64_t>(b.size);
        }
      }
      if (!ok || s.total_size < 0 || s.total_size > kMaxSizeBytes) return Value::Handle(kOther, 0);
      pending_segments_.push_back(std::move(s));
      return Value::Handle(kSegment, pending_segments_.size() - 1);
    }
    if (f[kState] != nullptr && f[kSize] != nullptr && f[kState]->kind == Kind::kString) {
      Block b;
      b.state = ParseState(f[kState]->string());
      b.size = Int(*f[kSize], &ok);
      b.requested_size = f[kRequested] != nullptr ? Int(*f[kRequested], &ok) : b.size;
      if (f[kAddress] != nullptr) b.addr = static_cast<uint64_t>(Int(*f[kAddress], &ok));
      if (f[kFrames] != nullptr) b.stack = StackOf(*f[kFrames]);
      if (history != nullptr && history->IsHandle(kHistoryList) && b.stack == 0) {
        b.stack = static_cast<uint32_t>(history->u);
      }
      if (!ok || b.size < 0 || b.size > kMaxSizeBytes) return Value::Handle(kOther, 0);
      blocks_.push_back(b);
      return Value::Handle(kBlock, blocks_.size() - 1);
    }
    if (real_size != nullptr && f[kFrames] != nullptr) {
      return Value::Handle(kHistory, StackOf(*f[kFrames]));
    }
    return Value::Handle(kOther, 0);
  }

  // False when no items of the list created at `offset` were taken (a
  // filter by offset in front of taken_).
  bool MaybeTaken(uint64_t offset) const {
    return (taken_filter_[offset % kTakenFilterBits / 64] >> (offset % 64)) & 1;
  }
  static constexpr uint64_t kTakenFilterBits = 4096;
  static constexpr int kStackCacheBits = 8;

  Snapshot* out_;
  uint64_t taken_filter_[kTakenFilterBits / 64] = {};
  uint32_t stack_cache_[1 << kStackCacheBits] = {};  // Stack ids (0: none).
  absl::flat_hash_map<std::string, uint32_t> string_ids_;
  absl::flat_hash_map<std::vector<uint32_t>, uint32_t, StackHash> stack_ids_;
  std::vector<uint32_t> frames_;  // Scratch.
  std::string utf8_scratch_;      // Scratch of SanitizeUtf8.
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> taken_;  // List offset -> event ids.
  std::vector<std::vector<uint32_t>> event_lists_;
  std::vector<std::vector<uint32_t>> trace_lists_;
  std::vector<Block> blocks_;
  std::vector<std::vector<Block>> block_lists_;
  std::vector<Segment> pending_segments_;
  std::vector<std::vector<Segment>> segment_lists_;
};

}  // namespace

absl::StatusOr<Snapshot> ReadMemorySnapshot(absl::string_view bytes, absl::string_view source,
                                            const pickle::PickleReadOptions& options) {
  Snapshot snapshot;
  // Room for the trace events of a typical snapshot (PyTorch writes 80-100
  // bytes per event), so the largest vector of the read does not regrow and
  // copy itself at 2x; pages never written are never resident.
  snapshot.events.reserve(bytes.size() / kTypicalEventBytes);
  SnapshotVisitor visitor(&snapshot);
  TBPROF_ASSIGN_OR_RETURN(Value result, pickle::ReadPickle(bytes, source, &visitor, options));
  if (result.IsHandle(kSegmentList) || result.IsHandle(kEmptyList)) {
    // torch.cuda.memory_snapshot(): the segments only.
    if (result.IsHandle(kSegmentList)) snapshot.segments = visitor.TakeSegments(result.u);
    return snapshot;
  }
  if (!result.IsHandle(kTop)) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": a pickle of plain data, but not a PyTorch memory snapshot: its top level is not "
                "a dict with \"segments\" or \"device_traces\" (nor a list of segments)"));
  }
  if (visitor.top_segments != UINT64_MAX) {
    snapshot.segments = visitor.TakeSegments(visitor.top_segments);
  }
  snapshot.has_device_traces = visitor.top_has_traces_key;
  if (visitor.top_traces != UINT64_MAX) {
    for (uint32_t list : visitor.trace_lists()[visitor.top_traces]) {
      snapshot.device_traces.push_back(list == UINT32_MAX
                                           ? std::vector<uint32_t>()
                                           : std::move(visitor.event_lists()[list]));
    }
  }
  return snapshot;
}

}  // namespace tbprof::converters::memory_snapshot
