#include "converters/views/distributed/xspace_to_rank_comms.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "converters/common/collective_stats.h"
#include "converters/views/common/time_intervals.h"
#include "converters/views/distributed/collective_bandwidth.h"
#include "converters/views/distributed/collective_launch_metadata.h"
#include "converters/views/steps/event_type_span.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using xplane::XEventVisitor;
using xplane::XPlaneVisitor;
using xplane::XStatVisitor;

using Interval = TimeInterval;

enum class DeviceClass : uint8_t { kOther, kCompute, kCollective };

DeviceClass ClassifyDeviceEventName(absl::string_view name) {
  if (IsCollectiveKernelName(name)) return DeviceClass::kCollective;
  if (absl::StartsWithIgnoreCase(name, "memset")) return DeviceClass::kOther;
  const EventType type = ClassifyGpuEvent(name, "");
  return type == kDeviceCompute16 || type == kDeviceCompute32 ? DeviceClass::kCompute
                                                              : DeviceClass::kOther;
}

// Rank, world size, backend and time zero.
void ReadIdentity(const xplane::XSpaceData& space, tbprof::RankComms* out) {
  out->set_rank(-1);
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  out->set_time_zero_ns(base_ns);
  out->set_time_zero_known(base_ns != 0);
  if (const xplane::Plane* env = xplane::FindPlaneWithName(space, xplane::kTaskEnvPlaneName)) {
    XPlaneVisitor v(&space, env, base_ns);
    v.ForEachStat([&](const XStatVisitor& s) {
      const absl::string_view name = s.name();
      if (name == converters::kStatDistributedRank) out->set_rank(s.IntOrUintValue());
      if (name == converters::kStatDistributedWorldSize) out->set_world_size(s.IntOrUintValue());
      if (name == converters::kStatDistributedBackend) {
        out->set_backend(std::string(s.StrOrRefValue()));
      }
      if (base_ns == 0 && s.type() == xplane::StatType::kProfileStartTime) {
        out->set_time_zero_ns(s.IntOrUintValue());
        out->set_time_zero_known(true);
      }
    });
  }
}

int64_t GpuOrdinal(absl::string_view plane_name) {
  int64_t n = 0;
  absl::ConsumePrefix(&plane_name, xplane::kGpuPlanePrefix);
  return absl::SimpleAtoi(plane_name, &n) ? n : 0;
}

}  // namespace

RankCommsEvents CollectRankCommsEvents(const xplane::XSpaceData& space) {
  RankCommsEvents events;
  tbprof::RankComms& out = events.comms;
  ReadIdentity(space, &out);
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  // Event names only, so that hosts without collectives pay next to nothing.
  const std::vector<const xplane::Plane*> planes = xplane::FindGpuPlanes(space);
  std::vector<std::vector<DeviceClass>> classes;
  bool any_collective = false;
  for (const xplane::Plane* plane : planes) {
    std::vector<DeviceClass>& c = classes.emplace_back(plane->event_metadata.size());
    for (uint32_t i = 0; i < c.size(); ++i) {
      c[i] = ClassifyDeviceEventName(space.strings.Get(plane->event_metadata[i].name));
      any_collective |= c[i] == DeviceClass::kCollective;
    }
  }
  if (!any_collective) {
    out.set_no_data_reason("no collective (NCCL/RCCL) kernels on this host's GPUs");
    return events;
  }
  std::vector<XPlaneVisitor> gpus;
  gpus.reserve(planes.size());
  for (const xplane::Plane* plane : planes) gpus.emplace_back(&space, plane, base_ns);

  // Device events: unions of compute and of collectives, and the calls.
  std::vector<Interval>& compute = events.compute;
  std::vector<Interval>& comm = events.communication;
  std::vector<int64_t> call_correlation;
  absl::flat_hash_set<int64_t> wanted;
  for (size_t p = 0; p < gpus.size(); ++p) {
    const XPlaneVisitor& v = gpus[p];
    const int64_t device = GpuOrdinal(v.name());
    v.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (IsDerivedLine(line.id(), line.name()) || IsDeviceAnnotationLine(line.name())) return;
      line.ForEachEvent([&](const XEventVisitor& e) {
        const DeviceClass c = classes[p][e.metadata_index()];
        if (c == DeviceClass::kOther) return;
        const Interval i{e.begin_ps(), e.end_ps()};
        if (c == DeviceClass::kCompute) {
          compute.push_back(i);
          return;
        }
        comm.push_back(i);
        tbprof::CollectiveCall* call = out.add_collectives();
        call->set_kernel_name(std::string(e.name()));
        call->set_begin_ps(i.begin_ps);
        call->set_duration_ps(e.duration_ps());
        call->set_device(device);
        int64_t cid = -1;
        if (std::optional<XStatVisitor> s = e.GetStat(xplane::StatType::kCorrelationId)) {
          cid = s->IntOrUintValue();
          wanted.insert(cid);
        }
        call_correlation.push_back(cid);
      });
    });
  }

  // Metadata from the launching host events.
  const CollectiveLaunchMetadata metadata(
      space, xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName), wanted);
  for (int i = 0; i < out.collectives_size(); ++i) {
    metadata.Describe(call_correlation[i], out.world_size(), out.mutable_collectives(i));
  }
  std::sort(out.mutable_collectives()->begin(), out.mutable_collectives()->end(),
            [](const tbprof::CollectiveCall& a, const tbprof::CollectiveCall& b) {
              return a.begin_ps() < b.begin_ps();
            });
  // Merged, they are a few per step: capacity for one per kernel is given
  // back, as the events may be kept while the step analysis runs.
  MergeIntervals(&compute);
  MergeIntervals(&comm);
  compute.shrink_to_fit();
  comm.shrink_to_fit();
  events.overlap = IntersectIntervals(compute, comm);
  return events;
}

