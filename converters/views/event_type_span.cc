#include "converters/views/event_type_span.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "src/base/radix_sort.h"

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
  if (tensor_shapes.empty()) {
    return (absl::StrContains(name, "half") || absl::StrContains(name, "fp16"))
               ? kDeviceCompute16
               : kDeviceCompute32;
  }
  return absl::StrContains(tensor_shapes, "half") ? kDeviceCompute16 : kDeviceCompute32;
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

void OverlapResolver::SortedBoundaries(absl::Span<const EventTypeSpan> spans) {
  boundaries_.clear();
  keys_.clear();
  packed_ = false;
  if (spans.empty()) return;
  // Time ascending; at equal times ends before starts; among equal kinds the
  // higher type first. `order` folds the tie-breaks into one number below
  // 2 x kNumEventTypeSlots: ends 0.., starts kNumEventTypeSlots.., each
  // by descending type.
  constexpr int kOrderBits = kPackedOrderBits;
  static_assert(2 * kNumEventTypeSlots <= (1 << kOrderBits), "order must fit in kOrderBits");
  auto end_order = [](EventType type) {
    return static_cast<uint16_t>(kNumEventTypeSlots - 1 - type);
  };
  int64_t min_ps = spans[0].begin_ps, max_ps = spans[0].begin_ps;
  for (const EventTypeSpan& s : spans) {
    min_ps = std::min({min_ps, s.begin_ps, s.end_ps});
    max_ps = std::max({max_ps, s.begin_ps, s.end_ps});
  }
  const uint64_t range = static_cast<uint64_t>(max_ps) - static_cast<uint64_t>(min_ps);
  if (range < (uint64_t{1} << (64 - kOrderBits))) {
    // The usual case (a range under ~10 hours): sort packed integer keys,
    // (time - min) << kOrderBits | order, several times faster than
    // sorting the structs; Sweep() unpacks them as it goes.
    keys_.reserve(2 * spans.size());
    auto key = [&](int64_t time_ps, uint16_t order) {
      return (static_cast<uint64_t>(time_ps) - static_cast<uint64_t>(min_ps)) << kOrderBits |
             order;
    };
    for (const EventTypeSpan& s : spans) {
      keys_.push_back(key(s.begin_ps, kNumEventTypeSlots + end_order(s.type)));
      keys_.push_back(key(s.end_ps, end_order(s.type)));
    }
    RadixSortUint64(&keys_, &sort_scratch_);
    packed_ = true;
    packed_min_ps_ = min_ps;
    return;
  }
  packed_ = false;
  boundaries_.reserve(2 * spans.size());
  for (const EventTypeSpan& s : spans) {
    boundaries_.push_back({s.begin_ps, static_cast<uint16_t>(kNumEventTypeSlots + end_order(s.type)),
                           s.type, /*is_start=*/true});
    boundaries_.push_back({s.end_ps, end_order(s.type), s.type, /*is_start=*/false});
  }
  std::sort(boundaries_.begin(), boundaries_.end(), [](const Boundary& a, const Boundary& b) {
    return a.time_ps < b.time_ps || (a.time_ps == b.time_ps && a.order < b.order);
  });
}

template <typename Fn>
void OverlapResolver::Sweep(Fn&& fn) {
  if (packed_) {
    const uint64_t base = static_cast<uint64_t>(packed_min_ps_);
    SweepBoundaries(keys_.size(), [&](size_t i) {
      const uint64_t k = keys_[i];
      const int order = static_cast<int>(k & ((uint64_t{1} << kPackedOrderBits) - 1));
      const bool is_start = order >= kNumEventTypeSlots;
      const int by_type = is_start ? order - kNumEventTypeSlots : order;
      return Boundary{static_cast<int64_t>(base + (k >> kPackedOrderBits)),
                      static_cast<uint16_t>(order),
                      static_cast<EventType>(kNumEventTypeSlots - 1 - by_type), is_start};
    }, fn);
  } else {
    SweepBoundaries(boundaries_.size(), [&](size_t i) { return boundaries_[i]; }, fn);
  }
}

template <typename At, typename Fn>
void OverlapResolver::SweepBoundaries(size_t n, At&& at, Fn&& fn) {
  if (n == 0) return;
  std::array<int32_t, kNumEventTypeSlots> open{};
  int current = kUnknownTime;
  Boundary b = at(0);
  for (size_t i = 0; i + 1 < n; ++i) {
    const Boundary next = at(i + 1);
    if (b.is_start) {
      ++open[b.type];
      if (b.type > current) current = b.type;
    } else {
      --open[b.type];
      if (b.type == current && open[b.type] == 0) {
        current = kUnknownTime;
        for (int t = b.type - 1; t >= 0; --t) {
          if (open[t] > 0) {
            current = t;
            break;
          }
        }
      }
    }
    fn(b.time_ps, next.time_ps, static_cast<EventType>(current));
    b = next;
  }
}

void OverlapResolver::Resolve(absl::Span<const EventTypeSpan> spans, int64_t window_begin_ps,
                              int64_t window_end_ps, ResolvedBreakdown* out) {
  SortedBoundaries(spans);
  Sweep([&](int64_t begin_ps, int64_t end_ps, EventType winner) {
    out->present.set(winner);
    uint64_t length = static_cast<uint64_t>(end_ps - begin_ps);
    if (winner == kDeviceCompute16) out->compute_16bit_ps += length;
    if (winner == kDeviceCompute32) out->compute_32bit_ps += length;
    int64_t clipped_begin = std::max(begin_ps, window_begin_ps);
    int64_t clipped_end = std::min(end_ps, window_end_ps);
    if (clipped_end > clipped_begin) {
      out->type_ps[winner] += static_cast<uint64_t>(clipped_end - clipped_begin);
    }
  });
}

std::vector<EventTypeSpan> OverlapResolver::ToNonOverlapped(
    absl::Span<const EventTypeSpan> spans) {
  SortedBoundaries(spans);
  std::vector<EventTypeSpan> pieces;
  pieces.reserve(packed_ ? keys_.size() : boundaries_.size());
  Sweep([&](int64_t begin_ps, int64_t end_ps, EventType winner) {
    pieces.push_back({begin_ps, end_ps, winner});
  });
  return pieces;
}

}  // namespace tbprof::views
