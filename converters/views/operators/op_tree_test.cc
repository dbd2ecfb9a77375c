#include "converters/views/operators/op_tree.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "converters/views/operators/operators_test_util.h"
#include "converters/views/common/steps_test_util.h"

namespace tbprof::views {
namespace {

using testing::kUs;
using testing::SampleOptions;
using testing::SampleSpace;

const OpCall* Call(const OpTree& tree, absl::string_view name) {
  for (const OpCall& c : tree.ops) {
    if (tree.names[c.name].name == name) return &c;
  }
  return nullptr;
}

// The host time of a call of `tree` (found by its index).
int64_t DurationPs(const OpTree& tree, const OpCall* call) {
  return tree.DurationPs(tree.ThreadOf(static_cast<int32_t>(call - tree.ops.data())), *call);
}
int64_t BeginPs(const OpTree& tree, const OpCall* call) {
  return tree.BeginPs(tree.ThreadOf(static_cast<int32_t>(call - tree.ops.data())), *call);
}

// Host self time is not stored: the durations of the calls directly inside.
int64_t ChildOpsPs(const OpTree& tree, const OpCall* call) {
  int64_t sum = 0;
  for (const OpCall& c : tree.ops) {
    if (c.parent >= 0 && &tree.ops[c.parent] == call) sum += DurationPs(tree, &c);
  }
  return sum;
}

const OpName* Name(const OpTree& tree, absl::string_view name) {
  for (const OpName& n : tree.names) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

TEST(OpTreeTest, HostTreeAndDeviceAttribution) {
  SampleSpace sample;
  const OpTree tree = BuildOpTree(sample.Finish());
  EXPECT_FALSE(tree.ops_from_tf_op);  // Host ops carry no tf_op: "host events" rule.
  // Ops: linear, t, addmm, my_block, relu, mm (not the step root, not launches).
  ASSERT_EQ(tree.ops.size(), 6u);
  ASSERT_EQ(tree.threads.size(), 1u);
  EXPECT_EQ(tree.threads[0].name, "main");
  EXPECT_EQ(tree.threads[0].python.size(), 5u);

  const OpCall* linear = Call(tree, "aten::linear");
  const OpCall* addmm = Call(tree, "aten::addmm");
  const OpCall* block = Call(tree, "my_block");
  const OpCall* relu = Call(tree, "aten::relu");
  ASSERT_NE(linear, nullptr);
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(linear->parent, -1);
  EXPECT_EQ(&tree.ops[addmm->parent], linear);
  EXPECT_EQ(&tree.ops[relu->parent], block);
  // linear [10, 300) with t (8 us) and addmm (250 us) inside.
  EXPECT_EQ(DurationPs(tree, linear), 290 * kUs);
  EXPECT_EQ(ChildOpsPs(tree, linear), 258 * kUs);
  // addmm launched 100 + 10 us; linear has it in its total only.
  EXPECT_EQ(tree.DeviceOf(*addmm).self_ps, 110 * kUs);
  EXPECT_EQ(tree.DeviceOf(*addmm).total_ps, 110 * kUs);
  EXPECT_EQ(tree.DeviceOf(*addmm).self_events, 2);
  // sm90_xmma_gemm uses Tensor Cores.
  EXPECT_EQ(tree.DeviceOf(*addmm).self_tc_ps, 100 * kUs);
  EXPECT_EQ(tree.DeviceOf(*linear).self_ps, 0);
  EXPECT_EQ(tree.DeviceOf(*linear).total_ps, 110 * kUs);
  EXPECT_EQ(tree.DeviceOf(*linear).total_tc_ps, 100 * kUs);
  EXPECT_EQ(tree.DeviceOf(*linear).self_events, 0);
  EXPECT_EQ(tree.DeviceOf(*addmm).gpu, 0);
  EXPECT_EQ(tree.DeviceOf(*linear).gpu, 0);
  // my_block launched custom_kernel itself (20 us); relu 5 us inside it.
  EXPECT_EQ(tree.DeviceOf(*block).self_ps, 20 * kUs);
  EXPECT_EQ(tree.DeviceOf(*block).total_ps, 25 * kUs);
  EXPECT_EQ(tree.DeviceOf(*relu).self_ps, 5 * kUs);
  // aten::t launched nothing and has nothing inside: no device entry.
  const OpCall* t = Call(tree, "aten::t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->device, -1);
  EXPECT_EQ(tree.DeviceOf(*t).gpu, -1);
  EXPECT_EQ(tree.DeviceOf(*t).total_ps, 0);
  // Stored only for the calls with device time; Tensor Core sums beside them.
  EXPECT_EQ(tree.device_sums.size(), 5u);  // linear, addmm, my_block, relu, mm.
  EXPECT_EQ(tree.device_tc_sums.size(), tree.device_sums.size());
  EXPECT_EQ(Name(tree, "aten::relu")->by_name_ps, 4 * kUs);
  EXPECT_EQ(tree.InputsOf(*linear).input_dims, "[[128,256],[512,256],[512]]");

  // 100+10+5+20+7+10 launched, 3 lost, 4 by name, 2 without correlation.
  EXPECT_EQ(tree.device_events, 9);
  EXPECT_EQ(tree.device_ps, 161 * kUs);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kNoCorrelation)], 2 * kUs);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kLaunchNotFound)], 3 * kUs);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kOutsideOps)], 7 * kUs);
  int64_t self = 0;
  for (const OpCall& c : tree.ops) self += tree.DeviceOf(c).self_ps;
  for (const OpName& n : tree.names) self += n.by_name_ps;
  EXPECT_EQ(self, tree.AttributedPs());
  EXPECT_EQ(self + tree.UnattributedPs(), tree.device_ps);
  EXPECT_EQ(tree.gpus.size(), 1u);
  EXPECT_EQ(tree.gpus[0].spec.sm_count, 132);
}

