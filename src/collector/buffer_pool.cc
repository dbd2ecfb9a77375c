#include "src/collector/buffer_pool.h"

#include <sys/mman.h>

namespace tbprof::collector {

std::unique_ptr<BufferPool> BufferPool::Create(size_t buffer_size, uint32_t count) {
  if (buffer_size == 0 || count == 0) return nullptr;
  buffer_size = (buffer_size + 4095) & ~size_t{4095};
  void* p = ::mmap(nullptr, buffer_size * count, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<BufferPool>(new BufferPool(static_cast<uint8_t*>(p), buffer_size, count));
}

BufferPool::BufferPool(uint8_t* base, size_t buffer_size, uint32_t count)
    : base_(base),
      buffer_size_(buffer_size),
      count_(count),
      next_(new std::atomic<uint32_t>[count]),
      head_(0),
      free_(count) {
  for (uint32_t i = 0; i < count; ++i) {
    next_[i].store(i + 1 < count ? i + 1 : kNone, std::memory_order_relaxed);
  }
  head_.store(0, std::memory_order_release);  // index 0, tag 0
}

BufferPool::~BufferPool() { ::munmap(base_, buffer_size_ * count_); }

uint8_t* BufferPool::Pop() {
  uint64_t head = head_.load(std::memory_order_acquire);
  while (true) {
    uint32_t index = static_cast<uint32_t>(head);
    if (index == kNone) return nullptr;
    uint32_t next = next_[index].load(std::memory_order_relaxed);
    uint64_t tag = (head >> 32) + 1;
    if (head_.compare_exchange_weak(head, (tag << 32) | next, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      free_.fetch_sub(1, std::memory_order_relaxed);
      return base_ + static_cast<size_t>(index) * buffer_size_;
    }
  }
}

void BufferPool::Push(uint8_t* buffer) {
  auto index = static_cast<uint32_t>(static_cast<size_t>(buffer - base_) / buffer_size_);
  uint64_t head = head_.load(std::memory_order_acquire);
  while (true) {
    next_[index].store(static_cast<uint32_t>(head), std::memory_order_relaxed);
    uint64_t tag = (head >> 32) + 1;
    if (head_.compare_exchange_weak(head, (tag << 32) | index, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      free_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

bool BufferPool::Owns(const uint8_t* p) const {
  if (p < base_ || p >= base_ + buffer_size_ * count_) return false;
  return static_cast<size_t>(p - base_) % buffer_size_ == 0;
}

}  // namespace tbprof::collector
