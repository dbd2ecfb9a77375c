#include "converters/rocprof/rocprof_to_xspace.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/common/gpu_memcpy_kinds.h"
#include "converters/common/gpu_occupancy.h"
#include "converters/common/gpu_plane_stats.h"
#include "converters/common/kernel_details.h"
#include "src/base/input_stream.h"
#include "src/base/resource_usage.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {
namespace {

using xplane::StatType;

// Device-plane line of memory copies, past any queue handle in practice.
constexpr int64_t kCopyLineId = int64_t{1} << 40;

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : a / b + (a % b != 0 ? 1 : 0); }

// Saturating arithmetic: the file's numbers are untrusted.
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_add_overflow(a, b, &out) ? (b > 0 ? INT64_MAX : INT64_MIN) : out;
}
int64_t SatSub(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_sub_overflow(a, b, &out) ? (b < 0 ? INT64_MAX : INT64_MIN) : out;
}
int64_t SatMul(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_mul_overflow(a, b, &out) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : out;
}

class Mapper {
 public:
  explicit Mapper(xplane::XSpaceData* out) : builder_(out) {}

  RocprofSummary Run(const RocprofProfile& profile);

 private:
  struct Gpu {
    int64_t ordinal = 0;
    xplane::XPlaneBuilder* plane = nullptr;
    uint32_t correlation = 0, kernel_details = 0, memcpy_details = 0;
    absl::flat_hash_map<int64_t, xplane::XLineBuilder*> lines;
    absl::flat_hash_map<uint64_t, uint32_t> kernel_metadata;  // kernel_id -> index
  };

  // ps offsets from base_ns_; false (and counted) for inverted or
  // out-of-range times.
  bool Span(int64_t start_ns, int64_t end_ns, int64_t* offset_ps, int64_t* duration_ps);
  Gpu& GpuOf(const RocprofAgent& agent);
  xplane::XLineBuilder* DeviceLine(Gpu& gpu, int64_t id);
  xplane::XLineBuilder* HostLine(uint64_t thread_id);
  void MapProcess(const RocprofProcess& p);
  void MapKernels(const RocprofProcess& p);
  void MapApiCalls(const RocprofProcess& p);
  void MapCopies(const RocprofProcess& p);
  void MapAllocations(const RocprofProcess& p);
  void AddWarnings();

  xplane::XSpaceBuilder builder_;
  RocprofSummary summary_;
  int64_t base_ns_ = 0;
  xplane::XPlaneBuilder* host_ = nullptr;
  uint32_t host_correlation_ = 0;
  absl::flat_hash_map<uint64_t, xplane::XLineBuilder*> host_lines_;
  std::map<int64_t, Gpu> gpus_;  // By ordinal.
  // Agents of the process being mapped, by handle.
  absl::flat_hash_map<uint64_t, const RocprofAgent*> agents_;
  absl::flat_hash_map<uint64_t, int64_t> gpu_ordinal_;  // Agent handle -> ordinal.
  std::string details_;
};

bool Mapper::Span(int64_t start_ns, int64_t end_ns, int64_t* offset_ps, int64_t* duration_ps) {
  const __int128 offset = (static_cast<__int128>(start_ns) - base_ns_) * 1000;
  const __int128 duration = (static_cast<__int128>(end_ns) - start_ns) * 1000;
  if (duration < 0 || duration > INT64_MAX || offset > INT64_MAX || offset < INT64_MIN) {
    ++summary_.records_bad_time;
    return false;
  }
  *offset_ps = static_cast<int64_t>(offset);
  *duration_ps = static_cast<int64_t>(duration);
  return true;
}

