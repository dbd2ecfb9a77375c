#include "converters/views/diff/diff_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tbprof::views {
namespace {

void Add(TimeAggregate* to, int64_t count, double total_ms) {
  to->count += count;
  to->total_ms += total_ms;
}

// Merges the category lists of two sides keeping the display order: a row
// only one side has goes after the rows that precede it on that side.
std::vector<CategoryDiff> MergeCategories(const std::vector<views::StepCategoryRow>& base,
                                          const std::vector<views::StepCategoryRow>& next) {
  std::vector<CategoryDiff> out;
  auto find = [&out](const std::string& key) {
    return std::find_if(out.begin(), out.end(),
                        [&key](const CategoryDiff& d) { return d.key == key; });
  };
  for (const views::StepCategoryRow& row : base) {
    out.push_back({row.key, row.label, row.avg_ms, 0});
  }
  size_t insert_at = 0;  // After the last row of `next` already placed.
  for (const views::StepCategoryRow& row : next) {
    auto it = find(row.key);
    if (it != out.end()) {
      it->next_ms = row.avg_ms;
      insert_at = static_cast<size_t>(it - out.begin()) + 1;
    } else {
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(insert_at),
                 {row.key, row.label, 0, row.avg_ms});
      ++insert_at;
    }
  }
  return out;
}

AggregateTable DiffTables(const std::map<std::string, TimeAggregate>& base,
                          const std::map<std::string, TimeAggregate>& next) {
  AggregateTable table;
  auto b = base.begin();
  auto n = next.begin();
  while (b != base.end() || n != next.end()) {
    AggregateDiff row;
    if (n == next.end() || (b != base.end() && b->first < n->first)) {
      row = {b->first, b->second, {}};
      ++b;
      ++table.only_base;
    } else if (b == base.end() || n->first < b->first) {
      row = {n->first, {}, n->second};
      ++n;
      ++table.only_next;
    } else {
      row = {b->first, b->second, n->second};
      ++b;
      ++n;
      ++table.in_both;
    }
    table.rows.push_back(std::move(row));
  }
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [](const AggregateDiff& x, const AggregateDiff& y) {
                     const double dx = std::abs(x.delta_ms()), dy = std::abs(y.delta_ms());
                     if (dx != dy) return dx > dy;
                     return std::max(x.base.total_ms, x.next.total_ms) >
                            std::max(y.base.total_ms, y.next.total_ms);
                   });
  return table;
}

std::map<std::string, TimeAggregate> Collectives(const std::map<std::string, TimeAggregate>& all) {
  std::map<std::string, TimeAggregate> out;
  for (const auto& [name, agg] : all) {
    if (IsCollectiveKernel(name)) out.emplace(name, agg);
  }
  return out;
}

}  // namespace

bool IsCollectiveKernel(absl::string_view name) { return absl::StartsWithIgnoreCase(name, "nccl"); }

StepStats ComputeStepStats(const std::vector<double>& times_ms) {
  StepStats stats;
  if (times_ms.empty()) return stats;
  stats.count = static_cast<int64_t>(times_ms.size());
  double sum = 0;
  stats.min_ms = stats.max_ms = times_ms[0];
  for (double t : times_ms) {
    sum += t;
    stats.min_ms = std::min(stats.min_ms, t);
    stats.max_ms = std::max(stats.max_ms, t);
  }
  stats.mean_ms = sum / static_cast<double>(times_ms.size());
  if (times_ms.size() > 1) {
    double sq = 0;
    for (double t : times_ms) sq += (t - stats.mean_ms) * (t - stats.mean_ms);
    stats.sd_ms = std::sqrt(sq / static_cast<double>(times_ms.size() - 1));
  }
  return stats;
}

ProfileSummary SummarizeProfile(const views::ReportInput& input) {
  ProfileSummary summary;
  summary.source = input.source;
  std::map<int32_t, double> step_ms;  // Step number -> slowest host's time.
  std::vector<views::StepCategoryRow> categories;
  int hosts_with_steps = 0;
  for (const views::HostViews& host : input.hosts) {
    summary.hosts.push_back(host.host);
    const views::HostReport report = views::BuildHostReport(host);
    if (!report.steps.empty()) {
      ++hosts_with_steps;
      for (const views::StepRow& step : report.steps) {
        auto [it, inserted] = step_ms.emplace(step.step_number, step.step_time_ms);
        if (!inserted) it->second = std::max(it->second, step.step_time_ms);
      }
      for (const views::StepCategoryRow& row : report.categories) {
        auto it = std::find_if(
            categories.begin(), categories.end(),
            [&row](const views::StepCategoryRow& c) { return c.key == row.key; });
        if (it == categories.end()) {
          categories.push_back(row);
        } else {
          it->avg_ms += row.avg_ms;
        }
      }
    }
    for (const views::KernelRow& k : report.kernels) {
      Add(&summary.kernels[k.name], k.occurrences, k.total_ms);
      Add(&summary.operators[k.op_name.empty() ? std::string(kNoOperator) : k.op_name],
          k.occurrences, k.total_ms);
      Add(&summary.all_kernels, k.occurrences, k.total_ms);
      if (IsCollectiveKernel(k.name)) Add(&summary.communication, k.occurrences, k.total_ms);
    }
    for (const views::AllocatorReport& a : report.allocators) {
      int64_t& peak = summary.memory_peak_bytes[a.id];
      peak = std::max(peak, a.peak_bytes);
    }
  }
  std::vector<double> times;
  times.reserve(step_ms.size());
  for (const auto& [number, ms] : step_ms) times.push_back(ms);
  summary.steps = ComputeStepStats(times);
  for (views::StepCategoryRow& row : categories) {
    row.avg_ms /= std::max(1, hosts_with_steps);
    row.percent = summary.steps.mean_ms > 0 ? 100.0 * row.avg_ms / summary.steps.mean_ms : 0;
  }
  summary.categories = std::move(categories);
  return summary;
}

