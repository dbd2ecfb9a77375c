// Text and JSON renderings of XSpaceDiagnosis (declared in inspect_diagnosis.h).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"

namespace tbprof::views {
namespace {

constexpr size_t kMaxLinesShown = 12;
constexpr size_t kMaxStatsShown = 10;
constexpr size_t kMaxMessagesShown = 5;

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += "\"";
  return out;
}

std::string JsonStringList(const std::vector<std::string>& list) {
  std::vector<std::string> items;
  for (const std::string& s : list) items.push_back(JsonString(s));
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}

void AppendMessages(std::string* out, absl::string_view title,
                    const std::vector<std::string>& messages) {
  if (messages.empty()) return;
  absl::StrAppend(out, "\n", title, " (", messages.size(), "):\n");
  for (size_t i = 0; i < messages.size() && i < kMaxMessagesShown; ++i) {
    absl::StrAppend(out, "  - ", messages[i], "\n");
  }
  if (messages.size() > kMaxMessagesShown) {
    absl::StrAppend(out, "  ... and ", messages.size() - kMaxMessagesShown, " more\n");
  }
}

}  // namespace

std::string FormatDiagnosisText(const XSpaceDiagnosis& d, absl::string_view title) {
  std::string out = absl::StrCat(title, "\n");
  if (!d.hostnames.empty()) absl::StrAppend(&out, "hostnames: ", absl::StrJoin(d.hostnames, ", "), "\n");

  absl::StrAppend(&out, "\nPlanes (", d.planes.size(), "):\n");
  for (const PlaneSummary& p : d.planes) {
    absl::StrAppendFormat(&out, "  %-28s id %-3d %5s lines %12s events %12s event stats\n",
                          absl::StrCat("\"", p.name, "\""), p.id, FormatCount(p.num_lines),
                          FormatCount(p.num_events), FormatCount(p.num_event_stats));
    for (size_t i = 0; i < p.lines.size() && i < kMaxLinesShown; ++i) {
      const LineSummary& line = p.lines[i];
      absl::StrAppendFormat(&out, "      line %-12d %-40s %10s events\n", line.id,
                            absl::StrCat("\"", line.name, "\""), FormatCount(line.num_events));
    }
    if (p.lines.size() > kMaxLinesShown) {
      absl::StrAppend(&out, "      ... and ", p.lines.size() - kMaxLinesShown, " more lines\n");
    }
    if (!p.stat_counts.empty()) {
      std::vector<std::string> stats;
      for (size_t i = 0; i < p.stat_counts.size() && i < kMaxStatsShown; ++i) {
        stats.push_back(absl::StrCat(p.stat_counts[i].first, " ", FormatCount(p.stat_counts[i].second)));
      }
      if (p.stat_counts.size() > kMaxStatsShown) {
        stats.push_back(absl::StrCat("+", p.stat_counts.size() - kMaxStatsShown, " more"));
      }
      absl::StrAppend(&out, "      stats: ", absl::StrJoin(stats, ", "), "\n");
    }
    if (p.num_plane_stats > 0) {
      absl::StrAppend(&out, "      plane stats: ", p.num_plane_stats, "\n");
    }
  }

  absl::StrAppend(&out, "\nSteps:\n");
  absl::StrAppend(&out, "  step markers (host roots: `_r`/step_num, ProfilerStep#N): ",
                  FormatCount(d.step_roots), "\n");
  if (d.gpu_planes > 0) {
    absl::StrAppend(&out, "  ... with kernel launches nested on the same thread:      ",
                    FormatCount(d.step_roots_with_launches), "\n");
    absl::StrAppend(&out, "  ... with GPU compute linked by correlation_id:           ",
                    FormatCount(d.steps_with_device_work), "\n");
  }
  if (d.device_step_line_events > 0) {
    absl::StrAppend(&out, "  events on device 'Steps' lines:                           ",
                    FormatCount(d.device_step_line_events), "\n");
  }

  absl::StrAppend(&out, "\nGPU:\n");
  if (d.gpu_planes == 0) {
    absl::StrAppend(&out, "  no /device:GPU:* plane\n");
  } else {
    absl::StrAppend(&out, "  planes: ", d.gpu_planes, ", events: ", FormatCount(d.device_events),
                    " (", FormatCount(d.device_events_with_kernel_details),
                    " with kernel_details, ", FormatCount(d.device_events_with_correlation),
                    " with correlation_id, ", FormatCount(d.device_events_linked),
                    " linked to a host launch, ", FormatCount(d.device_events_with_op),
                    " with tf_op/hlo_op)\n");
    absl::StrAppend(&out, "  host events with correlation_id (launches): ",
                    FormatCount(d.host_events_with_correlation), "\n");
  }
  absl::StrAppend(&out, "\nMemory:\n  MemoryAllocation: ", FormatCount(d.memory_allocations),
                  ", MemoryDeallocation: ", FormatCount(d.memory_deallocations), "\n");

  absl::StrAppend(&out, "\nTensorBoard profile tools (xprof 2.24 lists: ",
                  absl::StrJoin(d.xprof_tool_names, ", "), "):\n");
  for (const ToolDiagnosis& tool : d.tools) {
    absl::StrAppendFormat(&out, "  %-24s %-8s %s\n", tool.tool, tool.has_data ? "data" : "EMPTY",
                          tool.detail);
  }
  AppendMessages(&out, "Notes", d.notes);
  AppendMessages(&out, "XSpace errors", d.errors);
  AppendMessages(&out, "XSpace warnings", d.warnings);
  return out;
}

