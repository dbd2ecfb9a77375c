// Finding, recognizing and loading the inputs of `tbprof convert` and
// `tbprof inspect`: Chrome/Kineto trace JSON (plain or gzip, object or bare
// array), XSpace protobufs (`*.xplane.pb`), raw captures of our CUPTI
// collector (`*.tbcap`) and Nsight Systems exports (`*.sqlite`, `*.nsys-rep`),
// given as files or as a directory holding one trace per rank or process.
#ifndef TBPROF_TOOLS_TBPROF_TRACE_INPUTS_H_
#define TBPROF_TOOLS_TBPROF_TRACE_INPUTS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/nsys/nsys_export.h"
#include "converters/common/step_inference.h"
#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"
#include "converters/raw_capture/raw_capture_to_xspace.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::cli {

enum class InputFormat {
  kChromeJson,
  kXSpace,
  kRawCapture,
  kRocprofJson,
  kMemorySnapshot,
  kNsys,
};
// "Chrome trace JSON", "XSpace protobuf", "tbprof raw capture", "rocprofv3 JSON",
// "PyTorch memory snapshot", "Nsight Systems export".
absl::string_view InputFormatName(InputFormat format);

// Replaces each directory in `args` by the trace files directly inside it
// (names ending in .json, .json.gz, .xplane.pb, .xplane.pb.gz, .tbcap, .pickle,
// .pkl, .sqlite or .nsys-rep; hidden files
// skipped, and so are the precomputed view files "<host>.*" of a run
// directory that has "<host>.xplane.pb"; natural order, so "rank2" sorts
// before "rank10"). Files are kept
// as given, except an Nsight Systems export in which several processes ran
// CUDA: one "<file>#pid=<N>" input per process (one host each). Errors:
// kNotFound (a path does not exist), kInvalidArgument (a
// directory holds no trace files), each naming the path.
absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& args);

// Natural-order "less": digit runs compare as numbers.
bool NaturalLess(absl::string_view a, absl::string_view b);

// Recognizes the format from the name and the first bytes (after gzip):
// the raw-capture magic "\x89TBCAP\r\n" is a raw capture; a JSON object whose
// first member is "rocprofiler-sdk-tool" is rocprofv3 JSON; a pickle header
// (PROTO 2..5) is a PyTorch memory snapshot; SQLite's header, a *.nsys-rep /
// *.qdrep name or "<export>#pid=<N>" is an Nsight Systems export; content
// starting with '{' or '[' is JSON; other content of a *.json file is
// handed to the JSON converter (which reports the byte offset); anything else
// is taken as XSpace. Errors: kNotFound, kDataLoss ("empty file", truncated
// gzip), each naming `path`.
absl::StatusOr<InputFormat> DetectInputFormat(const std::string& path,
                                              uint64_t max_inflated_bytes);

// Checks that `bytes` are an XSpace message at the top level: only fields
// 1-4 (planes, errors, warnings, hostnames), all length-delimited, exactly
// filling the input. Errors: kInvalidArgument naming `source` and the byte
// offset of the first bad field.
absl::Status CheckXSpaceWireFormat(absl::string_view bytes, absl::string_view source);

// The file name without its directory and trace suffixes:
// "d/w0.1694.pt.trace.json.gz" -> "w0.1694", "a/host1.xplane.pb" -> "host1".
std::string FileStem(absl::string_view path);

// Value of a byte limit meaning "the default for this input/machine".
inline constexpr uint64_t kAutoLimit = UINT64_MAX;

// Gzip-bomb guard: `requested` unless it is kAutoLimit, in which case the
// larger of 1 GiB and 200x the compressed file size (real traces compress
// 5-30x; deflate can reach ~1000x). 0 stays 0 (unlimited).
uint64_t EffectiveMaxInflatedBytes(uint64_t requested, uint64_t file_size);
// Memory guard: `requested` unless kAutoLimit -> DefaultMemoryLimitBytes()
// (80% of RAM or the cgroup limit). 0 stays 0 (unlimited).
uint64_t EffectiveMaxMemoryBytes(uint64_t requested);

struct LoadOptions {
  uint64_t max_inflated_bytes = kAutoLimit;  // 0 = unlimited.
  int64_t max_events = 0;                    // 0 = unlimited (JSON only).
  int json_threads = 0;  // ChromeJsonOptions::threads (0 = automatic).
  // Stop with kResourceExhausted once this process's resident memory passes
  // it (`--max-memory-mb`); 0 = unlimited.
  uint64_t max_memory_bytes = kAutoLimit;
  // (file bytes consumed, file size), now and then.
  std::function<void(uint64_t, uint64_t)> progress;
  // `--steps`. kAuto infers steps for traces and captures without step
  // markers; existing xplane.pb files are left as they are unless kInfer or
  // kNone is asked for (converters/common/step_inference.h).
  converters::StepsMode steps = converters::StepsMode::kAuto;
  // XSpace inputs only, and only when `steps` leaves the file as it is
  // (kAuto, kMarkers): the lines' events are handed to this function as they
  // are read and not kept (xplane::XSpaceParseOptions::line_events), and
  // LoadedInput::lines_streamed is set. For a caller that only summarizes.
  // The file is then decoded on one thread.
  std::function<void(const xplane::XSpaceData&, const xplane::Plane&, const xplane::Line&, bool)>
      xspace_line_events;
};

struct LoadedInput {
  std::string path;
  InputFormat format = InputFormat::kChromeJson;
  uint64_t file_bytes = 0;
  xplane::XSpaceData space;
  // Set for JSON inputs.
  std::optional<converters::ChromeJsonSummary> json_summary;
  // Set for raw captures.
  std::optional<converters::RawCaptureSummary> raw_summary;
  // Set for PyTorch memory snapshots (pickle).
  std::optional<converters::MemorySnapshotSummary> memory_snapshot_summary;
  // Host name the data itself suggests ("" if none): the trace's hint, the
  // capture's host name, or XSpace.hostnames[0].
  std::string host_hint;
  int64_t rank = -1;
  // Where the steps come from (inferred, markers, none) and a line saying so.
  converters::StepsResult steps;
  // The events went to LoadOptions::xspace_line_events: `space`'s lines
  // have none.
  bool lines_streamed = false;
};

// Reads and converts one input into an XSpace. Errors name `path`.
absl::StatusOr<LoadedInput> LoadInput(const std::string& path, const LoadOptions& options);

// Hands out distinct host names for the inputs of one run.
class HostNamer {
 public:
  // Preferred name: `hint` if non-empty, else FileStem(path); sanitized for
  // the logdir. If that name was handed out already, the first free one of
  // "<name>_rank<rank>" (when rank >= 0), FileStem(path) (e.g. "host.pid" of
  // a collector's "host.pid.tbcap") and "<name>_<n>" is used.
  std::string Pick(absl::string_view hint, int64_t rank, absl::string_view path);

 private:
  absl::flat_hash_set<std::string> used_;
};

// The closing lines on stderr of a command that went on past failed inputs
// (`convert` and `report` of several ranks): "tbprof: N of TOTAL inputs
// failed and were left out (--strict: all or nothing):" and one indented
// line per failure, its message (which names the file). "" when none failed.
std::string FormatFailedInputs(size_t total, const std::vector<absl::Status>& failed);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_TRACE_INPUTS_H_
