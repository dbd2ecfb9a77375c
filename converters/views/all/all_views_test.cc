#include "converters/views/all/all_views.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/views/common/steps_test_util.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/logdir/profile_logdir.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using xplane::StatType;

// Two steps with one kernel each, and one allocation on the host plane.
xplane::XSpaceData& BuildSpace(testing::StepSpaceBuilder* b) {
  for (int step = 0; step < 2; ++step) {
    const int64_t base = step * 1000000;
    b->Root(/*tid=*/1, absl::StrCat("ProfilerStep#", step), /*begin_ps=*/base,
            /*duration_ps=*/900000, /*step_num=*/step);
    b->Launch(/*tid=*/1, /*begin_ps=*/base + 1000, /*duration_ps=*/5000,
              /*correlation_id=*/step + 1);
    xplane::XEventBuilder kernel =
        b->Device(/*gpu=*/0, /*stream=*/7, "volta_sgemm_128x64_nn", /*begin_ps=*/base + 10000,
                  /*duration_ps=*/500000, /*correlation_id=*/step + 1);
    kernel.AddString(b->Gpu(0)->GetOrCreateStatMetadata(StatType::kKernelDetails),
                     "regs:32 static_shared:0 dynamic_shared:0 grid:80,1,1 block:128,1,1 "
                     "occ_pct:50");
  }
  xplane::XPlaneBuilder* host = b->Host();
  xplane::XEventBuilder alloc = host->GetOrCreateLine(/*line_id=*/2)->AddEvent(
      host->GetOrCreateEventMetadata("MemoryAllocation"), /*offset_ps=*/20000,
      /*duration_ps=*/0);
  alloc.AddString(host->GetOrCreateStatMetadata(StatType::kAllocatorName), "GPU_0_bfc");
  alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kBytesAllocated), 4096);
  alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kRequestedBytes), 4000);
  alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kAllocationBytes), 4096);
  alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kPeakBytesInUse), 4096);
  alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kAddress), 0x1000);
  return b->Finish();
}

// A new directory, removed with its contents when the test program exits.
std::string MakeTempDir() {
  struct Created {
    std::vector<std::string> dirs;
    ~Created() {
      std::error_code ignored;
      for (const std::string& dir : dirs) std::filesystem::remove_all(dir, ignored);
    }
  };
  static Created created;
  std::string pattern = ::testing::TempDir() + "all_views_test_XXXXXX";
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  if (dir != nullptr) created.dirs.push_back(pattern);
  return pattern;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(AllViewsTest, ComputesEveryView) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  absl::StatusOr<AllViews> views = ComputeAllViews(space);
  ASSERT_TRUE(views.ok()) << views.status();
  EXPECT_EQ(views->input_pipeline.step_details_size(), 2);
  EXPECT_EQ(views->overview.input_analysis().step_details_size(), 2);
  ASSERT_EQ(views->kernel_stats.reports_size(), 1);
  EXPECT_EQ(views->kernel_stats.reports(0).occurrences(), 2u);
  EXPECT_THAT(views->memory_profile.memory_ids(), ElementsAre("GPU_0_bfc"));
  // tbprof's own views: the launches sit directly in the step roots, so the
  // kernels' 1 us is device time no op launched.
  EXPECT_EQ(views->operators.device_time_ps(), 1000000);
  EXPECT_EQ(views->operators.unattributed(2).time_ps(), 1000000);
  EXPECT_FALSE(views->modules.no_data_reason().empty());
  EXPECT_FALSE(views->gemm_efficiency.no_data_reason().empty());
  ViewOptions without;
  without.operator_views = false;
  absl::StatusOr<AllViews> plugin_only = ComputeAllViews(space, without);
  ASSERT_TRUE(plugin_only.ok());
  EXPECT_EQ(plugin_only->operators.device_time_ps(), 0);
}

TEST(AllViewsTest, BreakdownModeReachesTheStepAnalysis) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  ViewOptions device_only;
  device_only.steps.breakdown = Breakdown::kDeviceOnly;
  ViewOptions with_host;
  with_host.steps.breakdown = Breakdown::kWithHost;
  absl::StatusOr<AllViews> a = ComputeAllViews(space, device_only);
  absl::StatusOr<AllViews> h = ComputeAllViews(space, with_host);
  ASSERT_TRUE(a.ok() && h.ok());
  // Device-only steps span the kernel (0.5 us); with host, the root (0.9 us).
  EXPECT_LT(a->input_pipeline.step_time_summary().average(),
            h->input_pipeline.step_time_summary().average());
}

