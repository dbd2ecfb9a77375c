#include "tools/convert/convert_split.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/progress.h"

namespace tbprof::cli {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
// docs/tensorboard_limits.md: peak RSS ~= 30 x xplane.pb bytes + 100 MiB.
constexpr uint64_t kXprofBytesPerFileByte = 30;
constexpr uint64_t kXprofBaseBytes = 100 * kMiB;

// "20.2 GiB", or "300 MiB" under 1 GiB.
std::string GiB(uint64_t bytes) {
  if (bytes < (1ull << 30)) return absl::StrFormat("%.0f MiB", static_cast<double>(bytes) / kMiB);
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
}

std::string PartContents(const SplitReport& report, const xplane::SplitPart& part) {
  if (report.by_steps) {
    std::string steps = absl::StrCat(part.num_steps, part.num_steps == 1 ? " step" : " steps");
    if (part.first_step_num >= 0) {
      absl::StrAppend(&steps, " (", part.first_step_num,
                      part.num_steps == 1 ? "" : absl::StrCat("-", part.last_step_num), ")");
    }
    return steps;
  }
  const int64_t origin = report.parts.empty() ? 0 : report.parts.front().plan.begin_ps;
  return absl::StrFormat("%.3f-%.3f s", (part.begin_ps - origin) / 1e12,
                         (part.end_ps - origin) / 1e12);
}

std::string HowSplit(const SplitReport& report) {
  const size_t n = report.parts.size();
  std::string runs = absl::StrCat(report.parts.front().run, "..",
                                  report.parts.back().run.substr(report.parts.back().run.rfind(
                                                                     "_part") + 5));
  if (!report.by_steps) {
    return absl::StrCat("split by time into ", n, " runs (", runs,
                        ") because it has no steps that fit the budget whole");
  }
  bool even = true;
  for (const SplitReport::Part& part : report.parts) {
    if (&part != &report.parts.back() && part.plan.num_steps != report.steps_per_part) {
      even = false;
    }
  }
  return absl::StrCat("split into ", n, " runs of ", even ? "" : "up to ", report.steps_per_part,
                      report.steps_per_part == 1 ? " step" : " steps", even ? " each" : "", " (",
                      runs, ")");
}

}  // namespace

uint64_t EstimateXprofPeakBytes(uint64_t xplane_bytes) {
  return xplane_bytes * kXprofBytesPerFileByte + kXprofBaseBytes;
}

uint64_t MaxXPlaneBytesForBudget(uint64_t budget_bytes, int64_t hosts_in_run) {
  uint64_t usable = budget_bytes > kXprofBaseBytes ? budget_bytes - kXprofBaseBytes : 0;
  uint64_t per_host = usable / kXprofBytesPerFileByte / std::max<int64_t>(hosts_in_run, 1);
  return std::max<uint64_t>(per_host, kMiB);
}

std::string PartRunName(const std::string& run, size_t index, size_t num_parts) {
  int width = static_cast<int>(absl::StrCat(num_parts).size());
  return absl::StrFormat("%s_part%0*d", run, width, static_cast<int>(index + 1));
}

std::string FormatSplitOneLine(const SplitReport& report) {
  std::string line = absl::StrCat(report.host, ": ", HowSplit(report),
                                  ", because one file would need ~",
                                  GiB(EstimateXprofPeakBytes(report.whole_bytes)),
                                  " in TensorBoard (budget ", GiB(report.budget_bytes),
                                  "); --tensorboard-budget-mb 0 keeps one file");
  return line;
}

std::string FormatSplitReports(const std::vector<SplitReport>& reports) {
  std::string out;
  for (const SplitReport& report : reports) {
    absl::StrAppend(&out, "\nSplit for TensorBoard: ", FormatSplitOneLine(report), ".\n");
    for (const SplitReport::Part& part : report.parts) {
      absl::StrAppendFormat(&out, "  %-24s %-22s %10s  ~%s in TensorBoard\n", part.run,
                            PartContents(report, part.plan), FormatBytes(part.bytes),
                            GiB(EstimateXprofPeakBytes(part.bytes)));
    }
    absl::StrAppend(&out,
                    "  Each run opens on its own in TensorBoard; the whole trace's precomputed "
                    "views (if any) stay in the run without _part.\n");
  }
  return out;
}

}  // namespace tbprof::cli
