#include "converters/views/steps/step_db_builder.h"

#include <algorithm>
#include <limits>

namespace tbprof::views {

using tensorflow::profiler::GenericStepBreakdown;
using tensorflow::profiler::PerCoreStepInfo;
using tensorflow::profiler::StepInfoResult;

void StepDbBuilder::GrowGroups(int32_t group) {
  const size_t needed = static_cast<size_t>(group) + 1;
  const size_t n = std::max(needed, has_device_event_.size() * 2);
  has_device_event_.resize(n, 0);
  transfers_.resize(n);
  markers_.resize(n * num_planes_);
}

void StepDbBuilder::AddDeviceMarker(int32_t group, size_t plane_index, int64_t begin_ps,
                                    int64_t end_ps) {
  EnsureGroup(group);
  Marker& m = markers_[static_cast<size_t>(group) * num_planes_ + plane_index];
  if (m.end_ps < m.begin_ps) {
    m.begin_ps = begin_ps;
    m.end_ps = end_ps;
  } else {
    m.begin_ps = std::min(m.begin_ps, begin_ps);
    m.end_ps = std::max(m.end_ps, end_ps);
  }
}

void StepDbBuilder::AddWideSpan(const EventTypeSpan& span, uint64_t type_bits) {
  spans_.push_back({static_cast<int64_t>(wide_spans_.size()), kWideLength | type_bits});
  wide_spans_.push_back(span);
}

void StepDbBuilder::AddMemoryTransfer(int32_t group, EventType type, int64_t duration_ps,
                                      uint64_t bytes) {
  int index;
  switch (type) {
    case kHostToDevice: index = 0; break;
    case kDeviceToHost: index = 1; break;
    case kDeviceToDevice: index = 2; break;
    default: return;
  }
  EnsureGroup(group);
  Transfers& t = transfers_[group];
  ++t.occurrences[index];
  t.duration_ps[index] += duration_ps;
  t.bytes[index] += bytes;
}

void StepDbBuilder::ReleaseSpans() {
  spans_ = {};
  segments_ = {};
  wide_spans_ = {};
}

StepDbBuilder::Result StepDbBuilder::Build(const std::vector<StepGroup>& groups,
                                           StepWindowMode mode, bool drop_incomplete_steps,
                                           bool xprof_zero_length_quirk) {
  Result result;
  const size_t num_groups = groups.size();
  if (num_groups > 0) EnsureGroup(static_cast<int32_t>(num_groups - 1));

  // The spans of each group, without a second copy of them all: the
  // segments (runs of one group's spans, see AddSpan()) are ordered by group
  // (stable), and the resolver reads each candidate's spans from them in
  // their order of addition. Groups past `groups` are ignored.
  std::vector<Segment>& segments = segments_;
  segments.erase(std::remove_if(segments.begin(), segments.end(),
                                [&](const Segment& s) { return s.group >= num_groups; }),
                 segments.end());
  std::vector<uint32_t> group_spans(num_groups, 0);
  for (const Segment& segment : segments) group_spans[segment.group] += segment.end - segment.begin;
  std::stable_sort(segments.begin(), segments.end(),
                   [](const Segment& a, const Segment& b) { return a.group < b.group; });
  std::vector<uint32_t> first_segment(num_groups + 1, 0);  // Segments of group g: [g], [g + 1].
  for (const Segment& segment : segments) ++first_segment[segment.group + 1];
  for (size_t g = 0; g < num_groups; ++g) first_segment[g + 1] += first_segment[g];

  // Candidate steps and their windows.
  struct Candidate {
    int32_t group;
    int64_t begin_ps;
    int64_t end_ps;
    Marker device;
  };
  std::vector<Candidate> candidates;
  for (size_t g = 0; g < num_groups; ++g) {
    const StepGroup& group = groups[g];
    if (mode == StepWindowMode::kHostOnly) {
      if (!group.has_host_span || group_spans[g] == 0) continue;
      candidates.push_back({static_cast<int32_t>(g), group.host_begin_ps, group.host_end_ps, {}});
      continue;
    }
    if (!has_device_event_[g]) continue;
    // The step time is the longest per-plane device span.
    Marker best;
    for (size_t p = 0; p < num_planes_; ++p) {
      const Marker& m = markers_[g * num_planes_ + p];
      if (m.end_ps < m.begin_ps) continue;
      if (best.end_ps < best.begin_ps || m.end_ps - m.begin_ps > best.end_ps - best.begin_ps) {
        best = m;
      }
    }
    if (best.end_ps < best.begin_ps) continue;
    Candidate c{static_cast<int32_t>(g), best.begin_ps, best.end_ps, best};
    if (mode == StepWindowMode::kWithHost && group.has_host_span) {
      c.begin_ps = std::min(group.host_begin_ps, best.begin_ps);
      c.end_ps = std::max(group.host_end_ps, best.end_ps);
    }
    candidates.push_back(c);
  }
  if (mode == StepWindowMode::kWithHost) {
    // Consecutive steps must not overlap: a step starts no earlier than the
    // previous one ends (its device work may run past its host root).
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.begin_ps < b.begin_ps; });
    int64_t previous_end = std::numeric_limits<int64_t>::min();
    for (Candidate& c : candidates) {
      int64_t begin = std::max(c.begin_ps, previous_end);
      if (begin < c.end_ps) {
        c.begin_ps = begin;
      } else {
        c.begin_ps = c.device.begin_ps;
        c.end_ps = c.device.end_ps;
      }
      previous_end = std::max(previous_end, c.end_ps);
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    return groups[a.group].group_id < groups[b.group].group_id;
  });

  // Device-only steps leave the host events out.
  const uint64_t skip_bit = mode == StepWindowMode::kDeviceOnly ? kHostBit : 0;
  OverlapResolver resolver;
  resolver.set_xprof_zero_length_quirk(xprof_zero_length_quirk);
  uint64_t compute_16bit_ps = 0, compute_32bit_ps = 0;
  for (const Candidate& c : candidates) {
    const StepGroup& group = groups[c.group];
    auto for_each_span = [&](auto&& fn) {
      for (uint32_t k = first_segment[c.group]; k < first_segment[c.group + 1]; ++k) {
        for (uint32_t i = segments[k].begin; i < segments[k].end; ++i) {
          if ((spans_[i].length_and_type & skip_bit) != 0) continue;
          fn(Unpack(spans_[i]));
        }
      }
    };
    ResolvedBreakdown rb;
    resolver.ResolveEach(for_each_span, c.begin_ps, c.end_ps, &rb);
    compute_16bit_ps += rb.compute_16bit_ps;
    compute_32bit_ps += rb.compute_32bit_ps;
    bool well_formed = mode == StepWindowMode::kHostOnly
                           ? rb.present[kHostCompute]
                           : (rb.present[kDeviceCompute16] || rb.present[kDeviceCompute32]);
    if (!well_formed) {
      ++result.steps_without_compute;
      continue;
    }
    const uint64_t duration = static_cast<uint64_t>(c.end_ps - c.begin_ps);
    uint64_t total = 0;
    for (uint64_t ps : rb.type_ps) total += ps;
    if (total < duration) {
      rb.type_ps[kUnknownTime] += duration - total;
      rb.present.set(kUnknownTime);
    }
    GenericStepBreakdown breakdown;
    auto& type_ps = *breakdown.mutable_type_ps();
    for (int t = 0; t < kNumEventTypeSlots; ++t) {
      if (rb.present[t] || rb.type_ps[t] > 0) type_ps[t] = rb.type_ps[t];
    }
    const int64_t step_num = group.step_num >= 0 ? group.step_num : group.group_id;
    StepInfoResult info;
    info.set_step_num(static_cast<uint32_t>(step_num));
    info.set_step_name(group.name);
    info.set_duration_ps(duration);
    info.set_begin_ps(static_cast<uint64_t>(std::max<int64_t>(c.begin_ps, 0)));
    info.mutable_step_breakdown()->PackFrom(breakdown);
    PerCoreStepInfo* step = result.step_db.add_step_sequence();
    step->set_step_num(static_cast<uint32_t>(step_num));
    (*step->mutable_step_info_per_core())[kDefaultGpuLocalCoreId] = std::move(info);
    if (mode != StepWindowMode::kHostOnly) {
      const Transfers& t = transfers_[c.group];
      for (int i = 0; i < 3; ++i) {
        auto* dmt = step->add_device_memory_transfers();
        dmt->set_occurrence(t.occurrences[i]);
        dmt->set_time_us(static_cast<double>(t.duration_ps[i]) / 1e6);
        dmt->set_bytes_transferred(t.bytes[i]);
      }
    }
  }
  result.precision.set_compute_16bit_ps(compute_16bit_ps);
  result.precision.set_compute_32bit_ps(compute_32bit_ps);

  constexpr int kDropIncompleteStepThreshold = 5;
  auto* sequence = result.step_db.mutable_step_sequence();
  if (drop_incomplete_steps && sequence->size() > kDropIncompleteStepThreshold) {
    sequence->erase(sequence->begin());
    sequence->RemoveLast();
    result.incomplete_steps_dropped = 2;
  }
  result.step_db.set_num_steps_dropped(static_cast<uint32_t>(result.steps_without_compute));
  return result;
}

}  // namespace tbprof::views
