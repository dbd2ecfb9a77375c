#include "converters/views/operators/module_tree.h"

#include <string>

#include "converters/views/operators/operators_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using testing::kUs;
using testing::SampleSpace;

TEST(ModuleTreeTest, TimePerModulePath) {
  SampleSpace sample;
  const OpTree tree = BuildOpTree(sample.Finish());
  const tbprof::ModuleStats m = ModuleStatsFromTree(tree);
  ASSERT_EQ(m.modules_size(), 3);
  // Depth first: Net_0, then its children in call order.
  const tbprof::ModuleNode& net = m.modules(0);
  const tbprof::ModuleNode& linear = m.modules(1);
  const tbprof::ModuleNode& relu = m.modules(2);
  EXPECT_EQ(net.path(), "Net_0");
  EXPECT_EQ(net.parent(), -1);
  EXPECT_EQ(linear.path(), "Net_0/Linear_0");
  EXPECT_EQ(linear.name(), "Linear_0");
  EXPECT_EQ(linear.parent(), 0);
  EXPECT_EQ(linear.depth(), 1);
  EXPECT_EQ(relu.path(), "Net_0/ReLU_0");

  // Host: Net_0 [5, 650) = 645 us, minus Linear_0 291 and ReLU_0 145.
  EXPECT_EQ(net.occurrences(), 1);
  EXPECT_EQ(net.host_total_ps(), 645 * kUs);
  EXPECT_EQ(net.host_self_ps(), 209 * kUs);
  EXPECT_EQ(linear.host_total_ps(), 291 * kUs);
  // Device: linear, t, addmm begin inside Linear_0 (110 us); my_block only in
  // Net_0 (20 us); relu in ReLU_0 (5 us; its 4 us by name are in no module).
  EXPECT_EQ(linear.device_self_ps(), 110 * kUs);
  EXPECT_EQ(linear.ops(), 3);
  EXPECT_EQ(relu.device_self_ps(), 5 * kUs);
  EXPECT_EQ(net.device_self_ps(), 20 * kUs);
  EXPECT_EQ(net.ops(), 1);
  EXPECT_EQ(net.device_total_ps(), 135 * kUs);
  // Outside: mm (10 us) and relu's 4 us by name.
  EXPECT_EQ(m.device_time_outside_modules_ps(), 14 * kUs);
  EXPECT_TRUE(m.no_data_reason().empty());
}

TEST(ModuleTreeTest, RepeatedCallsAggregateByPath) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("t");
  host->GetOrCreateLine(2)->SetName("t python stack");
  for (int i = 0; i < 2; ++i) {
    const int64_t base = i * 100 * kUs;
    b.HostEvent(2, "nn.Module: Block_0", base, 50 * kUs);
    b.HostEvent(2, "nn.Module: Linear_0", base + 10 * kUs, 20 * kUs);
    b.HostEvent(1, "aten::mm", base + 12 * kUs, 5 * kUs);
    b.Launch(1, base + 13 * kUs, 1 * kUs, 10 + i);
    b.Device(0, 7, "gemm", base + 20 * kUs, 3 * kUs, 10 + i);
  }
  const tbprof::ModuleStats m = ModuleStatsFromTree(BuildOpTree(b.Finish()));
  ASSERT_EQ(m.modules_size(), 2);
  EXPECT_EQ(m.modules(0).occurrences(), 2);
  EXPECT_EQ(m.modules(0).host_total_ps(), 100 * kUs);
  EXPECT_EQ(m.modules(0).host_self_ps(), 60 * kUs);
  EXPECT_EQ(m.modules(1).device_self_ps(), 6 * kUs);
  EXPECT_EQ(m.modules(1).ops(), 2);
  EXPECT_EQ(m.modules(0).device_total_ps(), 6 * kUs);
  EXPECT_EQ(m.device_time_outside_modules_ps(), 0);
}

TEST(ModuleTreeTest, SameNameUnderOtherParentsIsAnotherPath) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("t");
  host->GetOrCreateLine(2)->SetName("t python stack");
  b.HostEvent(2, "nn.Module: Block_0", 0, 50 * kUs);
  b.HostEvent(2, "nn.Module: Linear_0", 10 * kUs, 10 * kUs);
  // A second event metadata of the same name: the same module path.
  const uint32_t name_id =
      host->event_metadata(host->GetOrCreateEventMetadata("nn.Module: Linear_0")).name;
  const uint32_t second = host->GetOrCreateEventMetadata("second Linear_0");
  host->event_metadata(second).name = name_id;
  host->GetOrCreateLine(2)->AddEvent(second, 30 * kUs, 10 * kUs);
  b.HostEvent(2, "nn.Module: Block_1", 100 * kUs, 50 * kUs);
  b.HostEvent(2, "nn.Module: Linear_0", 110 * kUs, 20 * kUs);
  b.HostEvent(1, "aten::mm", 112 * kUs, 5 * kUs);
  const tbprof::ModuleStats m = ModuleStatsFromTree(BuildOpTree(b.Finish()));
  ASSERT_EQ(m.modules_size(), 4);
  EXPECT_EQ(m.modules(0).path(), "Block_0");
  EXPECT_EQ(m.modules(1).path(), "Block_0/Linear_0");
  EXPECT_EQ(m.modules(1).occurrences(), 2);
  EXPECT_EQ(m.modules(1).host_total_ps(), 20 * kUs);
  EXPECT_EQ(m.modules(2).path(), "Block_1");
  EXPECT_EQ(m.modules(3).path(), "Block_1/Linear_0");
  EXPECT_EQ(m.modules(3).occurrences(), 1);
  EXPECT_EQ(m.modules(3).ops(), 1);
  EXPECT_EQ(m.modules(2).host_self_ps(), 30 * kUs);
}

// Threads without Python events, or with Python events but no module call,
// add no module and put their device time outside every module.
TEST(ModuleTreeTest, ThreadsWithoutModuleCalls) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("t");
  host->GetOrCreateLine(2)->SetName("t python stack");
  host->GetOrCreateLine(3)->SetName("u");  // No Python line.
  host->GetOrCreateLine(4)->SetName("v");
  host->GetOrCreateLine(5)->SetName("v python stack");  // No module event.
  b.HostEvent(2, "nn.Module: Block_0", 0, 50 * kUs);
  b.HostEvent(1, "aten::mm", 10 * kUs, 5 * kUs);
  b.Launch(1, 11 * kUs, 1 * kUs, 1);
  b.Device(0, 7, "gemm", 20 * kUs, 3 * kUs, 1);
  b.HostEvent(3, "aten::add", 10 * kUs, 5 * kUs);
  b.Launch(3, 11 * kUs, 1 * kUs, 2);
  b.Device(0, 7, "add", 30 * kUs, 7 * kUs, 2);
  b.HostEvent(5, "model.py(3): f", 0, 50 * kUs);
  b.HostEvent(4, "aten::mul", 10 * kUs, 5 * kUs);
  b.Launch(4, 11 * kUs, 1 * kUs, 3);
  b.Device(0, 7, "mul", 40 * kUs, 11 * kUs, 3);
  const tbprof::ModuleStats m = ModuleStatsFromTree(BuildOpTree(b.Finish()));
  ASSERT_EQ(m.modules_size(), 1);
  EXPECT_EQ(m.modules(0).path(), "Block_0");
  EXPECT_EQ(m.modules(0).ops(), 1);
  EXPECT_EQ(m.modules(0).device_total_ps(), 3 * kUs);
  EXPECT_EQ(m.device_time_outside_modules_ps(), 18 * kUs);
}

}  // namespace
}  // namespace tbprof::views
