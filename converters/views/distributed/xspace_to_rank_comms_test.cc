#include "converters/views/distributed/xspace_to_rank_comms.h"

#include <string>

#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

constexpr int64_t kUs = 1'000'000;  // Picoseconds per microsecond.

std::string Fixture(const std::string& name) {
  return std::string(TBPROF_SOURCE_DIR) + "/testdata/chrome_json/" + name;
}

tbprof::RankComms RankCommsOf(const std::string& path) {
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(path, {}, &space);
  EXPECT_TRUE(summary.ok()) << summary.status();
  absl::StatusOr<StepAnalysis> analysis = ConvertXSpaceToStepAnalysis(space, StepOptions{});
  EXPECT_TRUE(analysis.ok()) << analysis.status();
  return ConvertXSpaceToRankComms(space, analysis->op_stats.step_db());
}

// testdata/chrome_json/distributed/rank0.json, by hand (times in us from the
// first event at ts 1000): step [1000, 1100); a GEMM on [1005, 1045); an
// all_reduce kernel on [1020, 1060) and an all_gather kernel on [1070, 1080),
// both launched inside record_param_comms with full args.
//   compute = 40, communication = 40 + 10 = 50, both = [1020, 1045) = 25
//   -> compute only 15, communication only 25, overlap 25,
//      other = 100 - (40 + 50 - 25) = 35.
TEST(XSpaceToRankCommsTest, StepPartsAndParamCommsMetadata) {
  const tbprof::RankComms r = RankCommsOf(Fixture("distributed/rank0.json"));
  EXPECT_EQ(r.rank(), 0);
  EXPECT_EQ(r.world_size(), 2);
  EXPECT_EQ(r.backend(), "nccl");
  EXPECT_TRUE(r.time_zero_known());
  EXPECT_EQ(r.time_zero_ns(), 1700000000000000000 + 1000 * 1000);
  EXPECT_TRUE(r.no_data_reason().empty());
  ASSERT_EQ(r.steps_size(), 1);
  const tbprof::RankStep& step = r.steps(0);
  EXPECT_EQ(step.step_num(), 1);
  EXPECT_EQ(step.duration_ps(), 100 * kUs);
  EXPECT_EQ(step.compute_ps(), 15 * kUs);
  EXPECT_EQ(step.communication_ps(), 25 * kUs);
  EXPECT_EQ(step.overlap_ps(), 25 * kUs);
  EXPECT_EQ(step.other_ps(), 35 * kUs);
  EXPECT_EQ(step.compute_ps() + step.communication_ps() + step.overlap_ps() + step.other_ps(),
            step.duration_ps());

  ASSERT_EQ(r.collectives_size(), 2);
  const tbprof::CollectiveCall& ar = r.collectives(0);
  EXPECT_EQ(ar.kind(), "all_reduce");
  EXPECT_EQ(ar.collective_name(), "allreduce");
  EXPECT_EQ(ar.dtype(), "Float");
  EXPECT_EQ(ar.dtype_bytes(), 4);
  EXPECT_EQ(ar.in_nelems(), 1000);
  EXPECT_EQ(ar.out_nelems(), 1000);
  EXPECT_EQ(ar.message_bytes(), 4000);
  EXPECT_EQ(ar.group_size(), 2);
  EXPECT_EQ(ar.process_group(), "0");
  EXPECT_EQ(ar.process_group_desc(), "default_pg");
  EXPECT_EQ(ar.process_group_ranks(), "[0, 1]");
  EXPECT_EQ(ar.seq(), 1);
  EXPECT_EQ(ar.begin_ps(), 20 * kUs);
  EXPECT_EQ(ar.duration_ps(), 40 * kUs);
  EXPECT_EQ(ar.step_num(), 1);
  EXPECT_EQ(ar.device(), 0);
  EXPECT_EQ(ar.metadata(), tbprof::COLLECTIVE_METADATA_PARAM_COMMS);
  EXPECT_EQ(ar.kernel_name().rfind("ncclKernel_AllReduce", 0), 0u);

  const tbprof::CollectiveCall& ag = r.collectives(1);
  EXPECT_EQ(ag.kind(), "all_gather");
  EXPECT_EQ(ag.collective_name(), "_allgather_base");
  EXPECT_EQ(ag.dtype_bytes(), 2);
  EXPECT_EQ(ag.message_bytes(), 2000);  // The output: 1000 bf16.
  EXPECT_EQ(ag.seq(), 2);
}

