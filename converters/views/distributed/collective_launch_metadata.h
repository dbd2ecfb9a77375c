// What the host side of a trace says about a collective kernel: the host
// events around the kernel's launch (same correlation_id, same thread line).
//
// A call's metadata comes from, in order:
//  1. the innermost `record_param_comms` event around the launch, when it
//     has the collective stats the Kineto converter keeps from its args
//     (converters/common/collective_stats.h): kind, element counts, type,
//     group size, process group, sequence number (PyTorch >= 2.x);
//  2. else the innermost launching op named after a collective
//     ("nccl:all_reduce", "c10d::allgather_", CollectiveKindFromName()) with
//     a recorded input shape and type (`input_dims`, `input_types` stats;
//     older PyTorch, whose record_param_comms has no args): the kind from its
//     name and the input's element count and type. The input is this rank's
//     part, so an all_gather's size is that times the world size;
//  3. else the kernel name only (kind and element type, no size).
// The kind is the first of these that names one, the element type likewise.
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_LAUNCH_METADATA_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_LAUNCH_METADATA_H_

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "proto/distributed.pb.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

class CollectiveLaunchMetadata {
 public:
  // Finds, on `host_plane` (the /host:CPU plane; may be null), the launches
  // whose correlation id is in `wanted` and the host events around them:
  // one pass over the plane's events. `space` must outlive this object.
  CollectiveLaunchMetadata(const xplane::XSpaceData& space, const xplane::Plane* host_plane,
                           const absl::flat_hash_set<int64_t>& wanted);
  // Not copyable or movable: the contexts point into host_.
  CollectiveLaunchMetadata(const CollectiveLaunchMetadata&) = delete;
  CollectiveLaunchMetadata& operator=(const CollectiveLaunchMetadata&) = delete;

  // Fills `call`'s kind, collective_name, dtype, dtype_bytes, in/out_nelems,
  // message_bytes, group_size, process group fields, seq and metadata, from
  // the launch with `correlation_id` (< 0 or not found: the kernel name
  // only) and call->kernel_name(). `world_size` (0 = unknown) sizes
  // all_gathers known from op shapes only.
  void Describe(int64_t correlation_id, int64_t world_size, tbprof::CollectiveCall* call) const;

 private:
  struct Context {
    std::optional<xplane::XEventVisitor> param_comms;  // Innermost record_param_comms.
    std::optional<xplane::XEventVisitor> op;           // Innermost collective op.
  };
  // Host-plane indices of the stats Describe() reads.
  struct Stats {
    std::optional<uint32_t> collective_name, in_nelems, out_nelems, dtype, group_size, pg_name,
        pg_desc, pg_ranks, seq, input_dims, input_types;
  };
  void IndexLaunches(const absl::flat_hash_set<int64_t>& wanted);

  std::optional<xplane::XPlaneVisitor> host_;
  Stats stats_;
  absl::flat_hash_map<int64_t, Context> contexts_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_LAUNCH_METADATA_H_
