// The framework ops of one host as trees of op calls per host thread, with
// the device time each call launched: what the operator, module and GEMM
// efficiency views (xspace_to_operator_stats.h) are computed from.
//
// Ops. On each /host:CPU thread line (not derived lines, not the
// "<thread> python stack" lines of Python frames), an event is an op call
// when it is not a memory event (MemoryAllocation/Deallocation) or a step
// root (stat `_r`) and
//  * "tf_op" rule, used when the file marks its ops (some host event other
//    than a memory event carries a non-empty `tf_op` stat): the event carries
//    a non-empty `tf_op` or an `_ipl_stage_id` (an input-pipeline op, e.g. a
//    DataLoader iteration), or its name is a TensorFlow/JAX op name
//    ("scope/MatMul:MatMul"). These are the host ops of xprof's
//    framework_op_stats.
//  * "host events" rule otherwise (PyTorch traces converted without op
//    marks, TensorFlow files): the event has no `correlation_id` (runtime and
//    driver calls do), is not named like one ("cuda", "cu" or "hip" and an
//    upper-case letter: traces whose launches lost their correlation ids),
//    lasts more than 0 ps and is not Kineto's whole-trace span
//    "PyTorch Profiler (N)".
// An op's parent is the innermost op call on its line that contains it.
//
// Device time. Every event of a /device:GPU:<n> plane (kernels, memcpys,
// memsets; not derived lines) is attributed to at most one op call:
//  1. its `correlation_id` names a launch (a host event with the same
//     correlation_id); the candidate is the innermost op call around the
//     launch on the launch's line;
//  2. when the device event names its op in `tf_op` (the Kineto converter
//     writes the innermost CPU op around the launch, or, without a launch,
//     the op of the event's External id), that name wins: the call is the
//     innermost op of that name around the launch, and if there is none the
//     time goes to the op *name* only ("by name": in that op's self time but
//     in no caller's total);
//  3. otherwise the time is unattributed, for one of three reasons: no
//     correlation id, the launch is not in the trace, the launch is outside
//     every op.
// So per op name, the device self time equals what xprof's framework_op_stats
// shows for that name (it sums device events by `tf_op`), and
//   sum of all device self time + unattributed time == all device time
// exactly, in integer picoseconds.
//
// Strings, the Line pointers and the host plane visitor view `space`, which
// must outlive the tree and stay unmodified.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "converters/views/operators/gpu_peak_flops.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

// Stats the Kineto converter writes on CPU ops (chrome_json
// trace_event_mapper.cc, EmitOpArgStats): record_shapes' "Input Dims",
// "Input type", "Concrete Inputs" as JSON arrays without whitespace, and
// with_stack's "Call stack" (PyTorch < 2.0) as recorded.
inline constexpr absl::string_view kInputDimsStatName = "input_dims";
inline constexpr absl::string_view kInputTypesStatName = "input_types";
inline constexpr absl::string_view kConcreteInputsStatName = "concrete_inputs";
inline constexpr absl::string_view kCallStackStatName = "call_stack";
// The line of a thread's Python events ("python_function": with_stack frames
// and with_modules "nn.Module: <Name>_<k>" markers) is named after the
// thread's line with this suffix.
inline constexpr absl::string_view kPythonStackLineSuffix = " python stack";

// Why device time has no op (index into OpTree::unattributed_*).
enum class Unattributed : uint8_t { kNoCorrelation = 0, kLaunchNotFound, kOutsideOps };
inline constexpr int kNumUnattributedReasons = 3;
absl::string_view UnattributedReasonText(Unattributed reason);

// The record_shapes / with_stack stats of op calls; "" when not recorded.
// Calls with the same texts usually share one entry (OpCall::inputs).
struct OpInputsText {
  absl::string_view input_dims, input_types, concrete_inputs, call_stack;
};

// 20 bytes: a host trace holds millions of op calls. Its time is that of
// its host event, read back through OpTree::BeginPs/DurationPs/EventOf
// (not copied: 16 bytes per call). Its host self time is its duration minus
// those of the calls whose parent it is (not stored: the views sum it per
// row).
struct OpCall {
  // Index of its host event among the events of its thread's line
  // (OpThread::line), in the line's own event order.
  uint32_t event = 0;
  int32_t name = 0;     // Index into OpTree::names.
  int32_t parent = -1;  // Enclosing op call, -1 at the top.
  uint32_t inputs = 0;  // Index into OpTree::inputs; 0: nothing recorded.
  // Index into OpTree::device_sums; -1 when no device time is attributed
  // to the call or to any call inside it.
  int32_t device = -1;
};
static_assert(sizeof(OpCall) == 20, "OpCall must stay compact");

// The device time of an op call (OpTree::DeviceOf).
struct OpDeviceTime {
  int64_t self_ps = 0;
  int64_t total_ps = 0;     // Self plus that of the calls inside.
  int64_t self_tc_ps = 0;   // Of which in Tensor Core kernels.
  int64_t total_tc_ps = 0;
  int32_t self_events = 0;
  // OpTree::gpus index of its first device event (own or inside): the
  // lowest index among them, as the GPU planes are visited in index order;
  // -1 when it has none.
  int32_t gpu = -1;
};

