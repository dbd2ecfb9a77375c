#include "src/base/sorted_cursor.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof {
namespace {

TEST(UpperBoundFromTest, AgreesWithUpperBoundFromAnyHint) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<int64_t> keys(rng() % 40);
    for (int64_t& k : keys) k = static_cast<int64_t>(rng() % 50) - 10;
    std::sort(keys.begin(), keys.end());
    size_t hint = 0;
    for (int query = 0; query < 30; ++query) {
      const int64_t value = static_cast<int64_t>(rng() % 70) - 20;
      const size_t expected = static_cast<size_t>(
          std::upper_bound(keys.begin(), keys.end(), value) - keys.begin());
      if (rng() % 4 == 0) hint = rng() % (keys.size() + 3);  // Any hint, even past the end.
      hint = UpperBoundFrom(keys, value, hint, [](int64_t k) { return k; });
      ASSERT_EQ(hint, expected) << "round " << round << " value " << value;
    }
  }
}

}  // namespace
}  // namespace tbprof
