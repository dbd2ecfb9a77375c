// The XSpace wire reader: splitting lines too long to balance across the
// decoding threads into pieces of whole events (ParseInParallel).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "src/base/huge_pages.h"
#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane::wire_internal {

namespace {

// The smallest piece for the default parallel_min_bytes (8 MB / 128): a
// piece is also at least 1/(8 * threads) of the lines' bytes, so a real
// file makes a few dozen pieces, each far more work than starting it.
// Tests and fuzzing lower parallel_min_bytes, and with it this floor, so
// that small inputs are split too.
constexpr uint64_t kMinPieceBytes = uint64_t{64} << 10;

}  // namespace

bool WireParser::SplitLine(const LineTask& task, uint64_t piece_bytes,
                           std::vector<LineTask>* out) {
  const Span span = task.span;
  if (!CheckDepth(task.depth, span.p)) return false;
  Line* line = task.line;
  const size_t first = out->size();
  LineTask piece = task;
  piece.piece = true;
  piece.first_piece = true;
  Span name, display_name;
  uint64_t events = 0;
  const uint8_t* piece_begin = span.p;
  // Like ParseLine()'s walk 1, a mapped file's pages are given back as the
  // walk passes them (they are read again to count and to decode).
  const bool release = input_->released_pages_read_back();
  const uint8_t* released_to = span.p;
  const bool read = ForEachField(span.p, span.end, task.depth, [&](uint32_t tag, const uint8_t*& p) {
    if (tag != Tag(4, kLen)) return ReadLineField(tag, span.end, p, line, &name, &display_name);
    Span skipped;
    if (!ReadLen(p, span.end, &skipped)) return Field::kFailed;
    ++events;
    if (static_cast<uint64_t>(p - piece_begin) >= piece_bytes) {
      piece.span = Span{piece_begin, p};
      piece.events = events - piece.first_event;
      out->push_back(piece);
      piece.first_piece = false;
      piece.first_event = events;
      piece_begin = p;
    }
    if (release) ReleaseWalked(p, &released_to);
    return Field::kRead;
  });
  if (!read) return false;
  if (piece_begin < span.end) {  // The rest: events, or only the line's fields.
    piece.span = Span{piece_begin, span.end};
    piece.events = events - piece.first_event;
    out->push_back(piece);
  }
  if (out->size() - first <= 1) {  // One piece: the line stays whole.
    out->resize(first);
    out->push_back(task);
    return true;
  }
  (*out)[first].name = name;
  (*out)[first].display_name = display_name;
  out->back().last_piece = true;
  return true;
}

bool WireParser::SplitLongLines(int threads) {
  // Whole lines that already share out evenly (the busiest run within 1/8
  // of an even share) are not split: splitting walks them once more.
  {
    const std::vector<size_t> bounds = SplitTasks(threads);
    uint64_t busiest = 0;
    for (size_t g = 0; g + 1 < bounds.size(); ++g) {
      uint64_t bytes = 0;
      for (size_t i = bounds[g]; i < bounds[g + 1]; ++i) {
        bytes += static_cast<uint64_t>(tasks_[i].span.end - tasks_[i].span.p);
      }
      busiest = std::max(busiest, bytes);
    }
    if (busiest * static_cast<uint64_t>(threads) <= line_bytes_ + line_bytes_ / 8) return true;
  }
  const uint64_t min_piece = std::min(options_.parallel_min_bytes / 128, kMinPieceBytes);
  const uint64_t piece_bytes = std::max<uint64_t>(
      {line_bytes_ / (8 * static_cast<uint64_t>(threads)), min_piece, 1});
  std::vector<LineTask> tasks;
  std::vector<size_t> pieces;  // Indices into `tasks`.
  for (const LineTask& task : tasks_) {
    const size_t first = tasks.size();
    if (static_cast<uint64_t>(task.span.end - task.span.p) <= 2 * piece_bytes) {
      tasks.push_back(task);
      continue;
    }
    if (!SplitLine(task, piece_bytes, &tasks)) return false;
    for (size_t i = first; i < tasks.size(); ++i) {
      if (tasks[i].piece) pieces.push_back(i);
    }
  }
  if (pieces.empty()) return true;

  // The pieces' stats are counted on `threads` threads taking pieces in
  // turn. Meanwhile this thread first allocates the split lines' events,
  // whose number is known.
  const bool release = input_->released_pages_read_back();
  std::atomic<size_t> next{0};
  auto count = [&]() {
    for (size_t i = next.fetch_add(1); i < pieces.size(); i = next.fetch_add(1)) {
      LineTask& piece = tasks[pieces[i]];
      piece.stats_counted = CountPieceStats(piece.span, &piece.stats);
      if (release) {
        input_->ReleaseRange(static_cast<uint64_t>(piece.span.p - base_),
                             static_cast<uint64_t>(piece.span.end - base_));
      }
    }
  };
  std::vector<std::thread> counting;
  for (int g = 1; g < threads && static_cast<size_t>(g) < pieces.size(); ++g) {
    counting.emplace_back(count);
  }
  for (size_t i : pieces) {
    if (!tasks[i].last_piece) continue;
    std::vector<Event>& events = tasks[i].line->events;
    events.reserve(tasks[i].first_event + tasks[i].events);
    AdviseHugePagesFor(events);  // Written in full: first by the zero fill.
    events.resize(tasks[i].first_event + tasks[i].events);
  }
  count();
  for (std::thread& thread : counting) thread.join();

  // Each split line's stats at their final size, and every piece's slice.
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].first_piece) continue;
    uint64_t stats = 0;
    size_t last = i;
    for (;; ++last) {
      LineTask& piece = tasks[last];
      if (!piece.stats_counted) return false;  // One thread decodes it.
      piece.first_stat = stats;
      stats += piece.stats;
      if (piece.last_piece) break;
    }
    // Past what Event::stats_begin holds: one thread reports it.
    if (stats > std::numeric_limits<uint32_t>::max()) return false;
    std::vector<Stat>& line_stats = tasks[i].line->stats;
    line_stats.reserve(stats);
    AdviseHugePagesFor(line_stats);
    line_stats.resize(stats);
    i = last;
  }
  tasks_.swap(tasks);
  return true;
}

}  // namespace tbprof::xplane::wire_internal
