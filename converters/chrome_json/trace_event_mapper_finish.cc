// TraceEventMapper::Finish(): what can only be done once the whole trace has
// been read — CPU-op attribution, GPU and memory events, line names, device
// stats, Finalize().
#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/chrome_json/trace_event_mapper.h"
#include "converters/common/gpu_memcpy_kinds.h"
#include "converters/common/gpu_plane_stats.h"
#include "converters/common/kernel_details.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

using xplane::StatType;

namespace {

constexpr uint32_t kMemoryProbeBit = 0x80000000u;
constexpr int64_t kAnnotationLineBase = 0x10000000;
constexpr int64_t kSyncLineBase = 0x20000000;

std::string AllocatorName(int32_t device_type, int32_t device_id) {
  // c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP (ROCm builds report CUDA too).
  if (device_type == 0 || device_id < 0) return "CPU";
  if (device_type == 1 || device_type == 6) return absl::StrCat("GPU_", device_id, "_caching");
  return absl::StrCat("DEVICE", device_type, "_", device_id, "_caching");
}

}  // namespace

void TraceEventMapper::AttributeToCpuOps() {
  std::vector<OpSpan*> stack;
  for (HostThread& t : threads_) {
    if (t.probes.empty() || t.ops.empty()) continue;
    std::sort(t.ops.begin(), t.ops.end(), [](const OpSpan& a, const OpSpan& b) {
      return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.end_ns > b.end_ns;
    });
    std::stable_sort(t.probes.begin(), t.probes.end(),
                     [](const Probe& a, const Probe& b) { return a.ts_ns < b.ts_ns; });
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
        launch_op_.try_emplace(launch_correlations_[probe.index], name_id);
      }
    }
    // Spans and probes are no longer needed.
    std::vector<OpSpan>().swap(t.ops);
    std::vector<Probe>().swap(t.probes);
  }
}

const GpuDeviceProperties* TraceEventMapper::DeviceProps(int64_t device) const {
  for (const GpuDeviceProperties& p : device_props_) {
    if (p.id == device) return &p;
  }
  return nullptr;
}

TraceEventMapper::GpuPlane& TraceEventMapper::GetGpuPlane(int32_t device) {
  GpuPlane& gp = gpu_planes_[device];
  if (gp.plane == nullptr) {
    gp.plane = builder_.GetOrCreatePlane(xplane::GpuPlaneName(device));
    gp.correlation = gp.plane->GetOrCreateStatMetadata(StatType::kCorrelationId);
    gp.kernel_details = gp.plane->GetOrCreateStatMetadata(StatType::kKernelDetails);
    gp.theoretical_occupancy = gp.plane->GetOrCreateStatMetadata(StatType::kTheoreticalOccupancyPct);
    gp.est_occupancy = gp.plane->GetOrCreateStatMetadata(StatType::kEstAchievedOccupancyPct);
    gp.tf_op = gp.plane->GetOrCreateStatMetadata(StatType::kTfOp);
    gp.memcpy_details = gp.plane->GetOrCreateStatMetadata(StatType::kMemcpyDetails);
    gp.memset_details = gp.plane->GetOrCreateStatMetadata(StatType::kMemsetDetails);
  }
  return gp;
}

xplane::XLineBuilder* TraceEventMapper::GpuLine(GpuPlane& gp, Kind kind, int64_t stream) {
  int kind_index = kind == Kind::kGpuAnnotation ? 1 : (kind == Kind::kGpuSync ? 2 : 0);
  auto [it, inserted] = gp.lines.try_emplace({kind_index, stream}, nullptr);
  if (!inserted) return it->second;
  int64_t line_id;
  if (stream >= 0 && stream < kAnnotationLineBase) {
    line_id = stream + (kind_index == 1 ? kAnnotationLineBase : (kind_index == 2 ? kSyncLineBase : 0));
  } else {
    line_id = gp.next_line_id++;
  }
  xplane::XLineBuilder* line = gp.plane->GetOrCreateLine(line_id);
  line->SetTimestampNs(base_ns_);
  // Only real device activity goes on "Stream #N" lines.
  switch (kind_index) {
    case 0: line->SetName(absl::StrCat("Stream #", stream)); break;
    case 1: line->SetName(absl::StrCat("GPU annotations (stream ", stream, ")")); break;
    default: line->SetName(absl::StrCat("CUDA sync (stream ", stream, ")")); break;
  }
  it->second = line;
  return line;
}

