// The XSpace wire reader: decoding the lines on several threads, each a
// contiguous run of lines and pieces of long lines, then merging strings and implicit metadata in file
// order so the result equals one thread's.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/types/span.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane::wire_internal {

uint64_t WireParser::LineBytesDone() const {
  // The bytes outside the lines were all read before the lines.
  uint64_t done = size_ - line_bytes_;
  for (size_t g = 0; g < groups_; ++g) done += shared_->done[g].load(std::memory_order_relaxed);
  return std::min(done, size_);
}

bool WireParser::DecodeTasks(size_t begin, size_t end) {
  if (begin == end) return true;
  release_from_ = static_cast<uint64_t>(tasks_[begin].span.p - base_);
  next_checkpoint_ = tasks_[begin].span.p +
                     std::min<uint64_t>(kCheckpointBytes, size_ - release_from_);
  for (size_t i = begin; i < end; ++i) {
    const LineTask& task = tasks_[i];
    ps_ = task.plane;
    StringPool* pool = out_ != nullptr && group_ == 0 && task.plane->number == 0
                           ? &out_->strings
                           : nullptr;
    if (pool == nullptr) {
      std::unique_ptr<StringPool>& own = task.plane->line_pools[static_cast<size_t>(group_)];
      if (own == nullptr) own = std::make_unique<StringPool>();
      pool = own.get();
    }
    if (pool != strings_) UsePool(pool);
    wide_ = group_ <= 0 ? &task.plane->plane->wide_values
                        : &task.plane->line_wide[static_cast<size_t>(group_)];
    plane_number_ = task.plane->number;
    line_number_ = task.line_number;
    task_begin_ = task.span.p;
    if (!(task.piece ? DecodePiece(task) : ParseLine(task.span, task.depth, task.line))) {
      return false;
    }
    tasks_done_bytes_ += static_cast<uint64_t>(task.span.end - task.span.p);
  }
  if (shared_ != nullptr) {
    shared_->done[static_cast<size_t>(group_)].store(tasks_done_bytes_, std::memory_order_relaxed);
  }
  ps_ = nullptr;
  plane_number_ = line_number_ = -1;
  return true;
}

std::vector<size_t> SplitIntoRuns(const std::vector<uint64_t>& sizes, int parts) {
  uint64_t total = 0;
  for (uint64_t size : sizes) total += size;
  std::vector<size_t> bounds = {0};
  uint64_t before = 0;  // Bytes of sizes[0, i).
  size_t i = 0;
  for (int g = 1; g < parts; ++g) {
    const uint64_t target = total / static_cast<uint64_t>(parts) * static_cast<uint64_t>(g);
    // Once `before` has passed the target (the item that crossed it was
    // closer to it taken than left), this run is complete: without this test
    // `target - before` wrapped around and one run took every item.
    while (i < sizes.size() && before < target) {
      const uint64_t next = before + sizes[i];
      if (next > target && next - target > target - before) break;
      before = next;
      ++i;
    }
    if (i > bounds.back() && i < sizes.size()) bounds.push_back(i);
  }
  bounds.push_back(sizes.size());
  return bounds;
}

std::vector<size_t> WireParser::SplitTasks(int threads) const {
  std::vector<uint64_t> sizes(tasks_.size());
  for (size_t i = 0; i < tasks_.size(); ++i) {
    sizes[i] = static_cast<uint64_t>(tasks_[i].span.end - tasks_[i].span.p);
  }
  return SplitIntoRuns(sizes, threads);
}

namespace {

bool IsStringStat(const Stat& stat) {
  const StatKind kind = stat.kind();
  return kind == StatKind::kStr || kind == StatKind::kBytes || kind == StatKind::kCompressedStr;
}

void RemapStats(const std::vector<uint32_t>& id, std::vector<Stat>* stats) {
  for (Stat& stat : *stats) {
    if (IsStringStat(stat)) stat.set_str_id(id[stat.str_id()]);
  }
}

// The stats a task decoded: its line's, or its piece's slice of them.
absl::Span<Stat> TaskStats(const LineTask& task) {
  return absl::Span<Stat>(task.stats_begin(), task.stats_size());
}
absl::Span<Event> TaskEvents(const LineTask& task) {
  return absl::Span<Event>(task.events_begin(), task.events_size());
}

// New ids of `pool`'s strings in `strings`, interned in id order.
std::vector<uint32_t> InternAll(const StringPool& pool, StringPool* strings) {
  std::vector<uint32_t> id(pool.size());
  for (uint32_t i = 0; i < pool.size(); ++i) id[i] = strings->Intern(pool.Get(i));
  return id;
}

}  // namespace

