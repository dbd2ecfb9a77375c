// The module view: host and device time per nn.Module path, as a tree.
//
// PyTorch's profiler with with_modules=True (or with_stack=True) records a
// Python event "nn.Module: <Class>_<k>" around each module call, on the
// thread's Python line (op_tree.h kPythonStackLineSuffix). Module calls nest
// by time; a call's path is its enclosing module calls' names and its own,
// joined by "/" ("Net_0/Encoder_0/Linear_0"). Per path, over its calls:
//   host total   = sum of the module calls' durations
//   host self    = host total - durations of the module calls directly inside
//   device self  = device self time of the op calls whose innermost enclosing
//                  module call (by time, same thread) is one of these calls
//   device total = device self + device total of the child paths
//   ops          = number of those op calls.
// Device time of ops outside every module (the backward pass runs on another
// thread; the optimizer, data loading) and time attributed by op name only
// (op_tree.h) is device_time_outside_modules_ps.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_MODULE_TREE_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_MODULE_TREE_H_

#include "absl/strings/string_view.h"
#include "converters/views/operators/op_tree.h"
#include "proto/operator_stats.pb.h"

namespace tbprof::views {

// Prefix of PyTorch's module events.
inline constexpr absl::string_view kModuleEventPrefix = "nn.Module: ";

// The module view of a tree. Never fails; without module events it has no
// modules and a one-line no_data_reason.
tbprof::ModuleStats ModuleStatsFromTree(const OpTree& tree);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_MODULE_TREE_H_