tbprof::RankComms FinishRankComms(RankCommsEvents events,
                                  const tensorflow::profiler::StepDatabaseResult& step_db) {
  tbprof::RankComms out = std::move(events.comms);
  if (!out.no_data_reason().empty()) return out;
  const std::vector<Interval>& compute = events.compute;
  const std::vector<Interval>& comm = events.communication;
  // Step windows.
  for (const StepSpan& span : StepSpansOnFirstCore(step_db)) {
    tbprof::RankStep* step = out.add_steps();
    step->set_step_num(span.step_num);
    step->set_begin_ps(span.begin_ps);
    step->set_duration_ps(span.duration_ps);
  }
  if (out.steps_size() == 0) {
    int64_t begin = INT64_MAX, end = INT64_MIN;
    for (const std::vector<Interval>* v : {&compute, &comm}) {
      if (v->empty()) continue;
      begin = std::min(begin, v->front().begin_ps);
      end = std::max(end, v->back().end_ps);
    }
    tbprof::RankStep* step = out.add_steps();
    step->set_step_num(-1);
    step->set_begin_ps(begin);
    step->set_duration_ps(end - begin);
    out.set_steps_from_profile_span(true);
  }
  std::sort(out.mutable_steps()->begin(), out.mutable_steps()->end(),
            [](const tbprof::RankStep& a, const tbprof::RankStep& b) {
              return a.begin_ps() < b.begin_ps();
            });
  const std::vector<Interval>& both = events.overlap;
  for (tbprof::RankStep& step : *out.mutable_steps()) {
    const int64_t begin = step.begin_ps(), end = begin + step.duration_ps();
    const int64_t c = CoveredPs(compute, begin, end);
    const int64_t m = CoveredPs(comm, begin, end);
    const int64_t o = CoveredPs(both, begin, end);
    step.set_compute_ps(c - o);
    step.set_communication_ps(m - o);
    step.set_overlap_ps(o);
    step.set_other_ps(step.duration_ps() - (c + m - o));
  }
  // Each call's step: the window its kernel starts in.
  for (tbprof::CollectiveCall& call : *out.mutable_collectives()) {
    call.set_step_num(-1);
    if (out.steps_from_profile_span()) continue;
    auto it = std::upper_bound(
        out.steps().begin(), out.steps().end(), call.begin_ps(),
        [](int64_t t, const tbprof::RankStep& s) { return t < s.begin_ps(); });
    if (it == out.steps().begin()) continue;
    --it;
    if (call.begin_ps() < it->begin_ps() + it->duration_ps()) call.set_step_num(it->step_num());
  }
  return out;
}

tbprof::RankComms ConvertXSpaceToRankComms(
    const xplane::XSpaceData& space, const tensorflow::profiler::StepDatabaseResult& step_db) {
  return FinishRankComms(CollectRankCommsEvents(space), step_db);
}

}  // namespace tbprof::views