absl::string_view NoiseName(Noise noise) {
  switch (noise) {
    case Noise::kWithin: return "within";
    case Noise::kOutside: return "outside";
    case Noise::kUnknown: break;
  }
  return "unknown";
}

double AggregateDiff::mean_delta_pct() const {
  if (!in_base() || !in_next() || base.mean_us() <= 0) return 0;
  return 100.0 * (next.mean_us() - base.mean_us()) / base.mean_us();
}

absl::StatusOr<ProfileDiff> DiffProfiles(const ProfileSummary& base, const ProfileSummary& next) {
  ProfileDiff diff;
  diff.base_source = base.source;
  diff.next_source = next.source;
  diff.base_hosts = base.hosts;
  diff.next_hosts = next.hosts;

  StepDiff& step = diff.step;
  step.base = base.steps;
  step.next = next.steps;
  step.available = base.steps.count > 0 && next.steps.count > 0;
  if (step.available) {
    step.delta_ms = next.steps.mean_ms - base.steps.mean_ms;
    step.delta_pct = base.steps.mean_ms > 0 ? 100.0 * step.delta_ms / base.steps.mean_ms : 0;
    step.noise_ms = std::max(base.steps.sd_ms, next.steps.sd_ms);
    if (base.steps.count >= 2 && next.steps.count >= 2) {
      step.noise = std::abs(step.delta_ms) < step.noise_ms ? Noise::kWithin : Noise::kOutside;
    }
  }
  diff.categories = MergeCategories(base.categories, next.categories);
  diff.kernels = DiffTables(base.kernels, next.kernels);
  diff.operators = DiffTables(base.operators, next.operators);
  diff.collectives = DiffTables(Collectives(base.kernels), Collectives(next.kernels));
  diff.base_kernels = base.all_kernels;
  diff.next_kernels = next.all_kernels;
  diff.base_communication = base.communication;
  diff.next_communication = next.communication;

  // Operators in common alone do not count when "(no op)" is all they share.
  int64_t named_ops_in_both = diff.operators.in_both;
  if (base.operators.count(std::string(kNoOperator)) &&
      next.operators.count(std::string(kNoOperator))) {
    --named_ops_in_both;
  }
  if (!step.available && diff.kernels.in_both == 0 && named_ops_in_both == 0) {
    auto steps_of = [](const ProfileSummary& s) {
      if (s.steps.count == 0) return std::string("no steps");
      return absl::StrCat(s.steps.count, s.steps.count == 1 ? " step" : " steps");
    };
    return absl::InvalidArgumentError(absl::StrCat(
        base.source, " and ", next.source,
        " have nothing in common: no kernel or operator name in both (",
        base.kernels.size(), " and ", next.kernels.size(),
        " kernel names) and not both have steps (", steps_of(base), ", ", steps_of(next), ")"));
  }

  for (const auto& [id, bytes] : base.memory_peak_bytes) diff.memory.push_back({id, bytes, -1});
  for (const auto& [id, bytes] : next.memory_peak_bytes) {
    auto it = std::find_if(diff.memory.begin(), diff.memory.end(),
                           [&id = id](const MemoryDiff& m) { return m.allocator == id; });
    if (it == diff.memory.end()) {
      diff.memory.push_back({id, -1, bytes});
    } else {
      it->next_bytes = bytes;
    }
  }
  std::stable_sort(diff.memory.begin(), diff.memory.end(),
                   [](const MemoryDiff& x, const MemoryDiff& y) {
                     return std::max(x.base_bytes, x.next_bytes) >
                            std::max(y.base_bytes, y.next_bytes);
                   });
  return diff;
}

SlowerGate CheckSlower(const StepDiff& diff, double max_pct, bool ignore_noise) {
  SlowerGate gate;
  const std::string change =
      absl::StrFormat("mean step time %.3f ms -> %.3f ms (%+.1f%%)", diff.base.mean_ms,
                      diff.next.mean_ms, diff.delta_pct);
  if (diff.delta_pct <= max_pct) {
    gate.message = absl::StrFormat("%s: not slower by more than %g%%", change, max_pct);
    return gate;
  }
  if (!ignore_noise && diff.noise == Noise::kWithin) {
    gate.message = absl::StrFormat(
        "%s: slower by more than %g%%, but within noise (|delta| %.3f ms < sd %.3f ms); "
        "not failing (--ignore-noise fails anyway)",
        change, max_pct, std::abs(diff.delta_ms), diff.noise_ms);
    return gate;
  }
  gate.tripped = true;
  gate.message = absl::StrFormat("%s: slower by more than %g%%%s", change, max_pct,
                                 diff.noise == Noise::kOutside   ? " (outside noise)"
                                 : diff.noise == Noise::kUnknown ? " (noise unknown: too few steps)"
                                                                 : " (within noise, ignored)");
  return gate;
}

}  // namespace tbprof::views
