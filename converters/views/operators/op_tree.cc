#include "converters/views/operators/op_tree.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "converters/views/operators/op_tree_device_sums.h"
#include "converters/views/operators/op_tree_host_events.h"
#include "converters/views/operators/op_tree_launches.h"
#include "converters/views/operators/op_tree_stat_tables.h"
#include "converters/views/common/tensor_core.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using op_tree_internal::DeviceSumsIndex;
using op_tree_internal::HostEventInfo;
using op_tree_internal::HostMarksOps;
using op_tree_internal::HostNameFlags;
using op_tree_internal::IsDerivedLine;
using op_tree_internal::IsHostRuleOp;
using op_tree_internal::IsPythonLine;
using op_tree_internal::IsTfOpRuleOp;
using op_tree_internal::kMayHaveDevice;
using op_tree_internal::kMetadataRoleStats;
using op_tree_internal::MarkMetadataRoleStats;
using op_tree_internal::kNoDevice;
using op_tree_internal::LaunchTable;
using op_tree_internal::NestingOrder;
using op_tree_internal::ReadGpuSpec;
using op_tree_internal::ReadHostEvent;
using op_tree_internal::StatRole;
using op_tree_internal::StatRoles;
using op_tree_internal::StatTexts;
using op_tree_internal::SumDeviceTotals;

constexpr int32_t kNoOp = -1;

class TreeBuilder {
 public:
  explicit TreeBuilder(const xplane::XSpaceData& space)
      : space_(space), base_ns_(xplane::SpaceBaseNs(space)) {}

  OpTree Build() {
    const xplane::Plane* host = xplane::FindPlaneWithName(space_, xplane::kHostThreadsPlaneName);
    if (host != nullptr) AddHostPlane(host);
    for (const xplane::Plane* gpu : xplane::FindGpuPlanes(space_)) AddGpuPlane(gpu);
    launches_.Release();
    SumDeviceTotals(&tree_, calls_that_may_have_device_);
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
  //
  // In front of the map, a direct-mapped cache of entries by where the
  // texts are answers most calls with a multiplication and a comparison
  // with the entry (a trace has few distinct texts, each used by many
  // calls): only its misses hash the key.
  uint32_t InputsIndex(const HostEventInfo& info) {
    if (info.input_dims.empty() && info.input_types.empty() && info.concrete_inputs.empty() &&
        info.call_stack.empty()) {
      return 0;
    }
    auto at = [](absl::string_view text) {
      return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(text.data()));
    };
    auto same_place = [](absl::string_view a, absl::string_view b) {
      return a.data() == b.data() && a.size() == b.size();
    };
    const uint64_t mix = (at(info.input_dims) ^ (at(info.input_types) << 21)) ^
                         ((at(info.concrete_inputs) << 42) ^ (at(info.call_stack) >> 21));
    uint32_t& cached = inputs_cache_[(mix * 0x9E3779B97F4A7C15ull) >> (64 - kInputsCacheBits)];
    const OpInputsText& entry = tree_.inputs[cached];  // inputs[0]: all "", never a hit.
    if (same_place(entry.input_dims, info.input_dims) &&
        same_place(entry.input_types, info.input_types) &&
        same_place(entry.concrete_inputs, info.concrete_inputs) &&
        same_place(entry.call_stack, info.call_stack)) {
      return cached;
    }
    cached = InputsIndexOfKey(info);
    return cached;
  }

