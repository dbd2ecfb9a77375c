#include "converters/memory_snapshot/memory_snapshot_report.h"

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace tbprof::converters {
namespace {

using memory_snapshot::DeviceMemory;
using memory_snapshot::LiveBlock;

std::string Bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while ((v >= 1024.0 || v <= -1024.0) && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return absl::StrCat(bytes, " B");
  const int digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return absl::StrFormat("%.*f %s", digits, v, units[u]);
}

std::vector<absl::string_view> Frames(const MemorySnapshotSummary& s, size_t device, size_t block) {
  return absl::StrSplit(s.LiveAtPeakStack(device, block), '\n', absl::SkipEmpty());
}

std::string PeakWhere(const DeviceMemory& d, bool has_times) {
  if (d.peak_event < 0) return "before recording began";
  if (!has_times) return absl::StrCat("at trace event ", d.peak_event);
  return absl::StrCat("at trace event ", d.peak_event, " (time_us ", d.peak_time_us, ")");
}

void JsonString(absl::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out->append(buf);
    } else {
      out->push_back(c);  // Snapshot strings are UTF-8 as PyTorch wrote them.
    }
  }
  out->push_back('"');
}

std::string Html(absl::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string MemorySnapshotDeviceType(const MemorySnapshotSummary& summary) {
  std::string out = "CUDA GPU";
  const char* sep = " ";
  for (const DeviceMemory& m : summary.analysis.devices) {
    absl::StrAppend(&out, sep, m.device);
    sep = ", ";
  }
  absl::StrAppend(&out, " (memory snapshot)");
  return out;
}

std::string FormatMemorySnapshotText(const MemorySnapshotSummary& s,
                                     const MemorySnapshotReportOptions& options) {
  std::string out;
  const auto& devices = s.analysis.devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceMemory& d = devices[i];
    absl::StrAppend(&out, "Memory snapshot, GPU ", d.device, ": peak ",
                    Bytes(d.peak_allocated_bytes), " allocated ", PeakWhere(d, s.analysis.has_times),
                    ", ", Bytes(d.reserved_at_peak_bytes), " reserved then (most reserved ",
                    Bytes(d.peak_reserved_bytes), ")\n");
    absl::StrAppend(&out, "  trace: ", d.trace_events, " events, ", d.allocs, " allocs, ", d.frees,
                    " frees completed", d.ooms > 0 ? absl::StrCat(", ", d.ooms, " OOM") : "",
                    "; live before recording: ", Bytes(d.initial_allocated_bytes), " in ",
                    d.initial_blocks.size(), " blocks\n");
    if (d.segments > 0) {
      absl::StrAppend(&out, "  at dump: ", d.segments, " segments, ",
                      Bytes(d.segment_reserved_bytes), " reserved, ",
                      Bytes(d.segment_active_bytes), " active, ", Bytes(d.fragmentation_bytes),
                      " reserved but free (", d.free_blocks, " free blocks, largest ",
                      Bytes(d.largest_free_block_bytes), ")\n");
    }
    const size_t shown = std::min<size_t>(d.live_at_peak.size(), options.max_blocks);
    absl::StrAppend(&out, "  live at the peak: ", d.live_at_peak.size(), " blocks",
                    shown < d.live_at_peak.size() ? absl::StrCat(", largest ", shown, ":") : ":",
                    "\n");
    for (size_t b = 0; b < shown; ++b) {
      const LiveBlock& block = d.live_at_peak[b];
      absl::StrAppendFormat(&out, "    %10s  0x%x%s\n", Bytes(block.size), block.addr,
                            block.before_recording ? "  (allocated before recording)" : "");
      std::vector<absl::string_view> frames = Frames(s, i, b);
      if (frames.empty()) absl::StrAppend(&out, "        (no stack recorded)\n");
      for (size_t f = 0; f < frames.size() && static_cast<int>(f) < options.max_frames; ++f) {
        absl::StrAppend(&out, "        ", frames[f], "\n");
      }
      if (static_cast<int>(frames.size()) > options.max_frames) {
        absl::StrAppend(&out, "        ... ", frames.size() - options.max_frames, " more frames\n");
      }
    }
  }
  for (const std::string& w : s.analysis.warnings) {
    absl::StrAppend(&out, "  warning: ", w, "\n");
  }
  return out;
}

