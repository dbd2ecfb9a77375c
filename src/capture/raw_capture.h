// A raw capture loaded into memory: every readable chunk decoded, activity
// buffers kept as (aligned) raw bytes with the kind-size table in force for
// each. Convenient for converters and tests; for captures larger than memory
// use RawCaptureReader directly.
#ifndef TBPROF_SRC_CAPTURE_RAW_CAPTURE_H_
#define TBPROF_SRC_CAPTURE_RAW_CAPTURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include <string_view>
#include "src/capture/activity_records.h"
#include "src/capture/capture_records.h"
#include "src/capture/raw_capture_reader.h"

namespace tbprof::capture {

struct LoadedActivityBuffer {
  uint32_t stream_id = 0;
  uint64_t file_offset = 0;                     // of the chunk header
  std::vector<uint64_t> storage;                // 8-byte aligned records
  uint32_t size = 0;                            // bytes of records
  std::shared_ptr<const KindSizeTable> sizes;   // table in force for it

  std::string_view records() const {
    return std::string_view(reinterpret_cast<const char*>(storage.data()), size);
  }
};

// Every text field (path, header strings, string table, thread, callback
// and device names, messages) is valid UTF-8: bytes that are not become
// U+FFFD on load, since they end up in proto3 `string` fields.
struct RawCapture {
  std::string path;
  CaptureHeader header;
  std::vector<LoadedActivityBuffer> buffers;    // in file order
  std::unordered_map<uint64_t, std::string> strings;
  std::vector<DeviceProperties> devices;        // in file order
  std::vector<ThreadName> thread_names;         // later entries win
  std::vector<DroppedRecords> drops;
  std::vector<Marker> markers;
  std::vector<ClockSample> clock_samples;
  std::vector<Message> messages;
  // (domain, cbid) -> API function name; domain 1 driver, 2 runtime.
  std::map<std::pair<uint32_t, uint32_t>, std::string> callback_names;
  std::optional<Trailer> trailer;
  ReadStats read_stats;
  uint64_t undecodable_chunks = 0;              // known type, bad payload
  uint64_t unknown_chunks = 0;                  // types this reader lacks

  // Returns the string with this id, or "" (id 0 or unknown).
  const std::string& String(uint64_t id) const;
};

// Loads the capture at `path`. Errors as RawCaptureReader::Open; damage past
// the header is recorded in read_stats, never an error.
absl::StatusOr<RawCapture> LoadRawCapture(const std::string& path);
// Loads the remaining chunks of an opened reader.
RawCapture LoadRawCaptureFrom(RawCaptureReader* reader);

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_RAW_CAPTURE_H_
