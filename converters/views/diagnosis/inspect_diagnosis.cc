#include "converters/views/diagnosis/inspect_diagnosis.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

const char kNoStepMarkerExplanation[] =
    "No step marker observed: no /host:CPU event marks a training step (a root event with "
    "stat `_r` and `step_num`, such as PyTorch's ProfilerStep#N). The overview page will say "
    "\"No step marker observed and hence the step time is unknown\", and the step-time graph "
    "and the input-pipeline step table stay empty. Fix: call prof.step() once per iteration "
    "under torch.profiler.profile(schedule=...), so each iteration is recorded as "
    "ProfilerStep#N.";

namespace {

using xplane::StatType;

bool IsDerivedLine(absl::string_view name, int64_t id) {
  return name == xplane::kStepLineName ||
         (id >= xplane::kThreadIdStepInfo && id < xplane::kThreadIdStepInfo + 64);
}

bool IsComputeEventName(absl::string_view name) {
  return !absl::StartsWithIgnoreCase(name, "memcpy") &&
         !absl::StartsWithIgnoreCase(name, xplane::kNcclPrefix);
}

struct RootSpan {
  int64_t begin_ps;
  int64_t end_ps;
  int32_t index;  // Global root index.
};

// Index of the innermost root in `roots` (sorted by begin) containing
// [begin, end], or -1.
int32_t FindEnclosingRoot(const std::vector<RootSpan>& roots, int64_t begin_ps, int64_t end_ps) {
  auto it = std::upper_bound(roots.begin(), roots.end(), begin_ps,
                             [](int64_t b, const RootSpan& r) { return b < r.begin_ps; });
  for (int tries = 0; it != roots.begin() && tries < 8; ++tries) {
    --it;
    if (it->begin_ps <= begin_ps && end_ps <= it->end_ps) return it->index;
  }
  return -1;
}

// A host event with a correlation_id, and the step root around it (-1: none).
struct HostLaunch {
  int64_t correlation;
  int32_t root;
  uint32_t order;  // Position among all launches, for a stable order.
};

// Sorts `launches` by correlation and keeps one entry per correlation, whose
// root is that of its first launch (by `order`) with a root, else -1.
std::vector<HostLaunch> ByCorrelation(std::vector<HostLaunch> launches) {
  auto less = [](const HostLaunch& a, const HostLaunch& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.order < b.order;
  };
  // Launches come in runs already in this order (a thread's launches are in
  // time order, and correlation ids grow with time): merging the runs is
  // several times faster than sorting. The keys are unique (order is), so
  // the result is the same.
  std::vector<size_t> runs = {0};
  for (size_t i = 1; i < launches.size() && runs.size() <= 64; ++i) {
    if (less(launches[i], launches[i - 1])) runs.push_back(i);
  }
  if (runs.size() > 64) {
    std::sort(launches.begin(), launches.end(), less);
  } else {
    runs.push_back(launches.size());
    while (runs.size() > 2) {
      std::vector<size_t> merged = {0};
      for (size_t k = 0; k + 1 < runs.size(); k += 2) {
        const size_t end = k + 2 < runs.size() ? runs[k + 2] : runs[k + 1];
        std::inplace_merge(launches.begin() + runs[k], launches.begin() + runs[k + 1],
                           launches.begin() + end, less);
        merged.push_back(end);
      }
      runs = std::move(merged);
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < launches.size();) {
    HostLaunch first = launches[i];
    size_t j = i + 1;
    for (; j < launches.size() && launches[j].correlation == first.correlation; ++j) {
      if (first.root < 0) first.root = launches[j].root;
    }
    launches[out++] = first;
    i = j;
  }
  launches.resize(out);
  return launches;
}

// The entry of `correlation` in `by_correlation` (from ByCorrelation), or
// null. `*hint` is where the previous search ended and is updated: device
// events come mostly in correlation order, so the search usually starts
// there and gallops forward, instead of a cache miss per halving.
const HostLaunch* FindCorrelation(const std::vector<HostLaunch>& by_correlation,
                                  int64_t correlation, size_t* hint) {
  auto before = [](const HostLaunch& l, int64_t c) { return l.correlation < c; };
  const size_t n = by_correlation.size();
  size_t lo = 0, hi = n;
  if (*hint < n && by_correlation[*hint].correlation <= correlation) {
    // Entries before *hint are smaller (correlations are unique). Gallop
    // until an entry not below `correlation`, which bounds the search.
    lo = *hint;
    size_t step = 1;
    while (lo + step < n && by_correlation[lo + step].correlation < correlation) {
      lo += step;
      step *= 2;
    }
    hi = std::min(n, lo + step + 1);
  }
  auto it = std::lower_bound(by_correlation.begin() + lo, by_correlation.begin() + hi,
                             correlation, before);
  *hint = static_cast<size_t>(it - by_correlation.begin());
  return it != by_correlation.end() && it->correlation == correlation ? &*it : nullptr;
}

// The plugin lists these for every XSpace; kernel_stats needs a GPU plane and
// the HLO tools need HLO modules in /host:metadata (xprof 2.24, observed).
std::vector<std::string> PredictXprofToolNames(const XSpaceDiagnosis& d) {
  std::vector<std::string> names = {"trace_viewer@",  "overview_page", "input_pipeline_analyzer",
                                    "framework_op_stats", "memory_profile", "op_profile",
                                    "hlo_stats",          "roofline_model"};
  if (d.gpu_planes > 0) names.push_back("kernel_stats");
  if (d.has_hlo_protos) {
    names.push_back("memory_viewer");
    names.push_back("graph_viewer");
  }
  return names;
}

bool HasHloProtos(const xplane::XSpaceData& space) {
  const xplane::Plane* metadata = xplane::FindPlaneWithName(space, xplane::kMetadataPlaneName);
  if (metadata == nullptr) return false;
  for (const xplane::EventMetadata& m : metadata->event_metadata) {
    for (const xplane::Stat& stat : m.stats) {
      if (stat.metadata_index() < metadata->stat_metadata.size() &&
          space.strings.Get(metadata->stat_metadata[stat.metadata_index()].name) == "Hlo Proto") {
        return true;
      }
    }
  }
  return false;
}

void DiagnoseTools(XSpaceDiagnosis* d) {
  int64_t total_events = 0;
  for (const PlaneSummary& p : d->planes) {
    if (absl::StartsWith(p.name, "/host:") || absl::StartsWith(p.name, xplane::kGpuPlanePrefix) ||
        absl::StartsWith(p.name, xplane::kCustomPlanePrefix)) {
      total_events += p.num_events;
    }
  }
  auto add = [d](const char* tool, bool has_data, std::string detail) {
    d->tools.push_back({tool, has_data, std::move(detail)});
  };
  add("trace_viewer", total_events > 0,
      total_events > 0 ? absl::StrCat(FormatCount(total_events), " events on host/device planes")
                       : "no events on /host:CPU or /device:GPU:* planes");

  // Step-time graph (overview page) and step table (input pipeline).
  bool steps_ok = false;
  std::string steps_detail;
  if (d->has_group_id) {
    steps_ok = d->device_step_line_events > 0;
    steps_detail =
        steps_ok ? absl::StrCat(FormatCount(d->device_step_line_events),
                                " step events on the device planes' Steps lines")
                 : "the file already carries `group_id` stats, so the plugin skips its own step "
                   "grouping, and no device plane has a Steps line";
  } else if (d->gpu_planes > 0) {
    if (d->step_roots == 0) {
      steps_detail = kNoStepMarkerExplanation;
    } else if (d->step_roots_with_launches == 0) {
      steps_detail = absl::StrCat(
          FormatCount(d->step_roots),
          " step markers, but no kernel launch (host event with `correlation_id`) lies inside "
          "one on the same thread line, so no GPU work is attributed to any step");
    } else if (d->steps_with_device_work == 0) {
      steps_detail =
          d->device_events_linked == 0
              ? "launches and kernels are not linked by correlation_id: no GPU event carries "
                "a `correlation_id` equal to a host launch's, so steps have no GPU work"
              : "no GPU compute event (kernel) is linked to a launch inside a step";
    } else {
      steps_ok = true;
      steps_detail = absl::StrCat(FormatCount(d->steps_with_device_work), " of ",
                                  FormatCount(d->step_roots), " steps have GPU work");
    }
  } else {
    steps_ok = d->step_roots > 0;
    steps_detail = steps_ok ? absl::StrCat(FormatCount(d->step_roots), " steps (CPU only)")
                            : kNoStepMarkerExplanation;
  }
  add("overview_page", steps_ok, steps_detail);
  add("input_pipeline_analyzer", steps_ok,
      steps_ok ? steps_detail : "its step table is empty for the reason given for overview_page");

  if (d->gpu_planes == 0) {
    add("kernel_stats", false,
        "no /device:GPU:* plane (no GPU activity in this profile), so the plugin does not "
        "even list the tool");
  } else if (d->device_events_with_kernel_details == 0) {
    add("kernel_stats", false,
        absl::StrCat("none of the ", FormatCount(d->device_events),
                     " GPU events carries `kernel_details` (registers, shared memory, grid, "
                     "block), which the tool reads"));
  } else {
    add("kernel_stats", true,
        absl::StrCat(FormatCount(d->device_events_with_kernel_details),
                     " kernel events with kernel_details"));
  }

  int64_t memory = d->memory_allocations + d->memory_deallocations;
  add("memory_profile", memory > 0,
      memory > 0 ? absl::StrCat(FormatCount(d->memory_allocations), " allocations, ",
                                FormatCount(d->memory_deallocations), " deallocations")
                 : "no MemoryAllocation/MemoryDeallocation events on /host:CPU (PyTorch records "
                   "them with torch.profiler.profile(profile_memory=True))");

  if (d->gpu_planes > 0) {
    add("framework_op_stats", d->device_events_with_op > 0,
        d->device_events_with_op > 0
            ? absl::StrCat(FormatCount(d->device_events_with_op),
                           " GPU events attributed to framework ops")
            : "no GPU event carries `tf_op`, `hlo_op` or `level 0`, so GPU time is not "
              "attributed to framework ops");
  } else {
    add("framework_op_stats", d->host_events > 0,
        d->host_events > 0 ? absl::StrCat(FormatCount(d->host_events), " host events")
                           : "no host events");
  }
}

// ---- XSpaceDiagnoser ---------------------------------------------------------------------------

// What the diagnosis reads of one event metadata: its kind by name, and the
// first stats of the kinds it looks for among the metadata's own stats
// (which an event's own stats of the same kind come before).
struct MetadataFacts {
  xplane::HostEventType host_type = xplane::HostEventType::kUnknown;
  bool compute = false;  // IsComputeEventName.
  bool has_root = false, root_set = false;  // First `_r`: present, nonzero.
  bool has_correlation = false;
  int64_t correlation = 0;  // First correlation_id (IntOrUintValue).
  bool kernel_details = false;
  bool op = false;  // tf_op, hlo_op or "level 0".
};

// Per plane: the counts its summary needs and the tables that type its
// metadata, extended as the plane's metadata grow.
struct PlaneState {
  enum class Role { kOther, kHost, kGpu };
  const xplane::Plane* plane = nullptr;
  Role role = Role::kOther;
  std::optional<uint32_t> level_0;  // Stat metadata "level 0" (GPU planes).
  std::vector<xplane::StatType> stat_types;  // By stat metadata index.
  std::vector<MetadataFacts> facts;          // By event metadata index.
  std::vector<int64_t> stat_counts;          // Event stats by metadata index.
  std::vector<int64_t> events_of_metadata;
  std::vector<LineSummary> lines;
  int64_t num_events = 0, num_event_stats = 0;
  // The line being read.
  int64_t line_events = 0;
  std::vector<RootSpan> roots;  // Host: its step roots, in line-relative times.
  size_t line_launches_begin = 0;  // Host: its first launch in launches.
  std::vector<std::pair<int64_t, int64_t>> launch_spans;  // Host: its launches' [begin, end].
};

bool NumericNonZero(const xplane::Stat& stat, const xplane::WideValues& wide) {
  switch (stat.kind()) {
    case xplane::StatKind::kInt64:
      return static_cast<double>(stat.int64_value(wide)) != 0;
    case xplane::StatKind::kUint64:
      return static_cast<double>(stat.uint64_value(wide)) != 0;
    case xplane::StatKind::kDouble:
      return stat.double_value(wide) != 0;
    default:
      return false;
  }
}

int64_t IntOrUint(const xplane::Stat& stat, const xplane::WideValues& wide) {
  return stat.kind() == xplane::StatKind::kInt64 || stat.kind() == xplane::StatKind::kUint64
             ? stat.int64_value(wide)
             : 0;
}

}  // namespace

struct XSpaceDiagnoser::State {
  XSpaceDiagnosis d;
  std::vector<PlaneState> planes;  // Those with lines, in order.
  const xplane::Plane* host = nullptr;  // The first /host:CPU plane, once seen.
  bool host_done = false;               // All its lines were added.
  std::vector<HostLaunch> launches;     // Until host_done, then by_correlation.
  std::vector<HostLaunch> by_correlation;
  size_t search_hint = 0;  // FindCorrelation's.
  int32_t num_roots = 0;
  std::vector<bool> root_has_compute;  // Once host_done.
  // Device events with a correlation_id seen before host_done: the id and
  // whether the event is compute.
  std::vector<std::pair<int64_t, bool>> pending;

