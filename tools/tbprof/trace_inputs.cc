#include "tools/tbprof/trace_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/rocprof/rocprof_to_xspace.h"
#include "src/base/input_stream.h"
#include "src/base/resource_usage.h"
#include "src/base/status_macros.h"
#include "src/logdir/profile_logdir.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::cli {
namespace {

// Longest first, so ".pt.trace.json.gz" wins over ".json.gz".
constexpr absl::string_view kTraceSuffixes[] = {
    ".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz", ".trace.json", ".xplane.pb.gz",
    ".json.gz",          ".xplane.pb",     ".json",          ".pb.gz",      ".pb",
    ".gz",               ".tbcap",          ".pickle.gz",      ".pickle",         ".pkl",
    ".nsys-rep",         ".qdrep",          ".sqlite",
};
// Names a directory scan picks up.
constexpr absl::string_view kDirectoryTraceSuffixes[] = {
    ".json", ".json.gz", ".xplane.pb", ".xplane.pb.gz", ".tbcap", ".pickle", ".pkl",
    ".sqlite", ".nsys-rep"};
// First bytes of a raw capture (docs/raw_capture_format.md).
constexpr absl::string_view kRawCaptureMagic = "\x89TBCAP\r\n";
constexpr size_t kSniffBytes = 4096;

std::string BaseName(absl::string_view path) {
  while (path.size() > 1 && absl::EndsWith(path, "/")) path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

bool HasTraceSuffixForDirectoryScan(absl::string_view name) {
  for (absl::string_view suffix : kDirectoryTraceSuffixes) {
    if (absl::EndsWithIgnoreCase(name, suffix)) return true;
  }
  return false;
}

bool LooksLikeJsonName(absl::string_view name) {
  return absl::EndsWithIgnoreCase(name, ".json") || absl::EndsWithIgnoreCase(name, ".json.gz");
}

absl::Status ListTraceFiles(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(dir, ": cannot read directory: ", std::strerror(errno)));
  }
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.empty() || name[0] == '.' || !HasTraceSuffixForDirectoryScan(name)) continue;
    // tbprof's views files (of a host or of the whole run) are never traces.
    if (absl::EndsWith(name, absl::StrCat(".", logdir::kViewsFileSuffix))) continue;
    std::string path = absl::StrCat(dir, absl::EndsWith(dir, "/") ? "" : "/", name);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) names.push_back(std::move(name));
  }
  ::closedir(d);
  // In a logdir run directory, "<host>.trace.json.gz" and
  // "<host>.memory_profile.json.gz" beside "<host>.xplane.pb" are precomputed
  // views of that host (written by us or by TensorFlow), not traces.
  std::vector<std::string> hosts;
  for (const std::string& name : names) {
    if (absl::EndsWithIgnoreCase(name, ".xplane.pb")) {
      hosts.push_back(name.substr(0, name.size() - std::string(".xplane.pb").size()));
    }
  }
  names.erase(std::remove_if(names.begin(), names.end(),
                             [&hosts](const std::string& name) {
                               if (absl::EndsWithIgnoreCase(name, ".xplane.pb")) return false;
                               for (const std::string& host : hosts) {
                                 if (absl::StartsWith(name, host + ".")) return true;
                               }
                               return false;
                             }),
              names.end());
  if (names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": no trace files in this directory (looked for *.json, *.json.gz, *.xplane.pb, "
             "*.tbcap, *.pickle, *.pkl, *.sqlite, *.nsys-rep; "
             "subdirectories are not searched)"));
  }
  std::sort(names.begin(), names.end(), NaturalLess);
  for (const std::string& name : names) {
    out->push_back(absl::StrCat(dir, absl::EndsWith(dir, "/") ? "" : "/", name));
  }
  return absl::OkStatus();
}

