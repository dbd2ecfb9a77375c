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
#ifndef TBPROF_CONVERTERS_VIEWS_XSPACE_STEP_GROUPING_H_
#define TBPROF_CONVERTERS_VIEWS_XSPACE_STEP_GROUPING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "converters/views/correlation_groups.h"
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

struct XSpaceStepGroups {
  // Indexed by the dense group index used everywhere below.
  std::vector<StepGroup> groups;
  // Dense group index of each event of the host plane, [line][event];
  // -1 = not in any group. Empty when there is no /host:CPU plane.
  std::vector<std::vector<int32_t>> host_event_group;
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
// plus sorting the roots.
XSpaceStepGroups GroupXSpaceSteps(const xplane::XSpaceData& space,
                                  const xplane::XPlaneVisitor* host_plane);

// Returns the dense group of a pre-grouped `group_id`, creating the group.
int32_t GetOrAddPregroupedGroup(int64_t group_id, XSpaceStepGroups* groups);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_XSPACE_STEP_GROUPING_H_
