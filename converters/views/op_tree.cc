#include "converters/views/op_tree.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "converters/views/tensor_core.h"
#include "converters/views/xspace_to_kernel_stats.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using xplane::StatType;

constexpr int32_t kNoOp = -1;
// How many events ahead the correlation-id lookups are prefetched.
constexpr size_t kPrefetchAhead = 16;

bool IsDerivedLine(const xplane::XLineVisitor& line) {
  return line.id() >= xplane::kThreadIdStepInfo;
}

bool IsPythonLine(const xplane::XLineVisitor& line) {
  return absl::EndsWith(line.name(), kPythonStackLineSuffix);
}

bool IsMemoryEvent(const xplane::XEventVisitor& e) {
  const xplane::HostEventType type = e.host_event_type();
  return type == xplane::HostEventType::kMemoryAllocation ||
         type == xplane::HostEventType::kMemoryDeallocation;
}

// Names xprof parses as TensorFlow / JAX / tf.data ops.
bool IsTfOpFullname(absl::string_view name) {
  return OpNameFromTfOp(name) != name || absl::StartsWith(name, "Iterator::");
}

// Kineto's span of the whole trace ("PyTorch Profiler (0)").
bool IsKinetoTraceSpan(absl::string_view name) {
  return absl::StartsWith(name, "PyTorch Profiler (") && absl::EndsWith(name, ")");
}

// CUDA / HIP runtime and driver calls by name (cudaLaunchKernel,
// cuLaunchKernel, hipMemcpyAsync: a prefix and an upper-case letter), for
// traces whose launches lost their correlation ids.
bool IsRuntimeCallName(absl::string_view name) {
  for (absl::string_view prefix : {"cuda", "cu", "hip"}) {
    if (name.size() > prefix.size() && absl::StartsWith(name, prefix) &&
        absl::ascii_isupper(static_cast<unsigned char>(name[prefix.size()]))) {
      return true;
    }
  }
  return false;
}

// Event indices of a line by (begin, longest first), the order in which
// parents come before their children.
std::vector<uint32_t> NestingOrder(const xplane::XLineVisitor& line) {
  std::vector<uint32_t> order(line.num_events());
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](uint32_t a, uint32_t b) {
    const xplane::XEventVisitor x = line.event(a), y = line.event(b);
    if (x.begin_ps() != y.begin_ps()) return x.begin_ps() < y.begin_ps();
    return x.duration_ps() > y.duration_ps();
  };
  if (!std::is_sorted(order.begin(), order.end(), before)) {
    std::stable_sort(order.begin(), order.end(), before);
  }
  return order;
}

// Stat metadata indices of the host plane (UINT32_MAX if absent).
struct HostStats {
  uint32_t input_dims = UINT32_MAX, input_types = UINT32_MAX, concrete_inputs = UINT32_MAX,
           call_stack = UINT32_MAX;
  explicit HostStats(const xplane::XPlaneVisitor& plane) {
    auto find = [&](absl::string_view name) {
      std::optional<uint32_t> index = plane.FindStatMetadata(name);
      return index.has_value() ? *index : UINT32_MAX;
    };
    input_dims = find(kInputDimsStatName);
    input_types = find(kInputTypesStatName);
    concrete_inputs = find(kConcreteInputsStatName);
    call_stack = find(kCallStackStatName);
  }
};

// What one host event says about itself.
struct HostEventInfo {
  bool has_correlation = false;
  int64_t correlation = 0;
  bool is_root = false;
  absl::string_view tf_op;
  absl::string_view input_dims, input_types, concrete_inputs, call_stack;
};

