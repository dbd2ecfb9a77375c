#include "converters/chrome_json/trace_event_mapper.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/json_number.h"
#include "converters/common/utf8.h"
#include "converters/common/collective_stats.h"
#include "converters/common/input_pipeline_stages.h"
#include "src/base/resource_usage.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {

using json::RawTraceEvent;
using json::IntOr;
using json::IsNumberOrString;
using json::Token;
using json::ValueKind;
using xplane::StatType;

namespace {

// Events may lie this far (about 26 days) from the first event, and last at
// most as long: offsets and ends in ps then stay below 2^62 after Finalize()
// moves time zero to the earliest event.
constexpr int64_t kMaxDeltaNs = (int64_t{1} << 61) / 1000;
constexpr int64_t kStringIdTag = int64_t{1} << 62;
// Memory sizes beyond 2^62 bytes are nonsense; bounding them keeps sums of
// up to 2 events exact and running sums checked (see EmitMemoryEvents).
constexpr int64_t kMaxMemoryBytes = int64_t{1} << 62;
constexpr int64_t kFirstSyntheticLineId = 0xC0000000;

// "ProfilerStep#12" -> 12.
bool ParseProfilerStep(absl::string_view name, int64_t* step) {
  constexpr absl::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name[0] != 'P' || !absl::StartsWith(name, kPrefix)) {
    return false;
  }
  return absl::SimpleAtoi(name.substr(kPrefix.size()), step);
}

// `json` (an array from the file) without whitespace outside strings:
// "[[64, 64],\n [64]]" -> "[[64,64],[64]]", so that equal shapes intern as
// one string.
absl::string_view CompactJson(absl::string_view json, std::string* out) {
  out->clear();
  bool in_string = false, escaped = false;
  for (char c : json) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    } else if (c == '"') {
      in_string = true;
    }
    out->push_back(c);
  }
  return *out;
}

// True for names that xprof (TSL ParseTfOpFullname) reads as TensorFlow or
// JAX ops, "name:Type" or "name:jax_type" ("nccl:all_reduce"): xprof counts
// such host events by name already, and a `tf_op` would count them twice.
bool XprofParsesAsOpName(absl::string_view name) {
  const size_t colon = name.find(':');
  if (colon == absl::string_view::npos || colon == 0 || colon + 1 >= name.size()) return false;
  const absl::string_view type = name.substr(colon + 1);
  if (type[0] == ':') return false;  // "aten::mm".
  const bool upper = absl::ascii_isupper(static_cast<unsigned char>(type[0])) || type[0] == '_';
  const bool lower = absl::ascii_islower(static_cast<unsigned char>(type[0])) || type[0] == '_';
  for (char c : type) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return upper || lower;
}

}  // namespace

TraceEventMapper::TraceEventMapper(const ChromeJsonOptions& options, xplane::XSpaceData* space)
    : options_(options), space_(space), builder_(space) {}

void TraceEventMapper::Malformed(uint64_t byte_offset, absl::string_view reason) {
  ++summary_.events_malformed;
  if (static_cast<int>(summary_.malformed_examples.size()) < options_.max_error_examples) {
    summary_.malformed_examples.push_back(absl::StrCat("byte ", byte_offset, ": ", reason));
  }
}

absl::Status TraceEventMapper::CheckMemory(absl::string_view where) const {
  if (options_.max_memory_bytes == 0) return absl::OkStatus();
  return CheckMemoryLimit(options_.max_memory_bytes, std::string(where));
}

void TraceEventMapper::OnMalformedEvent(uint64_t byte_offset, absl::string_view reason) {
  ++summary_.events_read;
  Malformed(byte_offset, reason);
}

TraceEventMapper::Kind TraceEventMapper::Classify(const Token& cat) {
  if (cat.kind != ValueKind::kString) return Kind::kHost;
  if (cat.text == last_cat_text_) return last_cat_kind_;
  last_cat_text_.assign(cat.text.data(), cat.text.size());
  last_cat_kind_ = ClassifyText(cat.text);
  return last_cat_kind_;
}

