#include "converters/memory_snapshot/memory_snapshot_analysis.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tbprof::converters::memory_snapshot {

std::string FrameText(const Snapshot& snapshot, const Frame& f) {
  return absl::StrCat(snapshot.strings[f.filename], ":", f.line, ":", snapshot.strings[f.name]);
}

std::string StackText(const Snapshot& snapshot, uint32_t stack) {
  std::string out;
  for (uint32_t frame : snapshot.stacks[stack]) {
    if (!out.empty()) out.push_back('\n');
    out += FrameText(snapshot, snapshot.frames[frame]);
  }
  return out;
}

std::string UserFrameText(const Snapshot& snapshot, uint32_t stack) {
  const std::vector<uint32_t>& frames = snapshot.stacks[stack];
  const Frame* python = nullptr;
  for (uint32_t index : frames) {
    const Frame& f = snapshot.frames[index];
    absl::string_view file = snapshot.strings[f.filename];
    if (!absl::EndsWith(file, ".py")) continue;
    if (python == nullptr) python = &f;
    if (!absl::StrContains(file, "/torch/")) return FrameText(snapshot, f);
  }
  if (python != nullptr) return FrameText(snapshot, *python);
  return frames.empty() ? std::string() : FrameText(snapshot, snapshot.frames[frames[0]]);
}

namespace {

// Pass 1: which blocks and segments were live before recording began.
// Counts into `*without_time` the allocator events without time_us.
void FindInitialState(const Snapshot& snapshot, const std::vector<uint32_t>& segments,
                      DeviceMemory* m, int64_t* without_time) {
  absl::flat_hash_set<uint64_t> live_blocks;  // Allocated in the trace, not freed.
  absl::flat_hash_set<uint64_t> live_segments;
  if (static_cast<size_t>(m->device) < snapshot.device_traces.size()) {
    for (uint32_t index : snapshot.device_traces[m->device]) {
      const TraceEvent& e = snapshot.events[index];
      if (!e.has_time && e.action != Action::kOther) ++*without_time;
      switch (e.action) {
        case Action::kAlloc:
          live_blocks.insert(e.addr);
          ++m->allocs;
          break;
        case Action::kFreeCompleted:
          ++m->frees;
          if (live_blocks.erase(e.addr) == 0) {
            m->initial_allocated_bytes = SaturatingAdd(m->initial_allocated_bytes, e.size);
            m->initial_blocks.push_back({e.addr, e.size, e.stream, e.stack, true, -1});
          }
          break;
        case Action::kSegmentAlloc:
        case Action::kSegmentMap:
          live_segments.insert(e.addr);
          break;
        case Action::kSegmentFree:
        case Action::kSegmentUnmap:
          if (live_segments.erase(e.addr) == 0) {
            m->initial_reserved_bytes = SaturatingAdd(m->initial_reserved_bytes, e.size);
          }
          break;
        case Action::kOom:
          ++m->ooms;
          break;
        default:
          break;
      }
    }
  }
  for (uint32_t index : segments) {
    const Segment& s = snapshot.segments[index];
    ++m->segments;
    m->segment_reserved_bytes = SaturatingAdd(m->segment_reserved_bytes, s.total_size);
    if (!live_segments.contains(s.address)) {
      m->initial_reserved_bytes = SaturatingAdd(m->initial_reserved_bytes, s.total_size);
    }
    for (const Block& b : s.blocks) {
      if (b.active()) {
        m->segment_active_bytes = SaturatingAdd(m->segment_active_bytes, b.size);
        if (!live_blocks.contains(b.addr)) {
          m->initial_allocated_bytes = SaturatingAdd(m->initial_allocated_bytes, b.size);
          m->initial_blocks.push_back({b.addr, b.size, s.stream, b.stack, true, -1});
        }
      } else {
        ++m->free_blocks;
        m->largest_free_block_bytes = std::max(m->largest_free_block_bytes, b.size);
      }
    }
  }
  m->fragmentation_bytes = std::max<int64_t>(0, m->segment_reserved_bytes - m->segment_active_bytes);
  std::sort(m->initial_blocks.begin(), m->initial_blocks.end(),
            [](const LiveBlock& a, const LiveBlock& b) { return a.addr < b.addr; });
}

// Pass 3: the blocks live right after event `m->peak_event`.
void FindLiveAtPeak(const Snapshot& snapshot, DeviceMemory* m) {
  absl::flat_hash_map<uint64_t, LiveBlock> live;
  for (const LiveBlock& b : m->initial_blocks) live[b.addr] = b;
  if (m->peak_event >= 0) {
    const std::vector<uint32_t>& trace = snapshot.device_traces[m->device];
    for (int64_t i = 0; i <= m->peak_event; ++i) {
      const TraceEvent& e = snapshot.events[trace[i]];
      if (e.action == Action::kAlloc) {
        live[e.addr] = LiveBlock{e.addr, e.size, e.stream, e.stack, false, i};
      } else if (e.action == Action::kFreeCompleted) {
        live.erase(e.addr);
      }
    }
  }
  m->live_at_peak.reserve(live.size());
  for (auto& [addr, block] : live) m->live_at_peak.push_back(block);
  std::sort(m->live_at_peak.begin(), m->live_at_peak.end(),
            [](const LiveBlock& a, const LiveBlock& b) {
              return a.size != b.size ? a.size > b.size : a.addr < b.addr;
            });
}

}  // namespace

