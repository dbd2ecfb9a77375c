// TraceEventMapper, device side: GPU events (buffered while reading, emitted
// by Finish()), deviceProperties and the other top-level values.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/json_number.h"
#include "converters/chrome_json/trace_event_mapper.h"
#include "converters/common/utf8.h"
#include "converters/common/gpu_memcpy_kinds.h"
#include "converters/common/gpu_plane_stats.h"
#include "converters/common/kernel_details.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

using json::RawTraceEvent;
using json::IntOr;
using json::IsNumberOrString;
using json::Token;
using json::ValueKind;
using xplane::StatType;

namespace {

constexpr int64_t kAnnotationLineBase = 0x10000000;
constexpr int64_t kSyncLineBase = 0x20000000;

}  // namespace

void TraceEventMapper::BufferGpuEvent(const RawTraceEvent& e, Kind kind, int64_t ts_ns,
                                      int64_t dur_ns) {
  PendingGpuEvent g;
  g.ts_ns = ts_ns;
  g.dur_ns = dur_ns;
  g.kind = kind;
  const json::TraceEventArgs& a = e.args;
  // Kineto GPU events carry args.device; their pid is the device too.
  g.device =
      static_cast<int32_t>(std::clamp<int64_t>(IntOr(a.device, IntOr(e.pid, 0)), 0, INT32_MAX));
  int64_t stream = IntOr(a.stream, kNone);
  if (stream == kNone) {
    stream = IntOr(e.tid, kNone);
    int64_t parsed;
    if (stream == kNone && e.tid.kind == ValueKind::kString &&
        absl::StartsWith(e.tid.text, "stream ") &&
        absl::SimpleAtoi(e.tid.text.substr(7), &parsed)) {
      stream = parsed;
    }
    if (stream == kNone) stream = 0;
  }
  g.stream = stream;
  g.correlation = IntOr(a.correlation, kNone);
  g.external_id = IntOr(a.external_id, kNone);
  g.bytes_or_config = 0;
  if (kind == Kind::kKernel) {
    KernelConfig config;
    config.registers =
        static_cast<int32_t>(std::clamp<int64_t>(IntOr(a.registers, 0), 0, INT32_MAX));
    config.shared_memory = IntOr(a.shared_memory, 0);
    int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    bool has_grid = a.grid.kind == ValueKind::kArray && json::ParseDim3(a.grid.text, grid);
    bool has_block = a.block.kind == ValueKind::kArray && json::ParseDim3(a.block.text, block);
    for (int i = 0; i < 3; ++i) {
      config.grid[i] = static_cast<int32_t>(std::clamp<int64_t>(grid[i], 0, INT32_MAX));
      config.block[i] = static_cast<int32_t>(std::clamp<int64_t>(block[i], 0, INT32_MAX));
    }
    config.has_launch_params =
        has_block && (a.registers.present() || a.shared_memory.present() || has_grid);
    g.bytes_or_config = KernelConfigIndex(config);
  } else if (IsNumberOrString(a.bytes)) {
    json::ParseUint64(a.bytes.text, &g.bytes_or_config);
  }
  double occ;
  g.est_occupancy_pct = IsNumberOrString(a.est_occupancy) &&
                                json::ParseDouble(a.est_occupancy.text, &occ) &&
                                std::isfinite(occ) && std::fabs(occ) < 1e30
                            ? static_cast<float>(occ)
                            : std::numeric_limits<float>::quiet_NaN();
  g.name_id = space_->strings.Intern(SanitizeUtf8(e.name.text, &scratch_));
  gpu_events_.push_back(g);
}

