#include "tests/fake_cupti/fake_workload.h"

#include <cupti.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "tests/fake_cupti/fake_cupti_control.h"

namespace tbprof::fake {

uint64_t RecordCounts::total() const {
  return kernels + memcpys + memsets + runtime + driver + markers + memory + syncs + external +
         overheads;
}

bool FakeGpu::Emit(const void* record, size_t size, size_t name_offset, const char* name,
                   size_t name2_offset, const char* name2) {
  int r = fakecupti_emit(record, size, name_offset, name, name2_offset, name2);
  if (r != 0) counts.rejected++;
  return r == 0;
}

void FakeGpu::Kernel(uint32_t device, uint32_t stream, uint32_t correlation, const char* name,
                     uint64_t start_ns, uint64_t end_ns) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.registersPerThread = 32;
  k.start = start_ns;
  k.end = end_ns;
  k.completed = end_ns;
  k.deviceId = device;
  k.contextId = 1;
  k.streamId = stream;
  k.gridX = 128;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 0;
  k.correlationId = correlation;
  k.pAccessPolicyWindow = reinterpret_cast<CUaccessPolicyWindow*>(uintptr_t{0xdeadbeef});
  if (Emit(&k, sizeof(k), offsetof(CUpti_ActivityKernel10, name), name)) counts.kernels++;
}

void FakeGpu::Api(bool runtime, uint32_t cbid, uint32_t correlation, uint64_t start_ns,
                  uint64_t end_ns) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof(a));
  a.kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = cbid;
  a.start = start_ns;
  a.end = end_ns;
  a.processId = static_cast<uint32_t>(getpid());
  a.threadId = static_cast<uint32_t>(gettid());
  a.correlationId = correlation;
  if (Emit(&a, sizeof(a))) (runtime ? counts.runtime : counts.driver)++;
}

void FakeGpu::Memcpy(uint32_t device, uint32_t stream, uint32_t correlation, uint8_t copy_kind,
                     uint64_t bytes, uint64_t start_ns, uint64_t end_ns) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = copy_kind;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = bytes;
  m.start = start_ns;
  m.end = end_ns;
  m.deviceId = device;
  m.contextId = 1;
  m.streamId = stream;
  m.correlationId = correlation;
  m.copyCount = 1;
  if (Emit(&m, sizeof(m))) counts.memcpys++;
}

void FakeGpu::Memset(uint32_t device, uint32_t stream, uint32_t correlation, uint64_t bytes,
                     uint64_t start_ns, uint64_t end_ns) {
  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.bytes = bytes;
  m.start = start_ns;
  m.end = end_ns;
  m.deviceId = device;
  m.contextId = 1;
  m.streamId = stream;
  m.correlationId = correlation;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  if (Emit(&m, sizeof(m))) counts.memsets++;
}

void FakeGpu::Memory(bool allocation, uint32_t device, uint64_t address, uint64_t bytes,
                     uint64_t timestamp_ns) {
  CUpti_ActivityMemory4 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = allocation ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                                     : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.address = address;
  m.bytes = bytes;
  m.timestamp = timestamp_ns;
  m.processId = static_cast<uint32_t>(getpid());
  m.deviceId = device;
  m.contextId = 1;
  if (Emit(&m, sizeof(m), offsetof(CUpti_ActivityMemory4, name), "activations")) {
    counts.memory++;
  }
}

void FakeGpu::Range(uint32_t id, const char* name, const char* domain, uint64_t start_ns,
                    uint64_t end_ns) {
  CUpti_ActivityMarker2 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  m.timestamp = start_ns;
  m.id = id;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = static_cast<uint32_t>(getpid());
  m.objectId.pt.threadId = static_cast<uint32_t>(gettid());
  if (Emit(&m, sizeof(m), offsetof(CUpti_ActivityMarker2, name), name,
           offsetof(CUpti_ActivityMarker2, domain), domain)) {
    counts.markers++;
  }
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  m.timestamp = end_ns;
  if (Emit(&m, sizeof(m))) counts.markers++;
}

void FakeGpu::Sync(uint32_t correlation, uint32_t stream, uint64_t start_ns, uint64_t end_ns) {
  CUpti_ActivitySynchronization2 s;
  std::memset(&s, 0, sizeof(s));
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = start_ns;
  s.end = end_ns;
  s.correlationId = correlation;
  s.contextId = 1;
  s.streamId = stream;
  if (Emit(&s, sizeof(s))) counts.syncs++;
}

void FakeGpu::External(uint64_t external_id, uint32_t correlation) {
  CUpti_ActivityExternalCorrelation e;
  std::memset(&e, 0, sizeof(e));
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  e.externalId = external_id;
  e.correlationId = correlation;
  if (Emit(&e, sizeof(e))) counts.external++;
}

void FakeGpu::Overhead(uint64_t start_ns, uint64_t end_ns) {
  CUpti_ActivityOverhead3 o;
  std::memset(&o, 0, sizeof(o));
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.threadId = static_cast<uint32_t>(gettid());
  o.start = start_ns;
  o.end = end_ns;
  o.overheadData = reinterpret_cast<void*>(uintptr_t{0xfeedface});
  if (Emit(&o, sizeof(o))) counts.overheads++;
}

void FakeGpu::Step(int step, int kernels, int devices, int streams) {
  // A step's records span [t, t + 9500 ns] of the clock it starts from: the
  // next step of the thread starts after that, so that steps of one thread
  // never overlap (on an idle machine two calls came less than 9.5 us
  // apart, the next step's range began inside this one, and the converter
  // moved the partly overlapping root to an "(overlapping)" line). A caller
  // with work between steps (the benchmark) never waits.
  thread_local uint64_t last_step_end_ns = 0;
  while (fakecupti_now() < last_step_end_ns) {
  }
  uint64_t t = fakecupti_now();
  std::string step_name = "ProfilerStep#" + std::to_string(step);
  for (int k = 0; k < kernels; ++k) {
    uint32_t corr = NextCorrelation();
    uint32_t device = static_cast<uint32_t>(k % devices);
    uint32_t stream = 7 + static_cast<uint32_t>(k % streams);
    External(/*external_id=*/1000 + corr, corr);
    Api(/*runtime=*/true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, corr, t + 10 * k,
        t + 10 * k + 5);
    std::string name = "kernel_" + std::to_string(k);
    Kernel(device, stream, corr, name.c_str(), t + 1000 + 100 * k, t + 1050 + 100 * k);
  }
  uint32_t corr = NextCorrelation();
  Api(/*runtime=*/true, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, corr, t, t + 3);
  Memcpy(0, 7, corr, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1 << 20, t + 500, t + 700);
  corr = NextCorrelation();
  Api(/*runtime=*/false, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, corr, t, t + 2);
  Memset(0, 7, corr, 4096, t + 800, t + 810);
  Memory(/*allocation=*/true, 0, 0x7f0000000000ull + step * 0x100000ull, 1 << 20, t + 5);
  Memory(/*allocation=*/false, 0, 0x7f0000000000ull + step * 0x100000ull, 1 << 20, t + 9000);
  corr = NextCorrelation();
  Sync(corr, 7, t + 9000, t + 9100);
  Overhead(t + 1, t + 2);
  Range(next_marker_.fetch_add(1) + 1, step_name.c_str(), nullptr, t, t + 9500);
  last_step_end_ns = t + 9500;
}

}  // namespace tbprof::fake