SnapshotAnalysis AnalyzeStartState(const Snapshot& snapshot) {
  SnapshotAnalysis out;
  int64_t devices = static_cast<int64_t>(snapshot.device_traces.size());
  for (const Segment& s : snapshot.segments) {
    if (s.device >= 0 && s.device < (int64_t{1} << 16)) devices = std::max(devices, s.device + 1);
  }
  absl::flat_hash_map<int64_t, std::vector<uint32_t>> segments_by_device;
  for (size_t i = 0; i < snapshot.segments.size(); ++i) {
    segments_by_device[snapshot.segments[i].device].push_back(static_cast<uint32_t>(i));
  }
  const std::vector<uint32_t> no_segments;
  for (int64_t d = 0; d < devices; ++d) {
    auto it = segments_by_device.find(d);
    const std::vector<uint32_t>& segments = it == segments_by_device.end() ? no_segments : it->second;
    const bool has_events = static_cast<size_t>(d) < snapshot.device_traces.size() &&
                            !snapshot.device_traces[d].empty();
    if (!has_events && segments.empty()) continue;
    DeviceMemory m;
    m.device = d;
    FindInitialState(snapshot, segments, &m, &out.events_without_time);
    const bool has_trace = static_cast<size_t>(d) < snapshot.device_traces.size();
    m.trace_events = has_trace ? static_cast<int64_t>(snapshot.device_traces[d].size()) : 0;
    if (m.trace_events == 0 && m.segments == 0) continue;
    out.devices.push_back(std::move(m));
  }
  out.has_times = out.events_without_time == 0;
  return out;
}

void FinishAnalysis(const Snapshot& snapshot, SnapshotAnalysis* analysis) {
  SnapshotAnalysis& out = *analysis;
  for (DeviceMemory& m : out.devices) {
    // Pass 2: the running sums and the peak.
    m.peak_allocated_bytes = m.initial_allocated_bytes;
    m.reserved_at_peak_bytes = m.initial_reserved_bytes;
    m.peak_reserved_bytes = m.initial_reserved_bytes;
    m.final_allocated_bytes = m.initial_allocated_bytes;
    m.final_reserved_bytes = m.initial_reserved_bytes;
    ForEachRunning(snapshot, m, [&](size_t i, const TraceEvent& e, const RunningBytes& r) {
      if (r.allocated > m.peak_allocated_bytes) {
        m.peak_allocated_bytes = r.allocated;
        m.peak_event = static_cast<int64_t>(i);
        m.peak_time_us = e.time_us;
        m.reserved_at_peak_bytes = r.reserved;
      }
      m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, r.reserved);
      m.final_allocated_bytes = r.allocated;
      m.final_reserved_bytes = r.reserved;
    });
    FindLiveAtPeak(snapshot, &m);
    if (m.final_allocated_bytes != m.segment_active_bytes && m.segments > 0) {
      out.warnings.push_back(absl::StrCat(
          "GPU ", m.device, ": the trace ends with ", m.final_allocated_bytes,
          " bytes allocated but the segments at dump time hold ", m.segment_active_bytes,
          " active bytes (events missing from the trace?)"));
    }
  }
  if (out.events_without_time > 0) {
    out.warnings.push_back(absl::StrCat(
        out.events_without_time, " trace events have no time_us (recorded without context?): the "
        "timeline uses event order, 1 microsecond per event"));
  }
  if (snapshot.malformed_events > 0) {
    out.warnings.push_back(absl::StrCat(snapshot.malformed_events,
                                        " trace events lack addr or size and were skipped"));
  }
  if (snapshot.unknown_actions > 0) {
    out.warnings.push_back(
        absl::StrCat(snapshot.unknown_actions, " trace events have an unknown action (ignored)"));
  }
  if (!snapshot.has_device_traces) {
    out.warnings.push_back(
        "the snapshot has no device_traces (memory history was not recorded): only the state at "
        "dump time is known");
  }
}

SnapshotAnalysis AnalyzeSnapshot(const Snapshot& snapshot) {
  SnapshotAnalysis out = AnalyzeStartState(snapshot);
  FinishAnalysis(snapshot, &out);
  return out;
}

}  // namespace tbprof::converters::memory_snapshot
