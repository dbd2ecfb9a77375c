#include "converters/rocprof/rocprof_json.h"

#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "simdjson.h"
#include "src/base/status_macros.h"

namespace tbprof::converters {

static_assert(kRocprofJsonPadding == simdjson::SIMDJSON_PADDING,
              "kRocprofJsonPadding must be simdjson's padding");

namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// Where a value sits, for error messages: an array name and an element
// index (index < 0: no element).
struct Where {
  const char* what;
  int64_t index = -1;
};

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Describe(const Where& where) {
  return where.index < 0 ? std::string(where.what)
                         : absl::StrCat(where.what, "[", where.index, "]");
}

class Parser {
 public:
  Parser(absl::string_view text, size_t capacity, absl::string_view source)
      : text_(text), capacity_(capacity), source_(source) {}

  absl::StatusOr<RocprofProfile> Run();

 private:
  // kInvalidArgument naming the source, the byte offset the parser stands
  // at, `where` and what went wrong.
  absl::Status Fail(const Where& where, absl::string_view what, error_code e = simdjson::SUCCESS);

  template <typename F>
  absl::Status ForEachField(od::value& value, const Where& where, F&& f);
  template <typename F>
  absl::Status ForEachElement(od::value& value, const Where& where, F&& f);

  absl::Status Int(od::value& v, const Where& where, const char* key, int64_t* out);
  absl::Status Uint(od::value& v, const Where& where, const char* key, uint64_t* out);
  absl::Status String(od::value& v, const Where& where, const char* key, std::string* out);
  // {"handle": N}
  absl::Status Handle(od::value& v, const Where& where, const char* key, uint64_t* out);
  // {"x": X, "y": Y, "z": Z}
  absl::Status Dim3(od::value& v, const Where& where, const char* key, int64_t out[3]);

  absl::Status ParseProcess(od::value& v, int64_t index, RocprofProcess* p);
  absl::Status ParseMetadata(od::value& v, RocprofProcess* p);
  absl::Status ParseAgent(od::value& v, const Where& where, RocprofAgent* a);
  absl::Status ParseStrings(od::value& v, RocprofProcess* p);
  absl::Status ParseSymbol(od::value& v, const Where& where, uint64_t* id, bool* has_id,
                           RocprofKernelSymbol* s);
  absl::Status ParseBufferRecords(od::value& v, RocprofProcess* p);
  absl::Status ParseDispatch(od::value& v, const Where& where, RocprofDispatch* d);
  // The members every buffer-tracing record shares.
  absl::Status CommonMember(std::string_view key, od::value& v, const Where& where, int64_t* kind,
                            int64_t* operation, uint64_t* correlation, uint64_t* thread_id,
                            int64_t* start_ns, int64_t* end_ns, int* seen);

  absl::string_view text_;
  size_t capacity_;
  absl::string_view source_;
  od::parser parser_;
  od::document doc_;
};

absl::Status Parser::Fail(const Where& where, absl::string_view what, error_code e) {
  size_t offset = text_.size();
  const char* at = nullptr;
  if (doc_.current_location().get(at) == simdjson::SUCCESS && at >= text_.data() &&
      at <= text_.data() + text_.size()) {
    offset = static_cast<size_t>(at - text_.data());
  }
  if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_, ": rocprofv3 JSON cut short: an object or array opened before byte ",
        text_.size(), " (the end of the file) is never closed"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      source_, ": not a rocprofv3 JSON of the expected shape at byte ", offset, ": ",
      Describe(where), ": ", what,
      e == simdjson::SUCCESS ? "" : absl::StrCat(" (", simdjson::error_message(e), ")")));
}

template <typename F>
absl::Status Parser::ForEachField(od::value& value, const Where& where, F&& f) {
  od::object object;
  if (error_code e = value.get_object().get(object)) return Fail(where, "expected an object", e);
  for (auto member : object) {
    od::field field;
    if (error_code e = std::move(member).get(field)) return Fail(where, "bad member", e);
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return Fail(where, "bad member name", e);
    TBPROF_RETURN_IF_ERROR(f(key, field.value()));
  }
  return absl::OkStatus();
}

