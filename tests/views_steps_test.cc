// Step database, overview page and input-pipeline analysis on real traces:
//  * ResNet-50 on a V100 with DataLoader(num_workers=0) vs (num_workers=4)
//    (Kineto JSON from pytorch/kineto's tb_plugin samples): the first run
//    waits for its input, the second barely does; the verdicts must differ.
//    The number of steps equals the number of ProfilerStep#N roots with
//    device work, counted here independently of the grouping code.
//  * Real XSpaces written by TensorFlow (8x V100, already grouped) and JAX
//    (8x MI300X, no step markers) give a sensible run environment.
// Inputs come from TBPROF_SHARED_TESTDATA; missing files skip the test. The
// Kineto part needs the Chrome-JSON converter and is skipped without it.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/op_stats_to_input_pipeline_analysis.h"
#include "converters/views/steps/op_stats_to_overview_page.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_visitor.h"
#ifdef TBPROF_HAVE_CHROME_JSON
#include "converters/chrome_json/chrome_json_to_xspace.h"
#endif

namespace tbprof {
namespace {

using ::testing::HasSubstr;
using views::Breakdown;
using views::StepAnalysis;

const std::string kTestdata = TBPROF_SHARED_TESTDATA;

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

StepAnalysis Analyze(const xplane::XSpaceData& space, Breakdown breakdown) {
  views::StepOptions options;
  options.breakdown = breakdown;
  absl::StatusOr<StepAnalysis> analysis = views::ConvertXSpaceToStepAnalysis(space, options);
  EXPECT_TRUE(analysis.ok()) << analysis.status();
  return analysis.ok() ? *std::move(analysis) : StepAnalysis{};
}

// ProfilerStep#N roots on /host:CPU that contain (on their line) a launch
// whose correlation id some GPU event carries.
int CountProfilerStepsWithDeviceWork(const xplane::XSpaceData& space) {
  const int64_t base = xplane::SpaceBaseNs(space);
  absl::flat_hash_set<int64_t> device_correlation_ids;
  for (const xplane::Plane* p : xplane::FindGpuPlanes(space)) {
    xplane::XPlaneVisitor plane(&space, p, base);
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        if (auto s = event.GetStat(xplane::StatType::kCorrelationId)) {
          device_correlation_ids.insert(s->IntOrUintValue());
        }
      });
    });
  }
  const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  if (host == nullptr) return 0;
  xplane::XPlaneVisitor plane(&space, host, base);
  int steps = 0;
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    for (size_t i = 0; i < line.num_events(); ++i) {
      xplane::XEventVisitor root = line.event(i);
      if (!absl::StartsWith(root.name(), "ProfilerStep#")) continue;
      bool has_device_work = false;
      for (size_t j = i + 1; j < line.num_events() && !has_device_work; ++j) {
        xplane::XEventVisitor e = line.event(j);
        if (e.begin_ps() >= root.end_ps()) break;
        if (auto s = e.GetStat(xplane::StatType::kCorrelationId)) {
          has_device_work = device_correlation_ids.contains(s->IntOrUintValue());
        }
      }
      steps += has_device_work ? 1 : 0;
    }
  });
  return steps;
}

#ifdef TBPROF_HAVE_CHROME_JSON

struct KinetoRun {
  int profiler_steps_with_device_work = 0;
  StepAnalysis with_host;
  StepAnalysis device_only;
};

KinetoRun ConvertAndAnalyze(const std::string& path) {
  KinetoRun run;
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(path, {}, &space);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return run;
  run.profiler_steps_with_device_work = CountProfilerStepsWithDeviceWork(space);
  run.with_host = Analyze(space, Breakdown::kWithHost);
  run.device_only = Analyze(space, Breakdown::kDeviceOnly);
  return run;
}

