// The distributed view as an HTML section (report_distributed.h): drawn on
// the server side (inline SVG and tables), so it needs no data from the
// page's script; its own small script only sorts its tables.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "converters/report/html_assets.h"
#include "converters/report/html_common.h"
#include "converters/report/report_distributed.h"
#include "converters/report/report_distributed_format.h"

namespace tbprof::views {
namespace {

std::string Num(double v, int decimals) { return absl::StrFormat("%.*f", decimals, v); }



struct Part {
  const char* label;
  const char* color;
};
constexpr Part kStepParts[] = {{"Compute", "#4e79a7"},
                               {"Communication", "#e15759"},
                               {"Overlap", "#af7aa1"},
                               {"Other", "#bab0ac"}};
constexpr Part kWaitParts[] = {{"Sync (waiting for other ranks)", "#f28e2b"},
                               {"Transfer", "#59a14f"}};

// One horizontal stacked bar per row; values in ms.
struct BarRow {
  std::string label;
  std::vector<double> values;
};

std::string StackedBars(const std::vector<BarRow>& rows, const Part* parts, size_t num_parts,
                        const char* unit) {
  constexpr int kWidth = 960, kLabel = 190, kRow = 22, kTop = 4;
  double max = 0;
  for (const BarRow& r : rows) {
    double sum = 0;
    for (double v : r.values) sum += std::max(0.0, v);
    max = std::max(max, sum);
  }
  if (max <= 0) max = 1;
  const int height = kTop + static_cast<int>(rows.size()) * kRow + 6;
  std::string svg = absl::StrCat("<svg class=\"chart dist-bars\" viewBox=\"0 0 ", kWidth, " ",
                                 height, "\" role=\"img\">");
  const double scale = (kWidth - kLabel - 80) / max;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int y = kTop + static_cast<int>(i) * kRow;
    absl::StrAppend(&svg, "<text class=\"rank\" x=\"", kLabel - 8, "\" y=\"", y + 15,
                    "\" text-anchor=\"end\">", HtmlEscape(rows[i].label), "</text>");
    double x = kLabel, sum = 0;
    for (size_t p = 0; p < num_parts && p < rows[i].values.size(); ++p) {
      const double v = std::max(0.0, rows[i].values[p]);
      sum += v;
      if (v <= 0) continue;
      absl::StrAppend(&svg, "<rect x=\"", Num(x, 1), "\" y=\"", y + 3, "\" width=\"",
                      Num(v * scale, 1), "\" height=\"", kRow - 6, "\" fill=\"", parts[p].color,
                      "\"><title>", HtmlEscape(rows[i].label), " ", parts[p].label, ": ",
                      Num(v, 3), " ", unit, "</title></rect>");
      x += v * scale;
    }
    absl::StrAppend(&svg, "<text x=\"", Num(x + 6, 1), "\" y=\"", y + 15, "\">", Num(sum, 3), " ",
                    unit, "</text>");
  }
  svg += "</svg>";
  svg += "<div class=\"legend\">";
  for (size_t p = 0; p < num_parts; ++p) {
    absl::StrAppend(&svg, "<span><i style=\"background:", parts[p].color, "\"></i>",
                    parts[p].label, "</span>");
  }
  svg += "</div>";
  return svg;
}

// A table cell: shown text and sort key.
std::string Td(const std::string& shown, const std::string& key, bool num) {
  return absl::StrCat("<td", num ? " class=\"num\"" : "", " data-v=\"", HtmlEscape(key), "\">",
                      HtmlEscape(shown), "</td>");
}
std::string TdMs(int64_t ps) { return Td(Num(PsToMs(ps), 3), absl::StrCat(ps), true); }
std::string TdInt(int64_t v) { return Td(absl::StrCat(v), absl::StrCat(v), true); }

std::string Head(std::initializer_list<std::pair<const char*, bool>> cols) {
  std::string out = "<thead><tr>";
  for (const auto& [label, num] : cols) {
    absl::StrAppend(&out, "<th", num ? " class=\"num\"" : "", ">", label, "</th>");
  }
  return out + "</tr></thead>";
}

std::string RankTable(const tbprof::DistributedView& v) {
  // First a text column and data-num-col a numeric one whose text is its
  // value: the page's #selftest clicks both.
  std::string t = "<div class=\"table-wrap\"><table class=\"sortable\" data-num-col=\"3\">";
  t += Head({{"Host", false}, {"Rank", true}, {"Steps", true}, {"Step ms", true},
             {"Compute ms", true}, {"Comm ms", true}, {"Overlap ms", true}, {"Other ms", true},
             {"Collectives", true}, {"Coll ms", true}, {"Sync ms", true}, {"Transfer ms", true},
             {"Sync %", true}, {"Last in", true}, {"Others wait ms", true}});
  t += "<tbody>";
  for (const tbprof::RankSummary& r : v.ranks()) {
    absl::StrAppend(&t, "<tr>", Td(r.host(), r.host(), false), TdInt(r.rank()), TdInt(r.steps()),
                    TdMs(r.avg_step_ps()), TdMs(r.avg_compute_ps()), TdMs(r.avg_communication_ps()),
                    TdMs(r.avg_overlap_ps()), TdMs(r.avg_other_ps()), TdInt(r.collective_calls()),
                    TdMs(r.collective_ps()), TdMs(r.sync_ps()), TdMs(r.transfer_ps()),
                    r.matched_ps() > 0
                        ? Td(Num(r.sync_percent(), 1), Num(r.sync_percent(), 4), true)
                        : Td("\xE2\x80\x93", "-1", true),
                    TdInt(r.last_arrivals()), TdMs(r.others_waited_ps()), "</tr>");
  }
  return t + "</tbody></table></div>";
}

std::string CollectiveTable(const tbprof::DistributedView& v) {
  std::string t = "<div class=\"table-wrap\"><table class=\"sortable\" data-num-col=\"7\">";
  t += Head({{"Collective", false}, {"Group", false}, {"Type", false}, {"Size", true},
             {"n", true}, {"Count", true}, {"Calls", true}, {"Total ms", true},
             {"Latency \xC2\xB5s", true}, {"AlgBW GB/s", true}, {"BusBW GB/s", true},
             {"Sync %", true}, {"Metadata", false}});
  t += "<tbody>";
  for (const tbprof::CollectiveRow& row : v.collectives()) {
    const int64_t matched = row.avg_sync_ps() + row.avg_transfer_ps();
    const double sync = matched > 0 ? 100.0 * static_cast<double>(row.avg_sync_ps()) / matched : -1;
    const double latency_us = static_cast<double>(row.avg_latency_ps()) / 1e6;
    absl::StrAppend(
        &t, "<tr>", Td(row.kind(), row.kind(), false),
        Td(row.process_group().empty() ? "?" : row.process_group(), row.process_group(), false),
        Td(ShortDtype(row.dtype()), row.dtype(), false),
        Td(row.message_bytes() > 0 ? FormatBytes(row.message_bytes()) : "?",
           absl::StrCat(row.message_bytes()), true),
        TdInt(row.group_size()), TdInt(row.count()), TdInt(row.calls()), TdMs(row.total_ps()),
        Td(absl::StrCat(Num(latency_us, 1), row.latency_includes_wait() ? "*" : ""),
           Num(latency_us, 4), true),
        Td(Gbps(row.algbw_gbps()), Num(row.algbw_gbps(), 6), true),
        Td(Gbps(row.busbw_gbps()), Num(row.busbw_gbps(), 6), true),
        Td(sync >= 0 ? Num(sync, 1) : "\xE2\x80\x93", Num(sync, 4), true),
        Td(row.metadata(), row.metadata(), false), "</tr>");
  }
  return t + "</tbody></table></div>";
}

std::string SpreadTable(const tbprof::DistributedView& v) {
  std::string t = "<div class=\"table-wrap\"><table class=\"compact\">";
  t += Head({{"Step", true}, {"Ranks", true}, {"Min ms", true}, {"Median ms", true},
             {"Max ms", true}, {"Fastest rank", true}, {"Slowest rank", true}});
  t += "<tbody>";
  for (const tbprof::StepSpread& s : v.step_spread()) {
    absl::StrAppend(&t, "<tr>", TdInt(s.step_num()), TdInt(s.ranks()), TdMs(s.min_ps()),
                    TdMs(s.median_ps()), TdMs(s.max_ps()), TdInt(s.fastest_rank()),
                    TdInt(s.slowest_rank()), "</tr>");
  }
  return t + "</tbody></table></div>";
}

std::string Verdicts(const tbprof::DistributedView& v) {
  const tbprof::Straggler& s = v.straggler();
  std::string out;
  auto line = [&](const char* label, const std::string& text) {
    absl::StrAppend(&out, "<p class=\"verdict\"><b>", label, "</b> ", HtmlEscape(text), "</p>");
  };
  if (v.ranks_size() >= 2 && s.median_avg_step_ps() > 0) {
    line("Step time", absl::StrCat(Num(PsToMs(s.fastest_avg_step_ps()), 3), " to ",
                                   Num(PsToMs(s.slowest_avg_step_ps()), 3), " ms per step (median ",
                                   Num(PsToMs(s.median_avg_step_ps()), 3), " ms), spread ",
                                   Num(s.spread_percent(), 1), "%"));
    std::string slow =
        absl::StrCat("rank ", s.slowest_rank(), " (", s.slowest_host(), "), ",
                     Num(PsToMs(s.slowest_avg_step_ps() - s.median_avg_step_ps()), 3),
                     " ms per step over the median");
    if (!s.phase().empty()) {
      absl::StrAppend(&slow, "; it loses the time in ", PhaseLabel(s.phase()), " (+",
                      Num(PsToMs(s.phase_excess_ps()), 3), " ms)");
    }
    if (v.cross_rank() && v.matched_instances() > 0) {
      absl::StrAppend(&slow, "; it waits ", Num(PsToMs(s.slowest_sync_per_step_ps()), 3),
                      " ms per step for other ranks");
    }
    line("Slowest", slow);
  }
  if (v.cross_rank() && !s.waited_for_host().empty()) {
    line("Waited for", absl::StrCat("rank ", s.waited_for_rank(), " (", s.waited_for_host(),
                                    ") arrives last at ", s.waited_for_last_arrivals(), " of ",
                                    v.matched_instances(), " collectives; the other ranks wait ",
                                    Num(PsToMs(s.waited_for_ps()), 3),
                                    " ms for it in all. It waits ",
                                    Num(s.waited_for_sync_percent(), 1),
                                    "% of its own collective time"));
  }
  if (!v.cross_rank() && !v.cross_rank_reason().empty()) {
    line("Cross-rank", v.cross_rank_reason());
  }
  return out;
}

}  // namespace

