#include "converters/views/distributed/collective_launch_metadata.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "converters/common/collective_stats.h"
#include "converters/views/distributed/collective_bandwidth.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using xplane::XEventVisitor;
using xplane::XPlaneVisitor;
using xplane::XStatVisitor;

// The event's stat with stat-metadata index `index` (own stats first).
std::optional<XStatVisitor> StatAt(const XEventVisitor& e, std::optional<uint32_t> index) {
  std::optional<XStatVisitor> found;
  if (!index) return found;
  e.ForEachStat([&](const XStatVisitor& s) {
    if (!found && s.metadata_index() == *index) found.emplace(s);
  });
  return found;
}

// The first stat with stat-metadata index `index` of event `event` of
// `line` (its own stats first, then its metadata's), or null: StatAt() on
// the raw data, stopping at the first match.
const xplane::Stat* FirstStatAt(const xplane::Plane& plane, const xplane::Line& line,
                                size_t event, uint32_t index) {
  const xplane::Stat* stats = line.stats.data();
  for (uint32_t i = line.events[event].stats_begin, end = line.stats_end(event); i < end; ++i) {
    if (stats[i].metadata_index() == index) return stats + i;
  }
  for (const xplane::Stat& s : plane.event_metadata[line.events[event].metadata_index()].stats) {
    if (s.metadata_index() == index) return &s;
  }
  return nullptr;
}

// A bit per low 16 bits of an id of a set: most ids not in the set (the
// many launches that are not collectives) are told apart without hashing.
class IdFilter {
 public:
  explicit IdFilter(const absl::flat_hash_set<int64_t>& ids) : bits_(kWords, 0) {
    for (int64_t id : ids) bits_[Bit(id) >> 6] |= uint64_t{1} << (Bit(id) & 63);
  }
  // False: `id` is not in the set; true: it may be.
  bool MayContain(int64_t id) const { return (bits_[Bit(id) >> 6] >> (Bit(id) & 63) & 1) != 0; }

 private:
  static constexpr size_t kBits = size_t{1} << 16;
  static constexpr size_t kWords = kBits / 64;
  static size_t Bit(int64_t id) { return static_cast<size_t>(static_cast<uint64_t>(id) & (kBits - 1)); }
  std::vector<uint64_t> bits_;
};

int64_t IntStat(const XEventVisitor& e, std::optional<uint32_t> index, int64_t fallback) {
  std::optional<XStatVisitor> s = StatAt(e, index);
  if (!s) return fallback;
  if (s->kind() == xplane::StatKind::kInt64 || s->kind() == xplane::StatKind::kUint64) {
    return s->IntOrUintValue();
  }
  int64_t v;
  return absl::SimpleAtoi(s->StrOrRefValue(), &v) ? v : fallback;
}

std::string StrStat(const XEventVisitor& e, std::optional<uint32_t> index) {
  std::optional<XStatVisitor> s = StatAt(e, index);
  if (!s) return "";
  if (s->kind() == xplane::StatKind::kInt64 || s->kind() == xplane::StatKind::kUint64) {
    return std::to_string(s->IntOrUintValue());
  }
  return std::string(s->StrOrRefValue());
}

// Ranks in "[0, 1, 2, 3]"; 0 when empty or cut short ("[0, 1, ...]").
int64_t CountRanks(absl::string_view list) {
  list = absl::StripAsciiWhitespace(list);
  if (list.size() < 3 || list.front() != '[' || list.back() != ']' ||
      absl::StrContains(list, "...")) {
    return 0;
  }
  return static_cast<int64_t>(std::count(list.begin(), list.end(), ',')) + 1;
}

// Elements of the first tensor in an `input_dims` stat ("[[394241],[8]]" ->
// 394241); -1 when it has no dims (a tensor list or scalar) or is malformed.
int64_t FirstTensorElements(absl::string_view dims) {
  size_t open = dims.find('[', dims.find('[') + 1);
  if (dims.empty() || open == absl::string_view::npos) return -1;
  size_t close = dims.find(']', open);
  if (close == absl::string_view::npos || close == open + 1) return -1;
  int64_t product = 1;
  for (absl::string_view part : absl::StrSplit(dims.substr(open + 1, close - open - 1), ',')) {
    int64_t d;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &d) || d < 0) return -1;
    if (d != 0 && product > (int64_t{1} << 62) / d) return -1;
    product *= d;
  }
  return product;
}

