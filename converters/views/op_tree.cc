#include "converters/views/op_tree.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
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

bool IsDerivedLine(const xplane::XLineVisitor& line) {
  return line.id() >= xplane::kThreadIdStepInfo;
}

bool IsPythonLine(const xplane::XLineVisitor& line) {
  return absl::EndsWith(line.name(), kPythonStackLineSuffix);
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

// True if the line's events are in nesting order already: by (begin,
// longest first), the order in which parents come before their children.
bool InNestingOrder(const xplane::XLineVisitor& line) {
  for (size_t i = 1; i < line.num_events(); ++i) {
    const xplane::XEventVisitor x = line.event(i - 1), y = line.event(i);
    if (y.begin_ps() < x.begin_ps() ||
        (y.begin_ps() == x.begin_ps() && y.duration_ps() > x.duration_ps())) {
      return false;
    }
  }
  return true;
}

// The event indices of a line in nesting order (stable: events with equal
// begin and duration keep their order). Costs no memory for a line that is
// in that order already, as most are.
class NestingOrder {
 public:
  explicit NestingOrder(const xplane::XLineVisitor& line) : size_(line.num_events()) {
    if (InNestingOrder(line)) return;
    order_.resize(size_);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
      const xplane::XEventVisitor x = line.event(a), y = line.event(b);
      if (x.begin_ps() != y.begin_ps()) return x.begin_ps() < y.begin_ps();
      return x.duration_ps() > y.duration_ps();
    });
  }
  size_t size() const { return size_; }
  uint32_t operator[](size_t k) const {
    return order_.empty() ? static_cast<uint32_t>(k) : order_[k];
  }

 private:
  size_t size_;
  std::vector<uint32_t> order_;  // Empty: the identity.
};

// What a stat tells the op tree, by stat metadata index of a plane: the
// per-event scans then cost a byte load per stat. The type decides first;
// the record_shapes / with_stack stats go by name.
enum class Role : uint8_t {
  kNone = 0,
  kCorrelation,
  kIsRoot,
  kTfOp,
  kKernelDetails,
  kInputDims,
  kInputTypes,
  kConcreteInputs,
  kCallStack,
};

std::vector<Role> StatRoles(const xplane::XPlaneVisitor& plane) {
  std::vector<Role> roles(plane.num_stat_metadata(), Role::kNone);
  for (size_t m = 0; m < roles.size(); ++m) {
    switch (plane.stat_type(static_cast<uint32_t>(m))) {
      case StatType::kCorrelationId:
        roles[m] = Role::kCorrelation;
        break;
      case StatType::kIsRoot:
        roles[m] = Role::kIsRoot;
        break;
      case StatType::kTfOp:
        roles[m] = Role::kTfOp;
        break;
      case StatType::kKernelDetails:
        roles[m] = Role::kKernelDetails;
        break;
      default:
        break;
    }
  }
  auto by_name = [&](absl::string_view name, Role role) {
    std::optional<uint32_t> m = plane.FindStatMetadata(name);
    if (m.has_value() && roles[*m] == Role::kNone) roles[*m] = role;
  };
  by_name(kInputDimsStatName, Role::kInputDims);
  by_name(kInputTypesStatName, Role::kInputTypes);
  by_name(kConcreteInputsStatName, Role::kConcreteInputs);
  by_name(kCallStackStatName, Role::kCallStack);
  return roles;
}

// A stat's StrOrRefValue without a call per stat for references (a host
// op carries several: tf_op, input dims and types): the stat metadata names
// by id, in a table when the ids are small (the usual 0..n), the same views
// the visitor returns (the first metadata of an id wins, "" for none).
class StatTexts {
 public:
  explicit StatTexts(const xplane::XPlaneVisitor& plane) {
    const std::vector<xplane::StatMetadata>& metadata = plane.raw().stat_metadata;
    for (const xplane::StatMetadata& md : metadata) {
      if (md.id < 0 || static_cast<uint64_t>(md.id) >= 4 * metadata.size() + 1024) return;
    }
    std::vector<bool> set;
    for (size_t m = 0; m < metadata.size(); ++m) {
      const size_t id = static_cast<size_t>(metadata[m].id);
      if (id >= by_id_.size()) {
        by_id_.resize(id + 1);
        set.resize(id + 1, false);
      }
      if (set[id]) continue;
      set[id] = true;
      by_id_[id] = plane.stat_name(static_cast<uint32_t>(m));
    }
    small_ids_ = true;
  }
  absl::string_view Of(const xplane::XStatVisitor& stat) const {
    if (small_ids_ && stat.kind() == xplane::StatKind::kRef) {
      const uint64_t id = stat.RefId();
      return id < by_id_.size() ? by_id_[id] : absl::string_view();
    }
    return stat.StrOrRefValue();
  }

