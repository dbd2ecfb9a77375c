#include "converters/common/step_inference.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using xplane::StatType;

// A kernel must repeat at least this often for a period to be believed.
constexpr int64_t kMinRepeats = 3;
// Share of kernels that must equal the kernel one period later.
constexpr double kMinPeriodMatch = 0.95;
// Share of an anchor kernel's gaps that must equal the candidate period.
constexpr double kMinRegularGaps = 0.9;

struct Span {
  int64_t begin_ps;
  int64_t end_ps;
};

std::vector<Span> TopLevelSpans(const xplane::XLineVisitor& line) {
  std::vector<Span> spans;
  line.ForEachEvent([&](const xplane::XEventVisitor& e) {
    if (e.is_aggregate()) return;
    if (!spans.empty() && e.begin_ps() < spans.back().end_ps) {
      spans.back().end_ps = std::max(spans.back().end_ps, e.end_ps());
      return;
    }
    spans.push_back({e.begin_ps(), e.end_ps()});
  });
  return spans;
}

// Start of the top-level span containing `t`, or `t` itself.
int64_t TopLevelBegin(const std::vector<Span>& spans, int64_t t) {
  auto it = std::upper_bound(spans.begin(), spans.end(), t,
                             [](int64_t v, const Span& s) { return v < s.begin_ps; });
  if (it == spans.begin()) return t;
  --it;
  return t < it->end_ps ? it->begin_ps : t;
}

int64_t TopLevelEnd(const std::vector<Span>& spans, int64_t t, int64_t fallback) {
  auto it = std::upper_bound(spans.begin(), spans.end(), t,
                             [](int64_t v, const Span& s) { return v < s.begin_ps; });
  if (it == spans.begin()) return fallback;
  --it;
  return t < it->end_ps ? it->end_ps : fallback;
}

bool HasStepMarkers(const xplane::XSpaceData& space, const xplane::Plane* host, int64_t base_ns) {
  for (const xplane::Plane& plane : space.planes) {
    for (const xplane::StatMetadata& m : plane.stat_metadata) {
      if (space.strings.Get(m.name) == xplane::StatTypeName(StatType::kGroupId)) return true;
    }
  }
  if (host == nullptr) return false;
  xplane::XPlaneVisitor plane(&space, host, base_ns);
  bool found = false;
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    if (found) return;
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      if (found) return;
      if (e.host_event_type() == xplane::HostEventType::kTraceContext) found = true;
      std::optional<xplane::XStatVisitor> root = e.GetStat(StatType::kIsRoot);
      if (root && root->NumericValue() != 0) found = true;
    });
  });
  return found;
}

// Renames the host plane's `_r` stat metadata so no event is a root.
void DisableRoots(xplane::XSpaceData* space, xplane::Plane* host) {
  for (xplane::StatMetadata& m : host->stat_metadata) {
    if (space->strings.Get(m.name) == xplane::StatTypeName(StatType::kIsRoot)) {
      m.name = space->strings.Intern("tbprof_disabled_r");
    }
  }
}

struct Candidate {
  const xplane::Line* line = nullptr;
  std::vector<Span> steps;
};

