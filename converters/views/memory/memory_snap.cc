#include "converters/views/memory/memory_snap.h"

#include <string>

namespace tbprof::views::memory_profile {

using tensorflow::profiler::MemoryActivityMetadata;
using tensorflow::profiler::MemoryAggregationStats;
using tensorflow::profiler::MemoryProfileSnapshot;

void FillStats(const MemoryEventStats& s, MemoryAggregationStats* stats) {
  stats->set_stack_reserved_bytes(s.stack_bytes);
  stats->set_heap_allocated_bytes(s.heap_bytes);
  stats->set_free_memory_bytes(s.free_bytes);
  stats->set_fragmentation(s.fragmentation);
  stats->set_peak_bytes_in_use(s.peak_bytes_in_use);
}

void FillSnapshot(uint32_t snap, const Snap& s, const SnapContext& context,
                  MemoryProfileSnapshot* out) {
  const MemoryEventStats stats = context.StatsOf(snap);
  out->set_time_offset_ps(s.time_ps);
  FillStats(stats, out->mutable_aggregation_stats());
  MemoryActivityMetadata* meta = out->mutable_activity_metadata();
  meta->set_memory_activity(s.is_allocation ? tensorflow::profiler::ALLOCATION
                                            : tensorflow::profiler::DEALLOCATION);
  meta->set_requested_bytes(stats.requested_bytes);
  meta->set_allocation_bytes(stats.allocation_bytes);
  meta->set_address(stats.address);
  const SnapTexts& t = (*context.texts)[s.texts];
  meta->set_tf_op_name(std::string(t.tf_op));
  meta->set_step_id(context.step_ids->Get(s.step));
  meta->set_region_type(std::string(t.region_type));
  meta->set_data_type(std::string(t.data_type));
  meta->set_tensor_shape(std::string(t.tensor_shape));
}

}  // namespace tbprof::views::memory_profile