HostEventInfo ReadHostEvent(const xplane::XEventVisitor& e, const HostStats& s) {
  HostEventInfo info;
  e.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case StatType::kCorrelationId:
        info.has_correlation = true;
        info.correlation = stat.IntOrUintValue();
        return;
      case StatType::kIsRoot:
        info.is_root = true;
        return;
      case StatType::kTfOp:
        if (info.tf_op.empty()) info.tf_op = stat.StrOrRefValue();
        return;
      default:
        break;
    }
    const uint32_t m = stat.metadata_index();
    if (m == s.input_dims) info.input_dims = stat.StrOrRefValue();
    else if (m == s.input_types) info.input_types = stat.StrOrRefValue();
    else if (m == s.concrete_inputs) info.concrete_inputs = stat.StrOrRefValue();
    else if (m == s.call_stack) info.call_stack = stat.StrOrRefValue();
  });
  return info;
}

// True if any host event other than a memory event carries a non-empty
// `tf_op`: the file marks its ops (see op_tree.h).
bool HostMarksOps(const xplane::XPlaneVisitor& plane) {
  if (!plane.FindStatMetadata(xplane::StatTypeName(StatType::kTfOp)).has_value()) return false;
  for (size_t l = 0; l < plane.num_lines(); ++l) {
    const xplane::XLineVisitor line = plane.line(l);
    if (IsDerivedLine(line) || IsPythonLine(line)) continue;
    for (size_t i = 0; i < line.num_events(); ++i) {
      const xplane::XEventVisitor e = line.event(i);
      if (IsMemoryEvent(e)) continue;
      std::optional<xplane::XStatVisitor> tf_op = e.GetStat(StatType::kTfOp);
      if (tf_op.has_value() && !tf_op->StrOrRefValue().empty()) return true;
    }
  }
  return false;
}

GpuSpec ReadGpuSpec(const xplane::XPlaneVisitor& plane) {
  GpuSpec spec;
  plane.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case StatType::kGpuDeviceName:
        spec.name = std::string(stat.StrOrRefValue());
        break;
      case StatType::kDevCapCoreCount:
        spec.sm_count = stat.IntOrUintValue();
        break;
      case StatType::kDevCapClockRateKHz:
        spec.clock_khz = stat.IntOrUintValue();
        break;
      case StatType::kDevCapComputeCapMajor:
        spec.compute_major = static_cast<int>(stat.IntOrUintValue());
        break;
      case StatType::kDevCapComputeCapMinor:
        spec.compute_minor = static_cast<int>(stat.IntOrUintValue());
        break;
      default:
        break;
    }
  });
  return spec;
}

class TreeBuilder {
 public:
  explicit TreeBuilder(const xplane::XSpaceData& space)
      : space_(space), base_ns_(xplane::SpaceBaseNs(space)) {}

  OpTree Build() {
    const xplane::Plane* host = xplane::FindPlaneWithName(space_, xplane::kHostThreadsPlaneName);
    if (host != nullptr) AddHostPlane(host);
    for (const xplane::Plane* gpu : xplane::FindGpuPlanes(space_)) AddGpuPlane(gpu);
    return std::move(tree_);
  }

 private:
  int32_t NameIndex(absl::string_view name) {
    auto [it, inserted] = name_index_.try_emplace(name, static_cast<int32_t>(tree_.names.size()));
    if (inserted) tree_.names.push_back(OpName{name});
    return it->second;
  }

  // The OpTree::inputs entry of the call's texts. Keyed by where the texts
  // are (interned strings): equal texts at different places only cost an
  // extra entry, never a wrong one.
  uint32_t InputsIndex(const HostEventInfo& info) {
    if (info.input_dims.empty() && info.input_types.empty() && info.concrete_inputs.empty() &&
        info.call_stack.empty()) {
      return 0;
    }
    auto at = [](absl::string_view s) { return std::make_pair(s.data(), s.size()); };
    auto [it, inserted] = inputs_index_.try_emplace(
        std::make_tuple(at(info.input_dims), at(info.input_types), at(info.concrete_inputs),
                        at(info.call_stack)),
        static_cast<uint32_t>(tree_.inputs.size()));
    if (inserted) {
      tree_.inputs.push_back(
          {info.input_dims, info.input_types, info.concrete_inputs, info.call_stack});
    }
    return it->second;
  }

