#include "converters/views/steps/selected_stats.h"

#include <utility>

namespace tbprof::views {

SelectedStats::SelectedStats(const xplane::XPlaneVisitor& plane, std::vector<uint8_t> wanted)
    : plane_(&plane), wanted_(std::move(wanted)) {
  wanted_.resize(plane.num_stat_metadata(), 0);
  const std::vector<xplane::EventMetadata>& metadata = plane.raw().event_metadata;
  metadata_has_wanted_.assign(metadata.size(), 0);
  for (size_t i = 0; i < metadata.size(); ++i) {
    for (const xplane::Stat& s : metadata[i].stats) {
      if (wanted_[s.metadata_index()] != 0) {
        metadata_has_wanted_[i] = 1;
        break;
      }
    }
  }
}

}  // namespace tbprof::views
