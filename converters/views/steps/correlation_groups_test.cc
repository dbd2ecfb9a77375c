#include "converters/views/steps/correlation_groups.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

// Against a map filled in the same order (the last launch of an id wins):
// ids added in one ascending run, in a few runs (one per thread), and in
// random order; narrow and full-width id ranges; lookups in ascending,
// nearly ascending and random order from one cursor.
TEST(CorrelationGroupsTest, FindsWhatAMapWould) {
  std::mt19937_64 rng(3);
  for (int runs : {1, 2, 5, 9, 1000}) {
    for (uint64_t range : {uint64_t{50}, uint64_t{1} << 20, ~uint64_t{0}}) {
      SCOPED_TRACE(::testing::Message() << "runs=" << runs << " range=" << range);
      CorrelationGroups groups;
      std::map<int64_t, int32_t> expected;
      const int per_run = 3000 / runs + 1;
      for (int r = 0; r < runs; ++r) {
        std::vector<int64_t> ids(per_run);
        for (int64_t& id : ids) id = static_cast<int64_t>(rng() % range) - 1000;
        std::sort(ids.begin(), ids.end());
        for (int64_t id : ids) {
          const int32_t group = static_cast<int32_t>(rng() % 7) - 1;
          groups.Add(id, group);
          expected[id] = group;
        }
      }
      groups.Finish();
      std::vector<int64_t> queries;
      for (const auto& [id, group] : expected) {
        queries.push_back(id);
        queries.push_back(id + 1);
      }
      for (int i = 0; i < 2000; ++i) queries.push_back(static_cast<int64_t>(rng() % range) - 1000);
      CorrelationGroups::Cursor cursor;
      for (int64_t id : queries) {
        auto it = expected.find(id);
        const int32_t want = it == expected.end() ? -1 : it->second;
        ASSERT_EQ(groups.Find(id, &cursor), want) << id;
        ASSERT_EQ(groups.Contains(id), it != expected.end()) << id;
      }
    }
  }
  CorrelationGroups empty;
  empty.Finish();
  CorrelationGroups::Cursor cursor;
  EXPECT_EQ(empty.Find(5, &cursor), -1);
  EXPECT_FALSE(empty.Contains(5));
}

// Groups set after the launches were added (SetGroup, by order of
// addition) are the ones found, with far more room reserved than used.
TEST(CorrelationGroupsTest, SetGroupReplacesTheGroupOfTheNthLaunch) {
  for (bool sorted : {true, false}) {
    CorrelationGroups groups;
    groups.Reserve(1000);
    const std::vector<int64_t> ids =
        sorted ? std::vector<int64_t>{1, 4, 4, 9} : std::vector<int64_t>{9, 4, 1, 4};
    for (int64_t id : ids) groups.Add(id, -1);
    for (size_t i = 0; i < ids.size(); ++i) groups.SetGroup(i, static_cast<int32_t>(i) * 10);
    groups.Finish();
    CorrelationGroups::Cursor cursor;
    // The later of the two launches with id 4 wins.
    EXPECT_EQ(groups.Find(1, &cursor), sorted ? 0 : 20);
    EXPECT_EQ(groups.Find(4, &cursor), sorted ? 20 : 30);
    EXPECT_EQ(groups.Find(9, &cursor), sorted ? 30 : 0);
    EXPECT_EQ(groups.Find(5, &cursor), -1);
  }
}

}  // namespace
}  // namespace tbprof::views
