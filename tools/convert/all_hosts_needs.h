// What xprof's views over every host of a run (ALL_HOSTS) need, next to the
// per-host budget that `tbprof convert` splits by: said in convert's summary
// and in `tbprof inspect` of several hosts, so that a job of many ranks
// knows which TensorBoard views will open and which cannot, and where the
// cross-rank view is (tbprof's distributed view).
//
// Measured with tools/bench/xprof_memory.py --hosts 1,4,16 --request all,one
// (xprof 2.24.2; docs/tensorboard_limits.md, "Runs of many hosts"):
//   - a tool request for one host reads that host's file only: the per-host
//     model (EstimateXprofPeakBytes) holds whatever N is;
//   - overview_page, which xprof computes once per run whatever host is
//     asked, converts the files one after the other: ~4/3 of the largest
//     file's need (0.12, 0.16, 0.16 GiB for 1, 4, 16 hosts of 3.1 MB);
//   - the trace viewer for ALL_HOSTS holds every file: ~12x their sum plus
//     100 MiB (0.24 GiB for 4, 0.59 GiB for 16 hosts of 3.1 MB), and returns
//     one JSON of ~3.8x their sum, which xprof cannot pass past 2 GiB.
#ifndef TBPROF_TOOLS_CONVERT_ALL_HOSTS_NEEDS_H_
#define TBPROF_TOOLS_CONVERT_ALL_HOSTS_NEEDS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tbprof::cli {

struct AllHostsNeeds {
  int64_t hosts = 0;
  uint64_t total_file_bytes = 0;
  uint64_t largest_file_bytes = 0;
  uint64_t largest_host_bytes = 0;  // One host's tools, the largest host.
  uint64_t overview_bytes = 0;      // overview_page of the run.
  uint64_t trace_viewer_bytes = 0;  // Trace viewer, ALL_HOSTS.
  uint64_t trace_json_bytes = 0;    // Its JSON answer.
  bool trace_json_too_large = false;  // Over xprof's 2 GiB.
};

// From the xplane.pb size of each host of a run (for a split host: of its
// largest part, which is what TensorBoard opens).
AllHostsNeeds EstimateAllHostsNeeds(const std::vector<uint64_t>& host_file_bytes);

// For a run of two or more hosts, lines saying what TensorBoard needs per
// host and for all hosts, which all-hosts view cannot work within
// `budget_bytes` (0: no budget) or at all, and that `tbprof report
// <where>` gives the view across ranks. "" for fewer than two hosts.
std::string FormatAllHostsNeeds(const AllHostsNeeds& needs, uint64_t budget_bytes,
                                const std::string& where);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_CONVERT_ALL_HOSTS_NEEDS_H_
