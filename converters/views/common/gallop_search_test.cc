#include "converters/views/common/gallop_search.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

size_t Gallop(const std::vector<int64_t>& v, int64_t x, size_t hint) {
  return GallopLowerBound(v.size(), hint, [&](size_t i) { return v[i] < x; });
}

size_t Expected(const std::vector<int64_t>& v, int64_t x) {
  return static_cast<size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
}

TEST(GallopSearchTest, EmptyArrayGivesZeroForAnyHint) {
  const std::vector<int64_t> v;
  for (size_t hint : {size_t{0}, size_t{1}, size_t{100}}) EXPECT_EQ(Gallop(v, 5, hint), 0u);
}

TEST(GallopSearchTest, EqualsLowerBoundForEveryValueAndHint) {
  // Duplicates, gaps, values before the first and after the last.
  const std::vector<int64_t> v = {1, 3, 3, 3, 7, 8, 8, 20, 21, 22, 40, 41, 41, 90};
  for (int64_t x = -1; x <= 92; ++x) {
    for (size_t hint = 0; hint <= v.size() + 3; ++hint) {
      ASSERT_EQ(Gallop(v, x, hint), Expected(v, x)) << "x " << x << " hint " << hint;
    }
  }
}

TEST(GallopSearchTest, EqualsLowerBoundOnRandomArraysAndHints) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 200; ++round) {
    std::vector<int64_t> v(rng() % 300);
    for (int64_t& x : v) x = static_cast<int64_t>(rng() % 500);
    std::sort(v.begin(), v.end());
    for (int probe = 0; probe < 50; ++probe) {
      const int64_t x = static_cast<int64_t>(rng() % 520) - 10;
      const size_t hint = rng() % (v.size() + 5);
      ASSERT_EQ(Gallop(v, x, hint), Expected(v, x)) << "x " << x << " hint " << hint;
    }
  }
}

}  // namespace
}  // namespace tbprof::views
