// Copies the NUL-terminated strings that CUPTI records point to (kernel names,
// NVTX names and domains, ...) into a fixed arena and hands out stable ids.
//
// Intern() runs in CUPTI's buffer-completed callback, so it never allocates:
// all storage is reserved by the constructor. When the arena or the entry
// table is full Intern() returns kOverflowId, whose string is
// "<tbprof: string table full>". Thread-safe.
#ifndef TBPROF_SRC_COLLECTOR_STRING_INTERNER_H_
#define TBPROF_SRC_COLLECTOR_STRING_INTERNER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "src/capture/capture_records.h"

namespace tbprof::collector {

class StringInterner {
 public:
  static constexpr uint64_t kOverflowId = 1;
  // Strings longer than this are truncated.
  static constexpr size_t kMaxStringLength = 64 * 1024;

  StringInterner(size_t arena_bytes, uint32_t max_strings);
  StringInterner(const StringInterner&) = delete;
  StringInterner& operator=(const StringInterner&) = delete;

  // Returns the id of the string `s` points to (0 for nullptr). The same
  // content always gets the same id, even through different pointers, and a
  // pointer whose content changed gets the new content's id.
  uint64_t Intern(const char* s);

  // Appends the strings interned since the previous call (the first call also
  // returns the overflow string). The views stay valid for the interner's
  // lifetime. Call from one thread only.
  void TakePending(std::vector<capture::StringEntry>* out);
  // Makes the next TakePending() return every string again (a new capture
  // file needs them all).
  void ResetTaken() { taken_ = 0; }

  uint64_t overflows() const { return overflows_.load(std::memory_order_relaxed); }
  uint32_t size() const { return count_.load(std::memory_order_acquire); }

 private:
  struct Entry {
    uint32_t offset;
    uint32_t length;
    uint64_t hash;
  };
  struct PtrSlot {
    const char* ptr;
    uint32_t entry;
  };
  uint32_t AddLocked(const char* s, size_t len, uint64_t hash);  // kNoEntry if full
  static constexpr uint32_t kNoEntry = 0xffffffffu;

  std::mutex mu_;
  std::unique_ptr<char[]> arena_;
  const size_t arena_capacity_;
  size_t arena_used_ = 0;
  std::unique_ptr<Entry[]> entries_;
  const uint32_t max_entries_;
  std::atomic<uint32_t> count_{0};
  std::unique_ptr<uint32_t[]> by_content_;  // entry + 1, 0 = empty
  std::unique_ptr<PtrSlot[]> by_ptr_;
  size_t table_mask_;
  size_t ptr_used_ = 0;
  std::atomic<uint64_t> overflows_{0};
  uint32_t taken_ = 0;  // owned by the TakePending thread
};

}  // namespace tbprof::collector

#endif  // TBPROF_SRC_COLLECTOR_STRING_INTERNER_H_
