#include "converters/views/operators/xspace_to_operator_stats.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "converters/views/operators/gemm_efficiency.h"
#include "converters/views/operators/module_tree.h"
#include "converters/views/common/tensor_core.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using tbprof::OpRow;

std::string Ms(int64_t ps) { return absl::StrFormat("%.3f ms", static_cast<double>(ps) / 1e9); }

// What a row sums over its calls (written to its OpRow once, at the end).
// Host self time: each call adds its duration, and each call inside
// another takes its own from its parent's row (OpCall).
struct RowSums {
  int64_t calls = 0, host_total_ps = 0, host_self_ps = 0, device_total_ps = 0,
          device_self_ps = 0, device_self_events = 0, device_self_tc_ps = 0,
          device_total_tc_ps = 0;

  // `duration_ps`: the call's host time (OpTree::DurationPs).
  void Add(int64_t duration_ps, const OpDeviceTime& d) {
    ++calls;
    host_total_ps += duration_ps;
    host_self_ps += duration_ps;
    device_total_ps += d.total_ps;
    device_self_ps += d.self_ps;
    device_self_events += d.self_events;
    device_self_tc_ps += d.self_tc_ps;
    device_total_tc_ps += d.total_tc_ps;
  }
  // Adds another row's sums (a part of this row's calls).
  void Add(const RowSums& o) {
    calls += o.calls;
    host_total_ps += o.host_total_ps;
    host_self_ps += o.host_self_ps;
    device_total_ps += o.device_total_ps;
    device_self_ps += o.device_self_ps;
    device_self_events += o.device_self_events;
    device_self_tc_ps += o.device_self_tc_ps;
    device_total_tc_ps += o.device_total_tc_ps;
  }
  // Adds the sums to what `row` holds.
  void AddTo(OpRow* row) const {
    row->set_calls(row->calls() + calls);
    row->set_host_total_ps(row->host_total_ps() + host_total_ps);
    row->set_host_self_ps(row->host_self_ps() + host_self_ps);
    row->set_device_total_ps(row->device_total_ps() + device_total_ps);
    row->set_device_self_ps(row->device_self_ps() + device_self_ps);
    row->set_device_self_events(row->device_self_events() + device_self_events);
    row->set_device_self_tensor_core_ps(row->device_self_tensor_core_ps() + device_self_tc_ps);
    row->set_device_total_tensor_core_ps(row->device_total_tensor_core_ps() + device_total_tc_ps);
  }
};

// Longest device self time first, then host self time, then name.
bool RowBefore(const OpRow& a, const OpRow& b) {
  return std::make_tuple(-a.device_self_ps(), -a.host_self_ps(), a.name(), a.input_shapes(),
                         a.input_types()) < std::make_tuple(-b.device_self_ps(), -b.host_self_ps(),
                                                            b.name(), b.input_shapes(),
                                                            b.input_types());
}

void SortRows(std::vector<OpRow>* rows) { std::sort(rows->begin(), rows->end(), RowBefore); }

// Python frames that say nothing about the caller: module markers (the
// module view has them), builtins and nn.Module's call plumbing.
bool IsStackNoise(absl::string_view frame) {
  return absl::StartsWith(frame, "nn.Module: ") || absl::StartsWith(frame, "<built-in") ||
         absl::StrContains(frame, "torch/nn/modules/module.py(");
}

// Interns call stack texts: one string per distinct stack, not per call.
class StackInterner {
 public:
  explicit StackInterner(std::deque<std::string>* texts) : texts_(texts) {}
  // The index of `text` in texts, -1 for "".
  int32_t Intern(std::string text) {
    if (text.empty()) return -1;
    auto it = index_.find(text);
    if (it != index_.end()) return it->second;
    const int32_t id = static_cast<int32_t>(texts_->size());
    texts_->push_back(std::move(text));
    index_.emplace(texts_->back(), id);
    return id;
  }

 private:
  std::deque<std::string>* texts_;
  absl::flat_hash_map<absl::string_view, int32_t> index_;
};

// The interned stack (StackInterner index, -1 for none) of Python contexts:
// the innermost `depth` frames that are not noise, joined by ";". The
// frames are found by event metadata (one name each), so a context is
// looked up by the indices of its frames, and its text is only joined and
// interned the first time those indices come.
class PythonStacks {
 public:
  PythonStacks(const OpTree& tree, int depth, StackInterner* interner)
      : tree_(tree),
        depth_(static_cast<size_t>(depth)),  // As the recorded stacks: < 0 keeps all.
        interner_(interner),
        frame_kind_(tree.host_plane != nullptr ? tree.host_plane->num_event_metadata() : 0,
                    kUnknown) {}

