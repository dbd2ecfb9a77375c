// TraceEventMapper::Finish(): what can only be done once the whole trace has
// been read: CPU-op attribution, memory events, cross-thread step links, line
// names, warnings, Finalize(). (GPU events: trace_event_mapper_device.cc.)
#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/chrome_json/trace_event_mapper.h"
#include "converters/common/utf8.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

using xplane::StatType;

namespace {

constexpr uint32_t kMemoryProbeBit = 0x80000000u;

std::string AllocatorName(int32_t device_type, int32_t device_id) {
  // c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP (ROCm builds report CUDA too).
  if (device_type == 0 || device_id < 0) return "CPU";
  if (device_type == 1 || device_type == 6) return absl::StrCat("GPU_", device_id, "_caching");
  return absl::StrCat("DEVICE", device_type, "_", device_id, "_caching");
}

}  // namespace

void TraceEventMapper::AttributeToCpuOps() {
  // Keyed by the correlations GPU events look up, not by every launch (a
  // trace launches more than its GPU events show, and the map's pages are all
  // touched at the moment the load's other buffers are largest): sized once.
  launch_op_.reserve(gpu_events_.size());
  for (const PendingGpuEvent& g : gpu_events_) {
    if (g.correlation != kNone) launch_op_.try_emplace(g.correlation, kNoLaunchOp);
  }
  std::vector<OpSpan*> stack;
  for (HostThread& t : threads_) {
    if (t.probes.empty() || t.ops.empty()) continue;
    std::sort(t.ops.begin(), t.ops.end(), [](const OpSpan& a, const OpSpan& b) {
      return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.end_ns > b.end_ns;
    });
    // Probes at the same time find the same op, so their order among
    // themselves does not matter: an in-place sort (stable_sort would take a
    // buffer of half the probes).
    std::sort(t.probes.begin(), t.probes.end(), [](const Probe& a, const Probe& b) {
      return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.index < b.index;
    });
    stack.clear();
    size_t next_op = 0;
    for (const Probe& probe : t.probes) {
      while (next_op < t.ops.size() && t.ops[next_op].begin_ns <= probe.ts_ns) {
        OpSpan* op = &t.ops[next_op++];
        while (!stack.empty() && stack.back()->end_ns <= op->begin_ns) stack.pop_back();
        stack.push_back(op);
      }
      while (!stack.empty() && stack.back()->end_ns < probe.ts_ns) stack.pop_back();
      if (stack.empty()) continue;
      uint32_t name_id = stack.back()->name_id;
      if (probe.index & kMemoryProbeBit) {
        memory_events_[probe.index & ~kMemoryProbeBit].op_name_id = name_id;
      } else {
        // The first probe of a correlation wins, as before the keys were made.
        auto it = launch_op_.find(launch_correlations_[probe.index]);
        if (it != launch_op_.end() && it->second == kNoLaunchOp) it->second = name_id;
      }
    }
    // Spans and probes are no longer needed.
    std::vector<OpSpan>().swap(t.ops);
    std::vector<Probe>().swap(t.probes);
  }
}