// The first string of an `input_types` stat ("[\"float\",\"int\"]" -> float).
std::string FirstType(absl::string_view types) {
  size_t open = types.find('"');
  if (open == absl::string_view::npos) return "";
  size_t close = types.find('"', open + 1);
  if (close == absl::string_view::npos) return "";
  return std::string(types.substr(open + 1, close - open - 1));
}

}  // namespace

CollectiveLaunchMetadata::CollectiveLaunchMetadata(const xplane::XSpaceData& space,
                                                   const xplane::Plane* host_plane,
                                                   const absl::flat_hash_set<int64_t>& wanted) {
  if (host_plane == nullptr) return;
  host_.emplace(&space, host_plane, xplane::SpaceBaseNs(space));
  namespace c = converters;
  stats_.collective_name = host_->FindStatMetadata(c::kStatCollectiveName);
  stats_.in_nelems = host_->FindStatMetadata(c::kStatInMsgNelems);
  stats_.out_nelems = host_->FindStatMetadata(c::kStatOutMsgNelems);
  stats_.dtype = host_->FindStatMetadata(c::kStatDtype);
  stats_.group_size = host_->FindStatMetadata(c::kStatGroupSize);
  stats_.pg_name = host_->FindStatMetadata(c::kStatProcessGroupName);
  stats_.pg_desc = host_->FindStatMetadata(c::kStatProcessGroupDesc);
  stats_.pg_ranks = host_->FindStatMetadata(c::kStatProcessGroupRanks);
  stats_.seq = host_->FindStatMetadata(c::kStatCollectiveSeq);
  // Written by the Kineto converter from record_shapes' "Input Dims" / "Input type".
  stats_.input_dims = host_->FindStatMetadata("input_dims");
  stats_.input_types = host_->FindStatMetadata("input_types");
  IndexLaunches(wanted);
}

void CollectiveLaunchMetadata::IndexLaunches(const absl::flat_hash_set<int64_t>& wanted) {
  const XPlaneVisitor& host = *host_;
  const std::optional<uint32_t> correlation =
      host.FindStatMetadata(xplane::StatTypeName(xplane::StatType::kCorrelationId));
  if (!correlation || wanted.empty()) return;
  // Per event metadata: 1 = record_param_comms, 2 = op named after a collective.
  std::vector<uint8_t> role(host.num_event_metadata(), 0);
  for (uint32_t i = 0; i < role.size(); ++i) {
    const absl::string_view name = host.event_name(i);
    if (name == converters::kParamCommsEventName) {
      role[i] = 1;
    } else if (CollectiveKindFromName(name) != CollectiveKind::kUnknown) {
      role[i] = 2;
    }
  }
  // The open events that have a role, innermost last. Events are visited in
  // nesting order, so the open events form a chain of containment, and so
  // do those of them that have a role: an event pops exactly the role
  // events that the full chain would pop before it, and the others (most
  // events) need not be held at all.
  struct Open {
    int64_t begin_ps, end_ps;
    XEventVisitor event;
  };
  std::vector<Open> stack;
  std::vector<size_t> order;
  const IdFilter wanted_filter(wanted);
  const xplane::Plane& raw_plane = host.raw();
  for (size_t li = 0; li < host.num_lines(); ++li) {
    const xplane::XLineVisitor line = host.line(li);
    const xplane::Line& raw_line = raw_plane.lines[li];
    const size_t n = line.num_events();
    // Events are (begin asc, duration desc) in files we write; others may not
    // be, and only those need an order of their own (`order` stays empty).
    auto before = [&](size_t a, size_t b) {
      const XEventVisitor x = line.event(a), y = line.event(b);
      return x.begin_ps() != y.begin_ps() ? x.begin_ps() < y.begin_ps()
                                          : x.duration_ps() > y.duration_ps();
    };
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) sorted = !before(i, i - 1);
    order.clear();
    if (!sorted) {
      order.resize(n);
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), before);
    }
    stack.clear();
    for (size_t k = 0; k < n; ++k) {
      const size_t index = sorted ? k : order[k];
      const XEventVisitor e = line.event(index);
      const int64_t begin = e.begin_ps(), end = e.end_ps();
      while (!stack.empty() && !(stack.back().begin_ps <= begin && end <= stack.back().end_ps)) {
        stack.pop_back();
      }
      if (const xplane::Stat* id = FirstStatAt(raw_plane, raw_line, index, *correlation)) {
        const int64_t cid = XStatVisitor(&host, id).IntOrUintValue();
        if (wanted_filter.MayContain(cid) && wanted.contains(cid) && !contexts_.contains(cid)) {
          Context context;
          for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
            const uint8_t r = role[it->event.metadata_index()];
            if (r == 1 && !context.param_comms) context.param_comms.emplace(it->event);
            if (r == 2 && !context.op) context.op.emplace(it->event);
          }
          contexts_.emplace(cid, std::move(context));
        }
      }
      if (role[e.metadata_index()] != 0) stack.push_back({begin, end, e});
    }
  }
}