std::string MemorySnapshotToJson(const MemorySnapshotSummary& s) {
  std::string out = "{\"devices\":[";
  const auto& devices = s.analysis.devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceMemory& d = devices[i];
    if (i > 0) out.push_back(',');
    absl::StrAppend(
        &out, "{\"device\":", d.device, ",\"peak_allocated_bytes\":", d.peak_allocated_bytes,
        ",\"peak_event\":", d.peak_event, ",\"peak_time_us\":", d.peak_time_us,
        ",\"reserved_at_peak_bytes\":", d.reserved_at_peak_bytes,
        ",\"peak_reserved_bytes\":", d.peak_reserved_bytes,
        ",\"initial_allocated_bytes\":", d.initial_allocated_bytes,
        ",\"initial_reserved_bytes\":", d.initial_reserved_bytes,
        ",\"final_allocated_bytes\":", d.final_allocated_bytes, ",\"allocs\":", d.allocs,
        ",\"frees\":", d.frees, ",\"ooms\":", d.ooms, ",\"segments\":", d.segments,
        ",\"segment_reserved_bytes\":", d.segment_reserved_bytes,
        ",\"segment_active_bytes\":", d.segment_active_bytes,
        ",\"fragmentation_bytes\":", d.fragmentation_bytes,
        ",\"largest_free_block_bytes\":", d.largest_free_block_bytes,
        ",\"free_blocks\":", d.free_blocks, ",\"live_at_peak\":[");
    for (size_t b = 0; b < d.live_at_peak.size(); ++b) {
      const LiveBlock& block = d.live_at_peak[b];
      if (b > 0) out.push_back(',');
      absl::StrAppend(&out, "{\"addr\":", block.addr, ",\"size\":", block.size,
                      ",\"stream\":", block.stream,
                      ",\"before_recording\":", block.before_recording ? "true" : "false",
                      ",\"alloc_event\":", block.alloc_event, ",\"frames\":[");
      std::vector<absl::string_view> frames = Frames(s, i, b);
      for (size_t f = 0; f < frames.size(); ++f) {
        if (f > 0) out.push_back(',');
        JsonString(frames[f], &out);
      }
      out += "]}";
    }
    out += "]}";
  }
  absl::StrAppend(&out, "],\"has_times\":", s.analysis.has_times ? "true" : "false",
                  ",\"warnings\":[");
  for (size_t w = 0; w < s.analysis.warnings.size(); ++w) {
    if (w > 0) out.push_back(',');
    JsonString(s.analysis.warnings[w], &out);
  }
  out += "]}";
  return out;
}

std::string MemorySnapshotToHtml(const MemorySnapshotSummary& s,
                                 const MemorySnapshotReportOptions& options) {
  std::string out = "<section class=\"memory-snapshot\"><h2>Memory snapshot</h2>\n";
  const auto& devices = s.analysis.devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceMemory& d = devices[i];
    absl::StrAppend(&out, "<h3>GPU ", d.device, "</h3>\n<table>\n");
    auto row = [&out](absl::string_view k, const std::string& v) {
      absl::StrAppend(&out, "<tr><th>", Html(k), "</th><td>", Html(v), "</td></tr>\n");
    };
    row("peak allocated", absl::StrCat(Bytes(d.peak_allocated_bytes), " ",
                                       PeakWhere(d, s.analysis.has_times)));
    row("reserved at the peak", Bytes(d.reserved_at_peak_bytes));
    row("most reserved", Bytes(d.peak_reserved_bytes));
    row("live before recording", absl::StrCat(Bytes(d.initial_allocated_bytes), " in ",
                                              d.initial_blocks.size(), " blocks"));
    row("trace", absl::StrCat(d.trace_events, " events, ", d.allocs, " allocs, ", d.frees,
                              " frees completed, ", d.ooms, " OOM"));
    if (d.segments > 0) {
      row("segments at dump", absl::StrCat(d.segments, ": ", Bytes(d.segment_reserved_bytes),
                                           " reserved, ", Bytes(d.segment_active_bytes),
                                           " active"));
      row("fragmentation at dump",
          absl::StrCat(Bytes(d.fragmentation_bytes), " reserved but free in ", d.free_blocks,
                       " blocks, largest ", Bytes(d.largest_free_block_bytes)));
    }
    out += "</table>\n<table><tr><th>size</th><th>address</th><th>stack (innermost first)</th></tr>\n";
    const size_t shown = std::min<size_t>(d.live_at_peak.size(), options.max_blocks);
    for (size_t b = 0; b < shown; ++b) {
      const LiveBlock& block = d.live_at_peak[b];
      std::string frames;
      std::vector<absl::string_view> list = Frames(s, i, b);
      for (size_t f = 0; f < list.size() && static_cast<int>(f) < options.max_frames; ++f) {
        absl::StrAppend(&frames, f > 0 ? "\n" : "", list[f]);
      }
      if (block.before_recording) frames = absl::StrCat("(allocated before recording)\n", frames);
      absl::StrAppendFormat(&out, "<tr><td>%s</td><td>0x%x</td><td><pre>%s</pre></td></tr>\n",
                            Html(Bytes(block.size)), block.addr, Html(frames));
    }
    absl::StrAppend(&out, "</table>\n<p>", d.live_at_peak.size(), " blocks live at the peak",
                    shown < d.live_at_peak.size() ? absl::StrCat(", the largest ", shown, " shown")
                                                  : "",
                    ".</p>\n");
  }
  for (const std::string& w : s.analysis.warnings) {
    absl::StrAppend(&out, "<p class=\"warning\">", Html(w), "</p>\n");
  }
  out += "</section>\n";
  return out;
}

}  // namespace tbprof::converters
