// Memory profile of one host from an XSpace, computed the way the profile
// plugin computes its memory_profile tool, for our reports and for the
// legacy <host>.memory_profile.json.gz file.
//
// Input contract: events named "MemoryAllocation" / "MemoryDeallocation" on
// any line of the "/host:CPU" plane, with stats (int64, or uint64 where
// noted) allocator_name (str/ref; else index_on_host / device_ordinal),
// bytes_reserved, bytes_allocated, bytes_available, peak_bytes_in_use,
// requested_bytes, allocation_bytes, addr (int64 or uint64), and optionally
// fragmentation (double), tf_op, region_type, shape (str/ref) and data_type
// (TensorFlow DataType enum as int64, or a str/ref name).
#ifndef TBPROF_CONVERTERS_VIEWS_MEMORY_XSPACE_TO_MEMORY_PROFILE_H_
#define TBPROF_CONVERTERS_VIEWS_MEMORY_XSPACE_TO_MEMORY_PROFILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/memory_profile.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

struct MemoryProfileOptions {
  // Most snapshots in each allocator's sampled_timeline_snapshots.
  int64_t max_num_snapshots = 1000;
};

// Builds the MemoryProfile (version 1, num_hosts 1, memory_ids sorted, one
// PerAllocatorMemoryProfile per allocator that has events). Per allocator:
//  * time_offset_ps is the event's XEvent.offset_ps, relative to its own
//    line's timestamp_ns, as in the plugin (post-processed spaces, whose lines
//    share timestamp_ns 0, get times since the profile start; raw TensorFlow
//    or JAX files whose lines differ mix bases). Snapshots are sorted by it.
//  * step_id: the event's `group_id` stat if it has one (spaces grouped by
//    another tool); else the step_num (else iter_num, else time-order index) of the
//    step root (stat `_r` != 0, or a "TraceContext" event) on /host:CPU
//    whose span contains the event (in space time, not line-relative); events outside every root get the
//    previous valid step id + 1 (0 at the start), as in the plugin.
//  * A deallocation takes tf_op / region_type / data_type / shape from the
//    earlier allocation at the same address (each allocation is used once).
//  * fragmentation: the event's `fragmentation` stat when present; else
//    bytes_available / (bytes_allocated + bytes_available) -- the share of
//    the memory the allocator holds (in use + free) that is not in use --
//    and 0 when both are 0.
//  * Summary, from the events in plane order (line by line, each line's
//    events in order), as the plugin visits them:
//    peak_bytes_usage_lifetime = the peak_bytes_in_use stat of the
//    allocator's last event in that order (not the largest: in a file whose
//    lines are not in time order the last event visited may not be the
//    latest); peak_stats = the stats of the event with the largest stack +
//    heap (ties: the later in that order), with peak_bytes_in_use set to
//    that stack + heap; its time_offset_ps; memory_capacity = stack + heap +
//    free at that event.
//  * sampled_timeline_snapshots: all snapshots if at most
//    options.max_num_snapshots, else a max-box filter (by stack + heap) down
//    to exactly that many, which keeps the peak.
//  * active_allocations: allocations of the peak step made up to the peak
//    time and not freed by then, sorted by (-allocation_bytes,
//    -requested_bytes, op, region, data type, shape), identical rows merged
//    with num_occurrences; plus special rows for heap not explained by those
//    allocations ("unused preallocated device memory") and for the stack.
//    memory_profile_snapshots holds just the snapshots these rows reference,
//    in row order.
// Never fails: a space without /host:CPU or memory events gives a profile
// with no allocators.
tensorflow::profiler::MemoryProfile ConvertXSpaceToMemoryProfile(
    const xplane::XSpaceData& space, const MemoryProfileOptions& options = {});

// Protobuf JSON as the plugin serves it: lowerCamelCase field names, int64 as
// strings, fields with default values printed (the JSON value
// MessageToJsonString prints with always_print_primitive_fields; printed by
// proto_json.h). Errors: kInternal if the message cannot be printed.
absl::StatusOr<std::string> MemoryProfileToJson(const tensorflow::profiler::MemoryProfile& profile);

// TensorFlow's name for a DataType enum value ("float", "int32", "bfloat16",
// "INVALID" for 0, "<name>_ref" for ref types (value + 100)).
std::string TensorflowDataTypeName(int64_t data_type);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_MEMORY_XSPACE_TO_MEMORY_PROFILE_H_
