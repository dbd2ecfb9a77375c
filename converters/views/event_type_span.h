// Event types of the step-time breakdown, the rules that classify trace
// events into them, and the overlap resolution that turns overlapping typed
// spans into a breakdown whose parts add up to the step time.
//
// The numbering and the classification rules follow the profile plugin
// (xprof `utils/event_span.h`, `convert/xplane_to_step_events.cc`): where
// several events overlap, the one with the larger EventType wins the instant.
#ifndef TBPROF_CONVERTERS_VIEWS_EVENT_TYPE_SPAN_H_
#define TBPROF_CONVERTERS_VIEWS_EVENT_TYPE_SPAN_H_

#include <array>
#include <bitset>
#include <cstdint>
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
// names without ':' only), `nccl*` collectives, otherwise compute; compute is
// 16-bit if `tensor_shapes` (the `shape` stat) contains "half", or, without
// shapes, if the name contains "half" or "fp16". bf16 is not recognised
// (as in the plugin).
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
// wins. Keeps its scratch buffer between calls: reuse one resolver for many
// steps so resolution allocates only when a step is larger than any before.
class OverlapResolver {
 public:
  // Adds into `out` the winning time of each type within
  // [window_begin_ps, window_end_ps). `spans` may be in any order.
  void Resolve(absl::Span<const EventTypeSpan> spans, int64_t window_begin_ps,
               int64_t window_end_ps, ResolvedBreakdown* out);

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
  void SortedBoundaries(absl::Span<const EventTypeSpan> spans);

  // Calls fn(begin_ps, end_ps, winner) for each piece.
  template <typename Fn>
  void Sweep(Fn&& fn);
  // Sweep over `n` boundaries in order, boundary i being at(i).
  template <typename At, typename Fn>
  void SweepBoundaries(size_t n, At&& at, Fn&& fn);

  static constexpr int kPackedOrderBits = 9;
  // SortedBoundaries' result: packed keys ((time - packed_min_ps_) <<
  // kPackedOrderBits | order) when `packed_`, else `boundaries_`.
  bool packed_ = false;
  int64_t packed_min_ps_ = 0;
  std::vector<uint64_t> keys_;
  std::vector<uint64_t> sort_scratch_;
  std::vector<Boundary> boundaries_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_EVENT_TYPE_SPAN_H_
