#include "converters/report/report_html.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "converters/report/html_common.h"
#include "converters/report/report_distributed.h"
#include "converters/report/html_assets.h"

namespace tbprof::views {
namespace {

void AddSteps(const HostReport& r, JsonBuilder* j) {
  j->Key("step").Open('{');
  j->Key("avgMs").Num(r.avg_step_ms);
  j->Key("minMs").Num(r.min_step_ms);
  j->Key("maxMs").Num(r.max_step_ms);
  j->Key("sdMs").Num(r.stddev_step_ms);
  j->Key("breakdown").Str(r.breakdown);
  j->Key("note").Str(r.breakdown_note);
  j->Close('}');
  j->Key("categories").Open('[');
  for (const StepCategoryRow& c : r.categories) {
    j->Open('{');
    j->Key("key").Str(c.key);
    j->Key("label").Str(c.label);
    j->Key("avgMs").Num(c.avg_ms);
    j->Key("pct").Num(c.percent);
    j->Close('}');
  }
  j->Close(']');
  j->Key("steps").Open('[');
  for (const StepRow& s : r.steps) {
    j->Open('{');
    j->Key("n").Int(s.step_number);
    j->Key("name").Str(s.step_name);
    j->Key("ms").Num(s.step_time_ms);
    j->Key("parts").Open('[');
    for (double v : s.category_ms) j->Num(v);
    j->Close(']');
    j->Close('}');
  }
  j->Close(']');
}

void AddKernels(const HostReport& r, const HtmlReportOptions& o, JsonBuilder* j) {
  j->Key("kernelTotalMs").Num(r.total_kernel_ms);
  j->Key("kernelLaunches").Int(static_cast<int64_t>(r.total_kernel_launches));
  j->Key("kernelReports").Int(static_cast<int64_t>(r.kernels.size()));
  j->Key("kernels").Open('[');
  const size_t shown = std::min<size_t>(r.kernels.size(), std::max(0, o.max_kernels));
  for (size_t i = 0; i < shown; ++i) {
    const KernelRow& k = r.kernels[i];
    j->Open('{');
    j->Key("name").Str(k.name);
    j->Key("op").Str(k.op_name);
    j->Key("count").Int(k.occurrences);
    j->Key("totalMs").Num(k.total_ms);
    j->Key("avgUs").Num(k.avg_us);
    j->Key("minUs").Num(k.min_us);
    j->Key("maxUs").Num(k.max_us);
    j->Key("pct").Num(k.percent);
    j->Key("occ").Num(k.occupancy_pct);
    j->Key("tc").Bool(k.uses_tensor_core);
    j->Key("eligible").Bool(k.op_tensor_core_eligible);
    j->Key("regs").Int(k.registers_per_thread);
    j->Key("smem").Int(k.shared_memory_bytes);
    j->Key("grid").Str(k.grid);
    j->Key("block").Str(k.block);
    j->Close('}');
  }
  j->Close(']');
}

// "gpus": per GPU the summary figures (percent; -1 = unknown), and the
// window they are over.
void AddGpuSummary(const tbprof::GpuSummary& s, JsonBuilder* j) {
  j->Key("gpuWindow").Str(s.window_from_steps() ? "steps" : "kernels");
  j->Key("gpus").Open('[');
  for (const tbprof::GpuDeviceSummary& d : s.devices()) {
    j->Open('{');
    j->Key("ordinal").Int(d.device_ordinal());
    j->Key("name").Str(d.name());
    j->Key("sms").Int(d.sm_count());
    j->Key("windowMs").Num(static_cast<double>(d.window_ps()) / 1e9);
    j->Key("busyMs").Num(static_cast<double>(d.busy_ps()) / 1e9);
    j->Key("utilPct").Num(d.utilization_percent());
    j->Key("smEffPct").Num(d.sm_efficiency_percent());
    j->Key("occPct").Num(d.occupancy_percent());
    j->Key("tcPct").Num(d.tensor_core_percent());
    j->Close('}');
  }
  j->Close(']');
}

void AddMemory(const HostReport& r, JsonBuilder* j) {
  j->Key("allocators").Open('[');
  for (const AllocatorReport& a : r.allocators) {
    j->Open('{');
    j->Key("id").Str(a.id);
    j->Key("peakBytes").Int(a.peak_bytes);
    j->Key("peakHeap").Int(a.peak_heap_bytes);
    j->Key("peakStack").Int(a.peak_stack_bytes);
    j->Key("peakMs").Num(static_cast<double>(a.peak_time_ps) / 1e9);
    j->Key("lifetimePeak").Int(a.peak_lifetime_bytes);
    j->Key("capacity").Int(a.capacity_bytes);
    j->Key("frag").Num(a.peak_fragmentation);
    // [time ms, heap bytes, stack bytes] per point.
    j->Key("timeline").Open('[');
    for (const MemoryPoint& p : a.timeline) {
      j->Open('[');
      j->Num(static_cast<double>(p.time_ps) / 1e9);
      j->Int(p.heap_bytes);
      j->Int(p.stack_bytes);
      j->Close(']');
    }
    j->Close(']');
    j->Key("live").Open('[');
    for (const AllocationRow& row : a.allocations_at_peak) {
      j->Open('{');
      j->Key("bytes").Int(row.allocation_bytes);
      j->Key("requested").Int(row.requested_bytes);
      j->Key("count").Int(row.occurrences);
      j->Key("op").Str(row.op_name);
      j->Key("region").Str(row.region_type);
      j->Key("dtype").Str(row.data_type);
      j->Key("shape").Str(row.shape);
      j->Close('}');
    }
    j->Close(']');
    j->Close('}');
  }
  j->Close(']');
}

double PsToMs(int64_t ps) { return static_cast<double>(ps) / 1e9; }

void AddOpKernels(const google::protobuf::RepeatedPtrField<tbprof::OpKernel>& kernels,
                  JsonBuilder* j) {
  j->Key("kernels").Open('[');
  for (const tbprof::OpKernel& k : kernels) {
    j->Open('{');
    j->Key("name").Str(k.name());
    j->Key("count").Int(k.occurrences());
    j->Key("ms").Num(PsToMs(k.total_ps()));
    j->Key("tc").Bool(k.uses_tensor_core());
    j->Close('}');
  }
  j->Close(']');
}

void AddOpRowFields(const tbprof::OpRow& row, JsonBuilder* j) {
  j->Key("name").Str(row.name());
  j->Key("calls").Int(row.calls());
  j->Key("hostSelfMs").Num(PsToMs(row.host_self_ps()));
  j->Key("hostTotalMs").Num(PsToMs(row.host_total_ps()));
  j->Key("devSelfMs").Num(PsToMs(row.device_self_ps()));
  j->Key("devTotalMs").Num(PsToMs(row.device_total_ps()));
  j->Key("tcSelfMs").Num(PsToMs(row.device_self_tensor_core_ps()));
  // Tensor Core share of self time; -1 for ops that cannot use them.
  j->Key("tcPct").Num(!row.tensor_core_eligible() ? -1
                      : row.device_self_ps() > 0
                          ? 100.0 * row.device_self_tensor_core_ps() / row.device_self_ps()
                          : 0);
}

// The operator view: rows by name (with kernels and call stacks) and by
// input shape, at most options.max_ops each.
void AddOperators(const tbprof::OperatorStats& s, const HtmlReportOptions& o, JsonBuilder* j) {
  j->Key("ops").Open('{');
  j->Key("noData").Str(s.no_data_reason());
  j->Key("source").Str(s.op_source());
  j->Key("hostOps").Int(s.host_ops());
  j->Key("deviceMs").Num(PsToMs(s.device_time_ps()));
  j->Key("attributedMs").Num(PsToMs(s.attributed_device_time_ps()));
  j->Key("unattributed").Open('[');
  for (const tbprof::UnattributedDeviceTime& u : s.unattributed()) {
    if (u.events() == 0) continue;
    j->Open('{');
    j->Key("reason").Str(u.reason());
    j->Key("explanation").Str(u.explanation());
    j->Key("events").Int(u.events());
    j->Key("ms").Num(PsToMs(u.time_ps()));
    AddOpKernels(u.kernels(), j);
    j->Close('}');
  }
  j->Close(']');
  j->Key("rows").Open('[');
  for (int i = 0; i < s.ops_size() && i < o.max_ops; ++i) {
    const tbprof::OpRow& row = s.ops(i);
    j->Open('{');
    AddOpRowFields(row, j);
    j->Key("byNameMs").Num(PsToMs(row.device_self_by_name_ps()));
    AddOpKernels(row.kernels(), j);
    j->Key("stacks").Open('[');
    for (const tbprof::OpCallStack& c : row.call_stacks()) {
      j->Open('{');
      j->Key("stack").Str(c.stack());
      j->Key("calls").Int(c.calls());
      j->Key("devMs").Num(PsToMs(c.device_total_ps()));
      j->Key("hostMs").Num(PsToMs(c.host_total_ps()));
      j->Close('}');
    }
    j->Close(']');
    j->Close('}');
  }
  j->Close(']');
  j->Key("opCount").Int(s.ops_size());
  j->Key("shapes").Open('[');
  for (int i = 0; i < s.ops_by_input_shape_size() && i < o.max_ops; ++i) {
    const tbprof::OpRow& row = s.ops_by_input_shape(i);
    j->Open('{');
    AddOpRowFields(row, j);
    j->Key("shapes").Str(row.input_shapes());
    j->Key("types").Str(row.input_types());
    j->Close('}');
  }
  j->Close(']');
  j->Key("notes").Open('[');
  for (const std::string& n : s.notes()) j->Str(n);
  j->Close(']');
  j->Close('}');
}

void AddModules(const tbprof::ModuleStats& m, const HtmlReportOptions& o, JsonBuilder* j) {
  j->Key("modules").Open('{');
  j->Key("noData").Str(m.no_data_reason());
  j->Key("outsideMs").Num(PsToMs(m.device_time_outside_modules_ps()));
  j->Key("count").Int(m.modules_size());
  j->Key("nodes").Open('[');
  // Depth first, so a prefix keeps every shown node's parent.
  for (int i = 0; i < m.modules_size() && i < o.max_modules; ++i) {
    const tbprof::ModuleNode& n = m.modules(i);
    j->Open('{');
    j->Key("name").Str(n.name());
    j->Key("path").Str(n.path());
    j->Key("parent").Int(n.parent());
    j->Key("depth").Int(n.depth());
    j->Key("calls").Int(n.occurrences());
    j->Key("hostMs").Num(PsToMs(n.host_total_ps()));
    j->Key("hostSelfMs").Num(PsToMs(n.host_self_ps()));
    j->Key("devSelfMs").Num(PsToMs(n.device_self_ps()));
    j->Key("devTotalMs").Num(PsToMs(n.device_total_ps()));
    j->Key("ops").Int(n.ops());
    j->Close('}');
  }
  j->Close(']');
  j->Key("notes").Open('[');
  for (const std::string& n : m.notes()) j->Str(n);
  j->Close(']');
  j->Close('}');
}

void AddGemmRow(const tbprof::GemmOpEfficiency& e, JsonBuilder* j) {
  j->Open('{');
  j->Key("name").Str(e.name());
  j->Key("shapes").Str(e.input_shapes());
  j->Key("dtype").Str(e.dtype());
  j->Key("calls").Int(e.calls());
  j->Key("gflopPerCall").Num(e.flops_per_call() / 1e9);
  j->Key("ms").Num(PsToMs(e.device_time_ps()));
  j->Key("tflops").Num(e.achieved_tflops());
  j->Key("peak").Num(e.peak_tflops());
  j->Key("peakKind").Str(e.peak_kind());
  j->Key("peakPct").Num(e.peak_tflops() > 0 ? 100 * e.fraction_of_peak() : -1);
  j->Key("timePct").Num(e.percent_of_device_time());
  j->Key("device").Int(e.device_ordinal());
  j->Close('}');
}

void AddGemm(const tbprof::GemmEfficiency& g, const HtmlReportOptions& o, JsonBuilder* j) {
  j->Key("gemm").Open('{');
  j->Key("noData").Str(g.no_data_reason());
  j->Key("totalFlops").Num(g.total_flops());
  j->Key("deviceMs").Num(PsToMs(g.device_time_ps()));
  j->Key("devices").Open('[');
  for (const tbprof::DevicePeak& d : g.devices()) {
    j->Open('{');
    j->Key("ordinal").Int(d.device_ordinal());
    j->Key("name").Str(d.name());
    j->Key("arch").Str(d.architecture());
    j->Key("sms").Int(d.sm_count());
    j->Key("clockMhz").Num(d.clock_mhz());
    j->Key("clockSource").Str(d.clock_source());
    j->Key("fp16").Num(d.fp16_tensor_tflops());
    j->Key("tf32").Num(d.tf32_tensor_tflops());
    j->Key("fp32").Num(d.fp32_tflops());
    j->Key("fp8").Num(d.fp8_tensor_tflops());
    j->Key("source").Str(d.source());
    j->Close('}');
  }
  j->Close(']');
  j->Key("rows").Open('[');
  for (int i = 0; i < g.ops_size() && i < o.max_ops; ++i) AddGemmRow(g.ops(i), j);
  j->Close(']');
  j->Key("worst").Open('[');
  for (const tbprof::GemmOpEfficiency& e : g.worst()) AddGemmRow(e, j);
  j->Close(']');
  j->Key("notes").Open('[');
  for (const std::string& n : g.notes()) j->Str(n);
  j->Close(']');
  j->Close('}');
}

void AddHost(const HostReport& r, const HtmlReportOptions& o, JsonBuilder* j) {
  j->Open('{');
  j->Key("host").Str(r.host);
  j->Key("deviceType").Str(r.device_type);
  j->Key("deviceCount").Int(r.device_count);
  j->Key("bottleneck").Str(r.bottleneck);
  j->Key("statement").Str(r.bottleneck_statement);
  j->Key("recommendations").StrList(r.recommendations);
  j->Key("hasAnalysis").Bool(r.has_overview_analysis);
  j->Key("deviceIdlePct").Num(r.device_idle_percent);
  j->Key("hostIdlePct").Num(r.host_idle_percent);
  j->Key("fp16Pct").Num(r.device_compute_16bit_percent);
  j->Key("fp32Pct").Num(r.device_compute_32bit_percent);
  AddGpuSummary(r.gpu_summary, j);
  AddSteps(r, j);
  j->Key("input").Open('{');
  j->Key("classification").Str(r.input_classification);
  j->Key("statement").Str(r.input_statement);
  j->Key("nextStep").Str(r.input_next_step);
  j->Key("inputPct").Num(r.input_percent);
  j->Key("outputPct").Num(r.output_percent);
  j->Key("idlePct").Num(r.idle_percent);
  j->Key("computePct").Num(r.compute_percent);
  j->Close('}');
  AddKernels(r, o, j);
  AddMemory(r, j);
  AddOperators(r.operators, o, j);
  AddModules(r.modules, o, j);
  AddGemm(r.gemm_efficiency, o, j);
  j->Key("errors").StrList(r.errors);
  j->Key("warnings").StrList(r.warnings);
  j->Close('}');
}

}  // namespace

void AppendHostData(const HostReport& report, const HtmlReportOptions& options,
                    JsonBuilder* json) {
  AddHost(report, options, json);
}

std::string RenderHtmlDataHead(const std::string& source, const HtmlReportOptions& options) {
  JsonBuilder j;
  j.Open('{');
  j.Key("source").Str(source);
  j.Key("generator").Str(options.generator);
  j.Key("hosts").Open('[');
  return ScriptSafeJson(j.Take());
}

std::string RenderHtmlHostData(const HostReport& report, const HtmlReportOptions& options) {
  JsonBuilder j;
  AddHost(report, options, &j);
  return ScriptSafeJson(j.Take());
}

std::string RenderHtmlReportData(const std::string& source,
                                 const std::vector<HostReport>& reports,
                                 const HtmlReportOptions& options) {
  std::string out = RenderHtmlDataHead(source, options);
  for (size_t i = 0; i < reports.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += RenderHtmlHostData(reports[i], options);
  }
  out += "]}";
  return out;
}

std::string RenderAppendicesHtml(const std::vector<ReportAppendix>& appendices) {
  std::string out;
  for (const ReportAppendix& appendix : appendices) {
    absl::StrAppend(&out, "<main class=\"appendix\" id=\"appendix-", HtmlEscape(appendix.key),
                    "-", HtmlEscape(appendix.host), "\" data-title=\"", HtmlEscape(appendix.title),
                    "\"><h2>", HtmlEscape(appendix.host), "</h2>",
                    appendix.html, "</main>\n");
  }
  return out;
}

std::string RenderHtmlPageStart(const std::string& source) {
  return absl::StrCat(kHtmlPageHead, "<title>tbprof report: ", HtmlEscape(source),
                      "</title>\n<style>\n", kReportHtmlCss,
                      "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>",
                      "This report draws its charts with JavaScript; please enable it.</noscript>"
                      "</div>\n");
}

std::string RenderHtmlPageDataStart(const HtmlReportOptions& options) {
  return absl::StrCat("<footer>Generated by ", HtmlEscape(options.generator),
                      ". Self-contained: no network access.</footer>\n",
                      "<div id=\"render-status\" hidden data-status=\"pending\"></div>\n",
                      "<script type=\"application/json\" id=\"tbprof-data\">");
}

std::string RenderHtmlPageEnd() {
  return absl::StrCat("</script>\n<script>\n", kHtmlJsPrelude, kReportHtmlJs, kReportOpsHtmlJs, kHtmlJsEpilogue,
                      "</script>\n</body>\n</html>\n");
}

}  // namespace tbprof::views
