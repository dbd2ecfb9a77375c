#include "converters/views/all_views.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/views/steps_test_util.h"
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

std::string MakeTempDir() {
  std::string pattern = ::testing::TempDir() + "all_views_test_XXXXXX";
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
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

}  // namespace
}  // namespace tbprof::views