template <typename F>
absl::Status Parser::ForEachElement(od::value& value, const Where& where, F&& f) {
  od::array array;
  if (error_code e = value.get_array().get(array)) return Fail(where, "expected an array", e);
  int64_t index = 0;
  for (auto element : array) {
    od::value v;
    if (error_code e = std::move(element).get(v)) {
      return Fail(Where{where.what, index}, "bad element", e);
    }
    TBPROF_RETURN_IF_ERROR(f(v, index));
    ++index;
  }
  return absl::OkStatus();
}

absl::Status Parser::Int(od::value& v, const Where& where, const char* key, int64_t* out) {
  error_code e = v.get_int64().get(*out);
  if (e == simdjson::SUCCESS) return absl::OkStatus();
  return Fail(where, absl::StrCat("\"", key, "\" is not a 64-bit integer"), e);
}

absl::Status Parser::Uint(od::value& v, const Where& where, const char* key, uint64_t* out) {
  error_code e = v.get_uint64().get(*out);
  if (e == simdjson::SUCCESS) return absl::OkStatus();
  return Fail(where, absl::StrCat("\"", key, "\" is not an unsigned 64-bit integer"), e);
}

absl::Status Parser::String(od::value& v, const Where& where, const char* key, std::string* out) {
  std::string_view s;
  if (error_code e = v.get_string().get(s)) {
    return Fail(where, absl::StrCat("\"", key, "\" is not a string"), e);
  }
  out->assign(s.data(), s.size());
  return absl::OkStatus();
}

absl::Status Parser::Handle(od::value& v, const Where& where, const char* key, uint64_t* out) {
  bool found = false;
  TBPROF_RETURN_IF_ERROR(ForEachField(v, where, [&](std::string_view k, od::value& h) {
    if (k != "handle") return absl::OkStatus();
    found = true;
    return Uint(h, where, key, out);
  }));
  if (!found) return Fail(where, absl::StrCat("\"", key, "\" has no \"handle\""));
  return absl::OkStatus();
}