TEST(OpTreeTest, TfOpMarksSelectOpsAsXprofDoes) {
  // Host ops marked with tf_op (what xprof counts), plus an unmarked span.
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  const uint32_t tf_op = host->GetOrCreateStatMetadata(xplane::StatType::kTfOp);
  b.HostEvent(1, "aten::mm", 0, 100).AddRef(tf_op, "aten::mm");
  b.HostEvent(1, "custom span", 10, 20);  // Not marked: not an op.
  b.Launch(1, 12, 5, 7);
  b.HostEvent(1, "MemoryAllocation", 50, 0).AddRef(tf_op, "aten::mm");  // Memory: never an op.
  b.Device(0, 7, "kernel", 200, 30, 7);
  const OpTree tree = BuildOpTree(b.Finish());
  EXPECT_TRUE(tree.ops_from_tf_op);
  ASSERT_EQ(tree.ops.size(), 1u);
  EXPECT_EQ(tree.names[tree.ops[0].name].name, "aten::mm");
  EXPECT_EQ(ChildOpsPs(tree, &tree.ops[0]), 0);  // The custom span is not an op.
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).self_ps, 30);
  EXPECT_TRUE(tree.device_tc_sums.empty());  // No Tensor Core kernel.
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).self_tc_ps, 0);
}

