#include "converters/views/trace/xspace_to_trace_json.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/output/json_text_writer.h"
#include "converters/output/pipelined_sink.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

// Trace-viewer process ids as the plugin assigns them: devices 1..500,
// custom planes from 501, host threads 701; anything else after that.
constexpr int64_t kFirstDevicePid = 1;
constexpr int64_t kMaxDeviceOrdinal = 499;
constexpr int64_t kFirstCustomPid = 501;
constexpr int64_t kHostPid = 701;
constexpr int64_t kFirstOtherPid = 702;

struct PlaneOut {
  const xplane::Plane* plane;
  int64_t pid;
  int64_t sort_index;
};

// Planes shown, with their pids, in display order.
std::vector<PlaneOut> SelectPlanes(const xplane::XSpaceData& space) {
  std::vector<PlaneOut> out;
  absl::flat_hash_set<int64_t> used;
  int64_t next_custom = kFirstCustomPid, next_other = kFirstOtherPid;
  auto take = [&](int64_t preferred, int64_t* next) {
    int64_t pid = preferred;
    while (pid <= 0 || used.contains(pid)) pid = (*next)++;
    used.insert(pid);
    return pid;
  };
  for (const xplane::Plane& plane : space.planes) {
    const absl::string_view name = space.strings.Get(plane.name);
    if (plane.lines.empty() || name == xplane::kMetadataPlaneName ||
        name == xplane::kTaskEnvPlaneName) {
      continue;
    }
    int64_t pid;
    if (name == xplane::kHostThreadsPlaneName) {
      pid = take(kHostPid, &next_other);
    } else if (auto ordinal = xplane::ParseGpuPlaneOrdinal(name);
               ordinal.has_value() && *ordinal >= 0 && *ordinal <= kMaxDeviceOrdinal) {
      pid = take(kFirstDevicePid + *ordinal, &next_other);
    } else if (absl::StartsWith(name, xplane::kCustomPlanePrefix)) {
      pid = take(next_custom, &next_custom);
    } else {
      pid = take(next_other, &next_other);
    }
    out.push_back({&plane, pid, 0});
  }
  // Host first, then devices by pid, then the rest.
  for (PlaneOut& p : out) {
    p.sort_index = p.pid == kHostPid ? 0 : p.pid;
  }
  std::stable_sort(out.begin(), out.end(), [](const PlaneOut& a, const PlaneOut& b) {
    return a.sort_index < b.sort_index;
  });
  return out;
}

template <typename Fn>
void ForEachTimedEvent(const xplane::XSpaceData& space, const std::vector<PlaneOut>& planes,
                       int64_t base_ns, Fn&& fn) {
  for (const PlaneOut& p : planes) {
    xplane::XPlaneVisitor plane(&space, p.plane, base_ns);
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        if (!event.is_aggregate()) fn(event);
      });
    });
  }
}

// Smallest begin time such that at most `max_events` events begin before it.
// Narrows a histogram of begin times until one bucket holds the boundary.
int64_t FindCutoffPs(const xplane::XSpaceData& space, const std::vector<PlaneOut>& planes,
                     int64_t base_ns, int64_t min_ps, int64_t max_ps, int64_t max_events) {
  constexpr uint64_t kBuckets = 1 << 16;
  std::vector<int64_t> counts(kBuckets);
  int64_t lo = min_ps;
  uint64_t span = static_cast<uint64_t>(max_ps) - static_cast<uint64_t>(min_ps) + 1;
  int64_t need = max_events;  // Events with begin < lo are all kept.
  while (true) {
    const uint64_t width = span / kBuckets + (span % kBuckets != 0 ? 1 : 0);
    std::fill(counts.begin(), counts.end(), 0);
    ForEachTimedEvent(space, planes, base_ns, [&](const xplane::XEventVisitor& event) {
      const int64_t b = event.begin_ps();
      if (b < lo) return;
      const uint64_t offset = static_cast<uint64_t>(b) - static_cast<uint64_t>(lo);
      if (offset < span) ++counts[offset / width];
    });
    uint64_t k = 0;
    int64_t below = 0;
    while (k + 1 < kBuckets && below + counts[k] <= need) below += counts[k++];
    need -= below;
    lo = static_cast<int64_t>(static_cast<uint64_t>(lo) + k * width);
    span = width;
    if (width == 1) return lo;
  }
}

