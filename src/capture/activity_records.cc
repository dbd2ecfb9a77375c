#include "src/capture/activity_records.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tbprof::capture {

void KindSizeTable::Apply(const std::vector<KindSize>& sizes) {
  for (const KindSize& k : sizes) {
    if (k.kind < sizes_.size()) sizes_[k.kind] = k.size;
  }
}

bool SplitActivityBufferPayload(std::string_view payload, uint32_t* stream_id,
                                std::string_view* records) {
  if (payload.size() < 8) return false;
  std::memcpy(stream_id, payload.data(), 4);
  *records = payload.substr(8);
  return true;
}

bool ActivityRecordIterator::Next(ActivityRecord* record) {
  if (!error_.empty() || pos_ >= records_.size()) return false;
  const size_t left = records_.size() - pos_;
  if (left < sizeof(uint32_t)) {
    error_ = absl::StrCat("record at buffer offset ", pos_, " is cut short (", left, " bytes)");
    return false;
  }
  uint32_t kind;
  std::memcpy(&kind, records_.data() + pos_, sizeof(kind));
  const uint32_t size = sizes_.Get(kind);
  if (size == 0) {
    error_ = absl::StrCat("unknown activity kind ", kind, " at buffer offset ", pos_);
    return false;
  }
  if (size > left) {
    error_ = absl::StrCat("record of kind ", kind, " at buffer offset ", pos_, " needs ", size,
                          " bytes, ", left, " left");
    return false;
  }
  record->kind = kind;
  record->data = reinterpret_cast<const uint8_t*>(records_.data() + pos_);
  record->size = size;
  record->offset = static_cast<uint32_t>(pos_);
  pos_ += size;
  return true;
}

}  // namespace tbprof::capture
