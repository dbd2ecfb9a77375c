#include "converters/views/summary/report_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::GenericRecommendation;
using tensorflow::profiler::InputPipelineAnalysisResult;
using tensorflow::profiler::PerGenericStepDetails;

constexpr double kNsPerMs = 1e6;

// The step-time categories in display order, with their share of a step.
struct CategoryDef {
  const char* key;
  const char* label;
  double (*get)(const PerGenericStepDetails&);
};

const CategoryDef kCategories[] = {
    {"device_compute", "Device compute",
     [](const PerGenericStepDetails& s) { return s.device_compute_ms(); }},
    {"device_to_device", "Device to device",
     [](const PerGenericStepDetails& s) { return s.device_to_device_ms(); }},
    {"device_collectives", "Collectives",
     [](const PerGenericStepDetails& s) { return s.device_collectives_ms(); }},
    {"host_to_device", "Host to device",
     [](const PerGenericStepDetails& s) { return s.host_to_device_ms(); }},
    {"output", "Device to host", [](const PerGenericStepDetails& s) { return s.output_ms(); }},
    {"input", "Input (host wait)",
     [](const PerGenericStepDetails& s) { return s.host_wait_input_ms(); }},
    {"kernel_launch", "Kernel launch",
     [](const PerGenericStepDetails& s) { return s.host_prepare_ms(); }},
    {"host_compute", "Host compute",
     [](const PerGenericStepDetails& s) { return s.host_compute_ms(); }},
    {"host_compile", "Compilation",
     [](const PerGenericStepDetails& s) { return s.host_compile_ms(); }},
    {"unknown", "Idle / other",
     [](const PerGenericStepDetails& s) { return s.unknown_time_ms(); }},
};

void AddStatement(absl::string_view html, std::vector<std::string>* out) {
  std::string text = HtmlToPlainText(html);
  if (text.empty()) return;
  if (std::find(out->begin(), out->end(), text) == out->end()) out->push_back(std::move(text));
}

void FillOverview(const tensorflow::profiler::OverviewPage& page, HostReport* report) {
  const auto& env = page.run_environment();
  report->device_type = env.device_type();
  report->device_count = env.device_core_count();
  const auto& rec = page.recommendation();
  report->bottleneck = rec.bottleneck();
  report->bottleneck_statement = HtmlToPlainText(rec.statement());
  if (page.has_analysis()) {
    const auto& a = page.analysis();
    report->has_overview_analysis = true;
    report->device_idle_percent = a.device_idle_time_percent();
    report->host_idle_percent = a.host_idle_time_percent();
    report->device_compute_16bit_percent = a.device_compute_16bit_percent();
    report->device_compute_32bit_percent = a.device_compute_32bit_percent();
  }
  std::vector<std::string>& recs = report->recommendations;
  GenericRecommendation generic;
  if (rec.has_recommendation() && rec.recommendation().UnpackTo(&generic)) {
    AddStatement(generic.kernel_launch_statement(), &recs);
    AddStatement(generic.all_other_statement(), &recs);
    AddStatement(generic.device_collectives_statement(), &recs);
    AddStatement(generic.precision_statement(), &recs);
  }
  AddStatement(rec.output_statement(), &recs);
  AddStatement(rec.tf_function_statement_html(), &recs);
  AddStatement(rec.eager_statement_html(), &recs);
  AddStatement(rec.outside_compilation_statement_html(), &recs);
  // The tips (host_tips, device_tips, ...) point at TensorBoard tools, which
  // a report cannot open; they are left out.
  AddStatement(page.analysis().remark_text(), &recs);
}

// The input analysis to use: the standalone one, else the overview's copy.
const InputPipelineAnalysisResult& PickInputAnalysis(const AllViews& views) {
  if (views.input_pipeline.step_details_size() > 0 || !views.overview.has_input_analysis()) {
    return views.input_pipeline;
  }
  return views.overview.input_analysis();
}

