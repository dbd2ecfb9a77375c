// The GPU tables of an Nsight Systems export: devices, kernels, memcpys,
// memsets, synchronizations and CUDA graph launches (nsys_to_xspace.h).
#include <algorithm>
#include <array>
#include <cxxabi.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "converters/common/gpu_memcpy_kinds.h"
#include "converters/common/gpu_plane_stats.h"
#include "converters/common/kernel_details.h"
#include "converters/nsys/nsys_converter.h"
#include "converters/nsys/nsys_names.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters::nsys {
namespace {

using xplane::StatType;

// Line kinds of GpuLine(): the stream itself, its syncs, its graph launches.
constexpr int kStreamLine = 0, kSyncLine = 1, kGraphLine = 2;
constexpr int64_t kLineKindBase = int64_t{1} << 32;

std::string Demangle(absl::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  int status = 0;
  std::string copy(name);
  char* out = abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && out != nullptr) ? std::string(out) : copy;
  std::free(out);
  return result;
}

}  // namespace

absl::Status NsysConverter::ReadGpus() {
  const absl::string_view table = "TARGET_INFO_GPU";
  if (!db_->HasColumn(table, "id")) return absl::OkStatus();
  // Column name -> field; columns an export lacks read as NULL (0 = unknown).
  const std::vector<std::string> columns = {
      "id",
      Col(table, "name", ""),
      Col(table, "computeMajor", "no occupancy"),
      Col(table, "computeMinor", "no occupancy"),
      Col(table, "smCount", "no occupancy"),
      Col(table, "maxThreadsPerBlock", "no occupancy"),
      Col(table, "maxWarpsPerSm", "no occupancy"),
      Col(table, "threadsPerWarp", "no occupancy"),
      Col(table, "maxRegistersPerBlock", "no occupancy"),
      Col(table, "maxRegistersPerSm", "no occupancy"),
      Col(table, "maxShmemPerBlock", "no occupancy"),
      Col(table, "maxShmemPerSm", "no occupancy"),
      Col(table, "maxShmemPerBlockOptin", ""),
      Col(table, "totalMemory", ""),
      Col(table, "clockRate", ""),
      Col(table, "memoryBandwidth", ""),
  };
  return ForEachRow(table, columns, [&](const NsysQuery& q) {
    GpuDeviceProperties p;
    p.id = q.Int(0);
    p.name = std::string(q.Text(1));
    p.vendor = GpuVendor::kNvidia;  // CUPTI traces NVIDIA GPUs only.
    p.compute_major = static_cast<int>(q.Int(2));
    p.compute_minor = static_cast<int>(q.Int(3));
    p.num_sms = static_cast<int>(q.Int(4));
    p.max_threads_per_block = static_cast<int>(q.Int(5));
    p.warp_size = static_cast<int>(q.Int(7));
    p.max_threads_per_sm = static_cast<int>(q.Int(6) * q.Int(7));
    p.regs_per_block = static_cast<int>(q.Int(8));
    p.regs_per_sm = static_cast<int>(q.Int(9));
    p.shared_mem_per_block_bytes = q.Int(10);
    p.shared_mem_per_sm_bytes = q.Int(11);
    p.shared_mem_per_block_optin_bytes = q.Int(12);
    p.total_global_mem_bytes = q.Int(13);
    p.clock_rate_khz = q.Int(14) / 1000;  // Hz in the export.
    p.memory_bandwidth_bytes_per_s = q.Int(15);
    for (const GpuDeviceProperties& known : props_) {
      if (known.id == p.id) return;  // One row per device (first VM wins).
    }
    props_.push_back(std::move(p));
  });
}

NsysConverter::GpuPlane& NsysConverter::Gpu(int64_t device) {
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
    gp.graph_id = gp.plane->GetOrCreateStatMetadata(StatType::kCudaGraphId);
    gp.tf_op = gp.plane->GetOrCreateStatMetadata(StatType::kTfOp);
  }
  return gp;
}

