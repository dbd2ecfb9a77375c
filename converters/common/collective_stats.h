// Names of the stats in which converters keep what a trace says about
// distributed communication, and which the distributed view reads
// (converters/views/distributed/xspace_to_rank_comms.h). Not the profile plugin's: it
// ignores them (they appear as event args in its trace viewer).
//
// On /host:CPU `record_param_comms` events (PyTorch's record of each c10d
// collective call; Kineto writes its metadata as event args), one stat per
// arg present:
//   "Collective name"           -> collective_name (str)   "allreduce", "all_to_allv", ...
//   "In msg nelems"             -> in_msg_nelems (int64)   elements this rank sends
//   "Out msg nelems"            -> out_msg_nelems (int64)  elements this rank receives
//   "dtype"                     -> dtype (str)             "Float", "BFloat16", ...
//   "Group size"                -> group_size (int64)
//   "Process Group Name"        -> process_group_name (str)
//   "Process Group Description" -> process_group_desc (str)
//   "Process Group Ranks"       -> process_group_ranks (str) "[0, 1, 2, 3]"
//   "Seq"                       -> collective_seq (int64)  sequence number in its group
//   "In split size"             -> in_split_size (str)     "[1, 2]"
//   "Out split size"            -> out_split_size (str)
//
// On the "Task Environment" plane, from the trace's top-level
// `distributedInfo` ({"backend": "nccl", "rank": 0, "world_size": 8}):
//   distributed_rank (int64), distributed_world_size (int64),
//   distributed_backend (str).
#ifndef TBPROF_CONVERTERS_COMMON_COLLECTIVE_STATS_H_
#define TBPROF_CONVERTERS_COMMON_COLLECTIVE_STATS_H_

#include "absl/strings/string_view.h"

namespace tbprof::converters {

// The host event PyTorch records for each collective call.
inline constexpr absl::string_view kParamCommsEventName = "record_param_comms";

inline constexpr absl::string_view kStatCollectiveName = "collective_name";
inline constexpr absl::string_view kStatInMsgNelems = "in_msg_nelems";
inline constexpr absl::string_view kStatOutMsgNelems = "out_msg_nelems";
inline constexpr absl::string_view kStatDtype = "dtype";
inline constexpr absl::string_view kStatGroupSize = "group_size";
inline constexpr absl::string_view kStatProcessGroupName = "process_group_name";
inline constexpr absl::string_view kStatProcessGroupDesc = "process_group_desc";
inline constexpr absl::string_view kStatProcessGroupRanks = "process_group_ranks";
inline constexpr absl::string_view kStatCollectiveSeq = "collective_seq";
inline constexpr absl::string_view kStatInSplitSize = "in_split_size";
inline constexpr absl::string_view kStatOutSplitSize = "out_split_size";

inline constexpr absl::string_view kStatDistributedRank = "distributed_rank";
inline constexpr absl::string_view kStatDistributedWorldSize = "distributed_world_size";
inline constexpr absl::string_view kStatDistributedBackend = "distributed_backend";

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_COLLECTIVE_STATS_H_
