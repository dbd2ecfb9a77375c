#include "converters/common/input_pipeline_stages.h"

#include <string>

#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using xplane::StatType;

TEST(InputPipelineStagesTest, DataLoaderIterationsOnly) {
  EXPECT_TRUE(IsDataLoaderIteration("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  EXPECT_TRUE(
      IsDataLoaderIteration("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
  EXPECT_FALSE(IsDataLoaderIteration("aten::copy_"));
  EXPECT_FALSE(IsDataLoaderIteration("Memcpy HtoD (Pageable -> Device)"));
  EXPECT_FALSE(IsDataLoaderIteration("cudaMemcpyAsync"));
  EXPECT_FALSE(IsDataLoaderIteration("enumerate(DataLoader)"));  // No iterator part.
}

// Every iteration carries the three stats, with one stage id per event
// kind (its metadata id); other events, copies included, carry none.
TEST(InputPipelineStagesTest, StatsOnDataLoaderEvents) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* line = host->GetOrCreateLine(1);
  const std::string kLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  for (const std::string& name :
       {kLoader, std::string("aten::copy_"), std::string("cudaMemcpyAsync"), kLoader}) {
    const uint32_t md = host->GetOrCreateEventMetadata(name);
    xplane::XEventBuilder ev = line->AddEvent(md, line->num_events() * 1000000, 1000);
    EXPECT_EQ(AddInputPipelineStageStats(host, md, name, &ev), name == kLoader);
  }
  builder.Finalize({.normalize_timestamps = false});
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  ASSERT_NE(plane, nullptr);
  xplane::XPlaneVisitor visitor(&space, plane, xplane::SpaceBaseNs(space));
  int tagged = 0;
  int64_t first_id = -1;
  visitor.ForEachLine([&](const xplane::XLineVisitor& l) {
    l.ForEachEvent([&](const xplane::XEventVisitor& e) {
      auto name = e.GetStat(StatType::kIplStageName);
      auto cat = e.GetStat(StatType::kIplStageCategory);
      auto id = e.GetStat(StatType::kIplStageId);
      if (e.name() != kLoader) {
        EXPECT_FALSE(name || cat || id) << e.name();
        return;
      }
      ++tagged;
      ASSERT_TRUE(name && cat && id);
      EXPECT_EQ(name->StrOrRefValue(), kLoader);
      EXPECT_EQ(cat->StrOrRefValue(), "preprocessing");
      if (first_id < 0) first_id = id->IntOrUintValue();
      EXPECT_EQ(id->IntOrUintValue(), first_id);  // One stage id for the kind.
      EXPECT_GT(id->IntOrUintValue(), 0);
    });
  });
  EXPECT_EQ(tagged, 2);
}

}  // namespace
}  // namespace tbprof::converters