  void AddHostPlane(const xplane::Plane* raw) {
    const xplane::XPlaneVisitor plane(&space_, raw, base_ns_);
    const HostStats stats(plane);
    std::vector<bool> tf_op_named(plane.num_event_metadata());
    for (size_t m = 0; m < tf_op_named.size(); ++m) {
      tf_op_named[m] = IsTfOpFullname(plane.event_name(static_cast<uint32_t>(m)));
    }
    tree_.ops_from_tf_op = HostMarksOps(plane);
    // At most one call per event: reserving that bound avoids copying the
    // calls as the vector grows (pages never written cost no memory).
    size_t max_ops = 0;
    for (size_t l = 0; l < plane.num_lines(); ++l) {
      const xplane::XLineVisitor line = plane.line(l);
      if (!IsDerivedLine(line) && !IsPythonLine(line)) max_ops += line.num_events();
    }
    tree_.ops.reserve(max_ops);
    host_name_of_metadata_.assign(plane.num_event_metadata(), kNoOp);
    absl::flat_hash_map<absl::string_view, const xplane::Line*> python_lines;
    for (size_t l = 0; l < plane.num_lines(); ++l) {
      const xplane::XLineVisitor line = plane.line(l);
      if (IsDerivedLine(line)) continue;
      if (IsPythonLine(line)) {
        absl::string_view thread = line.name();
        thread.remove_suffix(kPythonStackLineSuffix.size());
        python_lines.try_emplace(thread, &raw->lines[l]);
        continue;
      }
      AddThreadLine(line, stats, tf_op_named);
    }
    for (OpThread& thread : tree_.threads) {
      auto it = python_lines.find(thread.name);
      if (it == python_lines.end()) continue;
      const xplane::XLineVisitor line(&plane, it->second);
      for (uint32_t i : NestingOrder(line)) {
        const xplane::XEventVisitor e = line.event(i);
        if (e.is_aggregate()) continue;
        thread.python.push_back({e.begin_ps(), e.end_ps(), e.name()});
      }
      tree_.python_events += static_cast<int64_t>(thread.python.size());
    }
  }

  bool IsOp(const xplane::XEventVisitor& e, const HostEventInfo& info,
            const std::vector<bool>& tf_op_named) const {
    if (info.is_root || IsMemoryEvent(e)) return false;
    if (tree_.ops_from_tf_op) return !info.tf_op.empty() || tf_op_named[e.metadata_index()];
    return !info.has_correlation && e.duration_ps() > 0 && !IsKinetoTraceSpan(e.name()) &&
           !IsRuntimeCallName(e.name());
  }

  void AddThreadLine(const xplane::XLineVisitor& line, const HostStats& stats,
                     const std::vector<bool>& tf_op_named) {
    const int32_t thread = static_cast<int32_t>(tree_.threads.size());
    OpThread& t = tree_.threads.emplace_back();
    t.name = line.name();
    t.first_op = static_cast<int32_t>(tree_.ops.size());
    std::vector<int32_t> stack;
    const std::vector<uint32_t> order = NestingOrder(line);
    for (size_t k = 0; k < order.size(); ++k) {
      // The launch map's inserts miss the cache (millions of launches in
      // random hash order): each is prefetched a few events ahead.
      if (k + kPrefetchAhead < order.size()) PrefetchLaunch(line.event(order[k + kPrefetchAhead]));
      const xplane::XEventVisitor e = line.event(order[k]);
      if (e.is_aggregate()) continue;
      const int64_t begin = e.begin_ps(), end = e.end_ps();
      while (!stack.empty()) {
        const OpCall& top = tree_.ops[stack.back()];
        if (begin >= top.begin_ps && end <= top.begin_ps + top.duration_ps) break;
        stack.pop_back();
      }
      const HostEventInfo info = ReadHostEvent(e, stats);
      const int32_t enclosing = stack.empty() ? kNoOp : stack.back();
      if (info.has_correlation) launches_.try_emplace(info.correlation, enclosing);
      if (!IsOp(e, info, tf_op_named)) continue;
      OpCall op;
      // The op's name: its own (tf_op, when marked, is the same for PyTorch;
      // TensorFlow names its host ops "name:Type" either way).
      int32_t& name = host_name_of_metadata_[e.metadata_index()];
      if (name == kNoOp) name = NameIndex(e.name());
      op.name = name;
      op.parent = enclosing;
      op.thread = thread;
      op.begin_ps = begin;
      op.duration_ps = e.duration_ps();
      op.inputs = InputsIndex(info);
      if (!info.input_dims.empty()) ++tree_.ops_with_input_dims;
      if (!info.call_stack.empty()) ++tree_.ops_with_call_stack;
      if (enclosing != kNoOp) tree_.ops[enclosing].child_ops_ps += op.duration_ps;
      stack.push_back(static_cast<int32_t>(tree_.ops.size()));
      tree_.ops.push_back(op);
    }
    tree_.threads[thread].end_op = static_cast<int32_t>(tree_.ops.size());
  }