 private:
  bool small_ids_ = false;
  std::vector<absl::string_view> by_id_;
};

// What one host event says about itself.
struct HostEventInfo {
  bool has_correlation = false;
  int64_t correlation = 0;
  bool is_root = false;
  bool tf_op_set = false;  // Some tf_op stat is not empty.
  absl::string_view input_dims, input_types, concrete_inputs, call_stack;
};

// With the record_shapes / with_stack texts (the last of each).
HostEventInfo ReadHostEvent(const xplane::XEventVisitor& e, const std::vector<Role>& roles,
                            const StatTexts& texts) {
  HostEventInfo info;
  e.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (roles[stat.metadata_index()]) {
      case Role::kCorrelation:
        info.has_correlation = true;
        info.correlation = stat.IntOrUintValue();
        return;
      case Role::kIsRoot:
        info.is_root = true;
        return;
      case Role::kTfOp:
        if (!info.tf_op_set) info.tf_op_set = !texts.Of(stat).empty();
        return;
      case Role::kInputDims:
        info.input_dims = texts.Of(stat);
        return;
      case Role::kInputTypes:
        info.input_types = texts.Of(stat);
        return;
      case Role::kConcreteInputs:
        info.concrete_inputs = texts.Of(stat);
        return;
      case Role::kCallStack:
        info.call_stack = texts.Of(stat);
        return;
      default:
        return;
    }
  });
  return info;
}

// What the names of a host plane's event metadata say (bits, by index).
enum : uint8_t {
  kMemoryEvent = 1,  // MemoryAllocation / MemoryDeallocation: never an op.
  kTfOpNamed = 2,    // A TensorFlow / JAX op name: an op under the tf_op rule.
  kNotAHostOp = 4,   // Kineto's trace span or a runtime call by name.
};

std::vector<uint8_t> HostNameFlags(const xplane::XPlaneVisitor& plane) {
  std::vector<uint8_t> flags(plane.num_event_metadata(), 0);
  for (size_t m = 0; m < flags.size(); ++m) {
    const uint32_t index = static_cast<uint32_t>(m);
    const xplane::HostEventType type = plane.host_event_type(index);
    const absl::string_view name = plane.event_name(index);
    if (type == xplane::HostEventType::kMemoryAllocation ||
        type == xplane::HostEventType::kMemoryDeallocation) {
      flags[m] |= kMemoryEvent;
    }
    if (IsTfOpFullname(name)) flags[m] |= kTfOpNamed;
    if (IsKinetoTraceSpan(name) || IsRuntimeCallName(name)) flags[m] |= kNotAHostOp;
  }
  return flags;
}

// Whether a host event is an op call under the tf_op rule and under the
// host events rule (op_tree.h).
bool IsTfOpRuleOp(const HostEventInfo& info, uint8_t flags) {
  if (info.is_root || (flags & kMemoryEvent)) return false;
  return info.tf_op_set || (flags & kTfOpNamed);
}
bool IsHostRuleOp(const xplane::XEventVisitor& e, const HostEventInfo& info, uint8_t flags) {
  if (info.is_root || (flags & kMemoryEvent)) return false;
  return !info.has_correlation && e.duration_ps() > 0 && !(flags & kNotAHostOp);
}

// Correlation id -> the innermost op call around its launch (kNoOp: none);
// the first launch of an id wins. The launches sorted by id (12 bytes
// each), searched from where the previous lookup of the same device line
// ended: device events come roughly in launch order, so a search takes a
// few steps on memory the previous one touched, where a hash map would miss
// the cache on every lookup (and on every insert).
class LaunchTable {
 public:
  static constexpr int32_t kAbsent = INT32_MIN;