  // InputsIndex through the map.
  uint32_t InputsIndexOfKey(const HostEventInfo& info) {
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
    tree_.host_plane = std::make_shared<const xplane::XPlaneVisitor>(&space_, raw, base_ns_);
    const xplane::XPlaneVisitor& plane = *tree_.host_plane;
    const std::vector<StatRole> roles = StatRoles(plane);
    const StatTexts texts(plane);
    std::vector<uint8_t> name_flags = HostNameFlags(plane);
    tree_.ops_from_tf_op = HostMarksOps(plane, name_flags);
    MarkMetadataRoleStats(plane, roles, &name_flags);
    // At most one call per event: reserving that bound avoids copying the
    // calls as the vector grows, and costs no memory beyond the calls (pages
    // never written are never mapped).
    size_t max_ops = 0;
    for (size_t l = 0; l < plane.num_lines(); ++l) {
      const xplane::XLineVisitor line = plane.line(l);
      if (!IsDerivedLine(line) && !IsPythonLine(line)) max_ops += line.num_events();
    }
    tree_.ops.reserve(max_ops);
    launches_.Reserve(max_ops);  // At most one launch per event too.
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
      AddThreadLine(line, l, roles, texts, name_flags);
    }
    launches_.Seal();
    for (OpThread& thread : tree_.threads) {
      auto it = python_lines.find(thread.name);
      if (it == python_lines.end()) continue;
      const xplane::XLineVisitor line(&plane, it->second);
      const NestingOrder order(line);
      thread.python_line = it->second;
      thread.python.reserve(order.size());
      for (size_t k = 0; k < order.size(); ++k) {
        if (line.event(order[k]).is_aggregate()) continue;
        thread.python.push_back(static_cast<uint32_t>(order[k]));
      }
      tree_.python_events += static_cast<int64_t>(thread.python.size());
    }
  }

  bool IsOp(const xplane::XEventVisitor& e, const HostEventInfo& info, uint8_t flags) const {
    return tree_.ops_from_tf_op ? IsTfOpRuleOp(info, flags) : IsHostRuleOp(e, info, flags);
  }

  // `line` is the host plane's line `line_index`.
  void AddThreadLine(const xplane::XLineVisitor& line, size_t line_index,
                     const std::vector<StatRole>& roles, const StatTexts& texts,
                     const std::vector<uint8_t>& name_flags) {
    OpThread& t = tree_.threads.emplace_back();
    t.name = line.name();
    t.line = &tree_.host_plane->raw().lines[line_index];
    t.first_op = static_cast<int32_t>(tree_.ops.size());
    // Most lines are in nesting order: they are read in index order, checked
    // on the way (one pass over the events, not two). A line that is not is
    // read again, sorted, after what the first pass added is taken back
    // (names and inputs entries stay: they are the same the second pass
    // adds, and their order does not matter to the views).
    const size_t launches = launches_.size();
    const size_t calls_that_may_have_device = calls_that_may_have_device_;
    const int64_t ops_with_input_dims = tree_.ops_with_input_dims;
    const int64_t ops_with_call_stack = tree_.ops_with_call_stack;
    if (!AddThreadCalls</*kCheckOrder=*/true>(line, t, roles, texts, name_flags, nullptr)) {
      tree_.ops.resize(static_cast<size_t>(t.first_op));
      launches_.Truncate(launches);
      calls_that_may_have_device_ = calls_that_may_have_device;
      tree_.ops_with_input_dims = ops_with_input_dims;
      tree_.ops_with_call_stack = ops_with_call_stack;
      const NestingOrder order(line);
      AddThreadCalls</*kCheckOrder=*/false>(line, t, roles, texts, name_flags, &order);
    }
    t.end_op = static_cast<int32_t>(tree_.ops.size());
  }

  // Adds the calls and launches of thread `t`'s line, its events taken in
  // `order`, or, with kCheckOrder, in index order while checking that this
  // is nesting order (as NestingOrder does): then false when it is not,
  // having stopped at the first event out of order.
  template <bool kCheckOrder>
  bool AddThreadCalls(const xplane::XLineVisitor& line, const OpThread& t,
                      const std::vector<StatRole>& roles, const StatTexts& texts,
                      const std::vector<uint8_t>& name_flags, const NestingOrder* order) {
    // The open op calls, innermost last, with their times (the calls hold
    // none).
    struct Open {
      int32_t op;
      int64_t begin_ps, end_ps;
    };
    std::vector<Open> stack;
    HostEventInfo info;  // Of the current event.
    int64_t previous_begin = 0, previous_duration = 0;  // Of event k - 1.
    const size_t n = line.num_events();
    for (size_t k = 0; k < n; ++k) {
      const uint32_t event = kCheckOrder ? static_cast<uint32_t>(k) : (*order)[k];
      const xplane::XEventVisitor e = line.event(event);
      const int64_t begin = e.begin_ps(), duration = e.duration_ps();
      if (kCheckOrder) {
        if (k > 0 && (begin < previous_begin ||
                      (begin == previous_begin && duration > previous_duration))) {
          return false;
        }
        previous_begin = begin;
        previous_duration = duration;
      }
      if (e.is_aggregate()) continue;
      const int64_t end = begin + duration;
      while (!stack.empty()) {
        const Open& top = stack.back();
        if (begin >= top.begin_ps && end <= top.end_ps) break;
        stack.pop_back();
      }
      const uint8_t flags = name_flags[e.metadata_index()];
      ReadHostEvent(*t.line, event, tree_.host_plane->raw(), (flags & kMetadataRoleStats) != 0,
                    roles, texts, &info);
      const int32_t enclosing = stack.empty() ? kNoOp : stack.back().op;
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
      if (!IsOp(e, info, flags)) continue;
      // The op's name: its own (tf_op, when marked, is the same for PyTorch;
      // TensorFlow names its host ops "name:Type" either way).
      int32_t& name = host_name_of_metadata_[e.metadata_index()];
      if (name == kNoOp) name = NameIndex(e.name());
      const uint32_t inputs = InputsIndex(info);
      if (!info.input_dims.empty()) ++tree_.ops_with_input_dims;
      if (!info.call_stack.empty()) ++tree_.ops_with_call_stack;
      stack.push_back({static_cast<int32_t>(tree_.ops.size()), begin, end});
      // Written field by field in place: a call built aside and copied was
      // read back before its stores had landed (a stall per call).
      OpCall& op = tree_.ops.emplace_back();
      op.event = event;
      op.name = name;
      op.parent = enclosing;
      op.inputs = inputs;
    }
    return true;
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
    const std::vector<StatRole> roles = StatRoles(plane);
    const StatTexts texts(plane);
    // By event metadata: 0 = not seen, 1 = no Tensor Cores, 2 = Tensor Cores.
    std::vector<uint8_t> tc(plane.num_event_metadata(), 0);
    plane_kernel_index_.clear();
    plane_last_kernel_use_.assign(plane.num_event_metadata(), LastKernelUse{});
    plane_last_tf_op_.assign(plane.num_event_metadata(), LastTfOp{});
    // By event metadata: whether its own stats have a role (else they need
    // not be read).
    std::vector<uint8_t> metadata_stats(plane.num_event_metadata(), 0);
    for (size_t m = 0; m < metadata_stats.size(); ++m) {
      for (const xplane::Stat& stat : raw->event_metadata[m].stats) {
        if (roles[stat.metadata_index()] != StatRole::kNone) metadata_stats[m] = 1;
      }
    }
    for (const xplane::Line& raw_line : raw->lines) {
      const xplane::XLineVisitor line(&plane, &raw_line);
      if (IsDerivedLine(line)) continue;
      size_t hint = 0;  // Where this line's previous launch was found.
      const xplane::Stat* line_stats = raw_line.stats.data();
      for (size_t i = 0; i < line.num_events(); ++i) {
        const xplane::XEventVisitor e = line.event(i);
        if (e.is_aggregate() || e.duration_ps() < 0) continue;
        // Its stats, then its metadata's (XEventVisitor::ForEachStat order).
        DeviceEventStats stats;
        for (uint32_t k = raw_line.events[i].stats_begin, end = raw_line.stats_end(i); k < end;
             ++k) {
          ReadDeviceStat(line_stats[k], roles, texts, &stats);
        }
        if (metadata_stats[e.metadata_index()]) {
          for (const xplane::Stat& stat : raw->event_metadata[e.metadata_index()].stats) {
            ReadDeviceStat(stat, roles, texts, &stats);
          }
        }
        AddDeviceEvent(e, gpu, stats, &tc, &hint);
      }
    }
  }

  // What AddDeviceEvent reads from a device event's stats.
  struct DeviceEventStats {
    bool has_correlation = false, is_kernel = false;
    int64_t correlation = 0;
    absl::string_view tf_op;  // The first non-empty one.
  };
  static void ReadDeviceStat(const xplane::Stat& stat, const std::vector<StatRole>& roles,
                             const StatTexts& texts, DeviceEventStats* out) {
    switch (roles[stat.metadata_index()]) {
      case StatRole::kCorrelation:
        out->has_correlation = true;
        out->correlation = texts.IntOrUint(stat);
        break;
      case StatRole::kTfOp:
        if (out->tf_op.empty()) out->tf_op = texts.Of(stat);
        break;
      case StatRole::kKernelDetails:
        out->is_kernel = true;
        break;
      default:
        break;
    }
  }

  void AddDeviceEvent(const xplane::XEventVisitor& e, int32_t gpu, const DeviceEventStats& stats,
                      std::vector<uint8_t>* tc_cache, size_t* launch_hint) {
    const int64_t ps = e.duration_ps();
    const bool has_correlation = stats.has_correlation, is_kernel = stats.is_kernel;
    const int64_t correlation = stats.correlation;
    const absl::string_view tf_op = stats.tf_op;
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
      // Most kernels are launched by one op: the last tf_op of the event's
      // metadata answers without hashing.
      LastTfOp& last = plane_last_tf_op_[e.metadata_index()];
      if (last.data != tf_op.data() || last.size != tf_op.size()) {
        last = {tf_op.data(), tf_op.size(), InternedNameIndex(tf_op)};
      }
      name = last.name;
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
    const int32_t d = DeviceSumsIndex(&tree_, call, calls_that_may_have_device_);
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
  // Of the current GPU plane, by event metadata: where the last tf_op of
  // its events was and its InternedNameIndex (data null: none yet).
  struct LastTfOp {
    const char* data = nullptr;
    size_t size = 0;
    int32_t name = kNoOp;
  };
  std::vector<LastTfOp> plane_last_tf_op_;
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
      // Each place turned by its own amount and the four folded in
      // parallel, then one multiply mixes them (absl's hash of an integer):
      // a short dependency chain.
      auto at = [&](int i) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(k.data[i])); };
      auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
      return absl::HashOf((at(0) ^ rotl(at(1), 16)) ^ (rotl(at(2), 32) ^ rotl(at(3), 48)));
    }
  };
  absl::flat_hash_map<InputsKey, uint32_t, InputsKeyHash> inputs_index_;
  // InputsIndex's cache: OpTree::inputs indices (0: none) by a hash of
  // where the texts are; 16 KB.
  static constexpr int kInputsCacheBits = 12;
  uint32_t inputs_cache_[1 << kInputsCacheBits] = {};
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

const OpThread& OpTree::ThreadOf(int32_t op) const {
  // The first thread whose range ends after `op`: the ranges follow each
  // other, so it begins at or before `op`.
  auto it = std::upper_bound(threads.begin(), threads.end(), op,
                             [](int32_t o, const OpThread& t) { return o < t.end_op; });
  return *it;
}

OpTree BuildOpTree(const xplane::XSpaceData& space) { return TreeBuilder(space).Build(); }

}  // namespace tbprof::views