  // The stack of the context `py` (indices into thread.python, outermost
  // first, as ForEachOpWithPythonContext gives them).
  int32_t Of(const OpThread& thread, const std::vector<int32_t>& py) {
    key_.clear();
    size_t frames = 0;
    for (auto it = py.rbegin(); it != py.rend() && frames < depth_; ++it) {
      const uint32_t m = tree_.PythonMetadata(thread, *it);
      uint8_t& kind = frame_kind_[m];
      if (kind == kUnknown) {
        const absl::string_view name = tree_.host_plane->event_name(m);
        // An empty name may have no data at all: never hand it to StrJoin.
        kind = !name.empty() && !IsStackNoise(name) ? kFrame : kNoise;
      }
      if (kind != kFrame) continue;
      key_.append(reinterpret_cast<const char*>(&m), sizeof m);
      ++frames;
    }
    auto found = of_frames_.find(absl::string_view(key_));
    if (found != of_frames_.end()) return found->second;
    std::vector<absl::string_view> names;
    for (size_t k = 0; k < key_.size(); k += sizeof(uint32_t)) {
      uint32_t m;
      std::memcpy(&m, key_.data() + k, sizeof m);
      names.push_back(tree_.host_plane->event_name(m));
    }
    const int32_t stack = interner_->Intern(absl::StrJoin(names, ";"));
    of_frames_.emplace(key_, stack);
    return stack;
  }

 private:
  enum : uint8_t { kUnknown = 0, kFrame, kNoise };
  const OpTree& tree_;
  const size_t depth_;
  StackInterner* interner_;
  std::vector<uint8_t> frame_kind_;  // By event metadata index.
  std::string key_;                  // The frames' metadata indices, as bytes.
  absl::flat_hash_map<std::string, int32_t> of_frames_;
};

// Calls fn(line, op_index, stack) for each op call with a call stack: its
// innermost `depth` frames joined by ";", interned in `texts` (stack is the
// index): the call's `call_stack` stat, else the Python events around it.
// `line` is the host line of the call's thread (OpTree::HostLine), which
// holds its event.
template <typename Fn>
void ForEachOpCallStack(const OpTree& tree, int depth, std::deque<std::string>* texts, Fn&& fn) {
  StackInterner interner(texts);
  PythonStacks python_stacks(tree, depth, &interner);
  // The recorded stack is one of the call's inputs texts: cut it once per
  // OpTree::inputs entry, not once per call (kUncut: not yet).
  constexpr int32_t kUncut = -2;
  std::vector<int32_t> stack_of_inputs(tree.inputs.size(), kUncut);
  auto recorded = [&](const OpCall& c) {
    int32_t& stack = stack_of_inputs[c.inputs];
    if (stack == kUncut) {
      absl::string_view text = tree.InputsOf(c).call_stack;
      stack = -1;
      if (!text.empty()) {
        std::vector<absl::string_view> frames = absl::StrSplit(text, ';', absl::SkipEmpty());
        if (frames.size() > static_cast<size_t>(depth)) frames.resize(depth);
        stack = interner.Intern(absl::StrJoin(frames, ";"));
      }
    }
    return stack;
  };
  for (const OpThread& thread : tree.threads) {
    if (thread.first_op == thread.end_op) continue;
    const xplane::XLineVisitor line = tree.HostLine(thread);
    if (thread.python.empty()) {
      for (int32_t op = thread.first_op; op < thread.end_op; ++op) {
        const int32_t stack = recorded(tree.ops[op]);
        if (stack >= 0) fn(line, op, stack);
      }
      continue;
    }
    // The Python context's stack by its innermost event (kUncut: not yet):
    // while an event is innermost, the events around it are those that were
    // open when it began (ForEachOpWithPythonContext only pushes and pops),
    // so the innermost one decides the stack, and each is cut and joined
    // once, not once per op call inside it.
    std::vector<int32_t> stack_of_python(thread.python.size(), kUncut);
    ForEachOpWithPythonContext(tree, thread, [&](int32_t op, const std::vector<int32_t>& py) {
      int32_t stack = recorded(tree.ops[op]);
      if (stack < 0 && !py.empty()) {
        stack = stack_of_python[py.back()];
        if (stack == kUncut) {
          stack = python_stacks.Of(thread, py);
          stack_of_python[py.back()] = stack;
        }
      }
      if (stack >= 0) fn(line, op, stack);
    });
  }
}

struct StackStats {
  int64_t calls = 0, host_total_ps = 0, device_total_ps = 0;
};

