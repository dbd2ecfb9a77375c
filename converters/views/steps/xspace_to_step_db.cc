#include "converters/views/steps/xspace_to_step_db.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "converters/views/common/precision.h"
#include "converters/views/common/tensor_core.h"
#include "converters/views/steps/device_copies.h"
#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/launch_precision.h"
#include "converters/views/steps/selected_stats.h"
#include "converters/views/steps/step_db_builder.h"
#include "converters/views/steps/xspace_step_grouping.h"
#include "src/base/sorted_cursor.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

using xplane::HostEventType;
using xplane::StatType;
using xplane::XEventVisitor;
using xplane::XLineVisitor;
using xplane::XPlaneVisitor;
using xplane::XStatVisitor;

namespace {

constexpr size_t kMaxCopiedDiagnostics = 100;

// `num_bytes` from a memcpy_details string of "key:value" tokens separated
// by spaces or newlines; 0 if absent.
uint64_t ParseNumBytes(absl::string_view details) {
  for (absl::string_view token :
       absl::StrSplit(details, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    if (!absl::StartsWith(token, "num_bytes:")) continue;
    uint64_t value = 0;
    if (absl::SimpleAtoi(token.substr(10), &value)) return value;
  }
  return 0;
}

// ---- Device planes --------------------------------------------------------------

struct DeviceEventStats {
  bool has_correlation_id = false;
  int64_t correlation_id = 0;
  bool has_group_id = false;
  int64_t group_id = 0;
  absl::string_view tf_op;
  absl::string_view annotation;  // TensorFlow 2.x before `tf_op` existed.
  absl::string_view shapes;
  absl::string_view memcpy_details;
};

// Per stat metadata of a device plane: 1 for the stats ReadDeviceEventStats()
// reads by type, 2 for those named "annotation" (a stat of no known type),
// 0 for the others.
std::vector<uint8_t> DeviceStatsRead(const XPlaneVisitor& plane) {
  std::vector<uint8_t> read(plane.num_stat_metadata(), 0);
  for (uint32_t i = 0; i < read.size(); ++i) {
    switch (plane.stat_type(i)) {
      case StatType::kCorrelationId:
      case StatType::kGroupId:
      case StatType::kTfOp:
      case StatType::kTensorShapes:
      case StatType::kMemcpyDetails:
        read[i] = 1;
        break;
      case StatType::kUnknown:
        if (plane.stat_name(i) == "annotation") read[i] = 2;
        break;
      default:
        break;
    }
  }
  return read;
}

// `read_stat`: DeviceStatsRead() of the event's plane, as SelectedStats.
DeviceEventStats ReadDeviceEventStats(const XEventVisitor& event,
                                      const SelectedStats& read_stat) {
  DeviceEventStats s;
  read_stat.ForEach(event, [&](const XStatVisitor& stat, uint8_t read) {
    if (read == 2) {
      s.annotation = stat.StrOrRefValue();
      return;
    }
    switch (stat.type()) {
      case StatType::kCorrelationId:
        s.has_correlation_id = true;
        s.correlation_id = stat.IntOrUintValue();
        break;
      case StatType::kGroupId:
        s.has_group_id = true;
        s.group_id = stat.IntValue();
        break;
      case StatType::kTfOp:
        s.tf_op = stat.StrOrRefValue();
        break;
      case StatType::kTensorShapes:
        s.shapes = stat.StrOrRefValue();
        break;
      case StatType::kMemcpyDetails:
        s.memcpy_details = stat.StrOrRefValue();
        break;
      default:
        break;
    }
  });
  return s;
}

// Device copies by correlation id (DeviceCopies). The host call that issued
// a copy is a launch (HOST_PREPARE), which outranks HOST_TO_DEVICE; while
// the copy itself runs, the call's span is typed as the copy instead, so
// that a synchronous cudaMemcpy does not hide the transfer it waits for.

// Walks the events of a device plane's stream lines in time order (k-way
// merge; ties in line order), as the plugin's ProcessUngroupedEvents does.
class DeviceEventMerger {
 public:
  explicit DeviceEventMerger(const XPlaneVisitor& plane) {
    for (size_t i = 0; i < plane.num_lines(); ++i) {
      XLineVisitor line = plane.line(i);
      if (IsDerivedLine(line.id(), line.name()) || IsDeviceAnnotationLine(line.name()) ||
          line.num_events() == 0) {
        continue;
      }
      // Aggregated events (counts, not times) sort last: stop before them.
      size_t end = line.num_events();
      while (end > 0 && line.event(end - 1).is_aggregate()) --end;
      if (end == 0) continue;
      cursors_.push_back({line, 0, end, line.event(0).begin_ps()});
    }
  }
  // Calls fn(event, begin_ps) for every event.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    while (true) {
      Cursor* next = nullptr;
      for (Cursor& c : cursors_) {
        if (c.index < c.end && (next == nullptr || c.begin_ps < next->begin_ps)) {
          next = &c;
        }
      }
      if (next == nullptr) return;
      fn(next->line.event(next->index), next->begin_ps);
      if (++next->index < next->end) {
        next->begin_ps = next->line.event(next->index).begin_ps();
      }
    }
  }