void TraceEventMapper::EmitGpuEvents() {
  int64_t kernels_without_props = 0;
  std::string details;
  for (const PendingGpuEvent& g : gpu_events_) {
    int64_t offset_ps;
    if (!ToOffsetPs(g.ts_ns, &offset_ps)) {
      ++out_of_range_;
      ++summary_.events_malformed;
      continue;
    }
    GpuPlane& gp = GetGpuPlane(g.device);
    xplane::XLineBuilder* line = GpuLine(gp, g.kind, g.stream);
    absl::string_view name = space_->strings.Get(g.name_id);
    uint32_t md;
    if (g.kind == Kind::kMemcpy || g.kind == Kind::kMemset) {
      // Plugin name ("MemcpyHToD", "Memset"); the Kineto name stays the
      // display name, one metadata per Kineto name.
      auto [it, inserted] = gp.renamed_metadata.try_emplace(g.name_id, 0);
      if (inserted) {
        it->second = gp.plane->GetOrCreateEventMetadata(name);
        absl::string_view plugin_name = g.kind == Kind::kMemset
                                            ? absl::string_view("Memset")
                                            : MemcpyEventName(ParseMemcpyName(name).direction);
        xplane::EventMetadata& m = gp.plane->event_metadata(it->second);
        m.name = space_->strings.Intern(plugin_name);
        if (plugin_name != name) m.display_name = g.name_id;
      }
      md = it->second;
    } else {
      md = gp.plane->GetOrCreateEventMetadata(name);
    }
    xplane::XEventBuilder ev = line->AddEvent(md, offset_ps, g.dur_ns * 1000);
    ++summary_.events_converted;
    if (g.kind == Kind::kGpuAnnotation || g.kind == Kind::kGpuSync) continue;

    if (g.correlation != kNone) ev.AddInt64(gp.correlation, g.correlation);
    details.clear();
    if (g.kind == Kind::kKernel) {
      ++summary_.kernels;
      KernelDetails d;
      d.registers_per_thread = g.registers;
      d.static_shared_mem_bytes = g.shared_memory;  // Kineto gives static + dynamic.
      d.dynamic_shared_mem_bytes = 0;
      for (int i = 0; i < 3; ++i) {
        d.grid[i] = g.grid[i];
        d.block[i] = g.block[i];
      }
      const GpuDeviceProperties* props = DeviceProps(g.device);
      if (props == nullptr) ++kernels_without_props;
      if (props != nullptr && g.has_launch_params && !rocm_ && HasOccupancyInputs(*props)) {
        KernelLaunchConfig launch;
        launch.registers_per_thread = g.registers;
        launch.static_shared_mem_bytes = g.shared_memory;
        launch.block_x = g.block[0];
        launch.block_y = g.block[1];
        launch.block_z = g.block[2];
        launch.grid_x = g.grid[0];
        launch.grid_y = g.grid[1];
        launch.grid_z = g.grid[2];
        absl::StatusOr<OccupancyResult> occ = ComputeOccupancy(*props, launch);
        if (occ.ok()) {
          d.has_occupancy = true;
          d.occupancy_pct = occ->theoretical_occupancy_pct;
          ev.AddDouble(gp.theoretical_occupancy, occ->theoretical_occupancy_pct);
        }
      }
      AppendKernelDetails(d, &details);
      ev.AddRef(gp.kernel_details, details);
      if (!std::isnan(g.est_occupancy_pct)) ev.AddDouble(gp.est_occupancy, g.est_occupancy_pct);
    } else if (g.kind == Kind::kMemcpy) {
      ++summary_.memcpys;
      MemcpyNameInfo info = ParseMemcpyName(name);
      AppendMemcpyDetails(g.bytes, info.src_kind, info.dst_kind, &details);
      ev.AddString(gp.memcpy_details, details);
    } else {
      ++summary_.memsets;
      absl::string_view kind;
      size_t open = name.find('('), close = name.rfind(')');
      if (open != absl::string_view::npos && close != absl::string_view::npos && close > open) {
        kind = name.substr(open + 1, close - open - 1);
      }
      AppendMemsetDetails(g.bytes, kind, &details);
      ev.AddString(gp.memset_details, details);
    }
    // The launching PyTorch op: the innermost CPU op around the launch, else
    // the op named by the event's External id.
    uint32_t op = 0;
    if (g.correlation != kNone) {
      auto it = launch_op_.find(g.correlation);
      if (it != launch_op_.end()) op = it->second;
    }
    if (op == 0 && g.external_id != kNone) {
      auto it = external_id_op_.find(g.external_id);
      if (it != external_id_op_.end()) op = it->second;
    }
    if (op != 0) ev.AddRef(gp.tf_op, space_->strings.Get(op));
  }
  std::vector<PendingGpuEvent>().swap(gpu_events_);

  // Device stats.
  for (auto& [device, gp] : gpu_planes_) {
    GpuDeviceProperties props;
    if (const GpuDeviceProperties* known = DeviceProps(device)) props = *known;
    props.id = device;
    if (rocm_) props.vendor = GpuVendor::kAmd;
    if (props.vendor == GpuVendor::kUnknown && (!device_props_.empty() || cuda_)) {
      // CUDA runtime launches or Kineto's CUDA device properties.
      props.vendor = GpuVendor::kNvidia;
    }
    SetGpuPlaneDeviceStats(props, gp.plane);
  }
  if (kernels_without_props > 0) {
    space_->warnings.push_back(absl::StrCat(
        kernels_without_props,
        " kernels ran on GPUs without deviceProperties in the trace: their theoretical "
        "occupancy (occ_pct) is not computed"));
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
    int64_t running = 0, lowest = 0;
    while (end < order.size() && memory_events_[order[end]].device_type == first.device_type &&
           memory_events_[order[end]].device_id == first.device_id) {
      running += memory_events_[order[end]].bytes;
      lowest = std::min(lowest, running);
      ++end;
    }
    running = -lowest;
    int64_t peak = 0;
    for (size_t i = begin; i < end; ++i) {
      const PendingMemoryEvent& m = memory_events_[order[i]];
      running += m.bytes;
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
      ev.AddInt64(s_addr, static_cast<int64_t>(m.addr));
      if (m.op_name_id != 0) ev.AddRef(s_tf_op, space_->strings.Get(m.op_name_id));
      ++summary_.memory_events;
      ++summary_.events_converted;
    }
    begin = end;
  }
  std::vector<PendingMemoryEvent>().swap(memory_events_);
}

