#include "src/base/radix_sort_pairs.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof {
namespace {

bool SameItems(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value) return false;
  }
  return true;
}

// Gives std::stable_sort's order (equal keys keep their order: the values
// number the items) for key widths from 1 bit to all 64, with many ties,
// below and above the size where counting starts.
TEST(RadixSortPairsTest, SortsLikeStableSort) {
  std::mt19937_64 rng(42);
  std::vector<KeyValue> scratch;
  for (size_t n : {0u, 1u, 2u, 511u, 512u, 513u, 5000u, 100000u}) {
    for (int bits : {1, 3, 11, 12, 22, 33, 47, 64}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " bits=" << bits);
      std::vector<KeyValue> items(n);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t key = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
        items[i] = {key, static_cast<uint32_t>(i)};
      }
      std::vector<KeyValue> expected = items;
      std::stable_sort(expected.begin(), expected.end(),
                       [](const KeyValue& a, const KeyValue& b) { return a.key < b.key; });
      RadixSortPairs(&items, &scratch);
      EXPECT_TRUE(SameItems(items, expected));
    }
  }
}

TEST(RadixSortPairsTest, SortedReversedAndConstantKeys) {
  std::vector<KeyValue> scratch;
  const size_t n = 3000;
  std::vector<KeyValue> ascending(n), descending(n), constant(n);
  for (size_t i = 0; i < n; ++i) {
    ascending[i] = {i / 3, static_cast<uint32_t>(i)};
    descending[i] = {(n - i) << 20, static_cast<uint32_t>(i)};
    constant[i] = {7, static_cast<uint32_t>(i)};
  }
  for (std::vector<KeyValue> items : {ascending, descending, constant}) {
    std::vector<KeyValue> expected = items;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const KeyValue& a, const KeyValue& b) { return a.key < b.key; });
    RadixSortPairs(&items, &scratch);
    EXPECT_TRUE(SameItems(items, expected));
  }
}

}  // namespace
}  // namespace tbprof