 private:
  struct Cursor {
    XLineVisitor line;
    size_t index;
    size_t end;
    int64_t begin_ps;
  };
  std::vector<Cursor> cursors_;
};

void ProcessDevicePlane(const XPlaneVisitor& plane, size_t plane_index,
                        LazyLaunchPrecisionHints* precision_hints, XSpaceStepGroups* groups,
                        StepDbBuilder* steps, DeviceOpMetricsBuilder* ops,
                        DeviceCopies* memcpy_types) {
  // EventType from the name only, per event metadata (-1 = not computed).
  std::vector<int16_t> type_by_metadata(plane.num_event_metadata(), -1);
  // Whether the name says nothing about precision (-1 = not computed): then
  // the input types of the launching op decide (launch_precision.h).
  std::vector<int8_t> name_is_typeless(plane.num_event_metadata(), -1);
  int32_t last_group = -1;
  CorrelationGroups::Cursor launch_cursor;
  const SelectedStats read_stat(plane, DeviceStatsRead(plane));
  DeviceEventMerger(plane).ForEach([&](const XEventVisitor& event, int64_t begin_ps) {
    const int64_t duration_ps = event.duration_ps();
    const int64_t end_ps = begin_ps + duration_ps;
    const DeviceEventStats s = ReadDeviceEventStats(event, read_stat);
    int16_t& cached = type_by_metadata[event.metadata_index()];
    if (cached < 0) cached = ClassifyGpuEvent(event.name(), /*tensor_shapes=*/"");
    EventType type = static_cast<EventType>(cached);
    if (!s.shapes.empty() && (type == kDeviceCompute16 || type == kDeviceCompute32)) {
      type = ClassifyGpuEvent(event.name(), s.shapes);
    } else if (type == kDeviceCompute32 && s.has_correlation_id && precision_hints->possible()) {
      int8_t& typeless = name_is_typeless[event.metadata_index()];
      if (typeless < 0) {
        typeless = PrecisionOfText(event.name()) == PrecisionHint::kUnknown &&
                   !IsKernelUsingTensorCore(event.name());
      }
      if (typeless && precision_hints->Find(s.correlation_id) == PrecisionHint::kReduced) {
        type = kDeviceCompute16;
      }
    }
    ops->Add(s.tf_op, s.annotation, event.name(), duration_ps);
    const bool is_memcpy =
        type == kHostToDevice || type == kDeviceToHost || type == kDeviceToDevice;
    if (is_memcpy && s.has_correlation_id) {
      memcpy_types->Add(s.correlation_id, {type, begin_ps, end_ps});
    }

    int32_t group = -1;
    if (groups->pregrouped) {
      if (s.has_group_id) group = GetOrAddPregroupedGroup(s.group_id, groups);
    } else {
      if (s.has_correlation_id) {
        group = groups->group_by_correlation_id.Find(s.correlation_id, &launch_cursor);
      }
      if (group < 0) group = last_group;  // Ungrouped: the previous grouped event's group.
      last_group = group;
    }
    if (group < 0) return;
    steps->AddDeviceMarker(group, plane_index, begin_ps, end_ps);
    if (!s.has_correlation_id) return;
    steps->AddDeviceEvent(group, {begin_ps, end_ps, type});
    if (is_memcpy) {
      steps->AddMemoryTransfer(group, type, duration_ps, ParseNumBytes(s.memcpy_details));
    }
  });
}

