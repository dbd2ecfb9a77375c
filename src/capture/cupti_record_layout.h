// Our own copies of the CUPTI 13.0 activity record layouts that the converters
// read, so that raw captures can be decoded without CUDA headers or libcupti.
//
// Each struct is byte-identical to the CUPTI struct named in its comment:
// src/collector/cupti_layout_test.cc static_asserts sizeof and the offset of
// every field against the real headers. Pointer fields are declared as
// uint64_t: in a capture written by our collector the `name`-like pointers
// hold string ids (see kHeaderFlagNameIdsInRecords), other pointers are
// zeroed. CUPTI only appends fields to newer struct versions, so a record
// written by a newer CUPTI can be read through these (shorter) layouts;
// a shorter record must be read with CopyRecord() (zero-fills the tail).
#ifndef TBPROF_SRC_CAPTURE_CUPTI_RECORD_LAYOUT_H_
#define TBPROF_SRC_CAPTURE_CUPTI_RECORD_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tbprof::capture::layout {

// CUpti_ActivityKind values used by the collector and converters.
enum ActivityKind : uint32_t {
  kKindMemcpy = 1,
  kKindMemset = 2,
  kKindKernel = 3,
  kKindDriver = 4,
  kKindRuntime = 5,
  kKindDevice = 8,
  kKindContext = 9,
  kKindConcurrentKernel = 10,
  kKindName = 11,
  kKindMarker = 12,
  kKindMarkerData = 13,
  kKindOverhead = 17,
  kKindCdpKernel = 18,
  kKindMemcpy2 = 22,
  kKindCudaEvent = 36,
  kKindSynchronization = 38,
  kKindExternalCorrelation = 39,
  kKindMemory2 = 49,
  kKindMemoryPool = 50,
  kKindGraphTrace = 51,
};
// Kinds are small integers; tables indexed by kind use this bound.
inline constexpr uint32_t kMaxKind = 128;

// CUpti_ActivityMemcpyKind
enum MemcpyKind : uint8_t {
  kMemcpyUnknown = 0, kMemcpyHtoD = 1, kMemcpyDtoH = 2, kMemcpyHtoA = 3, kMemcpyAtoH = 4,
  kMemcpyAtoA = 5, kMemcpyAtoD = 6, kMemcpyDtoA = 7, kMemcpyDtoD = 8, kMemcpyHtoH = 9,
  kMemcpyPtoP = 10,
};
// CUpti_ActivityMemoryKind
enum MemoryKind : uint8_t {
  kMemoryUnknown = 0, kMemoryPageable = 1, kMemoryPinned = 2, kMemoryDevice = 3,
  kMemoryArray = 4, kMemoryManaged = 5, kMemoryDeviceStatic = 6, kMemoryManagedStatic = 7,
};
// CUpti_ActivityFlag bits used by the records below.
inline constexpr uint32_t kFlagMemcpyAsync = 1u << 0;
inline constexpr uint32_t kFlagMemsetAsync = 1u << 0;
inline constexpr uint32_t kFlagMarkerInstantaneous = 1u << 0;
inline constexpr uint32_t kFlagMarkerStart = 1u << 1;
inline constexpr uint32_t kFlagMarkerEnd = 1u << 2;
// CUpti_ActivityMemoryOperationType
inline constexpr uint32_t kMemoryOpAllocation = 1;
inline constexpr uint32_t kMemoryOpRelease = 2;
// CUpti_ActivityObjectKind
inline constexpr uint32_t kObjectThread = 2;
// CUpti_FuncShmemLimitConfig
inline constexpr uint32_t kShmemLimitDefault = 0;
inline constexpr uint32_t kShmemLimitOptin = 1;

// CUpti_ActivityKernel10 (216 bytes).
struct KernelRecord {
  uint32_t kind;
  uint8_t cache_config;
  uint8_t shared_memory_config;
  uint16_t registers_per_thread;
  uint32_t partitioned_global_cache_requested;
  uint32_t partitioned_global_cache_executed;
  uint64_t start;
  uint64_t end;
  uint64_t completed;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  int32_t grid_x, grid_y, grid_z;
  int32_t block_x, block_y, block_z;
  int32_t static_shared_memory;
  int32_t dynamic_shared_memory;
  uint32_t local_memory_per_thread;
  uint32_t local_memory_total;
  uint32_t correlation_id;
  int64_t grid_id;
  uint64_t name;                    // string id
  uint64_t reserved0;
  uint64_t queued;
  uint64_t submitted;
  uint8_t launch_type;
  uint8_t is_shared_memory_carveout_requested;
  uint8_t shared_memory_carveout_requested;
  uint8_t padding;
  uint32_t shared_memory_executed;
  uint64_t graph_node_id;
  uint32_t shmem_limit_config;
  uint32_t graph_id;
  uint64_t access_policy_window;    // zeroed
  uint32_t channel_id;
  uint32_t channel_type;
  uint32_t cluster_x, cluster_y, cluster_z;
  uint32_t cluster_scheduling_policy;
  uint64_t local_memory_total_v2;
  uint32_t max_potential_cluster_size;
  uint32_t max_active_clusters;
  uint8_t is_device_launched;
  uint8_t padding3[7];
};

// CUpti_ActivityMemcpy6 (96 bytes).
struct MemcpyRecord {
  uint32_t kind;
  uint8_t copy_kind;
  uint8_t src_kind;
  uint8_t dst_kind;
  uint8_t flags;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t runtime_correlation_id;
  uint32_t pad;
  uint64_t reserved0;
  uint64_t graph_node_id;
  uint32_t graph_id;
  uint32_t channel_id;
  uint32_t channel_type;
  uint8_t is_device_launched;
  uint8_t pad2[3];
  uint64_t copy_count;
};