void FillSteps(const InputPipelineAnalysisResult& ipa, HostReport* report) {
  std::vector<PerGenericStepDetails> steps;
  for (const auto& any : ipa.step_details()) {
    PerGenericStepDetails details;
    if (any.UnpackTo(&details)) steps.push_back(std::move(details));
  }
  if (steps.empty()) return;
  const size_t num_categories = sizeof(kCategories) / sizeof(kCategories[0]);
  std::vector<double> sums(num_categories, 0);
  double step_sum = 0;
  for (const auto& s : steps) {
    step_sum += s.step_time_ms();
    for (size_t c = 0; c < num_categories; ++c) sums[c] += kCategories[c].get(s);
  }
  const double n = static_cast<double>(steps.size());
  const double avg_step = step_sum / n;
  std::vector<size_t> kept;
  for (size_t c = 0; c < num_categories; ++c) {
    const bool always = c == 0 || absl::string_view(kCategories[c].key) == "unknown";
    if (!always && sums[c] <= 0) continue;
    kept.push_back(c);
    StepCategoryRow row;
    row.key = kCategories[c].key;
    row.label = kCategories[c].label;
    row.avg_ms = sums[c] / n;
    row.percent = avg_step > 0 ? 100.0 * row.avg_ms / avg_step : 0;
    report->categories.push_back(std::move(row));
  }
  for (const auto& s : steps) {
    StepRow row;
    row.step_number = s.step_number();
    row.step_name = s.step_name().empty() ? absl::StrCat(s.step_number()) : s.step_name();
    row.step_time_ms = s.step_time_ms();
    for (size_t c : kept) row.category_ms.push_back(kCategories[c].get(s));
    report->steps.push_back(std::move(row));
  }
  const auto& summary = ipa.step_time_summary();
  if (ipa.has_step_time_summary() && summary.average() > 0) {
    report->avg_step_ms = summary.average();
    report->min_step_ms = summary.minimum();
    report->max_step_ms = summary.maximum();
    report->stddev_step_ms = summary.standard_deviation();
  } else {
    double lo = steps[0].step_time_ms(), hi = lo, sq = 0;
    for (const auto& s : steps) {
      lo = std::min(lo, s.step_time_ms());
      hi = std::max(hi, s.step_time_ms());
      sq += (s.step_time_ms() - avg_step) * (s.step_time_ms() - avg_step);
    }
    report->avg_step_ms = avg_step;
    report->min_step_ms = lo;
    report->max_step_ms = hi;
    report->stddev_step_ms = steps.size() > 1 ? std::sqrt(sq / (n - 1)) : 0;
  }
}

void FillInput(const InputPipelineAnalysisResult& ipa, HostReport* report) {
  report->input_percent = ipa.input_percent();
  report->output_percent = ipa.output_percent();
  report->idle_percent = ipa.idle_percent();
  report->compute_percent = ipa.compute_percent();
  const auto& rec = ipa.recommendation();
  tensorflow::profiler::BottleneckAnalysis bottleneck;
  if (rec.has_bottleneck_analysis() && rec.bottleneck_analysis().UnpackTo(&bottleneck)) {
    report->input_classification = bottleneck.input_classification();
    report->input_statement = HtmlToPlainText(bottleneck.input_statement());
  }
  report->input_next_step = HtmlToPlainText(rec.summary_next_step());
}

std::string Dims(const google::protobuf::RepeatedField<uint32_t>& dims) {
  if (dims.empty()) return "1,1,1";
  return absl::StrJoin(dims, ",");
}

void FillKernels(const tensorflow::profiler::KernelStatsDb& db, HostReport* report) {
  uint64_t total_ns = 0;
  for (const auto& r : db.reports()) {
    total_ns += r.total_duration_ns();
    report->total_kernel_launches += r.occurrences();
  }
  report->total_kernel_ms = static_cast<double>(total_ns) / kNsPerMs;
  for (const auto& r : db.reports()) {
    KernelRow row;
    row.name = r.name();
    row.op_name = r.op_name();
    row.occurrences = r.occurrences();
    row.total_ms = static_cast<double>(r.total_duration_ns()) / kNsPerMs;
    row.avg_us = r.occurrences() > 0
                     ? static_cast<double>(r.total_duration_ns()) / r.occurrences() / 1e3
                     : 0;
    row.min_us = static_cast<double>(r.min_duration_ns()) / 1e3;
    row.max_us = static_cast<double>(r.max_duration_ns()) / 1e3;
    row.percent = total_ns > 0 ? 100.0 * r.total_duration_ns() / total_ns : 0;
    row.occupancy_pct = r.occupancy_pct();
    row.uses_tensor_core = r.is_kernel_using_tensor_core();
    row.op_tensor_core_eligible = r.is_op_tensor_core_eligible();
    row.registers_per_thread = r.registers_per_thread();
    row.shared_memory_bytes = r.static_shmem_bytes() + r.dynamic_shmem_bytes();
    row.grid = Dims(r.grid_dim());
    row.block = Dims(r.block_dim());
    report->kernels.push_back(std::move(row));
  }
  std::stable_sort(report->kernels.begin(), report->kernels.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.total_ms > b.total_ms; });
}

