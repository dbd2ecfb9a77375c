#include "converters/raw_capture/raw_capture_to_xspace.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converters/common/gpu_memcpy_kinds.h"
#include "converters/common/gpu_occupancy.h"
#include "converters/common/gpu_plane_stats.h"
#include "converters/common/kernel_details.h"
#include "src/base/status_macros.h"
#include "src/capture/step_pattern.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {
namespace {

namespace layout = capture::layout;
using capture::DeviceAttr;
using xplane::StatType;

// Host-plane line ids past any thread id.
constexpr int64_t kOverheadLineId = int64_t{1} << 40;
constexpr int64_t kMemoryLineId = kOverheadLineId + 1;
// Device-plane line ids of "CUDA sync (stream N)" lines.
constexpr int64_t kSyncLineBase = int64_t{1} << 32;

absl::string_view MemoryKindName(uint32_t kind) {
  static constexpr absl::string_view kNames[] = {"unknown", "pageable", "pinned",
                                                 "device",  "array",    "managed",
                                                 "device_static", "managed_static"};
  return kind < 8 ? kNames[kind] : kNames[0];
}

MemcpyDirection DirectionOf(uint8_t copy_kind) {
  switch (copy_kind) {
    case layout::kMemcpyHtoD:
    case layout::kMemcpyHtoA: return MemcpyDirection::kHToD;
    case layout::kMemcpyDtoH:
    case layout::kMemcpyAtoH: return MemcpyDirection::kDToH;
    case layout::kMemcpyDtoD:
    case layout::kMemcpyAtoA:
    case layout::kMemcpyAtoD:
    case layout::kMemcpyDtoA: return MemcpyDirection::kDToD;
    case layout::kMemcpyHtoH: return MemcpyDirection::kHToH;
    case layout::kMemcpyPtoP: return MemcpyDirection::kPToP;
    default: return MemcpyDirection::kUnknown;
  }
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string StripVersionSuffix(const std::string& name) {
  size_t v = name.rfind("_v");
  if (v == std::string::npos || v + 2 == name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, v);
}

std::string Demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && out != nullptr) ? std::string(out) : name;
  std::free(out);
  return result;
}

GpuDeviceProperties ToGpuProps(const capture::DeviceProperties& d) {
  GpuDeviceProperties p;
  p.id = d.ordinal;
  p.name = d.name;
  p.vendor = GpuVendor::kNvidia;  // CUPTI only traces NVIDIA GPUs.
  p.compute_major = static_cast<int>(d.Get(DeviceAttr::kComputeCapabilityMajor));
  p.compute_minor = static_cast<int>(d.Get(DeviceAttr::kComputeCapabilityMinor));
  p.num_sms = static_cast<int>(d.Get(DeviceAttr::kMultiprocessorCount));
  p.max_threads_per_block = static_cast<int>(d.Get(DeviceAttr::kMaxThreadsPerBlock));
  p.max_threads_per_sm = static_cast<int>(d.Get(DeviceAttr::kMaxThreadsPerMultiprocessor));
  p.regs_per_block = static_cast<int>(d.Get(DeviceAttr::kMaxRegistersPerBlock));
  p.regs_per_sm = static_cast<int>(d.Get(DeviceAttr::kMaxRegistersPerMultiprocessor));
  p.warp_size = static_cast<int>(d.Get(DeviceAttr::kWarpSize));
  p.shared_mem_per_block_bytes = d.Get(DeviceAttr::kMaxSharedMemoryPerBlock);
  p.shared_mem_per_sm_bytes = d.Get(DeviceAttr::kMaxSharedMemoryPerMultiprocessor);
  p.shared_mem_per_block_optin_bytes = d.Get(DeviceAttr::kMaxSharedMemoryPerBlockOptin);
  p.reserved_shared_mem_per_block_bytes = d.Get(DeviceAttr::kReservedSharedMemoryPerBlock, -1);
  p.total_global_mem_bytes = d.Get(DeviceAttr::kTotalMemoryBytes);
  p.clock_rate_khz = d.Get(DeviceAttr::kClockRateKhz);
  p.memory_clock_rate_khz = d.Get(DeviceAttr::kMemoryClockRateKhz);
  p.memory_bus_width_bits = static_cast<int>(d.Get(DeviceAttr::kMemoryBusWidthBits));
  p.memory_bandwidth_bytes_per_s = d.Get(DeviceAttr::kMemoryBandwidthBytesPerSec);
  return p;
}

