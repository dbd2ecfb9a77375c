#include "converters/views/steps/view_metrics.h"

#include "converters/views/common/tensor_core.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

using tensorflow::profiler::OpMetrics;
using tensorflow::profiler::OpMetricsDb;

namespace {

bool IsTfOpNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '/' || c == '>' || c == '-';
}

// TensorFlow "name:Type": name [A-Za-z0-9.][A-Za-z0-9_./>-]*, Type
// [A-Z_][A-Za-z0-9_]*.
bool SplitTfOp(absl::string_view full, absl::string_view* name, absl::string_view* type) {
  size_t colon = full.find(':');
  if (colon == absl::string_view::npos || colon == 0 || colon + 1 >= full.size()) return false;
  absl::string_view n = full.substr(0, colon);
  absl::string_view t = full.substr(colon + 1);
  if (!(absl::ascii_isalnum(static_cast<unsigned char>(n[0])) || n[0] == '.')) return false;
  for (char c : n) {
    if (!IsTfOpNameChar(c)) return false;
  }
  if (!(absl::ascii_isupper(static_cast<unsigned char>(t[0])) || t[0] == '_')) return false;
  for (char c : t) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  *name = n;
  *type = t;
  return true;
}

// Category of a device event without a framework op.
std::string KernelCategory(absl::string_view event_name) {
  for (absl::string_view kind : {"MemcpyHToD", "MemcpyDToH", "MemcpyDToD", "MemcpyHToH",
                                 "MemcpyPToP", "Memset"}) {
    if (absl::StartsWithIgnoreCase(event_name, kind)) return std::string(kind);
  }
  if (absl::StartsWithIgnoreCase(event_name, "nccl")) return "Collective";
  return "Kernel";
}



}  // namespace

FrameworkOp ParseFrameworkOp(absl::string_view tf_op) {
  size_t ns = tf_op.find("::");
  if (ns != absl::string_view::npos && ns > 0) {
    return {std::string(tf_op), std::string(tf_op.substr(0, ns))};
  }
  absl::string_view name, type;
  if (SplitTfOp(tf_op, &name, &type)) return {std::string(name), std::string(type)};
  return {std::string(tf_op), "Unknown"};
}

absl::string_view OpNameOfAnnotation(absl::string_view annotation) {
  while (!annotation.empty()) {
    size_t sep = annotation.find("::");
    absl::string_view level = annotation.substr(0, sep);
    level = level.substr(0, level.find('#'));
    if (!level.empty()) return level;
    if (sep == absl::string_view::npos) break;
    annotation.remove_prefix(sep + 2);
  }
  return {};
}

// ---- DeviceOpMetricsBuilder ---------------------------------------------------

int32_t DeviceOpMetricsBuilder::NewSlot(std::string name, std::string category) {
  Slot slot;
  slot.name = std::move(name);
  slot.category = std::move(category);
  slots_.push_back(std::move(slot));
  return static_cast<int32_t>(slots_.size() - 1);
}

DeviceOpMetricsBuilder::KernelInfo& DeviceOpMetricsBuilder::Kernel(absl::string_view event_name) {
  auto [it, inserted] = kernels_.try_emplace(event_name.data());
  if (inserted) it->second.uses_tensor_core = IsKernelUsingTensorCore(event_name);
  return it->second;
}

void DeviceOpMetricsBuilder::Add(absl::string_view tf_op, absl::string_view annotation,
                                 absl::string_view event_name, int64_t duration_ps) {
  const uintptr_t h = reinterpret_cast<uintptr_t>(tf_op.data()) * 31 +
                      reinterpret_cast<uintptr_t>(annotation.data()) * 7 +
                      reinterpret_cast<uintptr_t>(event_name.data());
  CachedAdd& c = cache_[(h ^ (h >> 12)) & (kCacheSlots - 1)];
  if (c.resolved.slot < 0 || c.tf_op != tf_op.data() || c.tf_op_size != tf_op.size() ||
      c.annotation != annotation.data() || c.annotation_size != annotation.size() ||
      c.event_name != event_name.data() || c.event_name_size != event_name.size()) {
    c.tf_op = tf_op.data();
    c.tf_op_size = tf_op.size();
    c.annotation = annotation.data();
    c.annotation_size = annotation.size();
    c.event_name = event_name.data();
    c.event_name_size = event_name.size();
    c.resolved = Resolve(tf_op, annotation, event_name);
  }
  Slot& s = slots_[c.resolved.slot];
  uint64_t d = static_cast<uint64_t>(std::max<int64_t>(duration_ps, 0));
  s.min_time_ps = s.occurrences == 0 ? d : std::min(s.min_time_ps, d);
  ++s.occurrences;
  s.time_ps += d;
  s.using_tensor_core |= c.resolved.uses_tensor_core;
}