AllocationRow RowFromMetadata(const tensorflow::profiler::MemoryActivityMetadata& m,
                              int64_t occurrences) {
  AllocationRow row;
  row.allocation_bytes = m.allocation_bytes();
  row.requested_bytes = m.requested_bytes();
  row.occurrences = occurrences;
  row.op_name = m.tf_op_name();
  row.region_type = m.region_type();
  // Special rows carry placeholders ("INVALID", "unknown"): no information.
  row.data_type = m.data_type() == "INVALID" ? "" : m.data_type();
  row.shape = m.tensor_shape() == "unknown" ? "" : m.tensor_shape();
  return row;
}

void FillMemory(const tensorflow::profiler::MemoryProfile& profile, HostReport* report) {
  std::vector<std::string> ids(profile.memory_ids().begin(), profile.memory_ids().end());
  for (const auto& [id, unused] : profile.memory_profile_per_allocator()) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  for (const std::string& id : ids) {
    auto it = profile.memory_profile_per_allocator().find(id);
    if (it == profile.memory_profile_per_allocator().end()) continue;
    const auto& per = it->second;
    const auto& summary = per.profile_summary();
    AllocatorReport a;
    a.id = id;
    a.peak_heap_bytes = summary.peak_stats().heap_allocated_bytes();
    a.peak_stack_bytes = summary.peak_stats().stack_reserved_bytes();
    a.peak_bytes = std::max<int64_t>(summary.peak_stats().peak_bytes_in_use(),
                                     a.peak_heap_bytes + a.peak_stack_bytes);
    a.peak_time_ps = summary.peak_stats_time_ps();
    a.peak_lifetime_bytes = summary.peak_bytes_usage_lifetime();
    a.capacity_bytes = summary.memory_capacity();
    a.peak_fragmentation = summary.peak_stats().fragmentation();
    for (const auto& snap : per.sampled_timeline_snapshots()) {
      a.timeline.push_back({snap.time_offset_ps(), snap.aggregation_stats().heap_allocated_bytes(),
                            snap.aggregation_stats().stack_reserved_bytes()});
    }
    for (const auto& active : per.active_allocations()) {
      if (active.snapshot_index() >= 0 &&
          active.snapshot_index() < per.memory_profile_snapshots_size()) {
        a.allocations_at_peak.push_back(RowFromMetadata(
            per.memory_profile_snapshots(active.snapshot_index()).activity_metadata(),
            active.num_occurrences()));
      } else if (active.special_index() >= 0 &&
                 active.special_index() < per.special_allocations_size()) {
        a.allocations_at_peak.push_back(RowFromMetadata(
            per.special_allocations(active.special_index()), active.num_occurrences()));
      }
    }
    std::stable_sort(a.allocations_at_peak.begin(), a.allocations_at_peak.end(),
                     [](const AllocationRow& x, const AllocationRow& y) {
                       return x.allocation_bytes * std::max<int64_t>(x.occurrences, 1) >
                              y.allocation_bytes * std::max<int64_t>(y.occurrences, 1);
                     });
    report->allocators.push_back(std::move(a));
  }
  std::stable_sort(report->allocators.begin(), report->allocators.end(),
                   [](const AllocatorReport& x, const AllocatorReport& y) {
                     return x.peak_bytes > y.peak_bytes;
                   });
}

void AddDiagnostics(const tensorflow::profiler::Diagnostics& d, HostReport* report) {
  for (const auto& e : d.errors()) AddStatement(e, &report->errors);
  for (const auto& w : d.warnings()) AddStatement(w, &report->warnings);
}

}  // namespace

