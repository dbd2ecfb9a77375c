#include "converters/views/steps/event_type_span.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "converters/views/common/precision.h"

namespace tbprof::views {

absl::string_view EventTypeName(EventType type) {
  switch (type) {
    case kUnknownTime: return "unknown_time";
    case kHostCompute: return "host_compute";
    case kHostPreprocess: return "host_preprocess";
    case kHostPostprocess: return "host_postprocess";
    case kHostBatchFormation: return "host_batch_formation";
    case kHostRuntime: return "host_runtime";
    case kHostCompile: return "host_compile";
    case kHostToHost: return "host_to_host";
    case kHostToDevice: return "host_to_device";
    case kHostPrepare: return "host_prepare";
    case kDeviceCollectives: return "device_collectives";
    case kHostWaitInput: return "host_wait_input";
    case kDeviceToDevice: return "device_to_device";
    case kDeviceToHost: return "device_to_host";
    case kDeviceCompute32: return "device_compute_32";
    case kDeviceCompute16: return "device_compute_16";
    case kDeviceWaitDevice: return "device_wait_device";
    case kDeviceWaitHost: return "device_wait_host";
  }
  return "unexpected";
}

namespace {

// Memcpy kinds are recognised only on names that do not parse as
// "name:Type" ops, i.e. names without ':'.
bool IsMemcpyName(absl::string_view name, absl::string_view kind_prefix) {
  return absl::StartsWithIgnoreCase(name, kind_prefix) &&
         name.find(':') == absl::string_view::npos;
}

}  // namespace

EventType ClassifyGpuEvent(absl::string_view name, absl::string_view tensor_shapes) {
  if (IsMemcpyName(name, "MemcpyHToD")) return kHostToDevice;
  if (IsMemcpyName(name, "MemcpyDToH")) return kDeviceToHost;
  if (IsMemcpyName(name, "MemcpyDToD")) return kDeviceToDevice;
  if (absl::StartsWithIgnoreCase(name, "nccl")) return kDeviceCollectives;
  switch (PrecisionOfText(tensor_shapes)) {
    case PrecisionHint::kReduced: return kDeviceCompute16;
    case PrecisionHint::kFull: return kDeviceCompute32;
    case PrecisionHint::kUnknown: break;
  }
  return IsReducedPrecisionKernel(name) ? kDeviceCompute16 : kDeviceCompute32;
}

bool IsExplicitHostStepMarker(absl::string_view name) {
  return (absl::StartsWith(name, "train") || absl::StartsWith(name, "test") ||
          absl::StartsWith(name, "TraceContext")) &&
         !absl::StrContains(name, "/");
}

bool IsRealCpuCompute(absl::string_view name) {
  bool wrapper = absl::StartsWith(name, "EagerExecute") ||
                 absl::StartsWith(name, "EagerLocalExecute") ||
                 absl::StartsWith(name, "EagerKernelExecute") ||
                 absl::StartsWith(name, "FunctionRun") || IsExplicitHostStepMarker(name) ||
                 absl::StrContains(name, ".py(") || absl::StartsWith(name, "<built-in");
  return !wrapper;
}

bool IsHostWaitInputName(absl::string_view name) {
  return absl::StartsWith(name, "enumerate(DataLoader)") ||
         absl::StartsWithIgnoreCase(name, "IteratorGetNext");
}

EventType ClassifyCpuEvent(absl::string_view name, bool has_device, bool has_correlation_id,
                           bool is_input_pipeline_root_stage) {
  if (IsMemcpyName(name, "MemcpyHToD")) return kHostToDevice;
  if (IsMemcpyName(name, "MemcpyHToH")) return kHostToHost;
  if (has_device &&
      (has_correlation_id || absl::StartsWithIgnoreCase(name, "ExecutorState::Process"))) {
    return kHostPrepare;
  }
  if (IsHostWaitInputName(name) || is_input_pipeline_root_stage) return kHostWaitInput;
  return kHostCompute;
}

// ---- OverlapResolver ----------------------------------------------------------

void OverlapResolver::SortPackedKeys(int num_digits, int digit_bits) {
  // Least significant digit first; each pass is stable, so the keys end up
  // sorted (equal keys are equal boundaries: their order does not matter).
  const size_t n = keys_.size();
  sort_scratch_.resize(n);
  uint64_t* from = keys_.data();
  uint64_t* to = sort_scratch_.data();
  const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
  const size_t buckets = size_t{1} << digit_bits;
  for (int d = 0; d < num_digits; ++d) {
    uint32_t* count = histograms_.data() + (static_cast<size_t>(d) << kMaxDigitBits);
    const int shift = d * digit_bits;
    if (count[(from[0] >> shift) & mask] == n) continue;  // One digit value: no move.
    uint32_t sum = 0;
    for (size_t b = 0; b < buckets; ++b) {
      const uint32_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys_.data()) keys_.swap(sort_scratch_);  // The sorted keys are in scratch.
}

std::vector<EventTypeSpan> OverlapResolver::ToNonOverlapped(
    absl::Span<const EventTypeSpan> spans) {
  SortedBoundaries([&](auto&& fn) { for (const EventTypeSpan& s : spans) fn(s); });
  std::vector<EventTypeSpan> pieces;
  pieces.reserve(packed_ ? keys_.size() : boundaries_.size());
  Sweep([&](int64_t begin_ps, int64_t end_ps, EventType winner) {
    pieces.push_back({begin_ps, end_ps, winner});
  });
  return pieces;
}

}  // namespace tbprof::views