// Reads a varint at `*pos`; false if it runs past the end or is too long.
bool ReadVarint(absl::string_view bytes, size_t* pos, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *pos < bytes.size(); shift += 7) {
    uint8_t b = static_cast<uint8_t>(bytes[(*pos)++]);
    *value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace

absl::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kChromeJson:
      return "Chrome trace JSON";
    case InputFormat::kXSpace:
      return "XSpace protobuf";
    case InputFormat::kRawCapture:
      return "tbprof raw capture";
    case InputFormat::kRocprofJson:
      return "rocprofv3 JSON";
    case InputFormat::kMemorySnapshot:
      return "PyTorch memory snapshot";
    case InputFormat::kNsys:
      return "Nsight Systems export";
  }
  return "unknown";
}

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = absl::ascii_isdigit(static_cast<unsigned char>(a[i]));
    bool db = absl::ascii_isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && absl::ascii_isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && absl::ascii_isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      absl::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    struct stat st;
    if (::stat(arg.c_str(), &st) != 0) {
      int err = errno;
      std::string message = absl::StrCat(arg, ": ", std::strerror(err));
      if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
      return absl::PermissionDeniedError(message);
    }
    if (S_ISDIR(st.st_mode)) {
      TBPROF_RETURN_IF_ERROR(ListTraceFiles(arg, &out));
    } else {
      out.push_back(arg);
    }
  }
  std::vector<std::string> expanded;  // Nsight Systems exports: one input per process.
  for (const std::string& file : out) {
    for (std::string& input : converters::ExpandNsysProcesses(file)) expanded.push_back(input);
  }
  return expanded;
}

absl::StatusOr<InputFormat> DetectInputFormat(const std::string& path,
                                              uint64_t max_inflated_bytes) {
  std::string nsys_file;
  int64_t nsys_pid;
  if (converters::SplitNsysProcessPath(path, &nsys_file, &nsys_pid)) return InputFormat::kNsys;
  InputStreamOptions stream_options;
  stream_options.max_inflated_bytes = max_inflated_bytes;
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream,
                          OpenInputStream(path, stream_options));
  std::string head(kSniffBytes, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    TBPROF_ASSIGN_OR_RETURN(size_t n, stream->Read(&head[filled], head.size() - filled));
    if (n == 0) break;
    filled += n;
  }
  head.resize(filled);
  if (head.empty()) {
    return absl::DataLossError(
        absl::StrCat(path, ": empty file", stream->is_gzip() ? " (after gzip decompression)" : ""));
  }
  absl::string_view content = head;
  if (absl::StartsWith(content, kRawCaptureMagic)) return InputFormat::kRawCapture;
  if (converters::pickle::LooksLikePickle(content)) return InputFormat::kMemorySnapshot;
  if (converters::LooksLikeSqlite(content) || converters::IsNsysReportName(path)) {
    return InputFormat::kNsys;
  }
  if (absl::StartsWith(content, "\xEF\xBB\xBF")) content.remove_prefix(3);  // UTF-8 BOM.
  content = absl::StripLeadingAsciiWhitespace(content);
  if (converters::LooksLikeRocprofJson(content)) return InputFormat::kRocprofJson;
  if (!content.empty() && (content[0] == '{' || content[0] == '[')) return InputFormat::kChromeJson;
  if (content.empty() && filled < kSniffBytes) {
    return absl::DataLossError(absl::StrCat(path, ": empty file (only whitespace)"));
  }
  if (LooksLikeJsonName(path)) return InputFormat::kChromeJson;  // Converter names the offset.
  return InputFormat::kXSpace;
}

absl::Status CheckXSpaceWireFormat(absl::string_view bytes, absl::string_view source) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t field_start = pos;
    uint64_t tag, length;
    if (!ReadVarint(bytes, &pos, &tag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": not an XSpace protobuf (or Chrome trace JSON): bad field tag at byte ",
          field_start));
    }
    uint64_t field = tag >> 3;
    uint64_t wire_type = tag & 7;
    if (field < 1 || field > 4 || wire_type != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": not an XSpace protobuf (or Chrome trace JSON): unexpected field ", field,
          " with wire type ", wire_type, " at byte ", field_start));
    }
    if (!ReadVarint(bytes, &pos, &length) || length > bytes.size() - pos) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": not an XSpace protobuf, or truncated: field ", field, " at byte ",
          field_start, " runs past the end of the file (", bytes.size(), " bytes)"));
    }
    pos += length;
  }
  return absl::OkStatus();
}

