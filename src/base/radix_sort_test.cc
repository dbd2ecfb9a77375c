#include "src/base/radix_sort.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof {
namespace {

// Sorts like std::sort for key widths from a few bits to all 64, with and
// without duplicates, below and above the size where counting starts.
TEST(RadixSortTest, SortsLikeStdSort) {
  std::mt19937_64 rng(42);
  std::vector<uint64_t> scratch;
  for (size_t n : {0u, 1u, 2u, 511u, 512u, 513u, 5000u, 100000u}) {
    for (int bits : {1, 9, 11, 12, 33, 47, 63, 64}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " bits=" << bits);
      std::vector<uint64_t> keys(n);
      for (uint64_t& k : keys) k = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
      std::vector<uint64_t> expected = keys;
      std::sort(expected.begin(), expected.end());
      RadixSortUint64(&keys, &scratch);
      EXPECT_EQ(keys, expected);
    }
  }
}

TEST(RadixSortTest, SortedReversedAndConstantInputs) {
  std::vector<uint64_t> scratch;
  std::vector<uint64_t> ascending(3000), descending(3000), constant(3000, 7);
  for (size_t i = 0; i < 3000; ++i) {
    ascending[i] = i << 9 | (i % 3);
    descending[i] = (3000 - i) << 20;
  }
  for (std::vector<uint64_t> keys : {ascending, descending, constant}) {
    std::vector<uint64_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    RadixSortUint64(&keys, &scratch);
    EXPECT_EQ(keys, expected);
  }
}

TEST(RadixSortTest, BitRangeIsStableAndIgnoresOtherBits) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> scratch;
  for (size_t n : {0u, 1u, 2u, 700u, 20000u}) {
    for (auto [first, end] : {std::pair{0, 5}, std::pair{32, 45}, std::pair{20, 64},
                              std::pair{3, 14}, std::pair{60, 64}}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " bits [" << first << ", " << end << ")");
      std::vector<uint64_t> keys(n);
      for (uint64_t& k : keys) k = rng();  // Bits outside the range set too.
      const uint64_t mask =
          (end - first == 64 ? ~uint64_t{0} : ((uint64_t{1} << (end - first)) - 1)) << first;
      std::vector<uint64_t> expected = keys;
      std::stable_sort(expected.begin(), expected.end(),
                       [mask](uint64_t a, uint64_t b) { return (a & mask) < (b & mask); });
      RadixSortUint64Bits(&keys, &scratch, first, end);
      EXPECT_EQ(keys, expected);
    }
  }
}

}  // namespace
}  // namespace tbprof
