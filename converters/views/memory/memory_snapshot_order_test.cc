#include "converters/views/memory/memory_snapshot_order.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views::memory_profile {
namespace {

using ::testing::ElementsAre;

std::vector<Snap> SnapsAt(const std::vector<int64_t>& times) {
  std::vector<Snap> snaps(times.size());
  for (size_t i = 0; i < times.size(); ++i) snaps[i].time_ps = times[i];
  return snaps;
}

std::vector<uint32_t> AllIndices(size_t n) {
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  return order;
}

// What SortByTime must give: a stable sort by time of ascending indices.
std::vector<uint32_t> Expected(const std::vector<Snap>& snaps, std::vector<uint32_t> order) {
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return snaps[a].time_ps < snaps[b].time_ps;
  });
  return order;
}

// `runs` ascending runs of `per_run` times each (one per thread line), with
// times drawn from `base` + [0, range) * `unit`; few distinct values give ties.
std::vector<int64_t> RunsOfTimes(std::mt19937_64* rng, int runs, int per_run, int64_t base,
                                 uint64_t range, int64_t unit) {
  std::vector<int64_t> times;
  for (int r = 0; r < runs; ++r) {
    std::vector<int64_t> run(per_run);
    for (int64_t& t : run) t = base + static_cast<int64_t>((*rng)() % range) * unit;
    std::sort(run.begin(), run.end());
    times.insert(times.end(), run.begin(), run.end());
  }
  return times;
}

void ExpectSortsLikeStableSort(const std::vector<int64_t>& times) {
  const std::vector<Snap> snaps = SnapsAt(times);
  std::vector<uint32_t> order = AllIndices(snaps.size());
  const std::vector<uint32_t> expected = Expected(snaps, order);
  SortByTime(snaps.data(), absl::MakeSpan(order));
  EXPECT_EQ(order, expected);
}

TEST(OrderByAllocatorTest, RunsPerAllocatorInPlaneOrder) {
  std::vector<Snap> snaps(6);
  const uint32_t allocators[] = {2, 0, 1, 0, 2, 0};
  for (size_t i = 0; i < snaps.size(); ++i) snaps[i].allocator = allocators[i];
  std::vector<uint32_t> order;
  std::vector<size_t> first;
  OrderByAllocator(snaps, 4, &order, &first);
  EXPECT_THAT(order, ElementsAre(1, 3, 5, 2, 0, 4));
  EXPECT_THAT(first, ElementsAre(0, 3, 4, 6, 6));  // Allocator 3 has none.
}

TEST(OrderByAllocatorTest, NoSnapshots) {
  std::vector<uint32_t> order = {7};
  std::vector<size_t> first;
  OrderByAllocator({}, 0, &order, &first);
  EXPECT_TRUE(order.empty());
  EXPECT_THAT(first, ElementsAre(0));
}

TEST(SortByTimeTest, EmptyAndSingle) {
  ExpectSortsLikeStableSort({});
  ExpectSortsLikeStableSort({5});
}

// One ascending run (one thread): left as it is, ties included.
TEST(SortByTimeTest, AscendingRunStaysInPlaneOrder) {
  const std::vector<Snap> snaps = SnapsAt({1, 3, 3, 3, 8});
  std::vector<uint32_t> order = AllIndices(snaps.size());
  SortByTime(snaps.data(), absl::MakeSpan(order));
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3, 4));
}

// A few runs (up to 8: merged): equal times keep plane order, the earlier
// line's snapshot first.
TEST(SortByTimeTest, FewRunsMergeWithTiesInPlaneOrder) {
  const std::vector<Snap> snaps = SnapsAt({10, 20, 30, 5, 20, 40, 20, 30});
  std::vector<uint32_t> order = AllIndices(snaps.size());
  SortByTime(snaps.data(), absl::MakeSpan(order));
  EXPECT_THAT(order, ElementsAre(3, 0, 1, 4, 6, 2, 7, 5));
  std::mt19937_64 rng(1);
  for (int runs = 2; runs <= 9; ++runs) {
    SCOPED_TRACE(runs);
    ExpectSortsLikeStableSort(RunsOfTimes(&rng, runs, 50, -7000, 40, 1000));
    ExpectSortsLikeStableSort(RunsOfTimes(&rng, runs, 50, 3, 40, 7));
  }
}

// Many runs: radix sort of packed keys, in whole nanoseconds (unit 1000) or
// in picoseconds; ties keep plane order.
TEST(SortByTimeTest, ManyRunsRadixPackedKeys) {
  std::mt19937_64 rng(2);
  for (int runs : {9, 100, 1000}) {
    SCOPED_TRACE(runs);
    ExpectSortsLikeStableSort(RunsOfTimes(&rng, runs, 20, 123000, 500, 1000));
    ExpectSortsLikeStableSort(RunsOfTimes(&rng, runs, 20, -5, 500, 1));
    ExpectSortsLikeStableSort(RunsOfTimes(&rng, runs, 20, 0, uint64_t{1} << 40, 1000));
  }
}

// Many runs whose (time range, position) do not fit in 64 bits: radix sort
// of (time, position) pairs, stable.
TEST(SortByTimeTest, ManyRunsWideRangeRadixPairs) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> times = RunsOfTimes(&rng, 200, 10, -(int64_t{1} << 61), 50, 1);
  for (size_t i = 0; i < times.size(); i += 7) times[i] = (int64_t{1} << 61) + 1;  // Wide, ties.
  ExpectSortsLikeStableSort(times);
}

// `order` is one allocator's run: a subset of the snapshots, in plane order.
TEST(SortByTimeTest, SortsASubsetOfTheSnapshots) {
  std::mt19937_64 rng(4);
  const std::vector<Snap> snaps = SnapsAt(RunsOfTimes(&rng, 30, 40, 0, 60, 1000));
  for (uint32_t step : {2u, 3u}) {
    std::vector<uint32_t> order;
    for (uint32_t i = 1; i < snaps.size(); i += step) order.push_back(i);
    const std::vector<uint32_t> expected = Expected(snaps, order);
    SortByTime(snaps.data(), absl::MakeSpan(order));
    EXPECT_EQ(order, expected);
  }
}

}  // namespace
}  // namespace tbprof::views::memory_profile