TEST(ViewsStepsTest, DataLoaderWorkersChangeTheInputVerdict) {
  const std::string w0 = kTestdata + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
  const std::string w4 = kTestdata + "/kineto/resnet50_v100_dataloader_workers4.pt.trace.json.gz";
  if (!FileExists(w0) || !FileExists(w4)) GTEST_SKIP() << "missing " << w0 << " or " << w4;
  KinetoRun run0 = ConvertAndAnalyze(w0);
  KinetoRun run4 = ConvertAndAnalyze(w4);

  for (const KinetoRun* run : {&run0, &run4}) {
    EXPECT_GT(run->profiler_steps_with_device_work, 0);
    // Six steps: the first and last are left out as the plugin does.
    EXPECT_EQ(run->with_host.op_stats.step_db().step_sequence_size(),
              run->profiler_steps_with_device_work - 2);
    EXPECT_EQ(run->device_only.op_stats.step_db().step_sequence_size(),
              run->profiler_steps_with_device_work - 2);
    EXPECT_EQ(run->with_host.op_stats.run_environment().device_type(), "Nvidia GPU (Volta)");
  }

  auto ipa0 = views::ConvertOpStatsToInputPipelineAnalysis(run0.with_host.op_stats);
  auto ipa4 = views::ConvertOpStatsToInputPipelineAnalysis(run4.with_host.op_stats);
  tensorflow::profiler::BottleneckAnalysis b0, b4;
  ASSERT_TRUE(ipa0.recommendation().bottleneck_analysis().UnpackTo(&b0));
  ASSERT_TRUE(ipa4.recommendation().bottleneck_analysis().UnpackTo(&b4));
  RecordProperty("workers0_input_percent", std::to_string(ipa0.input_percent()));
  RecordProperty("workers4_input_percent", std::to_string(ipa4.input_percent()));
  // num_workers=0: the training loop loads every batch itself.
  EXPECT_GE(ipa0.input_percent(), views::kHighlyInputBoundPercent);
  EXPECT_EQ(b0.input_classification(), "host");
  // num_workers=4: far less waiting, and no longer highly input-bound.
  EXPECT_LT(ipa4.input_percent(), views::kModeratelyInputBoundPercent);
  EXPECT_NE(b4.input_classification(), "host");
  EXPECT_GT(ipa0.input_percent() - ipa4.input_percent(), 15.0);
  // The DataLoader iterations appear in the host input-op table.
  ASSERT_GT(ipa0.input_op_details_size(), 0);
  EXPECT_THAT(ipa0.input_op_details(0).op_name(), HasSubstr("DataLoader"));
  // And the overview page recommends DataLoader workers for the first run.
  tensorflow::profiler::OverviewPage page0 =
      views::ConvertStepAnalysisToOverviewPage(run0.with_host);
  ASSERT_GT(page0.recommendation().input_tips_size(), 0);
  EXPECT_THAT(page0.recommendation().input_tips(0).link(), HasSubstr("num_workers"));
  EXPECT_TRUE(page0.run_environment().is_training());
  EXPECT_GT(page0.analysis().top_device_ops_size(), 0);

  // The plugin's own (device-only) numbers cannot see the DataLoader wait.
  auto dev0 = views::ConvertOpStatsToInputPipelineAnalysis(run0.device_only.op_stats);
  EXPECT_LT(dev0.input_percent(), ipa0.input_percent());
}

// Device compute of one step (ms) in a breakdown.
double DeviceComputeMs(const StepAnalysis& analysis, int step) {
  const auto& info = analysis.op_stats.step_db().step_sequence(step).step_info_per_core();
  EXPECT_EQ(info.size(), 1u);
  tensorflow::profiler::GenericStepBreakdown breakdown;
  EXPECT_TRUE(info.begin()->second.step_breakdown().UnpackTo(&breakdown));
  double ps = 0;
  for (int type : {views::kDeviceCompute16, views::kDeviceCompute32}) {
    auto it = breakdown.type_ps().find(type);
    if (it != breakdown.type_ps().end()) ps += static_cast<double>(it->second);
  }
  return ps / 1e9;
}