TEST(OpTreeTest, TfOpNameWinsOverInnermostCall) {
  // The converter names aten::mm although a user annotation inside it is the
  // innermost span around the launch: the device time goes to aten::mm, as
  // xprof shows it.
  testing::StepSpaceBuilder b;
  b.HostEvent(1, "aten::mm", 0, 100);
  b.HostEvent(1, "inner annotation", 10, 50);
  b.Launch(1, 20, 5, 1);
  b.Device(0, 7, "k", 200, 30, 1)
      .AddRef(b.Gpu(0)->GetOrCreateStatMetadata(xplane::StatType::kTfOp), "aten::mm");
  // A tf_op that names no enclosing call: by name only.
  b.Launch(1, 30, 5, 2);
  b.Device(0, 7, "k2", 300, 40, 2)
      .AddRef(b.Gpu(0)->GetOrCreateStatMetadata(xplane::StatType::kTfOp), "aten::other");
  const OpTree tree = BuildOpTree(b.Finish());
  const OpCall* mm = Call(tree, "aten::mm");
  const OpCall* inner = Call(tree, "inner annotation");
  ASSERT_NE(mm, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(tree.DeviceOf(*mm).self_ps, 30);
  EXPECT_EQ(tree.DeviceOf(*inner).self_ps, 0);
  EXPECT_EQ(Name(tree, "aten::other")->by_name_ps, 40);
  // By-name time is in no caller's total.
  EXPECT_EQ(tree.DeviceOf(*mm).total_ps, 30);
}

TEST(OpTreeTest, CallsReadTheirTimesFromTheirEvents) {
  // Line 1 out of nesting order (reversed after Finish: the launch, inner,
  // outer), line 2 without ops, line 3 at a later timestamp: each call
  // names its event by its index in the line, and its time is the event's,
  // in ps from the space's base.
  testing::StepSpaceBuilder b;
  b.HostEvent(1, "outer", 10, 100);
  b.HostEvent(1, "inner", 20, 30);
  b.Launch(1, 25, 5, 1);
  b.HostEvent(2, "zero", 5, 0);  // No op: it lasts 0 ps.
  b.Host()->GetOrCreateLine(3)->SetTimestampNs(7);
  b.HostEvent(3, "late", 40, 2);
  xplane::XSpaceData& space = b.Finish();
  xplane::Plane* host = nullptr;
  for (xplane::Plane& plane : space.planes) {
    if (space.strings.Get(plane.name) == xplane::kHostThreadsPlaneName) host = &plane;
  }
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines[0].id, 1);
  ASSERT_EQ(host->lines[0].events.size(), 3u);
  {
    // Reversed with their stats, keeping Line's invariant (each event's
    // stats follow the previous event's).
    xplane::Line& line = host->lines[0];
    std::vector<std::vector<xplane::Stat>> stats_of_event;
    for (size_t i = 0; i < line.events.size(); ++i) {
      const absl::Span<const xplane::Stat> stats = line.event_stats(i);
      stats_of_event.emplace_back(stats.begin(), stats.end());
    }
    std::reverse(line.events.begin(), line.events.end());
    std::reverse(stats_of_event.begin(), stats_of_event.end());
    line.stats.clear();
    for (size_t i = 0; i < line.events.size(); ++i) {
      line.events[i].stats_begin = static_cast<uint32_t>(line.stats.size());
      line.stats.insert(line.stats.end(), stats_of_event[i].begin(), stats_of_event[i].end());
    }
  }
  const OpTree tree = BuildOpTree(space);
  ASSERT_EQ(tree.ops.size(), 3u);
  ASSERT_EQ(tree.threads.size(), 3u);
  const OpCall* outer = Call(tree, "outer");
  const OpCall* inner = Call(tree, "inner");
  const OpCall* late = Call(tree, "late");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(outer, &tree.ops[0]);  // A parent comes before its children.
  EXPECT_EQ(&tree.ops[inner->parent], outer);
  EXPECT_EQ(outer->event, 2u);
  EXPECT_EQ(inner->event, 1u);
  EXPECT_EQ(late->event, 0u);
  EXPECT_EQ(BeginPs(tree, outer), 10);
  EXPECT_EQ(DurationPs(tree, outer), 100);
  EXPECT_EQ(BeginPs(tree, inner), 20);
  EXPECT_EQ(DurationPs(tree, inner), 30);
  EXPECT_EQ(tree.EventOf(tree.threads[0], *inner).name(), "inner");
  EXPECT_EQ(BeginPs(tree, late), 7000 + 40);
  EXPECT_EQ(DurationPs(tree, late), 2);
  // ThreadOf skips the empty range of thread 2.
  EXPECT_EQ(&tree.ThreadOf(0), &tree.threads[0]);
  EXPECT_EQ(&tree.ThreadOf(1), &tree.threads[0]);
  EXPECT_EQ(&tree.ThreadOf(2), &tree.threads[2]);
  EXPECT_EQ(tree.threads[1].first_op, tree.threads[1].end_op);
  // A copy reads the same times.
  const OpTree copy = tree;
  EXPECT_EQ(BeginPs(copy, &copy.ops[2]), 7000 + 40);
}

