#include "converters/views/operators/xspace_to_operator_stats.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/views/operators/operators_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::Contains;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kUs;
using testing::SampleOptions;
using testing::SampleSpace;

const tbprof::OpRow* Row(const tbprof::OperatorStats& s, absl::string_view name) {
  for (const tbprof::OpRow& r : s.ops()) {
    if (r.name() == name) return &r;
  }
  return nullptr;
}

int64_t SumSelf(const tbprof::OperatorStats& s) {
  int64_t sum = 0;
  for (const tbprof::OpRow& r : s.ops()) sum += r.device_self_ps();
  return sum;
}

int64_t SumUnattributed(const tbprof::OperatorStats& s) {
  int64_t sum = 0;
  for (const tbprof::UnattributedDeviceTime& u : s.unattributed()) sum += u.time_ps();
  return sum;
}

TEST(OperatorStatsTest, RowsByName) {
  SampleSpace sample;
  const OperatorViews v = ConvertXSpaceToOperatorViews(sample.Finish());
  const tbprof::OperatorStats& s = v.operators;
  EXPECT_EQ(s.op_source(), "host events");
  EXPECT_EQ(s.host_ops(), 6);
  EXPECT_EQ(s.device_time_ps(), 161 * kUs);
  EXPECT_EQ(s.attributed_device_time_ps(), 149 * kUs);
  // Sum of self time + unattributed = all device time, exactly.
  EXPECT_EQ(SumSelf(s), s.attributed_device_time_ps());
  EXPECT_EQ(SumSelf(s) + SumUnattributed(s), s.device_time_ps());

  // Sorted by device self time: addmm 110, my_block 20, mm 10, relu 9.
  ASSERT_GE(s.ops_size(), 4);
  EXPECT_EQ(s.ops(0).name(), "aten::addmm");
  EXPECT_EQ(s.ops(1).name(), "my_block");
  EXPECT_EQ(s.ops(2).name(), "aten::mm");
  EXPECT_EQ(s.ops(3).name(), "aten::relu");

  const tbprof::OpRow* linear = Row(s, "aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->calls(), 1);
  EXPECT_EQ(linear->host_total_ps(), 290 * kUs);
  EXPECT_EQ(linear->host_self_ps(), 32 * kUs);  // 290 - t 8 - addmm 250.
  EXPECT_EQ(linear->device_self_ps(), 0);
  EXPECT_EQ(linear->device_total_ps(), 110 * kUs);
  EXPECT_EQ(linear->device_total_tensor_core_ps(), 100 * kUs);
  EXPECT_TRUE(linear->tensor_core_eligible());

  const tbprof::OpRow* addmm = Row(s, "aten::addmm");
  EXPECT_EQ(addmm->host_self_ps(), 250 * kUs);  // Launch calls are the op's own time.
  EXPECT_EQ(addmm->device_self_ps(), 110 * kUs);
  EXPECT_EQ(addmm->device_self_events(), 2);
  EXPECT_EQ(addmm->device_self_tensor_core_ps(), 100 * kUs);
  ASSERT_EQ(addmm->kernels_size(), 2);
  EXPECT_EQ(addmm->kernels(0).name(), "sm90_xmma_gemm_bf16");
  EXPECT_EQ(addmm->kernels(0).total_ps(), 100 * kUs);
  EXPECT_TRUE(addmm->kernels(0).uses_tensor_core());
  EXPECT_EQ(addmm->kernels(1).name(), "splitKreduce_kernel");

  const tbprof::OpRow* block = Row(s, "my_block");
  EXPECT_EQ(block->host_self_ps(), 208 * kUs);  // 298 - relu 90.
  EXPECT_EQ(block->device_self_ps(), 20 * kUs);
  EXPECT_EQ(block->device_total_ps(), 25 * kUs);
  EXPECT_FALSE(block->tensor_core_eligible());

  // relu: 5 us launched inside it + 4 us by name.
  const tbprof::OpRow* relu = Row(s, "aten::relu");
  EXPECT_EQ(relu->device_self_ps(), 9 * kUs);
  EXPECT_EQ(relu->device_self_by_name_ps(), 4 * kUs);
  EXPECT_EQ(relu->device_total_ps(), 9 * kUs);
  ASSERT_EQ(relu->kernels_size(), 1);
  EXPECT_EQ(relu->kernels(0).occurrences(), 2);

  // Unattributed, by reason, with their kernels.
  ASSERT_EQ(s.unattributed_size(), 3);
  EXPECT_EQ(s.unattributed(0).reason(), "no correlation id");
  EXPECT_EQ(s.unattributed(0).time_ps(), 2 * kUs);
  EXPECT_EQ(s.unattributed(1).reason(), "launch not in the trace");
  EXPECT_EQ(s.unattributed(1).kernels(0).name(), "lost_kernel");
  EXPECT_EQ(s.unattributed(2).reason(), "launched outside any op");
  EXPECT_EQ(s.unattributed(2).time_ps(), 7 * kUs);
  EXPECT_EQ(s.unattributed(2).explanation(),
            "1 device event (0.007 ms) was launched outside any op (e.g. directly in a "
            "ProfilerStep)");
  EXPECT_THAT(s.notes(), ElementsAre(HasSubstr("1 device event (0.004 ms) names its op (tf_op)")));
  EXPECT_TRUE(s.no_data_reason().empty());
}

TEST(OperatorStatsTest, RowsByInputShapeAndCallStacks) {
  SampleSpace sample;
  const tbprof::OperatorStats s = ConvertXSpaceToOperatorViews(sample.Finish()).operators;
  EXPECT_TRUE(s.has_input_shapes());
  // Every call has a row (my_block has no shapes: an empty shape).
  ASSERT_EQ(s.ops_by_input_shape_size(), 6);
  EXPECT_EQ(s.ops_by_input_shape(0).name(), "aten::addmm");
  EXPECT_EQ(s.ops_by_input_shape(0).input_shapes(), "[[512],[128,256],[256,512],[],[]]");
  EXPECT_EQ(s.ops_by_input_shape(0).device_self_ps(), 110 * kUs);
  // By-name time has no call, so no shape row: relu shows 5 us here.
  for (const tbprof::OpRow& r : s.ops_by_input_shape()) {
    if (r.name() == "aten::relu") {
      EXPECT_EQ(r.device_self_ps(), 5 * kUs);
    }
  }
  // Call stacks from the Python line: builtins and module markers dropped.
  EXPECT_TRUE(s.has_call_stacks());
  const tbprof::OpRow* addmm = Row(s, "aten::addmm");
  ASSERT_EQ(addmm->call_stacks_size(), 1);
  EXPECT_EQ(addmm->call_stacks(0).stack(), "model.py(10): forward");
  EXPECT_EQ(addmm->call_stacks(0).calls(), 1);
  EXPECT_EQ(addmm->call_stacks(0).device_total_ps(), 110 * kUs);
  EXPECT_EQ(Row(s, "aten::mm")->call_stacks_size(), 0);  // Outside every frame.
  // aten::linear and aten::t run inside the same innermost Python event as
  // aten::addmm (its stack is cut once and shared); relu inside another.
  for (absl::string_view name : {"aten::linear", "aten::t", "aten::relu"}) {
    const tbprof::OpRow* row = Row(s, name);
    ASSERT_EQ(row->call_stacks_size(), 1) << name;
    EXPECT_EQ(row->call_stacks(0).stack(), "model.py(10): forward") << name;
    EXPECT_EQ(row->call_stacks(0).calls(), 1) << name;
  }
}

// A host event on line `tid` whose event metadata is a second one named
// `name` (files may repeat a name among their metadata).
void EventOfSecondMetadata(testing::StepSpaceBuilder* b, int64_t tid, absl::string_view name,
                           int64_t begin_ps, int64_t duration_ps) {
  xplane::XPlaneBuilder* host = b->Host();
  const uint32_t name_id = host->event_metadata(host->GetOrCreateEventMetadata(name)).name;
  const uint32_t second = host->GetOrCreateEventMetadata(absl::StrCat(name, " (second)"));
  host->event_metadata(second).name = name_id;
  host->GetOrCreateLine(tid)->AddEvent(second, begin_ps, duration_ps);
}

TEST(OperatorStatsTest, PythonStacksGoByFrameNames) {
  testing::StepSpaceBuilder b;
  b.Host()->GetOrCreateLine(1)->SetName("t");
  b.Host()->GetOrCreateLine(2)->SetName(absl::StrCat("t", kPythonStackLineSuffix));
  b.HostEvent(2, "nn.Module: M_0", 0, 100 * kUs);  // Noise.
  b.HostEvent(2, "a.py(1): f", 1 * kUs, 98 * kUs);
  b.HostEvent(2, "b.py(2): g", 2 * kUs, 38 * kUs);
  b.HostEvent(1, "aten::mm", 3 * kUs, 5 * kUs);
  // The same frame name through another event metadata: the same stack.
  EventOfSecondMetadata(&b, 2, "b.py(2): g", 50 * kUs, 40 * kUs);
  b.HostEvent(1, "aten::mm", 51 * kUs, 5 * kUs);
  b.HostEvent(2, "<built-in method x>", 91 * kUs, 7 * kUs);  // Noise.
  b.HostEvent(1, "aten::mm", 92 * kUs, 2 * kUs);
  const xplane::XSpaceData& space = b.Finish();
  const OpTree tree = BuildOpTree(space);
  ASSERT_EQ(tree.ops.size(), 3u);

  const tbprof::OperatorStats s = OperatorStatsFromTree(tree);
  const tbprof::OpRow* mm = Row(s, "aten::mm");
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->call_stacks_size(), 2);
  EXPECT_EQ(mm->call_stacks(0).stack(), "b.py(2): g;a.py(1): f");
  EXPECT_EQ(mm->call_stacks(0).calls(), 2);
  EXPECT_EQ(mm->call_stacks(0).host_total_ps(), 10 * kUs);
  EXPECT_EQ(mm->call_stacks(1).stack(), "a.py(1): f");
  EXPECT_EQ(mm->call_stacks(1).calls(), 1);

  // One frame deep: the innermost frame that is not noise.
  OperatorStatsOptions o;
  o.stack_depth = 1;
  const tbprof::OperatorStats one = OperatorStatsFromTree(tree, o);
  mm = Row(one, "aten::mm");
  ASSERT_EQ(mm->call_stacks_size(), 2);
  EXPECT_EQ(mm->call_stacks(0).stack(), "b.py(2): g");
  EXPECT_EQ(mm->call_stacks(0).calls(), 2);
  EXPECT_EQ(mm->call_stacks(1).stack(), "a.py(1): f");
  EXPECT_EQ(mm->call_stacks(1).calls(), 1);
}