  // Starts loading the launches_ entry of the event's correlation id, if any.
  void PrefetchLaunch(const xplane::XEventVisitor& e) const {
    if (std::optional<xplane::XStatVisitor> id = e.GetStat(StatType::kCorrelationId)) {
      launches_.prefetch(id->IntOrUintValue());
    }
  }

  // The innermost call of op name `name` from `call` outwards, or kNoOp.
  int32_t AncestorNamed(int32_t call, int32_t name) const {
    while (call != kNoOp && tree_.ops[call].name != name) call = tree_.ops[call].parent;
    return call;
  }

  // `metadata_index` is the event's on the current GPU plane: the pair
  // (op name, metadata index) finds the entry without hashing the name.
  void AddKernelUse(int32_t op_name, uint32_t metadata_index, absl::string_view kernel, int64_t ps,
                    bool tc) {
    const uint64_t key = uint64_t{static_cast<uint32_t>(op_name)} << 32 | metadata_index;
    auto [cached, miss] = plane_kernel_index_.try_emplace(key, 0);
    if (miss) {
      auto [it, inserted] = kernel_index_.try_emplace(std::make_pair(op_name, kernel),
                                                      static_cast<int32_t>(tree_.kernels.size()));
      if (inserted) tree_.kernels.push_back(KernelUse{op_name, kernel, 0, 0, tc});
      cached->second = it->second;
    }
    KernelUse& use = tree_.kernels[cached->second];
    ++use.occurrences;
    use.total_ps += ps;
  }

