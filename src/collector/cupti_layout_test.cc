// Verifies at compile time that src/capture/cupti_record_layout.h matches the
// CUDA 13 CUPTI headers byte for byte (the converters read captures through
// those copies, without CUDA). A mismatch fails the build of this test.
#include <cupti.h>

#include <cstddef>

#include "gtest/gtest.h"
#include "src/capture/cupti_record_layout.h"

namespace tbprof::capture::layout {
namespace {

#define TBPROF_SAME_FIELD(Ours, ours_field, Theirs, their_field)                     \
  static_assert(offsetof(Ours, ours_field) == offsetof(Theirs, their_field),        \
                #Ours "." #ours_field " offset differs from " #Theirs);             \
  static_assert(sizeof(Ours::ours_field) == sizeof(Theirs::their_field) ||          \
                    sizeof(((Ours*)0)->ours_field) == sizeof(((Theirs*)0)->their_field), \
                #Ours "." #ours_field " size differs from " #Theirs)

static_assert(sizeof(KernelRecord) == sizeof(CUpti_ActivityKernel10));
TBPROF_SAME_FIELD(KernelRecord, kind, CUpti_ActivityKernel10, kind);
TBPROF_SAME_FIELD(KernelRecord, cache_config, CUpti_ActivityKernel10, cacheConfig);
TBPROF_SAME_FIELD(KernelRecord, shared_memory_config, CUpti_ActivityKernel10, sharedMemoryConfig);
TBPROF_SAME_FIELD(KernelRecord, registers_per_thread, CUpti_ActivityKernel10, registersPerThread);
TBPROF_SAME_FIELD(KernelRecord, partitioned_global_cache_requested, CUpti_ActivityKernel10, partitionedGlobalCacheRequested);
TBPROF_SAME_FIELD(KernelRecord, partitioned_global_cache_executed, CUpti_ActivityKernel10, partitionedGlobalCacheExecuted);
TBPROF_SAME_FIELD(KernelRecord, start, CUpti_ActivityKernel10, start);
TBPROF_SAME_FIELD(KernelRecord, end, CUpti_ActivityKernel10, end);
TBPROF_SAME_FIELD(KernelRecord, completed, CUpti_ActivityKernel10, completed);
TBPROF_SAME_FIELD(KernelRecord, device_id, CUpti_ActivityKernel10, deviceId);
TBPROF_SAME_FIELD(KernelRecord, context_id, CUpti_ActivityKernel10, contextId);
TBPROF_SAME_FIELD(KernelRecord, stream_id, CUpti_ActivityKernel10, streamId);
TBPROF_SAME_FIELD(KernelRecord, grid_x, CUpti_ActivityKernel10, gridX);
TBPROF_SAME_FIELD(KernelRecord, grid_y, CUpti_ActivityKernel10, gridY);
TBPROF_SAME_FIELD(KernelRecord, grid_z, CUpti_ActivityKernel10, gridZ);
TBPROF_SAME_FIELD(KernelRecord, block_x, CUpti_ActivityKernel10, blockX);
TBPROF_SAME_FIELD(KernelRecord, block_y, CUpti_ActivityKernel10, blockY);
TBPROF_SAME_FIELD(KernelRecord, block_z, CUpti_ActivityKernel10, blockZ);
TBPROF_SAME_FIELD(KernelRecord, static_shared_memory, CUpti_ActivityKernel10, staticSharedMemory);
TBPROF_SAME_FIELD(KernelRecord, dynamic_shared_memory, CUpti_ActivityKernel10, dynamicSharedMemory);
TBPROF_SAME_FIELD(KernelRecord, local_memory_per_thread, CUpti_ActivityKernel10, localMemoryPerThread);
TBPROF_SAME_FIELD(KernelRecord, local_memory_total, CUpti_ActivityKernel10, localMemoryTotal);
TBPROF_SAME_FIELD(KernelRecord, correlation_id, CUpti_ActivityKernel10, correlationId);
TBPROF_SAME_FIELD(KernelRecord, grid_id, CUpti_ActivityKernel10, gridId);
TBPROF_SAME_FIELD(KernelRecord, name, CUpti_ActivityKernel10, name);
TBPROF_SAME_FIELD(KernelRecord, reserved0, CUpti_ActivityKernel10, reserved0);
TBPROF_SAME_FIELD(KernelRecord, queued, CUpti_ActivityKernel10, queued);
TBPROF_SAME_FIELD(KernelRecord, submitted, CUpti_ActivityKernel10, submitted);
TBPROF_SAME_FIELD(KernelRecord, launch_type, CUpti_ActivityKernel10, launchType);
TBPROF_SAME_FIELD(KernelRecord, is_shared_memory_carveout_requested, CUpti_ActivityKernel10, isSharedMemoryCarveoutRequested);
TBPROF_SAME_FIELD(KernelRecord, shared_memory_carveout_requested, CUpti_ActivityKernel10, sharedMemoryCarveoutRequested);
TBPROF_SAME_FIELD(KernelRecord, padding, CUpti_ActivityKernel10, padding);
TBPROF_SAME_FIELD(KernelRecord, shared_memory_executed, CUpti_ActivityKernel10, sharedMemoryExecuted);
TBPROF_SAME_FIELD(KernelRecord, graph_node_id, CUpti_ActivityKernel10, graphNodeId);
TBPROF_SAME_FIELD(KernelRecord, shmem_limit_config, CUpti_ActivityKernel10, shmemLimitConfig);
TBPROF_SAME_FIELD(KernelRecord, graph_id, CUpti_ActivityKernel10, graphId);
TBPROF_SAME_FIELD(KernelRecord, access_policy_window, CUpti_ActivityKernel10, pAccessPolicyWindow);
TBPROF_SAME_FIELD(KernelRecord, channel_id, CUpti_ActivityKernel10, channelID);
TBPROF_SAME_FIELD(KernelRecord, channel_type, CUpti_ActivityKernel10, channelType);
TBPROF_SAME_FIELD(KernelRecord, cluster_x, CUpti_ActivityKernel10, clusterX);
TBPROF_SAME_FIELD(KernelRecord, cluster_y, CUpti_ActivityKernel10, clusterY);
TBPROF_SAME_FIELD(KernelRecord, cluster_z, CUpti_ActivityKernel10, clusterZ);
TBPROF_SAME_FIELD(KernelRecord, cluster_scheduling_policy, CUpti_ActivityKernel10, clusterSchedulingPolicy);
TBPROF_SAME_FIELD(KernelRecord, local_memory_total_v2, CUpti_ActivityKernel10, localMemoryTotal_v2);
TBPROF_SAME_FIELD(KernelRecord, max_potential_cluster_size, CUpti_ActivityKernel10, maxPotentialClusterSize);
TBPROF_SAME_FIELD(KernelRecord, max_active_clusters, CUpti_ActivityKernel10, maxActiveClusters);
TBPROF_SAME_FIELD(KernelRecord, is_device_launched, CUpti_ActivityKernel10, isDeviceLaunched);
TBPROF_SAME_FIELD(KernelRecord, padding3, CUpti_ActivityKernel10, padding3);
static_assert(sizeof(MemcpyRecord) == sizeof(CUpti_ActivityMemcpy6));
TBPROF_SAME_FIELD(MemcpyRecord, kind, CUpti_ActivityMemcpy6, kind);
TBPROF_SAME_FIELD(MemcpyRecord, copy_kind, CUpti_ActivityMemcpy6, copyKind);
TBPROF_SAME_FIELD(MemcpyRecord, src_kind, CUpti_ActivityMemcpy6, srcKind);
TBPROF_SAME_FIELD(MemcpyRecord, dst_kind, CUpti_ActivityMemcpy6, dstKind);
TBPROF_SAME_FIELD(MemcpyRecord, flags, CUpti_ActivityMemcpy6, flags);
TBPROF_SAME_FIELD(MemcpyRecord, bytes, CUpti_ActivityMemcpy6, bytes);
TBPROF_SAME_FIELD(MemcpyRecord, start, CUpti_ActivityMemcpy6, start);
TBPROF_SAME_FIELD(MemcpyRecord, end, CUpti_ActivityMemcpy6, end);
TBPROF_SAME_FIELD(MemcpyRecord, device_id, CUpti_ActivityMemcpy6, deviceId);
TBPROF_SAME_FIELD(MemcpyRecord, context_id, CUpti_ActivityMemcpy6, contextId);
TBPROF_SAME_FIELD(MemcpyRecord, stream_id, CUpti_ActivityMemcpy6, streamId);
TBPROF_SAME_FIELD(MemcpyRecord, correlation_id, CUpti_ActivityMemcpy6, correlationId);
TBPROF_SAME_FIELD(MemcpyRecord, runtime_correlation_id, CUpti_ActivityMemcpy6, runtimeCorrelationId);
TBPROF_SAME_FIELD(MemcpyRecord, pad, CUpti_ActivityMemcpy6, pad);
TBPROF_SAME_FIELD(MemcpyRecord, reserved0, CUpti_ActivityMemcpy6, reserved0);
TBPROF_SAME_FIELD(MemcpyRecord, graph_node_id, CUpti_ActivityMemcpy6, graphNodeId);
TBPROF_SAME_FIELD(MemcpyRecord, graph_id, CUpti_ActivityMemcpy6, graphId);
TBPROF_SAME_FIELD(MemcpyRecord, channel_id, CUpti_ActivityMemcpy6, channelID);
TBPROF_SAME_FIELD(MemcpyRecord, channel_type, CUpti_ActivityMemcpy6, channelType);
TBPROF_SAME_FIELD(MemcpyRecord, is_device_launched, CUpti_ActivityMemcpy6, isDeviceLaunched);
TBPROF_SAME_FIELD(MemcpyRecord, pad2, CUpti_ActivityMemcpy6, pad2);
TBPROF_SAME_FIELD(MemcpyRecord, copy_count, CUpti_ActivityMemcpy6, copyCount);
static_assert(sizeof(MemsetRecord) == sizeof(CUpti_ActivityMemset4));
TBPROF_SAME_FIELD(MemsetRecord, kind, CUpti_ActivityMemset4, kind);
TBPROF_SAME_FIELD(MemsetRecord, value, CUpti_ActivityMemset4, value);
TBPROF_SAME_FIELD(MemsetRecord, bytes, CUpti_ActivityMemset4, bytes);
TBPROF_SAME_FIELD(MemsetRecord, start, CUpti_ActivityMemset4, start);
TBPROF_SAME_FIELD(MemsetRecord, end, CUpti_ActivityMemset4, end);
TBPROF_SAME_FIELD(MemsetRecord, device_id, CUpti_ActivityMemset4, deviceId);
TBPROF_SAME_FIELD(MemsetRecord, context_id, CUpti_ActivityMemset4, contextId);
TBPROF_SAME_FIELD(MemsetRecord, stream_id, CUpti_ActivityMemset4, streamId);
TBPROF_SAME_FIELD(MemsetRecord, correlation_id, CUpti_ActivityMemset4, correlationId);
TBPROF_SAME_FIELD(MemsetRecord, flags, CUpti_ActivityMemset4, flags);
TBPROF_SAME_FIELD(MemsetRecord, memory_kind, CUpti_ActivityMemset4, memoryKind);
TBPROF_SAME_FIELD(MemsetRecord, pad, CUpti_ActivityMemset4, pad);
TBPROF_SAME_FIELD(MemsetRecord, reserved0, CUpti_ActivityMemset4, reserved0);
TBPROF_SAME_FIELD(MemsetRecord, graph_node_id, CUpti_ActivityMemset4, graphNodeId);
TBPROF_SAME_FIELD(MemsetRecord, graph_id, CUpti_ActivityMemset4, graphId);
TBPROF_SAME_FIELD(MemsetRecord, channel_id, CUpti_ActivityMemset4, channelID);
TBPROF_SAME_FIELD(MemsetRecord, channel_type, CUpti_ActivityMemset4, channelType);
TBPROF_SAME_FIELD(MemsetRecord, is_device_launched, CUpti_ActivityMemset4, isDeviceLaunched);
TBPROF_SAME_FIELD(MemsetRecord, pad2, CUpti_ActivityMemset4, pad2);
static_assert(sizeof(ApiRecord) == sizeof(CUpti_ActivityAPI));
TBPROF_SAME_FIELD(ApiRecord, kind, CUpti_ActivityAPI, kind);
TBPROF_SAME_FIELD(ApiRecord, cbid, CUpti_ActivityAPI, cbid);
TBPROF_SAME_FIELD(ApiRecord, start, CUpti_ActivityAPI, start);
TBPROF_SAME_FIELD(ApiRecord, end, CUpti_ActivityAPI, end);
TBPROF_SAME_FIELD(ApiRecord, process_id, CUpti_ActivityAPI, processId);
TBPROF_SAME_FIELD(ApiRecord, thread_id, CUpti_ActivityAPI, threadId);
TBPROF_SAME_FIELD(ApiRecord, correlation_id, CUpti_ActivityAPI, correlationId);
TBPROF_SAME_FIELD(ApiRecord, return_value, CUpti_ActivityAPI, returnValue);
static_assert(sizeof(MarkerRecord) == sizeof(CUpti_ActivityMarker2));
TBPROF_SAME_FIELD(MarkerRecord, kind, CUpti_ActivityMarker2, kind);
TBPROF_SAME_FIELD(MarkerRecord, flags, CUpti_ActivityMarker2, flags);
TBPROF_SAME_FIELD(MarkerRecord, timestamp, CUpti_ActivityMarker2, timestamp);
TBPROF_SAME_FIELD(MarkerRecord, id, CUpti_ActivityMarker2, id);
TBPROF_SAME_FIELD(MarkerRecord, object_kind, CUpti_ActivityMarker2, objectKind);
TBPROF_SAME_FIELD(MarkerRecord, object_id, CUpti_ActivityMarker2, objectId);
TBPROF_SAME_FIELD(MarkerRecord, pad, CUpti_ActivityMarker2, pad);
TBPROF_SAME_FIELD(MarkerRecord, name, CUpti_ActivityMarker2, name);
TBPROF_SAME_FIELD(MarkerRecord, domain, CUpti_ActivityMarker2, domain);
static_assert(sizeof(MarkerDataRecord) == sizeof(CUpti_ActivityMarkerData2));
TBPROF_SAME_FIELD(MarkerDataRecord, kind, CUpti_ActivityMarkerData2, kind);
TBPROF_SAME_FIELD(MarkerDataRecord, flags, CUpti_ActivityMarkerData2, flags);
TBPROF_SAME_FIELD(MarkerDataRecord, id, CUpti_ActivityMarkerData2, id);
TBPROF_SAME_FIELD(MarkerDataRecord, payload_kind, CUpti_ActivityMarkerData2, payloadKind);
TBPROF_SAME_FIELD(MarkerDataRecord, payload, CUpti_ActivityMarkerData2, payload);
TBPROF_SAME_FIELD(MarkerDataRecord, color, CUpti_ActivityMarkerData2, color);
TBPROF_SAME_FIELD(MarkerDataRecord, category, CUpti_ActivityMarkerData2, category);
TBPROF_SAME_FIELD(MarkerDataRecord, cupti_domain_id, CUpti_ActivityMarkerData2, cuptiDomainId);
TBPROF_SAME_FIELD(MarkerDataRecord, padding, CUpti_ActivityMarkerData2, padding);
static_assert(sizeof(OverheadRecord) == sizeof(CUpti_ActivityOverhead3));
TBPROF_SAME_FIELD(OverheadRecord, kind, CUpti_ActivityOverhead3, kind);
TBPROF_SAME_FIELD(OverheadRecord, overhead_kind, CUpti_ActivityOverhead3, overheadKind);
TBPROF_SAME_FIELD(OverheadRecord, object_kind, CUpti_ActivityOverhead3, objectKind);
TBPROF_SAME_FIELD(OverheadRecord, object_id, CUpti_ActivityOverhead3, objectId);
TBPROF_SAME_FIELD(OverheadRecord, start, CUpti_ActivityOverhead3, start);
TBPROF_SAME_FIELD(OverheadRecord, end, CUpti_ActivityOverhead3, end);
TBPROF_SAME_FIELD(OverheadRecord, correlation_id, CUpti_ActivityOverhead3, correlationId);
TBPROF_SAME_FIELD(OverheadRecord, reserved0, CUpti_ActivityOverhead3, reserved0);
TBPROF_SAME_FIELD(OverheadRecord, overhead_data, CUpti_ActivityOverhead3, overheadData);
static_assert(sizeof(SynchronizationRecord) == sizeof(CUpti_ActivitySynchronization2));
TBPROF_SAME_FIELD(SynchronizationRecord, kind, CUpti_ActivitySynchronization2, kind);
TBPROF_SAME_FIELD(SynchronizationRecord, type, CUpti_ActivitySynchronization2, type);
TBPROF_SAME_FIELD(SynchronizationRecord, start, CUpti_ActivitySynchronization2, start);
TBPROF_SAME_FIELD(SynchronizationRecord, end, CUpti_ActivitySynchronization2, end);
TBPROF_SAME_FIELD(SynchronizationRecord, correlation_id, CUpti_ActivitySynchronization2, correlationId);
TBPROF_SAME_FIELD(SynchronizationRecord, context_id, CUpti_ActivitySynchronization2, contextId);
TBPROF_SAME_FIELD(SynchronizationRecord, stream_id, CUpti_ActivitySynchronization2, streamId);
TBPROF_SAME_FIELD(SynchronizationRecord, cuda_event_id, CUpti_ActivitySynchronization2, cudaEventId);
TBPROF_SAME_FIELD(SynchronizationRecord, cuda_event_sync_id, CUpti_ActivitySynchronization2, cudaEventSyncId);
TBPROF_SAME_FIELD(SynchronizationRecord, return_value, CUpti_ActivitySynchronization2, returnValue);
TBPROF_SAME_FIELD(SynchronizationRecord, pad, CUpti_ActivitySynchronization2, pad);
static_assert(sizeof(ExternalCorrelationRecord) == sizeof(CUpti_ActivityExternalCorrelation));
TBPROF_SAME_FIELD(ExternalCorrelationRecord, kind, CUpti_ActivityExternalCorrelation, kind);
TBPROF_SAME_FIELD(ExternalCorrelationRecord, external_kind, CUpti_ActivityExternalCorrelation, externalKind);
TBPROF_SAME_FIELD(ExternalCorrelationRecord, external_id, CUpti_ActivityExternalCorrelation, externalId);
TBPROF_SAME_FIELD(ExternalCorrelationRecord, correlation_id, CUpti_ActivityExternalCorrelation, correlationId);
TBPROF_SAME_FIELD(ExternalCorrelationRecord, reserved, CUpti_ActivityExternalCorrelation, reserved);
static_assert(sizeof(MemoryRecord) == sizeof(CUpti_ActivityMemory4));
TBPROF_SAME_FIELD(MemoryRecord, kind, CUpti_ActivityMemory4, kind);
TBPROF_SAME_FIELD(MemoryRecord, memory_operation_type, CUpti_ActivityMemory4, memoryOperationType);
TBPROF_SAME_FIELD(MemoryRecord, memory_kind, CUpti_ActivityMemory4, memoryKind);
TBPROF_SAME_FIELD(MemoryRecord, correlation_id, CUpti_ActivityMemory4, correlationId);
TBPROF_SAME_FIELD(MemoryRecord, address, CUpti_ActivityMemory4, address);
TBPROF_SAME_FIELD(MemoryRecord, bytes, CUpti_ActivityMemory4, bytes);
TBPROF_SAME_FIELD(MemoryRecord, timestamp, CUpti_ActivityMemory4, timestamp);
TBPROF_SAME_FIELD(MemoryRecord, pc, CUpti_ActivityMemory4, PC);
TBPROF_SAME_FIELD(MemoryRecord, process_id, CUpti_ActivityMemory4, processId);
TBPROF_SAME_FIELD(MemoryRecord, device_id, CUpti_ActivityMemory4, deviceId);
TBPROF_SAME_FIELD(MemoryRecord, context_id, CUpti_ActivityMemory4, contextId);
TBPROF_SAME_FIELD(MemoryRecord, stream_id, CUpti_ActivityMemory4, streamId);
TBPROF_SAME_FIELD(MemoryRecord, name, CUpti_ActivityMemory4, name);
TBPROF_SAME_FIELD(MemoryRecord, is_async, CUpti_ActivityMemory4, isAsync);
TBPROF_SAME_FIELD(MemoryRecord, pad1, CUpti_ActivityMemory4, pad1);
TBPROF_SAME_FIELD(MemoryRecord, memory_pool_config, CUpti_ActivityMemory4, memoryPoolConfig);
static_assert(offsetof(MemoryRecord, memory_pool_config.memory_pool_type) == offsetof(CUpti_ActivityMemory4, memoryPoolConfig.memoryPoolType));
static_assert(offsetof(MemoryRecord, memory_pool_config.address) == offsetof(CUpti_ActivityMemory4, memoryPoolConfig.address));
static_assert(offsetof(MemoryRecord, memory_pool_config.release_threshold) == offsetof(CUpti_ActivityMemory4, memoryPoolConfig.releaseThreshold));
static_assert(offsetof(MemoryRecord, memory_pool_config.pool_size_or_process_id) == offsetof(CUpti_ActivityMemory4, memoryPoolConfig.pool));
static_assert(offsetof(MemoryRecord, memory_pool_config.utilized_size) == offsetof(CUpti_ActivityMemory4, memoryPoolConfig.utilizedSize));
TBPROF_SAME_FIELD(MemoryRecord, source, CUpti_ActivityMemory4, source);

static_assert(sizeof(ObjectKindId) == sizeof(CUpti_ActivityObjectKindId));
static_assert(offsetof(ObjectKindId, pt.thread_id) == offsetof(CUpti_ActivityObjectKindId, pt.threadId));
static_assert(offsetof(ObjectKindId, dcs.stream_id) == offsetof(CUpti_ActivityObjectKindId, dcs.streamId));

static_assert(static_cast<int>(kKindMemcpy) == static_cast<int>(CUPTI_ACTIVITY_KIND_MEMCPY));
static_assert(static_cast<int>(kKindMemset) == static_cast<int>(CUPTI_ACTIVITY_KIND_MEMSET));
static_assert(static_cast<int>(kKindKernel) == static_cast<int>(CUPTI_ACTIVITY_KIND_KERNEL));
static_assert(static_cast<int>(kKindDriver) == static_cast<int>(CUPTI_ACTIVITY_KIND_DRIVER));
static_assert(static_cast<int>(kKindRuntime) == static_cast<int>(CUPTI_ACTIVITY_KIND_RUNTIME));
static_assert(static_cast<int>(kKindDevice) == static_cast<int>(CUPTI_ACTIVITY_KIND_DEVICE));
static_assert(static_cast<int>(kKindContext) == static_cast<int>(CUPTI_ACTIVITY_KIND_CONTEXT));
static_assert(static_cast<int>(kKindConcurrentKernel) == static_cast<int>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
static_assert(static_cast<int>(kKindName) == static_cast<int>(CUPTI_ACTIVITY_KIND_NAME));
static_assert(static_cast<int>(kKindMarker) == static_cast<int>(CUPTI_ACTIVITY_KIND_MARKER));
static_assert(static_cast<int>(kKindMarkerData) == static_cast<int>(CUPTI_ACTIVITY_KIND_MARKER_DATA));
static_assert(static_cast<int>(kKindOverhead) == static_cast<int>(CUPTI_ACTIVITY_KIND_OVERHEAD));
static_assert(static_cast<int>(kKindCdpKernel) == static_cast<int>(CUPTI_ACTIVITY_KIND_CDP_KERNEL));
static_assert(static_cast<int>(kKindMemcpy2) == static_cast<int>(CUPTI_ACTIVITY_KIND_MEMCPY2));
static_assert(static_cast<int>(kKindCudaEvent) == static_cast<int>(CUPTI_ACTIVITY_KIND_CUDA_EVENT));
static_assert(static_cast<int>(kKindSynchronization) == static_cast<int>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
static_assert(static_cast<int>(kKindExternalCorrelation) == static_cast<int>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
static_assert(static_cast<int>(kKindMemory2) == static_cast<int>(CUPTI_ACTIVITY_KIND_MEMORY2));
static_assert(static_cast<int>(kKindMemoryPool) == static_cast<int>(CUPTI_ACTIVITY_KIND_MEMORY_POOL));
static_assert(static_cast<int>(kKindGraphTrace) == static_cast<int>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
static_assert(CUPTI_ACTIVITY_KIND_MEM_DECOMPRESS < kMaxKind);
static_assert(static_cast<int>(kMemcpyHtoD) == static_cast<int>(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD));
static_assert(static_cast<int>(kMemcpyDtoH) == static_cast<int>(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH));
static_assert(static_cast<int>(kMemcpyDtoD) == static_cast<int>(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD));
static_assert(static_cast<int>(kMemcpyHtoH) == static_cast<int>(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH));
static_assert(static_cast<int>(kMemcpyPtoP) == static_cast<int>(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP));
static_assert(static_cast<int>(kMemoryPageable) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE));
static_assert(static_cast<int>(kMemoryPinned) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
static_assert(static_cast<int>(kMemoryDevice) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE));
static_assert(static_cast<int>(kMemoryManagedStatic) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC));
static_assert(kFlagMemcpyAsync == CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
static_assert(kFlagMemsetAsync == CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC);
static_assert(kFlagMarkerInstantaneous == CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
static_assert(kFlagMarkerStart == CUPTI_ACTIVITY_FLAG_MARKER_START);
static_assert(kFlagMarkerEnd == CUPTI_ACTIVITY_FLAG_MARKER_END);
static_assert(static_cast<int>(kMemoryOpAllocation) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION));
static_assert(static_cast<int>(kMemoryOpRelease) == static_cast<int>(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE));
static_assert(kObjectThread == CUPTI_ACTIVITY_OBJECT_THREAD);
static_assert(kShmemLimitDefault == CUPTI_FUNC_SHMEM_LIMIT_DEFAULT);
static_assert(kShmemLimitOptin == CUPTI_FUNC_SHMEM_LIMIT_OPTIN);

// The checks above run at compile time; this keeps a runnable test target.
TEST(CuptiLayoutTest, RecordSizesMatchTheCuda13Headers) {
  EXPECT_EQ(sizeof(KernelRecord), 216u);
  EXPECT_EQ(kKernelNameOffset, offsetof(CUpti_ActivityKernel10, name));
  EXPECT_EQ(kMarkerDomainOffset, offsetof(CUpti_ActivityMarker2, domain));
  EXPECT_EQ(kMemorySourceOffset, offsetof(CUpti_ActivityMemory4, source));
}

}  // namespace
}  // namespace tbprof::capture::layout
