#include "converters/views/kernels/gpu_summary.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "converters/common/kernel_details.h"
#include "converters/views/common/tensor_core.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

struct KernelSpan {
  int64_t begin_ps;
  int64_t end_ps;
  double sm_fraction;   // min(blocks / SMs, 1); -1 unknown.
  double occupancy;     // Percent; -1 unknown.
  bool tensor_core;
};

// ParseKernelDetails() of the `kernel_details` texts of a plane's events,
// each text parsed once: cached by its address in the string pool and, for
// kRef stats, in front of that by the id the stat refers to (most lookups
// then do not resolve the id to its text). Ids are per plane: call
// StartPlane() before the stats of each plane.
class KernelDetailsCache {
 public:
  void StartPlane() { ref_slots_.assign(kRefSlots, RefSlot()); }
  // The details of `stat`'s text, or null when the text is empty.
  const converters::KernelDetails* Find(const xplane::XStatVisitor& stat) {
    if (stat.kind() != xplane::StatKind::kRef) return FindText(stat.StrOrRefValue());
    const uint64_t id = stat.RefId();
    RefSlot& slot = ref_slots_[(id ^ id >> 12) & (kRefSlots - 1)];
    if (slot.id_plus_1 != id + 1 || id + 1 == 0) {
      const converters::KernelDetails* found = FindText(stat.StrOrRefValue());
      slot = {id + 1, found == nullptr ? -1 : static_cast<int32_t>(found - parsed_.data())};
    }
    return slot.index < 0 ? nullptr : &parsed_[static_cast<size_t>(slot.index)];
  }

 private:
  struct RefSlot {
    uint64_t id_plus_1 = 0;  // 0: empty slot.
    int32_t index = -1;      // Into parsed_; -1: the text is empty.
  };
  static constexpr size_t kRefSlots = 1024;
  const converters::KernelDetails* FindText(absl::string_view text) {
    if (text.empty()) return nullptr;
    auto [it, inserted] = index_by_text_.try_emplace(std::make_pair(text.data(), text.size()),
                                                     static_cast<int32_t>(parsed_.size()));
    if (inserted) converters::ParseKernelDetails(text, &parsed_.emplace_back());
    return &parsed_[static_cast<size_t>(it->second)];
  }
  std::vector<converters::KernelDetails> parsed_;
  absl::flat_hash_map<std::pair<const char*, size_t>, int32_t> index_by_text_;
  std::vector<RefSlot> ref_slots_ = std::vector<RefSlot>(kRefSlots);
};

double Percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

// The device's summary, or nothing when no kernel time falls in the window.
std::optional<tbprof::GpuDeviceSummary> SummarizeDevice(std::vector<KernelSpan>* kernels,
                                                        const std::vector<TimeInterval>& steps,
                                                        int64_t sm_count) {
  if (kernels->empty()) return std::nullopt;
  const auto by_begin = [](const KernelSpan& a, const KernelSpan& b) {
    return a.begin_ps < b.begin_ps;
  };
  // Kernels of one stream come strictly ascending: then the sorted order is
  // the one there is (with distinct keys std::sort has a single answer;
  // with equal ones it is left to std::sort, as before).
  bool strictly_ascending = true;
  for (size_t i = 1; i < kernels->size() && strictly_ascending; ++i) {
    strictly_ascending = (*kernels)[i - 1].begin_ps < (*kernels)[i].begin_ps;
  }
  if (!strictly_ascending) std::sort(kernels->begin(), kernels->end(), by_begin);
  std::vector<TimeInterval> span;
  if (steps.empty()) {
    int64_t end = kernels->front().end_ps;
    for (const KernelSpan& k : *kernels) end = std::max(end, k.end_ps);
    span.push_back({kernels->front().begin_ps, end});
  }
  const std::vector<TimeInterval>& windows = steps.empty() ? span : steps;
  int64_t window_ps = 0;
  for (const TimeInterval& w : windows) window_ps += w.end_ps - w.begin_ps;

  int64_t kernel_ps = 0, busy_ps = 0, tensor_core_ps = 0, occupancy_ps = 0;
  double sm_weighted = 0, occupancy_weighted = 0;
  bool sm_known = sm_count > 0;
  int64_t busy_begin = 0, busy_end = -1;  // The merged interval being built.
  for (const KernelSpan& k : *kernels) {
    const int64_t t = CoveredPs(windows, k.begin_ps, k.end_ps);
    kernel_ps += t;
    if (k.tensor_core) tensor_core_ps += t;
    if (k.sm_fraction < 0) {
      if (t > 0) sm_known = false;
    } else {
      sm_weighted += k.sm_fraction * static_cast<double>(t);
    }
    if (k.occupancy >= 0) {
      occupancy_weighted += k.occupancy * static_cast<double>(t);
      occupancy_ps += t;
    }
    if (k.begin_ps > busy_end) {
      if (busy_end > busy_begin) busy_ps += CoveredPs(windows, busy_begin, busy_end);
      busy_begin = k.begin_ps;
      busy_end = k.end_ps;
    } else {
      busy_end = std::max(busy_end, k.end_ps);
    }
  }
  if (busy_end > busy_begin) busy_ps += CoveredPs(windows, busy_begin, busy_end);
  if (kernel_ps == 0) return std::nullopt;

  tbprof::GpuDeviceSummary d;
  d.set_sm_count(sm_count);
  d.set_window_ps(window_ps);
  d.set_busy_ps(busy_ps);
  d.set_kernel_ps(kernel_ps);
  d.set_utilization_percent(Percent(static_cast<double>(busy_ps), static_cast<double>(window_ps)));
  d.set_sm_efficiency_percent(sm_known ? Percent(sm_weighted, static_cast<double>(window_ps))
                                       : -1);
  d.set_occupancy_percent(occupancy_ps > 0 ? occupancy_weighted / static_cast<double>(occupancy_ps)
                                           : -1);
  d.set_tensor_core_percent(
      Percent(static_cast<double>(tensor_core_ps), static_cast<double>(kernel_ps)));
  return d;
}

}  // namespace