// Steps from named per-iteration events (DataLoader or optimizer).
Candidate StepsFromNamedEvents(const xplane::XSpaceData& space, const xplane::Plane* host,
                               int64_t base_ns, absl::string_view prefix, bool step_ends_at_event) {
  xplane::XPlaneVisitor plane(&space, host, base_ns);
  Candidate best;
  size_t best_count = 0;
  plane.ForEachLine([&](const xplane::XLineVisitor& line) {
    if (line.name() == xplane::kStepLineName) return;
    std::vector<Span> events;
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      if (!e.is_aggregate() && absl::StartsWith(e.name(), prefix)) {
        events.push_back({e.begin_ps(), e.end_ps()});
      }
    });
    if (events.size() < 2 || events.size() <= best_count) return;
    // Nested duplicates (a wrapper and its inner call) count once.
    std::vector<Span> outer;
    for (const Span& s : events) {
      if (!outer.empty() && s.begin_ps < outer.back().end_ps) continue;
      outer.push_back(s);
    }
    if (outer.size() < 2 || outer.size() <= best_count) return;
    std::vector<Span> top = TopLevelSpans(line);
    std::vector<Span> steps;
    if (step_ends_at_event) {
      for (size_t i = 1; i < outer.size(); ++i) {
        steps.push_back({outer[i - 1].end_ps, outer[i].end_ps});
      }
    } else {
      std::vector<int64_t> begins;
      for (const Span& s : outer) {
        int64_t b = TopLevelBegin(top, s.begin_ps);
        if (!begins.empty() && b <= begins.back()) b = s.begin_ps;
        begins.push_back(b);
      }
      const int64_t line_end = top.empty() ? outer.back().end_ps : top.back().end_ps;
      for (size_t i = 0; i < begins.size(); ++i) {
        steps.push_back({begins[i], i + 1 < begins.size() ? begins[i + 1] : line_end});
      }
    }
    best_count = outer.size();
    for (const xplane::Line& raw : host->lines) {
      if (raw.id == line.id()) best.line = &raw;
    }
    best.steps = std::move(steps);
  });
  return best;
}

struct Kernel {
  int64_t begin_ps, end_ps;
  uint32_t name;  // String id.
  int64_t correlation_id;
};