xplane::XLineBuilder* NsysConverter::GpuLine(GpuPlane& gp, int64_t stream, int kind) {
  const int64_t id = kind * kLineKindBase + (stream & (kLineKindBase - 1));
  auto [it, inserted] = gp.lines.try_emplace(id, nullptr);
  if (!inserted) return it->second;
  xplane::XPlaneBuilder* plane = gp.plane;
  if (kind != kStreamLine) {
    // Not device work: on the annotation plane, where the plugin's step and
    // kernel analyses do not count them (xplane::GpuAnnotationPlaneName).
    if (gp.annotations == nullptr) {
      gp.annotations = builder_.GetOrCreatePlane(xplane::GpuAnnotationPlaneName(gp.device));
      gp.annotations->SetId(xplane::kGpuAnnotationPlaneIdBase + gp.device);
      gp.a_correlation = gp.annotations->GetOrCreateStatMetadata(StatType::kCorrelationId);
      gp.a_graph_id = gp.annotations->GetOrCreateStatMetadata(StatType::kCudaGraphId);
    }
    plane = gp.annotations;
  }
  it->second = plane->GetOrCreateLine(id);
  it->second->SetTimestampNs(epoch_ns_);
  it->second->SetName(kind == kStreamLine ? absl::StrCat("Stream #", stream)
                      : kind == kSyncLine ? absl::StrCat("CUDA sync (stream ", stream, ")")
                                          : absl::StrCat("CUDA graph (stream ", stream, ")"));
  return it->second;
}

void NsysConverter::AddOp(GpuPlane& gp, int64_t pid, const NsysQuery& q, int corr_col,
                          xplane::XEventBuilder* ev) {
  const int64_t correlation = q.Int(corr_col);
  if (correlation == 0 && q.IsNull(corr_col)) return;
  ev->AddInt64(gp.correlation, correlation);
  if (launch_op_.empty()) return;
  auto op = launch_op_.find(CorrelationKey(pid, correlation));
  if (op != launch_op_.end()) {
    auto [md, inserted] = gp.op_metadata.try_emplace(op->second, 0);
    if (inserted) md->second = gp.plane->GetOrCreateStatMetadataForName(op->second);
    ev->AddRefToMetadata(gp.tf_op, md->second);
  }
}