Mapper::Gpu& Mapper::GpuOf(const RocprofAgent& agent) {
  const int64_t ordinal = gpu_ordinal_.at(agent.handle);
  auto [it, inserted] = gpus_.try_emplace(ordinal);
  Gpu& gpu = it->second;
  if (inserted) {
    gpu.ordinal = ordinal;
    gpu.plane = builder_.GetOrCreatePlane(xplane::GpuPlaneName(ordinal));
    gpu.plane->SetId(ordinal);
    GpuDeviceProperties props;
    props.id = ordinal;
    props.name = agent.product_name.empty() ? agent.name : agent.product_name;
    props.vendor = GpuVendor::kAmd;
    props.num_sms = static_cast<int>(agent.cu_count);
    props.warp_size = static_cast<int>(agent.wave_front_size);
    props.max_threads_per_block = static_cast<int>(agent.workgroup_max_size);
    props.shared_mem_per_sm_bytes = SatMul(agent.lds_size_in_kb, 1024);
    props.total_global_mem_bytes = agent.memory_bytes;
    props.clock_rate_khz = SatMul(agent.max_engine_clk_fcompute_mhz, 1000);
    SetGpuPlaneDeviceStats(props, gpu.plane);
    gpu.correlation = gpu.plane->GetOrCreateStatMetadata(StatType::kCorrelationId);
    gpu.kernel_details = gpu.plane->GetOrCreateStatMetadata(StatType::kKernelDetails);
    gpu.memcpy_details = gpu.plane->GetOrCreateStatMetadata(StatType::kMemcpyDetails);
    ++summary_.gpus;
  }
  return gpu;
}

xplane::XLineBuilder* Mapper::DeviceLine(Gpu& gpu, int64_t id) {
  auto [it, inserted] = gpu.lines.try_emplace(id, nullptr);
  if (inserted) {
    it->second = gpu.plane->GetOrCreateLine(id);
    it->second->SetTimestampNs(base_ns_);
    it->second->SetName(id == kCopyLineId ? std::string("Memory copies")
                                          : absl::StrCat("Queue #", id));
  }
  return it->second;
}

xplane::XLineBuilder* Mapper::HostLine(uint64_t thread_id) {
  auto [it, inserted] = host_lines_.try_emplace(thread_id, nullptr);
  if (inserted) {
    it->second = host_->GetOrCreateLine(static_cast<int64_t>(thread_id & INT64_MAX));
    it->second->SetTimestampNs(base_ns_);
    it->second->SetName(absl::StrCat("Thread ", thread_id));
  }
  return it->second;
}

void Mapper::MapKernels(const RocprofProcess& p) {
  for (const RocprofDispatch& d : p.dispatches) {
    auto agent = agents_.find(d.agent);
    if (agent == agents_.end() || agent->second->type != kRocprofAgentGpu) {
      ++summary_.kernels_unknown_agent;
      continue;
    }
    int64_t offset, duration;
    if (!Span(d.start_ns, d.end_ns, &offset, &duration)) continue;
    Gpu& gpu = GpuOf(*agent->second);
    auto symbol = p.kernel_symbols.find(d.kernel_id);
    const RocprofKernelSymbol* s = symbol == p.kernel_symbols.end() ? nullptr : &symbol->second;
    auto [md, inserted] = gpu.kernel_metadata.try_emplace(d.kernel_id, 0);
    if (inserted) {
      md->second = gpu.plane->GetOrCreateEventMetadata(
          s != nullptr && !s->name.empty()
              ? s->name
              : absl::StrCat("kernel_id ", d.kernel_id, " (no symbol)"));
    }
    if (s == nullptr) ++summary_.kernels_unknown_symbol;
    xplane::XEventBuilder ev = DeviceLine(gpu, static_cast<int64_t>(d.queue & INT64_MAX))
                                   ->AddEvent(md->second, offset, duration);
    ev.AddInt64(gpu.correlation, static_cast<int64_t>(d.correlation & INT64_MAX));
    KernelDetails k;
    const int64_t static_lds = s != nullptr ? s->group_segment_size : 0;
    k.registers_per_thread = s != nullptr ? SatAdd(s->arch_vgpr_count, s->accum_vgpr_count) : 0;
    k.static_shared_mem_bytes = static_lds;
    k.dynamic_shared_mem_bytes = std::max<int64_t>(0, SatSub(d.lds_bytes, static_lds));
    for (int i = 0; i < 3; ++i) {
      k.block[i] = d.workgroup[i];
      k.grid[i] = CeilDiv(d.grid[i], d.workgroup[i]);
    }
    details_.clear();
    AppendKernelDetails(k, &details_);
    absl::StrAppend(&details_, " sgpr:", s != nullptr ? s->sgpr_count : 0,
                    " agpr:", s != nullptr ? s->accum_vgpr_count : 0,
                    " scratch:", d.scratch_bytes);
    ev.AddRef(gpu.kernel_details, details_);
    ++summary_.kernels;
  }
}