// Kineto writes ~107 kernels per ResNet step with `dur` 0; 44 of them fall
// in GPU-idle gaps. The with-host breakdown's device compute is the union of
// the step's kernels and memsets (step 17: 98.560 ms from the raw JSON, and
// torch-tb-profiler's Kernel + Memset); device-only keeps xprof's number,
// which counts the gap after each such kernel as compute (102.509 ms, the
// real plugin's, tests/xprof/test_judge.py). docs/views.md, "Breakdown of a
// step".
TEST(ViewsStepsTest, ZeroLengthKernelsAreNotDeviceCompute) {
  const std::string w0 = kTestdata + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
  if (!FileExists(w0)) GTEST_SKIP() << "missing " << w0;
  KinetoRun run = ConvertAndAnalyze(w0);
  ASSERT_EQ(run.with_host.op_stats.step_db().step_sequence_size(), 4);
  ASSERT_EQ(run.device_only.op_stats.step_db().step_sequence_size(), 4);
  EXPECT_EQ(run.with_host.op_stats.step_db().step_sequence(0).step_num(), 17u);
  const double union_ms[] = {98.560, 98.742, 98.670, 98.733};  // Steps 17-20, raw JSON.
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(DeviceComputeMs(run.with_host, i), union_ms[i], 0.0015) << "step " << i;
  }
  EXPECT_NEAR(DeviceComputeMs(run.device_only, 0), 102.509, 0.0015);
}

// bf16 inference on an H100 (cutlass/xmma bf16 GEMMs, BFloat16 elementwise
// kernels): the device compute is reduced precision and no mixed-precision
// advice is given. The plugin's rule ("half"/"fp16" only) would say 0%.
TEST(ViewsStepsTest, Bf16TracesAreReducedPrecision) {
  for (const char* name : {"h100_bert_small_inference", "h100_qwen_inference"}) {
    const std::string path = kTestdata + "/kineto/" + name + ".json.gz";
    if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
    KinetoRun run = ConvertAndAnalyze(path);
    tensorflow::profiler::OverviewPage page =
        views::ConvertStepAnalysisToOverviewPage(run.with_host);
    RecordProperty(std::string(name) + "_reduced_percent",
                   std::to_string(page.analysis().device_compute_16bit_percent()));
    EXPECT_GT(page.analysis().device_compute_16bit_percent(), 50.0) << name;
    tensorflow::profiler::GenericRecommendation generic;
    ASSERT_TRUE(page.recommendation().recommendation().UnpackTo(&generic));
    EXPECT_EQ(generic.precision_statement(), "") << name;
  }
}

// fp32 ResNet-50 on a V100: the advice to use mixed precision stays.
TEST(ViewsStepsTest, Fp32TraceGetsMixedPrecisionAdvice) {
  const std::string path = kTestdata + "/kineto/resnet50_v100_dataloader_workers4.pt.trace.json.gz";
  if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
  KinetoRun run = ConvertAndAnalyze(path);
  tensorflow::profiler::OverviewPage page = views::ConvertStepAnalysisToOverviewPage(run.with_host);
  EXPECT_LT(page.analysis().device_compute_16bit_percent(), 5.0);
  tensorflow::profiler::GenericRecommendation generic;
  ASSERT_TRUE(page.recommendation().recommendation().UnpackTo(&generic));
  EXPECT_THAT(generic.precision_statement(), HasSubstr("reduced precision (bf16, fp16"));
}

// The verdict of every real Kineto trace (with-host breakdown, tbprof's
// default), and that the device-only breakdown keeps xprof's verdict.
TEST(ViewsStepsTest, VerdictsOfTheRealTraces) {
  struct Expected {
    const char* file;
    const char* input;          // input_classification
    const char* statement;      // in the input statement
    const char* kernel_launch;  // kernel_launch_classification
    const char* device_only;    // input_classification with device events only
  };
  const Expected cases[] = {
      // bf16 BERT inference: 80% host compute, 8.6% launches, 4% unexplained.
      // xprof (device events only) calls it POTENTIALLY input-bound.
      {"h100_bert_small_inference.json.gz", "device", "CPU-bound", "moderate", "both"},
      // Qwen inference: 30% of the step launching kernels.
      {"h100_qwen_inference.json.gz", "device", "NOT input-bound", "high", "both"},
      {"resnet50_v100_dataloader_workers0.pt.trace.json.gz", "host", "HIGHLY", "no", "both"},
      {"resnet50_v100_dataloader_workers4.pt.trace.json.gz", "device", "NOT input-bound", "no",
       "both"},
      {"v100_nccl_ns_rank0.pt.trace.json.gz", "device", "NOT input-bound", "no", "device"},
      // DLRM rank 0 of 8: 7.7% DataLoader wait, 9.6% launches, 38% collectives.
      {"dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz", "both", "MODERATELY",
       "moderate", "both"},
  };
  for (const Expected& c : cases) {
    const std::string path = kTestdata + "/kineto/" + c.file;
    if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
    KinetoRun run = ConvertAndAnalyze(path);
    tensorflow::profiler::BottleneckAnalysis with_host, device_only;
    ASSERT_TRUE(views::ConvertOpStatsToInputPipelineAnalysis(run.with_host.op_stats)
                    .recommendation()
                    .bottleneck_analysis()
                    .UnpackTo(&with_host));
    ASSERT_TRUE(views::ConvertOpStatsToInputPipelineAnalysis(run.device_only.op_stats)
                    .recommendation()
                    .bottleneck_analysis()
                    .UnpackTo(&device_only));
    EXPECT_EQ(with_host.input_classification(), c.input) << c.file;
    EXPECT_THAT(with_host.input_statement(), HasSubstr(c.statement)) << c.file;
    EXPECT_THAT(with_host.input_statement(), ::testing::Not(HasSubstr("POTENTIALLY"))) << c.file;
    EXPECT_EQ(with_host.kernel_launch_classification(), c.kernel_launch) << c.file;
    EXPECT_EQ(device_only.input_classification(), c.device_only) << c.file;
  }
}