// CUpti_ActivityMemset4 (88 bytes).
struct MemsetRecord {
  uint32_t kind;
  uint32_t value;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint16_t flags;
  uint16_t memory_kind;
  uint32_t pad;
  uint64_t reserved0;
  uint64_t graph_node_id;
  uint32_t graph_id;
  uint32_t channel_id;
  uint32_t channel_type;
  uint8_t is_device_launched;
  uint8_t pad2[3];
};

// CUpti_ActivityAPI (40 bytes), kinds DRIVER and RUNTIME.
struct ApiRecord {
  uint32_t kind;
  uint32_t cbid;
  uint64_t start;
  uint64_t end;
  uint32_t process_id;
  uint32_t thread_id;
  uint32_t correlation_id;
  uint32_t return_value;
};

// CUpti_ActivityObjectKindId (12 bytes).
union ObjectKindId {
  struct {
    uint32_t process_id;
    uint32_t thread_id;
  } pt;
  struct {
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
  } dcs;
};

// CUpti_ActivityMarker2 (56 bytes).
struct MarkerRecord {
  uint32_t kind;
  uint32_t flags;
  uint64_t timestamp;
  uint32_t id;
  uint32_t object_kind;
  ObjectKindId object_id;
  uint32_t pad;
  uint64_t name;    // string id, 0 for END markers
  uint64_t domain;  // string id, 0 for the default domain
};

// CUpti_ActivityMarkerData2 (40 bytes).
struct MarkerDataRecord {
  uint32_t kind;
  uint32_t flags;
  uint32_t id;
  uint32_t payload_kind;
  uint64_t payload;  // CUpti_MetricValue bits
  uint32_t color;
  uint32_t category;
  uint32_t cupti_domain_id;
  uint32_t padding;
};

// CUpti_ActivityOverhead3 (56 bytes).
struct OverheadRecord {
  uint32_t kind;
  uint32_t overhead_kind;
  uint32_t object_kind;
  ObjectKindId object_id;
  uint64_t start;
  uint64_t end;
  uint32_t correlation_id;
  uint32_t reserved0;
  uint64_t overhead_data;  // zeroed
};

// CUpti_ActivitySynchronization2 (56 bytes).
struct SynchronizationRecord {
  uint32_t kind;
  uint32_t type;  // 1 event sync, 2 stream wait event, 3 stream sync, 4 context sync
  uint64_t start;
  uint64_t end;
  uint32_t correlation_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t cuda_event_id;
  uint64_t cuda_event_sync_id;
  uint32_t return_value;
  uint32_t pad;
};

// CUpti_ActivityExternalCorrelation (24 bytes).
struct ExternalCorrelationRecord {
  uint32_t kind;
  uint32_t external_kind;
  uint64_t external_id;
  uint32_t correlation_id;
  uint32_t reserved;
};

// CUpti_ActivityMemory4 (128 bytes), kind MEMORY2.
struct MemoryRecord {
  uint32_t kind;
  uint32_t memory_operation_type;
  uint32_t memory_kind;
  uint32_t correlation_id;
  uint64_t address;
  uint64_t bytes;
  uint64_t timestamp;
  uint64_t pc;
  uint32_t process_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint64_t name;  // string id
  uint32_t is_async;
  uint32_t pad1;
  struct {
    uint32_t memory_pool_type;
    uint32_t pad2;
    uint64_t address;
    uint64_t release_threshold;
    uint64_t pool_size_or_process_id;
    uint64_t utilized_size;
  } memory_pool_config;
  uint64_t source;  // string id
};

static_assert(sizeof(KernelRecord) == 216);
static_assert(sizeof(MemcpyRecord) == 96);
static_assert(sizeof(MemsetRecord) == 88);
static_assert(sizeof(ApiRecord) == 40);
static_assert(sizeof(MarkerRecord) == 56);
static_assert(sizeof(MarkerDataRecord) == 40);
static_assert(sizeof(OverheadRecord) == 56);
static_assert(sizeof(SynchronizationRecord) == 56);
static_assert(sizeof(ExternalCorrelationRecord) == 24);
static_assert(sizeof(MemoryRecord) == 128);

// Byte offsets of the pointer fields that the collector rewrites.
inline constexpr size_t kKernelNameOffset = offsetof(KernelRecord, name);
inline constexpr size_t kKernelAccessPolicyOffset = offsetof(KernelRecord, access_policy_window);
inline constexpr size_t kMarkerNameOffset = offsetof(MarkerRecord, name);
inline constexpr size_t kMarkerDomainOffset = offsetof(MarkerRecord, domain);
inline constexpr size_t kMemoryNameOffset = offsetof(MemoryRecord, name);
inline constexpr size_t kMemorySourceOffset = offsetof(MemoryRecord, source);
inline constexpr size_t kOverheadDataOffset = offsetof(OverheadRecord, overhead_data);

// Copies a record of `size` bytes into `*out`, zero-filling fields the record
// is too short to hold. Returns false if the record lacks even `kind`.
template <typename T>
bool CopyRecord(const void* record, size_t size, T* out) {
  if (size < sizeof(uint32_t)) return false;
  std::memset(out, 0, sizeof(T));
  std::memcpy(out, record, size < sizeof(T) ? size : sizeof(T));
  return true;
}

}  // namespace tbprof::capture::layout

#endif  // TBPROF_SRC_CAPTURE_CUPTI_RECORD_LAYOUT_H_
