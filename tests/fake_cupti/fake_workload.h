// Scripted GPU workloads for the fake libcupti: builds real CUDA 13 CUPTI
// activity records and emits them through fakecupti_emit(). Used by the
// collector end-to-end tests and benchmarks.
#ifndef TBPROF_TESTS_FAKE_CUPTI_FAKE_WORKLOAD_H_
#define TBPROF_TESTS_FAKE_CUPTI_FAKE_WORKLOAD_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace tbprof::fake {

// Records the fake accepted (not dropped or disabled), by kind.
struct RecordCounts {
  std::atomic<uint64_t> kernels{0};
  std::atomic<uint64_t> memcpys{0};
  std::atomic<uint64_t> memsets{0};
  std::atomic<uint64_t> runtime{0};
  std::atomic<uint64_t> driver{0};
  std::atomic<uint64_t> markers{0};
  std::atomic<uint64_t> memory{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> external{0};
  std::atomic<uint64_t> overheads{0};
  std::atomic<uint64_t> rejected{0};
  uint64_t total() const;
};

class FakeGpu {
 public:
  uint32_t NextCorrelation() { return next_correlation_.fetch_add(1) + 1; }

  void Kernel(uint32_t device, uint32_t stream, uint32_t correlation, const char* name,
              uint64_t start_ns, uint64_t end_ns);
  void Api(bool runtime, uint32_t cbid, uint32_t correlation, uint64_t start_ns,
           uint64_t end_ns);
  void Memcpy(uint32_t device, uint32_t stream, uint32_t correlation, uint8_t copy_kind,
              uint64_t bytes, uint64_t start_ns, uint64_t end_ns);
  void Memset(uint32_t device, uint32_t stream, uint32_t correlation, uint64_t bytes,
              uint64_t start_ns, uint64_t end_ns);
  void Memory(bool allocation, uint32_t device, uint64_t address, uint64_t bytes,
              uint64_t timestamp_ns);
  // An NVTX push/pop range on the calling thread: a START and an END marker.
  void Range(uint32_t id, const char* name, const char* domain, uint64_t start_ns,
             uint64_t end_ns);
  void Sync(uint32_t correlation, uint32_t stream, uint64_t start_ns, uint64_t end_ns);
  void External(uint64_t external_id, uint32_t correlation);
  void Overhead(uint64_t start_ns, uint64_t end_ns);

  // One training step on the calling thread: an NVTX range "ProfilerStep#<step>"
  // around `kernels` launches (runtime record + external correlation + kernel
  // named "kernel_<k>" spread over `devices` x `streams`), one HtoD memcpy,
  // one memset, an allocation and its free, a stream sync and an overhead,
  // all within 9.5 us of the step's start; a step starts no earlier than the
  // end of the thread's previous one (it waits for it), so steps of one
  // thread do not overlap.
  void Step(int step, int kernels, int devices, int streams);

  RecordCounts counts;

 private:
  bool Emit(const void* record, size_t size, size_t name_offset = 0, const char* name = nullptr,
            size_t name2_offset = 0, const char* name2 = nullptr);
  std::atomic<uint32_t> next_correlation_{0};
  std::atomic<uint32_t> next_marker_{0};
};

}  // namespace tbprof::fake

#endif  // TBPROF_TESTS_FAKE_CUPTI_FAKE_WORKLOAD_H_