void TraceEventMapper::NameHostLines() {
  for (HostThread& t : threads_) {
    unmatched_begin_ += static_cast<int64_t>(t.open.size());
    auto it = thread_names_.find(std::make_pair(t.pid_key, t.tid_key));
    if (it != thread_names_.end()) {
      t.line->SetName(it->second);
    } else if (t.tid_text.empty()) {
      t.line->SetName("global events");  // Kineto's pid "" / tid "" instants.
    } else if (t.tid_key >= (int64_t{1} << 62)) {
      t.line->SetName(t.tid_text);  // A named row such as "PyTorch Profiler".
    } else {
      t.line->SetName(absl::StrCat("thread ", t.tid_text));
    }
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
  for (size_t i = 0; i < step_roots_.size(); ++i) {
    const StepRoot& root = step_roots_[i];
    xplane::XEventBuilder ev(plane, threads_[root.thread].raw_line, root.event_index);
    ev.AddInt64(s_pt, kGenericContext);
    ev.AddInt64(s_p, static_cast<int64_t>(i) + 1);
  }
  std::vector<uint32_t> order;
  for (HostThread& t : threads_) {
    if (t.has_step_root) continue;
    const std::vector<xplane::Event>& events = t.raw_line->events;
    order.resize(events.size());
    for (uint32_t i = 0; i < events.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&events](uint32_t a, uint32_t b) {
      if (events[a].offset_ps != events[b].offset_ps) return events[a].offset_ps < events[b].offset_ps;
      return events[a].duration_ps > events[b].duration_ps;
    });
    int64_t outer_end_ps = INT64_MIN;
    for (uint32_t index : order) {
      int64_t begin_ps = events[index].offset_ps;
      if (begin_ps < outer_end_ps) continue;  // Nested in an outer event.
      outer_end_ps = begin_ps + events[index].duration_ps;
      int64_t begin_ns = base_ns_ + begin_ps / 1000;
      auto it = std::upper_bound(
          step_roots_.begin(), step_roots_.end(), begin_ns,
          [](int64_t ts, const StepRoot& root) { return ts < root.begin_ns; });
      if (it == step_roots_.begin()) continue;
      --it;
      if (begin_ns >= it->end_ns) continue;
      xplane::XEventBuilder ev(plane, t.raw_line, index);
      ev.AddInt64(s_ct, kGenericContext);
      ev.AddInt64(s_c, static_cast<int64_t>(it - step_roots_.begin()) + 1);
    }
  }
}