DeviceOpMetricsBuilder::Resolved DeviceOpMetricsBuilder::Resolve(absl::string_view tf_op,
                                                                 absl::string_view annotation,
                                                                 absl::string_view event_name) {
  KernelInfo& kernel = Kernel(event_name);
  int32_t slot = -1;
  if (!tf_op.empty()) {
    auto [it, inserted] = slot_by_tf_op_.try_emplace(tf_op.data(), -1);
    if (inserted) {
      FrameworkOp op = ParseFrameworkOp(tf_op);
      it->second = NewSlot(std::move(op.name), std::move(op.category));
    }
    slot = it->second;
  } else if (!annotation.empty()) {
    auto [it, inserted] = slot_by_annotation_.try_emplace(annotation.data(), -1);
    if (inserted) {
      absl::string_view name = OpNameOfAnnotation(annotation);
      if (!name.empty()) {
        FrameworkOp op = ParseFrameworkOp(name);
        it->second = NewSlot(std::move(op.name), std::move(op.category));
      }
    }
    slot = it->second;
  }
  if (slot < 0) {
    if (kernel.fallback_slot < 0) {
      kernel.fallback_slot = NewSlot(std::string(event_name), KernelCategory(event_name));
    }
    slot = kernel.fallback_slot;
  }
  return {slot, kernel.uses_tensor_core};
}

void DeviceOpMetricsBuilder::Finalize(OpMetricsDb* db, OpTensorCoreMap* tensor_core) {
  // Merge slots with the same name (same op seen through different strings).
  absl::flat_hash_map<std::string, size_t> index;
  std::vector<Slot> merged;
  for (Slot& s : slots_) {
    auto [it, inserted] = index.try_emplace(s.name, merged.size());
    if (inserted) {
      merged.push_back(std::move(s));
      continue;
    }
    Slot& m = merged[it->second];
    m.min_time_ps = std::min(m.min_time_ps, s.min_time_ps);
    m.occurrences += s.occurrences;
    m.time_ps += s.time_ps;
    m.using_tensor_core |= s.using_tensor_core;
  }
  std::sort(merged.begin(), merged.end(), [](const Slot& a, const Slot& b) {
    if (a.time_ps != b.time_ps) return a.time_ps > b.time_ps;
    return a.name < b.name;
  });
  uint64_t total = 0;
  for (const Slot& s : merged) {
    OpMetrics* m = db->add_metrics_db();
    m->set_name(s.name);
    m->set_category(s.category);
    m->set_occurrences(static_cast<uint32_t>(std::min<uint64_t>(s.occurrences, UINT32_MAX)));
    m->set_time_ps(s.time_ps);
    m->set_self_time_ps(s.time_ps);
    m->set_min_time_ps(s.min_time_ps);
    m->set_num_cores(1);
    total += s.time_ps;
    if (tensor_core != nullptr) {
      OpTensorCoreUse& use = (*tensor_core)[s.name];
      use.using_tensor_core = s.using_tensor_core;
      use.eligible = s.using_tensor_core || IsOpTensorCoreEligible(s.name);
    }
  }
  db->set_total_op_time_ps(total);
  db->set_total_time_ps(total);
  slots_.clear();
  slot_by_tf_op_.clear();
  slot_by_annotation_.clear();
  kernels_.clear();
  cache_.assign(kCacheSlots, CachedAdd());
}

// ---- InputOpMetricsBuilder ----------------------------------------------------

void InputOpMetricsBuilder::Add(absl::string_view name, absl::string_view category,
                                int64_t duration_ps, int64_t self_time_ps) {
  auto [it, inserted] = slot_by_name_.try_emplace(name.data(), -1);
  if (inserted) {
    it->second = static_cast<int32_t>(slots_.size());
    OpMetrics m;
    m.set_name(std::string(name));
    m.set_category(std::string(category));
    slots_.push_back(std::move(m));
  }
  OpMetrics& m = slots_[it->second];
  uint64_t d = static_cast<uint64_t>(std::max<int64_t>(duration_ps, 0));
  m.set_min_time_ps(m.occurrences() == 0 ? d : std::min<uint64_t>(m.min_time_ps(), d));
  m.set_occurrences(m.occurrences() + 1);
  m.set_time_ps(m.time_ps() + d);
  m.set_self_time_ps(m.self_time_ps() + static_cast<uint64_t>(std::max<int64_t>(self_time_ps, 0)));
}

