#include "converters/views/operators/op_tree_launches.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views::op_tree_internal {
namespace {

// Finds each id with one hint, as one device line does.
std::vector<int32_t> FindAll(const LaunchTable& table, const std::vector<int64_t>& ids) {
  std::vector<int32_t> calls;
  size_t hint = 0;
  for (int64_t id : ids) calls.push_back(table.Find(id, &hint));
  return calls;
}

TEST(LaunchTableTest, EmptyTableFindsNothing) {
  LaunchTable table;
  table.Seal();
  size_t hint = 0;
  EXPECT_EQ(table.Find(0, &hint), LaunchTable::kAbsent);
  hint = 17;  // A stale hint past the end is fine.
  EXPECT_EQ(table.Find(5, &hint), LaunchTable::kAbsent);
}

TEST(LaunchTableTest, OutOfOrderSparseAndNegativeIds) {
  const int64_t kFar = (int64_t{1} << 40) + 5;
  LaunchTable table;
  table.Add(kFar, 1);
  table.Add(3, 2);
  table.Add(7, -1);  // Outside every op.
  table.Add(-4, 3);
  table.Add(int64_t{1} << 32, 4);  // Same low half as id 0.
  table.Seal();
  EXPECT_EQ(FindAll(table, {7, 3, kFar, -4, int64_t{1} << 32, 0, 4, kFar + 1, -5}),
            (std::vector<int32_t>{-1, 2, 1, 3, 4, LaunchTable::kAbsent, LaunchTable::kAbsent,
                                  LaunchTable::kAbsent, LaunchTable::kAbsent}));
}

TEST(LaunchTableTest, FirstLaunchAddedOfAnIdWins) {
  // Two runs (two thread lines) both launching ids 3 and 5.
  LaunchTable table;
  table.Add(1, 10);
  table.Add(3, 11);
  table.Add(5, 12);
  table.Add(3, 20);
  table.Add(5, 21);
  table.Add(5, 22);
  table.Seal();
  EXPECT_EQ(FindAll(table, {5, 3, 1}), (std::vector<int32_t>{12, 11, 10}));
}

TEST(LaunchTableTest, HintCarriesAcrossLookupsBothWays) {
  LaunchTable table;
  for (int64_t id = 0; id < 1000; ++id) table.Add(2 * id, static_cast<int32_t>(id));
  table.Seal();
  size_t hint = 0;
  EXPECT_EQ(table.Find(1998, &hint), 999);
  EXPECT_EQ(hint, 999u);
  EXPECT_EQ(table.Find(0, &hint), 0);  // Far back from the hint.
  EXPECT_EQ(table.Find(1001, &hint), LaunchTable::kAbsent);
  EXPECT_EQ(table.Find(1000, &hint), 500);
  EXPECT_EQ(table.Find(2000, &hint), LaunchTable::kAbsent);  // Past the end.
  EXPECT_EQ(table.Find(-1, &hint), LaunchTable::kAbsent);    // Before the start.
  EXPECT_EQ(table.Find(1002, &hint), 501);
}

// More than 64 runs of rising ids: sorted whole, still stable.
TEST(LaunchTableTest, ManyRunsAreSortedStably) {
  constexpr int kRuns = 70;
  LaunchTable table;
  for (int r = 0; r < kRuns; ++r) {
    table.Add(1000 - r, r);        // Falls from run to run: a new run each time.
    table.Add(5000 + r, 100 + r);  // Unique.
  }
  table.Add(1000, 999);  // Launched again later: the first launch wins.
  table.Add(0, 998);
  table.Seal();
  size_t hint = 0;
  for (int r = 0; r < kRuns; ++r) {
    EXPECT_EQ(table.Find(1000 - r, &hint), r) << r;
    EXPECT_EQ(table.Find(5000 + r, &hint), 100 + r) << r;
  }
  EXPECT_EQ(table.Find(0, &hint), 998);
  EXPECT_EQ(table.Find(1001, &hint), LaunchTable::kAbsent);
}

// Up to 64 runs: merged pairwise, an odd run out included, still stable.
TEST(LaunchTableTest, FewRunsAreMergedStably) {
  for (int runs : {1, 2, 3, 5, 63, 64}) {
    LaunchTable table;
    for (int r = 0; r < runs; ++r) {
      for (int64_t id = 0; id < 4; ++id) {
        table.Add(id * 100 + r % 7, r * 10 + static_cast<int32_t>(id));
      }
    }
    table.Seal();
    size_t hint = 0;
    for (int64_t id = 0; id < 4; ++id) {
      for (int k = 0; k < std::min(runs, 7); ++k) {
        // The first run r with r % 7 == k launched this id.
        EXPECT_EQ(table.Find(id * 100 + k, &hint), k * 10 + static_cast<int32_t>(id))
            << runs << " " << id << " " << k;
      }
    }
  }
}

TEST(LaunchTableTest, ReleaseEmptiesTheTable) {
  LaunchTable table;
  table.Add(1, 1);
  table.Seal();
  table.Release();
  size_t hint = 0;
  EXPECT_EQ(table.Find(1, &hint), LaunchTable::kAbsent);
}

}  // namespace
}  // namespace tbprof::views::op_tree_internal
