// The stats of a plane's events that one reader looks at, visited without
// touching the others.
//
// The step analysis reads a handful of stat kinds (correlation id, root
// level, step name, ...) of every host and device event. XEventVisitor::
// ForEachStat() visits all of an event's own stats and then its metadata's,
// which costs a random read of the event's metadata per event even though
// the metadata of almost every event carry no stat the reader wants.
// SelectedStats precomputes, per event metadata, whether it has a wanted
// stat at all, and skips the metadata's stats when it has none.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_SELECTED_STATS_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_SELECTED_STATS_H_

#include <cstdint>
#include <vector>

#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

class SelectedStats {
 public:
  // `wanted`: per stat metadata of `plane` (indexed like it), 0 for stats
  // not to visit, else a code passed on to the visiting function. Borrows
  // `plane`, which must outlive this.
  SelectedStats(const xplane::XPlaneVisitor& plane, std::vector<uint8_t> wanted);

  // The code of stat metadata `index` (0: not wanted).
  uint8_t code(uint32_t index) const { return wanted_[index]; }
  // Whether event metadata `index` carries a wanted stat.
  bool metadata_has_wanted(uint32_t index) const { return metadata_has_wanted_[index] != 0; }

  // Calls fn(stat, code) for each wanted stat of `event` (an event of the
  // plane), in XEventVisitor::ForEachStat() order: its own stats, then its
  // metadata's.
  template <typename Fn>
  void ForEach(const xplane::XEventVisitor& event, Fn&& fn) const {
    event.ForEachOwnStat([&](const xplane::XStatVisitor& stat) {
      const uint8_t c = wanted_[stat.metadata_index()];
      if (c != 0) fn(stat, c);
    });
    if (!metadata_has_wanted_[event.metadata_index()]) return;
    for (const xplane::Stat& s : plane_->raw().event_metadata[event.metadata_index()].stats) {
      const uint8_t c = wanted_[s.metadata_index()];
      if (c != 0) fn(xplane::XStatVisitor(plane_, &s), c);
    }
  }

 private:
  const xplane::XPlaneVisitor* plane_;
  std::vector<uint8_t> wanted_;               // Per stat metadata.
  std::vector<uint8_t> metadata_has_wanted_;  // Per event metadata.
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_SELECTED_STATS_H_