TEST(OpTreeTest, LaunchesInAnyOrderFirstLaunchOfAnIdWins) {
  // Launch ids out of order on a line, sparse (2^40 + 5), and id 3 launched
  // on two lines: the first line's launch (lines in plane order) wins.
  const int64_t kFar = (int64_t{1} << 40) + 5;
  testing::StepSpaceBuilder b;
  b.HostEvent(1, "a", 0, 100);
  b.Launch(1, 10, 5, kFar);
  b.Launch(1, 20, 5, 3);
  b.Launch(1, 30, 5, 7);
  b.HostEvent(2, "b", 0, 100);
  b.Launch(2, 10, 5, 3);
  b.Launch(2, 20, 5, 1);
  b.Launch(3, 5, 5, 9);  // Outside every op.
  // Device events in no particular order of ids.
  b.Device(0, 7, "k7", 1000, 1, 7);
  b.Device(0, 7, "k1", 1010, 2, 1);
  b.Device(0, 8, "kfar", 1020, 4, kFar);
  b.Device(0, 7, "k3", 1030, 8, 3);
  b.Device(0, 7, "k9", 1040, 16, 9);
  b.Device(0, 8, "k11", 1050, 32, 11);  // No launch of id 11.
  b.Device(0, 8, "k3", 1060, 64, 3);
  const OpTree tree = BuildOpTree(b.Finish());
  ASSERT_EQ(tree.ops.size(), 2u);
  EXPECT_EQ(tree.DeviceOf(*Call(tree, "a")).self_ps, 1 + 4 + 8 + 64);
  EXPECT_EQ(tree.DeviceOf(*Call(tree, "a")).self_events, 4);
  EXPECT_EQ(tree.DeviceOf(*Call(tree, "b")).self_ps, 2);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kOutsideOps)], 16);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kLaunchNotFound)], 32);
}

// A line out of nesting order is read in index order until the first event
// out of order, then again, sorted: what the first pass added is taken back
// (calls, launches, counts), and the lines after it are unaffected.
TEST(OpTreeTest, LineOutOfNestingOrderIsReadSorted) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("unsorted");
  host->GetOrCreateLine(2)->SetName("sorted");
  b.HostEvent(1, "op1", 0, 100);
  b.Launch(1, 10, 5, 1);
  b.HostEvent(1, "op2", 200, 100)
      .AddRef(host->GetOrCreateStatMetadata(kInputDimsStatName), "[[2]]");
  b.Launch(1, 210, 5, 2);
  b.HostEvent(2, "op3", 0, 50);
  b.Launch(2, 10, 5, 3);
  b.Device(0, 7, "k1", 1000, 1, 1);
  b.Device(0, 7, "k2", 1010, 2, 2);
  b.Device(0, 7, "k3", 1020, 4, 3);
  xplane::XSpaceData& space = b.Finish();
  // Swap the times and names of the two ops (events 0 and 2 of line 1;
  // stats stay with their index, so op2's dims go to op1): index order is
  // now op2 [200, 300), launch 1, op1 [0, 100), launch 2.
  xplane::Plane& raw = *const_cast<xplane::Plane*>(
      xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName));
  xplane::Line* line = nullptr;
  for (xplane::Line& l : raw.lines) {
    if (l.id == 1) line = &l;
  }
  ASSERT_NE(line, nullptr);
  ASSERT_EQ(line->events.size(), 4u);
  std::swap(line->events[0].offset_ps, line->events[2].offset_ps);
  const uint32_t m0 = line->events[0].metadata_index(), m2 = line->events[2].metadata_index();
  line->events[0].set_metadata_index(m2);
  line->events[2].set_metadata_index(m0);

  const OpTree tree = BuildOpTree(space);
  ASSERT_EQ(tree.threads.size(), 2u);
  ASSERT_EQ(tree.ops.size(), 3u);
  EXPECT_EQ(tree.threads[0].first_op, 0);
  EXPECT_EQ(tree.threads[0].end_op, 2);
  EXPECT_EQ(tree.threads[1].first_op, 2);
  EXPECT_EQ(tree.threads[1].end_op, 3);
  // Sorted: op1 (now event 2) first, then op2 (event 0, which has no stat
  // now; the dims went with index 2 to op1).
  EXPECT_EQ(tree.names[tree.ops[0].name].name, "op1");
  EXPECT_EQ(tree.ops[0].event, 2u);
  EXPECT_EQ(tree.InputsOf(tree.ops[0]).input_dims, "[[2]]");
  EXPECT_EQ(tree.names[tree.ops[1].name].name, "op2");
  EXPECT_EQ(tree.ops[1].event, 0u);
  EXPECT_EQ(tree.ops[1].inputs, 0u);
  EXPECT_EQ(tree.ops_with_input_dims, 1);
  EXPECT_EQ(BeginPs(tree, &tree.ops[0]), 0);
  EXPECT_EQ(BeginPs(tree, &tree.ops[1]), 200);
  // Launch 1 [10, 15) is in op1, launch 2 [210, 215) in op2, 3 in op3.
  EXPECT_EQ(tree.DeviceOf(tree.ops[0]).self_ps, 1);
  EXPECT_EQ(tree.DeviceOf(tree.ops[1]).self_ps, 2);
  EXPECT_EQ(tree.DeviceOf(tree.ops[2]).self_ps, 4);
  EXPECT_EQ(tree.device_sums.size(), 3u);
  EXPECT_EQ(tree.UnattributedPs(), 0);
}