TraceEventMapper::Kind TraceEventMapper::ClassifyText(absl::string_view c) {
  switch (c.size()) {
    case 6:
      if (absl::EqualsIgnoreCase(c, "kernel")) return Kind::kKernel;
      if (absl::EqualsIgnoreCase(c, "memcpy")) return Kind::kMemcpy;
      if (absl::EqualsIgnoreCase(c, "memset")) return Kind::kMemset;
      if (absl::EqualsIgnoreCase(c, "cpu_op")) return Kind::kCpuOp;
      if (absl::EqualsIgnoreCase(c, "driver")) return Kind::kRuntime;
      break;
    case 7:
      if (absl::EqualsIgnoreCase(c, "runtime")) return Kind::kRuntime;
      break;
    case 8:
      if (absl::EqualsIgnoreCase(c, "operator")) return Kind::kCpuOp;
      break;
    case 9:
      if (absl::EqualsIgnoreCase(c, "cuda_sync")) return Kind::kGpuSync;
      break;
    case 10:
      if (absl::EqualsIgnoreCase(c, "gpu_memcpy")) return Kind::kMemcpy;
      if (absl::EqualsIgnoreCase(c, "gpu_memset")) return Kind::kMemset;
      break;
    case 11:
      if (absl::EqualsIgnoreCase(c, "cuda_driver")) return Kind::kRuntime;
      break;
    case 12:
      if (absl::EqualsIgnoreCase(c, "cuda_runtime")) return Kind::kRuntime;
      break;
    case 15:
      if (absl::EqualsIgnoreCase(c, "python_function")) return Kind::kPythonFrame;
      if (absl::EqualsIgnoreCase(c, "user_annotation")) return Kind::kUserAnnotation;
      break;
    case 19:
      if (absl::EqualsIgnoreCase(c, "gpu_user_annotation")) return Kind::kGpuAnnotation;
      break;
  }
  return Kind::kHost;
}

xplane::XPlaneBuilder* TraceEventMapper::HostPlane() {
  if (host_plane_ == nullptr) {
    host_plane_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    stat_correlation_ = host_plane_->GetOrCreateStatMetadata(StatType::kCorrelationId);
    stat_device_id_ = host_plane_->GetOrCreateStatMetadata(StatType::kDeviceId);
    stat_is_root_ = host_plane_->GetOrCreateStatMetadata(StatType::kIsRoot);
    stat_step_num_ = host_plane_->GetOrCreateStatMetadata(StatType::kStepNum);
    stat_tf_op_ = host_plane_->GetOrCreateStatMetadata(StatType::kTfOp);
  }
  return host_plane_;
}

int64_t TraceEventMapper::EncodeId(const Token& token, bool* ok) {
  if (!token.present() || token.kind == ValueKind::kNull) return 0;
  int64_t v;
  if (IsNumberOrString(token) && json::ParseInt64(token.text, &v)) return v;
  if (token.kind != ValueKind::kString && token.kind != ValueKind::kNumber) {
    *ok = false;  // Arrays, objects, booleans.
    return 0;
  }
  auto [it, inserted] = string_ids_.try_emplace(
      std::string(token.text), kStringIdTag + static_cast<int64_t>(string_ids_.size()));
  return it->second;
}

uint32_t TraceEventMapper::ThreadIndex(const Token& pid, const Token& tid, bool* ok) {
  if (last_thread_ != UINT32_MAX && pid.kind == last_pid_kind_ && tid.kind == last_tid_kind_ &&
      tid.text == last_tid_text_ && pid.text == last_pid_text_) {
    return last_thread_;
  }
  std::pair<int64_t, int64_t> key(EncodeId(pid, ok), EncodeId(tid, ok));
  if (!*ok) return 0;
  auto [it, inserted] = thread_index_.try_emplace(key, static_cast<uint32_t>(threads_.size()));
  if (inserted) {
    HostThread& t = threads_.emplace_back();
    t.pid_key = key.first;
    t.tid_key = key.second;
    t.tid_text = tid.present() ? std::string(tid.text) : "0";
    // Line id: the numeric tid when free, else a synthetic id (below the
    // plugin's derived-line ids).
    int64_t line_id = key.second;
    if (line_id < 0 || line_id >= kFirstSyntheticLineId || used_line_ids_.contains(line_id)) {
      line_id = NewSyntheticLineId();
    }
    used_line_ids_.emplace(line_id, it->second);
    t.line = HostPlane()->GetOrCreateLine(line_id);
    t.line->SetTimestampNs(base_ns_);
    t.raw_line = &host_plane_->plane()->lines.back();  // The line just created.
  }
  last_pid_kind_ = pid.kind;
  last_tid_kind_ = tid.kind;
  last_pid_text_.assign(pid.text.data(), pid.text.size());
  last_tid_text_.assign(tid.text.data(), tid.text.size());
  last_thread_ = it->second;
  return it->second;
}

