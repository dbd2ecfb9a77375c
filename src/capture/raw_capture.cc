#include "src/capture/raw_capture.h"

#include <cstring>
#include <utility>

#include "src/base/status_macros.h"

namespace tbprof::capture {
namespace {

// Replaces every byte that is not part of a valid UTF-8 sequence by U+FFFD.
// Capture strings come from the traced job (NVTX range names, thread names,
// host name) and may hold any bytes, but every consumer puts them into
// proto3 `string` fields, whose parsers (the profile plugin's included)
// reject the whole file on invalid UTF-8.
void MakeValidUtf8(std::string* s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s->data());
  const size_t n = s->size();
  std::string out;
  size_t copied = 0, i = 0;
  bool changed = false;
  while (i < n) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3
                                : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    bool valid = len > 0 && i + len <= n;
    for (size_t k = 1; valid && k < len; ++k) valid = (p[i + k] & 0xC0) == 0x80;
    if (valid && len == 3) {
      const unsigned char c1 = p[i + 1];
      valid = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // Overlong, surrogate.
    }
    if (valid && len == 4) {
      const unsigned char c1 = p[i + 1];
      valid = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);  // Overlong, > U+10FFFF.
    }
    if (valid) {
      i += len;
      continue;
    }
    if (!changed) out.reserve(n + 16);
    changed = true;
    out.append(*s, copied, i - copied);
    out += "\xEF\xBF\xBD";
    copied = ++i;
  }
  if (!changed) return;
  out.append(*s, copied, n - copied);
  *s = std::move(out);
}

}  // namespace

const std::string& RawCapture::String(uint64_t id) const {
  static const std::string* const kEmpty = new std::string();
  auto it = strings.find(id);
  return it == strings.end() ? *kEmpty : it->second;
}

absl::StatusOr<RawCapture> LoadRawCapture(const std::string& path) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<RawCaptureReader> reader, RawCaptureReader::Open(path));
  return LoadRawCaptureFrom(reader.get());
}

RawCapture LoadRawCaptureFrom(RawCaptureReader* reader) {
  RawCapture cap;
  cap.path = reader->name();
  MakeValidUtf8(&cap.path);
  cap.header = reader->header();
  for (std::string* text : {&cap.header.hostname, &cap.header.command_line,
                            &cap.header.step_pattern, &cap.header.run_name}) {
    MakeValidUtf8(text);
  }
  auto table = std::make_shared<KindSizeTable>();
  table->Apply(cap.header.kind_sizes);
  std::shared_ptr<const KindSizeTable> current = table;

  Chunk chunk;
  while (reader->Next(&chunk)) {
    bool ok = true;
    switch (static_cast<ChunkType>(chunk.type)) {
      case ChunkType::kActivityBuffer: {
        LoadedActivityBuffer buf;
        std::string_view records;
        ok = SplitActivityBufferPayload(chunk.payload, &buf.stream_id, &records);
        if (ok) {
          buf.file_offset = chunk.offset;
          buf.size = static_cast<uint32_t>(records.size());
          buf.storage.resize(records.size() / 8 + 1);
          std::memcpy(buf.storage.data(), records.data(), records.size());
          buf.sizes = current;
          cap.buffers.push_back(std::move(buf));
        }
        break;
      }
      case ChunkType::kStrings:
        ok = DecodeStrings(chunk.payload, [&](uint64_t id, std::string_view s) {
          std::string& text = cap.strings[id];
          text.assign(s.data(), s.size());
          MakeValidUtf8(&text);
        });
        break;
      case ChunkType::kDeviceProperties: {
        DeviceProperties p;
        ok = DecodeDeviceProperties(chunk.payload, &p);
        if (ok) {
          MakeValidUtf8(&p.name);
          cap.devices.push_back(std::move(p));
        }
        break;
      }
      case ChunkType::kThreadNames: {
        const size_t first_new = cap.thread_names.size();
        ok = DecodeThreadNames(chunk.payload, &cap.thread_names);
        for (size_t i = first_new; i < cap.thread_names.size(); ++i) {
          MakeValidUtf8(&cap.thread_names[i].name);
        }
        break;
      }
      case ChunkType::kDroppedRecords: {
        DroppedRecords d;
        ok = DecodeDroppedRecords(chunk.payload, &d);
        if (ok) cap.drops.push_back(d);
        break;
      }
      case ChunkType::kMarker: {
        Marker m;
        ok = DecodeMarker(chunk.payload, &m);
        if (ok) cap.markers.push_back(std::move(m));
        break;
      }
      case ChunkType::kClockCalibration: {
        ClockSample c;
        ok = DecodeClockSample(chunk.payload, &c);
        if (ok) cap.clock_samples.push_back(c);
        break;
      }
      case ChunkType::kKindSizes: {
        std::vector<KindSize> sizes;
        ok = DecodeKindSizes(chunk.payload, &sizes);
        if (ok) {
          auto next = std::make_shared<KindSizeTable>(*current);
          next->Apply(sizes);
          current = next;
        }
        break;
      }
      case ChunkType::kMessage: {
        Message m;
        ok = DecodeMessage(chunk.payload, &m);
        if (ok) {
          MakeValidUtf8(&m.text);
          cap.messages.push_back(std::move(m));
        }
        break;
      }
      case ChunkType::kCallbackNames: {
        std::vector<CallbackName> names;
        ok = DecodeCallbackNames(chunk.payload, &names);
        for (CallbackName& n : names) {
          MakeValidUtf8(&n.name);
          cap.callback_names[{n.domain, n.cbid}] = std::move(n.name);
        }
        break;
      }
      case ChunkType::kTrailer: {
        Trailer t;
        ok = DecodeTrailer(chunk.payload, &t);
        if (ok) cap.trailer = t;
        break;
      }
      case ChunkType::kHeader:
      default:
        cap.unknown_chunks++;
        break;
    }
    if (!ok) cap.undecodable_chunks++;
  }
  cap.read_stats = reader->stats();
  return cap;
}

}  // namespace tbprof::capture