TEST(OperatorStatsTest, PartialTracesSayWhatIsMissing) {
  SampleOptions o;
  o.correlation_ids = false;
  o.shapes = false;
  o.python = false;
  SampleSpace sample(o);
  const OperatorViews v = ConvertXSpaceToOperatorViews(sample.Finish());
  const tbprof::OperatorStats& s = v.operators;
  EXPECT_EQ(SumSelf(s) + SumUnattributed(s), s.device_time_ps());
  EXPECT_EQ(s.device_time_ps(), 161 * kUs);
  EXPECT_EQ(Row(s, "aten::addmm")->device_self_by_name_ps(), 110 * kUs);
  EXPECT_EQ(Row(s, "aten::linear")->device_total_ps(), 0);  // Callers do not see by-name time.
  EXPECT_FALSE(s.has_input_shapes());
  EXPECT_EQ(s.ops_by_input_shape_size(), 0);
  EXPECT_THAT(s.unattributed(0).explanation(), HasSubstr("carry no correlation id"));
  EXPECT_THAT(s.notes(), Contains(HasSubstr("record_shapes=True")));
  EXPECT_THAT(s.notes(), Contains(HasSubstr("with_stack=True")));
  EXPECT_THAT(v.modules.no_data_reason(), HasSubstr("with_modules=True"));
  EXPECT_THAT(v.gemm_efficiency.no_data_reason(), HasSubstr("record_shapes=True"));

  // Neither correlation ids nor tf_op: all device time unattributed.
  o.device_tf_op = false;
  SampleSpace bare(o);
  const tbprof::OperatorStats b = ConvertXSpaceToOperatorViews(bare.Finish()).operators;
  EXPECT_EQ(b.attributed_device_time_ps(), 0);
  EXPECT_EQ(SumUnattributed(b), 161 * kUs);
  EXPECT_EQ(b.host_ops(), 6);
}

