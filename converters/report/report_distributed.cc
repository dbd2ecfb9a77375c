// The distributed view for the terminal and as JSON (the HTML section is in
// report_distributed_html.cc).
#include "converters/report/report_distributed.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "converters/report/report_distributed_format.h"
#include "converters/report/text_format.h"
#include "converters/views/distributed/distributed_view.h"
#include "converters/output/proto_json.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

using text::AppendWrapped;
using text::PadLeft;
using text::PadRight;
using text::TruncateMiddle;

constexpr int kLabel = 12;  // "Waited for  ".

std::string Label(absl::string_view label) { return PadRight(label, kLabel); }

void AppendRankTable(const tbprof::DistributedView& v, int width, bool ascii, std::string* out) {
  // "  " name, five numbers of 7 and Sync% of 6, one space before each.
  const int name_width = std::max(10, width - 2 - 5 * 8 - 7);
  absl::StrAppend(out, "  ",
                  PadRight(name_width >= 18 ? "Rank (ms per step)" : "Rank", name_width),
                  PadLeft("Step", 8), PadLeft("Compute", 8), PadLeft("Comm", 8),
                  PadLeft("Overlap", 8), PadLeft("Other", 8), PadLeft("Sync%", 7), "\n");
  for (const tbprof::RankSummary& r : v.ranks()) {
    const std::string name =
        TruncateMiddle(absl::StrCat(r.rank(), " ", r.host()), name_width, ascii);
    const std::string sync = r.matched_ps() > 0 ? text::Pct(r.sync_percent()) : "-";
    absl::StrAppend(out, "  ", PadRight(name, name_width),
                    PadLeft(text::Ms(PsToMs(r.avg_step_ps())), 8),
                    PadLeft(text::Ms(PsToMs(r.avg_compute_ps())), 8),
                    PadLeft(text::Ms(PsToMs(r.avg_communication_ps())), 8),
                    PadLeft(text::Ms(PsToMs(r.avg_overlap_ps())), 8),
                    PadLeft(text::Ms(PsToMs(r.avg_other_ps())), 8), PadLeft(sync, 7), "\n");
  }
  AppendWrapped(
      "Compute / Comm: GPU time with only compute kernels / only collectives running; Overlap: "
      "both; Other: neither (copies, host, idle). Sync%: collective time spent waiting for "
      "other ranks.",
      "  ", "  ", width, out);
}

void AppendStraggler(const tbprof::DistributedView& v, int width, std::string* out) {
  const tbprof::Straggler& s = v.straggler();
  if (v.ranks_size() >= 2 && s.median_avg_step_ps() > 0) {
    AppendWrapped(
        absl::StrCat(text::Ms(PsToMs(s.fastest_avg_step_ps())), " to ",
                     text::Ms(PsToMs(s.slowest_avg_step_ps())), " ms per step across ",
                     v.ranks_size(), " ranks (median ", text::Ms(PsToMs(s.median_avg_step_ps())),
                     "); spread ", text::Pct(s.spread_percent()),
                     s.whole_profile()       ? " over the whole profile (no steps)"
                     : s.common_steps() > 0 ? absl::StrCat(" over ", s.common_steps(),
                                                           " common step",
                                                           s.common_steps() == 1 ? "" : "s")
                                            : " (the ranks share no step number)"),
        Label("Step time"), std::string(kLabel, ' '), width, out);
    std::string slowest = absl::StrCat(
        "rank ", s.slowest_rank(), " (", s.slowest_host(), "): ",
        text::Ms(PsToMs(s.slowest_avg_step_ps())), " ms per step, ",
        text::Ms(PsToMs(s.slowest_avg_step_ps() - s.median_avg_step_ps())),
        " ms over the median; ");
    if (s.phase().empty()) {
      absl::StrAppend(&slowest, "no part of its step exceeds the median");
    } else {
      absl::StrAppend(&slowest, "it loses the time in ", PhaseLabel(s.phase()), " (+",
                      text::Ms(PsToMs(s.phase_excess_ps())), " ms per step over the median)");
    }
    if (v.cross_rank() && v.matched_instances() > 0) {
      absl::StrAppend(&slowest, "; it waits ", text::Ms(PsToMs(s.slowest_sync_per_step_ps())),
                      " ms per step for other ranks in collectives");
    }
    AppendWrapped(slowest, Label("Slowest"), std::string(kLabel, ' '), width, out);
  }
  if (v.cross_rank() && !s.waited_for_host().empty()) {
    double most = 0;
    for (const tbprof::RankSummary& r : v.ranks()) most = std::max(most, r.sync_percent());
    AppendWrapped(absl::StrCat("rank ", s.waited_for_rank(), " arrives last at ",
                               s.waited_for_last_arrivals(), " of ", v.matched_instances(),
                               " collectives; the other ranks wait ",
                               text::Ms(PsToMs(s.waited_for_ps())),
                               " ms for it in all. It waits ",
                               text::Pct(s.waited_for_sync_percent()),
                               " of its own collective time (the most waiting rank ",
                               text::Pct(most), ")"),
                  Label("Waited for"), std::string(kLabel, ' '), width, out);
  }
  if (!v.cross_rank() && !v.cross_rank_reason().empty()) {
    AppendWrapped(v.cross_rank_reason(), Label("Cross-rank"), std::string(kLabel, ' '), width,
                  out);
  }
}

