#include "converters/common/input_pipeline_stages.h"

#include "absl/strings/match.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

bool IsDataLoaderIteration(absl::string_view event_name) {
  return absl::StartsWith(event_name, "enumerate(DataLoader)#");
}

bool AddInputPipelineStageStats(xplane::XPlaneBuilder* plane, uint32_t event_metadata_index,
                                absl::string_view event_name, xplane::XEventBuilder* event) {
  if (!IsDataLoaderIteration(event_name)) return false;
  const int64_t stage_id = plane->event_metadata(event_metadata_index).id;
  event->AddRef(plane->GetOrCreateStatMetadata(xplane::StatType::kIplStageName), event_name);
  event->AddRef(plane->GetOrCreateStatMetadata(xplane::StatType::kIplStageCategory),
                kDataLoaderStageCategory);
  event->AddInt64(plane->GetOrCreateStatMetadata(xplane::StatType::kIplStageId), stage_id);
  return true;
}

}  // namespace tbprof::converters