void WireParser::MergeStrings(const std::vector<size_t>& bounds) {
  for (PlaneState& ps : states_) {
    Plane& plane = *ps.plane;
    if (ps.setup_pool != nullptr) {
      const std::vector<uint32_t> id = InternAll(*ps.setup_pool, &out_->strings);
      plane.name = id[plane.name];
      for (StatMetadata& md : plane.stat_metadata) {
        md.name = id[md.name];
        md.description = id[md.description];
      }
      for (EventMetadata& md : plane.event_metadata) {
        md.name = id[md.name];
        md.display_name = id[md.display_name];
        md.metadata = id[md.metadata];
        RemapStats(id, &md.stats);
      }
      RemapStats(id, &plane.stats);
      ps.setup_pool.reset();
    }
    for (size_t g = 0; g < ps.line_pools.size(); ++g) {
      // This group's wide values follow the plane's so far.
      WideValues& wide = ps.line_wide[g];
      const uint32_t wide_offset = static_cast<uint32_t>(plane.wide_values.size());
      plane.wide_values.insert(plane.wide_values.end(), wide.begin(), wide.end());
      if (ps.line_pools[g] == nullptr && wide.empty()) continue;
      std::vector<uint32_t> id;
      if (ps.line_pools[g] != nullptr) id = InternAll(*ps.line_pools[g], &out_->strings);
      for (size_t t = bounds[g]; t < bounds[g + 1]; ++t) {
        if (tasks_[t].plane != &ps) continue;
        Line* line = tasks_[t].line;
        if (!id.empty() && tasks_[t].holds_line_fields()) {
          line->name = id[line->name];
          line->display_name = id[line->display_name];
        }
        for (Stat& stat : TaskStats(tasks_[t])) {
          if (!id.empty() && IsStringStat(stat)) {
            stat.set_str_id(id[stat.str_id()]);
          } else if (!wide.empty() && stat.is_wide()) {
            stat.set_wide_index(stat.wide_index() + wide_offset);
          }
        }
      }
      ps.line_pools[g].reset();
      WideValues().swap(wide);
    }
  }
}

bool WireParser::ResolveProvisional(size_t group, size_t begin, size_t end) {
  for (PlaneState& ps : states_) {
    const Provisional& pv = ps.provisional[group];
    if (pv.empty()) continue;
    ps_ = &ps;
    plane_number_ = ps.number;
    std::vector<uint32_t> stat_index(pv.stat_ids.size()), event_index(pv.event_ids.size());
    for (size_t k = 0; k < pv.stat_ids.size(); ++k) {
      stat_index[k] = StatIndex(pv.stat_ids[k], pv.stat_at[k]);
      if (stat_index[k] > Stat::kMaxStatMetadata) {
        return FailTooManyStatMetadata(pv.stat_at[k]);
      }
    }
    for (size_t k = 0; k < pv.event_ids.size(); ++k) {
      const Provisional::Use& use = pv.event_use[k];
      event_index[k] = EventIndex(pv.event_ids[k], use.at);
      if (event_index[k] >= MaxEventMetadata()) {
        line_number_ = use.line_number;
        event_number_ = use.event_number;
        return FailTooManyEventMetadata(use.at);
      }
    }
    for (size_t t = begin; t < end; ++t) {
      if (tasks_[t].plane != &ps) continue;
      for (Event& event : TaskEvents(tasks_[t])) {
        if (event.metadata_index() >= ps.known_events) {
          event.set_metadata_index(event_index[event.metadata_index() - ps.known_events]);
        }
      }
      for (Stat& stat : TaskStats(tasks_[t])) {
        if (stat.metadata_index() >= ps.known_stats) {
          stat.set_metadata_index(stat_index[stat.metadata_index() - ps.known_stats]);
        }
      }
    }
  }
  ps_ = nullptr;
  plane_number_ = -1;
  return true;
}