void AppendCollectives(const tbprof::DistributedView& v, int width, int max_rows, bool ascii,
                       std::string* out) {
  if (v.collectives_size() == 0) return;
  std::set<std::string> groups;
  for (const tbprof::CollectiveRow& row : v.collectives()) groups.insert(row.process_group());
  // Type 5, Size 9, Count 5, Lat 8, AlgBW 7 (from 66 columns), BusBW 7,
  // Sync% 6, one space before each.
  const bool wide = width >= 66;
  const int fixed = 2 + 6 + 10 + 6 + 9 + (wide ? 8 : 0) + 8 + 7;
  const int name_width = std::max(10, width - fixed);
  const int rows = std::min(v.collectives_size(), std::max(1, max_rows));
  const std::string title = absl::StrCat("Collective (", rows, " of ", v.collectives_size(), ")");
  absl::StrAppend(out, "  ",
                  PadRight(DisplayWidth(title) <= name_width ? title : "Collective", name_width),
                  PadLeft("Type", 6), PadLeft("Size", 10), PadLeft("Count", 6),
                  PadLeft(absl::StrCat("Lat ", ascii ? "us" : "\xC2\xB5s"), 9),
                  wide ? PadLeft("AlgBW", 8) : "", PadLeft("BusBW", 8), PadLeft("Sync%", 7), "\n");
  bool any_wait = false;
  for (int i = 0; i < rows; ++i) {
    const tbprof::CollectiveRow& row = v.collectives(i);
    std::string name = row.kind();
    if (groups.size() > 1) {
      absl::StrAppend(&name, " pg", row.process_group().empty() ? "?" : row.process_group());
    }
    std::string latency = absl::StrFormat("%.1f", static_cast<double>(row.avg_latency_ps()) / 1e6);
    if (row.latency_includes_wait()) {
      latency += "*";
      any_wait = true;
    }
    const int64_t matched = row.avg_sync_ps() + row.avg_transfer_ps();
    absl::StrAppend(
        out, "  ", PadRight(TruncateMiddle(name, name_width, ascii), name_width),
        PadLeft(ShortDtype(row.dtype()), 6),
        PadLeft(row.message_bytes() > 0 ? FormatBytes(row.message_bytes()) : "?", 10),
        PadLeft(absl::StrCat(row.count()), 6), PadLeft(latency, 9),
        wide ? PadLeft(Gbps(row.algbw_gbps()), 8) : "", PadLeft(Gbps(row.busbw_gbps()), 8),
        PadLeft(row.matched_calls() > 0 && matched > 0
                    ? text::Pct(100.0 * static_cast<double>(row.avg_sync_ps()) / matched)
                    : "-",
                7),
        "\n");
  }
  std::string legend = "Size: NCCL-tests' message size; BusBW, AlgBW in GB/s (1e9 B/s); Lat: "
                       "mean time of a collective once the last rank arrives.";
  if (any_wait) {
    absl::StrAppend(&legend, " * includes waiting for other ranks (lower-bound bandwidth).");
  }
  AppendWrapped(legend, "  ", "  ", width, out);
}

}  // namespace

std::vector<RankInput> RankInputsOf(const ReportInput& input) {
  std::vector<RankInput> ranks;
  ranks.reserve(input.hosts.size());
  for (const HostViews& host : input.hosts) {
    ranks.push_back({host.host, &host.views.rank_comms, host.source});
  }
  return ranks;
}

tbprof::DistributedView BuildDistributedReport(const ReportInput& input) {
  return BuildDistributedView(RankInputsOf(input));
}

std::string RenderDistributedText(const ReportInput& input, const TextReportOptions& options) {
  return RenderDistributedText(BuildDistributedReport(input), options);
}

std::string RenderDistributedText(const tbprof::DistributedView& v,
                                  const TextReportOptions& options) {
  const int width = std::max(60, options.width);
  std::string out = "\n";
  if (!v.no_data_reason().empty()) {
    AppendWrapped(v.no_data_reason(), Label("Distributed"), std::string(kLabel, ' '), width, &out);
    return out;
  }
  std::string title =
      absl::StrCat("Distributed: ", v.ranks_size(), v.ranks_size() == 1 ? " rank" : " ranks");
  if (v.world_size() > 0) absl::StrAppend(&title, " of ", v.world_size());
  if (!v.backend().empty()) absl::StrAppend(&title, ", ", v.backend());
  absl::StrAppend(&out, text::Heading(title, width, options.ascii));
  AppendRankTable(v, width, options.ascii, &out);
  AppendStraggler(v, width, &out);
  AppendCollectives(v, width, options.max_kernels, options.ascii, &out);
  for (const std::string& note : v.notes()) {
    AppendWrapped(note, Label("Note"), std::string(kLabel, ' '), width, &out);
  }
  return out;
}

absl::Status AppendDistributedJsonMember(const ReportInput& input, std::string* json_object) {
  return AppendDistributedJsonMember(BuildDistributedReport(input), json_object);
}

absl::Status AppendDistributedJsonMember(const tbprof::DistributedView& view,
                                         std::string* json_object) {
  if (json_object->empty() || json_object->back() != '}') {
    return absl::InvalidArgumentError("not a JSON object");
  }
  json_object->pop_back();
  if (json_object->back() != '{') json_object->push_back(',');
  json_object->append("\"distributed\":");
  TBPROF_RETURN_IF_ERROR(AppendMessageAsJson(view, json_object));
  json_object->push_back('}');
  return absl::OkStatus();
}

}  // namespace tbprof::views