// Whether some kernel of `gpu_planes` has a name that, by itself, makes it
// 32-bit compute and says nothing about precision: the events that
// ProcessDevicePlane() asks the launch precision hints about have such
// names (a cheap test on the names, before the hints are built).
bool MayNeedPrecisionHints(const xplane::XSpaceData& space,
                           const std::vector<const xplane::Plane*>& gpu_planes) {
  for (const xplane::Plane* plane : gpu_planes) {
    for (const xplane::EventMetadata& md : plane->event_metadata) {
      const absl::string_view name = space.strings.Get(md.name);
      if (ClassifyGpuEvent(name, /*tensor_shapes=*/"") == kDeviceCompute32 &&
          PrecisionOfText(name) == PrecisionHint::kUnknown && !IsKernelUsingTensorCore(name)) {
        return true;
      }
    }
  }
  return false;
}

// ---- Host plane -------------------------------------------------------------------

// Name-based facts about a host event kind, computed once per metadata.
struct HostKind {
  bool computed = false;
  bool real_compute = false;      // Not a wrapper / step marker / Python frame.
  bool input_op = false;          // PyTorch DataLoader iteration.
  EventType name_type = kHostCompute;  // Ignoring correlation id and stages.
  bool executor_process = false;
};

const HostKind& KindOf(const XEventVisitor& event, std::vector<HostKind>* kinds) {
  HostKind& k = (*kinds)[event.metadata_index()];
  if (!k.computed) {
    absl::string_view name = event.name();
    k.computed = true;
    k.real_compute = IsRealCpuCompute(name);
    k.input_op = absl::StartsWith(name, "enumerate(DataLoader)");
    k.name_type = ClassifyCpuEvent(name, /*has_device=*/false, /*has_correlation_id=*/false,
                                   /*is_input_pipeline_root_stage=*/false);
    k.executor_process = absl::StartsWithIgnoreCase(name, "ExecutorState::Process");
  }
  return k;
}

struct HostEventStats {
  bool has_correlation_id = false;
  int64_t correlation_id = 0;
  bool is_root = false;
  bool has_step_name = false;
  absl::string_view ipl_stage_name;
  absl::string_view ipl_stage_category;
};

// Per stat metadata of the host plane: whether ReadHostEventStats() reads
// stats of it. Most stats of a host event (shapes, input types, call
// stacks, ...) are not: a well-predicted test skips them before the switch.
std::vector<uint8_t> HostStatsRead(const XPlaneVisitor& plane) {
  std::vector<uint8_t> read(plane.num_stat_metadata(), 0);
  for (uint32_t i = 0; i < read.size(); ++i) {
    switch (plane.stat_type(i)) {
      case StatType::kCorrelationId:
      case StatType::kIsRoot:
      case StatType::kStepName:
      case StatType::kIplStageName:
      case StatType::kIplStageCategory:
        read[i] = 1;
        break;
      default:
        break;
    }
  }
  return read;
}

// `read_stat`: HostStatsRead() of the event's plane, as SelectedStats.
HostEventStats ReadHostEventStats(const XEventVisitor& event, const SelectedStats& read_stat) {
  HostEventStats s;
  read_stat.ForEach(event, [&](const XStatVisitor& stat, uint8_t) {
    switch (stat.type()) {
      case StatType::kCorrelationId:
        s.has_correlation_id = true;
        s.correlation_id = stat.IntOrUintValue();
        break;
      case StatType::kIsRoot: s.is_root = stat.IntValue() != 0; break;
      case StatType::kStepName: s.has_step_name = true; break;
      case StatType::kIplStageName: s.ipl_stage_name = stat.StrOrRefValue(); break;
      case StatType::kIplStageCategory: s.ipl_stage_category = stat.StrOrRefValue(); break;
      default: break;
    }
  });
  if (event.host_event_type() == HostEventType::kTraceContext) s.is_root = true;
  return s;
}

