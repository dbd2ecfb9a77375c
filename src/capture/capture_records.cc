#include "src/capture/capture_records.h"

#include <zlib.h>

namespace tbprof::capture {

uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    uInt n = size > (1u << 30) ? (1u << 30) : static_cast<uInt>(size);
    crc = static_cast<uint32_t>(crc32(crc, p, n));
    p += n;
    size -= n;
  }
  return crc;
}

uint32_t ChunkCrc(uint32_t type, std::string_view payload) {
  uint32_t prefix[2] = {type, static_cast<uint32_t>(payload.size())};
  uint32_t crc = Crc32(0, prefix, sizeof(prefix));
  return Crc32(crc, payload.data(), payload.size());
}

int64_t DeviceProperties::Get(DeviceAttr attr, int64_t fallback) const {
  for (const auto& [a, v] : attrs) {
    if (a == attr) return v;
  }
  return fallback;
}

void DeviceProperties::Set(DeviceAttr attr, int64_t value) {
  for (auto& [a, v] : attrs) {
    if (a == attr) {
      v = value;
      return;
    }
  }
  attrs.emplace_back(attr, value);
}

std::string EncodeHeader(const CaptureHeader& h) {
  std::string out;
  PayloadEncoder e(&out);
  e.U16(h.format_major);
  e.U16(h.format_minor);
  e.U32(h.cupti_api_version_build);
  e.U32(h.cupti_version_runtime);
  e.U32(h.cuda_version_build);
  e.I32(h.cuda_driver_version);
  e.I32(h.cuda_runtime_version);
  e.U32(h.pid);
  e.U32(h.flags);
  e.U32(static_cast<uint32_t>(h.clock_source));
  e.U32(h.buffer_size);
  e.I64(h.start_cupti_ns);
  e.I64(h.start_realtime_ns);
  e.I64(h.start_monotonic_ns);
  e.U64(h.buffer_bytes_budget);
  e.Str(h.hostname);
  e.Str(h.command_line);
  e.Str(h.step_pattern);
  e.Str(h.run_name);
  e.U32(static_cast<uint32_t>(h.kind_sizes.size()));
  for (const KindSize& k : h.kind_sizes) {
    e.U32(k.kind);
    e.U32(k.size);
  }
  return out;
}

bool DecodeHeader(std::string_view payload, CaptureHeader* h) {
  PayloadDecoder d(payload);
  h->format_major = d.U16();
  h->format_minor = d.U16();
  h->cupti_api_version_build = d.U32();
  h->cupti_version_runtime = d.U32();
  h->cuda_version_build = d.U32();
  h->cuda_driver_version = d.I32();
  h->cuda_runtime_version = d.I32();
  h->pid = d.U32();
  h->flags = d.U32();
  h->clock_source = static_cast<ClockSource>(d.U32());
  h->buffer_size = d.U32();
  h->start_cupti_ns = d.I64();
  h->start_realtime_ns = d.I64();
  h->start_monotonic_ns = d.I64();
  h->buffer_bytes_budget = d.U64();
  h->hostname = std::string(d.Str());
  h->command_line = std::string(d.Str());
  h->step_pattern = std::string(d.Str());
  h->run_name = std::string(d.Str());
  uint32_t n = d.U32();
  h->kind_sizes.clear();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    KindSize k;
    k.kind = d.U32();
    k.size = d.U32();
    if (d.ok()) h->kind_sizes.push_back(k);
  }
  return d.ok();
}

void EncodeStrings(const StringEntry* entries, size_t count, std::string* out) {
  PayloadEncoder e(out);
  e.U32(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    e.U64(entries[i].id);
    e.Str(entries[i].text);
  }
}

std::string EncodeDeviceProperties(const DeviceProperties& p) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(p.ordinal);
  e.Str(p.name);
  e.Raw(p.uuid.data(), p.uuid.size());
  e.U32(static_cast<uint32_t>(p.attrs.size()));
  for (const auto& [attr, value] : p.attrs) {
    e.U32(static_cast<uint32_t>(attr));
    e.I64(value);
  }
  return out;
}

bool DecodeDeviceProperties(std::string_view payload, DeviceProperties* p) {
  PayloadDecoder d(payload);
  p->ordinal = d.U32();
  p->name = std::string(d.Str());
  std::string_view uuid = d.Bytes(16);
  if (d.ok()) std::memcpy(p->uuid.data(), uuid.data(), 16);
  uint32_t n = d.U32();
  p->attrs.clear();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    auto attr = static_cast<DeviceAttr>(d.U32());
    int64_t value = d.I64();
    if (d.ok()) p->attrs.emplace_back(attr, value);
  }
  return d.ok();
}

std::string EncodeThreadNames(const std::vector<ThreadName>& names) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(static_cast<uint32_t>(names.size()));
  for (const ThreadName& t : names) {
    e.U32(t.tid);
    e.Str(t.name);
  }
  return out;
}

