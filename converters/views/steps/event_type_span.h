// Event types of the step-time breakdown, the rules that classify trace
// events into them, and the overlap resolution that turns overlapping typed
// spans into a breakdown whose parts add up to the step time.
//
// The numbering and the classification rules follow the profile plugin
// (xprof `utils/event_span.h`, `convert/xplane_to_step_events.cc`): where
// several events overlap, the one with the larger EventType wins the instant.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_EVENT_TYPE_SPAN_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_EVENT_TYPE_SPAN_H_

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tbprof::views {

// Same values as the plugin's EventType (they are the keys of
// GenericStepBreakdown.type_ps): a larger value has priority.
enum EventType : uint8_t {
  kUnknownTime = 0,        // Nothing traced explains the time ("All others").
  kHostCompute = 10,
  kHostPreprocess = 20,
  kHostPostprocess = 30,
  kHostBatchFormation = 40,
  kHostRuntime = 50,
  kHostCompile = 60,
  kHostToHost = 70,
  kHostToDevice = 80,
  kHostPrepare = 90,       // Kernel launch.
  kDeviceCollectives = 100,
  kHostWaitInput = 110,
  kDeviceToDevice = 120,
  kDeviceToHost = 130,
  kDeviceCompute32 = 140,
  kDeviceCompute16 = 150,
  kDeviceWaitDevice = 160,
  kDeviceWaitHost = 170,
};
inline constexpr int kNumEventTypeSlots = 171;  // Largest EventType + 1.

absl::string_view EventTypeName(EventType type);

// A typed time span; times in picoseconds, end >= begin.
struct EventTypeSpan {
  int64_t begin_ps = 0;
  int64_t end_ps = 0;
  EventType type = kUnknownTime;
};

// ---- Classification ---------------------------------------------------------

// Device (GPU) event by name: MemcpyHToD/DToH/DToD prefixes (case-insensitive,
// names without ':' only), `nccl*` collectives, otherwise compute.
// Compute is kDeviceCompute16 ("reduced precision": bf16, fp16, fp8, tf32,
// int8) when `tensor_shapes` (the `shape` stat) names a reduced type, 32 when
// it names only full types, else by the kernel name (IsReducedPrecisionKernel
// in views/common/precision.h). The plugin differs here: it counts only
// "half"/"fp16" as 16-bit, so bf16, fp8 and tf32 kernels are 32-bit there.
EventType ClassifyGpuEvent(absl::string_view name, absl::string_view tensor_shapes);

// True for the plugin's explicit host step markers (names starting with
// "train", "test" or "TraceContext" and containing no '/').
bool IsExplicitHostStepMarker(absl::string_view name);

// True unless the event is a wrapper that is not real CPU work: EagerExecute*,
// EagerLocalExecute*, EagerKernelExecute*, FunctionRun*, explicit step markers,
// and (tbprof addition) Python stack frames of PyTorch's with_stack traces
// (names containing ".py(" or starting with "<built-in").
bool IsRealCpuCompute(absl::string_view name);

// Host events in which the training loop waits for its input: PyTorch
// `enumerate(DataLoader)#...` and names starting with `IteratorGetNext`
// (case-insensitive).
bool IsHostWaitInputName(absl::string_view name);

// Host event. `has_device`: the profile has GPU planes;
// `is_input_pipeline_root_stage`: the event has `_ipl_stage_name` and is not
// nested in another stage. Order of rules: MemcpyHToD -> HOST_TO_DEVICE,
// MemcpyHToH -> HOST_TO_HOST, (has_device and (correlation id or
// ExecutorState::Process*)) -> HOST_PREPARE, wait-for-input names or root
// input stage -> HOST_WAIT_INPUT, else HOST_COMPUTE.
EventType ClassifyCpuEvent(absl::string_view name, bool has_device, bool has_correlation_id,
                           bool is_input_pipeline_root_stage);

// ---- Overlap resolution -----------------------------------------------------

// Time per winning type for one set of spans.
struct ResolvedBreakdown {
  // Winning time of each type inside the window, picoseconds.
  std::array<uint64_t, kNumEventTypeSlots> type_ps{};
  // Types that won at least one (possibly empty) piece, inside the window or
  // not; the plugin's "step has device compute" test looks at this.
  std::bitset<kNumEventTypeSlots> present;
  // Winning 16-/32-bit device compute time over all pieces (not clipped).
  uint64_t compute_16bit_ps = 0;
  uint64_t compute_32bit_ps = 0;
};

// Resolves overlapping spans so that at each instant the highest EventType
// wins. Keeps its scratch buffers between calls: reuse one resolver for many
// steps so resolution allocates only when a step is larger than any before.
class OverlapResolver {
 public:
  // xprof's ToNonOverlappedEvents (and this resolver until 2026-11) let a
  // zero-length span raise the winner after its end: the time after it
  // counted as its type until the next span of that type ended. Kineto
  // writes kernels with `dur` 0, so on PyTorch traces xprof counts GPU-idle
  // time as device compute (~3.9 ms per step on the ResNet-50 V100 traces).
  // Off by default (a zero-length span is no time); on only to reproduce
  // the profile plugin's numbers (`--breakdown=device-only`, judged against
  // xprof by tests/xprof/test_judge.py). docs/views.md, "Breakdown of a step".
  void set_xprof_zero_length_quirk(bool on) { xprof_zero_length_quirk_ = on; }

  // Adds into `out` the winning time of each type within
  // [window_begin_ps, window_end_ps). `spans` may be in any order.
  void Resolve(absl::Span<const EventTypeSpan> spans, int64_t window_begin_ps,
               int64_t window_end_ps, ResolvedBreakdown* out) {
    ResolveEach([&](auto&& fn) { for (const EventTypeSpan& s : spans) fn(s); }, window_begin_ps,
                window_end_ps, out);
  }
  // The same for the spans that `for_each_span(fn)` passes to fn, in any
  // order; it is called twice and must pass the same spans both times. Saves
  // callers that hold spans in another form a copy of them.
  template <typename ForEachSpan>
  void ResolveEach(ForEachSpan&& for_each_span, int64_t window_begin_ps, int64_t window_end_ps,
                   ResolvedBreakdown* out);

  // The non-overlapping pieces between consecutive span boundaries, in time
  // order, each typed with the winner (kUnknownTime in gaps). For tests and
  // debugging.
  std::vector<EventTypeSpan> ToNonOverlapped(absl::Span<const EventTypeSpan> spans);

 private:
  struct Boundary {
    int64_t time_ps;
    uint16_t order;  // Sort key among boundaries of equal time (see SortedBoundaries).
    EventType type;
    bool is_start;
  };
  // Boundaries in time order; at equal times ends before starts, among
  // equal kinds the higher type first. `order` folds these tie-breaks into
  // one number below 2 x kNumEventTypeSlots: ends 0.., starts
  // kNumEventTypeSlots.., each by descending type.
  static uint16_t EndOrder(EventType type) {
    return static_cast<uint16_t>(kNumEventTypeSlots - 1 - type);
  }
  // The same order in the packed keys, by the type's rank: every EventType
  // is a multiple of 10, so type / 10 ranks them in 0 .. kNumTypeRanks - 1
  // and the order (ends 0.., starts kNumTypeRanks.., each by descending
  // type) fits in 6 bits instead of 9: fewer key bits, and on most steps
  // one radix pass fewer.
  static constexpr int kNumTypeRanks = kDeviceWaitHost / 10 + 1;
  static uint16_t PackedEndOrder(EventType type) {
    return static_cast<uint16_t>(kNumTypeRanks - 1 - type / 10);
  }
  // x % 1000 == 0 and x % 1000000 == 0 by multiplying with the inverse of
  // the odd factor modulo 2^64 (a multiple of m maps to at most max / m).
  static constexpr uint64_t InverseOfOdd(uint64_t a) {
    uint64_t x = a;  // Newton's iteration doubles the correct low bits.
    for (int i = 0; i < 6; ++i) x *= 2 - a * x;
    return x;
  }
  static bool DivisibleBy1000(uint64_t x) {
    constexpr uint64_t kInv125 = InverseOfOdd(125);
    return (x & 7) == 0 && x * kInv125 <= UINT64_MAX / 125;
  }
  static bool DivisibleBy1000000(uint64_t x) {
    constexpr uint64_t kInv15625 = InverseOfOdd(15625);
    return (x & 63) == 0 && x * kInv15625 <= UINT64_MAX / 15625;
  }
  template <typename ForEachSpan>
  void SortedBoundaries(ForEachSpan&& for_each_span);
  // Sorts keys_ (all below 2^key_bits) with the digit histograms in
  // histograms_, which the caller filled while writing the keys.
  void SortPackedKeys(int num_digits, int digit_bits);
  // Fallback of SortedBoundaries for time ranges too wide to pack.
  template <typename ForEachSpan>
  void SortWideBoundaries(ForEachSpan&& for_each_span, size_t num_spans);

  // Calls fn(begin_ps, end_ps, winner) for each piece.
  template <typename Fn>
  void Sweep(Fn&& fn);
  // Sweep over `n` boundaries in order, boundary i being at(i).
  template <typename At, typename Fn>
  void SweepBoundaries(size_t n, At&& at, Fn&& fn);

  static constexpr int kPackedOrderBits = 6;
  static_assert(2 * kNumTypeRanks <= (1 << kPackedOrderBits), "packed order must fit");
  static_assert(kDeviceWaitHost + 1 == kNumEventTypeSlots && kDeviceWaitHost % 10 == 0,
                "EventTypes are multiples of 10 up to kDeviceWaitHost");
  static constexpr int kMaxDigits = 6;
  static constexpr int kMaxDigitBits = 11;
  // SortedBoundaries' result: packed keys ((time - packed_min_ps_) /
  // packed_unit_ps_ << kPackedOrderBits | order by PackedEndOrder()) when
  // `packed_`, else `boundaries_`. The unit is the largest of 10^6, 10^3 and 1 that divides
  // every time difference (traces hold times in whole ns or us), so keys
  // take fewer bits and the sort fewer passes.
  bool xprof_zero_length_quirk_ = false;
  bool packed_ = false;
  int64_t packed_min_ps_ = 0;
  int64_t packed_unit_ps_ = 1;
  std::vector<uint64_t> keys_;
  std::vector<uint64_t> sort_scratch_;
  std::vector<uint32_t> histograms_;  // [digit << kMaxDigitBits | bucket]
  std::vector<Boundary> boundaries_;
};

// ---- template definitions ------------------------------------------------------

template <typename ForEachSpan>
void OverlapResolver::SortedBoundaries(ForEachSpan&& for_each_span) {
  boundaries_.clear();
  keys_.clear();
  packed_ = false;
  size_t n = 0;
  int64_t min_ps = 0, max_ps = 0, first_ps = 0;
  // Whether every time differs from the first by a multiple of 10^3 / 10^6.
  bool not_ns = false, not_us = false;
  auto check_unit = [&](int64_t t) {
    if (not_ns) return;  // Settled (soon, and then predicted, in ps traces).
    const uint64_t d = t >= first_ps ? static_cast<uint64_t>(t) - static_cast<uint64_t>(first_ps)
                                     : static_cast<uint64_t>(first_ps) - static_cast<uint64_t>(t);
    not_ns = !DivisibleBy1000(d);
    if (!not_us) not_us = !DivisibleBy1000000(d);
  };
  for_each_span([&](const EventTypeSpan& s) {
    if (n++ == 0) min_ps = max_ps = first_ps = s.begin_ps;
    min_ps = std::min({min_ps, s.begin_ps, s.end_ps});
    max_ps = std::max({max_ps, s.begin_ps, s.end_ps});
    check_unit(s.begin_ps);
    check_unit(s.end_ps);
  });
  if (n == 0) return;
  const int64_t unit = !not_us ? 1000000 : !not_ns ? 1000 : 1;
  const uint64_t range =
      (static_cast<uint64_t>(max_ps) - static_cast<uint64_t>(min_ps)) / static_cast<uint64_t>(unit);
  if (range >= (uint64_t{1} << (64 - kPackedOrderBits)) || 2 * n > UINT32_MAX) {
    SortWideBoundaries(for_each_span, n);
    return;
  }
  // The usual case (a range under ~10 hours): sort packed integer keys,
  // (time - min) / unit << kPackedOrderBits | order, several times faster
  // than sorting the structs; Sweep() unpacks them as it goes. The digit
  // histograms of the radix sort are counted while the keys are written.
  const uint64_t max_key = range << kPackedOrderBits | ((uint64_t{1} << kPackedOrderBits) - 1);
  int key_bits = 0;
  while (key_bits < 64 && (max_key >> key_bits) != 0) ++key_bits;
  const int num_digits = (key_bits + kMaxDigitBits - 1) / kMaxDigitBits;
  const int digit_bits = (key_bits + num_digits - 1) / num_digits;
  const bool radix = 2 * n >= 512;  // Below, counting passes cost more than they save.
  keys_.resize(2 * n);
  const uint64_t base = static_cast<uint64_t>(min_ps);
  if (radix) histograms_.assign(static_cast<size_t>(num_digits) << kMaxDigitBits, 0);
  // Writes the keys (and counts their digits) with the unit a constant, so
  // that the division is a multiplication.
  auto write_keys = [&](auto unit_constant) {
    constexpr uint64_t kUnit = decltype(unit_constant)::value;
    auto key = [base](int64_t time_ps, uint16_t order) {
      return (static_cast<uint64_t>(time_ps) - base) / kUnit << kPackedOrderBits | order;
    };
    uint64_t* out = keys_.data();
    if (!radix) {
      for_each_span([&](const EventTypeSpan& s) {
        *out++ = key(s.begin_ps, kNumTypeRanks + PackedEndOrder(s.type));
        *out++ = key(s.end_ps, PackedEndOrder(s.type));
      });
      return;
    }
    uint32_t* hist = histograms_.data();
    const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
    auto count = [&](uint64_t k) {
      for (int d = 0; d < kMaxDigits; ++d) {  // Unrolled; the test is predicted.
        if (d < num_digits) {
          ++hist[(static_cast<size_t>(d) << kMaxDigitBits) + ((k >> (d * digit_bits)) & mask)];
        }
      }
    };
    for_each_span([&](const EventTypeSpan& s) {
      const uint64_t begin_key = key(s.begin_ps, kNumTypeRanks + PackedEndOrder(s.type));
      const uint64_t end_key = key(s.end_ps, PackedEndOrder(s.type));
      *out++ = begin_key;
      *out++ = end_key;
      count(begin_key);
      count(end_key);
    });
  };
  if (unit == 1000000) {
    write_keys(std::integral_constant<uint64_t, 1000000>());
  } else if (unit == 1000) {
    write_keys(std::integral_constant<uint64_t, 1000>());
  } else {
    write_keys(std::integral_constant<uint64_t, 1>());
  }
  if (radix) {
    SortPackedKeys(num_digits, digit_bits);
  } else {
    std::sort(keys_.begin(), keys_.end());
  }
  packed_ = true;
  packed_min_ps_ = min_ps;
  packed_unit_ps_ = unit;
}

template <typename ForEachSpan>
void OverlapResolver::SortWideBoundaries(ForEachSpan&& for_each_span, size_t num_spans) {
  boundaries_.reserve(2 * num_spans);
  for_each_span([&](const EventTypeSpan& s) {
    boundaries_.push_back({s.begin_ps, static_cast<uint16_t>(kNumEventTypeSlots + EndOrder(s.type)),
                           s.type, /*is_start=*/true});
    boundaries_.push_back({s.end_ps, EndOrder(s.type), s.type, /*is_start=*/false});
  });
  // Boundaries with equal (time, order) are equal: any sort gives one order.
  std::sort(boundaries_.begin(), boundaries_.end(), [](const Boundary& a, const Boundary& b) {
    return a.time_ps < b.time_ps || (a.time_ps == b.time_ps && a.order < b.order);
  });
}

template <typename Fn>
void OverlapResolver::Sweep(Fn&& fn) {
  if (packed_) {
    const uint64_t base = static_cast<uint64_t>(packed_min_ps_);
    const uint64_t unit = static_cast<uint64_t>(packed_unit_ps_);
    const uint64_t* keys = keys_.data();
    SweepBoundaries(keys_.size(), [&](size_t i) {
      const uint64_t k = keys[i];
      const int order = static_cast<int>(k & ((uint64_t{1} << kPackedOrderBits) - 1));
      const bool is_start = order >= kNumTypeRanks;
      const int by_rank = is_start ? order - kNumTypeRanks : order;
      const EventType type = static_cast<EventType>((kNumTypeRanks - 1 - by_rank) * 10);
      return Boundary{static_cast<int64_t>(base + (k >> kPackedOrderBits) * unit),
                      static_cast<uint16_t>(is_start ? kNumEventTypeSlots + EndOrder(type)
                                                     : EndOrder(type)),
                      type, is_start};
    }, fn);
  } else {
    SweepBoundaries(boundaries_.size(), [&](size_t i) { return boundaries_[i]; }, fn);
  }
}

template <typename At, typename Fn>
void OverlapResolver::SweepBoundaries(size_t n, At&& at, Fn&& fn) {
  if (n == 0) return;
  // open[t]: starts minus ends of type t so far (a zero-length span's end
  // sorts before its start, so a count may dip below 0); `open_mask` has bit
  // t set while open[t] > 0, to find the next winner without a scan.
  // Invariant: `current` is the highest t with open[t] > 0. A start that
  // only brings a count back to 0 closes a zero-length span (its end came
  // first): it opens nothing, so it must not raise `current` -- else the
  // idle time after a zero-length kernel (Kineto writes kernels of `dur` 0)
  // counted as that kernel's type until the next span of the type ended
  // (xprof's behaviour, kept under set_xprof_zero_length_quirk()).
  std::array<int32_t, kNumEventTypeSlots> open{};
  constexpr int kMaskWords = (kNumEventTypeSlots + 63) / 64;
  uint64_t open_mask[kMaskWords] = {};
  int current = kUnknownTime;
  Boundary b = at(0);
  for (size_t i = 0; i + 1 < n; ++i) {
    const Boundary next = at(i + 1);
    const int t = b.type;
    if (b.is_start) {
      if (++open[t] == 1) {
        open_mask[t >> 6] |= uint64_t{1} << (t & 63);
        if (t > current) current = t;
      } else if (xprof_zero_length_quirk_ && t > current) {
        current = t;
      }
    } else {
      if (--open[t] == 0) {
        open_mask[t >> 6] &= ~(uint64_t{1} << (t & 63));
        if (t == current) {
          // The highest type below t with open[] > 0, else kUnknownTime.
          current = kUnknownTime;
          int w = t >> 6;
          uint64_t bits = open_mask[w] & ((uint64_t{1} << (t & 63)) - 1);
          while (true) {
            if (bits != 0) {
              current = w * 64 + 63 - __builtin_clzll(bits);
              break;
            }
            if (w == 0) break;
            bits = open_mask[--w];
          }
        }
      }
    }
    fn(b.time_ps, next.time_ps, static_cast<EventType>(current));
    b = next;
  }
}

template <typename ForEachSpan>
void OverlapResolver::ResolveEach(ForEachSpan&& for_each_span, int64_t window_begin_ps,
                                  int64_t window_end_ps, ResolvedBreakdown* out) {
  SortedBoundaries(for_each_span);
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

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_EVENT_TYPE_SPAN_H_