void InputOpMetricsBuilder::Finalize(OpMetricsDb* db) {
  std::sort(slots_.begin(), slots_.end(), [](const OpMetrics& a, const OpMetrics& b) {
    if (a.self_time_ps() != b.self_time_ps()) return a.self_time_ps() > b.self_time_ps();
    return a.name() < b.name();
  });
  uint64_t total = 0;
  for (OpMetrics& m : slots_) {
    total += m.self_time_ps();
    *db->add_metrics_db() = std::move(m);
  }
  db->set_total_op_time_ps(total);
  db->set_total_time_ps(total);
  slots_.clear();
  slot_by_name_.clear();
}

absl::string_view InputCategoryOfStage(absl::string_view cat) {
  if (absl::EqualsIgnoreCase(cat, "enqueue")) return "Enqueue";
  if (absl::EqualsIgnoreCase(cat, "read")) return "Demanded file read";
  if (absl::EqualsIgnoreCase(cat, "preprocessing")) return "Preprocessing";
  return "Unknown";
}

// ---- Run environment ----------------------------------------------------------

std::string GpuModelName(absl::string_view vendor, int64_t major, int64_t minor,
                         absl::string_view device_name) {
  bool nvidia = absl::EqualsIgnoreCase(vendor, xplane::kDeviceVendorNvidia) ||
                (vendor.empty() && major > 0);
  if (nvidia) {
    switch (major) {
      case 2: return "Nvidia GPU (Fermi)";
      case 3: return "Nvidia GPU (Kepler)";
      case 5: return "Nvidia GPU (Maxwell)";
      case 6: return "Nvidia GPU (Pascal)";
      case 7: return minor < 5 ? "Nvidia GPU (Volta)" : "Nvidia GPU (Turing)";
      case 8: return minor < 9 ? "Nvidia GPU (Ampere)" : "Nvidia GPU (Ada Lovelace)";
      case 9: return "Nvidia GPU (Hopper)";
      case 10:
      case 12: return "Nvidia GPU (Blackwell)";
      default: return "Nvidia GPU";
    }
  }
  if (absl::EqualsIgnoreCase(vendor, xplane::kDeviceVendorAMD)) {
    absl::string_view gfx = device_name.substr(0, device_name.find(':'));
    if (absl::StartsWith(gfx, "gfx")) return absl::StrCat("AMD GPU - ", gfx);
    if (major == 9 && minor == 4) return "AMD GPU - gfx942";
    if (major == 9 && minor == 5) return "AMD GPU - gfx950";
    if (major >= 9 && major <= 11) return absl::StrCat("AMD GPU - gfx-", major, "XX series");
    return "AMD GPU";
  }
  return "GPU";
}

tensorflow::profiler::RunEnvironment ComputeRunEnvironment(const xplane::XSpaceData& space,
                                                           bool is_training) {
  tensorflow::profiler::RunEnvironment env;
  std::vector<const xplane::Plane*> gpus = xplane::FindGpuPlanes(space);
  env.set_host_count(1);
  env.set_task_count(1);
  for (const std::string& host : space.hostnames) (*env.mutable_hostnames())[host] = true;
  env.set_device_core_count(static_cast<int32_t>(gpus.size()));
  env.set_is_training(is_training);
  if (gpus.empty()) {
    env.set_device_type("CPU");
    env.set_hardware_type(tensorflow::profiler::CPU_ONLY);
    return env;
  }
  env.set_hardware_type(tensorflow::profiler::GPU);
  xplane::XPlaneVisitor plane(&space, gpus.front(), xplane::SpaceBaseNs(space));
  absl::string_view vendor, device_name;
  int64_t major = 0, minor = 0;
  plane.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case xplane::StatType::kDevVendor: vendor = stat.StrOrRefValue(); break;
      case xplane::StatType::kGpuDeviceName: device_name = stat.StrOrRefValue(); break;
      case xplane::StatType::kDevCapComputeCapMajor: major = stat.IntOrUintValue(); break;
      case xplane::StatType::kDevCapComputeCapMinor: minor = stat.IntOrUintValue(); break;
      default: break;
    }
  });
  env.set_device_type(GpuModelName(vendor, major, minor, device_name));
  return env;
}

bool LooksLikeTraining(const xplane::XSpaceData& space) {
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (host == nullptr) return false;
  for (const xplane::EventMetadata& md : host->event_metadata) {
    absl::string_view name = space.strings.Get(md.name);
    if (absl::StartsWith(name, "Optimizer.step") || absl::StartsWith(name, "autograd::engine") ||
        absl::StrContains(name, "Backward") || absl::StrContains(name, "backward") ||
        absl::StrContains(name, "gradient_tape/")) {
      return true;
    }
  }
  return false;
}

}  // namespace tbprof::views
