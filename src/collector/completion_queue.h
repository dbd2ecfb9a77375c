// Bounded queue of completed activity buffers, from CUPTI's completion
// callback (any thread) to the collector's writer thread.
//
// Push() never allocates: the ring is reserved up front with room for every
// pool buffer, so it cannot overflow while buffers come only from the pool.
#ifndef TBPROF_SRC_COLLECTOR_COMPLETION_QUEUE_H_
#define TBPROF_SRC_COLLECTOR_COMPLETION_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tbprof::collector {

struct CompletedBuffer {
  uint8_t* data = nullptr;
  uint32_t valid_size = 0;
  uint32_t stream_id = 0;
};

class CompletionQueue {
 public:
  explicit CompletionQueue(uint32_t capacity)
      : ring_(new CompletedBuffer[capacity]), capacity_(capacity) {}

  // Returns false (and queues nothing) if the ring is full.
  bool Push(const CompletedBuffer& b) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size_ == capacity_) return false;
      ring_[(head_ + size_) % capacity_] = b;
      ++size_;
    }
    cv_.notify_one();
    return true;
  }

  // Moves every queued entry to *out (appending).
  void TakeAll(std::vector<CompletedBuffer>* out) {
    std::lock_guard<std::mutex> lock(mu_);
    for (; size_ > 0; --size_) {
      out->push_back(ring_[head_]);
      head_ = (head_ + 1) % capacity_;
    }
  }

  // Waits until an entry is queued, `wake` is set (read under the lock by
  // the predicate) or `timeout_ms` passes.
  template <typename Pred>
  void WaitFor(int64_t timeout_ms, Pred wake) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                 [&] { return size_ > 0 || wake(); });
  }
  // Wakes a waiter (after the caller changed what `wake` reads).
  void Notify() {
    { std::lock_guard<std::mutex> lock(mu_); }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<CompletedBuffer[]> ring_;
  const uint32_t capacity_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace tbprof::collector

#endif  // TBPROF_SRC_COLLECTOR_COMPLETION_QUEUE_H_