uint32_t TraceEventMapper::KernelConfigIndex(const KernelConfig& config) {
  auto [it, inserted] =
      kernel_config_index_.try_emplace(config, static_cast<uint32_t>(kernel_configs_.size()));
  if (inserted) kernel_configs_.push_back(config);
  return it->second;
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
    gp.device = device;
    gp.plane = builder_.GetOrCreatePlane(xplane::GpuPlaneName(device));
    gp.correlation = gp.plane->GetOrCreateStatMetadata(StatType::kCorrelationId);
    gp.kernel_details = gp.plane->GetOrCreateStatMetadata(StatType::kKernelDetails);
    gp.theoretical_occupancy =
        gp.plane->GetOrCreateStatMetadata(StatType::kTheoreticalOccupancyPct);
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
    line_id =
        stream + (kind_index == 1 ? kAnnotationLineBase : (kind_index == 2 ? kSyncLineBase : 0));
  } else {
    line_id = gp.next_line_id++;
  }
  xplane::XPlaneBuilder* plane = gp.plane;
  if (kind_index != 0) {
    if (gp.annotation_plane == nullptr) {
      gp.annotation_plane = builder_.GetOrCreatePlane(xplane::GpuAnnotationPlaneName(gp.device));
      gp.annotation_plane->SetId(xplane::kGpuAnnotationPlaneIdBase + gp.device);
    }
    plane = gp.annotation_plane;
  }
  xplane::XLineBuilder* line = plane->GetOrCreateLine(line_id);
  line->SetTimestampNs(base_ns_);
  // Only real device activity goes on "Stream #N" lines.
  switch (kind_index) {
    case 0:
      line->SetName(absl::StrCat("Stream #", stream));
      break;
    case 1:
      line->SetName(absl::StrCat("GPU annotations (stream ", stream, ")"));
      break;
    default:
      line->SetName(absl::StrCat("CUDA sync (stream ", stream, ")"));
      break;
  }
  it->second = line;
  return line;
}

void TraceEventMapper::ResolveExternalIdOps() {
  absl::flat_hash_set<int64_t> needed;
  for (const PendingGpuEvent& g : gpu_events_) {
    if (g.external_id == kNone || g.kind == Kind::kGpuAnnotation || g.kind == Kind::kGpuSync) {
      continue;
    }
    if (g.correlation != kNone) {
      auto it = launch_op_.find(g.correlation);
      if (it != launch_op_.end() && it->second != 0 && it->second != kNoLaunchOp) continue;
    }
    needed.insert(g.external_id);
  }
  if (!needed.empty()) {
    external_id_ops_.ForEach([&](int64_t external_id, uint32_t name_id) {
      if (needed.contains(external_id)) external_id_op_[external_id] = name_id;
    });
  }
  external_id_ops_.Clear();
}

void TraceEventMapper::EmitGpuEvents() {
  ResolveExternalIdOps();
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
    } else if (g.kind == Kind::kGpuAnnotation || g.kind == Kind::kGpuSync) {
      md = gp.annotation_plane->GetOrCreateEventMetadataForName(g.name_id);
    } else {
      md = gp.plane->GetOrCreateEventMetadataForName(g.name_id);
    }
    xplane::XEventBuilder ev = line->AddEvent(md, offset_ps, g.dur_ns * 1000);
    ++summary_.events_converted;
    if (g.kind == Kind::kGpuAnnotation || g.kind == Kind::kGpuSync) continue;

    if (g.correlation != kNone) ev.AddInt64(gp.correlation, g.correlation);
    details.clear();
    if (g.kind == Kind::kKernel) {
      ++summary_.kernels;
      const GpuDeviceProperties* props = DeviceProps(g.device);
      if (props == nullptr) ++kernels_without_props;
      const KernelConfig& config = kernel_configs_[g.bytes_or_config];
      auto [it, inserted] = gp.kernel_configs.try_emplace(config);
      KernelConfigStats& known = it->second;
      if (inserted) {
        KernelDetails d;
        d.registers_per_thread = config.registers;
        d.static_shared_mem_bytes = config.shared_memory;  // Kineto gives static + dynamic.
        d.dynamic_shared_mem_bytes = 0;
        for (int i = 0; i < 3; ++i) {
          d.grid[i] = config.grid[i];
          d.block[i] = config.block[i];
        }
        if (props != nullptr && config.has_launch_params && !rocm_ && HasOccupancyInputs(*props)) {
          KernelLaunchConfig launch;
          launch.registers_per_thread = config.registers;
          launch.static_shared_mem_bytes = config.shared_memory;
          launch.block_x = config.block[0];
          launch.block_y = config.block[1];
          launch.block_z = config.block[2];
          launch.grid_x = config.grid[0];
          launch.grid_y = config.grid[1];
          launch.grid_z = config.grid[2];
          absl::StatusOr<OccupancyResult> occ = ComputeOccupancy(*props, launch);
          if (occ.ok()) {
            d.has_occupancy = true;
            d.occupancy_pct = occ->theoretical_occupancy_pct;
          }
        }
        AppendKernelDetails(d, &details);
        known.details_metadata = gp.plane->GetOrCreateStatMetadata(details);
        known.has_occupancy = d.has_occupancy;
        known.occupancy_pct = d.occupancy_pct;
      }
      if (known.has_occupancy) ev.AddDouble(gp.theoretical_occupancy, known.occupancy_pct);
      ev.AddRefToMetadata(gp.kernel_details, known.details_metadata);
      if (!std::isnan(g.est_occupancy_pct)) ev.AddDouble(gp.est_occupancy, g.est_occupancy_pct);
    } else if (g.kind == Kind::kMemcpy) {
      ++summary_.memcpys;
      MemcpyNameInfo info = ParseMemcpyName(name);
      AppendMemcpyDetails(g.bytes_or_config, info.src_kind, info.dst_kind, &details);
      ev.AddString(gp.memcpy_details, details);
    } else {
      ++summary_.memsets;
      absl::string_view kind;
      size_t open = name.find('('), close = name.rfind(')');
      if (open != absl::string_view::npos && close != absl::string_view::npos && close > open) {
        kind = name.substr(open + 1, close - open - 1);
      }
      AppendMemsetDetails(g.bytes_or_config, kind, &details);
      ev.AddString(gp.memset_details, details);
    }
    // The launching PyTorch op: the innermost CPU op around the launch, else
    // the op named by the event's External id.
    uint32_t op = 0;
    if (g.correlation != kNone) {
      auto it = launch_op_.find(g.correlation);
      if (it != launch_op_.end() && it->second != kNoLaunchOp) op = it->second;
    }
    if (op == 0 && g.external_id != kNone) {
      auto it = external_id_op_.find(g.external_id);
      if (it != external_id_op_.end()) op = it->second;
    }
    if (op != 0) ev.AddRefToMetadata(gp.tf_op, gp.plane->GetOrCreateStatMetadataForName(op));
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
    if (const json::JsonValue* name = d.Find("name")) {
      // Becomes the gpu_device_name string stat: must be valid UTF-8.
      p.name = std::string(SanitizeUtf8(name->AsString(), &scratch_));
    }
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