// rank1.json: step [1000, 1120); GEMM [1002, 1040); all_reduce [1040, 1060),
// all_gather [1070, 1080): no overlap; other = 120 - 68 = 52.
TEST(XSpaceToRankCommsTest, SecondRank) {
  const tbprof::RankComms r = RankCommsOf(Fixture("distributed/rank1.json"));
  EXPECT_EQ(r.rank(), 1);
  ASSERT_EQ(r.steps_size(), 1);
  EXPECT_EQ(r.steps(0).duration_ps(), 120 * kUs);
  EXPECT_EQ(r.steps(0).compute_ps(), 38 * kUs);
  EXPECT_EQ(r.steps(0).communication_ps(), 30 * kUs);
  EXPECT_EQ(r.steps(0).overlap_ps(), 0);
  EXPECT_EQ(r.steps(0).other_ps(), 52 * kUs);
  ASSERT_EQ(r.collectives_size(), 2);
  EXPECT_EQ(r.collectives(0).begin_ps(), 40 * kUs);
  EXPECT_EQ(r.collectives(0).duration_ps(), 20 * kUs);
}

// rank1_no_metadata.json: record_param_comms without args around the first
// launch (a generic NCCL kernel), no host event around the second.
TEST(XSpaceToRankCommsTest, CollectivesWithoutMetadataAreKept) {
  const tbprof::RankComms r = RankCommsOf(Fixture("distributed/rank1_no_metadata.json"));
  ASSERT_EQ(r.collectives_size(), 2);
  EXPECT_EQ(r.collectives(0).kind(), "unknown");
  EXPECT_EQ(r.collectives(0).message_bytes(), 0);
  EXPECT_EQ(r.collectives(0).metadata(), tbprof::COLLECTIVE_METADATA_NONE);
  EXPECT_EQ(r.collectives(0).seq(), -1);
  EXPECT_EQ(r.collectives(1).kind(), "all_gather");  // From the kernel name.
  EXPECT_EQ(r.collectives(1).dtype(), "half");
  EXPECT_EQ(r.collectives(1).message_bytes(), 0);
  EXPECT_EQ(r.collectives(1).metadata(), tbprof::COLLECTIVE_METADATA_NONE);
  // Step parts do not need metadata.
  ASSERT_EQ(r.steps_size(), 1);
  EXPECT_EQ(r.steps(0).communication_ps(), 30 * kUs);
}

TEST(XSpaceToRankCommsTest, NoCollectives) {
  const tbprof::RankComms r = RankCommsOf(Fixture("rank3_single_gpu.json"));
  EXPECT_EQ(r.rank(), 3);
  EXPECT_EQ(r.world_size(), 4);
  EXPECT_FALSE(r.no_data_reason().empty());
  EXPECT_EQ(r.collectives_size(), 0);
  EXPECT_EQ(r.steps_size(), 0);
}

TEST(XSpaceToRankCommsTest, WithoutStepsTheProfileSpanIsOneWindow) {
  xplane::XSpaceData space;
  ASSERT_TRUE(
      converters::ConvertChromeJsonToXSpace(Fixture("distributed/rank0.json"), {}, &space).ok());
  const tbprof::RankComms r = ConvertXSpaceToRankComms(space, {});
  EXPECT_TRUE(r.steps_from_profile_span());
  ASSERT_EQ(r.steps_size(), 1);
  EXPECT_EQ(r.steps(0).step_num(), -1);
  // First GPU event 1005, last end 1080.
  EXPECT_EQ(r.steps(0).duration_ps(), 75 * kUs);
  EXPECT_EQ(r.steps(0).other_ps(), 75 * kUs - (40 + 50 - 25) * kUs);
  EXPECT_EQ(r.collectives(0).step_num(), -1);
}

}  // namespace
}  // namespace tbprof::views