int64_t TraceEventMapper::NewSyntheticLineId() {
  while (used_line_ids_.contains(next_synthetic_line_id_)) ++next_synthetic_line_id_;
  return next_synthetic_line_id_++;
}

bool TraceEventMapper::ToOffsetPs(int64_t ts_ns, int64_t* offset_ps) {
  __int128 delta = static_cast<__int128>(ts_ns) - base_ns_;
  if (delta > kMaxDeltaNs || delta < -kMaxDeltaNs) return false;
  *offset_ps = static_cast<int64_t>(delta) * 1000;
  return true;
}

absl::Status TraceEventMapper::OnEvent(const RawTraceEvent& e) {
  ++summary_.events_read;
  if (options_.max_events > 0 && summary_.events_read > options_.max_events) {
    return absl::ResourceExhaustedError(
        absl::StrCat("byte ", e.byte_offset, ": more than ", options_.max_events, " trace events"));
  }
  // Memory guard: a clear error instead of the OOM killer. Reading the RSS
  // costs a few microseconds, so only every 16K events.
  if (options_.max_memory_bytes > 0 && (summary_.events_read & 0x3FFF) == 0) {
    TBPROF_RETURN_IF_ERROR(CheckMemory(absl::StrCat("byte ", e.byte_offset)));
  }
  if (e.ph.kind != ValueKind::kString || e.ph.text.empty()) {
    Malformed(e.byte_offset, "trace event without a \"ph\" string");
    return absl::OkStatus();
  }
  char ph = e.ph.text.size() == 1 ? e.ph.text[0] : '?';
  switch (ph) {
    case 'M':
      ++summary_.metadata_events;
      OnMetadataEvent(e);
      return absl::OkStatus();
    case 'X':
    case 'B':
    case 'E':
    case 'i':
    case 'I':
    case 'n':
      break;
    default:
      ++summary_.events_ignored;  // Flows, counters, async, samples, objects.
      return absl::OkStatus();
  }
  int64_t ts_ns;
  if (!IsNumberOrString(e.ts) || !json::ParseDecimalScaled(e.ts.text, 3, &ts_ns)) {
    Malformed(e.byte_offset, e.ts.present() ? "\"ts\" is not a number" : "event without \"ts\"");
    return absl::OkStatus();
  }
  if (!have_base_) {
    have_base_ = true;
    base_ns_ = ts_ns;
  }
  int64_t unused_ps;
  if (!ToOffsetPs(ts_ns, &unused_ps)) {
    ++out_of_range_;
    Malformed(e.byte_offset, "\"ts\" is more than 26 days away from the first event");
    return absl::OkStatus();
  }
  Kind kind = Classify(e.cat);
  if (ph == 'X') return OnCompleteEvent(e, kind, ts_ns);

  bool ok = true;
  uint32_t thread = ThreadIndex(e.pid, e.tid, &ok);
  if (!ok) {
    Malformed(e.byte_offset, "\"pid\"/\"tid\" is not a number or string");
    return absl::OkStatus();
  }
  if (ph == 'B') {
    OpenSpan open;
    open.ts_ns = ts_ns;
    open.name_id = space_->strings.Intern(SanitizeUtf8(e.name.text, &scratch_));
    open.kind = kind;
    open.correlation = IntOr(e.args.correlation, kNone);
    open.device = IntOr(e.args.device, kNone);
    threads_[thread].open.push_back(open);
    return absl::OkStatus();
  }
  if (ph == 'E') {
    std::vector<OpenSpan>& open = threads_[thread].open;
    if (open.empty()) {
      ++unmatched_end_;
      ++summary_.events_ignored;
      return absl::OkStatus();
    }
    OpenSpan b = open.back();
    open.pop_back();
    HostEvent he;
    he.name = space_->strings.Get(b.name_id);
    he.kind = b.kind;
    he.ts_ns = b.ts_ns;
    he.dur_ns = std::max<int64_t>(0, ts_ns - b.ts_ns);
    he.correlation = b.correlation;
    he.device = b.device;
    ++summary_.events_converted;  // The "B" half; EmitHostEvent counts the "E".
    EmitHostEvent(thread, he, e.byte_offset);
    return absl::OkStatus();
  }
  // Instant events.
  if (e.name.kind == ValueKind::kString && e.name.text == "[memory]") {
    OnMemoryEvent(e, thread, ts_ns);
    return absl::OkStatus();
  }
  HostEvent he;
  he.name = e.name.text;
  he.kind = kind;
  he.ts_ns = ts_ns;
  he.dur_ns = 0;
  EmitHostEvent(thread, he, e.byte_offset);
  return absl::OkStatus();
}

