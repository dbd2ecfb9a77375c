// Entry points shared by the libFuzzer targets (tests/fuzz/*_fuzzer.cc) and
// the regression test that replays the seed corpora and every reproducer in
// tests/fuzz/regressions/<target>/ in the normal build (no clang needed).
//
// Each function feeds arbitrary bytes through one reader of untrusted input
// and then runs the offline views over whatever XSpace came out. Errors are
// expected and ignored; the contract under test is "no crash, no sanitizer
// report, no leak, bounded time and memory". The returned status is the
// reader's, so tests can tell accepted from rejected inputs.
#ifndef TBPROF_TESTS_FUZZ_FUZZ_ENTRY_POINTS_H_
#define TBPROF_TESTS_FUZZ_FUZZ_ENTRY_POINTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tbprof::fuzz {

// Limits that keep one fuzz input cheap; a real convert uses the CLI's.
inline constexpr uint64_t kFuzzMaxInflatedBytes = uint64_t{16} << 20;
inline constexpr int64_t kFuzzMaxEvents = 200000;

// Chrome / Kineto trace JSON, through ConvertChromeJsonToXSpace (via an
// in-memory file) and then every view. The bytes are read as given (plain
// JSON, or gzip when they start with the gzip magic).
absl::Status RunChromeJson(absl::string_view data);

// Same, but the first byte selects the gzip form: even -> the rest is
// gzip-compressed first (so JSON mutations travel through the inflater),
// odd -> the rest is read as given (damaged gzip streams).
absl::Status RunChromeJsonGzip(absl::string_view data);

// Chrome trace JSON converted twice, reading with 1 thread and with 2 (the
// pipelined reader, forced even on tiny inputs), with reads of
// 16 << (first byte % 8) bytes so that buffer and batch boundaries fall
// everywhere; traps unless status, summary, malformed examples (byte
// offsets) and the serialized XSpace are identical. The rest of the bytes
// are the file.
absl::Status RunChromeJsonThreads(absl::string_view data);

// XSpace wire bytes through xplane::ParseXSpaceData, then every view, the
// trace-viewer JSON and a serialize/parse round trip.
absl::Status RunXSpace(absl::string_view data);

// Raw capture bytes through capture::RawCaptureReader (recovering reader),
// LoadRawCaptureFrom, the raw-capture converter and every view. The first
// byte selects the mode: even -> bytes as given (damage recovery); odd ->
// the CRC of every well-framed chunk is recomputed first, so mutations reach
// the payload decoders instead of being rejected by the checksum.
absl::Status RunRawCapture(absl::string_view data);

// PyTorch memory snapshot (pickle) bytes through the plain-data pickle
// reader, the snapshot analysis, the XSpace converter and every view.
absl::Status RunMemorySnapshot(absl::string_view data);

// Control-channel bytes (src/capture/control_protocol.h) through its
// decoders; every accepted message must encode back to the same bytes. The
// first byte selects the mode (mod 7): 0 -> a stream of whole frames, as the
// collector's listener reads them; 1 or 5 -> one frame header; 2, 3, 4, 6 ->
// the payload of HelloReply, StartRequest, StartReply, StopReply.
absl::Status RunControlProtocol(absl::string_view data);

// rocprofv3 JSON bytes through ConvertRocprofJsonTextToXSpace (the
// simdjson reader and the mapper), then every view and a round trip.
absl::Status RunRocprofJson(absl::string_view data);

// Nsight Systems SQLite export bytes (through an in-memory file) through
// ConvertNsysSqliteToXSpace, then every view and a round trip.
absl::Status RunNsysSqlite(absl::string_view data);

// Recomputes the CRC of every chunk that is framed correctly (tag, size in
// bounds) in a raw capture image; used by RunRawCapture and seed tools.
std::string FixRawCaptureCrcs(absl::string_view data);

// Names of the targets, as used for directories under tests/fuzz/.
std::vector<std::string> FuzzTargetNames();
// Runs `data` through the entry point of target `name`.
absl::Status RunFuzzTarget(absl::string_view name, absl::string_view data);

}  // namespace tbprof::fuzz

#endif  // TBPROF_TESTS_FUZZ_FUZZ_ENTRY_POINTS_H_