HostReport BuildHostReport(const HostViews& host) {
  HostReport report;
  report.host = host.host;
  const AllViews& views = host.views;
  FillOverview(views.overview, &report);
  const InputPipelineAnalysisResult& ipa = PickInputAnalysis(views);
  FillSteps(ipa, &report);
  FillInput(ipa, &report);
  if (views.breakdown.num_steps > 0) {
    report.breakdown = std::string(BreakdownName(views.breakdown.breakdown));
    report.breakdown_note = DescribeBreakdown(
        views.breakdown, views.has_other_breakdown ? &views.other_breakdown : nullptr);
  }
  FillKernels(views.kernel_stats, &report);
  FillMemory(views.memory_profile, &report);
  report.operators = views.operators;
  report.modules = views.modules;
  report.gemm_efficiency = views.gemm_efficiency;
  report.gpu_summary = views.gpu_summary;
  AddDiagnostics(views.overview.diagnostics(), &report);
  AddDiagnostics(views.input_pipeline.diagnostics(), &report);
  for (const std::string& warning : report.warnings) {
    if (!absl::StartsWith(warning, xplane::kMemoryWithoutAddressWarning)) continue;
    for (AllocatorReport& a : report.allocators) {
      a.allocations_attributable = false;
      a.allocations_at_peak.clear();
    }
  }
  return report;
}

namespace {

std::string StepAndInput(const BreakdownSummary& s) {
  return absl::StrFormat("%.1f ms per step, input %.1f ms (%.1f%%)", s.avg_step_ms, s.input_ms,
                         s.input_percent);
}

}  // namespace

std::string DescribeBreakdown(const BreakdownSummary& shown, const BreakdownSummary* other) {
  if (shown.num_steps == 0) return "";
  const bool with_host = shown.breakdown == Breakdown::kWithHost;
  std::string text =
      with_host ? absl::StrCat("Step time includes host activity (tbprof's default): ",
                               StepAndInput(shown), "; xprof's overview counts device events "
                                                    "only")
                : absl::StrCat("Step time counts device events only, as xprof's overview does: ",
                               StepAndInput(shown), "; with host activity (tbprof's default)");
  if (other != nullptr && other->num_steps > 0) {
    absl::StrAppend(&text, ": ", StepAndInput(*other), ".");
  } else {
    absl::StrAppend(&text, " (--breakdown=", with_host ? "device-only" : "with-host",
                    " shows it).");
  }
  return text;
}

std::string HtmlToPlainText(absl::string_view html) {
  static constexpr std::pair<absl::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''},
      {"&nbsp;", ' '}};
  std::string out;
  out.reserve(html.size());
  bool in_tag = false;
  bool pending_space = false;
  auto put = [&](char c) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      pending_space = !out.empty();
      return;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  };
  for (size_t i = 0; i < html.size(); ++i) {
    const char c = html[i];
    if (in_tag) {
      if (c == '>') in_tag = false;
      continue;
    }
    if (c == '<') {
      in_tag = true;
      // Block-level tags separate words ("a<br>b" -> "a b"); inline tags
      // (<a>, <b>, <code>, ...) do not.
      size_t j = i + 1;
      if (j < html.size() && html[j] == '/') ++j;
      size_t k = j;
      while (k < html.size() && absl::ascii_isalnum(static_cast<unsigned char>(html[k]))) ++k;
      const std::string tag = absl::AsciiStrToLower(html.substr(j, k - j));
      static constexpr absl::string_view kBlockTags[] = {"br", "p",  "div", "li", "ul", "ol",
                                                         "tr", "td", "th",  "h1", "h2", "h3",
                                                         "h4", "table"};
      for (absl::string_view block : kBlockTags) {
        if (tag == block) pending_space = !out.empty();
      }
      continue;
    }
    if (c == '&') {
      bool decoded = false;
      for (const auto& [entity, ch] : kEntities) {
        if (absl::StartsWith(html.substr(i), entity)) {
          put(ch);
          i += entity.size() - 1;
          decoded = true;
          break;
        }
      }
      if (decoded) continue;
    }
    put(c);
  }
  return out;
}

std::string FormatBytes(int64_t bytes) {
  const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const bool negative = bytes < 0;
  double value = std::fabs(static_cast<double>(bytes));
  int unit = 0;
  // 1023.9 KiB would print as "1024 KiB": move up at 1023.5 already.
  while ((unit == 0 ? value >= 1024 : value >= 1023.5) && unit < 5) {
    value /= 1024;
    ++unit;
  }
  std::string number;
  if (unit == 0) {
    number = absl::StrFormat("%.0f", value);
  } else if (value >= 100) {
    number = absl::StrFormat("%.0f", value);
  } else if (value >= 10) {
    number = absl::StrFormat("%.1f", value);
  } else {
    number = absl::StrFormat("%.2f", value);
  }
  return absl::StrCat(negative ? "-" : "", number, " ", kUnits[unit]);
}

}  // namespace tbprof::views