absl::Status Parser::Dim3(od::value& v, const Where& where, const char* key, int64_t out[3]) {
  return ForEachField(v, where, [&](std::string_view k, od::value& d) {
    if (k.size() != 1 || k[0] < 'x' || k[0] > 'z') return absl::OkStatus();
    TBPROF_RETURN_IF_ERROR(Int(d, where, key, &out[k[0] - 'x']));
    if (out[k[0] - 'x'] < 0) return Fail(where, absl::StrCat("\"", key, "\" is negative"));
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseMetadata(od::value& v, RocprofProcess* p) {
  const Where where{"metadata"};
  return ForEachField(v, where, [&](std::string_view key, od::value& m) {
    if (key == "pid") return Int(m, where, "pid", &p->pid);
    if (key != "node") return absl::OkStatus();
    return ForEachField(m, Where{"metadata.node"}, [&](std::string_view k, od::value& n) {
      if (k != "hostname") return absl::OkStatus();
      return String(n, Where{"metadata.node"}, "hostname", &p->hostname);
    });
  });
}

absl::Status Parser::ParseAgent(od::value& v, const Where& where, RocprofAgent* a) {
  bool has_id = false, has_type = false;
  TBPROF_RETURN_IF_ERROR(ForEachField(v, where, [&](std::string_view key, od::value& f) {
    if (key == "id") {
      has_id = true;
      return Handle(f, where, "id", &a->handle);
    }
    if (key == "type") {
      has_type = true;
      return Int(f, where, "type", &a->type);
    }
    if (key == "gpu_index") return Int(f, where, "gpu_index", &a->gpu_index);
    if (key == "logical_node_type_id") {
      return Int(f, where, "logical_node_type_id", &a->logical_node_type_id);
    }
    if (key == "name") return String(f, where, "name", &a->name);
    if (key == "product_name") return String(f, where, "product_name", &a->product_name);
    if (key == "cu_count") return Int(f, where, "cu_count", &a->cu_count);
    if (key == "simd_per_cu") return Int(f, where, "simd_per_cu", &a->simd_per_cu);
    if (key == "wave_front_size") return Int(f, where, "wave_front_size", &a->wave_front_size);
    if (key == "max_waves_per_cu") return Int(f, where, "max_waves_per_cu", &a->max_waves_per_cu);
    if (key == "lds_size_in_kb") return Int(f, where, "lds_size_in_kb", &a->lds_size_in_kb);
    if (key == "workgroup_max_size") {
      return Int(f, where, "workgroup_max_size", &a->workgroup_max_size);
    }
    if (key == "max_engine_clk_fcompute") {
      return Int(f, where, "max_engine_clk_fcompute", &a->max_engine_clk_fcompute_mhz);
    }
    if (key == "mem_banks") {
      return ForEachElement(f, Where{"agents[].mem_banks"}, [&](od::value& bank, int64_t) {
        const Where banks{"agents[].mem_banks"};
        return ForEachField(bank, banks, [&](std::string_view k, od::value& b) {
          if (k != "size_in_bytes") return absl::OkStatus();
          int64_t bytes = 0;
          TBPROF_RETURN_IF_ERROR(Int(b, where, "size_in_bytes", &bytes));
          if (bytes > 0 && a->memory_bytes <= INT64_MAX - bytes) a->memory_bytes += bytes;
          return absl::OkStatus();
        });
      });
    }
    return absl::OkStatus();
  }));
  if (!has_id || !has_type) return Fail(where, "an agent needs \"id\" and \"type\"");
  return absl::OkStatus();
}

absl::Status Parser::ParseStrings(od::value& v, RocprofProcess* p) {
  return ForEachField(v, Where{"strings"}, [&](std::string_view key, od::value& s) {
    if (key == "buffer_records") {
      const Where where{"strings.buffer_records"};
      return ForEachElement(s, where, [&](od::value& kind, int64_t index) {
        const Where at{where.what, index};
        p->kind_names.emplace_back();
        p->operation_names.emplace_back();
        return ForEachField(kind, at, [&](std::string_view k, od::value& f) {
          if (k == "kind") return String(f, at, "kind", &p->kind_names.back());
          if (k != "operations") return absl::OkStatus();
          return ForEachElement(f, at, [&](od::value& op, int64_t) {
            p->operation_names.back().emplace_back();
            return String(op, at, "operations", &p->operation_names.back().back());
          });
        });
      });
    }
    if (key == "marker_api") {
      const Where where{"strings.marker_api"};
      return ForEachElement(s, where, [&](od::value& entry, int64_t index) {
        const Where at{where.what, index};
        uint64_t id = 0;
        std::string message;
        TBPROF_RETURN_IF_ERROR(ForEachField(entry, at, [&](std::string_view k, od::value& f) {
          if (k == "key") return Uint(f, at, "key", &id);
          if (k == "value") return String(f, at, "value", &message);
          return absl::OkStatus();
        }));
        p->marker_messages[id] = std::move(message);
        return absl::OkStatus();
      });
    }
    return absl::OkStatus();
  });
}

// A symbol's members, or an older {key, value} map entry whose value holds them.
absl::Status Parser::ParseSymbol(od::value& v, const Where& where, uint64_t* id, bool* has_id,
                                 RocprofKernelSymbol* s) {
  std::string formatted, demangled, mangled;
  TBPROF_RETURN_IF_ERROR(ForEachField(v, where, [&](std::string_view key, od::value& f) {
    if (key == "kernel_id") {
      *has_id = true;
      return Uint(f, where, "kernel_id", id);
    }
    if (key == "value" && f.type().value_unsafe() == od::json_type::object) {
      return ParseSymbol(f, where, id, has_id, s);
    }
    if (key == "formatted_kernel_name") {
      return String(f, where, "formatted_kernel_name", &formatted);
    }
    if (key == "demangled_kernel_name") {
      return String(f, where, "demangled_kernel_name", &demangled);
    }
    if (key == "kernel_name") return String(f, where, "kernel_name", &mangled);
    if (key == "group_segment_size") {
      return Int(f, where, "group_segment_size", &s->group_segment_size);
    }
    if (key == "private_segment_size") {
      return Int(f, where, "private_segment_size", &s->private_segment_size);
    }
    if (key == "sgpr_count") return Int(f, where, "sgpr_count", &s->sgpr_count);
    if (key == "arch_vgpr_count") return Int(f, where, "arch_vgpr_count", &s->arch_vgpr_count);
    if (key == "accum_vgpr_count") return Int(f, where, "accum_vgpr_count", &s->accum_vgpr_count);
    return absl::OkStatus();
  }));
  if (!formatted.empty()) {
    s->name = std::move(formatted);
  } else if (!demangled.empty()) {
    s->name = std::move(demangled);
  } else if (!mangled.empty()) {
    s->name = std::move(mangled);
  }
  return absl::OkStatus();
}

// Bits of `seen` for CommonMember.
constexpr int kSeenStart = 1, kSeenEnd = 2;

absl::Status Parser::CommonMember(std::string_view key, od::value& v, const Where& where,
                                  int64_t* kind, int64_t* operation, uint64_t* correlation,
                                  uint64_t* thread_id, int64_t* start_ns, int64_t* end_ns,
                                  int* seen) {
  if (key == "start_timestamp") {
    *seen |= kSeenStart;
    return Int(v, where, "start_timestamp", start_ns);
  }
  if (key == "end_timestamp") {
    *seen |= kSeenEnd;
    return Int(v, where, "end_timestamp", end_ns);
  }
  if (key == "kind" && kind != nullptr) return Int(v, where, "kind", kind);
  if (key == "operation" && operation != nullptr) return Int(v, where, "operation", operation);
  if (key == "thread_id") return Uint(v, where, "thread_id", thread_id);
  if (key == "correlation_id") {
    return ForEachField(v, where, [&](std::string_view k, od::value& c) {
      if (k != "internal") return absl::OkStatus();
      return Uint(c, where, "correlation_id.internal", correlation);
    });
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseDispatch(od::value& v, const Where& where, RocprofDispatch* d) {
  int seen = 0;
  bool has_info = false, has_kernel = false;
  TBPROF_RETURN_IF_ERROR(ForEachField(v, where, [&](std::string_view key, od::value& f) {
    if (key == "dispatch_info") {
      has_info = true;
      return ForEachField(f, where, [&](std::string_view k, od::value& i) {
        if (k == "kernel_id") {
          has_kernel = true;
          return Uint(i, where, "kernel_id", &d->kernel_id);
        }
        if (k == "agent_id") return Handle(i, where, "agent_id", &d->agent);
        if (k == "queue_id") return Handle(i, where, "queue_id", &d->queue);
        if (k == "grid_size") return Dim3(i, where, "grid_size", d->grid);
        if (k == "workgroup_size") return Dim3(i, where, "workgroup_size", d->workgroup);
        if (k == "group_segment_size") return Int(i, where, "group_segment_size", &d->lds_bytes);
        if (k == "private_segment_size") {
          return Int(i, where, "private_segment_size", &d->scratch_bytes);
        }
        return absl::OkStatus();
      });
    }
    if (key == "stream_id") return Handle(f, where, "stream_id", &d->stream);
    return CommonMember(key, f, where, nullptr, nullptr, &d->correlation, &d->thread_id,
                        &d->start_ns, &d->end_ns, &seen);
  }));
  if (seen != (kSeenStart | kSeenEnd)) {
    return Fail(where, "a kernel dispatch needs \"start_timestamp\" and \"end_timestamp\"");
  }
  if (!has_info || !has_kernel) {
    return Fail(where, "a kernel dispatch needs \"dispatch_info\" with \"kernel_id\"");
  }
  return absl::OkStatus();
}

uint64_t ParseHexAddress(absl::string_view text) {
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) text.remove_prefix(2);
  uint64_t value = 0;
  for (char c : text) {
    int digit = absl::ascii_isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                          ? c - 'a' + 10
                : (c >= 'A' && c <= 'F')                          ? c - 'A' + 10
                                                                  : -1;
    if (digit < 0) return 0;
    value = (value << 4) | static_cast<uint64_t>(digit);
  }
  return value;
}

absl::Status Parser::ParseBufferRecords(od::value& v, RocprofProcess* p) {
  return ForEachField(v, Where{"buffer_records"}, [&](std::string_view key, od::value& records) {
    if (key == "kernel_dispatch") {
      const Where where{"buffer_records.kernel_dispatch"};
      return ForEachElement(records, where, [&](od::value& r, int64_t index) {
        p->dispatches.emplace_back();
        return ParseDispatch(r, Where{where.what, index}, &p->dispatches.back());
      });
    }
    if (key == "memory_copy") {
      const Where where{"buffer_records.memory_copy"};
      return ForEachElement(records, where, [&](od::value& r, int64_t index) {
        const Where at{where.what, index};
        RocprofMemoryCopy& c = p->copies.emplace_back();
        int seen = 0;
        TBPROF_RETURN_IF_ERROR(ForEachField(r, at, [&](std::string_view k, od::value& f) {
          if (k == "src_agent_id") return Handle(f, at, "src_agent_id", &c.src_agent);
          if (k == "dst_agent_id") return Handle(f, at, "dst_agent_id", &c.dst_agent);
          if (k == "bytes") return Uint(f, at, "bytes", &c.bytes);
          return CommonMember(k, f, at, &c.kind, &c.operation, &c.correlation, &c.thread_id,
                              &c.start_ns, &c.end_ns, &seen);
        }));
        if (seen != (kSeenStart | kSeenEnd)) {
          return Fail(at, "a memory copy needs \"start_timestamp\" and \"end_timestamp\"");
        }
        return absl::OkStatus();
      });
    }
    if (key == "memory_allocation") {
      const Where where{"buffer_records.memory_allocation"};
      return ForEachElement(records, where, [&](od::value& r, int64_t index) {
        const Where at{where.what, index};
        RocprofMemoryAllocation& a = p->allocations.emplace_back();
        int seen = 0;
        TBPROF_RETURN_IF_ERROR(ForEachField(r, at, [&](std::string_view k, od::value& f) {
          if (k == "agent_id") return Handle(f, at, "agent_id", &a.agent);
          if (k == "allocation_size") return Uint(f, at, "allocation_size", &a.bytes);
          if (k == "address") {
            std::string_view text;
            if (f.get_string().get(text) == simdjson::SUCCESS) {
              a.address = ParseHexAddress(ToAbsl(text));
              return absl::OkStatus();
            }
            return Uint(f, at, "address", &a.address);
          }
          return CommonMember(k, f, at, &a.kind, &a.operation, &a.correlation, &a.thread_id,
                              &a.start_ns, &a.end_ns, &seen);
        }));
        if (seen != (kSeenStart | kSeenEnd)) {
          return Fail(at, "a memory allocation needs \"start_timestamp\" and \"end_timestamp\"");
        }
        return absl::OkStatus();
      });
    }
    if (key == "hip_api" || key == "hsa_api" || key == "rccl_api" || key == "marker_api" ||
        key == "rocdecode_api" || key == "rocjpeg_api") {
      // `key` points into the parser's buffer, which the records reuse.
      const std::string name = absl::StrCat("buffer_records.", ToAbsl(key));
      const Where where{name.c_str()};
      return ForEachElement(records, where, [&](od::value& r, int64_t index) {
        const Where at{where.what, index};
        RocprofApiCall& call = p->api_calls.emplace_back();
        int seen = 0;
        TBPROF_RETURN_IF_ERROR(ForEachField(r, at, [&](std::string_view k, od::value& f) {
          return CommonMember(k, f, at, &call.kind, &call.operation, &call.correlation,
                              &call.thread_id, &call.start_ns, &call.end_ns, &seen);
        }));
        if (seen != (kSeenStart | kSeenEnd)) {
          return Fail(at, "an API record needs \"start_timestamp\" and \"end_timestamp\"");
        }
        return absl::OkStatus();
      });
    }
    if (records.type().value_unsafe() != od::json_type::array) return absl::OkStatus();
    const std::string name = absl::StrCat("buffer_records.", ToAbsl(key));
    return ForEachElement(records, Where{name.c_str()}, [&](od::value&, int64_t) {
      ++p->records_skipped;
      return absl::OkStatus();
    });
  });
}

absl::Status Parser::ParseProcess(od::value& v, int64_t index, RocprofProcess* p) {
  return ForEachField(v, Where{"rocprofiler-sdk-tool", index}, [&](std::string_view key,
                                                                    od::value& f) {
    if (key == "metadata") return ParseMetadata(f, p);
    if (key == "agents") {
      const Where where{"agents"};
      return ForEachElement(f, where, [&](od::value& a, int64_t i) {
        p->agents.emplace_back();
        return ParseAgent(a, Where{where.what, i}, &p->agents.back());
      });
    }
    if (key == "strings") return ParseStrings(f, p);
    if (key == "kernel_symbols") {
      const Where where{"kernel_symbols"};
      return ForEachElement(f, where, [&](od::value& s, int64_t i) {
        RocprofKernelSymbol symbol;
        uint64_t id = 0;
        bool has_id = false;
        TBPROF_RETURN_IF_ERROR(ParseSymbol(s, Where{where.what, i}, &id, &has_id, &symbol));
        if (!has_id) return Fail(Where{where.what, i}, "a kernel symbol needs \"kernel_id\"");
        p->kernel_symbols[id] = std::move(symbol);
        return absl::OkStatus();
      });
    }
    if (key == "buffer_records") return ParseBufferRecords(f, p);
    return absl::OkStatus();
  });
}

absl::StatusOr<RocprofProfile> Parser::Run() {
  const Where top{"the document"};
  if (capacity_ < text_.size() + simdjson::SIMDJSON_PADDING) {
    return absl::InternalError(absl::StrCat(source_, ": rocprof JSON buffer lacks padding"));
  }
  if (error_code e = parser_.iterate(text_.data(), text_.size(), capacity_).get(doc_)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ": not valid JSON: ", simdjson::error_message(e)));
  }
  od::object object;
  if (error_code e = doc_.get_object().get(object)) {
    return Fail(top, "expected a JSON object", e);
  }
  RocprofProfile profile;
  bool found = false;
  for (auto member : object) {
    od::field field;
    if (error_code e = std::move(member).get(field)) return Fail(top, "bad member", e);
    std::string_view key;
    if (error_code e = field.unescaped_key().get(key)) return Fail(top, "bad member name", e);
    if (key != "rocprofiler-sdk-tool") continue;
    found = true;
    TBPROF_RETURN_IF_ERROR(ForEachElement(
        field.value(), Where{"rocprofiler-sdk-tool"}, [&](od::value& process, int64_t index) {
          profile.processes.emplace_back();
          return ParseProcess(process, index, &profile.processes.back());
        }));
  }
  if (!found) {
    return Fail(top, "no \"rocprofiler-sdk-tool\" member (not a rocprofv3 JSON file)");
  }
  const char* rest = nullptr;
  if (doc_.current_location().get(rest) == simdjson::SUCCESS) {
    return Fail(top, "text after the end of the JSON object");
  }
  return profile;
}

}  // namespace

absl::string_view RocprofProcess::KindName(int64_t kind) const {
  if (kind < 0 || static_cast<size_t>(kind) >= kind_names.size()) return "";
  return kind_names[kind];
}

absl::string_view RocprofProcess::OperationName(int64_t kind, int64_t operation) const {
  if (kind < 0 || static_cast<size_t>(kind) >= operation_names.size() || operation < 0) return "";
  const std::vector<std::string>& names = operation_names[kind];
  return static_cast<size_t>(operation) < names.size() ? absl::string_view(names[operation]) : "";
}

bool LooksLikeRocprofJson(absl::string_view head) {
  if (absl::StartsWith(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  head = absl::StripLeadingAsciiWhitespace(head);
  if (!absl::ConsumePrefix(&head, "{")) return false;
  head = absl::StripLeadingAsciiWhitespace(head);
  return absl::StartsWith(head, "\"rocprofiler-sdk-tool\"");
}

absl::StatusOr<RocprofProfile> ParseRocprofJson(absl::string_view text, size_t capacity,
                                                absl::string_view source) {
  return Parser(text, capacity, source).Run();
}

}  // namespace tbprof::converters
