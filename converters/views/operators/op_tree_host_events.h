// How the op tree (op_tree.cc) reads a /host:CPU plane: which lines hold
// op calls, the nesting order of a line's events, what one host event says
// about itself (its stats, through the per-plane tables of
// op_tree_stat_tables.h), and which host events are op calls under the
// "tf_op" and the "host events" rules that op_tree.h states.
//
// Contract. Everything here only reads the plane; string_views in
// HostEventInfo view the XSpaceData of the plane, which must outlive them.
// Times are in picoseconds. Flags and roles are indexed by metadata index
// of the plane they were made from.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_HOST_EVENTS_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_HOST_EVENTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "converters/views/operators/op_tree.h"
#include "converters/views/operators/op_tree_stat_tables.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::op_tree_internal {

// Lines the views derive (steps, ops, ...), not recorded threads.
inline bool IsDerivedLine(const xplane::XLineVisitor& line) {
  return line.id() >= xplane::kThreadIdStepInfo;
}

// A thread's line of Python events ("<thread> python stack").
inline bool IsPythonLine(const xplane::XLineVisitor& line) {
  return absl::EndsWith(line.name(), kPythonStackLineSuffix);
}

// The event indices of a line in nesting order (stable: events with equal
// begin and duration keep their order). Costs no memory for a line that is
// in that order already, as most are.
class NestingOrder {
 public:
  explicit NestingOrder(const xplane::XLineVisitor& line);
  size_t size() const { return size_; }
  uint32_t operator[](size_t k) const {
    return order_.empty() ? static_cast<uint32_t>(k) : order_[k];
  }

 private:
  size_t size_;
  std::vector<uint32_t> order_;  // Empty: the identity.
};

// What one host event says about itself.
struct HostEventInfo {
  bool has_correlation = false;
  int64_t correlation = 0;
  bool is_root = false;
  bool tf_op_set = false;  // Some tf_op stat is not empty.
  bool input_stage = false;  // Has `_ipl_stage_id`: an input-pipeline op for xprof.
  absl::string_view input_dims, input_types, concrete_inputs, call_stack;
};

// Reads one stat into `info` (ReadHostEvent).
inline void ReadHostStat(const xplane::Stat& stat, const std::vector<StatRole>& roles,
                         const StatTexts& texts, HostEventInfo* info) {
  // Branches in the order of how often the roles come (a jump table cost
  // more: its indirect jump was often mispredicted).
  const StatRole role = roles[stat.metadata_index()];
  if (role == StatRole::kNone) return;
  if (role == StatRole::kTfOp) {
    if (!info->tf_op_set) info->tf_op_set = !texts.Of(stat).empty();
  } else if (role == StatRole::kInputDims) {
    info->input_dims = texts.Of(stat);
  } else if (role == StatRole::kInputTypes) {
    info->input_types = texts.Of(stat);
  } else if (role == StatRole::kCorrelation) {
    info->has_correlation = true;
    info->correlation = texts.IntOrUint(stat);
  } else if (role == StatRole::kConcreteInputs) {
    info->concrete_inputs = texts.Of(stat);
  } else if (role == StatRole::kCallStack) {
    info->call_stack = texts.Of(stat);
  } else if (role == StatRole::kIsRoot) {
    info->is_root = true;
  } else if (role == StatRole::kInputPipelineStage) {
    info->input_stage = true;
  }
}

// What event `event` of `line` (a line of `plane`) says, from its stats and
// then, when `metadata_stats`, its event metadata's (XEventVisitor's
// ForEachStat order), with the record_shapes / with_stack texts (the last
// of each). `metadata_stats` may be false when none of the metadata's stats
// has a role (kMetadataRoleStats): it reads the same then. Inline over the
// raw stats: it runs once per host event.
//
// Overwrites every field of `*info` (a caller keeps one for all events: a
// fresh one per event was cleared with a `rep stos`, which cost more than
// reading the stats).
inline void ReadHostEvent(const xplane::Line& line, size_t event, const xplane::Plane& plane,
                          bool metadata_stats, const std::vector<StatRole>& roles,
                          const StatTexts& texts, HostEventInfo* info) {
  info->has_correlation = false;
  info->correlation = 0;
  info->is_root = false;
  info->tf_op_set = false;
  info->input_stage = false;
  info->input_dims = absl::string_view();
  info->input_types = absl::string_view();
  info->concrete_inputs = absl::string_view();
  info->call_stack = absl::string_view();
  const xplane::Stat* stats = line.stats.data();
  for (uint32_t i = line.events[event].stats_begin, end = line.stats_end(event); i < end; ++i) {
    ReadHostStat(stats[i], roles, texts, info);
  }
  if (metadata_stats) {
    for (const xplane::Stat& stat : plane.event_metadata[line.events[event].metadata_index()].stats) {
      ReadHostStat(stat, roles, texts, info);
    }
  }
}

// What the names of a host plane's event metadata say (bits, by index).
enum : uint8_t {
  kMemoryEvent = 1,  // MemoryAllocation / MemoryDeallocation: never an op.
  kTfOpNamed = 2,    // A TensorFlow / JAX op name: an op under the tf_op rule.
  kNotAHostOp = 4,   // Kineto's trace span or a runtime call by name.
  kMetadataRoleStats = 8,  // Some stat of the metadata has a role (MarkMetadataRoleStats).
};

// The flags of each event metadata of a host plane, by metadata index.
std::vector<uint8_t> HostNameFlags(const xplane::XPlaneVisitor& plane);

// Sets kMetadataRoleStats in the flags (by metadata index, as HostNameFlags
// makes them) of the event metadata of `plane` that carry a stat whose
// role (by `roles`, StatRoles of the plane) is not kNone.
void MarkMetadataRoleStats(const xplane::XPlaneVisitor& plane, const std::vector<StatRole>& roles,
                           std::vector<uint8_t>* flags);

// Whether a host event is an op call under the tf_op rule and under the
// host events rule (op_tree.h).
inline bool IsTfOpRuleOp(const HostEventInfo& info, uint8_t flags) {
  if (info.is_root || (flags & kMemoryEvent)) return false;
  return info.tf_op_set || info.input_stage || (flags & kTfOpNamed);
}
inline bool IsHostRuleOp(const xplane::XEventVisitor& e, const HostEventInfo& info,
                         uint8_t flags) {
  if (info.is_root || (flags & kMemoryEvent)) return false;
  return !info.has_correlation && e.duration_ps() > 0 && !(flags & kNotAHostOp);
}

// True if any host event other than a memory event carries a non-empty
// `tf_op`: the file marks its ops (see op_tree.h).
bool HostMarksOps(const xplane::XPlaneVisitor& plane, const std::vector<uint8_t>& name_flags);

}  // namespace tbprof::views::op_tree_internal

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_HOST_EVENTS_H_