void Mapper::MapApiCalls(const RocprofProcess& p) {
  for (const RocprofApiCall& c : p.api_calls) {
    int64_t offset, duration;
    if (!Span(c.start_ns, c.end_ns, &offset, &duration)) continue;
    const absl::string_view kind = p.KindName(c.kind);
    const bool marker = absl::StartsWith(kind, "MARKER_");
    std::string name(p.OperationName(c.kind, c.operation));
    if (marker) {
      auto message = p.marker_messages.find(c.correlation);
      if (message != p.marker_messages.end() && !message->second.empty()) name = message->second;
    }
    if (name.empty()) {
      name = absl::StrCat(kind.empty() ? absl::StrCat("kind ", c.kind) : std::string(kind),
                          " operation ", c.operation);
    }
    xplane::XEventBuilder ev =
        HostLine(c.thread_id)->AddEvent(host_->GetOrCreateEventMetadata(name), offset, duration);
    ev.AddInt64(host_correlation_, static_cast<int64_t>(c.correlation & INT64_MAX));
    ++(marker ? summary_.markers : summary_.api_events);
  }
}

void Mapper::MapCopies(const RocprofProcess& p) {
  auto gpu_agent = [&](uint64_t handle) -> const RocprofAgent* {
    auto it = agents_.find(handle);
    return it != agents_.end() && it->second->type == kRocprofAgentGpu ? it->second : nullptr;
  };
  for (const RocprofMemoryCopy& c : p.copies) {
    const RocprofAgent* src = gpu_agent(c.src_agent);
    const RocprofAgent* dst = gpu_agent(c.dst_agent);
    MemcpyDirection direction;
    const RocprofAgent* on = src != nullptr ? src : dst;
    if (src == nullptr && dst == nullptr) {
      ++summary_.copies_without_gpu;
      continue;
    } else if (src == nullptr) {
      direction = MemcpyDirection::kHToD;
    } else if (dst == nullptr) {
      direction = MemcpyDirection::kDToH;
    } else {
      direction = src->handle == dst->handle ? MemcpyDirection::kDToD : MemcpyDirection::kPToP;
    }
    int64_t offset, duration;
    if (!Span(c.start_ns, c.end_ns, &offset, &duration)) continue;
    Gpu& gpu = GpuOf(*on);
    xplane::XEventBuilder ev = DeviceLine(gpu, kCopyLineId)->AddEvent(
        gpu.plane->GetOrCreateEventMetadata(MemcpyEventName(direction)), offset, duration);
    ev.AddInt64(gpu.correlation, static_cast<int64_t>(c.correlation & INT64_MAX));
    details_.clear();
    AppendMemcpyDetails(c.bytes, src != nullptr ? "device" : "host",
                        dst != nullptr ? "device" : "host", &details_);
    ev.AddString(gpu.memcpy_details, details_);
    ++summary_.memory_copies;
  }
}