std::string LineName(const xplane::XLineVisitor& line) {
  if (!line.display_name().empty()) return std::string(line.display_name());
  if (!line.name().empty()) return std::string(line.name());
  return absl::StrCat("Thread ", line.id());
}

// The "traceEvents" array being written.
struct EventList {
  JsonTextWriter* out;
  bool empty = true;

  // Writes the separator before the next element; returns the writer.
  JsonTextWriter* Next() {
    out->Raw(empty ? "\n" : ",\n");
    empty = false;
    return out;
  }
};

// Writes the start of a "ph":"M" event; no `tid` for a process-level event.
JsonTextWriter* WriteMetadataHead(absl::string_view kind, int64_t pid, std::optional<int64_t> tid,
                                  absl::string_view arg, EventList* list) {
  JsonTextWriter* out = list->Next();
  out->Raw("{\"ph\":\"M\",\"pid\":");
  out->Int(pid);
  if (tid.has_value()) {
    out->Raw(",\"tid\":");
    out->Int(*tid);
  }
  out->Raw(",\"name\":\"");
  out->Raw(kind);
  out->Raw("\",\"args\":{\"");
  out->Raw(arg);
  out->Raw("\":");
  return out;
}

void WriteNameMetadata(absl::string_view kind, int64_t pid, std::optional<int64_t> tid,
                       absl::string_view arg, absl::string_view value, EventList* list) {
  JsonTextWriter* out = WriteMetadataHead(kind, pid, tid, arg, list);
  out->String(value);
  out->Raw("}}");
}

void WriteSortIndexMetadata(absl::string_view kind, int64_t pid, std::optional<int64_t> tid,
                            int64_t index, EventList* list) {
  JsonTextWriter* out = WriteMetadataHead(kind, pid, tid, "sort_index", list);
  out->Int(index);
  out->Raw("}}");
}

void WriteStringArray(absl::string_view key, const std::vector<std::string>& values,
                      JsonTextWriter* out) {
  out->Raw(",\"");
  out->Raw(key);
  out->Raw("\":[");
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->Raw(",");
    out->String(values[i]);
  }
  out->Raw("]");
}

// JSON text of names and strings that repeat across one plane's events,
// escaped once: event names, stat keys and ref (interned) string values.
class PlaneStrings {
 public:
  explicit PlaneStrings(const xplane::XPlaneVisitor& plane)
      : event_heads_(plane.num_event_metadata()),
        has_long_name_(plane.num_event_metadata()),
        stat_keys_(plane.num_stat_metadata()) {}

  // `"name":<display name or name>,"args":{` for the event's metadata, with
  // `"long_name":<name>` opening the args when the event shows a display
  // name other than its name (then `*has_args` is set).
  const std::string& EventHead(const xplane::XEventVisitor& event, bool* has_args) {
    std::string& text = event_heads_[event.metadata_index()];
    if (text.empty()) {
      const absl::string_view display = event.display_name();
      text = "\"name\":";
      AppendJsonString(display.empty() ? event.name() : display, &text);
      text.append(",\"args\":{");
      if (!display.empty() && display != event.name()) {
        text.append("\"long_name\":");
        AppendJsonString(event.name(), &text);
        has_long_name_[event.metadata_index()] = true;
      }
    }
    *has_args = has_long_name_[event.metadata_index()];
    return text;
  }

  // `,"<stat name>":`; skip the first byte for the first member.
  const std::string& CommaStatKey(const xplane::XStatVisitor& stat) {
    std::string& text = stat_keys_[stat.metadata_index()];
    if (text.empty()) {
      text.push_back(',');
      AppendJsonString(stat.name(), &text);
      text.push_back(':');
    }
    return text;
  }

