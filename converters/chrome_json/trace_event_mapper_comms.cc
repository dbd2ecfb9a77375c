// TraceEventMapper: what a Kineto trace says about distributed communication,
// kept as stats (names and mapping: converters/common/collective_stats.h):
// the args of `record_param_comms` host events, and `distributedInfo`.
//
// record_param_comms events are rare (one per collective call), so their
// args are read from the event's raw JSON here rather than by the event
// parser, which then needs no slots for them.
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/json_value.h"
#include "converters/chrome_json/trace_event_mapper.h"
#include "converters/common/utf8.h"
#include "converters/common/collective_stats.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {
namespace {

// An arg copied into a stat: integer args as int64, the others as strings.
struct CommsArg {
  absl::string_view key;   // As Kineto writes it.
  absl::string_view stat;  // collective_stats.h.
  bool integer;
};

constexpr CommsArg kCommsArgs[] = {
    {"Collective name", kStatCollectiveName, false},
    {"In msg nelems", kStatInMsgNelems, true},
    {"Out msg nelems", kStatOutMsgNelems, true},
    {"dtype", kStatDtype, false},
    {"Group size", kStatGroupSize, true},
    {"Process Group Name", kStatProcessGroupName, false},
    {"Process Group Description", kStatProcessGroupDesc, false},
    {"Process Group Ranks", kStatProcessGroupRanks, false},
    {"Seq", kStatCollectiveSeq, true},
    {"In split size", kStatInSplitSize, false},
    {"Out split size", kStatOutSplitSize, false},
};

}  // namespace

void TraceEventMapper::EmitCommsArgStats(absl::string_view event_json, xplane::XEventBuilder* ev) {
  absl::StatusOr<json::JsonValue> event = json::ParseJsonValue(event_json);
  if (!event.ok()) return;  // The reader parsed it already: cannot happen.
  const json::JsonValue* args = event->Find("args");
  if (args == nullptr || args->kind != json::ValueKind::kObject) return;
  xplane::XPlaneBuilder* plane = HostPlane();
  for (const CommsArg& arg : kCommsArgs) {
    const json::JsonValue* value = args->Find(arg.key);
    if (value == nullptr || value->kind == json::ValueKind::kNull) continue;
    const uint32_t stat = plane->GetOrCreateStatMetadata(arg.stat);
    if (arg.integer) {
      int64_t v;
      if (value->AsInt64(&v)) ev->AddInt64(stat, v);
    } else if (value->kind == json::ValueKind::kString) {
      // Names and rank lists repeat across calls: refs.
      ev->AddRef(stat, SanitizeUtf8(value->AsString(), &scratch_));
    } else if (value->kind == json::ValueKind::kNumber) {
      ev->AddRef(stat, value->text);  // "Process Group Name": 0.
    }
  }
}

void TraceEventMapper::EmitDistributedInfo() {
  if (summary_.rank < 0 && world_size_ < 0 && backend_.empty()) return;
  xplane::XPlaneBuilder* env = builder_.GetOrCreatePlane(xplane::kTaskEnvPlaneName);
  if (summary_.rank >= 0) {
    env->SetStatInt64(env->GetOrCreateStatMetadata(kStatDistributedRank), summary_.rank);
  }
  if (world_size_ >= 0) {
    env->SetStatInt64(env->GetOrCreateStatMetadata(kStatDistributedWorldSize), world_size_);
  }
  if (!backend_.empty()) {
    env->SetStatString(env->GetOrCreateStatMetadata(kStatDistributedBackend), backend_);
  }
}

void TraceEventMapper::ReadDistributedInfo(const json::JsonValue& value) {
  if (const json::JsonValue* rank = value.Find("rank")) rank->AsInt64(&summary_.rank);
  if (const json::JsonValue* world_size = value.Find("world_size")) {
    world_size->AsInt64(&world_size_);
  }
  if (const json::JsonValue* backend = value.Find("backend")) {
    backend_ = std::string(SanitizeUtf8(backend->AsString(), &scratch_));
  }
}

}  // namespace tbprof::converters