// How OpTree stores OpDeviceTime, for the calls that have device time (the
// launching calls and their callers: about half of them in a training
// trace), in 24 bytes, and 16 more only in a trace with Tensor Core
// kernels.
struct OpDeviceSums {
  int64_t self_ps = 0;
  int64_t total_ps = 0;
  int32_t self_events = 0;
  int32_t gpu = -1;
};
struct OpTensorCoreSums {
  int64_t self_ps = 0;
  int64_t total_ps = 0;
};

struct OpName {
  absl::string_view name;
  int64_t by_name_ps = 0;  // Device time attributed by name only (see above).
  int64_t by_name_tc_ps = 0;
  int64_t by_name_events = 0;
  bool any_tensor_core_kernel = false;  // Any device event of this op name.
};

// Device events of one name whose op name is `op_name`, or that no op
// launched (op_name < 0: reason = Unattributed(-1 - op_name)).
struct KernelUse {
  int32_t op_name = 0;
  absl::string_view kernel;
  int64_t occurrences = 0;
  int64_t total_ps = 0;
  bool uses_tensor_core = false;
};

// An event of a thread's Python line, as OpTree::Python reads it.
struct PythonEvent {
  int64_t begin_ps = 0;
  int64_t end_ps = 0;
  absl::string_view name;
};

struct OpThread {
  absl::string_view name;  // Of the host line.
  // The host line, whose events OpCall::event indexes (null only in trees
  // not made by BuildOpTree, whose calls have no times).
  const xplane::Line* line = nullptr;
  // Its calls are ops[first_op, end_op), by begin time; the threads' ranges
  // follow each other: threads[t + 1].first_op == threads[t].end_op.
  int32_t first_op = 0;
  int32_t end_op = 0;
  // Its Python line (null when it has none), and the indices of that line's
  // events (aggregates left out) by (begin, longest first): 4 bytes per
  // Python event, read through OpTree::Python (a trace with a Python stack
  // has as many Python events as ops or more).
  const xplane::Line* python_line = nullptr;
  std::vector<uint32_t> python;
};

struct OpTreeGpu {
  int64_t ordinal = 0;
  GpuSpec spec;
};

struct OpTree {
  bool ops_from_tf_op = false;  // Which rule recognised ops (see above).
  std::vector<OpCall> ops;      // A parent comes before its children.
  std::vector<OpDeviceSums> device_sums;  // OpCall::device; unordered.
  // Empty when no device event of an op call ran on Tensor Cores, else
  // parallel to device_sums.
  std::vector<OpTensorCoreSums> device_tc_sums;
  // OpCall::inputs; inputs[0] is all "" (never empty after BuildOpTree).
  std::vector<OpInputsText> inputs = {OpInputsText{}};
  std::vector<OpName> names;
  std::vector<OpThread> threads;
  std::vector<OpTreeGpu> gpus;
  std::vector<KernelUse> kernels;  // Unordered.

  int64_t device_events = 0;
  int64_t device_ps = 0;
  int64_t kernel_ps = 0;  // Device events with kernel_details.
  int64_t unattributed_events[kNumUnattributedReasons] = {0, 0, 0};
  int64_t unattributed_ps[kNumUnattributedReasons] = {0, 0, 0};
  int64_t ops_with_input_dims = 0;
  int64_t ops_with_call_stack = 0;
  int64_t python_events = 0;

  // The host plane (OpThread::line), through which the calls' times are
  // read; null when the space has none. Shared: the tree may be moved or
  // copied, and the line visitors point to it.
  std::shared_ptr<const xplane::XPlaneVisitor> host_plane;

  // The host line of `thread` (which has one: see OpThread::line).
  xplane::XLineVisitor HostLine(const OpThread& thread) const {
    return xplane::XLineVisitor(host_plane.get(), thread.line);
  }
  // The host event of `call`, a call of `thread`.
  xplane::XEventVisitor EventOf(const OpThread& thread, const OpCall& call) const {
    return HostLine(thread).event(call.event);
  }
  // The call's begin, in ps from the space's base (XEventVisitor::begin_ps).
  int64_t BeginPs(const OpThread& thread, const OpCall& call) const {
    return EventOf(thread, call).begin_ps();
  }
  // The call's host time, in ps (XEventVisitor::duration_ps).
  int64_t DurationPs(const OpThread& thread, const OpCall& call) const {
    return EventOf(thread, call).duration_ps();
  }
  // Python event i of `thread` (i < thread.python.size()).
  PythonEvent Python(const OpThread& thread, size_t i) const {
    const xplane::XEventVisitor e = PythonEventOf(thread, i);
    return PythonEvent{e.begin_ps(), e.end_ps(), e.name()};
  }
  // The host plane event metadata index of Python event i of `thread`
  // (i < thread.python.size()): events of one metadata share their name
  // (host_plane->event_name), so per-name work can be done once per index.
  uint32_t PythonMetadata(const OpThread& thread, size_t i) const {
    return thread.python_line->events[thread.python[i]].metadata_index();
  }
  xplane::XEventVisitor PythonEventOf(const OpThread& thread, size_t i) const {
    return xplane::XLineVisitor(host_plane.get(), thread.python_line).event(thread.python[i]);
  }
  // The thread whose range holds ops[op] (0 <= op < ops.size()): a binary
  // search over the threads.
  const OpThread& ThreadOf(int32_t op) const;