void TraceEventMapper::EmitMemoryEvents() {
  if (memory_events_.empty()) return;
  xplane::XPlaneBuilder* plane = HostPlane();
  uint32_t alloc_md = plane->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName);
  uint32_t dealloc_md = plane->GetOrCreateEventMetadata(xplane::kMemoryDeallocationEventName);
  uint32_t s_allocator = plane->GetOrCreateStatMetadata(StatType::kAllocatorName);
  uint32_t s_allocated = plane->GetOrCreateStatMetadata(StatType::kBytesAllocated);
  uint32_t s_reserved = plane->GetOrCreateStatMetadata(StatType::kBytesReserved);
  uint32_t s_available = plane->GetOrCreateStatMetadata(StatType::kBytesAvailable);
  uint32_t s_peak = plane->GetOrCreateStatMetadata(StatType::kPeakBytesInUse);
  uint32_t s_requested = plane->GetOrCreateStatMetadata(StatType::kRequestedBytes);
  uint32_t s_allocation = plane->GetOrCreateStatMetadata(StatType::kAllocationBytes);
  uint32_t s_addr = plane->GetOrCreateStatMetadata(StatType::kAddress);
  uint32_t s_tf_op = plane->GetOrCreateStatMetadata(StatType::kTfOp);
  int64_t without_addr = 0;
  {
    // Memory events go to lines that already hold most of the trace; grow
    // each once instead of doubling it (a copy of the whole line) on the way.
    constexpr size_t kMaxStatsPerMemoryEvent = 10;
    std::vector<size_t> per_thread(threads_.size(), 0);
    for (const PendingMemoryEvent& m : memory_events_) ++per_thread[m.thread_index];
    for (size_t t = 0; t < threads_.size(); ++t) {
      if (per_thread[t] > 0) {
        threads_[t].line->ReserveMore(per_thread[t], per_thread[t] * kMaxStatsPerMemoryEvent);
      }
    }
  }

  // Per allocator, in time order.
  std::vector<uint32_t> order(memory_events_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const PendingMemoryEvent& x = memory_events_[a];
    const PendingMemoryEvent& y = memory_events_[b];
    if (x.device_type != y.device_type) return x.device_type < y.device_type;
    if (x.device_id != y.device_id) return x.device_id < y.device_id;
    return x.ts_ns < y.ts_ns;
  });
  size_t begin = 0;
  while (begin < order.size()) {
    const PendingMemoryEvent& first = memory_events_[order[begin]];
    std::string allocator = AllocatorName(first.device_type, first.device_id);
    size_t end = begin;
    // Running total for events without "Total Allocated"; shifted so that it
    // never drops below zero (frees of blocks allocated before the trace).
    // Running sums saturate at +-2^62 instead of overflowing.
    auto add = [](int64_t a, int64_t b) {
      constexpr int64_t kLimit = int64_t{1} << 62;
      int64_t sum;
      if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? kLimit : -kLimit;
      return std::clamp<int64_t>(sum, -kLimit, kLimit);
    };
    int64_t running = 0, lowest = 0;
    while (end < order.size() && memory_events_[order[end]].device_type == first.device_type &&
           memory_events_[order[end]].device_id == first.device_id) {
      running = add(running, memory_events_[order[end]].bytes);
      lowest = std::min(lowest, running);
      ++end;
    }
    running = -lowest;
    int64_t peak = 0;
    for (size_t i = begin; i < end; ++i) {
      const PendingMemoryEvent& m = memory_events_[order[i]];
      running = add(running, m.bytes);
      int64_t allocated = m.total_allocated != kNone ? m.total_allocated : running;
      int64_t available = 0;
      if (m.total_allocated != kNone && m.total_reserved != kNone) {
        available = std::max<int64_t>(0, m.total_reserved - m.total_allocated);
      }
      peak = std::max(peak, allocated);
      int64_t offset_ps;
      if (!ToOffsetPs(m.ts_ns, &offset_ps)) continue;
      int64_t size = m.bytes < 0 ? -m.bytes : m.bytes;
      xplane::XEventBuilder ev = threads_[m.thread_index].line->AddEvent(
          m.bytes < 0 ? dealloc_md : alloc_md, offset_ps, /*duration_ps=*/0);
      ev.AddString(s_allocator, allocator);
      ev.AddInt64(s_allocated, allocated);
      ev.AddInt64(s_reserved, 0);
      ev.AddInt64(s_available, available);
      ev.AddInt64(s_peak, peak);
      ev.AddInt64(s_requested, size);
      ev.AddInt64(s_allocation, size);
      if (m.has_addr) {
        ev.AddInt64(s_addr, static_cast<int64_t>(m.addr));
      } else {
        ++without_addr;
      }
      if (m.op_name_id != 0) ev.AddRef(s_tf_op, space_->strings.Get(m.op_name_id));
      ++summary_.memory_events;
      ++summary_.events_converted;
    }
    begin = end;
  }
  std::vector<PendingMemoryEvent>().swap(memory_events_);
  if (without_addr > 0) {
    space_->warnings.push_back(absl::StrCat(
        xplane::kMemoryWithoutAddressWarning, ": ", without_addr,
        " [memory] events have no Addr (the format of PyTorch before 1.10), so the trace "
        "cannot attribute them: peaks and totals are right, but which allocations were live "
        "at the peak is unknown"));
  }
}

void TraceEventMapper::NameHostLines() {
  for (HostThread& t : threads_) {
    unmatched_begin_ += static_cast<int64_t>(t.open.size());
    std::string name;
    auto it = thread_names_.find(std::make_pair(t.pid_key, t.tid_key));
    if (it != thread_names_.end()) {
      name = it->second;
    } else if (t.tid_text.empty()) {
      name = "global events";  // Kineto's pid "" / tid "" instants.
    } else if (t.tid_key >= (int64_t{1} << 62)) {
      name = t.tid_text;  // A named row such as "PyTorch Profiler".
    } else {
      name = absl::StrCat("thread ", t.tid_text);
    }
    name = std::string(SanitizeUtf8(name, &scratch_));  // A tid may be any string.
    t.line->SetName(name);
    if (t.python_line != nullptr) t.python_line->SetName(absl::StrCat(name, " python stack"));
  }
}