bool DecodeThreadNames(std::string_view payload, std::vector<ThreadName>* names) {
  PayloadDecoder d(payload);
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    ThreadName t;
    t.tid = d.U32();
    t.name = std::string(d.Str());
    if (d.ok()) names->push_back(std::move(t));
  }
  return d.ok();
}

std::string EncodeDroppedRecords(const DroppedRecords& r) {
  std::string out;
  PayloadEncoder e(&out);
  e.I64(r.cupti_ts_ns);
  e.U64(r.dropped_by_cupti);
  e.U64(r.buffers_refused);
  e.U64(r.discarded_bytes);
  return out;
}

bool DecodeDroppedRecords(std::string_view payload, DroppedRecords* r) {
  PayloadDecoder d(payload);
  r->cupti_ts_ns = d.I64();
  r->dropped_by_cupti = d.U64();
  r->buffers_refused = d.U64();
  r->discarded_bytes = d.U64();
  return d.ok();
}

std::string EncodeMarker(const Marker& m) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(static_cast<uint32_t>(m.kind));
  e.U32(m.tid);
  e.I64(m.cupti_ts_ns);
  e.I64(m.value);
  e.Str(m.name);
  return out;
}

bool DecodeMarker(std::string_view payload, Marker* m) {
  PayloadDecoder d(payload);
  m->kind = static_cast<MarkerKind>(d.U32());
  m->tid = d.U32();
  m->cupti_ts_ns = d.I64();
  m->value = d.I64();
  m->name = std::string(d.Str());
  return d.ok();
}

std::string EncodeClockSample(const ClockSample& c) {
  std::string out;
  PayloadEncoder e(&out);
  e.I64(c.cupti_ns);
  e.I64(c.realtime_ns);
  e.I64(c.monotonic_ns);
  e.I64(c.uncertainty_ns);
  return out;
}

bool DecodeClockSample(std::string_view payload, ClockSample* c) {
  PayloadDecoder d(payload);
  c->cupti_ns = d.I64();
  c->realtime_ns = d.I64();
  c->monotonic_ns = d.I64();
  c->uncertainty_ns = d.I64();
  return d.ok();
}

std::string EncodeKindSizes(const std::vector<KindSize>& sizes) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(static_cast<uint32_t>(sizes.size()));
  for (const KindSize& k : sizes) {
    e.U32(k.kind);
    e.U32(k.size);
  }
  return out;
}

bool DecodeKindSizes(std::string_view payload, std::vector<KindSize>* sizes) {
  PayloadDecoder d(payload);
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    KindSize k;
    k.kind = d.U32();
    k.size = d.U32();
    if (d.ok()) sizes->push_back(k);
  }
  return d.ok();
}

std::string EncodeCallbackNames(const std::vector<CallbackName>& names) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(static_cast<uint32_t>(names.size()));
  for (const CallbackName& n : names) {
    e.U32(n.domain);
    e.U32(n.cbid);
    e.Str(n.name);
  }
  return out;
}

bool DecodeCallbackNames(std::string_view payload, std::vector<CallbackName>* names) {
  PayloadDecoder d(payload);
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    CallbackName c;
    c.domain = d.U32();
    c.cbid = d.U32();
    c.name = std::string(d.Str());
    if (d.ok()) names->push_back(std::move(c));
  }
  return d.ok();
}

std::string EncodeMessage(const Message& m) {
  std::string out;
  PayloadEncoder e(&out);
  e.U32(static_cast<uint32_t>(m.severity));
  e.I32(m.code);
  e.Str(m.text);
  return out;
}

bool DecodeMessage(std::string_view payload, Message* m) {
  PayloadDecoder d(payload);
  m->severity = static_cast<MessageSeverity>(d.U32());
  m->code = d.I32();
  m->text = std::string(d.Str());
  return d.ok();
}

std::string EncodeTrailer(const Trailer& t) {
  std::string out;
  PayloadEncoder e(&out);
  e.U64(t.chunks);
  e.U64(t.activity_buffers);
  e.U64(t.activity_bytes);
  e.U64(t.activity_records);
  e.U64(t.dropped_by_cupti);
  e.U64(t.buffers_refused);
  e.U64(t.strings);
  e.U64(t.string_overflows);
  e.I64(t.stop_cupti_ns);
  e.I64(t.stop_realtime_ns);
  e.U32(static_cast<uint32_t>(t.end_reason));
  e.U32(0);
  return out;
}

bool DecodeTrailer(std::string_view payload, Trailer* t) {
  PayloadDecoder d(payload);
  t->chunks = d.U64();
  t->activity_buffers = d.U64();
  t->activity_bytes = d.U64();
  t->activity_records = d.U64();
  t->dropped_by_cupti = d.U64();
  t->buffers_refused = d.U64();
  t->strings = d.U64();
  t->string_overflows = d.U64();
  t->stop_cupti_ns = d.I64();
  t->stop_realtime_ns = d.I64();
  t->end_reason = static_cast<EndReason>(d.U32());
  d.U32();
  return d.ok();
}

}  // namespace tbprof::capture