void Mapper::MapAllocations(const RocprofProcess& p) {
  if (p.allocations.empty()) return;
  const uint32_t alloc_md = host_->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName);
  const uint32_t free_md = host_->GetOrCreateEventMetadata(xplane::kMemoryDeallocationEventName);
  const uint32_t s_allocator = host_->GetOrCreateStatMetadata(StatType::kAllocatorName);
  const uint32_t s_allocated = host_->GetOrCreateStatMetadata(StatType::kBytesAllocated);
  const uint32_t s_reserved = host_->GetOrCreateStatMetadata(StatType::kBytesReserved);
  const uint32_t s_available = host_->GetOrCreateStatMetadata(StatType::kBytesAvailable);
  const uint32_t s_peak = host_->GetOrCreateStatMetadata(StatType::kPeakBytesInUse);
  const uint32_t s_requested = host_->GetOrCreateStatMetadata(StatType::kRequestedBytes);
  const uint32_t s_allocation = host_->GetOrCreateStatMetadata(StatType::kAllocationBytes);
  const uint32_t s_addr = host_->GetOrCreateStatMetadata(StatType::kAddress);
  std::vector<size_t> order(p.allocations.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return p.allocations[a].start_ns < p.allocations[b].start_ns;
  });
  struct Totals {
    int64_t in_use = 0, peak = 0;
    absl::flat_hash_map<uint64_t, int64_t> live;  // address -> bytes
  };
  std::map<std::string, Totals> totals;
  for (size_t i : order) {
    const RocprofMemoryAllocation& a = p.allocations[i];
    const absl::string_view op = p.OperationName(a.kind, a.operation);
    const bool is_free = op.empty() ? (a.operation == 3 || a.operation == 4)
                                    : absl::StrContains(op, "FREE");
    const bool is_alloc = op.empty() ? (a.operation == 1 || a.operation == 2)
                                     : absl::StrContains(op, "ALLOCATE");
    if (!is_free && !is_alloc) continue;
    int64_t offset, duration;
    if (!Span(a.start_ns, a.end_ns, &offset, &duration)) continue;
    auto gpu = gpu_ordinal_.find(a.agent);
    std::string allocator =
        gpu != gpu_ordinal_.end() ? absl::StrCat("GPU_", gpu->second, "_hip") : "hip_host";
    Totals& t = totals[allocator];
    int64_t bytes = static_cast<int64_t>(std::min<uint64_t>(a.bytes, INT64_MAX));
    if (is_alloc) {
      t.live[a.address] = bytes;
      t.in_use = SatAdd(t.in_use, bytes);
    } else {
      auto live = t.live.find(a.address);
      if (live == t.live.end()) {
        ++summary_.frees_unmatched;
        bytes = 0;
      } else {
        bytes = live->second;
        t.live.erase(live);
        t.in_use = SatSub(t.in_use, bytes);
      }
    }
    t.peak = std::max(t.peak, t.in_use);
    xplane::XEventBuilder ev = HostLine(a.thread_id)->AddEvent(is_alloc ? alloc_md : free_md,
                                                               offset, 0);
    ev.AddString(s_allocator, allocator);
    ev.AddInt64(s_allocated, t.in_use);
    ev.AddInt64(s_reserved, 0);
    ev.AddInt64(s_available, 0);
    ev.AddInt64(s_peak, t.peak);
    ev.AddInt64(s_requested, bytes);
    ev.AddInt64(s_allocation, bytes);
    ev.AddInt64(s_addr, static_cast<int64_t>(a.address & INT64_MAX));
    ++summary_.memory_events;
  }
}

void Mapper::MapProcess(const RocprofProcess& p) {
  agents_.clear();
  gpu_ordinal_.clear();
  // kernel_ids are per process.
  for (auto& [ordinal, gpu] : gpus_) gpu.kernel_metadata.clear();
  int64_t next_ordinal = 0;
  for (const RocprofAgent& a : p.agents) {
    agents_[a.handle] = &a;
    if (a.type != kRocprofAgentGpu) continue;
    const int64_t ordinal = a.gpu_index >= 0              ? a.gpu_index
                            : a.logical_node_type_id >= 0 ? a.logical_node_type_id
                                                          : next_ordinal;
    next_ordinal = std::max(next_ordinal, SatAdd(ordinal, 1));
    gpu_ordinal_[a.handle] = ordinal;
    GpuOf(a);
  }
  MapKernels(p);
  MapApiCalls(p);
  MapCopies(p);
  MapAllocations(p);
  summary_.records_not_shown += p.records_skipped;
}

void Mapper::AddWarnings() {
  auto warn = [&](int64_t count, absl::string_view what) {
    if (count > 0) builder_.AddWarning(absl::StrCat("rocprofv3 JSON: ", count, " ", what));
  };
  warn(summary_.records_bad_time,
       "records with an end before their start (or times out of range) were skipped");
  warn(summary_.kernels_unknown_agent,
       "kernel dispatches on agents that are not GPU agents of the file were skipped");
  warn(summary_.kernels_unknown_symbol,
       "kernel dispatches name a kernel_id missing from kernel_symbols (shown as "
       "\"kernel_id N (no symbol)\")");
  warn(summary_.copies_without_gpu, "memory copies between CPU agents were skipped");
  warn(summary_.frees_unmatched,
       "frees of addresses with no allocation in the file were recorded with 0 bytes");
  warn(summary_.records_not_shown,
       "records of kinds with no XSpace form (scratch memory, PC samples, ...) were skipped");
}

