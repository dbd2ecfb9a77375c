#include "converters/views/steps/selected_stats.h"

#include <optional>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using xplane::StatType;
using xplane::XEventVisitor;
using xplane::XStatVisitor;

// A plane of three events: "plain" with stats of its own only, "meta" whose
// metadata carries a wanted stat, "meta_unwanted" whose metadata carries
// only an unwanted one.
class SelectedStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    xplane::XSpaceBuilder builder(&space_);
    xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    corr_ = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
    shapes_ = host->GetOrCreateStatMetadata(StatType::kTensorShapes);
    root_ = host->GetOrCreateStatMetadata(StatType::kIsRoot);
    const uint32_t plain = host->GetOrCreateEventMetadata("plain");
    const uint32_t meta = host->GetOrCreateEventMetadata("meta");
    const uint32_t meta_unwanted = host->GetOrCreateEventMetadata("meta_unwanted");
    AddMetadataStat(host, meta, root_, 5);
    AddMetadataStat(host, meta_unwanted, shapes_, 6);
    xplane::XLineBuilder* line = host->GetOrCreateLine(1);
    xplane::XEventBuilder e0 = line->AddEvent(plain, 0, 10);
    e0.AddInt64(corr_, 1);
    e0.AddString(shapes_, "[1,2]");
    xplane::XEventBuilder e1 = line->AddEvent(meta, 20, 10);
    e1.AddInt64(corr_, 2);
    e1.AddInt64(root_, 3);  // Own stat first, then the metadata's 5.
    line->AddEvent(meta_unwanted, 40, 10);
    builder.Finalize({});
    plane_.emplace(&space_, &space_.planes[0], 0);
  }

  static void AddMetadataStat(xplane::XPlaneBuilder* host, uint32_t event_md, uint32_t stat_md,
                              int64_t value) {
    xplane::Stat s(stat_md, xplane::StatKind::kInt64);
    s.set_int64_value(value, &host->plane()->wide_values);
    host->event_metadata(event_md).stats.push_back(s);
  }

  std::vector<uint8_t> Wanted() const {
    std::vector<uint8_t> wanted(plane_->num_stat_metadata(), 0);
    wanted[corr_] = 1;
    wanted[root_] = 2;
    return wanted;
  }

  // (code, value) of the visited stats of event `i`.
  std::vector<std::pair<int, int64_t>> Visit(const SelectedStats& selected, size_t i) const {
    std::vector<std::pair<int, int64_t>> seen;
    selected.ForEach(plane_->line(0).event(i), [&](const XStatVisitor& stat, uint8_t code) {
      seen.push_back({code, stat.IntValue()});
    });
    return seen;
  }

  xplane::XSpaceData space_;
  std::optional<xplane::XPlaneVisitor> plane_;
  uint32_t corr_ = 0, shapes_ = 0, root_ = 0;
};

TEST_F(SelectedStatsTest, VisitsOnlyWantedStatsInForEachStatOrder) {
  const SelectedStats selected(*plane_, Wanted());
  using V = std::vector<std::pair<int, int64_t>>;
  EXPECT_EQ(Visit(selected, 0), (V{{1, 1}}));
  EXPECT_EQ(Visit(selected, 1), (V{{1, 2}, {2, 3}, {2, 5}}));
  EXPECT_EQ(Visit(selected, 2), V{});
}

TEST_F(SelectedStatsTest, MarksMetadataWithWantedStats) {
  const SelectedStats selected(*plane_, Wanted());
  EXPECT_FALSE(selected.metadata_has_wanted(0));
  EXPECT_TRUE(selected.metadata_has_wanted(1));
  EXPECT_FALSE(selected.metadata_has_wanted(2));
  EXPECT_EQ(selected.code(root_), 2);
  EXPECT_EQ(selected.code(shapes_), 0);
}

TEST_F(SelectedStatsTest, SameWantedStatsAsFilteringForEachStat) {
  const SelectedStats selected(*plane_, Wanted());
  const std::vector<uint8_t> wanted = Wanted();
  for (size_t i = 0; i < plane_->line(0).num_events(); ++i) {
    const XEventVisitor event = plane_->line(0).event(i);
    std::vector<std::pair<int, int64_t>> expected;
    event.ForEachStat([&](const XStatVisitor& stat) {
      if (wanted[stat.metadata_index()] != 0) {
        expected.push_back({wanted[stat.metadata_index()], stat.IntValue()});
      }
    });
    EXPECT_EQ(Visit(selected, i), expected) << "event " << i;
  }
}

TEST_F(SelectedStatsTest, ShortWantedTableWantsNothingMore) {
  const SelectedStats selected(*plane_, std::vector<uint8_t>{});
  EXPECT_EQ(Visit(selected, 1).size(), 0u);
  EXPECT_FALSE(selected.metadata_has_wanted(1));
}

}  // namespace
}  // namespace tbprof::views