  // The quoted string of a kRef stat, looked up once per ref id.
  const std::string& RefValue(const xplane::XStatVisitor& stat) {
    auto [it, inserted] = ref_values_.try_emplace(stat.RefId());
    if (inserted) AppendJsonString(stat.StrOrRefValue(), &it->second);
    return it->second;
  }

 private:
  std::vector<std::string> event_heads_;
  std::vector<bool> has_long_name_;
  std::vector<std::string> stat_keys_;
  absl::flat_hash_map<uint64_t, std::string> ref_values_;
};

void AppendStatValue(const xplane::XStatVisitor& stat, PlaneStrings* strings, std::string* buf) {
  switch (stat.kind()) {
    case xplane::StatKind::kInt64:
      absl::StrAppend(buf, stat.IntValue());
      break;
    case xplane::StatKind::kUint64:
      absl::StrAppend(buf, stat.UintValue());
      break;
    case xplane::StatKind::kDouble:
      AppendJsonDouble(stat.DoubleValue(), buf);
      break;
    case xplane::StatKind::kStr:
      AppendJsonString(stat.StrOrRefValue(), buf);
      break;
    case xplane::StatKind::kRef:
      buf->append(strings->RefValue(stat));
      break;
    case xplane::StatKind::kBytes:
      AppendJsonString(absl::StrCat("<", stat.BytesValue().size(), " bytes>"), buf);
      break;
    case xplane::StatKind::kCompressedStr:
      buf->append("\"<compressed string>\"");
      break;
    case xplane::StatKind::kNone:
      buf->append("null");
      break;
  }
}

// The start of every event of one line up to its time stamp:
// `{"ph":"X","pid":P,"tid":T,"ts":` (complete events) and the instant form.
struct LinePrefixes {
  LinePrefixes(int64_t pid, int64_t tid)
      : complete(absl::StrCat("{\"ph\":\"X\",\"pid\":", pid, ",\"tid\":", tid, ",\"ts\":")),
        instant(absl::StrCat("{\"ph\":\"i\",\"s\":\"t\",\"pid\":", pid, ",\"tid\":", tid,
                             ",\"ts\":")) {}
  std::string complete;
  std::string instant;
};

// Writes one "X" (duration > 0) or "i" event with its stats as args.
void WriteEvent(const xplane::XEventVisitor& event, const LinePrefixes& prefixes,
                PlaneStrings* strings, std::vector<uint32_t>* seen_stats, EventList* list) {
  JsonTextWriter* out = list->Next();
  std::string* buf = out->buffer();
  const bool has_duration = event.duration_ps() > 0;
  buf->append(has_duration ? prefixes.complete : prefixes.instant);
  // Time stamp and duration formatted on the stack, appended at once.
  char times[2 * kMaxPicosAsMicrosChars + 16];
  size_t n = FormatPicosAsMicros(event.begin_ps(), times);
  if (has_duration) {
    static constexpr absl::string_view kDur = ",\"dur\":";
    std::memcpy(times + n, kDur.data(), kDur.size());
    n += kDur.size();
    n += FormatPicosAsMicros(event.duration_ps(), times + n);
  }
  times[n++] = ',';
  buf->append(times, n);
  bool has_args = false;
  buf->append(strings->EventHead(event, &has_args));
  seen_stats->clear();
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    // An event's own stat hides its metadata's stat of the same name.
    if (std::find(seen_stats->begin(), seen_stats->end(), stat.metadata_index()) !=
        seen_stats->end()) {
      return;
    }
    seen_stats->push_back(stat.metadata_index());
    const std::string& key = strings->CommaStatKey(stat);
    buf->append(key.data() + (has_args ? 0 : 1), key.size() - (has_args ? 0 : 1));
    has_args = true;
    AppendStatValue(stat, strings, buf);
  });
  buf->append("}}");
}

}  // namespace