void CollectiveLaunchMetadata::Describe(int64_t correlation_id, int64_t world_size,
                                        tbprof::CollectiveCall* call) const {
  CollectiveKind kind = CollectiveKind::kUnknown;
  std::string dtype;
  int64_t in_nelems = -1, out_nelems = -1;
  tbprof::CollectiveMetadata source = tbprof::COLLECTIVE_METADATA_NONE;
  call->set_seq(-1);
  const Context* context = nullptr;
  if (auto it = contexts_.find(correlation_id); correlation_id >= 0 && it != contexts_.end()) {
    context = &it->second;
  }
  const Stats& stats = stats_;
  if (context != nullptr && context->param_comms) {
    const XEventVisitor& e = *context->param_comms;
    const std::string name = StrStat(e, stats.collective_name);
    in_nelems = IntStat(e, stats.in_nelems, -1);
    out_nelems = IntStat(e, stats.out_nelems, -1);
    if (!name.empty() || in_nelems >= 0 || out_nelems >= 0) {
      source = tbprof::COLLECTIVE_METADATA_PARAM_COMMS;
      call->set_collective_name(name);
      kind = CollectiveKindFromName(name);
      dtype = StrStat(e, stats.dtype);
      call->set_group_size(IntStat(e, stats.group_size, 0));
      call->set_process_group(StrStat(e, stats.pg_name));
      call->set_process_group_desc(StrStat(e, stats.pg_desc));
      call->set_process_group_ranks(StrStat(e, stats.pg_ranks));
      call->set_seq(IntStat(e, stats.seq, -1));
      if (call->group_size() <= 0) call->set_group_size(CountRanks(call->process_group_ranks()));
    }
  }
  if (source == tbprof::COLLECTIVE_METADATA_NONE && context != nullptr && context->op) {
    const XEventVisitor& op = *context->op;
    in_nelems = FirstTensorElements(StrStat(op, stats.input_dims));
    dtype = FirstType(StrStat(op, stats.input_types));
    call->set_collective_name(std::string(op.name()));
    kind = CollectiveKindFromName(op.name());
    if (in_nelems >= 0) {
      source = tbprof::COLLECTIVE_METADATA_OP_SHAPES;
      if (kind == CollectiveKind::kAllGather && world_size > 0 &&
          in_nelems <= (int64_t{1} << 62) / world_size) {
        out_nelems = in_nelems * world_size;
      }
    }
  }
  if (kind == CollectiveKind::kUnknown) kind = CollectiveKindFromKernelName(call->kernel_name());
  if (dtype.empty()) dtype = DtypeFromKernelName(call->kernel_name());
  const int dtype_bytes = DtypeBytes(dtype);
  call->set_kind(std::string(CollectiveKindName(kind)));
  call->set_dtype(dtype);
  call->set_dtype_bytes(dtype_bytes);
  call->set_in_nelems(in_nelems);
  call->set_out_nelems(out_nelems);
  call->set_message_bytes(CollectiveMessageBytes(kind, in_nelems, out_nelems, dtype_bytes));
  call->set_metadata(source);
}

}  // namespace tbprof::views
