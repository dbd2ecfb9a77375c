#include "tools/convert/all_hosts_needs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/convert/convert_split.h"

namespace tbprof::cli {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
// docs/tensorboard_limits.md, "Runs of many hosts".
constexpr uint64_t kTraceViewerBytesPerFileByte = 12;
constexpr uint64_t kTraceViewerBaseBytes = 100 * kMiB;
constexpr double kTraceJsonBytesPerFileByte = 3.8;
constexpr uint64_t kTraceJsonLimitBytes = 2 * kGiB;

std::string Size(uint64_t bytes) {
  if (bytes < kGiB) return absl::StrFormat("%.0f MiB", static_cast<double>(bytes) / kMiB);
  return absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / kGiB);
}

}  // namespace

AllHostsNeeds EstimateAllHostsNeeds(const std::vector<uint64_t>& host_file_bytes) {
  AllHostsNeeds n;
  n.hosts = static_cast<int64_t>(host_file_bytes.size());
  for (uint64_t bytes : host_file_bytes) {
    n.total_file_bytes += bytes;
    n.largest_file_bytes = std::max(n.largest_file_bytes, bytes);
  }
  n.largest_host_bytes = EstimateXprofPeakBytes(n.largest_file_bytes);
  n.overview_bytes = n.largest_host_bytes / 3 * 4;
  n.trace_viewer_bytes = n.total_file_bytes * kTraceViewerBytesPerFileByte + kTraceViewerBaseBytes;
  n.trace_json_bytes =
      static_cast<uint64_t>(static_cast<double>(n.total_file_bytes) * kTraceJsonBytesPerFileByte);
  n.trace_json_too_large = n.trace_json_bytes > kTraceJsonLimitBytes;
  return n;
}

std::string FormatAllHostsNeeds(const AllHostsNeeds& n, uint64_t budget_bytes,
                                const std::string& where) {
  if (n.hosts < 2) return "";
  const auto over = [&](uint64_t bytes) { return budget_bytes > 0 && bytes > budget_bytes; };
  std::string text = absl::StrCat(
      "TensorBoard, this run of ", n.hosts, " hosts (", Size(n.total_file_bytes),
      " of xplane.pb): one host's tools need up to ~", Size(n.largest_host_bytes),
      over(n.largest_host_bytes) ? " (over the budget)" : "", "; the overview page (one for the run) ~",
      Size(n.overview_bytes), over(n.overview_bytes) ? " (over the budget)" : "",
      "; the trace viewer of ALL_HOSTS ~", Size(n.trace_viewer_bytes));
  if (n.trace_json_too_large) {
    absl::StrAppend(&text, ", and it cannot open at any memory size: its ~",
                    Size(n.trace_json_bytes), " of JSON pass xprof's 2 GiB limit");
  } else if (over(n.trace_viewer_bytes)) {
    absl::StrAppend(&text, ", over the budget: pick one host in the trace viewer");
  }
  absl::StrAppend(&text, ".\n  Across ranks (steps, collectives, waiting): tbprof report ", where,
                  " (its distributed view reads every host).\n");
  return text;
}

}  // namespace tbprof::cli
