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

bool IsDerivedLine(const xplane::XLineVisitor& line) {
  return line.name() == xplane::kStepLineName ||
         (line.id() >= xplane::kThreadIdStepInfo && line.id() < xplane::kThreadIdStepInfo + 64);
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
  std::sort(launches.begin(), launches.end(), [](const HostLaunch& a, const HostLaunch& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.order < b.order;
  });
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

// The entry of `correlation` in `by_correlation` (from ByCorrelation), or null.
const HostLaunch* FindCorrelation(const std::vector<HostLaunch>& by_correlation,
                                  int64_t correlation) {
  auto it = std::lower_bound(
      by_correlation.begin(), by_correlation.end(), correlation,
      [](const HostLaunch& l, int64_t c) { return l.correlation < c; });
  return it != by_correlation.end() && it->correlation == correlation ? &*it : nullptr;
}

PlaneSummary SummarizePlane(const xplane::XPlaneVisitor& plane) {
  PlaneSummary summary;
  summary.id = plane.id();
  summary.name = std::string(plane.name());
  summary.num_lines = static_cast<int64_t>(plane.num_lines());
  summary.num_plane_stats = static_cast<int64_t>(plane.raw().stats.size());
  summary.num_event_metadata = static_cast<int64_t>(plane.raw().event_metadata.size());
  summary.num_stat_metadata = static_cast<int64_t>(plane.raw().stat_metadata.size());
  // Stats by metadata index, each event's own and its metadata's (as
  // XEventVisitor::ForEachStat visits them), counted from the flat arrays:
  // a line's stats in one run, and a metadata's stats once per event of it.
  std::vector<int64_t> counts(plane.raw().stat_metadata.size(), 0);
  std::vector<int64_t> events_of_metadata(plane.raw().event_metadata.size(), 0);
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    summary.lines.push_back(
        {line.id(), std::string(line.display_name().empty() ? line.name() : line.display_name()),
         static_cast<int64_t>(line.num_events())});
    summary.num_events += static_cast<int64_t>(line.num_events());
  });
  for (const xplane::Line& line : plane.raw().lines) {
    summary.num_event_stats += static_cast<int64_t>(line.stats.size());
    for (const xplane::Stat& stat : line.stats) {
      if (stat.metadata_index() < counts.size()) ++counts[stat.metadata_index()];
    }
    for (const xplane::Event& event : line.events) {
      if (event.metadata_index() < events_of_metadata.size()) {
        ++events_of_metadata[event.metadata_index()];
      }
    }
  }
  for (size_t m = 0; m < events_of_metadata.size(); ++m) {
    if (events_of_metadata[m] == 0) continue;
    for (const xplane::Stat& stat : plane.raw().event_metadata[m].stats) {
      if (stat.metadata_index() < counts.size()) {
        counts[stat.metadata_index()] += events_of_metadata[m];
      }
    }
  }
  absl::flat_hash_map<std::string, int64_t> by_name;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) by_name[std::string(plane.stat_name(static_cast<uint32_t>(i)))] += counts[i];
  }
  summary.stat_counts.assign(by_name.begin(), by_name.end());
  std::sort(summary.stat_counts.begin(), summary.stat_counts.end(),
            [](const auto& a, const auto& b) {
              return a.second != b.second ? a.second > b.second : a.first < b.first;
            });
  return summary;
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

}  // namespace