// OpRow.call_stacks of every by-name row: the stacks_per_op most expensive
// (device total, then host total) stacks of each op name.
void AddCallStacks(const OpTree& tree, const OperatorStatsOptions& o,
                   const std::vector<OpRow*>& rows) {
  std::deque<std::string> texts;
  absl::flat_hash_map<std::pair<int32_t, int32_t>, StackStats> by_stack;
  auto add = [&](const xplane::XLineVisitor& line, int32_t op, int32_t stack) {
    const OpCall& c = tree.ops[op];
    StackStats& s = by_stack[std::make_pair(c.name, stack)];
    ++s.calls;
    s.host_total_ps += line.event(c.event).duration_ps();
    s.device_total_ps += tree.DeviceOf(c).total_ps;
  };
  ForEachOpCallStack(tree, o.stack_depth, &texts, add);
  absl::flat_hash_map<int32_t, std::vector<std::pair<absl::string_view, StackStats>>> per_name;
  for (const auto& [key, stats] : by_stack) {
    per_name[key.first].emplace_back(texts[key.second], stats);
  }
  for (auto& [name, list] : per_name) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(-a.second.device_total_ps, -a.second.host_total_ps, a.first) <
             std::make_tuple(-b.second.device_total_ps, -b.second.host_total_ps, b.first);
    });
    if (list.size() > static_cast<size_t>(o.stacks_per_op)) list.resize(o.stacks_per_op);
    OpRow* row = rows[name];
    for (const auto& [stack, stats] : list) {
      tbprof::OpCallStack* s = row->add_call_stacks();
      s->set_stack(std::string(stack));
      s->set_calls(stats.calls);
      s->set_host_total_ps(stats.host_total_ps);
      s->set_device_total_ps(stats.device_total_ps);
    }
  }
}

// Kernels of each op name (and of each unattributed reason), longest first.
void AddKernels(const OpTree& tree, const OperatorStatsOptions& o,
                const std::vector<OpRow*>& rows, tbprof::OperatorStats* stats) {
  std::vector<const KernelUse*> uses;
  uses.reserve(tree.kernels.size());
  for (const KernelUse& k : tree.kernels) uses.push_back(&k);
  std::sort(uses.begin(), uses.end(), [](const KernelUse* a, const KernelUse* b) {
    return std::make_tuple(a->op_name, -a->total_ps, a->kernel) <
           std::make_tuple(b->op_name, -b->total_ps, b->kernel);
  });
  for (const KernelUse* k : uses) {
    google::protobuf::RepeatedPtrField<tbprof::OpKernel>* list;
    int cap = o.kernels_per_op;
    if (k->op_name >= 0) {
      list = rows[k->op_name]->mutable_kernels();
    } else {
      list = stats->mutable_unattributed(-1 - k->op_name)->mutable_kernels();
      cap = o.unattributed_kernels;
    }
    if (list->size() >= cap) continue;
    tbprof::OpKernel* out = list->Add();
    out->set_name(std::string(k->kernel));
    out->set_occurrences(k->occurrences);
    out->set_total_ps(k->total_ps);
    out->set_uses_tensor_core(k->uses_tensor_core);
  }
}

std::string Events(int64_t n) {
  return absl::StrCat(n, n == 1 ? " device event" : " device events");
}

// One line on what an unattributed reason means.
std::string Explanation(Unattributed reason, int64_t events, int64_t ps) {
  const std::string head = absl::StrCat(Events(events), " (", Ms(ps), ") ");
  const bool one = events == 1;
  switch (reason) {
    case Unattributed::kNoCorrelation:
      return absl::StrCat(head, one ? "carries" : "carry",
                          " no correlation id and names no op: no op is known to have "
                          "launched ", one ? "it" : "them");
    case Unattributed::kLaunchNotFound:
      return absl::StrCat(head, one ? "was" : "were",
                          " launched by calls that are not in the trace (launched before the "
                          "profiler started, or the trace lost them)");
    case Unattributed::kOutsideOps:
      return absl::StrCat(head, one ? "was" : "were",
                          " launched outside any op (e.g. directly in a ProfilerStep)");
  }
  return head;
}

// The by-shape row of each (op name, OpTree::inputs entry): one entry per
// inputs entry remembers its first name (most entries have one), calls with
// nothing recorded go by name, the rest through a map.
class ShapeRowIndex {
 public:
  explicit ShapeRowIndex(const OpTree& tree)
      : of_inputs_(tree.inputs.size()), of_name_(tree.names.size(), -1) {}

