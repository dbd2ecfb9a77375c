// The raw capture file format written by the CUPTI collector (byte layout:
// docs/raw_capture_format.md).
//
// A capture is an 8-byte magic followed by chunks. Every chunk is
//   u32 tag ('TBCK') | u32 type | u32 payload_size | u32 crc32 | payload | pad
// where crc32 is zlib's CRC-32 over the type, payload_size and payload bytes
// and `pad` zero-fills the chunk to a multiple of 8 bytes. All integers are
// little-endian. The first chunk is always kHeader; a cleanly closed capture
// ends with kTrailer. This header only holds constants and the small payload
// encoder/decoder; it has no CUDA and no absl dependency so the collector
// library (loaded into arbitrary jobs) can use it.
#ifndef TBPROF_SRC_CAPTURE_RAW_CAPTURE_FORMAT_H_
#define TBPROF_SRC_CAPTURE_RAW_CAPTURE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the raw capture format is little-endian; add byte swapping first");

namespace tbprof::capture {

inline constexpr char kFileMagic[8] = {'\x89', 'T', 'B', 'C', 'A', 'P', '\r', '\n'};
inline constexpr uint32_t kChunkTag = 0x4B434254;  // "TBCK" read as bytes.
inline constexpr size_t kChunkHeaderSize = 16;
inline constexpr uint16_t kFormatMajor = 1;
inline constexpr uint16_t kFormatMinor = 0;
// The largest payload a writer emits and a reader accepts (1 GiB).
inline constexpr uint32_t kMaxPayloadSize = 1u << 30;

enum class ChunkType : uint32_t {
  kHeader = 1,
  kActivityBuffer = 2,
  kStrings = 3,
  kDeviceProperties = 4,
  kThreadNames = 5,
  kDroppedRecords = 6,
  kMarker = 7,
  kClockCalibration = 8,
  kKindSizes = 9,
  kMessage = 10,
  kTrailer = 11,
  kCallbackNames = 12,
};

// Header flag bits.
inline constexpr uint32_t kHeaderFlagNameIdsInRecords = 1u << 0;

// Clock that CUPTI timestamps are in.
enum class ClockSource : uint32_t { kCuptiDefault = 0 };

// Device attribute ids stored in kDeviceProperties chunks (stable numbers;
// readers ignore ids they do not know).
enum class DeviceAttr : uint32_t {
  kComputeCapabilityMajor = 1,
  kComputeCapabilityMinor = 2,
  kMultiprocessorCount = 3,
  kClockRateKhz = 4,
  kMemoryClockRateKhz = 5,
  kMemoryBusWidthBits = 6,
  kTotalMemoryBytes = 7,
  kMaxThreadsPerBlock = 8,
  kMaxThreadsPerMultiprocessor = 9,
  kMaxRegistersPerBlock = 10,
  kMaxRegistersPerMultiprocessor = 11,
  kWarpSize = 12,
  kMaxSharedMemoryPerBlock = 13,
  kMaxSharedMemoryPerMultiprocessor = 14,
  kMaxSharedMemoryPerBlockOptin = 15,
  kReservedSharedMemoryPerBlock = 16,
  kMaxBlocksPerMultiprocessor = 17,
  kL2CacheSizeBytes = 18,
  kPciDomainId = 19,
  kPciBusId = 20,
  kPciDeviceId = 21,
  kMemoryBandwidthBytesPerSec = 22,
};

enum class MarkerKind : uint32_t {
  kStep = 1,           // tbprof_step() or an NVTX range matching the step pattern.
  kSessionStart = 2,   // activity kinds enabled
  kSessionStop = 3,    // activity kinds disabled
  kFlush = 4,          // tbprof_flush()
};

enum class MessageSeverity : uint32_t { kInfo = 0, kWarning = 1, kError = 2 };

enum class EndReason : uint32_t {
  kUnknown = 0,
  kStopped = 1,        // tbprof_stop() or the end of a configured window
  kProcessExit = 2,    // atexit handler
  kCuptiError = 3,     // tracing disabled after a CUPTI error
  kWriteError = 4,     // the capture file could not be written
};

// Returns zlib's CRC-32 of `size` bytes continuing from `crc` (0 to start).
uint32_t Crc32(uint32_t crc, const void* data, size_t size);

// Returns the CRC stored in a chunk header for this type and payload.
uint32_t ChunkCrc(uint32_t type, std::string_view payload);

// Appends little-endian fields to a payload.
class PayloadEncoder {
 public:
  explicit PayloadEncoder(std::string* out) : out_(out) {}
  void U16(uint16_t v) { Raw(&v, 2); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I32(int32_t v) { Raw(&v, 4); }
  void I64(int64_t v) { Raw(&v, 8); }
  // u32 length followed by the bytes (no terminator, no padding).
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_->append(s.data(), s.size());
  }
  void Raw(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }

 private:
  std::string* out_;
};

// Reads little-endian fields with bounds checks. After any read past the end
// ok() is false and every later read returns zero / empty.
class PayloadDecoder {
 public:
  explicit PayloadDecoder(std::string_view in) : in_(in) {}
  uint16_t U16() { return Get<uint16_t>(); }
  uint32_t U32() { return Get<uint32_t>(); }
  uint64_t U64() { return Get<uint64_t>(); }
  int32_t I32() { return Get<int32_t>(); }
  int64_t I64() { return Get<int64_t>(); }
  std::string_view Str() {
    uint32_t n = U32();
    return Bytes(n);
  }
  std::string_view Bytes(size_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }

 private:
  template <typename T>
  T Get() {
    T v{};
    std::string_view b = Bytes(sizeof(T));
    if (ok_) std::memcpy(&v, b.data(), sizeof(T));
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace tbprof::capture

#endif  // TBPROF_SRC_CAPTURE_RAW_CAPTURE_FORMAT_H_