bool TraceEventMapper::WantsTopLevelValue(absl::string_view key) {
  return key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds" ||
         key == "metadata" || key == "hostname" || absl::StartsWith(key, "roctracer") ||
         absl::StartsWith(key, "rocm") || absl::StartsWith(key, "hip");
}

void TraceEventMapper::OnTopLevelValueSkipped(absl::string_view key, uint64_t byte_offset,
                                              absl::string_view reason) {
  // `key` comes from the file ("rocm..."): warnings are proto strings.
  space_->warnings.push_back(absl::StrCat("top-level \"", SanitizeUtf8(key, &scratch_),
                                          "\" at byte ", byte_offset, " skipped: ", reason));
}

absl::Status TraceEventMapper::OnTopLevelValue(absl::string_view key, absl::string_view text,
                                               uint64_t byte_offset) {
  if (absl::StartsWith(key, "roctracer") || absl::StartsWith(key, "rocm") ||
      absl::StartsWith(key, "hip")) {
    rocm_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<json::JsonValue> value = json::ParseJsonValue(text);
  if (!value.ok()) {
    space_->warnings.push_back(absl::StrCat("top-level \"", key, "\" at byte ", byte_offset,
                                            " ignored: ", value.status().message()));
    return absl::OkStatus();
  }
  if (key == "deviceProperties") {
    absl::Status s = ParseDeviceProperties(*value);
    if (!s.ok()) {
      space_->warnings.push_back(
          absl::StrCat("deviceProperties at byte ", byte_offset, " ignored: ", s.message()));
    }
  } else if (key == "distributedInfo") {
    ReadDistributedInfo(*value);
  } else if (key == "baseTimeNanoseconds") {
    value->AsInt64(&base_time_ns_);
  } else if (key == "hostname") {
    if (!value->AsString().empty()) summary_.hostname_hint = std::string(value->AsString());
  } else if (key == "metadata") {
    // TraceLens-style: metadata.system.uname.node; or metadata.hostname.
    const json::JsonValue* node = nullptr;
    if (const json::JsonValue* system = value->Find("system")) {
      if (const json::JsonValue* uname = system->Find("uname")) node = uname->Find("node");
    }
    if (node == nullptr) node = value->Find("hostname");
    if (node != nullptr && !node->AsString().empty() && summary_.hostname_hint.empty()) {
      summary_.hostname_hint = std::string(node->AsString());
    }
  }
  return absl::OkStatus();
}

}  // namespace tbprof::converters