// Host root spans sorted by start, to place ungrouped host events.
class RootSpanIndex {
 public:
  explicit RootSpanIndex(const std::vector<StepGroup>& groups) {
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].has_host_span) {
        spans_.push_back({groups[g].host_begin_ps, groups[g].host_end_ps,
                          static_cast<int32_t>(g)});
      }
    }
    std::sort(spans_.begin(), spans_.end(),
              [](const Span& a, const Span& b) { return a.begin_ps < b.begin_ps; });
  }
  // Where the last Find() ended: lookups at ascending times (the events of
  // a line) take amortized constant time.
  struct Cursor {
    size_t upper = 0;  // Number of spans that begin at or before the last time.
  };
  // Group whose root span contains `time_ps`, or -1: the last span (by
  // start) that begins at or before it, if it has not ended by then.
  int32_t Find(int64_t time_ps, Cursor* cursor) const {
    const size_t upper = UpperBoundFrom(spans_, time_ps, cursor->upper,
                                        [](const Span& s) { return s.begin_ps; });
    cursor->upper = upper;
    if (upper == 0) return -1;
    const Span& s = spans_[upper - 1];
    return time_ps < s.end_ps ? s.group : -1;
  }

 private:
  struct Span {
    int64_t begin_ps;
    int64_t end_ps;
    int32_t group;
  };
  std::vector<Span> spans_;
};

// The span that covers an open host event and its descendants: the
// innermost span added for it or an ancestor (cover_group < 0: none). A
// descendant's span of the same group that lies strictly inside it and has
// no higher type changes no step's breakdown (at every instant of it, the
// cover is open and wins over it; its boundaries only split pieces of the
// cover's winner in two), so it is not added: in PyTorch traces, most
// nested ops. This halves the spans held on a training trace.
struct OpenHostEvent {
  int64_t begin_ps;
  int64_t end_ps;
  int64_t children_ps;
  bool in_input_stage;   // This event or an ancestor is an input stage.
  EventType cover_type;
  int32_t cover_group;
  int64_t cover_begin_ps;
  int64_t cover_end_ps;
  absl::string_view input_op_name;  // Non-empty: an input op.
  absl::string_view input_category;
};

