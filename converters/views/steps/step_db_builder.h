// Builds the step database from typed spans collected per group.
//
// The caller feeds device step markers (one span per group and GPU plane),
// device events and host events, each tagged with a dense group index (see
// xspace_step_grouping.h); Build() picks the steps, chooses each step's time
// window, resolves overlaps (highest EventType wins) and writes one
// PerCoreStepInfo per step, under core id 1 as the plugin does for GPUs.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_STEP_DB_BUILDER_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_STEP_DB_BUILDER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/xspace_step_grouping.h"
#include "proto/op_metrics.pb.h"
#include "proto/steps_db.pb.h"

namespace tbprof::views {

// How a step's window and events are chosen.
enum class StepWindowMode {
  // The plugin today: window = the longest per-GPU device span of the group;
  // only device events.
  kDeviceOnly,
  // tbprof's default for GPU profiles: window = union of the host root span
  // and the device span, starting no earlier than the previous step's end;
  // device events plus the group's host events (clipped to the root span).
  kWithHost,
  // CPU-only profiles: window = the host root span; only host events; a step
  // needs host compute to be kept.
  kHostOnly,
};

// Core id under which GPU/CPU step info is stored.
inline constexpr uint32_t kDefaultGpuLocalCoreId = 1;

class StepDbBuilder {
 public:
  explicit StepDbBuilder(size_t num_device_planes) : num_planes_(num_device_planes) {}

  // Room for `num_spans` Add*Event() calls without reallocation (a hint).
  void Reserve(size_t num_spans) { spans_.reserve(num_spans); }

  // Extends the device span of `group` on device plane `plane_index`.
  void AddDeviceMarker(int32_t group, size_t plane_index, int64_t begin_ps, int64_t end_ps);
  // A device event (with a correlation id) of `group`. A negative group is
  // no group: the span is dropped.
  void AddDeviceEvent(int32_t group, const EventTypeSpan& span) {
    if (group < 0) return;
    EnsureGroup(group);
    has_device_event_[group] = 1;
    AddSpan(group, span, 0);
  }
  // A host event of `group`, already clipped to the group's host span; a
  // negative group: dropped. Build() in StepWindowMode::kDeviceOnly leaves
  // host events out, so one builder serves both breakdowns.
  void AddHostEvent(int32_t group, const EventTypeSpan& span) {
    if (group < 0) return;
    EnsureGroup(group);
    AddSpan(group, span, kHostBit);
  }
  // A memcpy of `group` (type kHostToDevice, kDeviceToHost or kDeviceToDevice).
  void AddMemoryTransfer(int32_t group, EventType type, int64_t duration_ps, uint64_t bytes);

  struct Result {
    tensorflow::profiler::StepDatabaseResult step_db;
    // Winning 16-/32-bit compute time over all candidate steps.
    tensorflow::profiler::PrecisionStats precision;
    // Groups with device events that were dropped for lack of device
    // compute (or, CPU-only, of host compute).
    int steps_without_compute = 0;
    // 2 when the first and last step were dropped as possibly incomplete.
    int incomplete_steps_dropped = 0;
  };
  // Steps come out ordered by group id. `groups` must cover every group
  // index passed to the Add* calls. `xprof_zero_length_quirk`: resolve
  // zero-length spans as xprof does (OverlapResolver::set_xprof_zero_length_quirk).
  // May be called more than once (e.g. once per breakdown, with the same
  // `groups`); each call reads the spans added so far. Host events count
  // in kWithHost and kHostOnly, not in kDeviceOnly.
  Result Build(const std::vector<StepGroup>& groups, StepWindowMode mode,
               bool drop_incomplete_steps, bool xprof_zero_length_quirk = false);

  // Frees the spans once no Build() call is to come (the builder keeps
  // only per-group data afterwards; further Build() calls see no spans).
  void ReleaseSpans();

 private:
  struct Marker {
    int64_t begin_ps = 0;
    int64_t end_ps = -1;  // end < begin: none.
  };
  struct Transfers {
    std::array<uint64_t, 3> occurrences{};
    std::array<int64_t, 3> duration_ps{};
    std::array<uint64_t, 3> bytes{};
  };
  // An EventTypeSpan in 16 bytes: `begin_ps`, and in `length_and_type` the
  // length end - begin (modulo 2^64) in the low 55 bits, whether it is a
  // host event in bit 55 and the type in the high 8. A length of
  // kWideLength or more (over 10 hours) marks a span kept whole in
  // wide_spans_, at index `begin_ps`.
  struct PackedSpan {
    int64_t begin_ps;
    uint64_t length_and_type;
  };
  static constexpr int kLengthBits = 55;
  static constexpr int kTypeShift = 56;
  static constexpr uint64_t kHostBit = uint64_t{1} << kLengthBits;
  static constexpr uint64_t kWideLength = (uint64_t{1} << kLengthBits) - 1;
  // spans_[begin, end) all belong to `group`, in order of addition.
  struct Segment {
    uint32_t group, begin, end;
  };

  void EnsureGroup(int32_t group) {
    if (has_device_event_.size() <= static_cast<size_t>(group)) GrowGroups(group);
  }
  void GrowGroups(int32_t group);
  // Inline: called for every span (the host pass adds one per launch).
  void AddSpan(int32_t group, const EventTypeSpan& span, uint64_t host_bit) {
    const uint32_t index = static_cast<uint32_t>(spans_.size());
    const uint32_t g = static_cast<uint32_t>(group);
    if (!segments_.empty() && segments_.back().group == g && segments_.back().end == index) {
      ++segments_.back().end;
    } else {
      segments_.push_back({g, index, index + 1});
    }
    const uint64_t type_bits = (static_cast<uint64_t>(span.type) << kTypeShift) | host_bit;
    const uint64_t length =
        static_cast<uint64_t>(span.end_ps) - static_cast<uint64_t>(span.begin_ps);
    if (length < kWideLength) {
      spans_.push_back({span.begin_ps, length | type_bits});
    } else {
      AddWideSpan(span, type_bits);
    }
  }
  void AddWideSpan(const EventTypeSpan& span, uint64_t type_bits);
  EventTypeSpan Unpack(const PackedSpan& packed) const {
    const uint64_t length = packed.length_and_type & kWideLength;
    if (length == kWideLength) return wide_spans_[static_cast<size_t>(packed.begin_ps)];
    return {packed.begin_ps,
            static_cast<int64_t>(static_cast<uint64_t>(packed.begin_ps) + length),
            static_cast<EventType>(packed.length_and_type >> kTypeShift)};
  }

  size_t num_planes_;
  std::vector<Marker> markers_;  // [group * num_planes_ + plane]
  std::vector<uint8_t> has_device_event_;
  std::vector<Transfers> transfers_;
  // The spans added (16 bytes each) and, run-length encoded, their groups:
  // the spans come line by line in time order, so a group's spans form a few
  // runs. Build() reads each group's spans from here, never copying them all.
  std::vector<PackedSpan> spans_;
  std::vector<Segment> segments_;
  std::vector<EventTypeSpan> wide_spans_;  // Almost always empty.
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_STEP_DB_BUILDER_H_