class Converter {
 public:
  Converter(const capture::RawCapture& cap, const RawCaptureOptions& options,
            xplane::XSpaceData* out)
      : cap_(cap), options_(options), space_(out), builder_(out) {}

  RawCaptureSummary Run();

 private:
  struct GpuPlane {
    xplane::XPlaneBuilder* plane = nullptr;
    // Sync waits (xplane::GpuAnnotationPlaneName): not device activity, kept
    // off the GPU plane, where the plugin would count them as stream work.
    xplane::XPlaneBuilder* sync_plane = nullptr;
    uint32_t sync_correlation = 0;
    uint32_t device = 0;
    const GpuDeviceProperties* props = nullptr;
    std::map<int64_t, xplane::XLineBuilder*> lines;
    std::unordered_map<uint64_t, uint32_t> kernel_metadata;  // string id -> index
    uint32_t correlation = 0, kernel_details = 0, occupancy = 0, memcpy_details = 0,
             memset_details = 0;
  };

  bool Span(uint64_t start_ns, uint64_t end_ns, int64_t* offset_ps, int64_t* duration_ps);
  xplane::XLineBuilder* HostLine(int64_t line_id);
  GpuPlane& Gpu(uint32_t device);
  xplane::XLineBuilder* StreamLine(GpuPlane& gp, uint32_t stream, bool sync);
  void OnRecord(const capture::ActivityRecord& r);
  void OnApi(const layout::ApiRecord& a);
  void OnKernel(const layout::KernelRecord& k);
  void OnMemcpy(const layout::MemcpyRecord& m);
  void OnMemset(const layout::MemsetRecord& m);
  void OnOverhead(const layout::OverheadRecord& o);
  void EmitMarkers();
  void EmitStepMarkers();
  void EmitSyncs();
  void EmitMemory();
  void NameHostLines();
  void AddWarnings();

  const capture::RawCapture& cap_;
  const RawCaptureOptions& options_;
  xplane::XSpaceData* space_;
  xplane::XSpaceBuilder builder_;
  RawCaptureSummary summary_;
  int64_t epoch_base_ns_ = 0;  // epoch time of base_cupti_ns_
  uint64_t base_cupti_ns_ = 0;
  uint64_t window_lo_ns_ = 0, window_hi_ns_ = UINT64_MAX;
  xplane::XPlaneBuilder* host_ = nullptr;
  std::map<int64_t, xplane::XLineBuilder*> host_lines_;
  uint32_t s_correlation_ = 0, s_is_root_ = 0, s_step_num_ = 0;
  std::vector<GpuDeviceProperties> props_;
  std::map<uint32_t, GpuPlane> gpus_;
  std::unordered_map<uint32_t, uint32_t> context_device_;  // contextId -> deviceId
  std::unordered_map<uint32_t, uint32_t> correlation_tid_;
  std::vector<layout::MarkerRecord> markers_;
  std::vector<layout::SynchronizationRecord> syncs_;
  std::vector<layout::MemoryRecord> memory_;
  std::string details_;
  int64_t kernels_without_props_ = 0;
};