  void Add(int64_t id, int32_t call) { launches_.push_back(Launch(id, call)); }
  // Call after the last Add, before the first Find.
  void Seal() { SortStably(&launches_); }
  // The call of id's launch, kNoOp if outside every op, kAbsent if none.
  // `hint` (start at 0) carries the position from one lookup to the next.
  int32_t Find(int64_t id, size_t* hint) const {
    const size_t at = LowerBoundNear(id, *hint);
    *hint = at;
    return at < launches_.size() && launches_[at].id() == id ? launches_[at].call : kAbsent;
  }
  void Release() { std::vector<Launch>().swap(launches_); }

 private:
  // 12 bytes: the id in two 32-bit halves (as xplane::Stat keeps values).
  struct Launch {
    Launch(int64_t id, int32_t call)
        : id_low(static_cast<uint32_t>(id)),
          id_high(static_cast<uint32_t>(static_cast<uint64_t>(id) >> 32)),
          call(call) {}
    int64_t id() const { return static_cast<int64_t>(uint64_t{id_high} << 32 | id_low); }
    uint32_t id_low, id_high;
    int32_t call;
  };
  static_assert(sizeof(Launch) == 12, "Launch must stay compact");

  // Sorts by id, equal ids in the order added. The launches come in runs
  // of rising ids (one per thread line, as a thread launches in order):
  // the runs are merged, or, if there are many, the whole is sorted.
  static void SortStably(std::vector<Launch>* launches) {
    std::vector<Launch>& v = *launches;
    auto by_id = [](const Launch& a, const Launch& b) { return a.id() < b.id(); };
    std::vector<size_t> runs = {0};  // Where each run begins, then the end.
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i].id() < v[i - 1].id()) runs.push_back(i);
    }
    if (runs.size() > 64) {
      std::stable_sort(v.begin(), v.end(), by_id);
      return;
    }
    runs.push_back(v.size());
    while (runs.size() > 2) {  // Merge neighbours, the earlier run first.
      std::vector<size_t> merged = {0};
      size_t r = 0;
      for (; r + 2 < runs.size(); r += 2) {
        std::inplace_merge(v.begin() + runs[r], v.begin() + runs[r + 1], v.begin() + runs[r + 2],
                           by_id);
        merged.push_back(runs[r + 2]);
      }
      if (r + 1 < runs.size()) merged.push_back(runs.back());
      runs = std::move(merged);
    }
  }

  // The first position whose id is not below `id`, galloping from `hint`.
  size_t LowerBoundNear(int64_t id, size_t hint) const {
    const size_t n = launches_.size();
    auto below = [&](size_t i) { return launches_[i].id() < id; };
    size_t lo, hi;  // The answer is in [lo, hi].
    if (hint < n && below(hint)) {
      lo = hint + 1;
      size_t step = 1;
      while (lo + step - 1 < n && below(lo + step - 1)) {
        lo += step;
        step *= 2;
      }
      hi = std::min(n, lo + step - 1);
    } else {
      hi = std::min(hint, n);
      size_t step = 1;
      while (hi >= step && !below(hi - step)) {
        hi -= step;
        step *= 2;
      }
      lo = hi >= step ? hi - step + 1 : 0;
    }
    auto first = launches_.begin();
    return static_cast<size_t>(
        std::lower_bound(first + lo, first + hi, id,
                         [](const Launch& l, int64_t v) { return l.id() < v; }) -
        first);
  }

  std::vector<Launch> launches_;
};