TEST(AllViewsTest, ParseBreakdown) {
  EXPECT_EQ(*ParseBreakdown("device-only"), Breakdown::kDeviceOnly);
  EXPECT_EQ(*ParseBreakdown("with-host"), Breakdown::kWithHost);
  EXPECT_EQ(ParseBreakdown("host").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BreakdownName(Breakdown::kDeviceOnly), "device-only");
}

TEST(AllViewsTest, WritesPrecomputedFilesThatParseBack) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  absl::StatusOr<AllViews> views = ComputeAllViews(space);
  ASSERT_TRUE(views.ok());
  const std::string dir = MakeTempDir();
  absl::StatusOr<std::vector<std::string>> written =
      WritePrecomputedViews(*views, space, dir, "host1", /*overwrite=*/false);
  ASSERT_TRUE(written.ok()) << written.status();
  std::vector<std::string> expected;
  for (const std::string& suffix : PrecomputedViewSuffixes()) {
    expected.push_back(absl::StrCat(dir, "/host1.", suffix));
  }
  EXPECT_EQ(*written, expected);

  tensorflow::profiler::OverviewPage overview;
  ASSERT_TRUE(overview.ParseFromString(*ReadFileToString(expected[0])));
  EXPECT_TRUE(MessageDifferencer::Equals(overview, views->overview));
  tensorflow::profiler::InputPipelineAnalysisResult input;
  ASSERT_TRUE(input.ParseFromString(*ReadFileToString(expected[1])));
  EXPECT_TRUE(MessageDifferencer::Equals(input, views->input_pipeline));
  tensorflow::profiler::KernelStatsDb kernels;
  ASSERT_TRUE(kernels.ParseFromString(*ReadFileToString(expected[2])));
  EXPECT_TRUE(MessageDifferencer::Equals(kernels, views->kernel_stats));
  // ReadFileToString inflates gzip.
  tensorflow::profiler::MemoryProfile memory;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(*ReadFileToString(expected[3]), &memory).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(memory, views->memory_profile));
  EXPECT_THAT(*ReadFileToString(expected[4]), HasSubstr("\"traceEvents\""));
  EXPECT_THAT(*ReadFileToString(expected[4]), HasSubstr("volta_sgemm_128x64_nn"));
}

TEST(AllViewsTest, RefusesToReplaceUnlessAsked) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  AllViews empty;
  const std::string dir = MakeTempDir();
  ASSERT_TRUE(WritePrecomputedViews(empty, space, dir, "h", false).ok());
  const std::string kernel_file = absl::StrCat(dir, "/h.kernel_stats.pb");
  absl::StatusOr<AllViews> views = ComputeAllViews(space);
  ASSERT_TRUE(views.ok());
  absl::StatusOr<std::vector<std::string>> again =
      WritePrecomputedViews(*views, space, dir, "h", /*overwrite=*/false);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("--force"));
  EXPECT_EQ(*ReadFileToString(kernel_file), "");  // The empty db, untouched.
  ASSERT_TRUE(WritePrecomputedViews(*views, space, dir, "h", /*overwrite=*/true).ok());
  EXPECT_NE(*ReadFileToString(kernel_file), "");
}

TEST(AllViewsTest, StagedFilesAppearOnlyOnPublish) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  absl::StatusOr<AllViews> views = ComputeAllViews(space);
  ASSERT_TRUE(views.ok());
  const std::string logdir = MakeTempDir();
  std::string run_dir;
  {
    auto writer = logdir::RunWriter::Open(logdir, "run1");
    ASSERT_TRUE(writer.ok()) << writer.status();
    run_dir = (*writer)->run_dir();
    ASSERT_TRUE((*writer)->StageXSpace("w0", space).ok());
    ASSERT_TRUE(StagePrecomputedViews(*views, space, "w0", writer->get()).ok());
    EXPECT_FALSE(Exists(run_dir + "/w0.overview_page.pb"));
    // Dropped without Publish(): nothing stays.
  }
  EXPECT_FALSE(Exists(run_dir + "/w0.overview_page.pb"));
  auto writer = logdir::RunWriter::Open(logdir, "run1");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->StageXSpace("w0", space).ok());
  ASSERT_TRUE(StagePrecomputedViews(*views, space, "w0", writer->get()).ok());
  ASSERT_TRUE((*writer)->Publish().ok());
  EXPECT_TRUE(Exists(run_dir + "/w0.xplane.pb"));
  for (const std::string& suffix : PrecomputedViewSuffixes()) {
    EXPECT_TRUE(Exists(absl::StrCat(run_dir, "/w0.", suffix))) << suffix;
  }
}


