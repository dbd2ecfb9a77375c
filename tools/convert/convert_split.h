// How much memory TensorBoard's profile plugin (xprof) needs for a file, and
// what `tbprof convert` does when one file would need more than the budget:
// split the host into runs <run>_part1, <run>_part2, ... of whole steps.
//
// The model and its measurements: docs/tensorboard_limits.md.
#ifndef TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_H_
#define TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/xplane/xspace_split.h"

namespace tbprof::cli {

// Default of --tensorboard-budget-mb.
inline constexpr int64_t kDefaultTensorBoardBudgetMb = 8192;

// xprof 2.24's peak RSS for its costliest default tool (overview_page; the
// trace viewer needs less) on one xplane.pb of `xplane_bytes`:
// 30 x the file + 100 MiB (Python, the plugin, slack). Measured from 2 MB to
// 240 MB; the ratio stays between 27x and 32x (docs/tensorboard_limits.md).
uint64_t EstimateXprofPeakBytes(uint64_t xplane_bytes);

// The largest xplane.pb whose run stays under `budget_bytes` in xprof when
// the run holds `hosts_in_run` files of that size: overview_page reads every
// host of a run (it only supports ALL_HOSTS), so each host gets an equal
// share. At least 1 MiB.
uint64_t MaxXPlaneBytesForBudget(uint64_t budget_bytes, int64_t hosts_in_run);

// "<run>_part<k>" for part `index` (0-based) of `num_parts`, k zero-padded to
// the digits of num_parts so that runs sort in order ("r_part01".."r_part12").
std::string PartRunName(const std::string& run, size_t index, size_t num_parts);

// What was split, for the convert summary.
struct SplitReport {
  std::string host;
  uint64_t whole_bytes = 0;  // Estimated size of the one file it would have been.
  uint64_t budget_bytes = 0;
  bool by_steps = false;
  int64_t steps_per_part = 0;
  struct Part {
    std::string run;
    std::string path;
    uint64_t bytes = 0;  // As written.
    xplane::SplitPart plan;
  };
  std::vector<Part> parts;
};

// Lines for the summary: per host, why and how it was split, one line per
// part (run, steps or time range, size, estimated xprof memory) and how to
// keep one file.
std::string FormatSplitReports(const std::vector<SplitReport>& reports);
// One line: "<host>: split into N runs of K steps each (<run>_part1..N),
// because one file would need ~X GB in TensorBoard; ..." (for --quiet).
std::string FormatSplitOneLine(const SplitReport& report);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_H_
