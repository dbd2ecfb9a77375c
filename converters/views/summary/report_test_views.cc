#include "converters/views/summary/report_test_views.h"

#include "absl/strings/str_cat.h"

namespace tbprof::views::testing {

using namespace tensorflow::profiler;  // NOLINT: test data only.

const char kLongKernelName[] =
    "void at::native::(anonymous namespace)::vectorized_elementwise_kernel<4, "
    "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
    "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";

namespace {

const SampleStep kSteps[] = {
    {/*step_ms=*/10.0, /*compute_ms=*/7.0, /*h2d_ms=*/1.0, /*idle_ms=*/2.0},
    {/*step_ms=*/12.0, /*compute_ms=*/8.0, /*h2d_ms=*/1.0, /*idle_ms=*/3.0},
    {/*step_ms=*/14.0, /*compute_ms=*/9.0, /*h2d_ms=*/2.0, /*idle_ms=*/3.0},
    {/*step_ms=*/12.0, /*compute_ms=*/8.0, /*h2d_ms=*/0.0, /*idle_ms=*/4.0},
};
constexpr int kNumSteps = sizeof(kSteps) / sizeof(kSteps[0]);

void AddKernel(KernelStatsDb* db, const std::string& name, uint32_t count, uint64_t total_ns,
               float occupancy, bool tensor_core) {
  KernelReport* r = db->add_reports();
  r->set_name(name);
  r->set_occurrences(count);
  r->set_total_duration_ns(total_ns);
  r->set_min_duration_ns(total_ns / count / 2);
  r->set_max_duration_ns(total_ns / count * 2);
  r->set_occupancy_pct(occupancy);
  r->set_is_kernel_using_tensor_core(tensor_core);
  r->set_registers_per_thread(32);
  r->set_static_shmem_bytes(1024);
  for (uint32_t d : {128u, 1u, 1u}) r->add_block_dim(d);
  for (uint32_t d : {80u, 2u, 1u}) r->add_grid_dim(d);
  r->set_op_name("aten::mm");
}

MemoryProfileSnapshot* AddSnapshot(google::protobuf::RepeatedPtrField<MemoryProfileSnapshot>* list,
                                   int64_t time_ps, int64_t heap, int64_t stack) {
  MemoryProfileSnapshot* s = list->Add();
  s->set_time_offset_ps(time_ps);
  s->mutable_aggregation_stats()->set_heap_allocated_bytes(heap);
  s->mutable_aggregation_stats()->set_stack_reserved_bytes(stack);
  s->mutable_aggregation_stats()->set_free_memory_bytes(int64_t{8} << 30);
  return s;
}

// Operators: aten::addmm (TC, 24 ms self) inside aten::linear, aten::fill_
// (6 ms), 2 ms unattributed; modules Net_0 > Linear_0; one GEMM row.
void AddOperatorViews(AllViews* v) {
  const int64_t ms = 1000000000;
  tbprof::OperatorStats& s = v->operators;
  s.set_op_source("tf_op");
  s.set_host_ops(4);
  s.set_device_time_ps(32 * ms);
  s.set_kernel_time_ps(32 * ms);
  s.set_attributed_device_time_ps(30 * ms);
  s.set_has_input_shapes(true);
  s.set_has_call_stacks(true);
  auto add_row = [](google::protobuf::RepeatedPtrField<tbprof::OpRow>* rows, const char* name,
                    const char* shapes, int64_t calls, int64_t self, int64_t total,
                    int64_t host_self, bool tc) {
    tbprof::OpRow* r = rows->Add();
    r->set_name(name);
    r->set_input_shapes(shapes);
    r->set_input_types(shapes[0] ? "[\"float\",\"float\",\"float\"]" : "");
    r->set_calls(calls);
    r->set_device_self_ps(self);
    r->set_device_total_ps(total);
    r->set_host_self_ps(host_self);
    r->set_host_total_ps(host_self * 2);
    r->set_tensor_core_eligible(tc);
    r->set_device_self_tensor_core_ps(tc ? self : 0);
    return r;
  };
  tbprof::OpRow* addmm =
      add_row(s.mutable_ops(), "aten::addmm", "", 40, 24 * ms, 24 * ms, ms, true);
  tbprof::OpKernel* k = addmm->add_kernels();
  k->set_name("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1");
  k->set_occurrences(40);
  k->set_total_ps(24 * ms);
  k->set_uses_tensor_core(true);
  tbprof::OpCallStack* stack = addmm->add_call_stacks();
  stack->set_stack("model.py(10): forward;train.py(3): <module>");
  stack->set_calls(40);
  stack->set_device_total_ps(24 * ms);
  add_row(s.mutable_ops(), "aten::fill_", "", 400, 6 * ms, 6 * ms, 2 * ms, false);
  add_row(s.mutable_ops(), "aten::linear", "", 40, 0, 24 * ms, ms / 2, true);
  add_row(s.mutable_ops(), "</script><b>op</b>", "", 4, 0, 0, ms / 10, false);
  add_row(s.mutable_ops_by_input_shape(), "aten::addmm", "[[512],[128,256],[256,512]]", 40,
          24 * ms, 24 * ms, ms, true);
  for (const char* reason : {"no correlation id", "launch not in the trace",
                             "launched outside any op"}) {
    tbprof::UnattributedDeviceTime* u = s.add_unattributed();
    u->set_reason(reason);
  }
  s.mutable_unattributed(1)->set_events(3);
  s.mutable_unattributed(1)->set_time_ps(2 * ms);
  s.mutable_unattributed(1)->set_explanation(
      "3 device events (2.000 ms) were launched by calls that are not in the trace");
  s.add_notes("no call stacks: profile with torch.profiler.profile(with_stack=True)");

  tbprof::ModuleStats& m = v->modules;
  tbprof::ModuleNode* net = m.add_modules();
  net->set_name("Net_0");
  net->set_path("Net_0");
  net->set_parent(-1);
  net->set_occurrences(4);
  net->set_host_total_ps(20 * ms);
  net->set_host_self_ps(5 * ms);
  net->set_device_total_ps(30 * ms);
  net->set_device_self_ps(6 * ms);
  tbprof::ModuleNode* linear = m.add_modules();
  linear->set_name("Linear_0");
  linear->set_path("Net_0/Linear_0");
  linear->set_parent(0);
  linear->set_depth(1);
  linear->set_occurrences(40);
  linear->set_host_total_ps(15 * ms);
  linear->set_host_self_ps(15 * ms);
  linear->set_device_total_ps(24 * ms);
  linear->set_device_self_ps(24 * ms);

  tbprof::GemmEfficiency& g = v->gemm_efficiency;
  tbprof::GemmOpEfficiency* e = g.add_ops();
  e->set_name("aten::addmm");
  e->set_input_shapes("[[512],[128,256],[256,512]]");
  e->set_dtype("fp32");
  e->set_calls(40);
  e->set_flops_per_call(2.0 * 128 * 256 * 512);
  e->set_total_flops(40 * 2.0 * 128 * 256 * 512);
  e->set_device_time_ps(24 * ms);
  e->set_achieved_tflops(e->total_flops() / e->device_time_ps());
  e->set_peak_tflops(494.7);
  e->set_peak_kind("tf32 tensor");
  e->set_fraction_of_peak(e->achieved_tflops() / 494.7);
  e->set_percent_of_device_time(75);
  *g.add_worst() = *e;
  g.set_total_flops(e->total_flops());
  g.set_device_time_ps(e->device_time_ps());
  tbprof::DevicePeak* d = g.add_devices();
  d->set_name("NVIDIA H100 80GB HBM3");
  d->set_architecture("Hopper (sm_90)");
  d->set_sm_count(132);
  d->set_clock_mhz(1830);
  d->set_clock_source("table: H100 SXM5 (H100 datasheet)");
  d->set_fp16_tensor_tflops(989.4);
  d->set_tf32_tensor_tflops(494.7);
  d->set_fp32_tflops(61.8);
}

}  // namespace

const SampleStep* SampleSteps(int* count) {
  *count = kNumSteps;
  return kSteps;
}

AllViews MakeSampleViews() {
  AllViews v;
  // Input pipeline.
  InputPipelineAnalysisResult& ipa = v.input_pipeline;
  ipa.set_hardware_type("GPU");
  double sum = 0, lo = 1e9, hi = 0;
  for (int i = 0; i < kNumSteps; ++i) {
    PerGenericStepDetails d;
    d.set_step_number(10 + i);
    d.set_step_name(absl::StrCat(10 + i));
    d.set_step_time_ms(kSteps[i].step_ms);
    d.set_device_compute_ms(kSteps[i].compute_ms);
    d.set_host_to_device_ms(kSteps[i].h2d_ms);
    d.set_unknown_time_ms(kSteps[i].idle_ms);
    ipa.add_step_details()->PackFrom(d);
    sum += kSteps[i].step_ms;
    lo = std::min(lo, kSteps[i].step_ms);
    hi = std::max(hi, kSteps[i].step_ms);
  }
  ipa.mutable_step_time_summary()->set_average(sum / kNumSteps);
  ipa.mutable_step_time_summary()->set_minimum(lo);
  ipa.mutable_step_time_summary()->set_maximum(hi);
  ipa.mutable_step_time_summary()->set_standard_deviation(1.633);
  ipa.set_input_percent(8.3);
  ipa.set_compute_percent(66.7);
  ipa.set_idle_percent(25.0);
  BottleneckAnalysis bottleneck;
  bottleneck.set_input_classification("both");
  bottleneck.set_input_statement(
      "Your program is MODERATELY input-bound because 8.3% of the total step time sampled is "
      "waiting for input. Therefore, you would need to reduce both the input time and other "
      "time.");
  ipa.mutable_recommendation()->mutable_bottleneck_analysis()->PackFrom(bottleneck);
  ipa.mutable_recommendation()->set_summary_next_step(
      "Look at the <b>DataLoader</b>: raise num_workers &amp; use pin_memory=True.");
  // Overview.
  OverviewPage& page = v.overview;
  page.mutable_run_environment()->set_device_type("Nvidia GPU (Hopper)");
  page.mutable_run_environment()->set_device_core_count(1);
  page.mutable_run_environment()->set_host_count(1);
  *page.mutable_input_analysis() = ipa;
  page.mutable_analysis()->set_device_idle_time_percent(25.0);
  page.mutable_analysis()->set_host_idle_time_percent(40.0);
  page.mutable_analysis()->set_device_compute_32bit_percent(100.0);
  page.mutable_recommendation()->set_bottleneck("both");
  page.mutable_recommendation()->set_statement(bottleneck.input_statement());
  GenericRecommendation generic;
  generic.set_kernel_launch_bottleneck("no");
  generic.set_all_other_bottleneck("high");
  generic.set_all_other_statement(
      "25.0 % of the total step time sampled is spent on <b>All Others</b> time. This could be "
      "due to Python execution overhead.");
  generic.set_precision_statement(
      "Only 0.0% of device computation is 16 bit. So you might want to replace more 32-bit "
      "operations by 16-bit operations (e.g. <a href=\"https://pytorch.org/docs/stable/amp.html\">"
      "torch.autocast</a>) to improve performance.");
  page.mutable_recommendation()->mutable_recommendation()->PackFrom(generic);
  page.mutable_diagnostics()->add_warnings("2 device events without a step were ignored");
  // Kernels.
  AddKernel(&v.kernel_stats, "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1", 40,
            /*total_ns=*/24000000, /*occupancy=*/12.5, /*tensor_core=*/true);
  AddKernel(&v.kernel_stats, kLongKernelName, 400, /*total_ns=*/6000000, /*occupancy=*/100,
            /*tensor_core=*/false);
  AddKernel(&v.kernel_stats, "</script><script>alert(1)</script>", 4, /*total_ns=*/400000,
            /*occupancy=*/0, /*tensor_core=*/false);
  // Memory: heap grows to 3 GiB at 30 ms, then shrinks.
  MemoryProfile& mp = v.memory_profile;
  mp.set_num_hosts(1);
  mp.set_version(1);
  mp.add_memory_ids("GPU_0_bfc");
  PerAllocatorMemoryProfile& per = (*mp.mutable_memory_profile_per_allocator())["GPU_0_bfc"];
  const int64_t gib = int64_t{1} << 30;
  int64_t heap[] = {gib / 2, gib, 2 * gib, 3 * gib, gib};
  for (int i = 0; i < 5; ++i) {
    AddSnapshot(per.mutable_sampled_timeline_snapshots(), /*time_ps=*/int64_t{i} * 7500000000,
                heap[i], /*stack=*/0);
  }
  MemoryProfileSummary* summary = per.mutable_profile_summary();
  summary->set_peak_bytes_usage_lifetime(3 * gib);
  summary->mutable_peak_stats()->set_heap_allocated_bytes(3 * gib);
  summary->mutable_peak_stats()->set_peak_bytes_in_use(3 * gib);
  summary->set_peak_stats_time_ps(22500000000);
  summary->set_memory_capacity(11 * gib);
  MemoryProfileSnapshot* big = AddSnapshot(per.mutable_memory_profile_snapshots(), 15000000000,
                                           2 * gib, 0);
  big->mutable_activity_metadata()->set_memory_activity(ALLOCATION);
  big->mutable_activity_metadata()->set_allocation_bytes(gib);
  big->mutable_activity_metadata()->set_requested_bytes(gib - 512);
  big->mutable_activity_metadata()->set_tf_op_name("aten::empty");
  big->mutable_activity_metadata()->set_data_type("float");
  big->mutable_activity_metadata()->set_tensor_shape("[4096, 65536]");
  ActiveAllocation* a0 = per.add_active_allocations();
  a0->set_snapshot_index(0);
  a0->set_special_index(-1);
  a0->set_num_occurrences(2);
  MemoryActivityMetadata* special = per.add_special_allocations();
  special->set_allocation_bytes(gib);
  special->set_tf_op_name("unused preallocated device memory");
  ActiveAllocation* a1 = per.add_active_allocations();
  a1->set_snapshot_index(-1);
  a1->set_special_index(0);
  a1->set_num_occurrences(1);
  AddOperatorViews(&v);
  return v;
}

}  // namespace tbprof::views::testing