std::string FileStem(absl::string_view path) {
  std::string name = BaseName(path);
  for (absl::string_view suffix : kTraceSuffixes) {
    if (name.size() > suffix.size() && absl::EndsWithIgnoreCase(name, suffix)) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  return name;
}

uint64_t EffectiveMaxInflatedBytes(uint64_t requested, uint64_t file_size) {
  if (requested != kAutoLimit) return requested;
  constexpr uint64_t kFloor = uint64_t{1} << 30;
  constexpr uint64_t kRatio = 200;
  if (file_size > UINT64_MAX / kRatio) return 0;
  return std::max(kFloor, file_size * kRatio);
}

uint64_t EffectiveMaxMemoryBytes(uint64_t requested) {
  return requested == kAutoLimit ? DefaultMemoryLimitBytes() : requested;
}

namespace {

// A binary file saved or pasted as text has its non-UTF-8 bytes replaced by
// U+FFFD (EF BF BD); say so instead of only "not a protobuf".
absl::Status WithTextCorruptionHint(absl::Status status, absl::string_view bytes) {
  if (status.ok()) return status;
  constexpr absl::string_view kReplacement = "\xEF\xBF\xBD";
  size_t count = 0;
  for (size_t at = bytes.find(kReplacement); at != absl::string_view::npos && count < 4;
       at = bytes.find(kReplacement, at + kReplacement.size())) {
    ++count;
  }
  if (count < 4) return status;
  return absl::Status(status.code(),
                      absl::StrCat(status.message(),
                                   "; the file is full of U+FFFD replacement characters (EF BF "
                                   "BD): it was probably saved or copied as text, which destroys "
                                   "binary data. Copy the original file in binary mode"));
}

}  // namespace

absl::StatusOr<LoadedInput> LoadInput(const std::string& path, const LoadOptions& options) {
  LoadedInput loaded;
  loaded.path = path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) loaded.file_bytes = static_cast<uint64_t>(st.st_size);
  const uint64_t max_inflated = EffectiveMaxInflatedBytes(options.max_inflated_bytes,
                                                          loaded.file_bytes);
  const uint64_t max_memory = EffectiveMaxMemoryBytes(options.max_memory_bytes);
  TBPROF_ASSIGN_OR_RETURN(loaded.format, DetectInputFormat(path, max_inflated));

  if (loaded.format == InputFormat::kChromeJson) {
    converters::ChromeJsonOptions json_options;
    json_options.max_inflated_bytes = max_inflated;
    json_options.max_events = options.max_events;
    json_options.threads = options.json_threads;
    json_options.max_memory_bytes = max_memory;
    json_options.progress = options.progress;
    TBPROF_ASSIGN_OR_RETURN(converters::ChromeJsonSummary summary,
                            converters::ConvertChromeJsonToXSpace(path, json_options,
                                                                  &loaded.space));
    TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
    loaded.host_hint = summary.hostname_hint;
    loaded.rank = summary.rank;
    loaded.json_summary = std::move(summary);
    loaded.steps = converters::ApplyStepsMode(&loaded.space, options.steps);
    return loaded;
  }

  if (loaded.format == InputFormat::kRawCapture) {
    if (options.progress) options.progress(0, loaded.file_bytes);
    TBPROF_ASSIGN_OR_RETURN(
        converters::RawCaptureSummary summary,
        converters::ConvertRawCaptureToXSpace(path, converters::RawCaptureOptions(), &loaded.space));
    TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
    if (options.progress) options.progress(loaded.file_bytes, loaded.file_bytes);
    loaded.host_hint = summary.hostname;
    loaded.raw_summary = std::move(summary);
    loaded.steps = converters::ApplyStepsMode(&loaded.space, options.steps);
    return loaded;
  }

  if (loaded.format == InputFormat::kRocprofJson) {
    converters::RocprofOptions rocprof_options;
    rocprof_options.max_inflated_bytes = max_inflated;
    rocprof_options.progress = options.progress;
    rocprof_options.max_memory_bytes = max_memory;
    TBPROF_ASSIGN_OR_RETURN(
        converters::RocprofSummary summary,
        converters::ConvertRocprofToXSpace(path, rocprof_options, &loaded.space));
    TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
    loaded.host_hint = summary.hostname;
    loaded.steps = converters::ApplyStepsMode(&loaded.space, options.steps);
    return loaded;
  }

  if (loaded.format == InputFormat::kNsys) {
    std::string nsys_file;  // "<export>#pid=<N>": the size of <export>.
    int64_t nsys_pid;
    if (converters::SplitNsysProcessPath(path, &nsys_file, &nsys_pid) &&
        ::stat(nsys_file.c_str(), &st) == 0) {
      loaded.file_bytes = static_cast<uint64_t>(st.st_size);
    }
    if (options.progress) options.progress(0, loaded.file_bytes);
    TBPROF_ASSIGN_OR_RETURN(
        converters::NsysSummary summary,
        converters::ConvertNsysToXSpace(path, converters::NsysOptions(), &loaded.space));
    TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
    if (options.progress) options.progress(loaded.file_bytes, loaded.file_bytes);
    if (!loaded.space.hostnames.empty()) loaded.host_hint = loaded.space.hostnames[0];
    loaded.steps = converters::ApplyStepsMode(&loaded.space, options.steps);
    return loaded;
  }

  if (loaded.format == InputFormat::kMemorySnapshot) {
    if (options.progress) options.progress(0, loaded.file_bytes);
    converters::MemorySnapshotOptions snapshot_options;
    snapshot_options.max_inflated_bytes = max_inflated;
    TBPROF_ASSIGN_OR_RETURN(
        converters::MemorySnapshotSummary summary,
        converters::ConvertMemorySnapshotToXSpace(path, snapshot_options, &loaded.space));
    TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
    if (options.progress) options.progress(loaded.file_bytes, loaded.file_bytes);
    loaded.memory_snapshot_summary = std::move(summary);
    return loaded;
  }

  // The file is mapped and parsed straight into the compact model, whose
  // events and stats take up to about 2x the file; the file's pages are
  // given back as they are parsed (xspace_wire_reader.h).
  if (max_memory > 0 && loaded.file_bytes > max_memory / 2) {
    return absl::ResourceExhaustedError(absl::StrCat(
        path, ": loading this ", loaded.file_bytes >> 20, " MB XSpace needs about ",
        (loaded.file_bytes * 2) >> 20, " MB of memory, over the limit of ", max_memory >> 20,
        " MB (raise it with --max-memory-mb)"));
  }
  if (options.progress) options.progress(0, loaded.file_bytes);
  InputStreamOptions stream_options;
  stream_options.max_inflated_bytes = max_inflated;
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<xplane::XSpaceInput> input,
                          xplane::XSpaceInput::Open(path, stream_options));
  TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
  const absl::string_view bytes = input->bytes();
  TBPROF_RETURN_IF_ERROR(WithTextCorruptionHint(CheckXSpaceWireFormat(bytes, path), bytes));
  xplane::XSpaceParseOptions parse_options;
  parse_options.progress = [&](uint64_t done, uint64_t total) {
    if (options.progress && total > 0) {
      options.progress(static_cast<uint64_t>(static_cast<double>(done) / total *
                                             static_cast<double>(loaded.file_bytes)),
                       loaded.file_bytes);
    }
    return CheckMemoryLimit(max_memory, path);
  };
  const bool keeps_file = options.steps != converters::StepsMode::kInfer &&
                          options.steps != converters::StepsMode::kNone;
  if (options.xspace_line_events && keeps_file) {
    parse_options.line_events = options.xspace_line_events;
    // On one thread: several would hold every event until they join.
    parse_options.threads = 1;
    loaded.lines_streamed = true;
  }
  absl::StatusOr<xplane::XSpaceData> space = xplane::ParseXSpaceInput(input.get(), parse_options);
  if (!space.ok()) return WithTextCorruptionHint(space.status(), bytes);
  input.reset();
  loaded.space = std::move(*space);
  TBPROF_RETURN_IF_ERROR(CheckMemoryLimit(max_memory, path));
  if (loaded.space.planes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": XSpace has no planes (nothing to show)"));
  }
  if (options.progress) options.progress(loaded.file_bytes, loaded.file_bytes);
  if (!loaded.space.hostnames.empty()) loaded.host_hint = loaded.space.hostnames[0];
  // An XSpace is copied without loss unless the user asks otherwise.
  if (options.steps == converters::StepsMode::kInfer ||
      options.steps == converters::StepsMode::kNone) {
    loaded.steps = converters::ApplyStepsMode(&loaded.space, options.steps);
  }
  return loaded;
}

std::string HostNamer::Pick(absl::string_view hint, int64_t rank, absl::string_view path) {
  std::string base = logdir::SanitizeHostName(hint.empty() ? FileStem(path) : std::string(hint));
  std::string name = base;
  if (used_.contains(name) && rank >= 0) name = absl::StrCat(base, "_rank", rank);
  if (used_.contains(name)) name = logdir::SanitizeHostName(FileStem(path));
  for (int n = 2; used_.contains(name); ++n) name = absl::StrCat(base, "_", n);
  used_.insert(name);
  return name;
}

std::string FormatFailedInputs(size_t total, const std::vector<absl::Status>& failed) {
  if (failed.empty()) return "";
  std::string text = absl::StrCat("tbprof: ", failed.size(), " of ", total,
                                  " inputs failed and were left out (--strict: all or nothing):\n");
  for (const absl::Status& status : failed) {
    std::string message(status.message());
    for (char& c : message) {
      if (c == '\n') c = ' ';
    }
    absl::StrAppend(&text, "  ", message, "\n");
  }
  return text;
}

}  // namespace tbprof::cli
