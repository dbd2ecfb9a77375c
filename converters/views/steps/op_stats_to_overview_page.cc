#include "converters/views/steps/op_stats_to_overview_page.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "converters/views/steps/op_stats_to_input_pipeline_analysis.h"

namespace tbprof::views {

using tensorflow::profiler::BottleneckAnalysis;
using tensorflow::profiler::GenericRecommendation;
using tensorflow::profiler::OpStats;
using tensorflow::profiler::OverviewPage;
using tensorflow::profiler::OverviewPageAnalysis;
using tensorflow::profiler::OverviewPageRecommendation;
using tensorflow::profiler::OverviewPageRunEnvironment;
using tensorflow::profiler::PrecisionStats;

namespace {

double SafeDivide(double a, double b) { return b == 0 ? 0 : a / b; }

void AddTip(google::protobuf::RepeatedPtrField<tensorflow::profiler::OverviewPageTip>* tips,
            std::string text) {
  tips->Add()->set_link(std::move(text));
}

std::string Link(absl::string_view url, absl::string_view text) {
  return absl::StrCat("<a href=\"", url, "\" target=\"_blank\">", text, "</a>");
}

OverviewPageRunEnvironment ComputeRunEnvironment(const OpStats& op_stats) {
  const auto& env = op_stats.run_environment();
  OverviewPageRunEnvironment re;
  re.set_host_count(env.host_count());
  re.set_task_count(env.task_count());
  *re.mutable_hostnames() = env.hostnames();
  re.set_device_type(env.device_type());
  re.set_device_core_count(env.device_core_count());
  re.set_replica_count(env.replica_count());
  re.set_num_cores_per_replica(env.num_cores_per_replica());
  re.set_is_training(env.is_training());
  return re;
}

OverviewPageAnalysis ComputeAnalysis(const OpStats& op_stats, const OpTensorCoreMap* tensor_core) {
  OverviewPageAnalysis analysis;
  const auto& db = op_stats.device_op_metrics_db();
  double total_ps = static_cast<double>(db.total_op_time_ps());
  if (total_ps == 0) {
    for (const auto& m : db.metrics_db()) total_ps += static_cast<double>(m.self_time_ps());
  }
  double cumulative = 0;
  int shown = 0;
  for (const auto& m : db.metrics_db()) {  // Sorted by self time, descending.
    if (shown++ == kNumTopDeviceOps) break;
    auto* op = analysis.add_top_device_ops();
    op->set_name(m.name());
    op->set_category(m.category());
    op->set_self_time_fraction(SafeDivide(static_cast<double>(m.self_time_ps()), total_ps));
    cumulative += op->self_time_fraction();
    op->set_cumulative_time_fraction(cumulative);
    op->set_flop_rate(SafeDivide(m.flops_v2(), static_cast<double>(m.time_ps()) / 1000.0));
    if (tensor_core != nullptr) {
      auto it = tensor_core->find(m.name());
      if (it != tensor_core->end()) {
        op->set_is_op_tensorcore_eligible(it->second.eligible);
        op->set_is_op_using_tensorcore(it->second.using_tensor_core);
      }
    }
  }
  const PrecisionStats& p = db.precision_stats();
  const double compute = static_cast<double>(p.compute_16bit_ps() + p.compute_32bit_ps());
  analysis.set_device_compute_16bit_percent(100.0 * SafeDivide(p.compute_16bit_ps(), compute));
  analysis.set_device_compute_32bit_percent(100.0 * SafeDivide(p.compute_32bit_ps(), compute));
  return analysis;
}

std::string PrecisionStatement(const PrecisionStats& p) {
  const uint64_t total = p.compute_16bit_ps() + p.compute_32bit_ps();
  if (total == 0) return "";
  const double percent_16bit = 100.0 * static_cast<double>(p.compute_16bit_ps()) / total;
  if (percent_16bit >= kLowPrecisionPercentThreshold) return "";
  return absl::StrFormat(
      "Only %.1f%% of device computation is reduced precision (bf16, fp16, fp8 or tf32). So "
      "you might want to use mixed precision: "
      "torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (or torch.float16 with "
      "torch.amp.GradScaler), and torch.backends.cuda.matmul.allow_tf32 = True for the "
      "remaining float32 matmuls (if the reduced accuracy is acceptable).",
      percent_16bit);
}

std::string OutputStatement(double output_percent) {
  if (output_percent < kModeratelyInputBoundPercent) return "";
  return absl::StrFormat(
      "Your program is %s output-bound: %.1f%% of the total step time sampled is spent copying "
      "results from the GPU to the host. Avoid moving tensors to the CPU in every step "
      "(.cpu(), .item(), logging), or copy with non_blocking=True into pinned memory.",
      output_percent >= kHighlyInputBoundPercent ? "HIGHLY" : "MODERATELY", output_percent);
}

OverviewPageRecommendation ComputeRecommendation(const OpStats& op_stats,
                                                 const BottleneckAnalysis& b,
                                                 double output_percent) {
  OverviewPageRecommendation re;
  re.set_bottleneck(b.input_classification());
  re.set_statement(b.input_statement());
  re.set_output_statement(OutputStatement(output_percent));

  GenericRecommendation generic;
  generic.set_kernel_launch_bottleneck(b.kernel_launch_classification());
  generic.set_kernel_launch_statement(b.kernel_launch_statement());
  generic.set_all_other_bottleneck(b.all_other_classification());
  generic.set_all_other_statement(b.all_other_statement());
  generic.set_device_collectives_bottleneck(b.device_collectives_classification());
  generic.set_device_collectives_statement(b.device_collectives_statement());
  generic.set_precision_statement(
      PrecisionStatement(op_stats.device_op_metrics_db().precision_stats()));

  const std::string& input = b.input_classification();
  if (input == "host" || input == "both") {
    AddTip(re.mutable_input_tips(),
           "Load batches in parallel: DataLoader(num_workers=N, persistent_workers=True); with "
           "num_workers=0 the training loop itself loads and transforms every batch.");
    AddTip(re.mutable_input_tips(),
           "Copy asynchronously: DataLoader(pin_memory=True) and "
           "batch.to(device, non_blocking=True).");
    AddTip(re.mutable_input_tips(),
           "Prefetch more batches (DataLoader(prefetch_factor=...)) and move heavy "
           "augmentation to the GPU or offline.");
  }
  if (b.kernel_launch_classification() != "no" && !b.kernel_launch_classification().empty()) {
    AddTip(re.mutable_host_tips(),
           "Launch-bound: the GPU runs many small kernels and waits for the CPU to issue them. "
           "Capture the step with CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
           "torch.cuda.CUDAGraph), fuse operations with torch.compile, or use larger batches.");
  }
  if (b.all_other_classification() != "no" && !b.all_other_classification().empty()) {
    AddTip(re.mutable_host_tips(),
           "The GPU idles while the host runs Python or waits on synchronization: avoid "
           ".item(), .cpu(), .tolist(), printing tensors and torch.cuda.synchronize() inside the "
           "step; accumulate metrics on the GPU and read them every N steps.");
  }
  AddTip(re.mutable_host_tips(),
         "input_pipeline_analyzer (especially its table of input operations on the host)");
  AddTip(re.mutable_host_tips(),
         "trace_viewer (look at the activities on the timeline of each host thread near the "
         "bottom of the trace view)");
  if (!generic.precision_statement().empty()) {
    AddTip(re.mutable_device_tips(),
           "Most device compute is 32-bit: use torch.autocast for mixed precision (bfloat16 on "
           "Ampere and newer) and enable TF32 matmuls.");
  }
  if (b.device_collectives_classification() != "no" &&
      !b.device_collectives_classification().empty()) {
    AddTip(re.mutable_device_tips(),
           "Collectives take much of the step: overlap them with the backward pass "
           "(DistributedDataParallel bucket_cap_mb), accumulate gradients with no_sync(), or "
           "compress/shard what is exchanged (FSDP, gradient compression hooks).");
  }
  AddTip(re.mutable_device_tips(),
         "kernel_stats and framework_op_stats (identify the time-consuming operations executed "
         "on the GPU)");
  AddTip(re.mutable_device_tips(),
         "trace_viewer (look at the activities on the timeline of each GPU in the trace view)");
  AddTip(re.mutable_documentation_tips(),
         Link("https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html",
              "PyTorch performance tuning guide"));
  AddTip(re.mutable_documentation_tips(),
         Link("https://pytorch.org/docs/stable/data.html", "torch.utils.data: DataLoader"));
  AddTip(re.mutable_documentation_tips(),
         Link("https://pytorch.org/docs/stable/amp.html", "Automatic mixed precision"));
  AddTip(re.mutable_faq_tips(),
         "No steps? Profile with torch.profiler.profile(schedule=...) and call prof.step() once "
         "per iteration so that ProfilerStep#N markers are recorded.");
  re.mutable_recommendation()->PackFrom(generic);
  return re;
}

}  // namespace

OverviewPage ConvertOpStatsToOverviewPage(const OpStats& op_stats,
                                          const OpTensorCoreMap* tensor_core) {
  OverviewPage page;
  *page.mutable_run_environment() = ComputeRunEnvironment(op_stats);
  *page.mutable_analysis() = ComputeAnalysis(op_stats, tensor_core);
  *page.mutable_input_analysis() = ConvertOpStatsToInputPipelineAnalysis(op_stats);
  BottleneckAnalysis bottleneck;
  if (!page.input_analysis().recommendation().bottleneck_analysis().UnpackTo(&bottleneck)) {
    bottleneck = ComputeBottleneckAnalysis(page.input_analysis().input_time_breakdown(),
                                           page.input_analysis().step_details());
  }
  *page.mutable_recommendation() =
      ComputeRecommendation(op_stats, bottleneck, page.input_analysis().output_percent());
  *page.mutable_diagnostics() = op_stats.diagnostics();
  return page;
}

}  // namespace tbprof::views