tbprof::GpuSummary ComputeGpuSummary(const xplane::XSpaceData& space,
                                     std::vector<TimeInterval> windows) {
  tbprof::GpuSummary summary;
  MergeIntervals(&windows);
  summary.set_window_from_steps(!windows.empty());
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  KernelDetailsCache details_cache;
  for (const xplane::Plane* raw_plane : xplane::FindGpuPlanes(space)) {
    xplane::XPlaneVisitor plane(&space, raw_plane, base_ns);
    std::string name;
    int64_t sm_count = 0;
    plane.ForEachStat([&](const xplane::XStatVisitor& stat) {
      if (stat.type() == xplane::StatType::kGpuDeviceName) name = std::string(stat.StrOrRefValue());
      if (stat.type() == xplane::StatType::kDevCapCoreCount) {
        sm_count = static_cast<int64_t>(stat.IntOrUintValue());
      }
    });
    details_cache.StartPlane();
    // By stat metadata index: 1 kernel_details, 2 achieved occupancy, 0 other.
    std::vector<uint8_t> stat_role(plane.num_stat_metadata(), 0);
    for (uint32_t i = 0; i < stat_role.size(); ++i) {
      if (plane.stat_type(i) == xplane::StatType::kKernelDetails) stat_role[i] = 1;
      if (plane.stat_type(i) == xplane::StatType::kEstAchievedOccupancyPct) stat_role[i] = 2;
    }
    // By event metadata index: -1 not yet seen, else Tensor Core use (0/1).
    std::vector<int8_t> tensor_core(plane.num_event_metadata(), -1);
    std::vector<KernelSpan> kernels;
    {
      // At most one a line event: reserved, so that the vector is not
      // regrown and copied; pages past the kernels are never touched.
      size_t events = 0;
      plane.ForEachLine([&](const xplane::XLineVisitor& line) { events += line.num_events(); });
      kernels.reserve(events);
    }
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (line.id() >= xplane::kThreadIdStepInfo) return;  // Derived line.
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        if (event.is_aggregate() || event.duration_ps() <= 0) return;
        // The first kernel_details with a text.
        const converters::KernelDetails* details = nullptr;
        double achieved = -1;
        event.ForEachStat([&](const xplane::XStatVisitor& stat) {
          const uint8_t role = stat_role[stat.metadata_index()];
          if (role == 1) {
            if (details == nullptr) details = details_cache.Find(stat);
          } else if (role == 2) {
            achieved = stat.DoubleValue();
          }
        });
        if (details == nullptr) return;  // Not a kernel (memcpy, memset, ...).
        const converters::KernelDetails& p = *details;
        int8_t& tc = tensor_core[event.metadata_index()];
        if (tc < 0) tc = IsKernelUsingTensorCore(event.name()) ? 1 : 0;
        const double blocks = static_cast<double>(p.grid[0]) * static_cast<double>(p.grid[1]) *
                              static_cast<double>(p.grid[2]);
        KernelSpan k;
        k.begin_ps = event.begin_ps();
        k.end_ps = event.end_ps();
        k.sm_fraction = sm_count > 0 ? std::min(1.0, blocks / static_cast<double>(sm_count)) : -1;
        // Kineto's estimate of the achieved occupancy when the trace has it
        // (torch-tb-profiler's figure), else the theoretical one.
        k.occupancy = achieved >= 0 ? achieved : p.has_occupancy ? p.occupancy_pct : -1;
        k.tensor_core = tc == 1;
        kernels.push_back(k);
      });
    });
    std::optional<tbprof::GpuDeviceSummary> device = SummarizeDevice(&kernels, windows, sm_count);
    if (!device.has_value()) continue;
    device->set_device_ordinal(xplane::ParseGpuPlaneOrdinal(plane.name()).value_or(-1));
    device->set_name(name);
    *summary.add_devices() = std::move(*device);
  }
  if (summary.devices_size() == 0) {
    summary.set_no_data_reason(summary.window_from_steps()
                                   ? "no GPU kernels ran during the steps"
                                   : "no GPU kernels in this profile");
  }
  return summary;
}

}  // namespace tbprof::views