  void StartPlane(const xplane::XSpaceData& space, const xplane::Plane& plane);
  void SyncTables(const xplane::XSpaceData& space, PlaneState* ps);
  void HostEvents(const xplane::Line& line, PlaneState* ps);
  void DeviceEvents(const xplane::Line& line, PlaneState* ps);
  void LinkDeviceEvent(int64_t correlation, bool compute);
  void FinishHost();
  void EndLine(const xplane::XSpaceData& space, const xplane::Line& line, PlaneState* ps);
};

void XSpaceDiagnoser::State::StartPlane(const xplane::XSpaceData& space,
                                        const xplane::Plane& plane) {
  // The host plane is the first one so named (FindPlaneWithName): look among
  // the planes up to this one, which a reader may have just appended.
  if (host == nullptr) {
    for (const xplane::Plane& p : space.planes) {
      if (space.strings.Get(p.name) == xplane::kHostThreadsPlaneName) {
        host = &p;
        break;
      }
      if (&p == &plane) break;
    }
  }
  // Planes come in order: one before this is complete.
  if (host != nullptr && host != &plane && !host_done) FinishHost();
  PlaneState& ps = planes.emplace_back();
  ps.plane = &plane;
  const absl::string_view name = space.strings.Get(plane.name);
  if (&plane == host) {
    ps.role = PlaneState::Role::kHost;
  } else if (xplane::ParseGpuPlaneOrdinal(name)) {
    ps.role = PlaneState::Role::kGpu;
    // As XPlaneVisitor::FindStatMetadata: the first so named. Metadata that
    // events add later are implicit and unnamed.
    for (uint32_t i = 0; i < plane.stat_metadata.size(); ++i) {
      if (space.strings.Get(plane.stat_metadata[i].name) == "level 0") {
        ps.level_0 = i;
        break;
      }
    }
  }
}

void XSpaceDiagnoser::State::SyncTables(const xplane::XSpaceData& space, PlaneState* ps) {
  const xplane::Plane& plane = *ps->plane;
  for (size_t i = ps->stat_types.size(); i < plane.stat_metadata.size(); ++i) {
    ps->stat_types.push_back(xplane::FindStatType(space.strings.Get(plane.stat_metadata[i].name)));
  }
  for (size_t i = ps->facts.size(); i < plane.event_metadata.size(); ++i) {
    const xplane::EventMetadata& md = plane.event_metadata[i];
    MetadataFacts& f = ps->facts.emplace_back();
    const absl::string_view name = space.strings.Get(md.name);
    f.host_type = xplane::FindHostEventType(name);
    f.compute = IsComputeEventName(name);
    for (const xplane::Stat& stat : md.stats) {
      const xplane::StatType type = ps->stat_types[stat.metadata_index()];
      if (type == StatType::kIsRoot && !f.has_root) {
        f.has_root = true;
        f.root_set = NumericNonZero(stat, plane.wide_values);
      }
      if (type == StatType::kCorrelationId && !f.has_correlation) {
        f.has_correlation = true;
        f.correlation = IntOrUint(stat, plane.wide_values);
      }
      if (type == StatType::kKernelDetails) f.kernel_details = true;
      if (type == StatType::kTfOp || type == StatType::kHloOp ||
          (ps->level_0 && stat.metadata_index() == *ps->level_0)) {
        f.op = true;
      }
    }
  }
}

void XSpaceDiagnoser::State::HostEvents(const xplane::Line& line, PlaneState* ps) {
  const xplane::WideValues& wide = ps->plane->wide_values;
  const xplane::Stat* stats = line.stats.data();
  for (size_t i = 0; i < line.events.size(); ++i) {
    const xplane::Event& event = line.events[i];
    const MetadataFacts& f = ps->facts[event.metadata_index()];
    ++d.host_events;
    bool has_root = false, root_set = false, has_corr = false;
    int64_t correlation = 0;
    for (uint32_t k = event.stats_begin, end = line.stats_end(i); k < end; ++k) {
      const StatType type = ps->stat_types[stats[k].metadata_index()];
      if (type == StatType::kIsRoot && !has_root) {
        has_root = true;
        root_set = NumericNonZero(stats[k], wide);
      }
      if (type == StatType::kCorrelationId && !has_corr) {
        has_corr = true;
        correlation = IntOrUint(stats[k], wide);
      }
    }
    if (!has_root) root_set = f.has_root && f.root_set;
    if (!has_corr && f.has_correlation) {
      has_corr = true;
      correlation = f.correlation;
    }
    const int64_t begin_ps = event.offset_ps;
    const int64_t end_ps = begin_ps + event.duration_ps;
    if (root_set || f.host_type == xplane::HostEventType::kTraceContext) {
      ps->roots.push_back({begin_ps, end_ps, num_roots++});
    }
    if (f.host_type == xplane::HostEventType::kMemoryAllocation) ++d.memory_allocations;
    if (f.host_type == xplane::HostEventType::kMemoryDeallocation) ++d.memory_deallocations;
    if (has_corr) {
      launches.push_back({correlation, -1, static_cast<uint32_t>(launches.size())});
      ps->launch_spans.emplace_back(begin_ps, end_ps);
    }
  }
}

void XSpaceDiagnoser::State::DeviceEvents(const xplane::Line& line, PlaneState* ps) {
  const xplane::WideValues& wide = ps->plane->wide_values;
  const xplane::Stat* stats = line.stats.data();
  for (size_t i = 0; i < line.events.size(); ++i) {
    const xplane::Event& event = line.events[i];
    const MetadataFacts& f = ps->facts[event.metadata_index()];
    ++d.device_events;
    bool kernel_details = f.kernel_details, op = f.op, has_corr = false;
    int64_t correlation = 0;
    for (uint32_t k = event.stats_begin, end = line.stats_end(i); k < end; ++k) {
      const uint32_t index = stats[k].metadata_index();
      switch (ps->stat_types[index]) {
        case StatType::kKernelDetails:
          kernel_details = true;
          break;
        case StatType::kTfOp:
        case StatType::kHloOp:
          op = true;
          break;
        case StatType::kCorrelationId:
          if (!has_corr) {
            has_corr = true;
            correlation = IntOrUint(stats[k], wide);
          }
          break;
        default:
          break;
      }
      // TensorFlow's older GPU traces name the op in "level 0".
      if (ps->level_0 && index == *ps->level_0) op = true;
    }
    if (!has_corr && f.has_correlation) {
      has_corr = true;
      correlation = f.correlation;
    }
    if (kernel_details) ++d.device_events_with_kernel_details;
    if (op) ++d.device_events_with_op;
    if (!has_corr) continue;
    ++d.device_events_with_correlation;
    if (host_done) {
      LinkDeviceEvent(correlation, f.compute);
    } else {
      pending.emplace_back(correlation, f.compute);
    }
  }
}

void XSpaceDiagnoser::State::LinkDeviceEvent(int64_t correlation, bool compute) {
  const HostLaunch* launch = FindCorrelation(by_correlation, correlation, &search_hint);
  if (launch == nullptr) return;
  ++d.device_events_linked;
  if (launch->root >= 0 && compute) root_has_compute[launch->root] = true;
}

void XSpaceDiagnoser::State::FinishHost() {
  host_done = true;
  d.host_events_with_correlation = static_cast<int64_t>(launches.size());
  d.step_roots = num_roots;
  // One entry per correlation: the root of its first launch that has one (as
  // a map filled with emplace in launch order), else -1.
  by_correlation = ByCorrelation(std::move(launches));
  launches = {};
  std::vector<bool> root_has_launch(num_roots, false);
  for (const HostLaunch& l : by_correlation) {
    if (l.root >= 0) root_has_launch[l.root] = true;
  }
  d.step_roots_with_launches = std::count(root_has_launch.begin(), root_has_launch.end(), true);
  root_has_compute.assign(num_roots, false);
  for (const auto& [correlation, compute] : pending) LinkDeviceEvent(correlation, compute);
  pending = {};
}

void XSpaceDiagnoser::State::EndLine(const xplane::XSpaceData& space, const xplane::Line& line,
                                     PlaneState* ps) {
  const absl::string_view name = space.strings.Get(line.name);
  const absl::string_view display_name =
      space.strings.Get(line.display_name != 0 ? line.display_name : line.name);
  ps->lines.push_back(
      {line.id, std::string(display_name.empty() ? name : display_name), ps->line_events});
  ps->num_events += ps->line_events;
  if (ps->role == PlaneState::Role::kHost && !ps->roots.empty()) {
    std::sort(ps->roots.begin(), ps->roots.end(),
              [](const RootSpan& a, const RootSpan& b) { return a.begin_ps < b.begin_ps; });
    for (size_t k = 0; k < ps->launch_spans.size(); ++k) {
      launches[ps->line_launches_begin + k].root =
          FindEnclosingRoot(ps->roots, ps->launch_spans[k].first, ps->launch_spans[k].second);
    }
  }
  if (ps->role == PlaneState::Role::kGpu && !IsDerivedLine(name, line.id) &&
      absl::EndsWith(name, " (overlapping)")) {
    ++d.overlap_lines;
    d.overlap_line_events += ps->line_events;
  }
  ps->line_events = 0;
  ps->roots.clear();
  ps->launch_spans.clear();
  ps->line_launches_begin = launches.size();
}

XSpaceDiagnoser::XSpaceDiagnoser() : state_(std::make_unique<State>()) {}
XSpaceDiagnoser::~XSpaceDiagnoser() = default;

void XSpaceDiagnoser::AddLineEvents(const xplane::XSpaceData& space, const xplane::Plane& plane,
                                    const xplane::Line& line, bool line_end) {
  State& st = *state_;
  if (st.planes.empty() || st.planes.back().plane != &plane) st.StartPlane(space, plane);
  PlaneState* ps = &st.planes.back();
  if (ps->line_events == 0) ps->line_launches_begin = st.launches.size();
  st.SyncTables(space, ps);
  ps->line_events += static_cast<int64_t>(line.events.size());
  ps->num_event_stats += static_cast<int64_t>(line.stats.size());
  // Stats by metadata index, each event's own and its metadata's (as
  // XEventVisitor::ForEachStat visits them), from the flat arrays: a line's
  // stats in one run, and a metadata's stats once per event of it (Finish).
  ps->stat_counts.resize(plane.stat_metadata.size(), 0);
  ps->events_of_metadata.resize(plane.event_metadata.size(), 0);
  for (const xplane::Stat& stat : line.stats) ++ps->stat_counts[stat.metadata_index()];
  for (const xplane::Event& event : line.events) ++ps->events_of_metadata[event.metadata_index()];
  const absl::string_view name = space.strings.Get(line.name);
  switch (ps->role) {
    case PlaneState::Role::kHost:
      st.HostEvents(line, ps);
      break;
    case PlaneState::Role::kGpu:
      if (!IsDerivedLine(name, line.id)) {
        st.DeviceEvents(line, ps);
      } else if (name == xplane::kStepLineName) {
        st.d.device_step_line_events += static_cast<int64_t>(line.events.size());
      }
      break;
    case PlaneState::Role::kOther:
      break;
  }
  if (line_end) st.EndLine(space, line, ps);
}

XSpaceDiagnosis XSpaceDiagnoser::Finish(const xplane::XSpaceData& space) {
  State& st = *state_;
  if (!st.host_done) st.FinishHost();
  XSpaceDiagnosis& d = st.d;
  d.hostnames = space.hostnames;
  d.errors = space.errors;
  d.warnings = space.warnings;
  size_t next = 0;  // st.planes are in space order.
  for (const xplane::Plane& plane : space.planes) {
    PlaneState empty;
    PlaneState* ps = &empty;
    if (next < st.planes.size() && st.planes[next].plane == &plane) ps = &st.planes[next++];
    PlaneSummary& summary = d.planes.emplace_back();
    summary.id = plane.id;
    summary.name = std::string(space.strings.Get(plane.name));
    summary.num_lines = static_cast<int64_t>(plane.lines.size());
    summary.num_plane_stats = static_cast<int64_t>(plane.stats.size());
    summary.num_event_metadata = static_cast<int64_t>(plane.event_metadata.size());
    summary.num_stat_metadata = static_cast<int64_t>(plane.stat_metadata.size());
    summary.lines = std::move(ps->lines);
    summary.num_events = ps->num_events;
    summary.num_event_stats = ps->num_event_stats;
    std::vector<int64_t>& counts = ps->stat_counts;
    counts.resize(plane.stat_metadata.size(), 0);
    ps->events_of_metadata.resize(plane.event_metadata.size(), 0);
    for (size_t m = 0; m < ps->events_of_metadata.size(); ++m) {
      if (ps->events_of_metadata[m] == 0) continue;
      for (const xplane::Stat& stat : plane.event_metadata[m].stats) {
        if (stat.metadata_index() < counts.size()) {
          counts[stat.metadata_index()] += ps->events_of_metadata[m];
        }
      }
    }
    absl::flat_hash_map<std::string, int64_t> by_name;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] > 0) {
        by_name[std::string(space.strings.Get(plane.stat_metadata[i].name))] += counts[i];
      }
    }
    summary.stat_counts.assign(by_name.begin(), by_name.end());
    std::sort(summary.stat_counts.begin(), summary.stat_counts.end(),
              [](const auto& a, const auto& b) {
                return a.second != b.second ? a.second > b.second : a.first < b.first;
              });
    for (const xplane::StatMetadata& md : plane.stat_metadata) {
      if (space.strings.Get(md.name) == xplane::StatTypeName(StatType::kGroupId)) {
        d.has_group_id = true;
      }
    }
  }
  d.steps_with_device_work = std::count(st.root_has_compute.begin(), st.root_has_compute.end(), true);

  std::vector<const xplane::Plane*> gpu_planes = xplane::FindGpuPlanes(space);
  d.gpu_planes = static_cast<int64_t>(gpu_planes.size());
  int64_t expected_ordinal = 0;
  bool ordinals_dense = true;
  for (const xplane::Plane* gpu : gpu_planes) {
    std::optional<int64_t> ordinal = xplane::ParseGpuPlaneOrdinal(space.strings.Get(gpu->name));
    if (!ordinal || *ordinal != expected_ordinal++) ordinals_dense = false;
  }

  if (xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName) == nullptr) {
    d.notes.push_back("no /host:CPU plane: host threads, steps and memory events are missing");
  }
  if (!ordinals_dense) {
    d.notes.push_back(
        "GPU planes are not numbered /device:GPU:0..N-1 (e.g. a trace of rank N with one GPU): "
        "TensorBoard shows the same steps, kernels and trace as for device 0 (checked with "
        "xprof 2.24); only its launch summary, which indexes GPUs by position, skips them");
  }
  if (d.overlap_lines > 0) {
    d.notes.push_back(absl::StrCat(
        FormatCount(d.overlap_line_events), " GPU events started before the previous event of "
        "their stream ended (programmatic dependent launch); they are on ",
        d.overlap_lines, " extra line(s) named \"Stream #N (overlapping)\" with their true "
        "durations, which TensorBoard counts like any other stream"));
  }
  if (d.has_group_id) {
    d.notes.push_back(
        "a plane declares the stat `group_id`: the plugin treats the file as already grouped "
        "and does no step grouping of its own");
  }
  if (d.device_events_with_correlation > 0 &&
      d.device_events_linked < d.device_events_with_correlation) {
    d.notes.push_back(absl::StrCat(
        FormatCount(d.device_events_with_correlation - d.device_events_linked), " of ",
        FormatCount(d.device_events_with_correlation),
        " GPU events have a correlation_id that matches no host launch"));
  }
  const int64_t steps_shown = d.gpu_planes > 0 ? d.steps_with_device_work : d.step_roots;
  if (!d.has_group_id && steps_shown > 5) {
    d.notes.push_back(absl::StrCat(
        "TensorBoard leaves out the first and the last of the ", FormatCount(steps_shown),
        " steps as possibly incomplete (more than 5 steps); tbprof report does the same unless "
        "--keep-all-steps is given"));
  }
  d.has_hlo_protos = HasHloProtos(space);
  if (d.gpu_planes > 0 && !d.has_hlo_protos && d.steps_with_device_work > 0) {
    d.notes.push_back(std::string(kXprofOverviewNote));
  }
  DiagnoseTools(&d);
  d.xprof_tool_names = PredictXprofToolNames(d);
  return std::move(d);
}

XSpaceDiagnosis DiagnoseXSpace(const xplane::XSpaceData& space) {
  XSpaceDiagnoser diagnoser;
  for (const xplane::Plane& plane : space.planes) {
    for (const xplane::Line& line : plane.lines) diagnoser.AddLineEvents(space, plane, line, true);
  }
  return diagnoser.Finish(space);
}

std::string FormatCount(int64_t n) {
  std::string digits = absl::StrCat(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace tbprof::views