absl::Status TraceEventMapper::ParseDeviceProperties(const json::JsonValue& value) {
  if (value.kind != json::ValueKind::kArray) {
    return absl::InvalidArgumentError("not an array");
  }
  for (size_t i = 0; i < value.elements.size(); ++i) {
    const json::JsonValue& d = value.elements[i];
    if (d.kind != json::ValueKind::kObject) continue;
    GpuDeviceProperties p;
    auto get = [&d](absl::string_view key, int64_t fallback) {
      int64_t v;
      const json::JsonValue* f = d.Find(key);
      return f != nullptr && f->AsInt64(&v) ? v : fallback;
    };
    auto get_int = [&get](absl::string_view key) {
      return static_cast<int>(std::clamp<int64_t>(get(key, 0), 0, INT32_MAX));
    };
    p.id = get("id", static_cast<int64_t>(i));
    if (const json::JsonValue* name = d.Find("name")) p.name = std::string(name->AsString());
    p.vendor = GuessGpuVendorFromName(p.name);
    p.compute_major = get_int("computeMajor");
    p.compute_minor = get_int("computeMinor");
    p.num_sms = get_int("numSms");
    p.max_threads_per_block = get_int("maxThreadsPerBlock");
    p.max_threads_per_sm = get_int("maxThreadsPerMultiprocessor");
    p.regs_per_block = get_int("regsPerBlock");
    p.regs_per_sm = get_int("regsPerMultiprocessor");
    p.warp_size = get_int("warpSize");
    p.shared_mem_per_block_bytes = get("sharedMemPerBlock", 0);
    p.shared_mem_per_sm_bytes = get("sharedMemPerMultiprocessor", 0);
    p.shared_mem_per_block_optin_bytes = get("sharedMemPerBlockOptin", 0);
    p.reserved_shared_mem_per_block_bytes = get("reservedSharedMemPerBlock", -1);
    p.total_global_mem_bytes = get("totalGlobalMem", 0);
    p.clock_rate_khz = get("clockRate", 0);
    p.memory_clock_rate_khz = get("memoryClockRate", 0);
    p.memory_bus_width_bits = get_int("memoryBusWidth");
    if (DeviceProps(p.id) == nullptr) device_props_.push_back(std::move(p));
  }
  return absl::OkStatus();
}

ChromeJsonSummary TraceEventMapper::Finish(const json::TraceJsonReadResult& read) {
  AttributeToCpuOps();
  EmitGpuEvents();
  EmitMemoryEvents();
  LinkThreadsToSteps();
  NameHostLines();
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
  summary_.events_truncated = stats.events_truncated;
  if (stats.events_truncated > 0) {
    warnings.push_back(absl::StrCat(stats.events_truncated,
                                    " events overlapped an enclosing event on the same line "
                                    "and were cut to nest inside it"));
  }
  if (!summary_.hostname_hint.empty()) builder_.AddHostname(summary_.hostname_hint);
  return summary_;
}

}  // namespace tbprof::converters
