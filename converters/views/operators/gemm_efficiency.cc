#include "converters/views/operators/gemm_efficiency.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/views/operators/gemm_flops.h"
#include "converters/views/operators/gpu_peak_flops.h"

namespace tbprof::views {
namespace {

using tbprof::GemmOpEfficiency;

// The parsed record_shapes stats of a call: parsed once per distinct text,
// found once per OpTree::inputs entry by text and then by entry.
class InputsCache {
 public:
  explicit InputsCache(const OpTree& tree) : tree_(tree), of_entry_(tree.inputs.size(), nullptr) {}

  const OpInputs& Get(const OpCall& call) {
    const OpInputs*& cached = of_entry_[call.inputs];
    if (cached != nullptr) return *cached;
    const OpInputsText& c = tree_.InputsOf(call);
    auto [it, inserted] = by_text_.try_emplace(
        std::make_tuple(c.input_dims, c.input_types, c.concrete_inputs), parsed_.size());
    if (inserted) {
      OpInputs& parsed = parsed_.emplace_back();
      ParseInputDims(c.input_dims, &parsed.dims);
      ParseStringList(c.input_types, &parsed.types);
      ParseStringList(c.concrete_inputs, &parsed.concrete);
    }
    cached = &parsed_[it->second];
    return *cached;
  }