TEST(OpTreeTest, ManyRunsOfLaunchIdsStillFirstLaunchWins) {
  // 70 lines whose ids fall from line to line (more runs than are merged),
  // and a last line launching line 0's id again.
  testing::StepSpaceBuilder b;
  constexpr int kLines = 70;
  for (int l = 0; l < kLines; ++l) {
    b.HostEvent(l + 1, absl::StrCat("op", l), 0, 100);
    b.Launch(l + 1, 10, 5, 1000 - l);
    b.Device(0, 7, "k", 1000 + 10 * l, l + 1, 1000 - l);
  }
  b.HostEvent(kLines + 1, "late", 0, 100);
  b.Launch(kLines + 1, 10, 5, 1000);
  const OpTree tree = BuildOpTree(b.Finish());
  ASSERT_EQ(tree.ops.size(), static_cast<size_t>(kLines + 1));
  for (int l = 0; l < kLines; ++l) {
    EXPECT_EQ(tree.DeviceOf(*Call(tree, absl::StrCat("op", l))).self_ps, l + 1) << l;
  }
  EXPECT_EQ(Call(tree, "late")->device, -1);
  EXPECT_EQ(tree.AttributedPs(), tree.device_ps);
}

TEST(OpTreeTest, DeviceTotalsAndFirstGpuAcrossPlanes) {
  // outer launches on GPU 1 and holds inner, which launches on GPU 0: the
  // GPU 0 plane is visited first, so both calls' first GPU is 0.
  testing::StepSpaceBuilder b;
  b.HostEvent(1, "outer", 0, 100);
  b.Launch(1, 5, 5, 1);
  b.HostEvent(1, "inner", 20, 30);
  b.Launch(1, 25, 5, 2);
  b.HostEvent(1, "other", 200, 100);
  b.Launch(1, 210, 5, 3);
  b.Device(1, 7, "k1", 1000, 10, 1);
  b.Device(0, 7, "k2", 1000, 20, 2);
  b.Device(1, 7, "k3", 2000, 40, 3);
  const OpTree tree = BuildOpTree(b.Finish());
  ASSERT_EQ(tree.gpus.size(), 2u);
  const OpDeviceTime outer = tree.DeviceOf(*Call(tree, "outer"));
  const OpDeviceTime inner = tree.DeviceOf(*Call(tree, "inner"));
  const OpDeviceTime other = tree.DeviceOf(*Call(tree, "other"));
  EXPECT_EQ(outer.self_ps, 10);
  EXPECT_EQ(outer.total_ps, 30);
  EXPECT_EQ(outer.gpu, 0);
  EXPECT_EQ(inner.self_ps, 20);
  EXPECT_EQ(inner.total_ps, 20);
  EXPECT_EQ(inner.gpu, 0);
  EXPECT_EQ(other.total_ps, 40);
  EXPECT_EQ(other.gpu, 1);
}