RocprofSummary Mapper::Run(const RocprofProfile& profile) {
  // Line timestamps: the earliest start of any record, so that offsets are
  // small; records before it cannot exist.
  bool any = false;
  base_ns_ = 0;
  auto consider = [&](int64_t start_ns) {
    if (!any || start_ns < base_ns_) base_ns_ = start_ns;
    any = true;
  };
  for (const RocprofProcess& p : profile.processes) {
    for (const RocprofDispatch& d : p.dispatches) consider(d.start_ns);
    for (const RocprofApiCall& c : p.api_calls) consider(c.start_ns);
    for (const RocprofMemoryCopy& c : p.copies) consider(c.start_ns);
    for (const RocprofMemoryAllocation& a : p.allocations) consider(a.start_ns);
  }
  host_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host_correlation_ = host_->GetOrCreateStatMetadata(StatType::kCorrelationId);
  for (const RocprofProcess& p : profile.processes) {
    ++summary_.processes;
    if (summary_.hostname.empty()) summary_.hostname = p.hostname;
    MapProcess(p);
  }
  AddWarnings();
  xplane::FinalizeOptions finalize;
  finalize.epoch_ns_of_zero = 0;  // Line timestamps are the node's clock in ns.
  summary_.events_moved = builder_.Finalize(finalize).events_moved;
  if (!summary_.hostname.empty()) builder_.AddHostname(summary_.hostname);
  return summary_;
}

// Reads the whole input (after gzip) into `buffer`, followed by zeroed
// padding; returns the text's length.
absl::StatusOr<size_t> ReadPadded(const std::string& path, const RocprofOptions& options,
                                  std::string* buffer) {
  InputStreamOptions stream_options;
  stream_options.max_inflated_bytes = options.max_inflated_bytes;
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream,
                          OpenInputStream(path, stream_options));
  const uint64_t file_size = stream->file_size();
  const size_t chunk = size_t{4} << 20;
  buffer->clear();
  // Reserving is cheap (untouched pages cost nothing); JSON deflates 10-30x.
  buffer->reserve(static_cast<size_t>(std::min<uint64_t>(
      stream->is_gzip() ? file_size * 32 : file_size, uint64_t{1} << 30)) + chunk);
  size_t filled = 0;
  for (;;) {
    buffer->resize(filled + chunk);
    TBPROF_ASSIGN_OR_RETURN(size_t n, stream->Read(&(*buffer)[filled], chunk));
    if (n == 0) break;
    filled += n;
    if (options.progress) options.progress(stream->file_bytes_consumed(), file_size);
    if (filled % (size_t{64} << 20) < n) {
      TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(options.max_memory_bytes, path));
    }
  }
  buffer->resize(filled + kRocprofJsonPadding);
  std::fill(buffer->begin() + static_cast<std::ptrdiff_t>(filled), buffer->end(), '\0');
  return filled;
}

}  // namespace

RocprofSummary MapRocprofToXSpace(const RocprofProfile& profile, xplane::XSpaceData* out) {
  return Mapper(out).Run(profile);
}

absl::StatusOr<RocprofSummary> ConvertRocprofJsonTextToXSpace(absl::string_view text,
                                                              absl::string_view source,
                                                              xplane::XSpaceData* out) {
  std::string padded(text.size() + kRocprofJsonPadding, '\0');
  std::copy(text.begin(), text.end(), padded.begin());
  TBPROF_ASSIGN_OR_RETURN(
      RocprofProfile profile,
      ParseRocprofJson(absl::string_view(padded.data(), text.size()), padded.size(), source));
  return MapRocprofToXSpace(profile, out);
}

absl::StatusOr<RocprofSummary> ConvertRocprofToXSpace(const std::string& path,
                                                      const RocprofOptions& options,
                                                      xplane::XSpaceData* out) {
  std::string buffer;
  TBPROF_ASSIGN_OR_RETURN(size_t length, ReadPadded(path, options, &buffer));
  TBPROF_ASSIGN_OR_RETURN(
      RocprofProfile profile,
      ParseRocprofJson(absl::string_view(buffer.data(), length), buffer.size(), path));
  std::string().swap(buffer);  // The profile holds what is needed.
  TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(options.max_memory_bytes, path));
  return MapRocprofToXSpace(profile, out);
}

}  // namespace tbprof::converters
