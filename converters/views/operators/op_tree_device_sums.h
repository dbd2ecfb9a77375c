// The device time sums of an op tree (OpTree::device_sums and
// device_tc_sums, op_tree.h) while TreeBuilder (op_tree.cc) fills them.
//
// Contract. While the host plane is read, OpCall::device is kNoDevice, or
// kMayHaveDevice for the calls around a launch (the callers of a launch's
// innermost op, counted in `calls_that_may_have_device`): only those can get
// device time. DeviceSumsIndex() gives a call its entries (zero) the first
// time; the self times are then added there. SumDeviceTotals() runs once,
// after the last self time: it fills every total (self plus the calls
// inside, in integer picoseconds) and the lowest OpTree::gpus index, gives
// the callers of a call with device time entries too, and turns every
// OpCall::device that has none into kNoDevice (-1). device_tc_sums is
// either empty or parallel to device_sums throughout.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_DEVICE_SUMS_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_DEVICE_SUMS_H_

#include <cstddef>
#include <cstdint>

#include "converters/views/operators/op_tree.h"

namespace tbprof::views::op_tree_internal {

// OpCall::device while the host plane is read: kMayHaveDevice for the
// calls around a launch (SumDeviceTotals turns those left into kNoDevice).
inline constexpr int32_t kNoDevice = -1;
inline constexpr int32_t kMayHaveDevice = -2;

// The call's OpTree::device_sums index, with new (zero) entries if it has
// none yet. Inline: it runs once per attributed device event.
inline int32_t DeviceSumsIndex(OpTree* tree, int32_t call, size_t calls_that_may_have_device) {
  OpCall& c = tree->ops[call];
  if (c.device < 0) {
    // At most one entry per call around a launch: the entries never move.
    if (tree->device_sums.empty()) tree->device_sums.reserve(calls_that_may_have_device);
    c.device = static_cast<int32_t>(tree->device_sums.size());
    tree->device_sums.emplace_back();
    if (!tree->device_tc_sums.empty()) tree->device_tc_sums.emplace_back();
  }
  return c.device;
}

// Device totals from the self times: children come after their parent,
// so in reverse order each call is complete before it is added to its
// parent. The GPU of a call is the lowest of its own and its children's.
void SumDeviceTotals(OpTree* tree, size_t calls_that_may_have_device);

}  // namespace tbprof::views::op_tree_internal

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_DEVICE_SUMS_H_