void ProcessHostPlane(const XPlaneVisitor& plane, const XSpaceStepGroups& groups,
                      StepWindowMode mode, bool has_device, const DeviceCopies& memcpy_types,
                      StepDbBuilder* steps, InputOpMetricsBuilder* input_ops) {
  const bool collect_spans = mode != StepWindowMode::kDeviceOnly;
  const RootSpanIndex root_spans(groups.groups);
  std::vector<HostKind> kinds(plane.num_event_metadata());
  const SelectedStats read_stat(plane, HostStatsRead(plane));
  std::vector<OpenHostEvent> stack;
  auto pop = [&]() {
    const OpenHostEvent& e = stack.back();
    if (!e.input_op_name.empty()) {
      int64_t duration = e.end_ps - e.begin_ps;
      input_ops->Add(e.input_op_name, e.input_category, duration, duration - e.children_ps);
    }
    stack.pop_back();
  };
  for (size_t li = 0; li < plane.num_lines(); ++li) {
    XLineVisitor line = plane.line(li);
    if (IsDerivedLine(line.id(), line.name())) continue;
    const LineEventGroups* line_groups =
        li < groups.host_event_group.size() ? &groups.host_event_group[li] : nullptr;
    LineEventGroups::Cursor group_cursor;
    RootSpanIndex::Cursor root_cursor;
    DeviceCopies::Cursor copy_cursor;
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      XEventVisitor event = line.event(ei);
      if (event.is_aggregate()) continue;
      const int64_t begin = event.begin_ps();
      const int64_t end = begin + event.duration_ps();
      while (!stack.empty() && !(stack.back().begin_ps <= begin && end <= stack.back().end_ps)) {
        pop();
      }
      const HostEventStats s = ReadHostEventStats(event, read_stat);
      const HostKind& kind = KindOf(event, &kinds);
      const bool parent_in_stage = !stack.empty() && stack.back().in_input_stage;
      const bool is_stage = !s.ipl_stage_name.empty();
      if (!stack.empty()) stack.back().children_ps += end - begin;
      // Built in place: a copy of a struct just written stalls on the
      // partial stores (store forwarding fails).
      const OpenHostEvent* parent = stack.empty() ? nullptr : &stack.back();
      const int32_t parent_cover_group = parent != nullptr ? parent->cover_group : -1;
      const EventType parent_cover_type = parent != nullptr ? parent->cover_type : kUnknownTime;
      const int64_t parent_cover_begin = parent != nullptr ? parent->cover_begin_ps : 0;
      const int64_t parent_cover_end = parent != nullptr ? parent->cover_end_ps : 0;
      OpenHostEvent& open = stack.emplace_back();
      open.begin_ps = begin;
      open.end_ps = end;
      open.children_ps = 0;
      open.in_input_stage = parent_in_stage || is_stage;
      open.cover_type = parent_cover_type;
      open.cover_group = parent_cover_group;
      open.cover_begin_ps = parent_cover_begin;
      open.cover_end_ps = parent_cover_end;
      if (is_stage) {
        open.input_op_name = s.ipl_stage_name;
        open.input_category = InputCategoryOfStage(s.ipl_stage_category);
      } else if (kind.input_op) {
        open.input_op_name = event.name();
        open.input_category = "Preprocessing";
      }

      if (!collect_spans || s.is_root || s.has_step_name || !kind.real_compute) continue;
      int32_t group = line_groups != nullptr ? line_groups->Find(ei, &group_cursor) : -1;
      if (group < 0 && mode == StepWindowMode::kWithHost) {
        group = root_spans.Find(begin, &root_cursor);
      }
      if (group < 0) continue;
      const StepGroup& g = groups.groups[group];
      if (!g.has_host_span) continue;
      const int64_t clipped_begin = std::max(begin, g.host_begin_ps);
      const int64_t clipped_end = std::min(end, g.host_end_ps);
      if (clipped_end < clipped_begin) continue;
      EventType type = kind.name_type;
      if (type == kHostCompute || type == kHostWaitInput) {
        if (has_device && (s.has_correlation_id || kind.executor_process)) {
          type = kHostPrepare;
          const DeviceCopy* copy =
              s.has_correlation_id ? memcpy_types.Find(s.correlation_id, &copy_cursor)
                                   : nullptr;
          if (copy != nullptr) {
            // [launch | copy | launch], each part clipped to the call.
            const DeviceCopy& c = *copy;
            const int64_t copy_begin = std::clamp(c.begin_ps, clipped_begin, clipped_end);
            const int64_t copy_end = std::clamp(c.end_ps, copy_begin, clipped_end);
            if (copy_begin > clipped_begin) {
              steps->AddHostEvent(group, {clipped_begin, copy_begin, kHostPrepare});
            }
            if (copy_end > copy_begin) steps->AddHostEvent(group, {copy_begin, copy_end, c.type});
            if (clipped_end > copy_end) {
              steps->AddHostEvent(group, {copy_end, clipped_end, kHostPrepare});
            }
            continue;
          }
        } else if (is_stage && !parent_in_stage) {
          type = kHostWaitInput;
        }
      }
      if (parent_cover_group == group && type <= parent_cover_type &&
          parent_cover_begin < clipped_begin && clipped_end < parent_cover_end) {
        continue;  // Covered: see OpenHostEvent.
      }
      steps->AddHostEvent(group, {clipped_begin, clipped_end, type});
      open.cover_type = type;
      open.cover_group = group;
      open.cover_begin_ps = clipped_begin;
      open.cover_end_ps = clipped_end;
    }
    while (!stack.empty()) pop();
  }
}

void AddDiagnostics(const xplane::XSpaceData& space, const XSpaceStepGroups& groups,
                    const StepDbBuilder::Result& built, bool has_device,
                    tensorflow::profiler::Diagnostics* diag) {
  for (size_t i = 0; i < space.errors.size() && i < kMaxCopiedDiagnostics; ++i) {
    diag->add_errors(space.errors[i]);
  }
  for (size_t i = 0; i < space.warnings.size() && i < kMaxCopiedDiagnostics; ++i) {
    diag->add_warnings(space.warnings[i]);
  }
  const int num_steps = built.step_db.step_sequence_size();
  if (num_steps == 0) {
    diag->add_warnings(
        groups.groups.empty()
            ? "No step marker observed, so the step time is unknown. In PyTorch, profile with "
              "torch.profiler.profile(schedule=...) and call prof.step() once per iteration so "
              "that ProfilerStep#N markers are recorded; other programs need a host event with "
              "an int64 stat `_r` (root) around each step."
            : "Step markers were found, but no step had work on the device that could be linked "
              "to it (device events need the `correlation_id` of a launch inside the step).");
  }
  if (built.steps_without_compute > 0) {
    diag->add_info(absl::StrCat(built.steps_without_compute,
                                has_device ? " step(s) without device compute were dropped."
                                           : " step(s) without host compute were dropped."));
  }
  if (built.incomplete_steps_dropped > 0) {
    diag->add_info(absl::StrCat(
        "The first and the last of ", num_steps + built.incomplete_steps_dropped,
        " steps were left out as possibly incomplete, as TensorBoard's profile plugin does "
        "(--keep-all-steps keeps them)."));
  }
  if (groups.pregrouped) {
    diag->add_info("The profile was already grouped into steps by its producer; its group ids "
                   "were used as they are.");
  }
}

}  // namespace