bool Converter::Span(uint64_t start_ns, uint64_t end_ns, int64_t* offset_ps,
                     int64_t* duration_ps) {
  if (start_ns == 0 || end_ns < start_ns || start_ns < window_lo_ns_ || end_ns > window_hi_ns_) {
    ++summary_.records_bad_time;
    return false;
  }
  // In 128 bits: a damaged header or record may put times anywhere, and a
  // span whose picoseconds do not fit int64 is a bad time, not an overflow.
  const __int128 offset_ps128 =
      (static_cast<__int128>(start_ns) - static_cast<__int128>(base_cupti_ns_)) * 1000;
  const __int128 duration_ps128 = static_cast<__int128>(end_ns - start_ns) * 1000;
  if (offset_ps128 > INT64_MAX || offset_ps128 < INT64_MIN || duration_ps128 > INT64_MAX) {
    ++summary_.records_bad_time;
    return false;
  }
  *offset_ps = static_cast<int64_t>(offset_ps128);
  *duration_ps = static_cast<int64_t>(duration_ps128);
  return true;
}

xplane::XLineBuilder* Converter::HostLine(int64_t line_id) {
  auto [it, inserted] = host_lines_.try_emplace(line_id, nullptr);
  if (inserted) {
    it->second = host_->GetOrCreateLine(line_id);
    it->second->SetTimestampNs(epoch_base_ns_);
  }
  return it->second;
}

Converter::GpuPlane& Converter::Gpu(uint32_t device) {
  auto [it, inserted] = gpus_.try_emplace(device);
  GpuPlane& gp = it->second;
  if (inserted) {
    gp.device = device;
    gp.plane = builder_.GetOrCreatePlane(xplane::GpuPlaneName(device));
    gp.plane->SetId(device);
    for (const GpuDeviceProperties& p : props_) {
      if (p.id == device) gp.props = &p;
    }
    if (gp.props != nullptr) SetGpuPlaneDeviceStats(*gp.props, gp.plane);
    gp.correlation = gp.plane->GetOrCreateStatMetadata(StatType::kCorrelationId);
    gp.kernel_details = gp.plane->GetOrCreateStatMetadata(StatType::kKernelDetails);
    gp.occupancy = gp.plane->GetOrCreateStatMetadata(StatType::kTheoreticalOccupancyPct);
    gp.memcpy_details = gp.plane->GetOrCreateStatMetadata(StatType::kMemcpyDetails);
    gp.memset_details = gp.plane->GetOrCreateStatMetadata(StatType::kMemsetDetails);
  }
  return gp;
}

xplane::XLineBuilder* Converter::StreamLine(GpuPlane& gp, uint32_t stream, bool sync) {
  int64_t id = (sync ? kSyncLineBase : 0) + stream;
  auto [it, inserted] = gp.lines.try_emplace(id, nullptr);
  if (inserted) {
    xplane::XPlaneBuilder* plane = gp.plane;
    if (sync) {
      if (gp.sync_plane == nullptr) {
        gp.sync_plane = builder_.GetOrCreatePlane(xplane::GpuAnnotationPlaneName(gp.device));
        gp.sync_plane->SetId(xplane::kGpuAnnotationPlaneIdBase + gp.device);
        gp.sync_correlation = gp.sync_plane->GetOrCreateStatMetadata(StatType::kCorrelationId);
      }
      plane = gp.sync_plane;
    }
    it->second = plane->GetOrCreateLine(id);
    it->second->SetTimestampNs(epoch_base_ns_);
    it->second->SetName(sync ? absl::StrCat("CUDA sync (stream ", stream, ")")
                             : absl::StrCat("Stream #", stream));
  }
  return it->second;
}

void Converter::OnApi(const layout::ApiRecord& a) {
  correlation_tid_[a.correlation_id] = a.thread_id;
  int64_t offset, duration;
  if (!Span(a.start, a.end, &offset, &duration)) return;
  const bool runtime = a.kind == layout::kKindRuntime;
  auto name = cap_.callback_names.find({runtime ? 2u : 1u, a.cbid});
  std::string event_name = name != cap_.callback_names.end()
                               ? StripVersionSuffix(name->second)
                               : absl::StrCat(runtime ? "cudaRuntimeApi#" : "cuDriverApi#", a.cbid);
  xplane::XEventBuilder ev = HostLine(a.thread_id)->AddEvent(
      host_->GetOrCreateEventMetadata(event_name), offset, duration);
  ev.AddInt64(s_correlation_, a.correlation_id);
  ++summary_.api_events;
}