  void AddGpuPlane(const xplane::Plane* raw) {
    const xplane::XPlaneVisitor plane(&space_, raw, base_ns_);
    const int32_t gpu = static_cast<int32_t>(tree_.gpus.size());
    tree_.gpus.push_back(
        {xplane::ParseGpuPlaneOrdinal(plane.name()).value_or(gpu), ReadGpuSpec(plane)});
    // By event metadata: 0 = not seen, 1 = no Tensor Cores, 2 = Tensor Cores.
    std::vector<uint8_t> tc(plane.num_event_metadata(), 0);
    plane_kernel_index_.clear();
    // The launch lookups miss the cache (millions of launches in random hash
    // order): each is prefetched a few events ahead.
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (IsDerivedLine(line)) return;
      const size_t n = line.num_events();
      for (size_t i = 0; i < kPrefetchAhead && i < n; ++i) PrefetchLaunch(line.event(i));
      for (size_t i = 0; i < n; ++i) {
        if (i + kPrefetchAhead < n) PrefetchLaunch(line.event(i + kPrefetchAhead));
        const xplane::XEventVisitor e = line.event(i);
        if (e.is_aggregate() || e.duration_ps() < 0) continue;
        AddDeviceEvent(e, gpu, &tc);
      }
    });
  }

  void AddDeviceEvent(const xplane::XEventVisitor& e, int32_t gpu, std::vector<uint8_t>* tc_cache) {
    const int64_t ps = e.duration_ps();
    bool has_correlation = false, is_kernel = false;
    int64_t correlation = 0;
    absl::string_view tf_op;
    e.ForEachStat([&](const xplane::XStatVisitor& stat) {
      switch (stat.type()) {
        case StatType::kCorrelationId:
          has_correlation = true;
          correlation = stat.IntOrUintValue();
          break;
        case StatType::kTfOp:
          if (tf_op.empty()) tf_op = stat.StrOrRefValue();
          break;
        case StatType::kKernelDetails:
          is_kernel = true;
          break;
        default:
          break;
      }
    });
    uint8_t& tc_state = (*tc_cache)[e.metadata_index()];
    if (tc_state == 0) tc_state = IsKernelUsingTensorCore(e.name()) ? 2 : 1;
    const bool tc = tc_state == 2;
    ++tree_.device_events;
    tree_.device_ps += ps;
    if (is_kernel) tree_.kernel_ps += ps;

    int32_t call = kNoOp;
    Unattributed reason = Unattributed::kNoCorrelation;
    if (has_correlation) {
      auto it = launches_.find(correlation);
      if (it == launches_.end()) {
        reason = Unattributed::kLaunchNotFound;
      } else if (it->second == kNoOp) {
        reason = Unattributed::kOutsideOps;
      } else {
        call = it->second;
      }
    }
    int32_t name = kNoOp;
    if (!tf_op.empty()) {
      name = NameIndex(tf_op);
      call = AncestorNamed(call, name);
    } else if (call != kNoOp) {
      name = tree_.ops[call].name;
    }
    if (name == kNoOp) {
      const int r = static_cast<int>(reason);
      ++tree_.unattributed_events[r];
      tree_.unattributed_ps[r] += ps;
      AddKernelUse(-1 - r, e.metadata_index(), e.name(), ps, tc);
      return;
    }
    AddKernelUse(name, e.metadata_index(), e.name(), ps, tc);
    if (tc) tree_.names[name].any_tensor_core_kernel = true;
    if (call == kNoOp) {
      OpName& n = tree_.names[name];
      n.by_name_ps += ps;
      n.by_name_events += 1;
      if (tc) n.by_name_tc_ps += ps;
      return;
    }
    OpCall& self = tree_.ops[call];
    self.device_self_ps += ps;
    ++self.device_self_events;
    if (tc) self.device_self_tc_ps += ps;
    for (int32_t c = call; c != kNoOp; c = tree_.ops[c].parent) {
      OpCall& op = tree_.ops[c];
      op.device_total_ps += ps;
      if (tc) op.device_total_tc_ps += ps;
      if (op.gpu < 0) op.gpu = gpu;
    }
  }

  const xplane::XSpaceData& space_;
  const int64_t base_ns_;
  OpTree tree_;
  absl::flat_hash_map<absl::string_view, int32_t> name_index_;
  // NameIndex() of the host plane's event metadata names (kNoOp: not yet).
  std::vector<int32_t> host_name_of_metadata_;
  absl::flat_hash_map<int64_t, int32_t> launches_;  // correlation id -> enclosing op call.
  absl::flat_hash_map<std::pair<int32_t, absl::string_view>, int32_t> kernel_index_;
  // Of the current GPU plane: (op name << 32 | event metadata index) -> kernels index.
  absl::flat_hash_map<uint64_t, int32_t> plane_kernel_index_;
  using TextAt = std::pair<const char*, size_t>;
  absl::flat_hash_map<std::tuple<TextAt, TextAt, TextAt, TextAt>, uint32_t> inputs_index_;
};

}  // namespace

absl::string_view UnattributedReasonText(Unattributed reason) {
  switch (reason) {
    case Unattributed::kNoCorrelation:
      return "no correlation id";
    case Unattributed::kLaunchNotFound:
      return "launch not in the trace";
    case Unattributed::kOutsideOps:
      return "launched outside any op";
  }
  return "";
}

int64_t OpTree::UnattributedPs() const {
  int64_t sum = 0;
  for (int64_t ps : unattributed_ps) sum += ps;
  return sum;
}

OpTree BuildOpTree(const xplane::XSpaceData& space) { return TreeBuilder(space).Build(); }

}  // namespace tbprof::views
