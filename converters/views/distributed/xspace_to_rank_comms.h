// XSpace (one host = one rank) -> what the distributed view needs of it
// (tbprof.RankComms, proto/distributed.proto):
//
//  * the rank's identity: rank, world size and backend from the Task
//    Environment stats the Kineto converter writes from `distributedInfo`
//    (converters/common/collective_stats.h), and the time zero that makes its
//    times comparable with other ranks' (the lines' epoch timestamps, else
//    the Task Environment's profile_start_time);
//  * per analysed step (the step analysis' steps, xspace_to_step_db.h), the
//    step time split into compute only, communication only, both at once
//    (overlap) and neither (other): over all GPUs of the host, "compute" is
//    the union of GPU kernels that are not collectives, "communication" the
//    union of collective kernels (IsCollectiveKernelName()); copies and
//    memsets count as other. The four parts add up to the step time;
//  * every collective kernel with its metadata (collective_launch_metadata.h:
//    record_param_comms args, else the launching op's recorded input shape,
//    else the kernel name), the step it starts in, and its GPU.
//
// Never fails: what cannot be attributed is kept with less metadata
// (CollectiveCall.metadata says how much).
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_XSPACE_TO_RANK_COMMS_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_XSPACE_TO_RANK_COMMS_H_

#include <vector>

#include "converters/views/common/time_intervals.h"
#include "proto/distributed.pb.h"
#include "proto/steps_db.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

// What ConvertXSpaceToRankComms() reads from the events before it needs the
// steps: the identity fields, every collective call with its metadata (in
// begin order, step_num not set yet) or no_data_reason, and the merged
// unions of compute, of communication and of both at once, over all GPUs.
struct RankCommsEvents {
  tbprof::RankComms comms;
  std::vector<TimeInterval> compute, communication, overlap;
};

// The first half of ConvertXSpaceToRankComms(): it reads no steps, so that it
// can run while the step analysis does.
RankCommsEvents CollectRankCommsEvents(const xplane::XSpaceData& space);

// The second half: per-step windows and the step of each call. Equal to
// ConvertXSpaceToRankComms(space, step_db) for events collected from space.
tbprof::RankComms FinishRankComms(RankCommsEvents events,
                                  const tensorflow::profiler::StepDatabaseResult& step_db);

// `step_db`: the host's analysed steps (StepAnalysis.op_stats.step_db());
// without steps, one window from the first to the last GPU event is used
// (RankComms.steps_from_profile_span). Spaces without collective kernels
// return at once with only the identity fields and no_data_reason set (the
// check reads event metadata only, so hosts of single-GPU jobs pay nothing).
tbprof::RankComms ConvertXSpaceToRankComms(
    const xplane::XSpaceData& space, const tensorflow::profiler::StepDatabaseResult& step_db);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_XSPACE_TO_RANK_COMMS_H_