#else

TEST(ViewsStepsTest, DataLoaderWorkersChangeTheInputVerdict) {
  GTEST_SKIP() << "built without converters/chrome_json (ConvertChromeJsonToXSpace)";
}

#endif  // TBPROF_HAVE_CHROME_JSON

absl::StatusOr<xplane::XSpaceData> ReadXSpace(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return bytes.status();
  return xplane::ParseXSpaceData(*bytes, path);
}

TEST(ViewsStepsTest, TensorFlowXSpaceOverview) {
  const std::string path = kTestdata + "/xspace/tf_v100x8_multiworker.xplane.pb";
  if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
  absl::StatusOr<xplane::XSpaceData> space = ReadXSpace(path);
  ASSERT_TRUE(space.ok()) << space.status();
  StepAnalysis analysis = Analyze(*space, Breakdown::kWithHost);
  tensorflow::profiler::OverviewPage page = views::ConvertStepAnalysisToOverviewPage(analysis);
  EXPECT_EQ(page.run_environment().device_type(), "Nvidia GPU (Volta)");
  EXPECT_EQ(page.run_environment().device_core_count(), 8);
  EXPECT_TRUE(page.run_environment().hostnames().contains("34.83.195.179:6003"));
  // TensorFlow grouped this profile itself (group_id stats): its steps are used.
  EXPECT_GT(page.input_analysis().step_details_size(), 0);
  EXPECT_GT(page.input_analysis().step_time_summary().average(), 0);
  EXPECT_GT(page.analysis().top_device_ops_size(), 0);
  // The device ops come from TensorFlow `tf_op` stats ("name:Type").
  EXPECT_NE(page.analysis().top_device_ops(0).category(), "Kernel");
  EXPECT_NE(page.recommendation().bottleneck(), "unknown");
}

TEST(ViewsStepsTest, JaxXSpaceWithoutStepMarkers) {
  const std::string path = kTestdata + "/xspace/jax08_mi300x8_conv.xplane.pb";
  if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
  absl::StatusOr<xplane::XSpaceData> space = ReadXSpace(path);
  ASSERT_TRUE(space.ok()) << space.status();
  StepAnalysis analysis = Analyze(*space, Breakdown::kWithHost);
  tensorflow::profiler::OverviewPage page = views::ConvertStepAnalysisToOverviewPage(analysis);
  EXPECT_EQ(page.run_environment().device_type(), "AMD GPU - gfx942");
  EXPECT_EQ(page.run_environment().device_core_count(), 8);
  EXPECT_TRUE(page.run_environment().hostnames().contains("tw003"));
  // No `_r` / TraceContext roots: no steps, and the page says so.
  EXPECT_EQ(page.input_analysis().step_details_size(), 0);
  EXPECT_EQ(page.recommendation().bottleneck(), "unknown");
  ASSERT_GT(page.diagnostics().warnings_size(), 0);
  EXPECT_THAT(page.diagnostics().warnings(page.diagnostics().warnings_size() - 1),
              HasSubstr("No step marker"));
  // Device ops are still summarised.
  EXPECT_GT(page.analysis().top_device_ops_size(), 0);
}

}  // namespace
}  // namespace tbprof