TEST(OperatorStatsTest, NoOps) {
  xplane::XSpaceData empty;
  const OperatorViews v = ConvertXSpaceToOperatorViews(empty);
  EXPECT_THAT(v.operators.no_data_reason(), HasSubstr("no host threads"));
  EXPECT_FALSE(v.modules.no_data_reason().empty());
  EXPECT_FALSE(v.gemm_efficiency.no_data_reason().empty());
}

TEST(GemmEfficiencyTest, FlopsPerInnermostGemmAndFractionOfPeak) {
  SampleSpace sample;
  const tbprof::GemmEfficiency g = ConvertXSpaceToOperatorViews(sample.Finish()).gemm_efficiency;
  // linear has addmm inside: counted once, at addmm. Rows: addmm, mm.
  ASSERT_EQ(g.ops_size(), 2);
  const tbprof::GemmOpEfficiency& addmm = g.ops(0);
  EXPECT_EQ(addmm.name(), "aten::addmm");
  EXPECT_EQ(addmm.dtype(), "bf16");
  EXPECT_EQ(addmm.flops_per_call(), 2.0 * 128 * 256 * 512);  // 33,554,432
  EXPECT_EQ(addmm.device_time_ps(), 110 * kUs);
  // 33,554,432 FLOP / 110e6 ps = 0.305 TFLOP/s.
  EXPECT_THAT(addmm.achieved_tflops(), DoubleNear(33554432.0 / 110e6, 1e-12));
  // H100 SXM5 table clock: 132 SMs x 4096 x 1830 MHz = 989.43 TFLOP/s.
  const double h100_bf16 = 132 * 4096 * 1830e6 / 1e12;
  EXPECT_THAT(addmm.peak_tflops(), DoubleNear(h100_bf16, 1e-9));
  EXPECT_EQ(addmm.peak_kind(), "fp16/bf16 tensor");
  EXPECT_THAT(addmm.fraction_of_peak(), DoubleNear(33554432.0 / 110e6 / h100_bf16, 1e-12));
  EXPECT_THAT(addmm.percent_of_device_time(), DoubleNear(100.0 * 110 / 161, 1e-9));

  // mm: float on CUDA cores: fp32 peak 132 x 256 x 1830 MHz.
  const tbprof::GemmOpEfficiency& mm = g.ops(1);
  EXPECT_EQ(mm.flops_per_call(), 2.0 * 64 * 64 * 64);
  EXPECT_EQ(mm.peak_kind(), "fp32");
  EXPECT_THAT(mm.peak_tflops(), DoubleNear(132 * 256 * 1830e6 / 1e12, 1e-9));

  // Worst utilised expensive rows (>= 1% of device time), lowest first:
  // addmm 3.1e-4 of peak, mm 8.5e-4.
  ASSERT_EQ(g.worst_size(), 2);
  EXPECT_EQ(g.worst(0).name(), "aten::addmm");
  ASSERT_EQ(g.devices_size(), 1);
  EXPECT_EQ(g.devices(0).sm_count(), 132);
  EXPECT_THAT(g.devices(0).clock_source(), HasSubstr("table: H100 SXM5"));
  EXPECT_EQ(g.total_flops(), 2.0 * 128 * 256 * 512 + 2.0 * 64 * 64 * 64);
}

// The converter's stat names are the ones the view reads: record_shapes
// args of a Kineto trace reach the operator view.
TEST(OperatorStatsTest, KinetoTraceShapesReachTheView) {
  xplane::XSpaceData space;
  auto summary = converters::ConvertChromeJsonToXSpace(
      absl::StrCat(TBPROF_SOURCE_DIR, "/testdata/chrome_json/kineto_small.json"),
      converters::ChromeJsonOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  const OperatorViews v = ConvertXSpaceToOperatorViews(space);
  EXPECT_TRUE(v.operators.has_input_shapes());
  bool found = false;
  for (const tbprof::OpRow& r : v.operators.ops_by_input_shape()) {
    if (r.name() != "aten::mm") continue;
    found = true;
    EXPECT_EQ(r.input_shapes(), "[[64,64],[64,64]]");
    EXPECT_EQ(r.input_types(), "[\"float\",\"float\"]");
    EXPECT_EQ(r.device_self_ps(), 50125000);
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(v.gemm_efficiency.ops_size(), 1);
  EXPECT_EQ(v.gemm_efficiency.ops(0).flops_per_call(), 2.0 * 64 * 64 * 64);
}

}  // namespace
}  // namespace tbprof::views
