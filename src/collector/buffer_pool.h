// Fixed pool of equally sized activity buffers, allocated once up front.
//
// Pop()/Push() are lock-free and never allocate: they run inside CUPTI's
// buffer-request callback on application threads. The memory is one
// anonymous mapping, so untouched buffers cost no RSS and start zeroed.
#ifndef TBPROF_SRC_COLLECTOR_BUFFER_POOL_H_
#define TBPROF_SRC_COLLECTOR_BUFFER_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tbprof::collector {

class BufferPool {
 public:
  // Maps `count` buffers of `buffer_size` bytes (rounded up to 4 KiB).
  // Returns nullptr if the mapping fails.
  static std::unique_ptr<BufferPool> Create(size_t buffer_size, uint32_t count);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Returns a free buffer, or nullptr when all are in use.
  uint8_t* Pop();
  // Returns a buffer obtained from Pop(). REQUIRED: Owns(buffer).
  void Push(uint8_t* buffer);
  // True if `p` is the start of one of this pool's buffers.
  bool Owns(const uint8_t* p) const;

  size_t buffer_size() const { return buffer_size_; }
  uint32_t count() const { return count_; }
  uint32_t free_count() const { return free_.load(std::memory_order_relaxed); }

 private:
  BufferPool(uint8_t* base, size_t buffer_size, uint32_t count);

  static constexpr uint32_t kNone = 0xffffffffu;
  uint8_t* const base_;
  const size_t buffer_size_;
  const uint32_t count_;
  std::unique_ptr<std::atomic<uint32_t>[]> next_;
  // Low 32 bits: index of the top free buffer (kNone if empty); high 32 bits:
  // a tag bumped on every change, so a stale compare-exchange fails (ABA).
  std::atomic<uint64_t> head_;
  std::atomic<uint32_t> free_;
};

}  // namespace tbprof::collector

#endif  // TBPROF_SRC_COLLECTOR_BUFFER_POOL_H_