size_t FormatPicosAsMicros(int64_t ps, char* out) {
  // "00" "01" ... "99": two digits per division (this runs twice per event
  // of the trace, which makes it one of the trace text's larger costs).
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char* p = out;
  uint64_t magnitude = static_cast<uint64_t>(ps);
  if (ps < 0) {
    *p++ = '-';
    magnitude = ~magnitude + 1;  // Two's complement negation, safe for INT64_MIN.
  }
  // Whole microseconds, written backwards from the end of a scratch buffer.
  uint64_t whole = magnitude / 1000000;
  const uint64_t fraction = magnitude - whole * 1000000;
  char digits[24];
  char* d = digits + sizeof(digits);
  while (whole >= 100) {
    const size_t pair = static_cast<size_t>(whole % 100) * 2;
    whole /= 100;
    *--d = kPairs[pair + 1];
    *--d = kPairs[pair];
  }
  if (whole >= 10) {
    *--d = kPairs[whole * 2 + 1];
    *--d = kPairs[whole * 2];
  } else {
    *--d = static_cast<char>('0' + whole);
  }
  const size_t whole_len = static_cast<size_t>(digits + sizeof(digits) - d);
  std::memcpy(p, d, whole_len);
  p += whole_len;
  if (fraction != 0) {
    // Six digits, then without the trailing zeros.
    const uint32_t f = static_cast<uint32_t>(fraction);
    const uint32_t high = f / 10000, mid = f / 100 % 100, low = f % 100;
    *p++ = '.';
    p[0] = kPairs[high * 2];
    p[1] = kPairs[high * 2 + 1];
    p[2] = kPairs[mid * 2];
    p[3] = kPairs[mid * 2 + 1];
    p[4] = kPairs[low * 2];
    p[5] = kPairs[low * 2 + 1];
    int frac_len = 6;
    while (p[frac_len - 1] == '0') --frac_len;
    p += frac_len;
  }
  return static_cast<size_t>(p - out);
}

void AppendPicosAsMicros(int64_t ps, std::string* out) {
  char text[kMaxPicosAsMicrosChars];
  out->append(text, FormatPicosAsMicros(ps, text));
}

absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJson(const xplane::XSpaceData& space,
                                                        const TraceJsonOptions& options,
                                                        const ByteSink& sink) {
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  const std::vector<PlaneOut> planes = SelectPlanes(space);

  TraceJsonSummary summary;
  int64_t min_ps = INT64_MAX, max_ps = INT64_MIN;
  ForEachTimedEvent(space, planes, base_ns, [&](const xplane::XEventVisitor& event) {
    ++summary.events_total;
    min_ps = std::min(min_ps, event.begin_ps());
    max_ps = std::max(max_ps, event.begin_ps());
  });
  int64_t cutoff_ps = INT64_MAX;
  if (options.max_events > 0 && summary.events_total > options.max_events) {
    cutoff_ps = FindCutoffPs(space, planes, base_ns, min_ps, max_ps, options.max_events);
    summary.truncated = true;
    summary.cutoff_ps = cutoff_ps;
  }

  JsonTextWriter out(&sink);
  out.Raw("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"tbprof_events_total\":");
  out.Int(summary.events_total);
  out.Raw(",\"tbprof_truncated\":");
  out.Raw(summary.truncated ? "true" : "false");
  if (summary.truncated) {
    out.Raw(",\"tbprof_max_events\":");
    out.Int(options.max_events);
    out.Raw(",\"tbprof_cutoff_us\":");
    AppendPicosAsMicros(cutoff_ps, out.buffer());
  }
  WriteStringArray("hostnames", space.hostnames, &out);
  WriteStringArray("errors", space.errors, &out);
  WriteStringArray("warnings", space.warnings, &out);
  out.Raw("},\n\"traceEvents\":[");

  EventList list{&out};
  std::vector<uint32_t> seen_stats;  // Stat metadata indexes of the current event.
  for (const PlaneOut& p : planes) {
    xplane::XPlaneVisitor plane(&space, p.plane, base_ns);
    WriteNameMetadata("process_name", p.pid, std::nullopt, "name", plane.name(), &list);
    WriteSortIndexMetadata("process_sort_index", p.pid, std::nullopt, p.sort_index, &list);
    if (auto device = plane.GetStat(xplane::StatType::kGpuDeviceName); device.has_value()) {
      WriteNameMetadata("process_labels", p.pid, std::nullopt, "labels", device->StrOrRefValue(),
                        &list);
    }
    PlaneStrings strings(plane);
    for (size_t l = 0; l < plane.num_lines() && out.status().ok(); ++l) {
      const xplane::XLineVisitor line = plane.line(l);
      const int64_t tid = line.id();
      WriteNameMetadata("thread_name", p.pid, tid, "name", LineName(line), &list);
      WriteSortIndexMetadata("thread_sort_index", p.pid, tid, static_cast<int64_t>(l), &list);
      const LinePrefixes prefixes(p.pid, tid);
      for (size_t e = 0; e < line.num_events(); ++e) {
        const xplane::XEventVisitor event = line.event(e);
        if (event.is_aggregate() || event.begin_ps() >= cutoff_ps) continue;
        ++summary.events_written;
        WriteEvent(event, prefixes, &strings, &seen_stats, &list);
        if ((e & 1023) == 1023 && !out.MaybeFlush().ok()) break;
      }
      out.MaybeFlush().IgnoreError();  // A sink error ends the loops and is returned below.
    }
  }
  out.Raw("\n]}\n");
  TBPROF_RETURN_IF_ERROR(out.Flush());
  return summary;
}

absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJsonGzTo(const xplane::XSpaceData& space,
                                                            const TraceJsonOptions& options,
                                                            ByteSink compressed_sink) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<GzipOutputStream> gzip,
                          GzipOutputStream::Create(std::move(compressed_sink), options.gzip_level));
  PipelinedSink piped([&gzip](absl::string_view bytes) { return gzip->Append(bytes); });
  absl::StatusOr<TraceJsonSummary> summary =
      WriteXSpaceAsTraceJson(space, options, piped.AsByteSink());
  const absl::Status piped_status = piped.Finish();
  TBPROF_RETURN_IF_ERROR(summary.status());
  TBPROF_RETURN_IF_ERROR(piped_status);
  TBPROF_RETURN_IF_ERROR(gzip->Finish());
  return summary;
}

absl::StatusOr<TraceJsonSummary> WriteXSpaceAsTraceJsonGz(const xplane::XSpaceData& space,
                                                          const TraceJsonOptions& options,
                                                          AtomicOutputFile* file) {
  return WriteXSpaceAsTraceJsonGzTo(
      space, options, [file](absl::string_view bytes) { return file->Append(bytes); });
}

absl::StatusOr<std::string> ConvertXSpaceToTraceJsonGz(const xplane::XSpaceData& space,
                                                       const TraceJsonOptions& options) {
  std::string compressed;
  TBPROF_RETURN_IF_ERROR(WriteXSpaceAsTraceJsonGzTo(space, options,
                                                    [&compressed](absl::string_view bytes) {
                                                      compressed.append(bytes.data(),
                                                                        bytes.size());
                                                      return absl::OkStatus();
                                                    })
                             .status());
  return compressed;
}

absl::StatusOr<std::string> ConvertXSpaceToTraceJson(const xplane::XSpaceData& space,
                                                     const TraceJsonOptions& options) {
  std::string json;
  TBPROF_RETURN_IF_ERROR(WriteXSpaceAsTraceJson(space, options, [&json](absl::string_view bytes) {
                           json.append(bytes.data(), bytes.size());
                           return absl::OkStatus();
                         }).status());
  return json;
}

}  // namespace tbprof::views