void Converter::OnKernel(const layout::KernelRecord& k) {
  context_device_[k.context_id] = k.device_id;
  int64_t offset, duration;
  if (!Span(k.start, k.end, &offset, &duration)) return;
  GpuPlane& gp = Gpu(k.device_id);
  auto [md, inserted] = gp.kernel_metadata.try_emplace(k.name, 0);
  if (inserted) {
    std::string name = Demangle(cap_.String(k.name));
    md->second = gp.plane->GetOrCreateEventMetadata(name.empty() ? "<unnamed kernel>" : name);
  }
  xplane::XEventBuilder ev = StreamLine(gp, k.stream_id, false)->AddEvent(md->second, offset,
                                                                         duration);
  ev.AddInt64(gp.correlation, k.correlation_id);
  KernelDetails d;
  d.registers_per_thread = k.registers_per_thread;
  d.static_shared_mem_bytes = k.static_shared_memory;
  d.dynamic_shared_mem_bytes = k.dynamic_shared_memory;
  d.grid[0] = k.grid_x, d.grid[1] = k.grid_y, d.grid[2] = k.grid_z;
  d.block[0] = k.block_x, d.block[1] = k.block_y, d.block[2] = k.block_z;
  if (gp.props != nullptr && HasOccupancyInputs(*gp.props)) {
    KernelLaunchConfig launch;
    launch.registers_per_thread = k.registers_per_thread;
    launch.static_shared_mem_bytes = k.static_shared_memory;
    launch.dynamic_shared_mem_bytes = k.dynamic_shared_memory;
    launch.block_x = k.block_x, launch.block_y = k.block_y, launch.block_z = k.block_z;
    launch.grid_x = k.grid_x, launch.grid_y = k.grid_y, launch.grid_z = k.grid_z;
    absl::StatusOr<OccupancyResult> occ = ComputeOccupancy(*gp.props, launch);
    if (occ.ok()) {
      d.has_occupancy = true;
      d.occupancy_pct = occ->theoretical_occupancy_pct;
      ev.AddDouble(gp.occupancy, occ->theoretical_occupancy_pct);
    }
  } else {
    ++kernels_without_props_;
  }
  details_.clear();
  AppendKernelDetails(d, &details_);
  ev.AddRef(gp.kernel_details, details_);
  ++summary_.kernels;
}

void Converter::OnMemcpy(const layout::MemcpyRecord& m) {
  context_device_[m.context_id] = m.device_id;
  int64_t offset, duration;
  if (!Span(m.start, m.end, &offset, &duration)) return;
  GpuPlane& gp = Gpu(m.device_id);
  xplane::XEventBuilder ev = StreamLine(gp, m.stream_id, false)->AddEvent(
      gp.plane->GetOrCreateEventMetadata(MemcpyEventName(DirectionOf(m.copy_kind))), offset,
      duration);
  ev.AddInt64(gp.correlation, m.correlation_id);
  details_.clear();
  AppendMemcpyDetails(m.bytes, MemoryKindName(m.src_kind), MemoryKindName(m.dst_kind), &details_);
  ev.AddString(gp.memcpy_details, details_);
  ++summary_.memcpys;
}

void Converter::OnMemset(const layout::MemsetRecord& m) {
  context_device_[m.context_id] = m.device_id;
  int64_t offset, duration;
  if (!Span(m.start, m.end, &offset, &duration)) return;
  GpuPlane& gp = Gpu(m.device_id);
  xplane::XEventBuilder ev = StreamLine(gp, m.stream_id, false)->AddEvent(
      gp.plane->GetOrCreateEventMetadata("Memset"), offset, duration);
  ev.AddInt64(gp.correlation, m.correlation_id);
  details_.clear();
  AppendMemsetDetails(m.bytes, MemoryKindName(m.memory_kind), &details_);
  ev.AddString(gp.memset_details, details_);
  ++summary_.memsets;
}

