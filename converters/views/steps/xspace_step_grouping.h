// Step grouping: which host events belong to which training step, and which
// host launch event each device event belongs to.
//
// This is tbprof's own implementation of the profile plugin's grouping
// (TSL `group_events.cc`) for GPU and CPU profiles:
//  * roots are /host:CPU events with an int64 `_r` stat (root level = its
//    value) or named `TraceContext` (level 1);
//  * an event's parent is the innermost event on the same line whose span
//    includes it; a root's descendants get its group;
//  * roots are processed by level (descending) then start time; a root
//    already grouped, or nested in a root of the same level, gets no group
//    of its own; propagation stops at events that already have a group;
//  * group ids are 0, 1, 2, ... in processing order; a group's name is
//    "<root name> <step_num|iter_num|group id>";
//  * launch events (host events with `correlation_id` whose name is no known
//    host event type) pass their group to device events with the same
//    correlation id (see GroupOfCorrelationId()).
// Not implemented: TensorFlow executor-loop roots, producer/consumer (`_p`,
// `_c`) links between threads, tf.data step exclusion.
//
// Files that already carry the plugin's `group_id` stats (written by
// TensorFlow after grouping) are used as they are, like the plugin does.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_STEP_GROUPING_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_STEP_GROUPING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "converters/views/steps/correlation_groups.h"
#include "converters/views/steps/launch_precision.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

// One group (= candidate step).
struct StepGroup {
  int64_t group_id = 0;          // The plugin's group id.
  std::string name;              // Step name, e.g. "ProfilerStep#3 3".
  int64_t step_num = -1;         // `step_num` / `iter_num` of the root; -1 if none.
  // Span of the host root (or, for pre-grouped files, of the host events
  // carrying `step_name`), picoseconds from the space base.
  bool has_host_span = false;
  int64_t host_begin_ps = 0;
  int64_t host_end_ps = 0;
};

// The dense group index of each event of one host line (-1: none), run-length
// encoded: a line's events are in time order and a step's events follow
// each other, so a line of millions of events holds a few runs per step
// (8 bytes each) instead of 4 bytes per event.
class LineEventGroups {
 public:
  LineEventGroups() = default;
  // From one group per event.
  explicit LineEventGroups(const std::vector<int32_t>& group_of_event);

  // Adds the next event of the line.
  void Append(int32_t group) {
    if (runs_.empty() || runs_.back().group != group) {
      runs_.push_back({static_cast<uint32_t>(num_events_), group});
    }
    ++num_events_;
  }

  // Where the previous Find() ended: lookups at ascending indices (a walk
  // over the line) take amortized constant time.
  struct Cursor {
    size_t run = 0;
  };
  // Group of event `event_index` (-1 also past the last event).
  int32_t Find(size_t event_index, Cursor* cursor) const {
    if (event_index >= num_events_) return -1;
    size_t run = cursor->run < runs_.size() ? cursor->run : 0;
    if (runs_[run].begin > event_index) run = 0;  // Looked up out of order.
    while (run + 1 < runs_.size() && runs_[run + 1].begin <= event_index) ++run;
    cursor->run = run;
    return runs_[run].group;
  }
  size_t num_events() const { return num_events_; }
  size_t num_runs() const { return runs_.size(); }

 private:
  struct Run {
    uint32_t begin;  // First event of the run; runs_[0].begin == 0.
    int32_t group;
  };
  std::vector<Run> runs_;
  size_t num_events_ = 0;
};

struct XSpaceStepGroups {
  // Indexed by the dense group index used everywhere below.
  std::vector<StepGroup> groups;
  // The groups of the events of the host plane, per line. Empty when there
  // is no /host:CPU plane.
  std::vector<LineEventGroups> host_event_group;
  // True when the file carried `group_id` stats and grouping was skipped.
  bool pregrouped = false;

  // Dense group of the launch with this correlation id, or -1.
  int32_t GroupOfCorrelationId(int64_t correlation_id) const {
    CorrelationGroups::Cursor cursor;
    return group_by_correlation_id.Find(correlation_id, &cursor);
  }
  // Dense index of a `group_id` stat value (pre-grouped files), or -1.
  int32_t DenseIndexOfGroupId(int64_t group_id) const {
    auto it = dense_index_by_group_id.find(group_id);
    return it == dense_index_by_group_id.end() ? -1 : it->second;
  }

  CorrelationGroups group_by_correlation_id;
  absl::flat_hash_map<int64_t, int32_t> dense_index_by_group_id;
};

// True if any plane has stat metadata named `group_id`.
bool IsXSpaceGrouped(const xplane::XSpaceData& space);

// Groups the events of `host_plane` (the /host:CPU plane, may be null).
// Never fails: events it cannot place stay ungrouped. Runs in O(events)
// plus sorting the roots (events inside roots of several levels are visited
// once per level); holds 4 bytes per host event while it runs.
// With `hints` (may be null; a builder for `host_plane`'s `input_types`
// stat), the first pass over the host events also walks them through it
// (LaunchPrecisionHintsBuilder), unless the space is pregrouped: then
// `hints` is left untouched.
XSpaceStepGroups GroupXSpaceSteps(const xplane::XSpaceData& space,
                                  const xplane::XPlaneVisitor* host_plane,
                                  LaunchPrecisionHintsBuilder* hints = nullptr);

// Returns the dense group of a pre-grouped `group_id`, creating the group.
int32_t GetOrAddPregroupedGroup(int64_t group_id, XSpaceStepGroups* groups);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_XSPACE_STEP_GROUPING_H_