// The smallest period of `names` that anchors support, or 0.
int64_t FindPeriod(const std::vector<uint32_t>& names) {
  const int64_t n = static_cast<int64_t>(names.size());
  absl::flat_hash_map<uint32_t, std::vector<int64_t>> positions;
  for (int64_t i = 0; i < n; ++i) positions[names[i]].push_back(i);
  std::vector<int64_t> candidates;
  for (const auto& [name, at] : positions) {
    if (static_cast<int64_t>(at.size()) < kMinRepeats) continue;
    absl::flat_hash_map<int64_t, int64_t> gap_counts;
    for (size_t i = 1; i < at.size(); ++i) ++gap_counts[at[i] - at[i - 1]];
    auto most = std::max_element(gap_counts.begin(), gap_counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    const double regular = static_cast<double>(most->second) / static_cast<double>(at.size() - 1);
    if (regular >= kMinRegularGaps && most->first * kMinRepeats <= n) {
      candidates.push_back(most->first);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (int64_t p : candidates) {
    int64_t same = 0;
    for (int64_t i = 0; i + p < n; ++i) same += names[i] == names[i + p];
    if (static_cast<double>(same) >= kMinPeriodMatch * static_cast<double>(n - p)) return p;
  }
  return 0;
}

struct KernelSteps {
  Candidate candidate;
  std::string why_not;  // Set when no steps were found.
};

KernelSteps StepsFromKernelPeriod(const xplane::XSpaceData& space, const xplane::Plane* host,
                                  int64_t base_ns) {
  KernelSteps result;
  // The GPU with the most events.
  std::vector<Kernel> kernels;
  for (const xplane::Plane* gpu : xplane::FindGpuPlanes(space)) {
    std::vector<Kernel> these;
    xplane::XPlaneVisitor plane(&space, gpu, base_ns);
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (line.name() == xplane::kStepLineName || line.id() >= xplane::kThreadIdStepInfo) return;
      line.ForEachEvent([&](const xplane::XEventVisitor& e) {
        std::optional<xplane::XStatVisitor> corr = e.GetStat(StatType::kCorrelationId);
        if (e.is_aggregate() || !corr) return;
        these.push_back({e.begin_ps(), e.end_ps(), gpu->event_metadata[e.metadata_index()].name,
                         corr->IntOrUintValue()});
      });
    });
    if (these.size() > kernels.size()) kernels = std::move(these);
  }
  if (kernels.size() < static_cast<size_t>(2 * kMinRepeats)) {
    result.why_not = kernels.empty() ? "no GPU activity linked to host launches"
                                     : "too few GPU kernels to find a repeating sequence";
    return result;
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const Kernel& a, const Kernel& b) { return a.begin_ps < b.begin_ps; });
  std::vector<uint32_t> names;
  names.reserve(kernels.size());
  for (const Kernel& k : kernels) names.push_back(k.name);
  const int64_t p = FindPeriod(names);
  if (p == 0) {
    result.why_not = absl::StrCat("the sequence of ", kernels.size(),
                                  " GPU kernels does not repeat at a regular period");
    return result;
  }
  const int64_t n = static_cast<int64_t>(kernels.size());
  // Phase: the period position after which the GPU idles longest.
  int64_t best_phase = 0;
  int64_t best_gap = -1;
  for (int64_t phase = 0; phase < p; ++phase) {
    int64_t gap = 0;
    for (int64_t i = phase; i < n; i += p) {
      if (i > 0) gap += std::max<int64_t>(0, kernels[i].begin_ps - kernels[i - 1].end_ps);
    }
    if (gap > best_gap) {
      best_gap = gap;
      best_phase = phase;
    }
  }
  // Host launches by correlation id.
  struct Launch {
    const xplane::Line* line;
    int64_t begin_ps, end_ps;
  };
  absl::flat_hash_map<int64_t, Launch> launches;
  absl::flat_hash_map<const xplane::Line*, std::vector<Span>> top_level;
  if (host != nullptr) {
    xplane::XPlaneVisitor plane(&space, host, base_ns);
    for (const xplane::Line& raw : host->lines) {
      xplane::XLineVisitor line(&plane, &raw);
      line.ForEachEvent([&](const xplane::XEventVisitor& e) {
        std::optional<xplane::XStatVisitor> corr = e.GetStat(StatType::kCorrelationId);
        if (corr) launches.emplace(corr->IntOrUintValue(), Launch{&raw, e.begin_ps(), e.end_ps()});
      });
      top_level[&raw] = TopLevelSpans(line);
    }
  }
  std::vector<int64_t> starts;
  for (int64_t i = best_phase; i + p <= n; i += p) starts.push_back(i);
  const xplane::Line* line = nullptr;
  std::vector<int64_t> begins;
  int64_t last_end = 0;
  for (int64_t start : starts) {
    auto it = launches.find(kernels[start].correlation_id);
    if (it == launches.end()) continue;
    if (line == nullptr) line = it->second.line;
    if (it->second.line != line) continue;
    const std::vector<Span>& top = top_level[line];
    int64_t b = TopLevelBegin(top, it->second.begin_ps);
    if (!begins.empty() && b <= begins.back()) b = it->second.begin_ps;
    if (!begins.empty() && b <= begins.back()) continue;
    begins.push_back(b);
    // The end of the period's last launch on this line.
    for (int64_t j = start + p - 1; j >= start; --j) {
      auto l = launches.find(kernels[j].correlation_id);
      if (l != launches.end() && l->second.line == line) {
        last_end = TopLevelEnd(top, l->second.begin_ps, l->second.end_ps);
        break;
      }
    }
  }
  if (begins.size() < 2 || line == nullptr) {
    result.why_not = absl::StrCat("GPU kernels repeat every ", p,
                                  " kernels, but their launches are not on one host thread");
    return result;
  }
  result.candidate.line = line;
  for (size_t i = 0; i < begins.size(); ++i) {
    int64_t end = i + 1 < begins.size() ? begins[i + 1] : std::max(last_end, begins[i]);
    result.candidate.steps.push_back({begins[i], end});
  }
  return result;
}

