// A write-once, read-once byte buffer that keeps its first bytes in memory
// and the rest in an anonymous temporary file, so that output produced bit by
// bit (a report over a thousand hosts) can be held until it is complete
// without holding it in RAM.
//
// Bytes come back in the order they were appended. The temporary file is
// created with tmpfile(3) (in $TMPDIR or /tmp, already unlinked), so nothing
// is left behind even if the process dies.
#ifndef TBPROF_SRC_BASE_SPOOL_H_
#define TBPROF_SRC_BASE_SPOOL_H_

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tbprof {

class Spool {
 public:
  // Up to `memory_bytes` stay in memory; more goes to the temporary file.
  explicit Spool(size_t memory_bytes = size_t{4} << 20) : memory_bytes_(memory_bytes) {}
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // Appends `bytes`. Errors: kResourceExhausted when the temporary file
  // cannot be created or written (naming why); the spool is then unusable.
  absl::Status Append(absl::string_view bytes);

  // Calls `sink` with the bytes appended so far, in order, in pieces of at
  // most a few MiB; stops at the first error of `sink` and returns it.
  // Errors: also kDataLoss when the temporary file cannot be read back.
  absl::Status CopyTo(const std::function<absl::Status(absl::string_view)>& sink);

  // Bytes appended so far.
  size_t size() const { return size_; }
  // Whether some bytes went to the temporary file.
  bool spilled() const { return file_ != nullptr; }

 private:
  absl::Status Spill();

  const size_t memory_bytes_;
  std::string memory_;
  std::FILE* file_ = nullptr;
  size_t size_ = 0;
  absl::Status error_;
};

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_SPOOL_H_
