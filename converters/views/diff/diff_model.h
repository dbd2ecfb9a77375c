// What `tbprof diff BASE NEW` compares, computed from the report model of
// each side (converters/views/summary/report_model.h): step time with its spread
// and its breakdown, kernels and operators matched by name, the memory peak
// per allocator, and communication (collective kernels). Rendering lives in
// diff_text.h, diff_json.h and diff_html.h.
//
// A side may hold several hosts (a run, one file per rank). Their numbers
// are combined as follows:
//  * step time: a step's time is the longest of the hosts' times for that
//    step number (synchronous training waits for the slowest rank); with one
//    host these are the host's steps. Mean, sample standard deviation (n-1),
//    min and max are taken over those steps.
//  * breakdown: each category's average per step, averaged over the hosts
//    that have steps.
//  * kernels: count and total time summed over hosts, per kernel name (the
//    kernel-stats rows of one name, which differ in launch dimensions or
//    operator, are added up); mean = total / count.
//  * operators: the framework op that launched the kernels (`tf_op`, e.g.
//    "aten::mm"; kernels without one count as "(no op)"); count = kernel
//    launches attributed to the op, total = their GPU time.
//  * memory: per allocator id, the largest peak of any host.
//  * communication: kernels whose name starts with "nccl" (any case), as
//    the profile plugin counts collectives.
// Totals cover each whole profile: when the profiles hold different numbers
// of steps, kernel totals differ for that reason too (means do not).
#ifndef TBPROF_CONVERTERS_VIEWS_DIFF_DIFF_MODEL_H_
#define TBPROF_CONVERTERS_VIEWS_DIFF_DIFF_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/views/summary/report_model.h"

namespace tbprof::views {

// Operator name given to kernels that name none.
inline constexpr absl::string_view kNoOperator = "(no op)";

// True for a collective-communication kernel name ("nccl" prefix, any case).
bool IsCollectiveKernel(absl::string_view name);

struct StepStats {
  int64_t count = 0;  // Steps; 0 = the profile has none.
  double mean_ms = 0;
  double sd_ms = 0;  // Sample standard deviation; 0 with fewer than 2 steps.
  double min_ms = 0;
  double max_ms = 0;
};

// Mean, sample standard deviation, min and max of `times_ms`.
StepStats ComputeStepStats(const std::vector<double>& times_ms);

// Count and GPU time of a kernel, an operator or a group of kernels.
struct TimeAggregate {
  int64_t count = 0;
  double total_ms = 0;
  double mean_us() const { return count > 0 ? total_ms * 1e3 / count : 0; }
};

// One side of a diff.
struct ProfileSummary {
  std::string source;              // What it was loaded from, for titles.
  std::vector<std::string> hosts;  // In load order.
  StepStats steps;
  // Non-empty categories in the report's display order, avg_ms per step.
  std::vector<views::StepCategoryRow> categories;
  std::map<std::string, TimeAggregate> kernels;    // By kernel name.
  std::map<std::string, TimeAggregate> operators;  // By framework op.
  TimeAggregate all_kernels;
  TimeAggregate communication;  // Collective kernels.
  std::map<std::string, int64_t> memory_peak_bytes;  // By allocator id.
};

// Combines the hosts of `input` as described at the top of this file.
ProfileSummary SummarizeProfile(const views::ReportInput& input);

// Whether a step-time difference stands out from step-to-step variation.
// The rule: a difference is within noise when |mean_new - mean_base| <
// max(sd_base, sd_new); it is unknown when a side has fewer than 2 steps.
enum class Noise { kUnknown, kWithin, kOutside };
absl::string_view NoiseName(Noise noise);  // "unknown", "within", "outside".

struct StepDiff {
  bool available = false;  // Both sides have steps.
  StepStats base;
  StepStats next;
  double delta_ms = 0;   // next.mean - base.mean.
  double delta_pct = 0;  // Of base.mean.
  double noise_ms = 0;   // max(sd_base, sd_new).
  Noise noise = Noise::kUnknown;
};

struct CategoryDiff {
  std::string key;
  std::string label;
  double base_ms = 0;
  double next_ms = 0;
  double delta_ms() const { return next_ms - base_ms; }
};

// A kernel or operator on both sides, or on one (count 0 on the other).
struct AggregateDiff {
  std::string name;
  TimeAggregate base;
  TimeAggregate next;
  bool in_base() const { return base.count > 0; }
  bool in_next() const { return next.count > 0; }
  double delta_ms() const { return next.total_ms - base.total_ms; }
  // Change of the mean in percent of the base mean; 0 unless on both sides.
  double mean_delta_pct() const;
};

// The rows of one table: every name of either side, largest |delta_ms| first.
struct AggregateTable {
  std::vector<AggregateDiff> rows;
  int64_t in_both = 0;
  int64_t only_base = 0;
  int64_t only_next = 0;
};

struct MemoryDiff {
  std::string allocator;
  int64_t base_bytes = -1;  // -1: not in that profile.
  int64_t next_bytes = -1;
};

struct ProfileDiff {
  std::string base_source;
  std::string next_source;
  std::vector<std::string> base_hosts;
  std::vector<std::string> next_hosts;
  StepDiff step;
  std::vector<CategoryDiff> categories;  // Display order; either side's.
  AggregateTable kernels;
  AggregateTable operators;
  AggregateTable collectives;  // The collective kernels only.
  TimeAggregate base_kernels;  // All kernels.
  TimeAggregate next_kernels;
  TimeAggregate base_communication;
  TimeAggregate next_communication;
  std::vector<MemoryDiff> memory;  // Largest peak (of either side) first.
};

// Compares two profiles. Error: kInvalidArgument naming both sources when
// they have nothing in common: no kernel or operator name in both, and not
// both with steps.
absl::StatusOr<ProfileDiff> DiffProfiles(const ProfileSummary& base, const ProfileSummary& next);

// `--fail-if-slower PCT`: trips when the mean step time grew by more than
// `max_pct` percent, unless the growth is within noise (see Noise) and
// `ignore_noise` is false. `diff.available` must be true.
struct SlowerGate {
  bool tripped = false;
  std::string message;  // One line saying why it tripped or did not.
};
SlowerGate CheckSlower(const StepDiff& diff, double max_pct, bool ignore_noise);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DIFF_DIFF_MODEL_H_
