// In-memory forms of the non-activity chunks of a raw capture, and their
// payload encoding (docs/raw_capture_format.md gives the byte layout).
//
// Encoders never fail. Decoders return false when the payload is shorter than
// its fields require; they ignore trailing bytes (fields appended by a newer
// minor format version). No CUDA, no absl: the collector links this.
#ifndef TBPROF_SRC_CAPTURE_CAPTURE_RECORDS_H_
#define TBPROF_SRC_CAPTURE_CAPTURE_RECORDS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/capture/raw_capture_format.h"

namespace tbprof::capture {

// Size in bytes of the activity record struct used for one CUPTI kind.
struct KindSize {
  uint32_t kind = 0;
  uint32_t size = 0;
};

struct CaptureHeader {
  uint16_t format_major = kFormatMajor;
  uint16_t format_minor = kFormatMinor;
  uint32_t cupti_api_version_build = 0;  // CUPTI_API_VERSION at build time
  uint32_t cupti_version_runtime = 0;    // cuptiGetVersion() at run time
  uint32_t cuda_version_build = 0;       // CUDA_VERSION at build time
  int32_t cuda_driver_version = 0;       // cuDriverGetVersion(), 0 if unknown
  int32_t cuda_runtime_version = 0;      // cudaRuntimeGetVersion(), 0 if unknown
  uint32_t pid = 0;
  uint32_t flags = 0;                    // kHeaderFlag* bits
  ClockSource clock_source = ClockSource::kCuptiDefault;
  // One calibrated sample taken when the capture started.
  int64_t start_cupti_ns = 0;
  int64_t start_realtime_ns = 0;         // CLOCK_REALTIME
  int64_t start_monotonic_ns = 0;        // CLOCK_MONOTONIC
  uint64_t buffer_bytes_budget = 0;
  uint32_t buffer_size = 0;
  std::string hostname;
  std::string command_line;              // /proc/self/cmdline, NULs as spaces
  std::string step_pattern;              // NVTX names that are step roots
  std::string run_name;
  std::vector<KindSize> kind_sizes;      // compiled-in struct sizes
};

struct StringEntry {
  uint64_t id = 0;
  std::string_view text;
};

struct DeviceProperties {
  uint32_t ordinal = 0;
  std::string name;
  std::array<uint8_t, 16> uuid{};
  std::vector<std::pair<DeviceAttr, int64_t>> attrs;

  // Returns the attribute's value, or `fallback` when it was not recorded.
  int64_t Get(DeviceAttr attr, int64_t fallback = 0) const;
  void Set(DeviceAttr attr, int64_t value);
};

struct ThreadName {
  uint32_t tid = 0;
  std::string name;
};

// Records lost before they reached the capture, as polled at `cupti_ts_ns`.
// Counts are increments since the previous kDroppedRecords chunk.
struct DroppedRecords {
  int64_t cupti_ts_ns = 0;
  uint64_t dropped_by_cupti = 0;   // cuptiActivityGetNumDroppedRecords
  uint64_t buffers_refused = 0;    // buffer requests denied at the budget
  uint64_t discarded_bytes = 0;    // bytes CUPTI wrote into the discard buffer
};

struct Marker {
  MarkerKind kind = MarkerKind::kStep;
  int64_t cupti_ts_ns = 0;
  int64_t value = 0;               // step number for kStep
  uint32_t tid = 0;
  std::string name;
};

// A tight bracket of the CUPTI clock against the host clocks.
struct ClockSample {
  int64_t cupti_ns = 0;
  int64_t realtime_ns = 0;         // midpoint of the bracketing reads
  int64_t monotonic_ns = 0;
  int64_t uncertainty_ns = 0;      // width of the bracket
};

// Name of a CUPTI API callback id (cuptiGetCallbackName), so that offline
// conversion needs no CUDA headers. domain: 1 driver API, 2 runtime API.
struct CallbackName {
  uint32_t domain = 0;
  uint32_t cbid = 0;
  std::string name;
};

struct Message {
  MessageSeverity severity = MessageSeverity::kInfo;
  int32_t code = 0;                // CUPTI result code or errno, 0 if none
  std::string text;
};

struct Trailer {
  uint64_t chunks = 0;             // chunks before the trailer, header included
  uint64_t activity_buffers = 0;
  uint64_t activity_bytes = 0;
  uint64_t activity_records = 0;
  uint64_t dropped_by_cupti = 0;
  uint64_t buffers_refused = 0;
  uint64_t strings = 0;
  uint64_t string_overflows = 0;   // names replaced by the overflow string
  int64_t stop_cupti_ns = 0;
  int64_t stop_realtime_ns = 0;
  EndReason end_reason = EndReason::kUnknown;
};

std::string EncodeHeader(const CaptureHeader& h);
bool DecodeHeader(std::string_view payload, CaptureHeader* h);

void EncodeStrings(const StringEntry* entries, size_t count, std::string* out);
// Calls fn(id, text) per entry; `text` points into `payload`.
template <typename Fn>
bool DecodeStrings(std::string_view payload, Fn fn) {
  PayloadDecoder d(payload);
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    uint64_t id = d.U64();
    std::string_view s = d.Str();
    if (d.ok()) fn(id, s);
  }
  return d.ok();
}

std::string EncodeDeviceProperties(const DeviceProperties& p);
bool DecodeDeviceProperties(std::string_view payload, DeviceProperties* p);

std::string EncodeThreadNames(const std::vector<ThreadName>& names);
bool DecodeThreadNames(std::string_view payload, std::vector<ThreadName>* names);

std::string EncodeDroppedRecords(const DroppedRecords& d);
bool DecodeDroppedRecords(std::string_view payload, DroppedRecords* d);

std::string EncodeMarker(const Marker& m);
bool DecodeMarker(std::string_view payload, Marker* m);

std::string EncodeClockSample(const ClockSample& c);
bool DecodeClockSample(std::string_view payload, ClockSample* c);

std::string EncodeKindSizes(const std::vector<KindSize>& sizes);
bool DecodeKindSizes(std::string_view payload, std::vector<KindSize>* sizes);

std::string EncodeCallbackNames(const std::vector<CallbackName>& names);
bool DecodeCallbackNames(std::string_view payload, std::vector<CallbackName>* names);

std::string EncodeMessage(const Message& m);
bool DecodeMessage(std::string_view payload, Message* m);

std::string EncodeTrailer(const Trailer& t);
bool DecodeTrailer(std::string_view payload, Trailer* t);

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_CAPTURE_RECORDS_H_