void TraceEventMapper::LinkThreadsToSteps() {
  if (step_roots_.empty()) return;
  // The plugin groups events into steps by nesting under a root on the same
  // line. Work of the same step on other threads (PyTorch's autograd thread
  // launches the backward kernels) is tied to the root with a
  // producer/consumer context (_pt/_p on the root, _ct/_c on the thread's
  // outermost events that start inside the step).
  xplane::XPlaneBuilder* plane = HostPlane();
  uint32_t s_pt = plane->GetOrCreateStatMetadata(StatType::kProducerType);
  uint32_t s_p = plane->GetOrCreateStatMetadata(StatType::kProducerId);
  uint32_t s_ct = plane->GetOrCreateStatMetadata(StatType::kConsumerType);
  uint32_t s_c = plane->GetOrCreateStatMetadata(StatType::kConsumerId);
  constexpr int64_t kGenericContext = 0;
  std::sort(step_roots_.begin(), step_roots_.end(),
            [](const StepRoot& a, const StepRoot& b) { return a.begin_ns < b.begin_ns; });
  // Which events get which context, found first so that every line grows
  // once.
  struct Link {
    uint32_t thread;
    uint32_t event_index;
    int64_t step;  // 1-based index into step_roots_.
  };
  std::vector<Link> consumers;
  std::vector<uint32_t> order;
  for (uint32_t t = 0; t < threads_.size(); ++t) {
    if (threads_[t].has_step_root) continue;
    const std::vector<xplane::Event>& events = threads_[t].raw_line->events;
    order.resize(events.size());
    for (uint32_t i = 0; i < events.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&events](uint32_t a, uint32_t b) {
      if (events[a].offset_ps != events[b].offset_ps)
        return events[a].offset_ps < events[b].offset_ps;
      return events[a].duration_ps > events[b].duration_ps;
    });
    int64_t outer_end_ps = INT64_MIN;
    for (uint32_t index : order) {
      int64_t begin_ps = events[index].offset_ps;
      if (begin_ps < outer_end_ps) continue;  // Nested in an outer event.
      outer_end_ps = begin_ps + events[index].duration_ps;
      int64_t begin_ns = base_ns_ + begin_ps / 1000;
      auto it =
          std::upper_bound(step_roots_.begin(), step_roots_.end(), begin_ns,
                           [](int64_t ts, const StepRoot& root) { return ts < root.begin_ns; });
      if (it == step_roots_.begin()) continue;
      --it;
      if (begin_ns >= it->end_ns) continue;
      consumers.push_back({t, index, static_cast<int64_t>(it - step_roots_.begin()) + 1});
    }
  }
  // Per line, in one pass over its stats (adding to old events one by one
  // would move the stats of every later event each time). The roots' stats
  // come first, as AddInt64 calls in this order would add them.
  std::vector<std::vector<xplane::EventInt64Stat>> adds(threads_.size());
  for (size_t i = 0; i < step_roots_.size(); ++i) {
    const StepRoot& root = step_roots_[i];
    adds[root.thread].push_back({root.event_index, s_pt, kGenericContext});
    adds[root.thread].push_back({root.event_index, s_p, static_cast<int64_t>(i) + 1});
  }
  for (const Link& link : consumers) {
    adds[link.thread].push_back({link.event_index, s_ct, kGenericContext});
    adds[link.thread].push_back({link.event_index, s_c, link.step});
  }
  for (uint32_t t = 0; t < threads_.size(); ++t) threads_[t].line->AddInt64Stats(adds[t]);
}

absl::StatusOr<ChromeJsonSummary> TraceEventMapper::Finish(const json::TraceJsonReadResult& read) {
  TBPROF_RETURN_IF_ERROR(CheckMemory("after reading"));
  AttributeToCpuOps();
  EmitGpuEvents();
  TBPROF_RETURN_IF_ERROR(CheckMemory("after GPU events"));
  EmitMemoryEvents();
  LinkThreadsToSteps();
  NameHostLines();
  EmitDistributedInfo();
  std::vector<std::string>& warnings = space_->warnings;
  if (summary_.events_malformed > 0) {
    warnings.push_back(absl::StrCat(summary_.events_malformed,
                                    " malformed trace events were skipped; first: ",
                                    absl::StrJoin(summary_.malformed_examples, "; ")));
  }
  if (unmatched_begin_ > 0 || unmatched_end_ > 0) {
    warnings.push_back(absl::StrCat(unmatched_begin_, " \"B\" events without an \"E\" and ",
                                    unmatched_end_, " \"E\" events without a \"B\" were dropped"));
    summary_.events_ignored += unmatched_begin_;
  }
  if (read.missing_array_end) {
    warnings.push_back("the trace event array has no closing ']' (file cut short?)");
  }
  xplane::FinalizeOptions finalize;
  finalize.epoch_ns_of_zero = base_time_ns_;
  xplane::FinalizeStats stats = builder_.Finalize(finalize);
  TBPROF_RETURN_IF_ERROR(CheckMemory("after sorting"));
  summary_.events_moved = stats.events_moved;
  if (stats.events_moved > 0) {
    warnings.push_back(absl::StrCat(stats.events_moved,
                                    " events started inside an earlier event of their line and "
                                    "ended after it (e.g. kernels under programmatic dependent "
                                    "launch); they were moved, with their true durations, to "
                                    "extra lines named \"<line> (overlapping)\""));
  }
  if (!summary_.hostname_hint.empty()) {
    // From the file: XSpace.hostnames is a proto string, so valid UTF-8 only.
    builder_.AddHostname(std::string(SanitizeUtf8(summary_.hostname_hint, &scratch_)));
  }
  return summary_;
}

}  // namespace tbprof::converters
