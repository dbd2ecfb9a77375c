#include "converters/views/steps/op_stats_to_input_pipeline_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/step_db_builder.h"

namespace tbprof::views {

using tensorflow::profiler::BottleneckAnalysis;
using tensorflow::profiler::GenericStepBreakdown;
using tensorflow::profiler::GenericStepTimeBreakdown;
using tensorflow::profiler::InputOpDetails;
using tensorflow::profiler::InputPipelineAnalysisRecommendation;
using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::InputTimeBreakdown;
using tensorflow::profiler::OpMetricsDb;
using tensorflow::profiler::OpStats;
using tensorflow::profiler::PerGenericStepDetails;
using tensorflow::profiler::StepSummary;

namespace {

constexpr double kPsPerMs = 1e9;
constexpr double kPsPerUs = 1e6;

std::string OneDigit(double x) { return absl::StrFormat("%.1f", x); }

double SafeDivide(double a, double b) { return b == 0 ? 0 : a / b; }

// Running average, sample variance (n - 1), min and max.
class SampleStats {
 public:
  void Add(double x) {
    ++count_;
    double delta = x - mean_;
    mean_ += delta / count_;
    m2_ += delta * (x - mean_);
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  StepSummary Summary() const {
    StepSummary s;
    if (count_ == 0) return s;
    s.set_average(mean_);
    s.set_standard_deviation(count_ > 1 ? std::sqrt(std::max(0.0, m2_ / (count_ - 1))) : 0.0);
    s.set_minimum(min_);
    s.set_maximum(max_);
    return s;
  }

 private:
  int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

double TypeMs(const GenericStepBreakdown& b, EventType type) {
  auto it = b.type_ps().find(type);
  return it == b.type_ps().end() ? 0.0 : static_cast<double>(it->second) / kPsPerMs;
}

void ComputeGenericStepResults(const OpStats& op_stats, InputPipelineAnalysisResult* result) {
  SampleStats step_time_ms, input_percent;
  SampleStats unknown, wait_input, h2d, input, output, compute, d2d, collectives, host_compute,
      prepare, compile;
  for (const auto& step : op_stats.step_db().step_sequence()) {
    double max_ms = 0;
    for (const auto& [core, info] : step.step_info_per_core()) {
      max_ms = std::max(max_ms, static_cast<double>(info.duration_ps()) / kPsPerMs);
    }
    step_time_ms.Add(max_ms);

    auto it = step.step_info_per_core().find(kDefaultGpuLocalCoreId);
    if (it == step.step_info_per_core().end()) continue;
    const auto& info = it->second;
    GenericStepBreakdown b;
    if (!info.step_breakdown().UnpackTo(&b)) continue;
    PerGenericStepDetails d;
    d.set_step_number(static_cast<int32_t>(info.step_num()));
    d.set_step_name(info.step_name().empty() ? absl::StrCat(info.step_num()) : info.step_name());
    d.set_step_time_ms(static_cast<double>(info.duration_ps()) / kPsPerMs);
    d.set_unknown_time_ms(TypeMs(b, kUnknownTime));
    d.set_host_wait_input_ms(TypeMs(b, kHostWaitInput));
    d.set_host_to_device_ms(TypeMs(b, kHostToDevice) + TypeMs(b, kDeviceWaitHost));
    d.set_output_ms(TypeMs(b, kDeviceToHost));
    d.set_device_compute_ms(TypeMs(b, kDeviceCompute16) + TypeMs(b, kDeviceCompute32));
    d.set_device_to_device_ms(TypeMs(b, kDeviceToDevice) + TypeMs(b, kDeviceWaitDevice));
    d.set_device_collectives_ms(TypeMs(b, kDeviceCollectives));
    d.set_host_compute_ms(TypeMs(b, kHostCompute));
    d.set_host_prepare_ms(TypeMs(b, kHostPrepare));
    d.set_host_compile_ms(TypeMs(b, kHostCompile));
    result->add_step_details()->PackFrom(d);

    const double input_ms = d.host_wait_input_ms() + d.host_to_device_ms();
    input_percent.Add(100.0 * SafeDivide(input_ms, d.step_time_ms()));
    unknown.Add(d.unknown_time_ms());
    wait_input.Add(d.host_wait_input_ms());
    h2d.Add(d.host_to_device_ms());
    input.Add(input_ms);
    output.Add(d.output_ms());
    compute.Add(d.device_compute_ms());
    d2d.Add(d.device_to_device_ms());
    collectives.Add(d.device_collectives_ms());
    host_compute.Add(d.host_compute_ms());
    prepare.Add(d.host_prepare_ms());
    compile.Add(d.host_compile_ms());
  }
  *result->mutable_step_time_summary() = step_time_ms.Summary();
  *result->mutable_input_percent_summary() = input_percent.Summary();
  GenericStepTimeBreakdown breakdown;
  *breakdown.mutable_unknown_time_ms_summary() = unknown.Summary();
  *breakdown.mutable_host_wait_input_ms_summary() = wait_input.Summary();
  *breakdown.mutable_host_to_device_ms_summary() = h2d.Summary();
  *breakdown.mutable_input_ms_summary() = input.Summary();
  *breakdown.mutable_output_ms_summary() = output.Summary();
  *breakdown.mutable_device_compute_ms_summary() = compute.Summary();
  *breakdown.mutable_device_to_device_ms_summary() = d2d.Summary();
  *breakdown.mutable_device_collectives_ms_summary() = collectives.Summary();
  *breakdown.mutable_host_compute_ms_summary() = host_compute.Summary();
  *breakdown.mutable_host_prepare_ms_summary() = prepare.Summary();
  *breakdown.mutable_host_compile_ms_summary() = compile.Summary();
  result->mutable_step_time_breakdown()->PackFrom(breakdown);
}

// Host input ops: the table and the breakdown of input time by category.
void ComputeHostInputResult(const OpMetricsDb& host_ops, InputPipelineAnalysisResult* result) {
  if (host_ops.metrics_db_size() == 0) return;
  uint64_t total_self_ps = 0;
  for (const auto& m : host_ops.metrics_db()) total_self_ps += m.self_time_ps();
  absl::flat_hash_map<std::string, double> self_us_by_category;
  for (const auto& m : host_ops.metrics_db()) {
    InputOpDetails* d = result->add_input_op_details();
    d->set_op_name(m.name());
    d->set_count(m.occurrences());
    d->set_time_in_ms(static_cast<double>(m.time_ps()) / kPsPerMs);
    d->set_self_time_in_ms(static_cast<double>(m.self_time_ps()) / kPsPerMs);
    d->set_time_in_percent(100.0 * SafeDivide(m.time_ps(), total_self_ps));
    d->set_self_time_in_percent(100.0 * SafeDivide(m.self_time_ps(), total_self_ps));
    d->set_category(m.category());
    self_us_by_category[m.category()] += static_cast<double>(m.self_time_ps()) / kPsPerUs;
  }
  const double enqueue = self_us_by_category["Enqueue"];
  const double demanded = self_us_by_category["Demanded file read"];
  const double advanced = self_us_by_category["Advanced file read"];
  const double preprocessing = self_us_by_category["Preprocessing"];
  const double unknown = self_us_by_category["Unknown"];
  InputTimeBreakdown* b = result->mutable_input_time_breakdown();
  b->set_enqueue_us(enqueue);
  if (enqueue <= 0) {
    // No enqueue op traced (PyTorch): report the measured times as they are.
    b->set_demanded_file_read_us(demanded);
    b->set_advanced_file_read_us(advanced);
    b->set_preprocessing_us(preprocessing);
    b->set_unclassified_non_enqueue_us(unknown);
    return;
  }
  // The plugin's scaling: non-enqueue time estimated from the share of
  // host-to-device time in the step time.
  GenericStepTimeBreakdown generic;
  double ratio = 0;
  if (result->step_time_summary().average() > 0 &&
      result->step_time_breakdown().UnpackTo(&generic)) {
    ratio = std::min(1.0, SafeDivide(generic.host_to_device_ms_summary().average(),
                                     result->step_time_summary().average()));
  }
  const double classified = demanded + advanced + preprocessing;
  const double non_enqueue = ratio != 0 ? enqueue * (1.0 - ratio) / ratio : classified;
  b->set_demanded_file_read_us(SafeDivide(non_enqueue * demanded, classified));
  b->set_advanced_file_read_us(SafeDivide(non_enqueue * advanced, classified));
  b->set_preprocessing_us(SafeDivide(non_enqueue * preprocessing, classified));
  b->set_unclassified_non_enqueue_us(
      std::max(0.0, non_enqueue - b->demanded_file_read_us() - b->advanced_file_read_us() -
                        b->preprocessing_us()));
}

bool InputPipelineTraced(const InputTimeBreakdown& b) {
  return b.demanded_file_read_us() > 0 || b.advanced_file_read_us() > 0 ||
         b.preprocessing_us() > 0;
}

// Returns true when the verdict already reports the all-others time.
bool InputAnalysis(double input_percent, double all_other_percent, bool host_counted,
                   double host_compute_percent, std::string* classification,
                   std::string* statement) {
  if (input_percent >= kHighlyInputBoundPercent) {
    *classification = "host";
    *statement = absl::StrCat(
        "Your program is HIGHLY input-bound because ", OneDigit(input_percent),
        "% of the total step time sampled is waiting for input. Therefore, you should first "
        "focus on reducing the input time (in PyTorch: the DataLoader).");
    return false;
  }
  if (input_percent >= kModeratelyInputBoundPercent) {
    *classification = "both";
    *statement = absl::StrCat(
        "Your program is MODERATELY input-bound because ", OneDigit(input_percent),
        "% of the total step time sampled is waiting for input. Therefore, you would need to "
        "reduce both the input time and other time.");
    return false;
  }
  // The plugin's rule, kept where it applies: when host activity is not
  // counted, the DataLoader wait hides in "All Others". With host activity
  // counted, input waits are measured, and "All Others" is only the time no
  // event explains: it gets its own verdict below, not an input-bound one.
  if (!host_counted && all_other_percent >= kModeratelyAllOtherPercent) {
    *classification = "both";
    *statement = absl::StrCat(
        "Your program is POTENTIALLY input-bound because ", OneDigit(all_other_percent),
        "% of the total step time sampled is spent on 'All Others' time (which could be due to "
        "I/O, Python execution or host-device synchronization).");
    return true;
  }
  *classification = "device";
  *statement = absl::StrCat("Your program is NOT input-bound because only ",
                            OneDigit(input_percent),
                            "% of the total step time sampled is waiting for input.");
  if (host_counted && host_compute_percent >= kHostBoundPercent) {
    absl::StrAppend(statement, " It is CPU-bound: ", OneDigit(host_compute_percent),
                    "% of the step time is host compute while the GPU has no work (Python, "
                    "operator dispatch, CPU ops). Reduce the work per step on the host "
                    "(torch.compile, CUDA graphs, fewer and larger ops).");
  } else {
    absl::StrAppend(statement, " Therefore, you should focus on reducing other time.");
  }
  return false;
}

// "high" / "moderate" / "no" with a statement for the first two.
void Classify(double percent, const std::string& what, const std::string& advice,
              std::string* classification, std::string* statement) {
  if (percent >= kHighlyBoundPercent) {
    *classification = "high";
  } else if (percent >= kModeratelyBoundPercent) {
    *classification = "moderate";
  } else {
    *classification = "no";
    statement->clear();
    return;
  }
  *statement = absl::StrCat(OneDigit(percent), " % of the total step time sampled is spent on '",
                            what, "'.", advice);
}

InputPipelineAnalysisRecommendation PyTorchInputRecommendation() {
  InputPipelineAnalysisRecommendation r;
  r.add_details(
      "Parallel loading: let worker processes load and transform batches with "
      "DataLoader(num_workers=N) (start with the number of CPU cores per GPU) and keep them "
      "alive across epochs with persistent_workers=True.");
  r.add_details(
      "Asynchronous copies: DataLoader(pin_memory=True) together with "
      "tensor.to(device, non_blocking=True) overlaps host-to-device copies with compute.");
  r.add_details(
      "Prefetching: raise DataLoader(prefetch_factor=...) so that the next batches are ready "
      "before the GPU needs them.");
  r.add_details(
      "Preprocessing: move heavy transforms to the GPU (e.g. torchvision.transforms.v2 on CUDA "
      "tensors, or NVIDIA DALI), or preprocess the data offline.");
  r.add_details(
      "Reading data: read from local disk or memory and from fewer, larger files (shards) "
      "rather than many small files on network storage.");
  return r;
}

}  // namespace

BottleneckAnalysis ComputeBottleneckAnalysis(
    const InputTimeBreakdown& input_time_breakdown,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& step_details) {
  double step = 0, input = 0, output = 0, compute = 0, collectives = 0, prepare = 0, unknown = 0;
  double host_compute = 0, host_wait = 0;
  for (const google::protobuf::Any& any : step_details) {
    PerGenericStepDetails d;
    if (!any.UnpackTo(&d)) continue;
    step += d.step_time_ms();
    input += d.host_wait_input_ms() + d.host_to_device_ms();
    output += d.output_ms();
    compute += d.device_compute_ms();
    collectives += d.device_collectives_ms();
    prepare += d.host_prepare_ms();
    unknown += d.unknown_time_ms();
    host_compute += d.host_compute_ms();
    host_wait += d.host_wait_input_ms();
  }
  // Host activity was counted (the with-host breakdown, or a CPU-only
  // profile) when any step has host compute, launches or input waits; the
  // device-only breakdown has none of these.
  const bool host_counted = host_compute > 0 || prepare > 0 || host_wait > 0;
  BottleneckAnalysis a;
  if (step == 0) {
    a.set_input_classification("unknown");
    a.set_input_statement(
        "No step time measured. Therefore we cannot tell where the performance bottleneck is.");
    a.set_kernel_launch_classification("no");
    a.set_all_other_classification("no");
    a.set_device_collectives_classification("no");
    return a;
  }
  const double input_percent = 100.0 * input / step;
  const double output_percent = 100.0 * output / step;
  const double compute_percent = 100.0 * compute / step;
  const double collectives_percent = 100.0 * collectives / step;
  const double kernel_launch_percent = 100.0 * prepare / step;
  const double all_other_percent = 100.0 * unknown / step;
  a.set_input_percent(input_percent);
  a.set_output_percent(output_percent);
  a.set_compute_percent(compute_percent);
  a.set_idle_percent(std::max(
      0.0, 100.0 - input_percent - output_percent - compute_percent - collectives_percent));

  std::string classification, statement;
  const bool all_other_reported =
      InputAnalysis(input_percent, all_other_percent, host_counted,
                    100.0 * host_compute / step, &classification, &statement);
  a.set_input_classification(classification);
  a.set_input_statement(statement);

  Classify(collectives_percent, "Device Collective Communication",
           " Overlap communication with compute (DistributedDataParallel bucket_cap_mb, "
           "gradient accumulation with no_sync()) or reduce what is exchanged.",
           &classification, &statement);
  a.set_device_collectives_classification(classification);
  a.set_device_collectives_statement(statement);

  std::string launch_advice =
      " The GPU waits for the CPU to issue work, typically many small kernels: capture the "
      "step in CUDA graphs (torch.compile(mode=\"reduce-overhead\") or torch.cuda.CUDAGraph), "
      "fuse operations with torch.compile, or use larger batches.";
  if (InputPipelineTraced(input_time_breakdown)) {
    launch_advice += " DataLoader work in the main process can also slow down kernel launches.";
  }
  Classify(kernel_launch_percent, "Kernel Launch", launch_advice, &classification, &statement);
  a.set_kernel_launch_classification(classification);
  a.set_kernel_launch_statement(statement);

  if (all_other_reported) {
    a.set_all_other_classification("no");
  } else {
    Classify(all_other_percent, "All Others",
             " This could be Python overhead or host-device synchronization: avoid .item(), "
             ".cpu(), .tolist(), printing tensors and torch.cuda.synchronize() inside the "
             "training step.",
             &classification, &statement);
    a.set_all_other_classification(classification);
    a.set_all_other_statement(statement);
  }
  return a;
}

InputPipelineAnalysisResult ConvertOpStatsToInputPipelineAnalysis(const OpStats& op_stats) {
  InputPipelineAnalysisResult result;
  result.set_tag(false);
  result.set_hardware_type(
      tensorflow::profiler::HardwareType_Name(op_stats.run_environment().hardware_type()));
  ComputeGenericStepResults(op_stats, &result);
  *result.mutable_diagnostics() = op_stats.diagnostics();
  ComputeHostInputResult(op_stats.host_op_metrics_db(), &result);

  BottleneckAnalysis bottleneck =
      ComputeBottleneckAnalysis(result.input_time_breakdown(), result.step_details());
  result.set_input_percent(bottleneck.input_percent());
  result.set_output_percent(bottleneck.output_percent());
  result.set_idle_percent(bottleneck.idle_percent());
  result.set_compute_percent(bottleneck.compute_percent());

  InputPipelineAnalysisRecommendation recommendation = PyTorchInputRecommendation();
  const std::string& c = bottleneck.input_classification();
  if (c == "host" || c == "both") {
    recommendation.set_summary_next_step(
        InputPipelineTraced(result.input_time_breakdown())
            ? "See the input-op table of the input-pipeline analysis for where the input time "
              "goes on the host."
            : "The input pipeline is not instrumented in this profile: profile with "
              "torch.profiler, which records DataLoader iterations, to see where the input "
              "time goes.");
  } else {
    recommendation.set_summary_next_step("The input pipeline is not the bottleneck.");
  }
  recommendation.mutable_bottleneck_analysis()->PackFrom(bottleneck);
  *result.mutable_recommendation() = std::move(recommendation);
  return result;
}

}  // namespace tbprof::views