void Converter::OnOverhead(const layout::OverheadRecord& o) {
  int64_t offset, duration;
  if (!Span(o.start, o.end, &offset, &duration)) return;
  absl::string_view what;
  switch (o.overhead_kind) {
    case 1: what = "compiler"; break;
    case 1u << 16: what = "buffer flush"; break;
    case 2u << 16: what = "instrumentation"; break;
    case 3u << 16: what = "resource"; break;
    default: what = "other"; break;
  }
  HostLine(kOverheadLineId)->AddEvent(
      host_->GetOrCreateEventMetadata(absl::StrCat("CUPTI overhead: ", what)), offset, duration);
  ++summary_.overheads;
}

void Converter::OnRecord(const capture::ActivityRecord& r) {
  ++summary_.records;
  switch (r.kind) {
    case layout::kKindRuntime:
    case layout::kKindDriver: {
      layout::ApiRecord a;
      layout::CopyRecord(r.data, r.size, &a);
      OnApi(a);
      break;
    }
    case layout::kKindKernel:
    case layout::kKindConcurrentKernel: {
      layout::KernelRecord k;
      layout::CopyRecord(r.data, r.size, &k);
      OnKernel(k);
      break;
    }
    case layout::kKindMemcpy: {
      layout::MemcpyRecord m;
      layout::CopyRecord(r.data, r.size, &m);
      OnMemcpy(m);
      break;
    }
    case layout::kKindMemset: {
      layout::MemsetRecord m;
      layout::CopyRecord(r.data, r.size, &m);
      OnMemset(m);
      break;
    }
    case layout::kKindOverhead: {
      layout::OverheadRecord o;
      layout::CopyRecord(r.data, r.size, &o);
      OnOverhead(o);
      break;
    }
    case layout::kKindMarker:
      markers_.emplace_back();
      layout::CopyRecord(r.data, r.size, &markers_.back());
      break;
    case layout::kKindSynchronization:
      syncs_.emplace_back();
      layout::CopyRecord(r.data, r.size, &syncs_.back());
      break;
    case layout::kKindMemory2:
      memory_.emplace_back();
      layout::CopyRecord(r.data, r.size, &memory_.back());
      break;
    default:
      ++summary_.records_not_shown;
      break;
  }
}

void Converter::EmitMarkers() {
  std::unordered_map<uint32_t, const layout::MarkerRecord*> open;
  const std::string& pattern = cap_.header.step_pattern;
  int64_t next_step = 0;
  std::sort(markers_.begin(), markers_.end(),
            [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
  for (const layout::MarkerRecord& m : markers_) {
    if (m.flags & layout::kFlagMarkerStart) {
      open[m.id] = &m;
      continue;
    }
    const layout::MarkerRecord* start = &m;
    uint64_t end_ns = m.timestamp;
    if (m.flags & layout::kFlagMarkerEnd) {
      auto it = open.find(m.id);
      if (it == open.end()) {
        ++summary_.unmatched_markers;
        continue;
      }
      start = it->second;
      open.erase(it);
    } else if (!(m.flags & layout::kFlagMarkerInstantaneous)) {
      continue;
    }
    int64_t offset, duration;
    if (!Span(start->timestamp, end_ns, &offset, &duration)) continue;
    const std::string& name = cap_.String(start->name);
    xplane::XEventBuilder ev = HostLine(start->object_id.pt.thread_id)->AddEvent(
        host_->GetOrCreateEventMetadata(name.empty() ? "<unnamed range>" : name), offset,
        duration);
    ++summary_.nvtx_ranges;
    if (!pattern.empty() && capture::GlobMatch(pattern.c_str(), name.c_str())) {
      int64_t step = capture::StepNumberFromName(name.c_str());
      if (step < 0) step = next_step;
      next_step = step + 1;
      ev.AddInt64(s_is_root_, 1);
      ev.AddInt64(s_step_num_, step);
      ++summary_.step_roots;
    }
  }
  summary_.unmatched_markers += static_cast<int64_t>(open.size());
}

void Converter::EmitStepMarkers() {
  if (summary_.step_roots > 0) return;  // NVTX steps win.
  std::vector<const capture::Marker*> steps;
  for (const capture::Marker& m : cap_.markers) {
    if (m.kind == capture::MarkerKind::kStep) steps.push_back(&m);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto* a, const auto* b) { return a->cupti_ts_ns < b->cupti_ts_ns; });
  uint64_t last = cap_.trailer ? static_cast<uint64_t>(cap_.trailer->stop_cupti_ns) : 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    uint64_t start = static_cast<uint64_t>(steps[i]->cupti_ts_ns);
    uint64_t end = i + 1 < steps.size() ? static_cast<uint64_t>(steps[i + 1]->cupti_ts_ns) : last;
    int64_t offset, duration;
    if (end < start || !Span(start, end, &offset, &duration)) continue;
    xplane::XEventBuilder ev = HostLine(steps[i]->tid)->AddEvent(
        host_->GetOrCreateEventMetadata(absl::StrCat("ProfilerStep#", steps[i]->value)), offset,
        duration);
    ev.AddInt64(s_is_root_, 1);
    ev.AddInt64(s_step_num_, steps[i]->value);
    ++summary_.step_roots;
  }
}