std::string FormatCount(int64_t n) {
  std::string digits = absl::StrCat(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

XSpaceDiagnosis DiagnoseXSpace(const xplane::XSpaceData& space) {
  XSpaceDiagnosis d;
  d.hostnames = space.hostnames;
  d.errors = space.errors;
  d.warnings = space.warnings;
  const int64_t base_ns = xplane::SpaceBaseNs(space);

  for (const xplane::Plane& plane : space.planes) {
    xplane::XPlaneVisitor visitor(&space, &plane, base_ns);
    d.planes.push_back(SummarizePlane(visitor));
    if (visitor.FindStatMetadata(xplane::StatTypeName(StatType::kGroupId))) d.has_group_id = true;
  }

  // Host side: step roots, launches (events with correlation_id) and the root
  // enclosing each launch on the same line. Every launch is one 16-byte entry
  // (a hash set and map of the correlations took ~2.5x that, at the moment
  // the whole model is held); a line's launches are placed in its roots once
  // the line's roots are known, found again by event index.
  std::vector<HostLaunch> launches;
  int32_t num_roots = 0;
  if (const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName)) {
    xplane::XPlaneVisitor plane(&space, host, base_ns);
    size_t host_plane_events = 0;
    for (const xplane::Line& line : host->lines) host_plane_events += line.events.size();
    // An upper bound: pages never written cost no memory.
    launches.reserve(host_plane_events);
    std::vector<uint32_t> launch_events;  // Event indices of the line's launches.
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      std::vector<RootSpan> roots;
      launch_events.clear();
      const size_t line_begin = launches.size();
      uint32_t event_index = 0;
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        ++d.host_events;
        std::optional<xplane::XStatVisitor> root, corr;
        event.ForEachStat([&](const xplane::XStatVisitor& stat) {
          const StatType type = stat.type();
          if (type == StatType::kIsRoot && !root) root = stat;
          if (type == StatType::kCorrelationId && !corr) corr = stat;
        });
        if ((root && root->NumericValue() != 0) ||
            event.host_event_type() == xplane::HostEventType::kTraceContext) {
          roots.push_back({event.begin_ps(), event.end_ps(), num_roots++});
        }
        switch (event.host_event_type()) {
          case xplane::HostEventType::kMemoryAllocation:
            ++d.memory_allocations;
            break;
          case xplane::HostEventType::kMemoryDeallocation:
            ++d.memory_deallocations;
            break;
          default:
            break;
        }
        if (corr) {
          launches.push_back({corr->IntOrUintValue(), -1, static_cast<uint32_t>(launches.size())});
          launch_events.push_back(event_index);
        }
        ++event_index;
      });
      std::sort(roots.begin(), roots.end(),
                [](const RootSpan& a, const RootSpan& b) { return a.begin_ps < b.begin_ps; });
      if (roots.empty()) return;
      for (size_t k = 0; k < launch_events.size(); ++k) {
        const xplane::XEventVisitor event = line.event(launch_events[k]);
        launches[line_begin + k].root = FindEnclosingRoot(roots, event.begin_ps(), event.end_ps());
      }
    });
  }
  d.host_events_with_correlation = static_cast<int64_t>(launches.size());
  d.step_roots = num_roots;
  // One entry per correlation: the root of its first launch that has one (as
  // a map filled with emplace in launch order), else -1.
  const std::vector<HostLaunch> by_correlation = ByCorrelation(std::move(launches));
  std::vector<bool> root_has_launch(num_roots, false), root_has_compute(num_roots, false);
  for (const HostLaunch& l : by_correlation) {
    if (l.root >= 0) root_has_launch[l.root] = true;
  }

  // Device side.
  std::vector<const xplane::Plane*> gpu_planes = xplane::FindGpuPlanes(space);
  d.gpu_planes = static_cast<int64_t>(gpu_planes.size());
  int64_t expected_ordinal = 0;
  bool ordinals_dense = true;
  for (const xplane::Plane* gpu : gpu_planes) {
    xplane::XPlaneVisitor plane(&space, gpu, base_ns);
    std::optional<int64_t> ordinal = xplane::ParseGpuPlaneOrdinal(plane.name());
    if (!ordinal || *ordinal != expected_ordinal++) ordinals_dense = false;
    const std::optional<uint32_t> level_0 = plane.FindStatMetadata("level 0");
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (IsDerivedLine(line)) {
        if (line.name() == xplane::kStepLineName) {
          d.device_step_line_events += static_cast<int64_t>(line.num_events());
        }
        return;
      }
      if (absl::EndsWith(line.name(), " (overlapping)")) {
        ++d.overlap_lines;
        d.overlap_line_events += static_cast<int64_t>(line.num_events());
      }
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        ++d.device_events;
        bool kernel_details = false, op = false;
        std::optional<xplane::XStatVisitor> corr;
        event.ForEachStat([&](const xplane::XStatVisitor& stat) {
          switch (stat.type()) {
            case StatType::kKernelDetails:
              kernel_details = true;
              break;
            case StatType::kTfOp:
            case StatType::kHloOp:
              op = true;
              break;
            case StatType::kCorrelationId:
              if (!corr) corr = stat;
              break;
            default:
              break;
          }
          // TensorFlow's older GPU traces name the op in "level 0".
          if (level_0 && stat.metadata_index() == *level_0) op = true;
        });
        if (kernel_details) ++d.device_events_with_kernel_details;
        if (op) ++d.device_events_with_op;
        if (!corr) return;
        ++d.device_events_with_correlation;
        const HostLaunch* launch = FindCorrelation(by_correlation, corr->IntOrUintValue());
        if (launch == nullptr) return;
        ++d.device_events_linked;
        if (launch->root >= 0 && IsComputeEventName(event.name())) {
          root_has_compute[launch->root] = true;
        }
      });
    });
  }
  d.step_roots_with_launches = std::count(root_has_launch.begin(), root_has_launch.end(), true);
  d.steps_with_device_work = std::count(root_has_compute.begin(), root_has_compute.end(), true);

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
  return d;
}

}  // namespace tbprof::views