absl::StatusOr<bool> WireParser::ParseInParallel(int threads) {
  collect_tasks_ = true;
  const bool located = ParseSpace();
  collect_tasks_ = false;
  if (!located) {
    if (error_.empty() && !stop_.ok()) return stop_;
    return false;
  }
  UsePool(&out_->strings);
  if (!SplitLongLines(threads)) return false;
  const std::vector<size_t> bounds = SplitTasks(threads);
  groups_ = bounds.size() - 1;
  if (groups_ <= 1) return false;  // One run of lines: nothing to share.
  bool ok = true;
  {
    ParallelShared shared(groups_);
    for (PlaneState& ps : states_) {
      ps.provisional.resize(groups_);
      ps.line_pools.resize(groups_);
      ps.line_wide.resize(groups_);
    }
    std::vector<std::unique_ptr<WireParser>> workers;
    for (size_t g = 1; g < groups_; ++g) {
      workers.push_back(
          std::make_unique<WireParser>(*this, static_cast<int>(g), &shared));
      workers.back()->tasks_ = tasks_;  // Small: one entry per line.
    }
    shared.running = workers.size();
    std::vector<std::thread> threads_running;
    for (size_t g = 1; g < groups_; ++g) {
      WireParser* worker = workers[g - 1].get();
      threads_running.emplace_back([worker, &shared, &bounds, g] {
        worker->DecodeTasks(bounds[g], bounds[g + 1]);
        std::lock_guard<std::mutex> lock(shared.mutex);
        --shared.running;
        shared.finished_cv.notify_all();
      });
    }
    group_ = 0;
    shared_ = &shared;
    ok = DecodeTasks(bounds[0], bounds[1]);
    if (!ok) shared.cancel.store(true);
    // Wait for the others, still reporting progress (and so still checking
    // the caller's limits, which see the memory of every thread).
    {
      std::unique_lock<std::mutex> lock(shared.mutex);
      while (shared.running > 0) {
        shared.finished_cv.wait_for(lock, std::chrono::milliseconds(50));
        if (ok && shared.running > 0 && options_.progress) {
          lock.unlock();
          stop_ = options_.progress(LineBytesDone(), size_);
          lock.lock();
          if (!stop_.ok()) {
            ok = false;
            shared.cancel.store(true);
          }
        }
      }
    }
    for (std::thread& thread : threads_running) thread.join();
    group_ = -1;
    // The first error in file order: groups are in file order.
    if (ok) {
      for (size_t g = 1; g < groups_; ++g) {
        WireParser& worker = *workers[g - 1];
        if (!worker.error_.empty() || !worker.stop_.ok()) {
          if (worker.error_.empty()) return worker.stop_;
          // The implicit metadata of runs 0..g may pass a limit before the
          // worker's error (one thread would report that).
          for (size_t h = 0; h <= g; ++h) {
            if (!ResolveProvisional(h, bounds[h], bounds[h + 1])) return Error();
          }
          return worker.Error();
        }
      }
      MergeStrings(bounds);
      for (size_t g = 0; g < groups_ && ok; ++g) ok = ResolveProvisional(g, bounds[g], bounds[g + 1]);
    }
    shared_ = nullptr;
  }
  if (!ok) {
    if (error_.empty() && !stop_.ok()) return stop_;
    return Error();
  }
  input_->ReleaseBefore(size_);
  if (options_.line_events) {  // Streaming: whole lines, in file order.
    for (const LineTask& task : tasks_) {
      if (!task.ends_line()) continue;
      options_.line_events(*out_, *task.plane->plane, *task.line, true);
      std::vector<Event>().swap(task.line->events);
      std::vector<Stat>().swap(task.line->stats);
    }
  }
  if (options_.progress) TBPROF_RETURN_IF_ERROR(options_.progress(size_, size_));
  return true;
}

}  // namespace tbprof::xplane::wire_internal