  // The row of the call's (name, inputs); kNew if it has none yet.
  static constexpr int32_t kNew = -1;
  int32_t Find(const OpCall& c) const {
    if (c.inputs == 0) return of_name_[c.name];
    const NameRow& first = of_inputs_[c.inputs];
    if (first.name == c.name) return first.row;
    auto it = others_.find(std::make_pair(c.name, c.inputs));
    return it == others_.end() ? kNew : it->second;
  }
  void Set(const OpCall& c, int32_t row) {
    if (c.inputs == 0) {
      of_name_[c.name] = row;
      return;
    }
    NameRow& first = of_inputs_[c.inputs];
    if (first.name < 0) {
      first = {c.name, row};
    } else {
      others_.emplace(std::make_pair(c.name, c.inputs), row);
    }
  }

 private:
  struct NameRow {
    int32_t name = -1, row = -1;
  };
  std::vector<NameRow> of_inputs_;
  std::vector<int32_t> of_name_;
  absl::flat_hash_map<std::pair<int32_t, uint32_t>, int32_t> others_;
};

// OperatorStats.ops_by_input_shape: per (op name, input shapes, input
// types), the max_rows first by RowBefore. Also sums the calls by name into
// `name_sums`: each by-shape row holds calls of one name, so a name's sums
// are those of its rows (integers: the same as summing its calls).
void AddInputShapeRows(const OpTree& tree, const OperatorStatsOptions& o,
                       const std::vector<OpRow*>& row_of_name, std::vector<RowSums>* name_sums,
                       tbprof::OperatorStats* out) {
  ShapeRowIndex rows(tree);
  absl::flat_hash_map<std::tuple<int32_t, absl::string_view, absl::string_view>, int32_t> index;
  std::vector<OpRow> by_shape;
  std::vector<RowSums> sums;
  std::vector<int32_t> name_of_row;  // Parallel to sums.
  // The row of a call of a new (name, inputs): an existing one by (name,
  // shapes, types), or a new one. Out of line, so that the loop below stays
  // small enough to be inlined into the pass over the calls.
  auto row_of_new = [&](const OpCall& c) ABSL_ATTRIBUTE_NOINLINE {
    const OpInputsText& text = tree.InputsOf(c);
    auto [it, inserted] = index.try_emplace(std::make_tuple(c.name, text.input_dims, text.input_types),
                                            static_cast<int32_t>(by_shape.size()));
    rows.Set(c, it->second);
    if (inserted) {
      OpRow& row = by_shape.emplace_back();
      row.set_name(std::string(tree.names[c.name].name));
      row.set_input_shapes(std::string(text.input_dims));
      row.set_input_types(std::string(text.input_types));
      row.set_tensor_core_eligible(row_of_name[c.name]->tensor_core_eligible());
      sums.emplace_back();
      name_of_row.push_back(c.name);
    }
    return it->second;
  };
  // The open calls of the current thread with their rows, innermost last:
  // a call's parent is on it (calls come in nesting order, parents first),
  // so its row is found without a lookup.
  struct Open {
    int32_t op, row;
  };
  std::vector<Open> open;
  ForEachCallWithDuration(tree, [&](const OpCall& c, int64_t duration_ps) {
    const int32_t op = static_cast<int32_t>(&c - tree.ops.data());
    int32_t r = rows.Find(c);
    if (r == ShapeRowIndex::kNew) r = row_of_new(c);
    sums[r].Add(duration_ps, tree.DeviceOf(c));
    while (!open.empty() && open.back().op != c.parent) open.pop_back();
    if (c.parent >= 0) {
      // The parent came first: its row is known.
      const int32_t parent_row =
          !open.empty() ? open.back().row : rows.Find(tree.ops[c.parent]);
      sums[parent_row].host_self_ps -= duration_ps;
    }
    open.push_back({op, r});
  });
  for (size_t i = 0; i < sums.size(); ++i) {
    sums[i].AddTo(&by_shape[i]);
    (*name_sums)[name_of_row[i]].Add(sums[i]);
  }
  SortRows(&by_shape);
  if (by_shape.size() > static_cast<size_t>(o.max_rows)) by_shape.resize(o.max_rows);
  for (OpRow& row : by_shape) *out->add_ops_by_input_shape() = std::move(row);
}