absl::Status TraceEventMapper::OnCompleteEvent(const RawTraceEvent& e, Kind kind, int64_t ts_ns) {
  int64_t dur_ns = 0;
  if (e.dur.present()) {
    if (!IsNumberOrString(e.dur) || !json::ParseDecimalScaled(e.dur.text, 3, &dur_ns)) {
      Malformed(e.byte_offset, "\"dur\" is not a number");
      return absl::OkStatus();
    }
    if (dur_ns < 0 || dur_ns > kMaxDeltaNs) {
      Malformed(e.byte_offset, "\"dur\" is negative or too large");
      return absl::OkStatus();
    }
  }
  switch (kind) {
    case Kind::kKernel:
    case Kind::kMemcpy:
    case Kind::kMemset:
    case Kind::kGpuAnnotation:
    case Kind::kGpuSync:
      BufferGpuEvent(e, kind, ts_ns, dur_ns);
      return absl::OkStatus();
    default:
      break;
  }
  bool ok = true;
  uint32_t thread = ThreadIndex(e.pid, e.tid, &ok);
  if (!ok) {
    Malformed(e.byte_offset, "\"pid\"/\"tid\" is not a number or string");
    return absl::OkStatus();
  }
  HostEvent he;
  he.name = e.name.text;
  he.kind = kind;
  he.ts_ns = ts_ns;
  he.dur_ns = dur_ns;
  if (e.has_args) {
    he.correlation = IntOr(e.args.correlation, kNone);
    he.device = IntOr(e.args.device, kNone);
    he.external_id = IntOr(e.args.external_id, kNone);
    if (e.args.input_dims.kind == ValueKind::kArray) he.input_dims = e.args.input_dims.text;
    if (e.args.input_types.kind == ValueKind::kArray) he.input_types = e.args.input_types.text;
    if (e.args.concrete_inputs.kind == ValueKind::kArray) {
      he.concrete_inputs = e.args.concrete_inputs.text;
    }
    if (e.args.call_stack.kind == ValueKind::kString) he.call_stack = e.args.call_stack.text;
    if (kind == Kind::kCpuOp && he.name == kParamCommsEventName) he.comms_event_json = e.raw;
  }
  if (kind == Kind::kRuntime) {
    if (absl::StartsWith(he.name, "hip")) rocm_ = true;
    if (absl::StartsWith(he.name, "cu")) cuda_ = true;
  }
  EmitHostEvent(thread, he, e.byte_offset);
  return absl::OkStatus();
}

void TraceEventMapper::EmitHostEvent(uint32_t thread, const HostEvent& he, uint64_t byte_offset) {
  int64_t offset_ps;
  if (!ToOffsetPs(he.ts_ns, &offset_ps) || he.dur_ns > kMaxDeltaNs) {
    ++out_of_range_;
    Malformed(byte_offset, "event time is more than 26 days away from the first event");
    return;
  }
  xplane::XPlaneBuilder* plane = HostPlane();
  HostThread& t = threads_[thread];
  uint32_t md = plane->GetOrCreateEventMetadata(SanitizeUtf8(he.name, &scratch_));
  if (he.kind == Kind::kPythonFrame) {
    if (t.python_line == nullptr) {
      int64_t line_id = NewSyntheticLineId();
      used_line_ids_.emplace(line_id, thread);
      t.python_line = plane->GetOrCreateLine(line_id);
      t.python_line->SetTimestampNs(base_ns_);
    }
    t.python_line->AddEvent(md, offset_ps, he.dur_ns * 1000);
    ++summary_.events_converted;
    return;
  }
  xplane::XEventBuilder ev = t.line->AddEvent(md, offset_ps, he.dur_ns * 1000);
  ++summary_.events_converted;
  if (he.correlation != kNone) {
    ev.AddInt64(stat_correlation_, he.correlation);
    t.probes.push_back({he.ts_ns, static_cast<uint32_t>(launch_correlations_.size())});
    launch_correlations_.push_back(he.correlation);
  }
  if (he.device != kNone) ev.AddInt64(stat_device_id_, he.device);
  const bool input_stage = AddInputPipelineStageStats(
      plane, md, space_->strings.Get(plane->event_metadata(md).name), &ev);
  EmitOpArgStats(he, &ev);
  if (!he.comms_event_json.empty()) EmitCommsArgStats(he.comms_event_json, &ev);
  int64_t step;
  const bool is_step = ParseProfilerStep(he.name, &step);
  // CPU ops and user annotations (not step markers) are framework ops: the
  // innermost one around a launch names its device events (tf_op, see
  // EmitGpuEvents), and a `tf_op` with the op's own name makes xprof's
  // framework_op_stats count its host time (and tbprof's operator view use
  // xprof's rule, converters/views/operators/op_tree.h).
  if (he.kind == Kind::kCpuOp || (he.kind == Kind::kUserAnnotation && !is_step)) {
    const absl::string_view name = space_->strings.Get(plane->event_metadata(md).name);
    if (!is_step && !input_stage && !XprofParsesAsOpName(name)) ev.AddRef(stat_tf_op_, name);
    uint32_t name_id = plane->event_metadata(md).name;
    t.ops.push_back({he.ts_ns, he.ts_ns + he.dur_ns, name_id});
    if (he.external_id != kNone) external_id_ops_.Append(he.external_id, name_id);
  }
  if (is_step) {
    ev.AddInt64(stat_is_root_, 1);
    ev.AddInt64(stat_step_num_, step);
    ++summary_.step_roots;
    t.has_step_root = true;
    step_roots_.push_back(
        {thread, static_cast<uint32_t>(t.line->num_events() - 1), he.ts_ns, he.ts_ns + he.dur_ns});
  }
}