  const OpInputsText& InputsOf(const OpCall& call) const { return inputs[call.inputs]; }
  // The call's device time; all zero (gpu -1) when it has none.
  OpDeviceTime DeviceOf(const OpCall& call) const {
    OpDeviceTime t;
    if (call.device < 0) return t;
    const OpDeviceSums& d = device_sums[call.device];
    t.self_ps = d.self_ps;
    t.total_ps = d.total_ps;
    t.self_events = d.self_events;
    t.gpu = d.gpu;
    if (!device_tc_sums.empty()) {
      t.self_tc_ps = device_tc_sums[call.device].self_ps;
      t.total_tc_ps = device_tc_sums[call.device].total_ps;
    }
    return t;
  }
  int64_t UnattributedPs() const;
  int64_t AttributedPs() const { return device_ps - UnattributedPs(); }
};

// Builds the tree of `space` (one host). Never fails: a space without host
// ops or GPU planes gives empty vectors. Runs in O(events log events) (one
// sort per line not already in nesting order, one of the launches when they
// are not in a few runs of rising correlation ids), else in O(events) plus
// O(device events x log of how far a line's consecutive correlation ids lie
// apart among the launches). Memory: the tree holds 20 bytes per op call
// (its time stays in its event: `space` must outlive the tree), 24 per call
// with device time (OpDeviceSums; 16 more with Tensor Core kernels), and
// the texts' tables; `ops` is reserved to one call per host event of the
// thread lines, of which only the pages written cost memory. Beyond the
// tree it holds the launches (12 bytes each) while it runs.
OpTree BuildOpTree(const xplane::XSpaceData& space);

// For each op call of `thread` in begin order, calls fn(op_index, frames)
// with the indices into thread.python of the Python events that contain the
// call's begin, outermost first.
template <typename Fn>
void ForEachOpWithPythonContext(const OpTree& tree, const OpThread& thread, Fn&& fn);

// Calls fn(call, duration_ps) for every op call, in the order of
// OpTree::ops (thread by thread), reading each thread's line once.
template <typename Fn>
void ForEachCallWithDuration(const OpTree& tree, Fn&& fn);

// ---- Template definitions --------------------------------------------------

template <typename Fn>
void ForEachCallWithDuration(const OpTree& tree, Fn&& fn) {
  for (const OpThread& thread : tree.threads) {
    if (thread.first_op == thread.end_op) continue;
    const xplane::XLineVisitor line = tree.HostLine(thread);
    for (int32_t op = thread.first_op; op < thread.end_op; ++op) {
      const OpCall& call = tree.ops[op];
      fn(call, line.event(call.event).duration_ps());
    }
  }
}

template <typename Fn>
void ForEachOpWithPythonContext(const OpTree& tree, const OpThread& thread, Fn&& fn) {
  if (thread.first_op == thread.end_op) return;
  // The times of the events of `stack`, read once (names are not read:
  // callers that need them look them up for the few contexts they keep).
  struct Span {
    int64_t begin_ps, end_ps;
  };
  std::vector<int32_t> stack;
  std::vector<Span> open;
  size_t next = 0;
  const size_t num_python = thread.python.size();
  const xplane::XLineVisitor line = tree.HostLine(thread);
  auto span = [&](size_t i) {
    const xplane::XEventVisitor e = tree.PythonEventOf(thread, i);
    const int64_t begin = e.begin_ps();
    return Span{begin, begin + e.duration_ps()};
  };
  Span e{0, 0};
  if (num_python > 0) e = span(0);
  for (int32_t i = thread.first_op; i < thread.end_op; ++i) {
    const int64_t t = line.event(tree.ops[i].event).begin_ps();
    while (next < num_python && e.begin_ps <= t) {
      while (!open.empty() &&
             !(open.back().begin_ps <= e.begin_ps && e.end_ps <= open.back().end_ps)) {
        stack.pop_back();
        open.pop_back();
      }
      stack.push_back(static_cast<int32_t>(next++));
      open.push_back(e);
      if (next < num_python) e = span(next);
    }
    while (!open.empty() && open.back().end_ps < t) {
      stack.pop_back();
      open.pop_back();
    }
    fn(i, static_cast<const std::vector<int32_t>&>(stack));
  }
}

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_H_
