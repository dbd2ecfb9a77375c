#include "converters/views/diff/diff_model.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace tensorflow::profiler;  // NOLINT: test data only.

struct Step {
  int number;
  double ms, compute_ms, input_ms;
};
struct Kernel {
  std::string name, op;
  uint32_t count;
  uint64_t total_ns;
};

views::HostViews MakeHost(const std::string& host, const std::vector<Step>& steps,
                          const std::vector<Kernel>& kernels,
                          const std::vector<std::pair<std::string, int64_t>>& peaks = {}) {
  views::HostViews h;
  h.host = host;
  for (const Step& s : steps) {
    PerGenericStepDetails d;
    d.set_step_number(s.number);
    d.set_step_time_ms(s.ms);
    d.set_device_compute_ms(s.compute_ms);
    d.set_host_wait_input_ms(s.input_ms);
    d.set_unknown_time_ms(s.ms - s.compute_ms - s.input_ms);
    h.views.input_pipeline.add_step_details()->PackFrom(d);
  }
  for (const Kernel& k : kernels) {
    KernelReport* r = h.views.kernel_stats.add_reports();
    r->set_name(k.name);
    r->set_op_name(k.op);
    r->set_occurrences(k.count);
    r->set_total_duration_ns(k.total_ns);
  }
  for (const auto& [id, peak] : peaks) {
    auto& per = (*h.views.memory_profile.mutable_memory_profile_per_allocator())[id];
    per.mutable_profile_summary()->mutable_peak_stats()->set_peak_bytes_in_use(peak);
    h.views.memory_profile.add_memory_ids(id);
  }
  return h;
}

TEST(DiffModelTest, StepStatsUseTheSampleStandardDeviation) {
  StepStats s = ComputeStepStats({149.553, 149.803, 149.532, 154.343});
  EXPECT_EQ(s.count, 4);
  EXPECT_NEAR(s.mean_ms, 150.80775, 1e-9);
  EXPECT_NEAR(s.sd_ms, 2.3600459564734404, 1e-9);  // What `report` shows.
  EXPECT_DOUBLE_EQ(s.min_ms, 149.532);
  EXPECT_DOUBLE_EQ(s.max_ms, 154.343);
  EXPECT_EQ(ComputeStepStats({5}).sd_ms, 0);
  EXPECT_EQ(ComputeStepStats({}).count, 0);
}

TEST(DiffModelTest, SummaryCombinesHostsAndKernelRowsOfOneName) {
  views::ReportInput input;
  input.source = "run";
  input.hosts.push_back(MakeHost("w0", {{1, 10, 6, 2}, {2, 12, 6, 4}},
                                 {{"gemm", "aten::mm", 4, 4'000'000},
                                  {"gemm", "aten::addmm", 2, 2'000'000},
                                  {"ncclKernel_AllReduce", "", 2, 1'000'000}},
                                 {{"GPU_0_bfc", 100}}));
  input.hosts.push_back(MakeHost("w1", {{1, 11, 7, 2}, {2, 11, 7, 2}},
                                 {{"gemm", "aten::mm", 4, 4'000'000}},
                                 {{"GPU_0_bfc", 300}, {"CPU", 5}}));
  ProfileSummary s = SummarizeProfile(input);
  EXPECT_THAT(s.hosts, ElementsAre("w0", "w1"));
  // Step 1: max(10, 11); step 2: max(12, 11).
  EXPECT_EQ(s.steps.count, 2);
  EXPECT_DOUBLE_EQ(s.steps.mean_ms, 11.5);
  ASSERT_FALSE(s.categories.empty());
  EXPECT_EQ(s.categories[0].key, "device_compute");
  EXPECT_DOUBLE_EQ(s.categories[0].avg_ms, 6.5);  // (6 + 7) / 2 hosts.
  EXPECT_EQ(s.kernels.at("gemm").count, 10);
  EXPECT_DOUBLE_EQ(s.kernels.at("gemm").total_ms, 10);
  EXPECT_DOUBLE_EQ(s.kernels.at("gemm").mean_us(), 1000);
  EXPECT_EQ(s.operators.at("aten::mm").count, 8);
  EXPECT_EQ(s.operators.at(std::string(kNoOperator)).count, 2);
  EXPECT_EQ(s.communication.count, 2);
  EXPECT_DOUBLE_EQ(s.communication.total_ms, 1);
  EXPECT_EQ(s.all_kernels.count, 12);
  EXPECT_EQ(s.memory_peak_bytes.at("GPU_0_bfc"), 300);
  EXPECT_EQ(s.memory_peak_bytes.at("CPU"), 5);
}

ProfileSummary Side(const std::string& source, const std::vector<double>& steps,
                    const std::vector<Kernel>& kernels) {
  views::ReportInput input;
  input.source = source;
  std::vector<Step> rows;
  for (size_t i = 0; i < steps.size(); ++i) {
    rows.push_back({static_cast<int>(i), steps[i], steps[i] / 2, steps[i] / 4});
  }
  input.hosts.push_back(MakeHost("h", rows, kernels));
  return SummarizeProfile(input);
}