void AddNotes(const OpTree& tree, tbprof::OperatorStats* out) {
  int64_t by_name_events = 0, by_name_ps = 0;
  for (const OpName& n : tree.names) {
    by_name_events += n.by_name_events;
    by_name_ps += n.by_name_ps;
  }
  if (by_name_events > 0) {
    out->add_notes(absl::StrCat(Events(by_name_events), " (", Ms(by_name_ps), ") ",
                                by_name_events == 1 ? "names its" : "name their",
                                " op (tf_op) but no call of it launched ",
                                by_name_events == 1 ? "it" : "them",
                                " (no correlation id, or the launch is elsewhere): that op's "
                                "self time only, in no caller's total and no input-shape row"));
  }
  if (!out->has_input_shapes() && !tree.ops.empty()) {
    out->add_notes("no input shapes: profile with torch.profiler.profile(record_shapes=True) "
                   "to group ops by input shape and count GEMM FLOPs");
  }
  if (!out->has_call_stacks() && !tree.ops.empty()) {
    out->add_notes("no call stacks: profile with torch.profiler.profile(with_stack=True) to "
                   "see where expensive ops are called from");
  }
}

}  // namespace

tbprof::OperatorStats OperatorStatsFromTree(const OpTree& tree, const OperatorStatsOptions& o) {
  tbprof::OperatorStats out;
  out.set_op_source(tree.ops_from_tf_op ? "tf_op" : "host events");
  out.set_host_ops(static_cast<int64_t>(tree.ops.size()));
  out.set_device_events(tree.device_events);
  out.set_device_time_ps(tree.device_ps);
  out.set_kernel_time_ps(tree.kernel_ps);
  out.set_attributed_device_time_ps(tree.AttributedPs());
  out.set_has_input_shapes(tree.ops_with_input_dims > 0);
  out.set_has_call_stacks(tree.ops_with_call_stack > 0 || tree.python_events > 0);
  for (int r = 0; r < kNumUnattributedReasons; ++r) {
    tbprof::UnattributedDeviceTime* u = out.add_unattributed();
    u->set_reason(std::string(UnattributedReasonText(static_cast<Unattributed>(r))));
    u->set_events(tree.unattributed_events[r]);
    u->set_time_ps(tree.unattributed_ps[r]);
    if (tree.unattributed_events[r] > 0) {
      u->set_explanation(Explanation(static_cast<Unattributed>(r), tree.unattributed_events[r],
                                     tree.unattributed_ps[r]));
    }
  }

  // By name: one row per op name, in name order until sorted at the end.
  std::vector<OpRow*> row_of_name(tree.names.size());
  for (size_t n = 0; n < tree.names.size(); ++n) {
    const OpName& name = tree.names[n];
    OpRow* row = out.add_ops();
    row_of_name[n] = row;
    row->set_name(std::string(name.name));
    row->set_tensor_core_eligible(IsOpTensorCoreEligible(name.name) ||
                                  name.any_tensor_core_kernel);
    row->set_device_self_ps(name.by_name_ps);
    row->set_device_total_ps(name.by_name_ps);
    row->set_device_self_by_name_ps(name.by_name_ps);
    row->set_device_self_events(name.by_name_events);
    row->set_device_self_tensor_core_ps(name.by_name_tc_ps);
    row->set_device_total_tensor_core_ps(name.by_name_tc_ps);
  }
  std::vector<RowSums> name_sums(tree.names.size());
  if (out.has_input_shapes()) {
    AddInputShapeRows(tree, o, row_of_name, &name_sums, &out);
  } else {
    ForEachCallWithDuration(tree, [&](const OpCall& c, int64_t duration_ps) {
      name_sums[c.name].Add(duration_ps, tree.DeviceOf(c));
      if (c.parent >= 0) name_sums[tree.ops[c.parent].name].host_self_ps -= duration_ps;
    });
  }
  for (size_t n = 0; n < name_sums.size(); ++n) name_sums[n].AddTo(row_of_name[n]);
  AddKernels(tree, o, row_of_name, &out);
  if (out.has_call_stacks()) AddCallStacks(tree, o, row_of_name);
  std::sort(out.mutable_ops()->pointer_begin(), out.mutable_ops()->pointer_end(),
            [](const OpRow* a, const OpRow* b) { return RowBefore(*a, *b); });
  AddNotes(tree, &out);
  if (tree.ops.empty() && out.ops_size() == 0) {
    out.set_no_data_reason(
        tree.threads.empty()
            ? "no host threads in this profile, so no framework ops"
            : "no framework ops on the host threads (PyTorch records them as cpu_op and "
              "user_annotation events)");
  }
  return out;
}

OperatorViews ConvertXSpaceToOperatorViews(const xplane::XSpaceData& space,
                                           const OperatorStatsOptions& options) {
  const OpTree tree = BuildOpTree(space);
  OperatorViews views;
  views.operators = OperatorStatsFromTree(tree, options);
  views.modules = ModuleStatsFromTree(tree);
  views.gemm_efficiency = GemmEfficiencyFromTree(tree, options);
  return views;
}

}  // namespace tbprof::views