bool IsDeviceAnnotationLine(absl::string_view line_name) {
  return absl::StartsWith(line_name, "GPU annotations") || absl::StartsWith(line_name, "CUDA sync");
}

bool IsDerivedLine(int64_t line_id, absl::string_view line_name) {
  constexpr int64_t kDerivedMin = xplane::kThreadIdStepInfo;  // 0xdeadbeef
  if (line_id >= kDerivedMin) return true;
  // Written as int32 by older TensorFlow versions: 0xdeadbeef wraps to
  // -559038737 and the derived ids follow it.
  constexpr int64_t kWrappedDerivedMin = static_cast<int32_t>(0xdeadbeefu);
  if (line_id >= kWrappedDerivedMin && line_id < kWrappedDerivedMin + 0x10000) return true;
  for (absl::string_view derived :
       {"Steps", "XLA Modules", "XLA Ops", "Async XLA Ops", "Framework Ops",
        "Framework Name Scope", "TensorFlow Ops", "TensorFlow Name Scope", "Launch Stats",
        "Source code", "_counters_"}) {
    if (line_name == derived) return true;
  }
  return false;
}

absl::StatusOr<StepAnalysis> ConvertXSpaceToStepAnalysis(const xplane::XSpaceData& space,
                                                         const StepOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(StepAnalyses analyses,
                          ConvertXSpaceToStepAnalyses(space, options,
                                                      /*with_other_breakdown=*/false));
  return std::move(analyses.analysis);
}