TEST(DiffModelTest, KernelsAreMatchedByNameAndOrderedByChange) {
  ProfileSummary base = Side("a", {100, 102, 98}, {{"k1", "op", 10, 10'000'000},
                                                   {"k2", "op", 10, 5'000'000},
                                                   {"gone", "op2", 1, 1'000'000}});
  ProfileSummary next = Side("b", {80, 82, 78}, {{"k1", "op", 10, 4'000'000},
                                                 {"k2", "op", 20, 10'000'000},
                                                 {"new", "op3", 1, 500'000}});
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(base, next);
  ASSERT_TRUE(diff.ok()) << diff.status();
  const AggregateTable& k = diff->kernels;
  EXPECT_EQ(k.in_both, 2);
  EXPECT_EQ(k.only_base, 1);
  EXPECT_EQ(k.only_next, 1);
  ASSERT_EQ(k.rows.size(), 4u);
  EXPECT_EQ(k.rows[0].name, "k1");  // -6 ms
  EXPECT_DOUBLE_EQ(k.rows[0].delta_ms(), -6);
  EXPECT_DOUBLE_EQ(k.rows[0].mean_delta_pct(), -60);
  EXPECT_EQ(k.rows[1].name, "k2");  // +5 ms, same mean.
  EXPECT_DOUBLE_EQ(k.rows[1].mean_delta_pct(), 0);
  EXPECT_EQ(k.rows[2].name, "gone");
  EXPECT_FALSE(k.rows[2].in_next());
  EXPECT_EQ(k.rows[3].name, "new");
  EXPECT_FALSE(k.rows[3].in_base());
  EXPECT_EQ(diff->operators.in_both, 1);

  EXPECT_TRUE(diff->step.available);
  EXPECT_DOUBLE_EQ(diff->step.delta_ms, -20);
  EXPECT_DOUBLE_EQ(diff->step.delta_pct, -20);
  EXPECT_EQ(diff->step.noise, Noise::kOutside);
}

TEST(DiffModelTest, NoiseIsTheLargerStandardDeviation) {
  // sd 10 on the base side; a 5 ms change is within it.
  ProfileSummary base = Side("a", {90, 100, 110}, {{"k", "op", 1, 1000}});
  ProfileSummary next = Side("b", {104, 105, 106}, {{"k", "op", 1, 1000}});
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(base, next);
  ASSERT_TRUE(diff.ok());
  EXPECT_DOUBLE_EQ(diff->step.noise_ms, 10);
  EXPECT_EQ(diff->step.noise, Noise::kWithin);

  SlowerGate gate = CheckSlower(diff->step, 2, /*ignore_noise=*/false);
  EXPECT_FALSE(gate.tripped);
  EXPECT_THAT(gate.message, HasSubstr("within noise"));
  EXPECT_TRUE(CheckSlower(diff->step, 2, /*ignore_noise=*/true).tripped);
  EXPECT_FALSE(CheckSlower(diff->step, 10, /*ignore_noise=*/true).tripped);

  // One step: noise unknown, the gate goes by the mean.
  ProfileSummary single = Side("c", {120}, {{"k", "op", 1, 1000}});
  diff = DiffProfiles(base, single);
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->step.noise, Noise::kUnknown);
  gate = CheckSlower(diff->step, 5, false);
  EXPECT_TRUE(gate.tripped);
  EXPECT_THAT(gate.message, HasSubstr("+20.0%"));
}

TEST(DiffModelTest, NothingInCommonIsAnError) {
  ProfileSummary base = Side("a.json", {}, {{"k1", "op1", 1, 1000}});
  ProfileSummary next = Side("b.json", {10, 11}, {{"k2", "op2", 1, 1000}});
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(base, next);
  ASSERT_FALSE(diff.ok());
  EXPECT_EQ(diff.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(diff.status().message(), HasSubstr("a.json and b.json have nothing in common"));
  EXPECT_THAT(diff.status().message(), HasSubstr("no steps, 2 steps"));

  // Kernels without operators share only "(no op)": still nothing in common.
  base = Side("a", {}, {{"k1", "", 1, 1000}});
  next = Side("b", {}, {{"k2", "", 1, 1000}});
  EXPECT_FALSE(DiffProfiles(base, next).ok());
  // Steps on both sides are enough.
  base = Side("a", {10}, {});
  next = Side("b", {12}, {});
  EXPECT_TRUE(DiffProfiles(base, next).ok());
}

TEST(DiffModelTest, CategoriesMergeInDisplayOrderAndMemoryByAllocator) {
  views::ReportInput a, b;
  a.source = "a";
  b.source = "b";
  a.hosts.push_back(MakeHost("h", {{1, 10, 10, 0}}, {{"k", "op", 1, 1000}}, {{"GPU", 100}}));
  b.hosts.push_back(
      MakeHost("h", {{1, 10, 6, 3}}, {{"k", "op", 1, 1000}}, {{"GPU", 150}, {"CPU", 10}}));
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(SummarizeProfile(a), SummarizeProfile(b));
  ASSERT_TRUE(diff.ok());
  std::vector<std::string> keys;
  for (const CategoryDiff& c : diff->categories) keys.push_back(c.key);
  EXPECT_THAT(keys, ElementsAre("device_compute", "input", "unknown"));
  EXPECT_DOUBLE_EQ(diff->categories[1].base_ms, 0);
  EXPECT_DOUBLE_EQ(diff->categories[1].next_ms, 3);
  ASSERT_EQ(diff->memory.size(), 2u);
  EXPECT_EQ(diff->memory[0].allocator, "GPU");
  EXPECT_EQ(diff->memory[0].base_bytes, 100);
  EXPECT_EQ(diff->memory[0].next_bytes, 150);
  EXPECT_EQ(diff->memory[1].allocator, "CPU");
  EXPECT_EQ(diff->memory[1].base_bytes, -1);
}

TEST(DiffModelTest, CollectivesAreNcclKernels) {
  EXPECT_TRUE(IsCollectiveKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"));
  EXPECT_TRUE(IsCollectiveKernel("ncclKernel_AllGather_RING_LL_Sum_int8_t"));
  EXPECT_TRUE(IsCollectiveKernel("NCCL_AllReduce"));
  EXPECT_FALSE(IsCollectiveKernel("void gemm_nccl_like()"));
}

}  // namespace
}  // namespace tbprof::views
