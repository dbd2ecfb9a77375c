#include "tests/fuzz/fuzz_entry_points.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "converters/rocprof/rocprof_to_xspace.h"
#include "converters/views/all/all_views.h"
#include "converters/views/summary/report_model.h"
#include "converters/report/report_text.h"
#include "converters/views/memory/xspace_to_memory_profile.h"
#include "converters/views/trace/xspace_to_trace_json.h"
#include "src/base/output_file.h"
#include "src/capture/raw_capture.h"
#include "src/capture/raw_capture_format.h"
#include "src/capture/raw_capture_reader.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_wire_reader.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#ifdef TBPROF_FUZZ_HAVE_RAW_CAPTURE_CONVERTER
#include "converters/raw_capture/raw_capture_to_xspace.h"
#endif

namespace tbprof::fuzz {
namespace {

// An anonymous in-memory file holding `data`, reachable by path, so that
// path-based readers (which detect gzip themselves) see exactly these bytes.
class MemFile {
 public:
  explicit MemFile(absl::string_view data) {
    fd_ = ::memfd_create("tbprof-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) return;
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      done += static_cast<size_t>(n);
    }
    path_ = absl::StrCat("/proc/self/fd/", fd_);
  }
  ~MemFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

bool IsValidUtf8ForFuzz(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3
                                 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : (c & (0x7F >> len));
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += len;
  }
  return true;
}

// Fails loudly when `space` does not survive serialize + parse (what the
// profile plugin does with our files), naming the first string that is not
// valid UTF-8 (proto3 `string` fields reject those), the usual cause.
void CheckRoundTrip(const xplane::XSpaceData& space, const char* what) {
  std::string bytes = xplane::SerializeXSpaceData(space);
  absl::StatusOr<xplane::XSpaceData> again = xplane::ParseXSpaceData(bytes, "round trip");
  if (again.ok()) return;
  std::fprintf(stderr, "%s output does not parse back: %s\n", what,
               std::string(again.status().message()).c_str());
  for (size_t id = 0; id < space.strings.size(); ++id) {
    absl::string_view s = space.strings.Get(static_cast<uint32_t>(id));
    if (!IsValidUtf8ForFuzz(s)) {
      std::fprintf(stderr, "  string %zu is not valid UTF-8: \"%s\"\n", id,
                   absl::CHexEscape(s.substr(0, 120)).c_str());
      break;
    }
  }
  for (const std::string& w : space.warnings) {
    if (!IsValidUtf8ForFuzz(w)) std::fprintf(stderr, "  warning: %s\n", absl::CHexEscape(w).c_str());
  }
  for (const std::string& h : space.hostnames) {
    if (!IsValidUtf8ForFuzz(h)) std::fprintf(stderr, "  hostname: %s\n", absl::CHexEscape(h).c_str());
  }
  __builtin_trap();
}

// Everything `tbprof convert` / `report` / `inspect` compute from a space.
void RunViews(const xplane::XSpaceData& space) {
  views::XSpaceDiagnosis diagnosis = views::DiagnoseXSpace(space);
  (void)views::FormatDiagnosisText(diagnosis, "fuzz");

  absl::StatusOr<views::AllViews> all = views::ComputeAllViews(space);
  if (all.ok()) {
    views::HostViews host;
    host.host = "fuzz";
    host.views = std::move(*all);
    views::HostReport report = views::BuildHostReport(host);
    (void)views::RenderHostText(report);
    (void)views::MemoryProfileToJson(host.views.memory_profile);
  }
  views::TraceJsonOptions trace_options;
  trace_options.max_events = 20000;
  (void)views::ConvertXSpaceToTraceJson(space, trace_options);
}

absl::Status ConvertJsonFile(absl::string_view data) {
  MemFile file(data);
  if (!file.ok()) return absl::InternalError("memfd_create failed");
  converters::ChromeJsonOptions options;
  options.max_inflated_bytes = kFuzzMaxInflatedBytes;
  options.max_events = kFuzzMaxEvents;
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(file.path(), options, &space);
  if (!summary.ok()) return summary.status();
  RunViews(space);
  // What convert writes must read back (a file the plugin rejects is a bug).
  CheckRoundTrip(space, "chrome_json converter");
  return absl::OkStatus();
}

// One conversion of `file` with `threads` reading threads, flattened: status,
// summary counts, malformed examples and the serialized XSpace.
std::string ConvertFlattened(const MemFile& file, int threads, size_t chunk) {
  converters::ChromeJsonOptions options;
  options.max_inflated_bytes = kFuzzMaxInflatedBytes;
  options.max_events = kFuzzMaxEvents;
  options.threads = threads;
  options.parallel_min_bytes = 0;
  options.read_chunk_bytes = chunk;
  xplane::XSpaceData space;
  absl::StatusOr<converters::ChromeJsonSummary> summary =
      converters::ConvertChromeJsonToXSpace(file.path(), options, &space);
  if (!summary.ok()) return absl::StrCat("error: ", summary.status().ToString());
  std::string out = absl::StrCat(summary->events_read, " ", summary->events_converted, " ",
                                 summary->events_ignored, " ", summary->metadata_events, " ",
                                 summary->events_malformed, " ", summary->step_roots, " ",
                                 summary->hostname_hint, " ", summary->rank, "\n");
  for (const std::string& m : summary->malformed_examples) absl::StrAppend(&out, m, "\n");
  absl::StrAppend(&out, xplane::SerializeXSpaceData(space));
  return out;
}

uint32_t LoadU32(absl::string_view data, size_t pos) {
  uint32_t v;
  std::memcpy(&v, data.data() + pos, 4);
  return v;
}

}  // namespace

absl::Status RunChromeJson(absl::string_view data) { return ConvertJsonFile(data); }

absl::Status RunChromeJsonGzip(absl::string_view data) {
  if (data.empty()) return absl::InvalidArgumentError("empty");
  const bool compress = (static_cast<unsigned char>(data[0]) & 1) == 0;
  data.remove_prefix(1);
  if (!compress) return ConvertJsonFile(data);
  absl::StatusOr<std::string> gz = GzipCompress(data);
  if (!gz.ok()) return gz.status();
  return ConvertJsonFile(*gz);
}

absl::Status RunChromeJsonThreads(absl::string_view data) {
  if (data.empty()) return absl::InvalidArgumentError("empty");
  const size_t chunk = size_t{16} << (static_cast<unsigned char>(data[0]) % 8);
  data.remove_prefix(1);
  MemFile file(data);
  if (!file.ok()) return absl::InternalError("memfd_create failed");
  const std::string serial = ConvertFlattened(file, 1, chunk);
  const std::string parallel = ConvertFlattened(file, 2, chunk);
  if (serial != parallel) {
    std::fprintf(stderr, "chrome_json_threads: 1 and 2 threads differ (chunk %zu)\n"
                 "  1: %s\n  2: %s\n", chunk,
                 absl::CHexEscape(absl::string_view(serial).substr(0, 400)).c_str(),
                 absl::CHexEscape(absl::string_view(parallel).substr(0, 400)).c_str());
    __builtin_trap();
  }
  if (absl::StartsWith(serial, "error: ")) return absl::InvalidArgumentError(serial);
  return absl::OkStatus();
}

// Decoding the lines on 2 threads must give what one thread gives: the same
// error message, or the same strings (ids included) and the same bytes.
void CheckParallelDecoding(absl::string_view data,
                           const absl::StatusOr<xplane::XSpaceData>& one) {
  std::unique_ptr<xplane::XSpaceInput> input =
      xplane::XSpaceInput::FromBytes(data, "fuzz.xplane.pb");
  xplane::XSpaceParseOptions options;
  options.threads = 2;
  options.parallel_min_bytes = 0;
  absl::StatusOr<xplane::XSpaceData> two = xplane::ParseXSpaceInput(input.get(), options);
  bool same = one.ok() == two.ok() && (one.ok() || one.status() == two.status());
  if (same && one.ok()) {
    same = one->strings.size() == two->strings.size() &&
           xplane::SerializeXSpaceData(*one) == xplane::SerializeXSpaceData(*two);
    for (uint32_t id = 0; same && id < one->strings.size(); ++id) {
      same = one->strings.Get(id) == two->strings.Get(id);
    }
  }
  if (same) return;
  std::fprintf(stderr, "xspace reader: 2 threads disagree with 1: %s vs %s\n",
               one.ok() ? "ok" : one.status().ToString().c_str(),
               two.ok() ? "ok" : two.status().ToString().c_str());
  __builtin_trap();
}

absl::Status RunXSpace(absl::string_view data) {
  absl::StatusOr<xplane::XSpaceData> space = xplane::ParseXSpaceData(data, "fuzz.xplane.pb");
  CheckParallelDecoding(data, space);
  if (!space.ok()) return space.status();
  RunViews(*space);
  CheckRoundTrip(*space, "xspace reader");
  return absl::OkStatus();
}

std::string FixRawCaptureCrcs(absl::string_view data) {
  std::string out(data);
  size_t pos = sizeof(capture::kFileMagic);
  while (pos + capture::kChunkHeaderSize <= out.size()) {
    if (LoadU32(out, pos) != capture::kChunkTag) {
      pos += 8;  // Chunks are 8-byte aligned.
      continue;
    }
    uint32_t type = LoadU32(out, pos + 4);
    uint32_t size = LoadU32(out, pos + 8);
    size_t payload = pos + capture::kChunkHeaderSize;
    if (size > out.size() - payload) break;
    uint32_t crc = capture::ChunkCrc(type, std::string_view(out).substr(payload, size));
    std::memcpy(&out[pos + 12], &crc, 4);
    pos = payload + ((size + 7) & ~size_t{7});
  }
  return out;
}

absl::Status RunRawCapture(absl::string_view data) {
  if (data.empty()) return absl::InvalidArgumentError("empty");
  const bool fix_crcs = (static_cast<unsigned char>(data[0]) & 1) != 0;
  data.remove_prefix(1);
  std::string bytes = fix_crcs ? FixRawCaptureCrcs(data) : std::string(data);
  absl::StatusOr<std::unique_ptr<capture::RawCaptureReader>> reader =
      capture::RawCaptureReader::FromString(std::move(bytes), "fuzz.tbcap");
  if (!reader.ok()) return reader.status();
  capture::RawCapture loaded = capture::LoadRawCaptureFrom(reader->get());
  (void)(*reader)->LossSummary();
#ifdef TBPROF_FUZZ_HAVE_RAW_CAPTURE_CONVERTER
  xplane::XSpaceData space;
  converters::ConvertLoadedRawCaptureToXSpace(loaded, converters::RawCaptureOptions(), &space);
  RunViews(space);
  CheckRoundTrip(space, "raw capture converter");
#endif
  return absl::OkStatus();
}

absl::Status RunRocprofJson(absl::string_view data) {
  xplane::XSpaceData space;
  absl::StatusOr<converters::RocprofSummary> summary =
      converters::ConvertRocprofJsonTextToXSpace(data, "fuzz.json", &space);
  if (!summary.ok()) return summary.status();
  RunViews(space);
  CheckRoundTrip(space, "rocprof converter");
  return absl::OkStatus();
}

absl::Status RunMemorySnapshot(absl::string_view data) {
  absl::StatusOr<converters::memory_snapshot::Snapshot> snapshot =
      converters::memory_snapshot::ReadMemorySnapshot(data, "fuzz.pickle");
  if (!snapshot.ok()) return snapshot.status();
  xplane::XSpaceData space;
  converters::ConvertSnapshotToXSpace(*snapshot, &space);
  RunViews(space);
  CheckRoundTrip(space, "memory snapshot converter");
  return absl::OkStatus();
}

absl::Status RunNsysSqlite(absl::string_view data) {
  // A real file: SQLite resolves symbolic links, and /proc/self/fd/<memfd>
  // points at no path it can open.
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                        "/tbprof-fuzz-nsys-", ::getpid(), ".sqlite");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return absl::InternalError(absl::StrCat(path, ": cannot write"));
    const bool written = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    if (std::fclose(f) != 0 || !written) {
      std::remove(path.c_str());
      return absl::InternalError(absl::StrCat(path, ": cannot write"));
    }
  }
  xplane::XSpaceData space;
  absl::StatusOr<converters::NsysSummary> summary =
      converters::ConvertNsysSqliteToXSpace(path, converters::NsysOptions(), &space);
  std::remove(path.c_str());
  if (!summary.ok()) return summary.status();
  RunViews(space);
  CheckRoundTrip(space, "nsys converter");
  return absl::OkStatus();
}

std::vector<std::string> FuzzTargetNames() {
  return {"chrome_json", "chrome_json_gzip", "chrome_json_threads", "xspace", "raw_capture",
          "control_protocol", "rocprof", "memory_snapshot",
          "nsys_sqlite"};
}

absl::Status RunFuzzTarget(absl::string_view name, absl::string_view data) {
  if (name == "chrome_json") return RunChromeJson(data);
  if (name == "chrome_json_gzip") return RunChromeJsonGzip(data);
  if (name == "chrome_json_threads") return RunChromeJsonThreads(data);
  if (name == "xspace") return RunXSpace(data);
  if (name == "raw_capture") return RunRawCapture(data);
  if (name == "control_protocol") return RunControlProtocol(data);
  if (name == "rocprof") return RunRocprofJson(data);
  if (name == "memory_snapshot") return RunMemorySnapshot(data);
  if (name == "nsys_sqlite") return RunNsysSqlite(data);
  return absl::InvalidArgumentError(absl::StrCat("unknown fuzz target ", name));
}

}  // namespace tbprof::fuzz