 private:
  const OpTree& tree_;
  std::vector<const OpInputs*> of_entry_;  // By OpTree::inputs index; null: not yet.
  std::deque<OpInputs> parsed_;            // Stable addresses.
  absl::flat_hash_map<std::tuple<absl::string_view, absl::string_view, absl::string_view>, size_t>
      by_text_;
};

struct Group {
  int32_t name = 0;
  absl::string_view dims, types;
  std::string dtype;
  int64_t calls = 0, device_ps = 0;
  double flops = 0, flops_per_call = 0;
  int32_t gpu = -1;
  bool tensor_cores = false;
};

void FillDevicePeak(const OpTreeGpu& gpu, const GpuPeak& peak, tbprof::DevicePeak* out) {
  out->set_device_ordinal(static_cast<int32_t>(gpu.ordinal));
  out->set_name(gpu.spec.name);
  out->set_architecture(peak.architecture);
  out->set_sm_count(peak.sm_count);
  out->set_clock_mhz(peak.clock_mhz);
  out->set_clock_source(peak.clock_source);
  out->set_fp16_tensor_tflops(peak.Tflops(PeakUnit::kFp16Tensor));
  out->set_tf32_tensor_tflops(peak.Tflops(PeakUnit::kTf32Tensor));
  out->set_fp32_tflops(peak.Tflops(PeakUnit::kFp32));
  out->set_fp8_tensor_tflops(peak.Tflops(PeakUnit::kFp8Tensor));
  out->set_int8_tensor_tops(peak.Tflops(PeakUnit::kInt8Tensor));
  out->set_source(peak.source);
}

}  // namespace

tbprof::GemmEfficiency GemmEfficiencyFromTree(const OpTree& tree,
                                              const OperatorStatsOptions& options) {
  tbprof::GemmEfficiency out;
  const size_t n = tree.ops.size();
  std::vector<FlopOp> kind_of_name(tree.names.size());
  for (size_t i = 0; i < tree.names.size(); ++i) kind_of_name[i] = FlopOpOf(tree.names[i].name);
  auto kind = [&](size_t op) { return kind_of_name[tree.ops[op].name]; };

  // The GEMM / convolution calls, calls with one inside them, gradients of
  // 1.9-style backward calls (by call: only convolution backward calls have
  // any), and output shapes learned from backward calls.
  std::vector<int32_t> flop_calls;
  std::vector<bool> has_flop_inside(n, false);
  absl::flat_hash_map<int32_t, int> grads;
  ConvOutputShapes conv_outputs;
  InputsCache inputs(tree);
  // Which kinds occur at all (by name): without GEMM / convolution names
  // no call needs a look, and without convolution backward names no call
  // needs its parent's (a random access per call).
  auto any_name_of = [&](auto&& pred) {
    return std::any_of(kind_of_name.begin(), kind_of_name.end(), pred);
  };
  const bool any_flop_op = any_name_of([](FlopOp k) { return k != FlopOp::kNone; });
  const bool any_conv_backward =
      any_name_of([](FlopOp k) { return k == FlopOp::kConvolutionBackward; });
  for (size_t i = 0; any_flop_op && i < n; ++i) {
    const OpCall& c = tree.ops[i];
    if (any_conv_backward && c.parent >= 0 && kind(c.parent) == FlopOp::kConvolutionBackward) {
      absl::string_view name = tree.names[c.name].name;
      if (absl::EndsWith(name, "_backward_input") || absl::EndsWith(name, "_backward_weight")) {
        ++grads[c.parent];
      }
    }
    if (kind(i) == FlopOp::kNone) continue;
    flop_calls.push_back(static_cast<int32_t>(i));
    if (kind(i) == FlopOp::kConvolutionBackward) {
      conv_outputs.AddBackward(tree.names[c.name].name, inputs.Get(c).dims);
    }
    for (int32_t p = c.parent; p >= 0 && !has_flop_inside[p]; p = tree.ops[p].parent) {
      has_flop_inside[p] = true;
    }
  }
  const int64_t gemm_calls = static_cast<int64_t>(flop_calls.size());

  // FLOPs per innermost GEMM / convolution call, grouped.
  std::map<std::string, int64_t> unknown;  // Why FLOPs are unknown -> calls.
  int64_t without_device_time = 0;
  std::vector<Group> groups;
  absl::flat_hash_map<std::tuple<int32_t, absl::string_view, absl::string_view>, size_t> index;
  // (name, OpTree::inputs index) -> groups index: most calls skip hashing texts.
  absl::flat_hash_map<std::pair<int32_t, uint32_t>, size_t> group_of_call;
  for (const int32_t i : flop_calls) {
    if (has_flop_inside[i]) continue;
    const OpCall& c = tree.ops[i];
    int grad = 0;
    if (kind(i) == FlopOp::kConvolutionBackward) {
      auto it = grads.find(i);
      if (it != grads.end()) grad = it->second;
    }
    const FlopCount count = CountFlops(tree.names[c.name].name, inputs.Get(c), &conv_outputs, grad);
    if (count.flops <= 0) {
      ++unknown[count.why_not.empty() ? "zero-size shapes" : count.why_not];
      continue;
    }
    const OpDeviceTime device = tree.DeviceOf(c);
    if (device.total_ps <= 0) {
      ++without_device_time;
      continue;
    }
    auto [cached, miss] = group_of_call.try_emplace(std::make_pair(c.name, c.inputs), 0);
    if (miss) {
      const OpInputsText& text = tree.InputsOf(c);
      auto [it, inserted] = index.try_emplace(
          std::make_tuple(c.name, text.input_dims, text.input_types), groups.size());
      if (inserted) {
        Group& g = groups.emplace_back();
        g.name = c.name;
        g.dims = text.input_dims;
        g.types = text.input_types;
        g.dtype = count.dtype;
        g.flops_per_call = count.flops;
      }
      cached->second = it->second;
    }
    Group& g = groups[cached->second];
    ++g.calls;
    g.flops += count.flops;
    g.device_ps += device.total_ps;
    if (g.gpu < 0 && device.gpu >= 0) g.gpu = device.gpu;
    if (device.total_tc_ps > 0) g.tensor_cores = true;
  }

  // Peaks of the GPUs.
  std::vector<std::optional<GpuPeak>> peaks(tree.gpus.size());
  for (size_t g = 0; g < tree.gpus.size(); ++g) {
    std::string why_not;
    peaks[g] = PeakFlopsOf(tree.gpus[g].spec, &why_not);
    if (peaks[g].has_value()) {
      FillDevicePeak(tree.gpus[g], *peaks[g], out.add_devices());
    } else {
      out.add_notes(absl::StrCat("GPU ", tree.gpus[g].ordinal, ": ", why_not,
                                 ", so no fraction of peak"));
    }
  }

  std::vector<GemmOpEfficiency> rows;
  for (const Group& g : groups) {
    GemmOpEfficiency& row = rows.emplace_back();
    row.set_name(std::string(tree.names[g.name].name));
    row.set_input_shapes(std::string(g.dims));
    row.set_input_types(std::string(g.types));
    row.set_dtype(g.dtype);
    row.set_calls(g.calls);
    row.set_flops_per_call(g.flops_per_call);
    row.set_total_flops(g.flops);
    row.set_device_time_ps(g.device_ps);
    row.set_achieved_tflops(g.flops / static_cast<double>(g.device_ps));  // FLOP/ps = TFLOP/s.
    row.set_percent_of_device_time(tree.device_ps > 0 ? 100.0 * g.device_ps / tree.device_ps : 0);
    if (g.gpu >= 0) {
      row.set_device_ordinal(static_cast<int32_t>(tree.gpus[g.gpu].ordinal));
      const std::optional<PeakUnit> unit = PeakUnitForDtype(g.dtype, g.tensor_cores);
      if (peaks[g.gpu].has_value() && unit.has_value() && peaks[g.gpu]->Tflops(*unit) > 0) {
        row.set_peak_tflops(peaks[g.gpu]->Tflops(*unit));
        row.set_peak_kind(std::string(PeakUnitName(*unit)));
        row.set_fraction_of_peak(row.achieved_tflops() / row.peak_tflops());
      }
    }
    out.set_total_flops(out.total_flops() + g.flops);
    out.set_device_time_ps(out.device_time_ps() + g.device_ps);
  }
  std::sort(rows.begin(), rows.end(), [](const GemmOpEfficiency& a, const GemmOpEfficiency& b) {
    return std::make_tuple(-a.device_time_ps(), a.name(), a.input_shapes(), a.input_types()) <
           std::make_tuple(-b.device_time_ps(), b.name(), b.input_shapes(), b.input_types());
  });
  std::vector<const GemmOpEfficiency*> expensive;
  for (const GemmOpEfficiency& row : rows) {
    if (row.peak_tflops() > 0 && row.percent_of_device_time() >= options.expensive_percent) {
      expensive.push_back(&row);
    }
  }
  std::stable_sort(expensive.begin(), expensive.end(),
                   [](const GemmOpEfficiency* a, const GemmOpEfficiency* b) {
                     return a->fraction_of_peak() < b->fraction_of_peak();
                   });
  for (size_t i = 0; i < expensive.size() && i < static_cast<size_t>(options.worst_rows); ++i) {
    *out.add_worst() = *expensive[i];
  }
  if (rows.size() > static_cast<size_t>(options.max_rows)) rows.resize(options.max_rows);
  for (GemmOpEfficiency& row : rows) *out.add_ops() = std::move(row);

  for (const auto& [why, calls] : unknown) {
    out.add_notes(absl::StrCat(calls, " GEMM/convolution ", calls == 1 ? "call has" : "calls have",
                               " no FLOP count: ", why));
  }
  int64_t over_peak = 0;
  for (const tbprof::GemmOpEfficiency& row : out.ops()) over_peak += row.fraction_of_peak() > 1;
  if (over_peak > 0) {
    out.add_notes(absl::StrCat(
        over_peak, over_peak == 1 ? " row runs" : " rows run",
        " above 100% of peak: the FLOPs counted are those of the direct algorithm, and cuDNN's "
        "Winograd and FFT convolutions do fewer, so their rate is an effective one"));
  }
  if (without_device_time > 0) {
    out.add_notes(absl::StrCat(without_device_time,
                               " GEMM/convolution calls launched no device work that the trace "
                               "attributes to them, so they have no achieved rate"));
  }
  if (out.ops_size() == 0) {
    if (tree.ops_with_input_dims == 0) {
      out.set_no_data_reason(
          tree.ops.empty() ? "no framework ops in this profile"
                           : "no input shapes: profile with torch.profiler.profile("
                             "record_shapes=True) to count GEMM and convolution FLOPs");
    } else if (gemm_calls == 0) {
      out.set_no_data_reason(
          "no GEMM or convolution ops (aten::mm, addmm, bmm, linear, conv*, ...)");
    } else {
      out.set_no_data_reason(
          "no GEMM or convolution call has both a FLOP count and device time (see notes)");
    }
  }
  return out;
}

}  // namespace tbprof::views