std::string FormatDiagnosisJson(const XSpaceDiagnosis& d, absl::string_view source) {
  std::vector<std::string> planes;
  for (const PlaneSummary& p : d.planes) {
    std::vector<std::string> lines, stats;
    for (const LineSummary& line : p.lines) {
      lines.push_back(absl::StrCat("{\"id\":", line.id, ",\"name\":", JsonString(line.name),
                                   ",\"events\":", line.num_events, "}"));
    }
    for (const auto& [name, count] : p.stat_counts) {
      stats.push_back(absl::StrCat(JsonString(name), ":", count));
    }
    planes.push_back(absl::StrCat(
        "{\"id\":", p.id, ",\"name\":", JsonString(p.name), ",\"lines\":", p.num_lines,
        ",\"events\":", p.num_events, ",\"event_stats\":", p.num_event_stats,
        ",\"plane_stats\":", p.num_plane_stats, ",\"event_metadata\":", p.num_event_metadata,
        ",\"stat_metadata\":", p.num_stat_metadata, ",\"line_list\":[", absl::StrJoin(lines, ","),
        "],\"stat_counts\":{", absl::StrJoin(stats, ","), "}}"));
  }
  std::vector<std::string> tools;
  for (const ToolDiagnosis& tool : d.tools) {
    tools.push_back(absl::StrCat("{\"tool\":", JsonString(tool.tool),
                                 ",\"has_data\":", tool.has_data ? "true" : "false",
                                 ",\"detail\":", JsonString(tool.detail), "}"));
  }
  return absl::StrCat(
      "{\"source\":", JsonString(source), ",\"hostnames\":", JsonStringList(d.hostnames),
      ",\"xprof_tool_names\":", JsonStringList(d.xprof_tool_names),
      ",\"planes\":[", absl::StrJoin(planes, ","), "]",
      ",\"steps\":{\"step_roots\":", d.step_roots,
      ",\"with_launches\":", d.step_roots_with_launches,
      ",\"with_device_work\":", d.steps_with_device_work,
      ",\"device_step_line_events\":", d.device_step_line_events,
      ",\"has_group_id\":", d.has_group_id ? "true" : "false", "}",
      ",\"gpu\":{\"planes\":", d.gpu_planes, ",\"events\":", d.device_events,
      ",\"with_kernel_details\":", d.device_events_with_kernel_details,
      ",\"with_correlation_id\":", d.device_events_with_correlation,
      ",\"linked\":", d.device_events_linked, ",\"with_op\":", d.device_events_with_op,
      ",\"host_launches\":", d.host_events_with_correlation, "}",
      ",\"memory\":{\"allocations\":", d.memory_allocations,
      ",\"deallocations\":", d.memory_deallocations, "}",
      ",\"tools\":[", absl::StrJoin(tools, ","), "]",
      ",\"notes\":", JsonStringList(d.notes), ",\"errors\":", JsonStringList(d.errors),
      ",\"warnings\":", JsonStringList(d.warnings), "}\n");
}

}  // namespace tbprof::views