void AddRoots(xplane::XSpaceData* space, const xplane::Line* target, int64_t base_ns,
              const std::vector<Span>& steps, absl::string_view method) {
  xplane::XSpaceBuilder builder(space);
  xplane::XPlaneBuilder* host = builder.FindPlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* line = host->FindLine(target->id);
  const int64_t line_base_ps = (line->timestamp_ns() - base_ns) * 1000;
  const uint32_t s_root = host->GetOrCreateStatMetadata(StatType::kIsRoot);
  const uint32_t s_step = host->GetOrCreateStatMetadata(StatType::kStepNum);
  for (size_t i = 0; i < steps.size(); ++i) {
    const int64_t step_num = static_cast<int64_t>(i) + 1;
    uint32_t md = host->GetOrCreateEventMetadata(absl::StrCat("Step#", step_num));
    xplane::XEventBuilder ev = line->AddEvent(md, steps[i].begin_ps - line_base_ps,
                                              std::max<int64_t>(0, steps[i].end_ps -
                                                                       steps[i].begin_ps));
    ev.AddInt64(s_root, 1);
    ev.AddInt64(s_step, step_num);
  }
  host->SetStatString(host->GetOrCreateStatMetadata(kStepsInferredStatName), method);
  xplane::FinalizeOptions finalize;
  finalize.normalize_timestamps = false;
  builder.Finalize(finalize);
}

}  // namespace

absl::StatusOr<StepsMode> ParseStepsMode(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(text);
  if (lower.empty() || lower == "auto") return StepsMode::kAuto;
  if (lower == "markers") return StepsMode::kMarkers;
  if (lower == "infer") return StepsMode::kInfer;
  if (lower == "none") return StepsMode::kNone;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown steps mode '", text, "' (use auto, markers, infer or none)"));
}

StepsResult ApplyStepsMode(xplane::XSpaceData* space, StepsMode mode) {
  StepsResult result;
  const int64_t base_ns = xplane::SpaceBaseNs(*space);
  xplane::Plane* host = nullptr;
  for (xplane::Plane& p : space->planes) {
    if (space->strings.Get(p.name) == xplane::kHostThreadsPlaneName) host = &p;
  }
  const bool has_markers = HasStepMarkers(*space, host, base_ns);
  if (mode == StepsMode::kNone) {
    if (host != nullptr) DisableRoots(space, host);
    result.message = "steps: none (--steps=none)";
    return result;
  }
  if (has_markers && mode != StepsMode::kInfer) {
    result.method = std::string(kStepsFromMarkers);
    result.message = "steps: from the trace's own step markers";
    return result;
  }
  if (mode == StepsMode::kMarkers) {
    result.message = "steps: none (the trace has no step markers; --steps=markers infers none)";
    return result;
  }
  if (host == nullptr) {
    result.message = "steps: none inferred: the profile has no /host:CPU plane";
    return result;
  }
  if (has_markers) DisableRoots(space, host);

  Candidate found;
  std::string method;
  std::string why_not;
  found = StepsFromNamedEvents(*space, host, base_ns, "enumerate(DataLoader)", false);
  method = std::string(kStepsFromDataLoader);
  if (found.line == nullptr) {
    found = StepsFromNamedEvents(*space, host, base_ns, "Optimizer.step", true);
    method = std::string(kStepsFromOptimizer);
  }
  if (found.line == nullptr) {
    KernelSteps k = StepsFromKernelPeriod(*space, host, base_ns);
    found = std::move(k.candidate);
    why_not = std::move(k.why_not);
    method = std::string(kStepsFromKernelPeriod);
  }
  if (found.line == nullptr || found.steps.empty()) {
    result.message = absl::StrCat(
        "steps: none inferred: no repeated enumerate(DataLoader) or Optimizer.step events, and ",
        why_not.empty() ? "no repeating GPU work" : why_not);
    space->warnings.push_back(result.message);
    return result;
  }
  result.method = method;
  result.inferred = true;
  result.steps = static_cast<int64_t>(found.steps.size());
  result.message = absl::StrCat("steps: ", result.steps, " inferred from ", method,
                                has_markers ? " (--steps=infer)"
                                            : " (the trace has no step markers; --steps=none "
                                              "turns this off)");
  AddRoots(space, found.line, base_ns, found.steps, method);
  space->warnings.push_back(absl::StrCat(
      "steps inferred by tbprof: ", result.steps, " steps named Step#N from ", method,
      has_markers ? ", because --steps=infer was given (the trace's own step markers are not "
                    "used)"
                  : ", because the trace has no step markers (ProfilerStep#N)"));
  return result;
}

}  // namespace tbprof::converters