TEST(OpTreeTest, TensorCoreSumsStartWithTheFirstTensorCoreKernel) {
  // A plain kernel of "first" comes before any Tensor Core kernel: the
  // Tensor Core sums appear later and still line up with every call.
  testing::StepSpaceBuilder b;
  b.HostEvent(1, "outer", 0, 100);
  b.HostEvent(1, "first", 10, 20);
  b.Launch(1, 12, 5, 1);
  b.HostEvent(1, "second", 40, 20);
  b.Launch(1, 42, 5, 2);
  b.Device(0, 7, "elementwise_kernel", 1000, 10, 1);
  b.Device(0, 7, "sm90_xmma_gemm_bf16", 1100, 30, 2);
  const OpTree tree = BuildOpTree(b.Finish());
  ASSERT_EQ(tree.device_tc_sums.size(), tree.device_sums.size());
  const OpDeviceTime first = tree.DeviceOf(*Call(tree, "first"));
  const OpDeviceTime second = tree.DeviceOf(*Call(tree, "second"));
  const OpDeviceTime outer = tree.DeviceOf(*Call(tree, "outer"));
  EXPECT_EQ(first.self_ps, 10);
  EXPECT_EQ(first.self_tc_ps, 0);
  EXPECT_EQ(second.self_tc_ps, 30);
  EXPECT_EQ(second.total_tc_ps, 30);
  EXPECT_EQ(outer.total_ps, 40);
  EXPECT_EQ(outer.total_tc_ps, 30);
  EXPECT_EQ(outer.self_tc_ps, 0);
}

TEST(OpTreeTest, WithoutCorrelationIdsRuntimeCallsAreNotOps) {
  SampleOptions o;
  o.correlation_ids = false;
  SampleSpace sample(o);
  const OpTree tree = BuildOpTree(sample.Finish());
  EXPECT_EQ(tree.ops.size(), 6u);  // cudaLaunchKernel spans are not ops.
  // Device events with tf_op go to their op by name; the rest are unattributed.
  EXPECT_EQ(Name(tree, "aten::addmm")->by_name_ps, 110 * kUs);
  EXPECT_EQ(tree.DeviceOf(*Call(tree, "aten::addmm")).self_ps, 0);
  EXPECT_EQ(tree.unattributed_ps[static_cast<int>(Unattributed::kNoCorrelation)],
            (20 + 7 + 3 + 2) * kUs);
  EXPECT_EQ(tree.AttributedPs() + tree.UnattributedPs(), tree.device_ps);
}

TEST(OpTreeTest, EmptyAndHostOnlySpaces) {
  xplane::XSpaceData empty;
  const OpTree none = BuildOpTree(empty);
  EXPECT_TRUE(none.ops.empty());
  EXPECT_EQ(none.device_ps, 0);

  testing::StepSpaceBuilder b;
  b.Device(0, 7, "k", 0, 10, 5);  // A kernel whose launch is not in the trace.
  const OpTree device_only = BuildOpTree(b.Finish());
  EXPECT_TRUE(device_only.ops.empty());
  EXPECT_EQ(device_only.unattributed_ps[static_cast<int>(Unattributed::kLaunchNotFound)], 10);
}

TEST(OpTreeTest, PythonContextOfEachOp) {
  SampleSpace sample;
  const OpTree tree = BuildOpTree(sample.Finish());
  std::vector<std::string> innermost;
  const OpThread& thread = tree.threads[0];
  ForEachOpWithPythonContext(tree, thread, [&](int32_t op, const std::vector<int32_t>& py) {
    innermost.push_back(py.empty() ? std::string("-") : std::string(tree.Python(thread, py.back()).name));
  });
  // linear@10, t@12, addmm@30: inside <built-in function linear>; my_block@302
  // in model.py; relu@310 in ReLU_0; mm@720 outside every frame.
  EXPECT_THAT(innermost,
              ::testing::ElementsAre("<built-in function linear>", "<built-in function linear>",
                                     "<built-in function linear>", "model.py(10): forward",
                                     "nn.Module: ReLU_0", "-"));
}

}  // namespace
}  // namespace tbprof::views