// True if any host event other than a memory event carries a non-empty
// `tf_op`: the file marks its ops (see op_tree.h).
bool HostMarksOps(const xplane::XPlaneVisitor& plane, const std::vector<uint8_t>& name_flags) {
  if (!plane.FindStatMetadata(xplane::StatTypeName(StatType::kTfOp)).has_value()) return false;
  for (size_t l = 0; l < plane.num_lines(); ++l) {
    const xplane::XLineVisitor line = plane.line(l);
    if (IsDerivedLine(line) || IsPythonLine(line)) continue;
    for (size_t i = 0; i < line.num_events(); ++i) {
      const xplane::XEventVisitor e = line.event(i);
      if (name_flags[e.metadata_index()] & kMemoryEvent) continue;
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
    launches_.Release();
    SumDeviceTotals();
    return std::move(tree_);
  }

 private:
  int32_t NameIndex(absl::string_view name) {
    auto [it, inserted] = name_index_.try_emplace(name, static_cast<int32_t>(tree_.names.size()));
    if (inserted) tree_.names.push_back(OpName{name});
    return it->second;
  }

  // NameIndex of a non-empty interned string (a stat's value): by where it
  // is, which hashes two words instead of the text.
  int32_t InternedNameIndex(absl::string_view name) {
    auto [it, inserted] =
        interned_name_index_.try_emplace(std::make_pair(name.data(), name.size()));
    if (inserted) it->second = NameIndex(name);
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
    auto [it, inserted] = inputs_index_.try_emplace(
        InputsKey{{info.input_dims.data(), info.input_types.data(), info.concrete_inputs.data(),
                   info.call_stack.data()},
                  {info.input_dims.size(), info.input_types.size(), info.concrete_inputs.size(),
                   info.call_stack.size()}},
        static_cast<uint32_t>(tree_.inputs.size()));
    if (inserted) {
      tree_.inputs.push_back(
          {info.input_dims, info.input_types, info.concrete_inputs, info.call_stack});
    }
    return it->second;
  }

  void AddHostPlane(const xplane::Plane* raw) {
    const xplane::XPlaneVisitor plane(&space_, raw, base_ns_);
    const std::vector<Role> roles = StatRoles(plane);
    const StatTexts texts(plane);
    const std::vector<uint8_t> name_flags = HostNameFlags(plane);
    tree_.ops_from_tf_op = HostMarksOps(plane, name_flags);
    // At most one call per event: reserving that bound avoids copying the
    // calls as the vector grows, and costs no memory beyond the calls (pages
    // never written are never mapped).
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
      AddThreadLine(line, roles, texts, name_flags);
    }
    launches_.Seal();
    for (OpThread& thread : tree_.threads) {
      auto it = python_lines.find(thread.name);
      if (it == python_lines.end()) continue;
      const xplane::XLineVisitor line(&plane, it->second);
      const NestingOrder order(line);
      for (size_t k = 0; k < order.size(); ++k) {
        const xplane::XEventVisitor e = line.event(order[k]);
        if (e.is_aggregate()) continue;
        thread.python.push_back({e.begin_ps(), e.end_ps(), e.name()});
      }
      tree_.python_events += static_cast<int64_t>(thread.python.size());
    }
  }

  bool IsOp(const xplane::XEventVisitor& e, const HostEventInfo& info, uint8_t flags) const {
    return tree_.ops_from_tf_op ? IsTfOpRuleOp(info, flags) : IsHostRuleOp(e, info, flags);
  }

  void AddThreadLine(const xplane::XLineVisitor& line, const std::vector<Role>& roles,
                     const StatTexts& texts, const std::vector<uint8_t>& name_flags) {
    OpThread& t = tree_.threads.emplace_back();
    t.name = line.name();
    t.first_op = static_cast<int32_t>(tree_.ops.size());
    std::vector<int32_t> stack;
    const NestingOrder order(line);
    for (size_t k = 0; k < order.size(); ++k) {
      const xplane::XEventVisitor e = line.event(order[k]);
      if (e.is_aggregate()) continue;
      const int64_t begin = e.begin_ps(), end = e.end_ps();
      while (!stack.empty()) {
        const OpCall& top = tree_.ops[stack.back()];
        if (begin >= top.begin_ps && end <= top.begin_ps + top.duration_ps) break;
        stack.pop_back();
      }
      const HostEventInfo info = ReadHostEvent(e, roles, texts);
      const int32_t enclosing = stack.empty() ? kNoOp : stack.back();
      if (info.has_correlation) {
        launches_.Add(info.correlation, enclosing);
        // Its device time can only go to `enclosing` or a caller: count
        // the calls that may get some (marked kMayHaveDevice until then).
        for (int32_t c = enclosing; c != kNoOp && tree_.ops[c].device == kNoDevice;
             c = tree_.ops[c].parent) {
          tree_.ops[c].device = kMayHaveDevice;
          ++calls_that_may_have_device_;
        }
      }
      if (!IsOp(e, info, name_flags[e.metadata_index()])) continue;
      OpCall op;
      // The op's name: its own (tf_op, when marked, is the same for PyTorch;
      // TensorFlow names its host ops "name:Type" either way).
      int32_t& name = host_name_of_metadata_[e.metadata_index()];
      if (name == kNoOp) name = NameIndex(e.name());
      op.name = name;
      op.parent = enclosing;
      op.begin_ps = begin;
      op.duration_ps = e.duration_ps();
      op.inputs = InputsIndex(info);
      if (!info.input_dims.empty()) ++tree_.ops_with_input_dims;
      if (!info.call_stack.empty()) ++tree_.ops_with_call_stack;
      stack.push_back(static_cast<int32_t>(tree_.ops.size()));
      tree_.ops.push_back(op);
    }
    t.end_op = static_cast<int32_t>(tree_.ops.size());
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
    // A kernel is mostly launched by one op: its last (op name, entry)
    // answers without hashing.
    LastKernelUse& last = plane_last_kernel_use_[metadata_index];
    if (last.op_name != op_name || last.index < 0) {
      const uint64_t key = uint64_t{static_cast<uint32_t>(op_name)} << 32 | metadata_index;
      auto [cached, miss] = plane_kernel_index_.try_emplace(key, 0);
      if (miss) {
        auto [it, inserted] = kernel_index_.try_emplace(
            std::make_pair(op_name, kernel), static_cast<int32_t>(tree_.kernels.size()));
        if (inserted) tree_.kernels.push_back(KernelUse{op_name, kernel, 0, 0, tc});
        cached->second = it->second;
      }
      last = {op_name, cached->second};
    }
    KernelUse& use = tree_.kernels[last.index];
    ++use.occurrences;
    use.total_ps += ps;
  }

  void AddGpuPlane(const xplane::Plane* raw) {
    const xplane::XPlaneVisitor plane(&space_, raw, base_ns_);
    const int32_t gpu = static_cast<int32_t>(tree_.gpus.size());
    tree_.gpus.push_back(
        {xplane::ParseGpuPlaneOrdinal(plane.name()).value_or(gpu), ReadGpuSpec(plane)});
    const std::vector<Role> roles = StatRoles(plane);
    const StatTexts texts(plane);
    // By event metadata: 0 = not seen, 1 = no Tensor Cores, 2 = Tensor Cores.
    std::vector<uint8_t> tc(plane.num_event_metadata(), 0);
    plane_kernel_index_.clear();
    plane_last_kernel_use_.assign(plane.num_event_metadata(), LastKernelUse{});
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (IsDerivedLine(line)) return;
      size_t hint = 0;  // Where this line's previous launch was found.
      for (size_t i = 0; i < line.num_events(); ++i) {
        const xplane::XEventVisitor e = line.event(i);
        if (e.is_aggregate() || e.duration_ps() < 0) continue;
        AddDeviceEvent(e, gpu, roles, texts, &tc, &hint);
      }
    });
  }

  void AddDeviceEvent(const xplane::XEventVisitor& e, int32_t gpu, const std::vector<Role>& roles,
                      const StatTexts& texts, std::vector<uint8_t>* tc_cache,
                      size_t* launch_hint) {
    const int64_t ps = e.duration_ps();
    bool has_correlation = false, is_kernel = false;
    int64_t correlation = 0;
    absl::string_view tf_op;
    e.ForEachStat([&](const xplane::XStatVisitor& stat) {
      switch (roles[stat.metadata_index()]) {
        case Role::kCorrelation:
          has_correlation = true;
          correlation = stat.IntOrUintValue();
          break;
        case Role::kTfOp:
          if (tf_op.empty()) tf_op = texts.Of(stat);
          break;
        case Role::kKernelDetails:
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
      const int32_t launch = launches_.Find(correlation, launch_hint);
      if (launch == LaunchTable::kAbsent) {
        reason = Unattributed::kLaunchNotFound;
      } else if (launch == kNoOp) {
        reason = Unattributed::kOutsideOps;
      } else {
        call = launch;
      }
    }
    int32_t name = kNoOp;
    if (!tf_op.empty()) {
      name = InternedNameIndex(tf_op);
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
    const int32_t d = DeviceIndex(call);
    OpDeviceSums& self = tree_.device_sums[d];
    self.self_ps += ps;
    ++self.self_events;
    if (self.gpu < 0) self.gpu = gpu;
    if (tc) {
      if (tree_.device_tc_sums.empty()) {
        tree_.device_tc_sums.reserve(tree_.device_sums.capacity());
        tree_.device_tc_sums.resize(tree_.device_sums.size());
      }
      tree_.device_tc_sums[d].self_ps += ps;
    }
  }

  // The call's OpTree::device_sums index, with new (zero) entries if it has
  // none yet.
  int32_t DeviceIndex(int32_t call) {
    OpCall& c = tree_.ops[call];
    if (c.device < 0) {
      // At most one entry per call around a launch: the entries never move.
      if (tree_.device_sums.empty()) tree_.device_sums.reserve(calls_that_may_have_device_);
      c.device = static_cast<int32_t>(tree_.device_sums.size());
      tree_.device_sums.emplace_back();
      if (!tree_.device_tc_sums.empty()) tree_.device_tc_sums.emplace_back();
    }
    return c.device;
  }

  // Device totals from the self times: children come after their parent,
  // so in reverse order each call is complete before it is added to its
  // parent. The GPU of a call is the lowest of its own and its children's.
  void SumDeviceTotals() {
    const bool tc = !tree_.device_tc_sums.empty();
    for (size_t i = tree_.ops.size(); i-- > 0;) {
      OpCall& c = tree_.ops[i];
      if (c.device < 0) {
        c.device = kNoDevice;  // Also for kMayHaveDevice: none came.
        continue;
      }
      OpDeviceSums& d = tree_.device_sums[c.device];
      d.total_ps += d.self_ps;
      if (tc) tree_.device_tc_sums[c.device].total_ps += tree_.device_tc_sums[c.device].self_ps;
      if (c.parent == kNoOp) continue;
      const int32_t child = c.device;
      const int32_t parent = DeviceIndex(c.parent);  // May move the entries.
      const OpDeviceSums& from = tree_.device_sums[child];
      OpDeviceSums& to = tree_.device_sums[parent];
      to.total_ps += from.total_ps;
      if (to.gpu < 0 || from.gpu < to.gpu) to.gpu = from.gpu;
      if (tc) tree_.device_tc_sums[parent].total_ps += tree_.device_tc_sums[child].total_ps;
    }
  }

  // OpCall::device while the host plane is read: kMayHaveDevice for the
  // calls around a launch (SumDeviceTotals turns those left into kNoDevice).
  static constexpr int32_t kNoDevice = -1;
  static constexpr int32_t kMayHaveDevice = -2;

  const xplane::XSpaceData& space_;
  const int64_t base_ns_;
  size_t calls_that_may_have_device_ = 0;
  OpTree tree_;
  absl::flat_hash_map<absl::string_view, int32_t> name_index_;
  absl::flat_hash_map<std::pair<const char*, size_t>, int32_t> interned_name_index_;
  // NameIndex() of the host plane's event metadata names (kNoOp: not yet).
  std::vector<int32_t> host_name_of_metadata_;
  LaunchTable launches_;
  absl::flat_hash_map<std::pair<int32_t, absl::string_view>, int32_t> kernel_index_;
  // Of the current GPU plane: (op name << 32 | event metadata index) -> kernels index.
  absl::flat_hash_map<uint64_t, int32_t> plane_kernel_index_;
  // Of the current GPU plane, by event metadata: the last op name that
  // launched it and their kernels index (-1: none yet).
  struct LastKernelUse {
    int32_t op_name = 0;
    int32_t index = -1;
  };
  std::vector<LastKernelUse> plane_last_kernel_use_;
  // Where an op call's four input texts are. Hashed by where they begin
  // only, in a few multiplications (this runs once per call; absl's hash of
  // the eight words cost more than the rest of the call): equal keys begin
  // at the same places.
  struct InputsKey {
    const char* data[4];
    size_t size[4];
    bool operator==(const InputsKey& o) const {
      for (int i = 0; i < 4; ++i) {
        if (data[i] != o.data[i] || size[i] != o.size[i]) return false;
      }
      return true;
    }
  };
  struct InputsKeyHash {
    size_t operator()(const InputsKey& k) const {
      uint64_t h = 0;
      for (const char* d : k.data) {
        h = (h ^ reinterpret_cast<uintptr_t>(d)) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
      }
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  absl::flat_hash_map<InputsKey, uint32_t, InputsKeyHash> inputs_index_;
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
