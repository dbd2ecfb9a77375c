#include "converters/views/operators/op_tree_device_sums.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "converters/views/operators/op_tree.h"

namespace tbprof::views::op_tree_internal {
namespace {

// ops: 0 { 1 { 2 } 3 }  4   (parents before children), no device time yet.
OpTree SmallTree() {
  OpTree tree;
  for (int32_t parent : {-1, 0, 1, 0, -1}) {
    OpCall c;
    c.parent = parent;
    c.device = kNoDevice;
    tree.ops.push_back(c);
  }
  for (int i : {0, 1, 2, 3}) tree.ops[i].device = kMayHaveDevice;
  return tree;
}

void AddSelf(OpTree* tree, int32_t call, int64_t ps, int32_t gpu, int64_t tc_ps) {
  const int32_t d = DeviceSumsIndex(tree, call, 4);
  tree->device_sums[d].self_ps += ps;
  ++tree->device_sums[d].self_events;
  if (tree->device_sums[d].gpu < 0) tree->device_sums[d].gpu = gpu;
  if (tc_ps > 0) {
    if (tree->device_tc_sums.empty()) tree->device_tc_sums.resize(tree->device_sums.size());
    tree->device_tc_sums[d].self_ps += tc_ps;
  }
}

TEST(OpTreeDeviceSumsTest, IndexIsGivenOnceAndKept) {
  OpTree tree = SmallTree();
  EXPECT_EQ(DeviceSumsIndex(&tree, 2, 4), 0);
  EXPECT_EQ(DeviceSumsIndex(&tree, 3, 4), 1);
  EXPECT_EQ(DeviceSumsIndex(&tree, 2, 4), 0);
  EXPECT_EQ(tree.device_sums.size(), 2u);
  EXPECT_TRUE(tree.device_tc_sums.empty());
  EXPECT_GE(tree.device_sums.capacity(), 4u);
}

TEST(OpTreeDeviceSumsTest, TotalsLowestGpuAndNoDeviceLeft) {
  OpTree tree = SmallTree();
  AddSelf(&tree, 2, 100, /*gpu=*/1, 0);
  AddSelf(&tree, 3, 10, /*gpu=*/0, 0);
  AddSelf(&tree, 0, 1, /*gpu=*/1, 0);
  SumDeviceTotals(&tree, 4);
  // Call 1 had no time of its own but one inside: it gets entries.
  const OpDeviceTime t0 = tree.DeviceOf(tree.ops[0]), t1 = tree.DeviceOf(tree.ops[1]),
                     t2 = tree.DeviceOf(tree.ops[2]), t3 = tree.DeviceOf(tree.ops[3]);
  EXPECT_EQ(t2.self_ps, 100);
  EXPECT_EQ(t2.total_ps, 100);
  EXPECT_EQ(t1.self_ps, 0);
  EXPECT_EQ(t1.total_ps, 100);
  EXPECT_EQ(t1.gpu, 1);
  EXPECT_EQ(t3.total_ps, 10);
  EXPECT_EQ(t0.self_ps, 1);
  EXPECT_EQ(t0.self_events, 1);
  EXPECT_EQ(t0.total_ps, 111);
  EXPECT_EQ(t0.gpu, 0);  // The lowest of its own (1) and those inside.
  EXPECT_EQ(tree.ops[4].device, kNoDevice);
  EXPECT_EQ(tree.DeviceOf(tree.ops[4]).gpu, -1);
  EXPECT_TRUE(tree.device_tc_sums.empty());
}

TEST(OpTreeDeviceSumsTest, MayHaveDeviceWithoutTimeBecomesNoDevice) {
  OpTree tree = SmallTree();
  AddSelf(&tree, 3, 7, /*gpu=*/2, 0);
  SumDeviceTotals(&tree, 4);
  EXPECT_EQ(tree.ops[1].device, kNoDevice);
  EXPECT_EQ(tree.ops[2].device, kNoDevice);
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).total_ps, 7);
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).self_ps, 0);
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).gpu, 2);
}

TEST(OpTreeDeviceSumsTest, TensorCoreTotalsStayParallel) {
  OpTree tree = SmallTree();
  AddSelf(&tree, 3, 10, 0, 0);   // Before the first Tensor Core kernel.
  AddSelf(&tree, 2, 100, 0, 60);
  SumDeviceTotals(&tree, 4);
  ASSERT_EQ(tree.device_tc_sums.size(), tree.device_sums.size());
  EXPECT_EQ(tree.DeviceOf(tree.ops[2]).self_tc_ps, 60);
  EXPECT_EQ(tree.DeviceOf(tree.ops[1]).total_tc_ps, 60);
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).total_tc_ps, 60);
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).total_ps, 110);
  EXPECT_EQ(tree.DeviceOf(tree.ops[3]).total_tc_ps, 0);
}

}  // namespace
}  // namespace tbprof::views::op_tree_internal