void Converter::EmitSyncs() {
  static constexpr absl::string_view kNames[] = {"cudaSynchronize", "cuEventSynchronize",
                                                 "cuStreamWaitEvent", "cuStreamSynchronize",
                                                 "cuCtxSynchronize"};
  for (const layout::SynchronizationRecord& s : syncs_) {
    int64_t offset, duration;
    if (!Span(s.start, s.end, &offset, &duration)) continue;
    auto dev = context_device_.find(s.context_id);
    GpuPlane& gp = Gpu(dev == context_device_.end() ? 0 : dev->second);
    xplane::XLineBuilder* line = StreamLine(gp, s.stream_id, true);
    xplane::XEventBuilder ev = line->AddEvent(
        gp.sync_plane->GetOrCreateEventMetadata(kNames[s.type < 5 ? s.type : 0]), offset,
        duration);
    ev.AddInt64(gp.sync_correlation, s.correlation_id);
    ++summary_.syncs;
  }
}

void Converter::EmitMemory() {
  if (memory_.empty()) return;
  uint32_t alloc_md = host_->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName);
  uint32_t free_md = host_->GetOrCreateEventMetadata(xplane::kMemoryDeallocationEventName);
  uint32_t s_allocator = host_->GetOrCreateStatMetadata(StatType::kAllocatorName);
  uint32_t s_allocated = host_->GetOrCreateStatMetadata(StatType::kBytesAllocated);
  uint32_t s_reserved = host_->GetOrCreateStatMetadata(StatType::kBytesReserved);
  uint32_t s_available = host_->GetOrCreateStatMetadata(StatType::kBytesAvailable);
  uint32_t s_peak = host_->GetOrCreateStatMetadata(StatType::kPeakBytesInUse);
  uint32_t s_requested = host_->GetOrCreateStatMetadata(StatType::kRequestedBytes);
  uint32_t s_allocation = host_->GetOrCreateStatMetadata(StatType::kAllocationBytes);
  uint32_t s_addr = host_->GetOrCreateStatMetadata(StatType::kAddress);
  uint32_t s_region = host_->GetOrCreateStatMetadata(StatType::kRegionType);
  auto allocator_of = [](const layout::MemoryRecord& m) {
    if (m.memory_kind == layout::kMemoryPinned || m.memory_kind == layout::kMemoryPageable) {
      return std::string("cuda_host");
    }
    return absl::StrCat("GPU_", m.device_id, m.memory_kind == layout::kMemoryManaged
                                                 ? "_managed" : "_cuda");
  };
  std::stable_sort(memory_.begin(), memory_.end(),
                   [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
  struct Totals {
    int64_t in_use = 0, peak = 0;
  };
  std::map<std::string, Totals> totals;
  for (const layout::MemoryRecord& m : memory_) {
    int64_t offset, duration;
    if (!Span(m.timestamp, m.timestamp, &offset, &duration)) continue;
    const bool alloc = m.memory_operation_type == layout::kMemoryOpAllocation;
    if (!alloc && m.memory_operation_type != layout::kMemoryOpRelease) continue;
    std::string allocator = allocator_of(m);
    Totals& t = totals[allocator];
    const auto bytes = static_cast<int64_t>(m.bytes);
    t.in_use = std::max<int64_t>(0, t.in_use + (alloc ? bytes : -bytes));
    t.peak = std::max(t.peak, t.in_use);
    auto tid = correlation_tid_.find(m.correlation_id);
    xplane::XLineBuilder* line = HostLine(tid != correlation_tid_.end() ? tid->second
                                                                        : kMemoryLineId);
    xplane::XEventBuilder ev = line->AddEvent(alloc ? alloc_md : free_md, offset, 0);
    ev.AddString(s_allocator, allocator);
    ev.AddInt64(s_allocated, t.in_use);
    ev.AddInt64(s_reserved, 0);
    ev.AddInt64(s_available, 0);
    ev.AddInt64(s_peak, t.peak);
    ev.AddInt64(s_requested, bytes);
    ev.AddInt64(s_allocation, bytes);
    ev.AddInt64(s_addr, static_cast<int64_t>(m.address));
    ev.AddString(s_region, MemoryKindName(m.memory_kind));
    ++summary_.memory_events;
  }
}

void Converter::NameHostLines() {
  std::unordered_map<uint32_t, std::string> names;
  for (const capture::ThreadName& t : cap_.thread_names) names[t.tid] = t.name;
  for (auto& [id, line] : host_lines_) {
    if (id == kOverheadLineId) {
      line->SetName("CUPTI overhead");
    } else if (id == kMemoryLineId) {
      line->SetName("CUDA memory");
    } else {
      auto it = names.find(static_cast<uint32_t>(id));
      line->SetName(it != names.end() ? absl::StrCat(it->second, " (", id, ")")
                                      : absl::StrCat("thread ", id));
    }
  }
}

void Converter::AddWarnings() {
  const std::string& host = cap_.header.hostname;
  for (const capture::Message& m : cap_.messages) {
    std::string text = absl::StrCat(host, ": ", m.text);
    if (m.severity == capture::MessageSeverity::kError) {
      builder_.AddError(std::move(text));
    } else if (m.severity == capture::MessageSeverity::kWarning) {
      builder_.AddWarning(std::move(text));
    }
  }
  uint64_t dropped = 0, refused = 0, discarded = 0;
  for (const capture::DroppedRecords& d : cap_.drops) {
    dropped += d.dropped_by_cupti;
    refused += d.buffers_refused;
    discarded += d.discarded_bytes;
  }
  if (dropped > 0 || refused > 0) {
    builder_.AddWarning(absl::StrCat(
        "Detected GPU events dropped on ", host, ": ", dropped,
        " activity records dropped by CUPTI; ", refused,
        " activity buffer requests refused at the TBPROF_BUFFER_MB budget",
        discarded > 0 ? absl::StrCat(" (", discarded, " bytes discarded)") : ""));
  }
  const capture::ReadStats& rs = cap_.read_stats;
  if (rs.lost_anything()) {
    builder_.AddWarning(absl::StrCat(cap_.path, ": capture damaged: ", rs.corrupt_chunks,
                                     " corrupt chunk(s), ", rs.skipped_bytes, " bytes skipped, ",
                                     rs.truncated_bytes, " bytes truncated",
                                     rs.problems.empty() ? "" : "; first: " + rs.problems[0]));
  }
  if (!cap_.trailer) {
    builder_.AddWarning(absl::StrCat(cap_.path, ": the capture has no trailer (the process ended "
                                     "without closing it); the last buffers may be missing"));
  }
  if (summary_.records_bad_time > 0) {
    builder_.AddWarning(absl::StrCat(summary_.records_bad_time,
                                     " CUPTI records with zero, inverted or out-of-window "
                                     "timestamps were skipped"));
  }
  if (summary_.buffers_cut_short > 0) {
    builder_.AddWarning(absl::StrCat(summary_.buffers_cut_short,
                                     " activity buffers held records of unknown size; their "
                                     "remaining records were skipped"));
  }
  if (summary_.unmatched_markers > 0) {
    builder_.AddWarning(absl::StrCat(summary_.unmatched_markers,
                                     " NVTX range starts/ends without a partner were skipped"));
  }
  if (kernels_without_props_ > 0) {
    builder_.AddWarning(absl::StrCat(kernels_without_props_,
                                     " kernels ran on GPUs without recorded device properties: "
                                     "their occupancy (occ_pct) is not computed"));
  }
}

RawCaptureSummary Converter::Run() {
  const capture::CaptureHeader& h = cap_.header;
  summary_.hostname = h.hostname;
  base_cupti_ns_ = static_cast<uint64_t>(h.start_cupti_ns);
  epoch_base_ns_ = h.start_realtime_ns;
  if (h.start_cupti_ns > options_.window_slack_ns) {
    window_lo_ns_ = static_cast<uint64_t>(h.start_cupti_ns - options_.window_slack_ns);
  }
  if (cap_.trailer && cap_.trailer->stop_cupti_ns > 0) {
    const int64_t stop = cap_.trailer->stop_cupti_ns;  // Saturate: any value may be stored.
    window_hi_ns_ = stop > INT64_MAX - options_.window_slack_ns
                        ? UINT64_MAX
                        : static_cast<uint64_t>(stop + options_.window_slack_ns);
  }
  for (const capture::DeviceProperties& d : cap_.devices) props_.push_back(ToGpuProps(d));
  host_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  s_correlation_ = host_->GetOrCreateStatMetadata(StatType::kCorrelationId);
  s_is_root_ = host_->GetOrCreateStatMetadata(StatType::kIsRoot);
  s_step_num_ = host_->GetOrCreateStatMetadata(StatType::kStepNum);
  for (const GpuDeviceProperties& p : props_) Gpu(static_cast<uint32_t>(p.id));

  for (const capture::LoadedActivityBuffer& buf : cap_.buffers) {
    ++summary_.activity_buffers;
    capture::ActivityRecordIterator it(buf.records(), *buf.sizes);
    capture::ActivityRecord r;
    while (it.Next(&r)) OnRecord(r);
    if (!it.ok()) ++summary_.buffers_cut_short;
  }
  EmitMarkers();
  EmitStepMarkers();
  EmitSyncs();
  EmitMemory();
  NameHostLines();
  AddWarnings();
  xplane::FinalizeOptions finalize;
  finalize.epoch_ns_of_zero = 0;  // line timestamps are epoch ns
  summary_.events_moved = builder_.Finalize(finalize).events_moved;
  if (!h.hostname.empty()) builder_.AddHostname(h.hostname);
  return summary_;
}

}  // namespace

RawCaptureSummary ConvertLoadedRawCaptureToXSpace(const capture::RawCapture& capture,
                                                  const RawCaptureOptions& options,
                                                  xplane::XSpaceData* out) {
  return Converter(capture, options, out).Run();
}

absl::StatusOr<RawCaptureSummary> ConvertRawCaptureToXSpace(const std::string& path,
                                                            const RawCaptureOptions& options,
                                                            xplane::XSpaceData* out) {
  TBPROF_ASSIGN_OR_RETURN(capture::RawCapture capture, capture::LoadRawCapture(path));
  return ConvertLoadedRawCaptureToXSpace(capture, options, out);
}

}  // namespace tbprof::converters
