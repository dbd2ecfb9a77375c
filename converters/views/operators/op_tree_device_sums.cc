#include "converters/views/operators/op_tree_device_sums.h"

#include <cstddef>
#include <cstdint>

#include "converters/views/operators/op_tree.h"

namespace tbprof::views::op_tree_internal {

void SumDeviceTotals(OpTree* tree, size_t calls_that_may_have_device) {
  const bool tc = !tree->device_tc_sums.empty();
  for (size_t i = tree->ops.size(); i-- > 0;) {
    OpCall& c = tree->ops[i];
    if (c.device < 0) {
      // kMayHaveDevice: none came. (Written only then: a call already
      // kNoDevice is left alone, and so is its cache line.)
      if (c.device != kNoDevice) c.device = kNoDevice;
      continue;
    }
    OpDeviceSums& d = tree->device_sums[c.device];
    d.total_ps += d.self_ps;
    if (tc) tree->device_tc_sums[c.device].total_ps += tree->device_tc_sums[c.device].self_ps;
    if (c.parent == -1) continue;  // At the top.
    const int32_t child = c.device;
    // May move the entries.
    const int32_t parent = DeviceSumsIndex(tree, c.parent, calls_that_may_have_device);
    const OpDeviceSums& from = tree->device_sums[child];
    OpDeviceSums& to = tree->device_sums[parent];
    to.total_ps += from.total_ps;
    if (to.gpu < 0 || from.gpu < to.gpu) to.gpu = from.gpu;
    if (tc) tree->device_tc_sums[parent].total_ps += tree->device_tc_sums[child].total_ps;
  }
}

}  // namespace tbprof::views::op_tree_internal