// Every file of `dir` by name, raw bytes (gzip files not inflated).
std::map<std::string, std::string> RawFiles(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    files[entry.path().filename().string()] = bytes.str();
  }
  return files;
}

// StartStaging() streams the trace JSON into its staged file; the files
// published are byte for byte those of Start(), which holds it in memory,
// and are staged in the same order.
TEST(AllViewsTest, StartStagingWritesTheFilesOfStart) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& synthetic = BuildSpace(&b);
  xplane::XSpaceData kineto;
  ASSERT_TRUE(converters::ConvertChromeJsonToXSpace(
                  std::string(TBPROF_SOURCE_DIR) + "/testdata/chrome_json/kineto_small.json",
                  converters::ChromeJsonOptions(), &kineto)
                  .ok());
  const std::string logdir = MakeTempDir();
  int run = 0;
  const std::vector<const xplane::XSpaceData*> spaces = {&synthetic, &kineto};
  for (const xplane::XSpaceData* space : spaces) {
    auto in_memory = logdir::RunWriter::Open(logdir, absl::StrCat("memory", run));
    auto streamed = logdir::RunWriter::Open(logdir, absl::StrCat("streamed", run++));
    ASSERT_TRUE(in_memory.ok() && streamed.ok());
    std::unique_ptr<PrecomputedViewsJob> job = PrecomputedViewsJob::Start(*space);
    ASSERT_TRUE((*in_memory)->StageXSpace("w/0", *space).ok());
    ASSERT_TRUE(job->Finish("w/0", in_memory->get()).ok());
    job = PrecomputedViewsJob::StartStaging(*space, "w/0", streamed->get());
    ASSERT_TRUE((*streamed)->StageXSpace("w/0", *space).ok());  // Meanwhile.
    ASSERT_TRUE(job->Finish("w/0", streamed->get()).ok());
    job.reset();
    const auto& a = (*in_memory)->staged_files();
    const auto& b = (*streamed)->staged_files();
    ASSERT_EQ(a.size(), 6u);
    ASSERT_EQ(b.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(b[i].final_path.substr(b[i].final_path.rfind('/')),
                a[i].final_path.substr(a[i].final_path.rfind('/')));
      EXPECT_EQ(b[i].bytes, a[i].bytes) << a[i].final_path;
    }
    ASSERT_TRUE((*in_memory)->Publish().ok());
    ASSERT_TRUE((*streamed)->Publish().ok());
    std::map<std::string, std::string> expected = RawFiles((*in_memory)->run_dir());
    EXPECT_EQ(expected.size(), 6u);
    EXPECT_TRUE(expected == RawFiles((*streamed)->run_dir()));
  }
}