absl::Status NsysConverter::ReadKernels() {
  const absl::string_view t = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!db_->HasTable(t)) return absl::OkStatus();
  if (!db_->HasColumn(t, "start") || !db_->HasColumn(t, "end") ||
      !db_->HasColumn(t, "deviceId")) {
    skipped_tables_.push_back(absl::StrCat(t, " (no start/end/deviceId)"));
    return absl::OkStatus();
  }
  const bool demangled = db_->HasColumn(t, "demangledName");
  const std::vector<std::string> columns = {
      "start", "end", "deviceId",
      Col(t, "streamId", "all kernels on stream 0"),
      Col(t, "correlationId", "no launch-to-kernel flows"),
      Col(t, "globalPid", ""),
      demangled ? "\"demangledName\"" : Col(t, "shortName", "kernels unnamed"),
      Col(t, "mangledName", ""),
      Col(t, "registersPerThread", "kernel_details incomplete"),
      Col(t, "gridX", "kernel_details incomplete"), Col(t, "gridY", ""), Col(t, "gridZ", ""),
      Col(t, "blockX", "kernel_details incomplete"), Col(t, "blockY", ""), Col(t, "blockZ", ""),
      Col(t, "staticSharedMemory", "kernel_details incomplete"),
      Col(t, "dynamicSharedMemory", "kernel_details incomplete"),
      Col(t, "graphId", "")};
  std::array<int64_t, 9> config;
  int64_t last_pid = -1, *pid_kernels = nullptr;
  return ForEachRow(t, columns, [&](const NsysQuery& q) {
    const int64_t pid = PidOfGlobalId(q.Int(5));
    if (pid != last_pid) {
      pid_kernels = &pid_kernels_[pid];
      last_pid = pid;
    }
    ++*pid_kernels;
    if (options_.pid >= 0 && !q.IsNull(5) && !KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    SeePid(pid);
    GpuPlane& gp = Gpu(q.Int(2));
    int64_t name_id = q.Int(6);
    const bool mangled_only = name_id == 0 && q.IsNull(6);
    if (mangled_only) name_id = -1 - q.Int(7);
    auto [md, inserted] = gp.kernel_metadata.try_emplace(name_id, 0);
    if (inserted) {
      std::string name = Demangle(String(mangled_only ? q.Int(7) : q.Int(6)));
      md->second = gp.plane->GetOrCreateEventMetadata(name.empty() ? "<unnamed kernel>" : name);
    }
    xplane::XEventBuilder ev = GpuLine(gp, q.Int(3), kStreamLine)->AddEvent(md->second, offset,
                                                                          duration);
    AddOp(gp, pid, q, 4, &ev);
    for (int i = 0; i < 9; ++i) config[i] = q.Int(8 + i);
    for (int i = 1; i <= 6; ++i) {
      if (config[i] == 0) config[i] = 1;  // Missing (NULL) dimensions are 1.
    }
    KernelDetails d;
    d.registers_per_thread = config[0];
    d.grid[0] = config[1], d.grid[1] = config[2], d.grid[2] = config[3];
    d.block[0] = config[4], d.block[1] = config[5], d.block[2] = config[6];
    d.static_shared_mem_bytes = config[7];
    d.dynamic_shared_mem_bytes = config[8];
    if (gp.props != nullptr && HasOccupancyInputs(*gp.props)) {
      KernelLaunchConfig launch;
      launch.registers_per_thread = static_cast<int>(config[0]);
      launch.grid_x = static_cast<int>(config[1]);
      launch.grid_y = static_cast<int>(config[2]);
      launch.grid_z = static_cast<int>(config[3]);
      launch.block_x = static_cast<int>(config[4]);
      launch.block_y = static_cast<int>(config[5]);
      launch.block_z = static_cast<int>(config[6]);
      launch.static_shared_mem_bytes = config[7];
      launch.dynamic_shared_mem_bytes = config[8];
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
    auto [details, new_details] = gp.details_metadata.try_emplace(details_, 0);
    if (new_details) details->second = gp.plane->GetOrCreateStatMetadata(details_);
    ev.AddRefToMetadata(gp.kernel_details, details->second);
    if (q.Int(17) != 0) ev.AddInt64(gp.graph_id, q.Int(17));
    ++summary_.kernels;
  });
}

absl::Status NsysConverter::ReadMemcpys() {
  const absl::string_view t = "CUPTI_ACTIVITY_KIND_MEMCPY";
  if (!db_->HasTable(t)) return absl::OkStatus();
  if (!db_->HasColumn(t, "start") || !db_->HasColumn(t, "end") ||
      !db_->HasColumn(t, "deviceId")) {
    skipped_tables_.push_back(absl::StrCat(t, " (no start/end/deviceId)"));
    return absl::OkStatus();
  }
  const std::vector<std::string> columns = {
      "start", "end", "deviceId",
      Col(t, "streamId", "all copies on stream 0"),
      Col(t, "correlationId", "no launch-to-copy flows"),
      Col(t, "globalPid", ""),
      Col(t, "bytes", "copies of 0 bytes"),
      Col(t, "copyKind", "copies named MemcpyOther"),
      Col(t, "srcKind", ""), Col(t, "dstKind", ""), Col(t, "graphId", "")};
  return ForEachRow(t, columns, [&](const NsysQuery& q) {
    const int64_t pid = PidOfGlobalId(q.Int(5));
    if (options_.pid >= 0 && !q.IsNull(5) && !KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    SeePid(pid);
    GpuPlane& gp = Gpu(q.Int(2));
    xplane::XEventBuilder ev = GpuLine(gp, q.Int(3), kStreamLine)->AddEvent(
        gp.plane->GetOrCreateEventMetadata(MemcpyEventName(MemcpyDirectionOfCopyKind(q.Int(7)))),
        offset, duration);
    AddOp(gp, pid, q, 4, &ev);
    details_.clear();
    AppendMemcpyDetails(static_cast<uint64_t>(std::max<int64_t>(0, q.Int(6))),
                        q.IsNull(8) ? "" : MemoryKindName(q.Int(8)),
                        q.IsNull(9) ? "" : MemoryKindName(q.Int(9)), &details_);
    ev.AddString(gp.memcpy_details, details_);
    ++summary_.memcpys;
  });
}

absl::Status NsysConverter::ReadMemsets() {
  const absl::string_view t = "CUPTI_ACTIVITY_KIND_MEMSET";
  if (!db_->HasTable(t)) return absl::OkStatus();
  if (!db_->HasColumn(t, "start") || !db_->HasColumn(t, "end") ||
      !db_->HasColumn(t, "deviceId")) {
    skipped_tables_.push_back(absl::StrCat(t, " (no start/end/deviceId)"));
    return absl::OkStatus();
  }
  const std::vector<std::string> columns = {
      "start", "end", "deviceId",
      Col(t, "streamId", "all memsets on stream 0"),
      Col(t, "correlationId", "no launch-to-memset flows"),
      Col(t, "globalPid", ""),
      Col(t, "bytes", "memsets of 0 bytes"),
      Col(t, "memKind", "")};
  return ForEachRow(t, columns, [&](const NsysQuery& q) {
    const int64_t pid = PidOfGlobalId(q.Int(5));
    if (options_.pid >= 0 && !q.IsNull(5) && !KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    SeePid(pid);
    GpuPlane& gp = Gpu(q.Int(2));
    xplane::XEventBuilder ev = GpuLine(gp, q.Int(3), kStreamLine)->AddEvent(
        gp.plane->GetOrCreateEventMetadata("Memset"), offset, duration);
    AddOp(gp, pid, q, 4, &ev);
    details_.clear();
    AppendMemsetDetails(static_cast<uint64_t>(std::max<int64_t>(0, q.Int(6))),
                        q.IsNull(7) ? "" : MemoryKindName(q.Int(7)), &details_);
    ev.AddString(gp.memset_details, details_);
    ++summary_.memsets;
  });
}

template <typename Fn>
absl::Status NsysConverter::ReadAnnotationTable(absl::string_view t, absl::string_view extra,
                                                int line_kind, Fn&& annotate) {
  if (!db_->HasTable(t)) return absl::OkStatus();
  if (!db_->HasColumn(t, "start") || !db_->HasColumn(t, "end") ||
      !db_->HasColumn(t, "deviceId")) {
    skipped_tables_.push_back(absl::StrCat(t, " (no start/end/deviceId)"));
    return absl::OkStatus();
  }
  const std::vector<std::string> columns = {
      "start", "end", "deviceId", Col(t, "streamId", ""), Col(t, "correlationId", ""),
      Col(t, "globalPid", ""), Col(t, extra, "")};
  return ForEachRow(t, columns, [&](const NsysQuery& q) {
    const int64_t pid = PidOfGlobalId(q.Int(5));
    if (options_.pid >= 0 && !q.IsNull(5) && !KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    GpuPlane& gp = Gpu(q.Int(2));
    xplane::XLineBuilder* line = GpuLine(gp, q.Int(3), line_kind);
    const std::optional<int64_t> value =
        q.IsNull(6) ? std::nullopt : std::optional<int64_t>(q.Int(6));
    annotate(gp, line, offset, duration, value, q.IsNull(4) ? std::nullopt
                                                            : std::optional<int64_t>(q.Int(4)));
  });
}

absl::Status NsysConverter::ReadSyncs() {
  return ReadAnnotationTable(
      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "syncType", kSyncLine,
      [&](GpuPlane& gp, xplane::XLineBuilder* line, int64_t offset, int64_t duration,
          std::optional<int64_t> sync_type, std::optional<int64_t> correlation) {
        xplane::XEventBuilder ev = line->AddEvent(
            gp.annotations->GetOrCreateEventMetadata(SyncTypeName(sync_type.value_or(0))),
            offset, duration);
        if (correlation) ev.AddInt64(gp.a_correlation, *correlation);
        ++summary_.syncs;
      });
}

absl::Status NsysConverter::ReadGraphTrace() {
  return ReadAnnotationTable(
      "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "graphId", kGraphLine,
      [&](GpuPlane& gp, xplane::XLineBuilder* line, int64_t offset, int64_t duration,
          std::optional<int64_t> graph_id, std::optional<int64_t> correlation) {
        xplane::XEventBuilder ev = line->AddEvent(
            gp.annotations->GetOrCreateEventMetadata(
                graph_id ? absl::StrCat("CUDA graph ", *graph_id) : std::string("CUDA graph")),
            offset, duration);
        if (correlation) ev.AddInt64(gp.a_correlation, *correlation);
        if (graph_id) ev.AddInt64(gp.a_graph_id, *graph_id);
        ++summary_.graph_launches;
      });
}

}  // namespace tbprof::converters::nsys