absl::StatusOr<StepAnalyses> ConvertXSpaceToStepAnalyses(const xplane::XSpaceData& space,
                                                         const StepOptions& options,
                                                         bool with_other_breakdown) {
  if (space.planes.empty()) {
    return absl::InvalidArgumentError("step analysis: the XSpace has no planes");
  }
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  std::optional<XPlaneVisitor> host;
  if (const xplane::Plane* p = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName)) {
    host.emplace(&space, p, base_ns);
  }
  std::vector<const xplane::Plane*> gpu_planes = xplane::FindGpuPlanes(space);
  const bool has_device = !gpu_planes.empty();
  auto mode_of = [&](Breakdown breakdown) {
    return !has_device                       ? StepWindowMode::kHostOnly
           : breakdown == Breakdown::kWithHost ? StepWindowMode::kWithHost
                                               : StepWindowMode::kDeviceOnly;
  };
  const Breakdown other_breakdown = options.breakdown == Breakdown::kWithHost
                                        ? Breakdown::kDeviceOnly
                                        : Breakdown::kWithHost;
  const StepWindowMode mode = mode_of(options.breakdown);
  // The host pass collects host spans if either breakdown uses them;
  // StepDbBuilder::Build() leaves them out of device-only steps.
  const StepWindowMode host_pass_mode =
      with_other_breakdown && mode == StepWindowMode::kDeviceOnly ? mode_of(other_breakdown)
                                                                  : mode;

  // The launch precision hints, when kernel names may ask for them, are
  // built by the grouping's pass over the host events (not a pass of their
  // own on the first ask).
  LazyLaunchPrecisionHints precision_hints(host && has_device ? &*host : nullptr);
  std::optional<LaunchPrecisionHintsBuilder> hints_builder;
  if (precision_hints.possible() && MayNeedPrecisionHints(space, gpu_planes)) {
    hints_builder.emplace(*host->FindStatMetadata(kInputTypesStat));
  }
  XSpaceStepGroups groups = GroupXSpaceSteps(space, host ? &*host : nullptr,
                                             hints_builder ? &*hints_builder : nullptr);
  if (hints_builder.has_value() && !groups.pregrouped) precision_hints.Set(hints_builder->Finish());
  hints_builder.reset();
  StepDbBuilder steps(gpu_planes.size());
  {
    size_t num_events = 0;  // At most one span per event.
    for (const xplane::Plane* plane : gpu_planes) {
      for (const xplane::Line& line : plane->lines) num_events += line.events.size();
    }
    if (host) {
      for (const xplane::Line& line : host->raw().lines) num_events += line.events.size();
    }
    steps.Reserve(num_events);
  }
  DeviceOpMetricsBuilder device_ops;
  DeviceCopies memcpy_types;
  for (size_t i = 0; i < gpu_planes.size(); ++i) {
    XPlaneVisitor plane(&space, gpu_planes[i], base_ns);
    ProcessDevicePlane(plane, i, &precision_hints, &groups, &steps, &device_ops, &memcpy_types);
  }
  groups.group_by_correlation_id = {};  // Done with: free before the host pass.
  memcpy_types.Finish();
  InputOpMetricsBuilder input_ops;
  if (host) {
    ProcessHostPlane(*host, groups, host_pass_mode, has_device, memcpy_types, &steps,
                     &input_ops);
  }
  groups.host_event_group = {};  // Only the groups themselves are read below.

  auto build = [&](Breakdown breakdown) {
    return steps.Build(groups.groups, mode_of(breakdown), options.drop_incomplete_steps,
                       /*xprof_zero_length_quirk=*/breakdown == Breakdown::kDeviceOnly);
  };
  StepDbBuilder::Result built = build(options.breakdown);
  std::optional<StepDbBuilder::Result> other_built;
  if (with_other_breakdown) other_built = build(other_breakdown);
  steps.ReleaseSpans();

  StepAnalyses analyses;
  StepAnalysis& analysis = analyses.analysis;
  analysis.breakdown = options.breakdown;
  tensorflow::profiler::OpStats& op_stats = analysis.op_stats;
  device_ops.Finalize(op_stats.mutable_device_op_metrics_db(), &analysis.tensor_core_by_op);
  *op_stats.mutable_device_op_metrics_db()->mutable_precision_stats() = built.precision;
  input_ops.Finalize(op_stats.mutable_host_op_metrics_db());
  *op_stats.mutable_run_environment() = ComputeRunEnvironment(space, LooksLikeTraining(space));
  AddDiagnostics(space, groups, built, has_device, op_stats.mutable_diagnostics());
  *op_stats.mutable_step_db() = std::move(built.step_db);
  if (other_built.has_value()) {
    analyses.has_other = true;
    analyses.other.breakdown = other_breakdown;
    tensorflow::profiler::OpStats& other = analyses.other.op_stats;
    *other.mutable_device_op_metrics_db()->mutable_precision_stats() = other_built->precision;
    *other.mutable_host_op_metrics_db() = op_stats.host_op_metrics_db();
    *other.mutable_run_environment() = op_stats.run_environment();
    AddDiagnostics(space, groups, *other_built, has_device, other.mutable_diagnostics());
    *other.mutable_step_db() = std::move(other_built->step_db);
  }
  return analyses;
}

std::vector<StepSpan> StepSpansOnFirstCore(
    const tensorflow::profiler::StepDatabaseResult& step_db) {
  std::vector<StepSpan> spans;
  for (const auto& per_core : step_db.step_sequence()) {
    const tensorflow::profiler::StepInfoResult* info = nullptr;
    uint32_t best_core = UINT32_MAX;
    for (const auto& [core, result] : per_core.step_info_per_core()) {
      if (core < best_core) {
        best_core = core;
        info = &result;
      }
    }
    if (info == nullptr || info->duration_ps() == 0) continue;
    spans.push_back({static_cast<int64_t>(per_core.step_num()),
                     static_cast<int64_t>(info->begin_ps()),
                     static_cast<int64_t>(info->duration_ps())});
  }
  return spans;
}

}  // namespace tbprof::views