TEST(AllViewsTest, StartStagingFailureLeavesNoTraceFile) {
  testing::StepSpaceBuilder b;
  const xplane::XSpaceData& space = BuildSpace(&b);
  const std::string logdir = MakeTempDir();
  auto writer = logdir::RunWriter::Open(logdir, "run");
  ASSERT_TRUE(writer.ok());
  const std::string run_dir = (*writer)->run_dir();
  absl::Status status =
      PrecomputedViewsJob::StartStaging(space, "w0", writer->get())->Finish("w1", writer->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE((*writer)->staged_files().empty());
  EXPECT_TRUE(RawFiles(run_dir).empty());  // Not even a hidden file.
  // The trace file's name is free again.
  ASSERT_TRUE((*writer)->StageHostFile("w0", "trace.json.gz", "x").ok());

  // An existing trace file (no --force): refused when staged, as by Start().
  { std::ofstream(run_dir + "/w2.trace.json.gz") << "theirs"; }
  status =
      PrecomputedViewsJob::StartStaging(space, "w2", writer->get())->Finish("w2", writer->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("w2.trace.json.gz"));
  writer->reset();  // Not published.
  EXPECT_EQ(RawFiles(run_dir),
            (std::map<std::string, std::string>{{"w2.trace.json.gz", "theirs"}}));
}

// Expects the views of `parallel` equal to those of `serial` (or the same error).
void ExpectSameViews(const absl::StatusOr<AllViews>& serial,
                     const absl::StatusOr<AllViews>& parallel, const std::string& what);

// The views of every test trace are the same whether ComputeAllViews() runs
// them on two threads or on one, with the op tree views beside the step
// analysis (small spaces: every test space) or after it (large ones).
void ExpectParallelSameAsSerial(const xplane::XSpaceData& space, const std::string& what) {
  ViewOptions serial_options;
  serial_options.parallel = false;
  ViewOptions ops_after_steps;
  ops_after_steps.side_by_side_max_model_bytes = 0;
  if (ModelEventBytes(space) > 0) {
    EXPECT_TRUE(OperatorViewsBesideSteps(space, ViewOptions())) << what;
    EXPECT_FALSE(OperatorViewsBesideSteps(space, ops_after_steps)) << what;
  }
  EXPECT_FALSE(OperatorViewsBesideSteps(space, serial_options)) << what;
  absl::StatusOr<AllViews> serial = ComputeAllViews(space, serial_options);
  for (const ViewOptions& options : {ViewOptions(), ops_after_steps}) {
    ExpectSameViews(serial, ComputeAllViews(space, options), what);
  }
}

void ExpectSameViews(const absl::StatusOr<AllViews>& serial,
                     const absl::StatusOr<AllViews>& parallel, const std::string& what) {
  ASSERT_EQ(serial.ok(), parallel.ok()) << what;
  if (!serial.ok()) {
    EXPECT_EQ(serial.status(), parallel.status()) << what;
    return;
  }
  const google::protobuf::Message* pairs[][2] = {
      {&serial->overview, &parallel->overview},
      {&serial->input_pipeline, &parallel->input_pipeline},
      {&serial->kernel_stats, &parallel->kernel_stats},
      {&serial->memory_profile, &parallel->memory_profile},
      {&serial->operators, &parallel->operators},
      {&serial->modules, &parallel->modules},
      {&serial->gemm_efficiency, &parallel->gemm_efficiency},
      {&serial->rank_comms, &parallel->rank_comms},
      {&serial->gpu_summary, &parallel->gpu_summary},
  };
  for (const auto& pair : pairs) {
    EXPECT_TRUE(MessageDifferencer::Equals(*pair[0], *pair[1]))
        << what << ": " << pair[0]->GetTypeName();
  }
}

TEST(AllViewsTest, ModelEventBytesCountsEventsStatsAndWideValues) {
  xplane::XSpaceData space;
  EXPECT_EQ(ModelEventBytes(space), 0u);
  xplane::Plane& plane = space.planes.emplace_back();
  plane.wide_values = {1, 2};
  plane.lines.emplace_back().events.resize(3);
  plane.lines.back().stats.resize(5);
  space.planes.emplace_back().lines.emplace_back().stats.resize(1);
  EXPECT_EQ(ModelEventBytes(space), 3 * 24 + 5 * 8 + 2 * 8 + 1 * 8u);
}

TEST(AllViewsTest, ParallelGivesTheSerialViews) {
  testing::StepSpaceBuilder b;
  ExpectParallelSameAsSerial(BuildSpace(&b), "synthetic space");
  xplane::XSpaceData empty;
  ExpectParallelSameAsSerial(empty, "empty space");
  const std::string dir = std::string(TBPROF_SOURCE_DIR) + "/testdata/chrome_json/";
  int traces = 0, with_collectives = 0;
  for (const char* name : {"kineto_small.json", "old_capitalised.json", "operators_small.json",
                           "memory_without_addr.json", "kineto_small_bare.json",
                           "distributed/rank0.json", "rank3_single_gpu.json"}) {
    xplane::XSpaceData space;
    auto converted = converters::ConvertChromeJsonToXSpace(dir + name,
                                                           converters::ChromeJsonOptions(), &space);
    ASSERT_TRUE(converted.ok()) << name << ": " << converted.status();
    ExpectParallelSameAsSerial(space, name);
    ++traces;
    absl::StatusOr<AllViews> views = ComputeAllViews(space, ViewOptions());
    ASSERT_TRUE(views.ok()) << name;
    if (views->rank_comms.collectives_size() > 0) ++with_collectives;
  }
  EXPECT_EQ(traces, 7);
  // The distributed view's calls, collected on either thread, are compared.
  EXPECT_GE(with_collectives, 1);
}

}  // namespace
}  // namespace tbprof::views
