// Walks the CUPTI activity records inside a kActivityBuffer chunk without
// libcupti, using the kind -> record size table of the capture.
#ifndef TBPROF_SRC_CAPTURE_ACTIVITY_RECORDS_H_
#define TBPROF_SRC_CAPTURE_ACTIVITY_RECORDS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <string_view>
#include "src/capture/capture_records.h"
#include "src/capture/cupti_record_layout.h"

namespace tbprof::capture {

// Record size per CUPTI activity kind; 0 = unknown kind.
class KindSizeTable {
 public:
  KindSizeTable() { sizes_.fill(0); }
  // Sets the sizes listed (later entries win); kinds >= layout::kMaxKind are
  // ignored.
  void Apply(const std::vector<KindSize>& sizes);
  uint32_t Get(uint32_t kind) const { return kind < sizes_.size() ? sizes_[kind] : 0; }

 private:
  std::array<uint32_t, layout::kMaxKind> sizes_;
};

struct ActivityRecord {
  uint32_t kind = 0;
  const uint8_t* data = nullptr;  // 8-byte aligned when the buffer is
  uint32_t size = 0;
  uint32_t offset = 0;            // within the records of the buffer
};

// Splits a kActivityBuffer payload into its stream id and records.
// Returns false if the payload is shorter than its 8-byte prefix.
bool SplitActivityBufferPayload(std::string_view payload, uint32_t* stream_id,
                                std::string_view* records);

// Iterates records back to back. Stops at the end or at the first record
// whose kind is unknown or whose size overruns the buffer; then ok() is false,
// error() says why and where, and unread_bytes() is how much was not walked.
class ActivityRecordIterator {
 public:
  ActivityRecordIterator(std::string_view records, const KindSizeTable& sizes)
      : records_(records), sizes_(sizes) {}

  bool Next(ActivityRecord* record);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t unread_bytes() const { return records_.size() - pos_; }

 private:
  std::string_view records_;
  const KindSizeTable& sizes_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_ACTIVITY_RECORDS_H_
