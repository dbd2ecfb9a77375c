#include "src/capture/raw_capture.h"

#include <cstring>
#include <utility>

#include "src/base/status_macros.h"

namespace tbprof::capture {

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
  cap.header = reader->header();
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
          cap.strings[id] = std::string(s);
        });
        break;
      case ChunkType::kDeviceProperties: {
        DeviceProperties p;
        ok = DecodeDeviceProperties(chunk.payload, &p);
        if (ok) cap.devices.push_back(std::move(p));
        break;
      }
      case ChunkType::kThreadNames:
        ok = DecodeThreadNames(chunk.payload, &cap.thread_names);
        break;
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
        if (ok) cap.messages.push_back(std::move(m));
        break;
      }
      case ChunkType::kCallbackNames: {
        std::vector<CallbackName> names;
        ok = DecodeCallbackNames(chunk.payload, &names);
        for (CallbackName& n : names) {
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
