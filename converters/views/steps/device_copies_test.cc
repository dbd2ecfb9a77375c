#include "converters/views/steps/device_copies.h"

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

TEST(DeviceCopiesTest, LastAddedOfEqualIdsWins) {
  DeviceCopies copies;
  copies.Add(7, {kHostToDevice, 0, 10});
  copies.Add(3, {kDeviceToHost, 20, 30});
  copies.Add(7, {kDeviceToDevice, 40, 50});
  copies.Finish();
  EXPECT_EQ(copies.size(), 2u);
  DeviceCopies::Cursor cursor;
  const DeviceCopy* c = copies.Find(7, &cursor);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type, kDeviceToDevice);
  EXPECT_EQ(c->begin_ps, 40);
  EXPECT_EQ(copies.Find(5, &cursor), nullptr);
  ASSERT_NE(copies.Find(3, &cursor), nullptr);
  EXPECT_EQ(copies.Find(3, &cursor)->type, kDeviceToHost);
  EXPECT_EQ(copies.Find(-1, &cursor), nullptr);
  EXPECT_EQ(copies.Find(100, &cursor), nullptr);
}

TEST(DeviceCopiesTest, EmptyFindsNothing) {
  DeviceCopies copies;
  copies.Finish();
  DeviceCopies::Cursor cursor;
  EXPECT_EQ(copies.Find(0, &cursor), nullptr);
}

TEST(DeviceCopiesTest, MatchesAMapInAnyQueryOrder) {
  std::mt19937_64 rng(42);
  DeviceCopies copies;
  std::map<int64_t, int64_t> reference;  // id -> begin_ps of the last added.
  for (int i = 0; i < 3000; ++i) {
    // Mostly ascending ids with repeats and jumps back, as device streams give.
    const int64_t id = i % 500 == 0 ? static_cast<int64_t>(rng() % 5000)
                                    : static_cast<int64_t>(i * 2 + rng() % 3);
    copies.Add(id, {kHostToDevice, i, i + 1});
    reference[id] = i;
  }
  copies.Finish();
  std::vector<int64_t> queries;
  for (int64_t id = -5; id < 6100; ++id) queries.push_back(id);
  for (int order = 0; order < 3; ++order) {
    if (order == 1) std::reverse(queries.begin(), queries.end());
    if (order == 2) std::shuffle(queries.begin(), queries.end(), rng);
    DeviceCopies::Cursor cursor;
    for (int64_t id : queries) {
      const DeviceCopy* c = copies.Find(id, &cursor);
      auto it = reference.find(id);
      if (it == reference.end()) {
        EXPECT_EQ(c, nullptr) << id;
      } else {
        ASSERT_NE(c, nullptr) << id;
        EXPECT_EQ(c->begin_ps, it->second) << id;
      }
    }
  }
}

}  // namespace
}  // namespace tbprof::views
