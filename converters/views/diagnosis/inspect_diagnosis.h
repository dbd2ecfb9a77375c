// What an XSpace contains and which TensorBoard profile-plugin tools will
// show data for it, with the reason when one will not.
//
// The checks mirror what the plugin needs (docs: reference xprof contract):
//   - steps: a root event (stat `_r`, e.g. PyTorch's ProfilerStep#N, or an
//     event named TraceContext) on a /host:CPU line, kernel launches (host
//     events with `correlation_id`) nested in it on the same line, and device
//     events carrying the same `correlation_id`, at least one of them compute;
//   - kernel_stats: a /device:GPU:* plane whose events carry `kernel_details`;
//   - memory_profile: MemoryAllocation/MemoryDeallocation events on /host:CPU;
//   - framework_op_stats: device events attributed to ops (`tf_op`, `hlo_op`,
//     or TensorFlow's `level 0`).
// Pure functions of the XSpace; no I/O.
#ifndef TBPROF_CONVERTERS_VIEWS_DIAGNOSIS_INSPECT_DIAGNOSIS_H_
#define TBPROF_CONVERTERS_VIEWS_DIAGNOSIS_INSPECT_DIAGNOSIS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

struct LineSummary {
  int64_t id = 0;
  std::string name;
  int64_t num_events = 0;
};

struct PlaneSummary {
  int64_t id = 0;
  std::string name;
  int64_t num_lines = 0;
  int64_t num_events = 0;
  int64_t num_event_stats = 0;  // Stats stored on events (not their metadata).
  int64_t num_plane_stats = 0;
  int64_t num_event_metadata = 0;
  int64_t num_stat_metadata = 0;
  std::vector<LineSummary> lines;
  // Occurrences of each stat name on events (own and metadata stats), most
  // frequent first.
  std::vector<std::pair<std::string, int64_t>> stat_counts;
};

struct ToolDiagnosis {
  std::string tool;     // Plugin tool name, e.g. "kernel_stats".
  bool has_data = false;
  std::string detail;   // What it will show, or why it will be empty.
};

struct XSpaceDiagnosis {
  std::vector<std::string> hostnames;
  std::vector<PlaneSummary> planes;
  std::vector<std::string> errors;    // XSpace.errors.
  std::vector<std::string> warnings;  // XSpace.warnings.

  // Steps (see file comment).
  int64_t step_roots = 0;
  int64_t step_roots_with_launches = 0;
  int64_t steps_with_device_work = 0;
  // Events on existing "Steps" lines of device planes (files already grouped
  // by TensorFlow/JAX), and whether any plane declares `group_id`, in which
  // case the plugin does no grouping of its own.
  int64_t device_step_line_events = 0;
  bool has_group_id = false;

  // GPU.
  int64_t gpu_planes = 0;
  int64_t device_events = 0;  // On non-derived lines of /device:GPU:* planes.
  int64_t device_events_with_kernel_details = 0;
  int64_t device_events_with_correlation = 0;
  int64_t device_events_linked = 0;  // Whose correlation_id matches a host event's.
  int64_t device_events_with_op = 0;  // With tf_op, hlo_op or "level 0".
  int64_t host_events = 0;
  int64_t host_events_with_correlation = 0;

  // Memory profile.
  int64_t memory_allocations = 0;
  int64_t memory_deallocations = 0;

  // Whether the /host:metadata plane carries HLO modules (stat "Hlo Proto"):
  // the plugin then also lists memory_viewer and graph_viewer.
  bool has_hlo_protos = false;
  // Lines named "... (overlapping)" (events that overlapped others on their
  // line, moved there with their true durations) and their events.
  int64_t overlap_lines = 0;
  int64_t overlap_line_events = 0;

  std::vector<ToolDiagnosis> tools;
  // The tool list the profile plugin (xprof 2.24) gives for this file, in its
  // order (checked against the real plugin by tests/xprof).
  std::vector<std::string> xprof_tool_names;
  // Other observations worth a user's attention.
  std::vector<std::string> notes;
};

// The note for GPU profiles with steps and without XLA HLO (PyTorch): why
// TensorBoard's overview page shows mostly "All Others" and no step-time
// graph for them, and where the full picture is.
inline constexpr absl::string_view kXprofOverviewNote =
    "TensorBoard's overview page shows this profile's step time mostly as \"All Others\" and "
    "no step-time graph: xprof marks a run as training only from XLA HLO and, on GPU, counts "
    "device events only (DataLoader waits, kernel launches and Python between kernels are "
    "\"All Others\"); tbprof report shows the breakdown with host activity, and the trace "
    "viewer shows every event";

XSpaceDiagnosis DiagnoseXSpace(const xplane::XSpaceData& space);

// DiagnoseXSpace() from a space whose lines' events are handed over in
// pieces as they are read, so the events never need to be held all at once
// (xplane::XSpaceParseOptions::line_events; `tbprof inspect` uses it).
// DiagnoseXSpace(space) is this with every line handed over whole.
//
// Contract: every line of every plane is handed to AddLineEvents() in space
// order (planes in order, a plane's lines in order), each in one or more
// pieces with `line_end` set on its last; `plane` and `line` belong to
// `space`, whose planes and metadata may still grow while lines are added
// (a reader appends planes, and implicit metadata the events name). Then
// Finish() gives the diagnosis of the whole space, whose lines' events may
// be gone by then (everything else must be as read). The result equals
// DiagnoseXSpace() of the full space, except that event times are compared
// within their line only (no overflow is possible for real traces).
class XSpaceDiagnoser {
 public:
  XSpaceDiagnoser();
  ~XSpaceDiagnoser();
  XSpaceDiagnoser(const XSpaceDiagnoser&) = delete;
  XSpaceDiagnoser& operator=(const XSpaceDiagnoser&) = delete;

  // The next piece of `line` (its events and their stats only: Line's
  // invariant holds for them).
  void AddLineEvents(const xplane::XSpaceData& space, const xplane::Plane& plane,
                     const xplane::Line& line, bool line_end);
  // Call once, after the last line.
  XSpaceDiagnosis Finish(const xplane::XSpaceData& space);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The explanation shown when a profile has no step root.
extern const char kNoStepMarkerExplanation[];

// Human-readable report; `title` heads it (e.g. the file name).
std::string FormatDiagnosisText(const XSpaceDiagnosis& diagnosis, absl::string_view title);
// One JSON object; `source` is stored as "source".
std::string FormatDiagnosisJson(const XSpaceDiagnosis& diagnosis, absl::string_view source);

// "12,345".
std::string FormatCount(int64_t n);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DIAGNOSIS_INSPECT_DIAGNOSIS_H_