std::string RenderDistributedHtml(const ReportInput& input) {
  return RenderDistributedHtml(BuildDistributedReport(input));
}

std::string RenderDistributedHtml(const tbprof::DistributedView& v) {
  std::string out = absl::StrCat("<main id=\"distributed\"><style>", kDistributedHtmlCss,
                                 "</style><section class=\"host\"><h2>Distributed</h2>");
  if (!v.no_data_reason().empty()) {
    absl::StrAppend(&out, "<div class=\"panel\"><p class=\"muted\">",
                    HtmlEscape(v.no_data_reason()), "</p></div></section></main>\n");
    return out;
  }
  absl::StrAppend(&out, "<div class=\"device\">", v.ranks_size(), " of ", v.world_size(),
                  " ranks", v.backend().empty() ? "" : absl::StrCat(", ", HtmlEscape(v.backend())),
                  "</div>");
  std::vector<BarRow> steps, waits;
  for (const tbprof::RankSummary& r : v.ranks()) {
    const std::string label = absl::StrCat("rank ", r.rank());
    steps.push_back({label,
                     {PsToMs(r.avg_compute_ps()), PsToMs(r.avg_communication_ps()),
                      PsToMs(r.avg_overlap_ps()), PsToMs(r.avg_other_ps())}});
    waits.push_back({label, {PsToMs(r.sync_ps()), PsToMs(r.transfer_ps())}});
  }
  absl::StrAppend(&out, "<div class=\"panel\"><h3>Average step per rank</h3>",
                  StackedBars(steps, kStepParts, 4, "ms"), Verdicts(v), "</div>");
  if (v.cross_rank()) {
    absl::StrAppend(&out,
                    "<div class=\"panel\"><h3>Collective time per rank: waiting vs moving "
                    "data</h3>",
                    StackedBars(waits, kWaitParts, 2, "ms"),
                    "<p class=\"muted\">A rank that rarely waits is the one the others wait "
                    "for.</p></div>");
  }
  absl::StrAppend(&out, "<div class=\"panel\"><h3>Ranks</h3>", RankTable(v), "</div>");
  absl::StrAppend(&out, "<div class=\"panel\"><h3>Collectives</h3>", CollectiveTable(v),
                  "<p class=\"muted\">Size: NCCL-tests' message size. Latency: mean time of a "
                  "collective once the last rank arrives (* includes waiting: the bandwidth is a "
                  "lower bound). BusBW = AlgBW &times; the NCCL-tests factor of the kind and "
                  "group size n.</p></div>");
  if (v.step_spread_size() > 0) {
    absl::StrAppend(&out, "<div class=\"panel\"><h3>Step time across ranks</h3>", SpreadTable(v),
                    "</div>");
  }
  if (v.notes_size() > 0) {
    out += "<div class=\"panel\"><h3>Notes</h3><ul class=\"recs\">";
    for (const std::string& note : v.notes()) {
      absl::StrAppend(&out, "<li>", HtmlEscape(note), "</li>");
    }
    out += "</ul></div>";
  }
  absl::StrAppend(&out, "</section><script>", kDistributedHtmlJs, "</script></main>\n");
  return out;
}

}  // namespace tbprof::views
