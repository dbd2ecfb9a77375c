#include "converters/views/steps/view_metrics.h"

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::OpMetricsDb;

// (occurrences, time) per op name.
std::map<std::string, std::pair<uint64_t, uint64_t>> Totals(const OpMetricsDb& db) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> totals;
  for (const auto& m : db.metrics_db()) totals[m.name()] = {m.occurrences(), m.time_ps()};
  return totals;
}

// One op launched through several kernels, in one order and the other:
// the op uses TensorCores when any of its kernels does, whichever the
// (op, kernel) pair seen first; events without a tf_op count as their
// kernel.
TEST(DeviceOpMetricsBuilderTest, TensorCoreUseOfAnOpAndKernelFallback) {
  const std::string a = "op_a", b = "op_b", plain = "plain_kernel", tc = "volta_h884gemm";
  DeviceOpMetricsBuilder builder;
  for (int i = 0; i < 3; ++i) {
    builder.Add(a, "", plain, 10);
    builder.Add(b, "", plain, 20);
    builder.Add(b, "", tc, 30);
    builder.Add("", "", plain, 40);
  }
  OpMetricsDb db;
  OpTensorCoreMap tensor_core;
  builder.Finalize(&db, &tensor_core);
  const auto totals = Totals(db);
  ASSERT_EQ(totals.size(), 3u) << db.DebugString();
  EXPECT_EQ(totals.at("op_a"), std::make_pair(uint64_t{3}, uint64_t{30}));
  EXPECT_EQ(totals.at("op_b"), std::make_pair(uint64_t{6}, uint64_t{150}));
  EXPECT_EQ(totals.at("plain_kernel"), std::make_pair(uint64_t{3}, uint64_t{120}));
  EXPECT_FALSE(tensor_core.at("op_a").using_tensor_core);
  EXPECT_TRUE(tensor_core.at("op_b").using_tensor_core);
  EXPECT_FALSE(tensor_core.at("plain_kernel").using_tensor_core);
  EXPECT_EQ(db.total_op_time_ps(), 300u);
}

// Many (op, kernel) pairs, more than the cache holds, in random order: the
// totals are the sums per op, and a builder used again after Finalize()
// starts from nothing.
TEST(DeviceOpMetricsBuilderTest, ManyPairsSumPerOpAndFinalizeStartsOver) {
  std::vector<std::string> ops, kernels;
  for (int i = 0; i < 3000; ++i) ops.push_back("op" + std::to_string(i));
  for (int i = 0; i < 50; ++i) kernels.push_back("kernel" + std::to_string(i));
  std::mt19937_64 rng(11);
  DeviceOpMetricsBuilder builder;
  for (int round = 0; round < 2; ++round) {
    std::map<std::string, std::pair<uint64_t, uint64_t>> expected;
    for (int i = 0; i < 40000; ++i) {
      const std::string& op = ops[rng() % (round == 0 ? ops.size() : 10)];
      const std::string& kernel = kernels[rng() % kernels.size()];
      const int64_t duration = static_cast<int64_t>(rng() % 100);
      if (rng() % 5 == 0) {
        builder.Add("", "", kernel, duration);
        ++expected[kernel].first;
        expected[kernel].second += static_cast<uint64_t>(duration);
      } else {
        builder.Add(op, "", kernel, duration);
        ++expected[op].first;
        expected[op].second += static_cast<uint64_t>(duration);
      }
    }
    OpMetricsDb db;
    builder.Finalize(&db, nullptr);
    EXPECT_EQ(Totals(db), expected) << "round " << round;
  }
}

}  // namespace
}  // namespace tbprof::views