void TraceEventMapper::EmitOpArgStats(const HostEvent& he, xplane::XEventBuilder* ev) {
  auto add = [&](absl::string_view value, absl::string_view stat_name, uint32_t* stat,
                 bool compact) {
    if (value.empty()) return;
    if (*stat == UINT32_MAX) *stat = HostPlane()->GetOrCreateStatMetadata(stat_name);
    if (compact) value = CompactJson(value, &arg_scratch_);
    ev->AddRef(*stat, SanitizeUtf8(value, &scratch_));
  };
  add(he.input_dims, "input_dims", &stat_input_dims_, true);
  add(he.input_types, "input_types", &stat_input_types_, true);
  add(he.concrete_inputs, "concrete_inputs", &stat_concrete_inputs_, true);
  add(he.call_stack, "call_stack", &stat_call_stack_, false);
}

void TraceEventMapper::OnMetadataEvent(const RawTraceEvent& e) {
  if (e.name.kind != ValueKind::kString || e.name.text != "thread_name") return;
  if (e.args.name.kind != ValueKind::kString) return;
  bool ok = true;
  std::pair<int64_t, int64_t> key(EncodeId(e.pid, &ok), EncodeId(e.tid, &ok));
  if (ok) thread_names_[key] = std::string(SanitizeUtf8(e.args.name.text, &scratch_));
}

void TraceEventMapper::OnMemoryEvent(const RawTraceEvent& e, uint32_t thread, int64_t ts_ns) {
  PendingMemoryEvent m;
  m.ts_ns = ts_ns;
  m.bytes = IntOr(e.args.mem_bytes, kNone);
  if (m.bytes == kNone || m.bytes < -kMaxMemoryBytes || m.bytes > kMaxMemoryBytes) {
    Malformed(e.byte_offset, "[memory] event without a plausible integer args.Bytes");
    return;
  }
  uint64_t addr = 0;
  m.has_addr = IsNumberOrString(e.args.addr);
  if (m.has_addr && !json::ParseUint64(e.args.addr.text, &addr)) {
    int64_t signed_addr = 0;
    if (json::ParseInt64(e.args.addr.text, &signed_addr)) addr = static_cast<uint64_t>(signed_addr);
  }
  m.addr = addr;
  // Totals outside [0, 2^62] are not believed (and keep the sums below exact).
  m.total_allocated = IntOr(e.args.total_allocated, kNone);
  if (m.total_allocated < 0 || m.total_allocated > kMaxMemoryBytes) m.total_allocated = kNone;
  m.total_reserved = IntOr(e.args.total_reserved, kNone);
  if (m.total_reserved < 0 || m.total_reserved > kMaxMemoryBytes) m.total_reserved = kNone;
  m.device_type =
      static_cast<int32_t>(std::clamp<int64_t>(IntOr(e.args.mem_device_type, 0), -1, INT32_MAX));
  m.device_id =
      static_cast<int32_t>(std::clamp<int64_t>(IntOr(e.args.mem_device_id, -1), -1, INT32_MAX));
  m.thread_index = thread;
  threads_[thread].probes.push_back(
      {ts_ns, 0x80000000u | static_cast<uint32_t>(memory_events_.size())});
  memory_events_.push_back(m);
}

}  // namespace tbprof::converters
