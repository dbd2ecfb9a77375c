#include "converters/views/kernels/xspace_to_kernel_stats.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "converters/common/kernel_details.h"
#include "converters/views/kernels/hlo_op_names.h"
#include "converters/views/common/tensor_core.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;

bool IsTfOpNameChar(char c, bool first) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.') return true;
  return !first && (c == '_' || c == '/' || c == '\\' || c == '>' || c == '-');
}

// [A-Za-z0-9.][A-Za-z0-9_.\/>-]*
bool IsTfOpName(absl::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsTfOpNameChar(s[i], i == 0)) return false;
  }
  return true;
}

// [A-Z_][a-zA-Z0-9_]*
bool IsTfOpType(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isupper(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// [a-z_][a-z0-9_]*(\[.*\])?
bool IsJaxOpType(absl::string_view s) {
  if (s.empty() || !(absl::ascii_islower(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  size_t i = 1;
  while (i < s.size() && (absl::ascii_islower(static_cast<unsigned char>(s[i])) ||
                          absl::ascii_isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
    ++i;
  }
  if (i == s.size()) return true;
  return s[i] == '[' && s.back() == ']';
}

// Last name-scope element without a trailing "_<digits>" ("a/dot_3" -> "dot").
absl::string_view DeriveOpType(absl::string_view name) {
  size_t slash = name.rfind('/');
  if (slash != absl::string_view::npos) name.remove_prefix(slash + 1);
  size_t underscore = name.rfind('_');
  if (underscore != absl::string_view::npos && underscore + 1 < name.size()) {
    absl::string_view suffix = name.substr(underscore + 1);
    if (std::all_of(suffix.begin(), suffix.end(),
                    [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); })) {
      name = name.substr(0, underscore);
    }
  }
  return name;
}

// Dense ids for strings of one XSpace. Strings of an XSpaceData are interned,
// so the pointer cache answers almost every lookup; the content map keeps ids
// right even for equal strings at different addresses.
class StringIds {
 public:
  uint32_t Id(absl::string_view s) {
    auto ptr_it = by_ptr_.find(std::make_pair(s.data(), s.size()));
    if (ptr_it != by_ptr_.end()) return ptr_it->second;
    auto [it, inserted] = by_content_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(s);
    by_ptr_.emplace(std::make_pair(s.data(), s.size()), it->second);
    return it->second;
  }
  absl::string_view Get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  absl::flat_hash_map<std::pair<const char*, size_t>, uint32_t> by_ptr_;
  absl::flat_hash_map<absl::string_view, uint32_t> by_content_;
  std::vector<absl::string_view> strings_;
};

struct KernelKey {
  uint32_t name_id;
  uint32_t op_id;  // Id of "" when the kernel has no op.
  uint32_t registers_per_thread;
  uint32_t static_shmem_bytes;
  uint32_t dynamic_shmem_bytes;
  std::array<uint32_t, 3> grid;
  std::array<uint32_t, 3> block;
  bool uses_tensor_core;

  auto Tie() const {
    return std::tie(name_id, op_id, registers_per_thread, static_shmem_bytes, dynamic_shmem_bytes,
                    grid, block, uses_tensor_core);
  }
  bool operator==(const KernelKey& o) const { return Tie() == o.Tie(); }
  template <typename H>
  friend H AbslHashValue(H h, const KernelKey& k) {
    return H::combine(std::move(h), k.name_id, k.op_id, k.registers_per_thread,
                      k.static_shmem_bytes, k.dynamic_shmem_bytes, k.grid, k.block,
                      k.uses_tensor_core);
  }
};

struct KernelValue {
  uint64_t occurrences = 0;
  uint64_t total_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  double occupancy_pct = 0;
};

// The last of the "::"-separated names of an `hlo_op` stat (the plugin
// looks up that instruction).
absl::string_view LastHloOpName(absl::string_view hlo_op) {
  const size_t sep = hlo_op.rfind("::");
  return sep == absl::string_view::npos ? hlo_op : hlo_op.substr(sep + 2);
}

// Op names of XLA kernels: the framework op of their HLO instruction,
// cached by (program id, instruction name).
class XlaOpNames {
 public:
  explicit XlaOpNames(const xplane::XSpaceData& space) : hlo_(space) {}

  bool empty() const { return hlo_.empty(); }

  // The op name the plugin shows for a kernel of this instruction, or
  // nullopt when the instruction is unknown (the kernel keeps its tf_op).
  std::optional<absl::string_view> Find(uint64_t program_id, absl::string_view instruction) {
    auto [it, inserted] = cache_.try_emplace(std::make_pair(program_id, instruction));
    if (inserted) {
      if (const HloOpNames::OpMetadata* metadata = hlo_.Find(program_id, instruction)) {
        fullnames_.push_back(HloTfOpFullname(*metadata));
        it->second = OpNameFromTfOp(fullnames_.back());
      }
    }
    return it->second;
  }

 private:
  HloOpNames hlo_;
  absl::flat_hash_map<std::pair<uint64_t, absl::string_view>, std::optional<absl::string_view>>
      cache_;
  std::deque<std::string> fullnames_;  // Stable storage the cached names view.
};

}  // namespace

absl::string_view OpNameFromTfOp(absl::string_view tf_op_fullname) {
  size_t colon = tf_op_fullname.find(':');
  if (colon == absl::string_view::npos) return tf_op_fullname;
  absl::string_view name = tf_op_fullname.substr(0, colon);
  absl::string_view type = tf_op_fullname.substr(colon + 1);
  if (name == "Iterator") return tf_op_fullname;
  if (IsTfOpType(type) && IsTfOpName(name)) return name;
  absl::string_view op_type = type.empty() ? DeriveOpType(name) : type;
  if (IsJaxOpType(op_type) || type.empty()) return name;
  return tf_op_fullname;
}

KernelStatsDb ConvertXSpaceToKernelStatsDb(const xplane::XSpaceData& space,
                                           const KernelStatsOptions& options) {
  const int64_t base_ns = xplane::SpaceBaseNs(space);
  StringIds strings;
  const uint32_t empty_op_id = strings.Id("");
  absl::flat_hash_map<KernelKey, KernelValue> kernels;
  absl::flat_hash_map<std::pair<const char*, size_t>, converters::KernelDetails> details_cache;
  // By op id: bit 0 = eligible (OR over the op's events), bit 1 = name rule applied.
  std::vector<uint8_t> op_state;
  XlaOpNames xla_ops(space);

  for (const xplane::Plane* raw_plane : xplane::FindGpuPlanes(space)) {
    xplane::XPlaneVisitor plane(&space, raw_plane, base_ns);
    // By event metadata index: name id (-1 = not yet seen) and Tensor Core use.
    std::vector<std::pair<int64_t, bool>> names(plane.num_event_metadata(), {-1, false});
    plane.ForEachLine([&](const xplane::XLineVisitor& line) {
      if (line.id() >= xplane::kThreadIdStepInfo) return;  // Derived line.
      line.ForEachEvent([&](const xplane::XEventVisitor& event) {
        if (event.is_aggregate()) return;
        const int64_t duration_ns = event.duration_ps() / 1000;
        if (duration_ns <= 0) return;
        absl::string_view details, tf_op, equation, hlo_op;
        std::optional<uint64_t> program_id;
        event.ForEachStat([&](const xplane::XStatVisitor& stat) {
          switch (stat.type()) {
            case xplane::StatType::kKernelDetails:
              if (details.empty()) details = stat.StrOrRefValue();
              break;
            case xplane::StatType::kTfOp:
              if (tf_op.empty()) tf_op = stat.StrOrRefValue();
              break;
            case xplane::StatType::kEquation:
              if (equation.empty()) equation = stat.StrOrRefValue();
              break;
            case xplane::StatType::kHloOp:
              if (hlo_op.empty()) hlo_op = stat.StrOrRefValue();
              break;
            case xplane::StatType::kProgramId:
              if (!program_id.has_value()) program_id = stat.IntOrUintValue();
              break;
            default:
              break;
          }
        });
        if (details.empty()) return;

        std::pair<int64_t, bool>& name = names[event.metadata_index()];
        if (name.first < 0) {
          name.first = strings.Id(event.name());
          name.second = IsKernelUsingTensorCore(event.name());
        }
        auto [details_it, inserted] =
            details_cache.try_emplace(std::make_pair(details.data(), details.size()));
        if (inserted) {
          // Malformed values leave defaults; the plugin shows such kernels too.
          converters::ParseKernelDetails(details, &details_it->second);
        }
        const converters::KernelDetails& params = details_it->second;
        absl::string_view op_name = OpNameFromTfOp(tf_op);
        if (!hlo_op.empty() && program_id.has_value() && !xla_ops.empty()) {
          if (std::optional<absl::string_view> xla_op =
                  xla_ops.Find(*program_id, LastHloOpName(hlo_op))) {
            op_name = *xla_op;
          }
        }
        const uint32_t op_id = strings.Id(op_name);

        KernelKey key;
        key.name_id = static_cast<uint32_t>(name.first);
        key.op_id = op_id;
        key.registers_per_thread = static_cast<uint32_t>(params.registers_per_thread);
        key.static_shmem_bytes = static_cast<uint32_t>(params.static_shared_mem_bytes);
        key.dynamic_shmem_bytes = static_cast<uint32_t>(params.dynamic_shared_mem_bytes);
        for (int d = 0; d < 3; ++d) {
          key.grid[d] = static_cast<uint32_t>(params.grid[d]);
          key.block[d] = static_cast<uint32_t>(params.block[d]);
        }
        key.uses_tensor_core = name.second;

        if (op_id != empty_op_id) {
          if (op_state.size() <= op_id) op_state.resize(op_id + 1, 0);
          uint8_t& state = op_state[op_id];
          if (!(state & 2)) state |= 2 | (IsOpTensorCoreEligible(op_name) ? 1 : 0);
          if (key.uses_tensor_core || (!(state & 1) && IsEinsumTensorCoreEligible(equation))) {
            state |= 1;
          }
        }

        const uint64_t ns = static_cast<uint64_t>(duration_ns);
        KernelValue& value = kernels[key];
        if (value.occurrences == 0) {
          value.min_ns = ns;
          value.max_ns = ns;
          value.occupancy_pct = params.occupancy_pct;
        } else {
          value.min_ns = std::min(value.min_ns, ns);
          value.max_ns = std::max(value.max_ns, ns);
        }
        value.total_ns += ns;
        ++value.occurrences;
      });
    });
  }

  auto eligible = [&](const KernelKey& key) {
    return key.op_id != empty_op_id && key.op_id < op_state.size() &&
           (op_state[key.op_id] & 1) != 0;
  };
  // Sort (key, value) pairs and build protos only for the reports kept.
  using Entry = std::pair<const KernelKey*, const KernelValue*>;
  std::vector<Entry> entries;
  entries.reserve(kernels.size());
  for (const auto& kv : kernels) entries.emplace_back(&kv.first, &kv.second);
  auto sort_key = [&](const Entry& e) {
    const KernelKey& k = *e.first;
    return std::make_tuple(strings.Get(k.name_id), k.grid, k.block, k.registers_per_thread,
                           k.static_shmem_bytes, k.dynamic_shmem_bytes, k.uses_tensor_core,
                           eligible(k), strings.Get(k.op_id));
  };
  // The plugin's table order: total duration descending, then the key
  // fields ascending (name, grid, block, regs, shmem, TC flags, op name).
  auto before = [&](const Entry& a, const Entry& b) {
    if (a.second->total_ns != b.second->total_ns) return a.second->total_ns > b.second->total_ns;
    return sort_key(a) < sort_key(b);
  };
  const size_t keep =
      std::min(entries.size(), static_cast<size_t>(std::max(options.max_kernels, 0)));
  std::partial_sort(entries.begin(), entries.begin() + keep, entries.end(), before);

  KernelStatsDb db;
  db.mutable_reports()->Reserve(static_cast<int>(keep));
  for (size_t i = 0; i < keep; ++i) {
    const KernelKey& key = *entries[i].first;
    const KernelValue& value = *entries[i].second;
    KernelReport* report = db.add_reports();
    report->set_name(std::string(strings.Get(key.name_id)));
    report->set_registers_per_thread(key.registers_per_thread);
    report->set_static_shmem_bytes(key.static_shmem_bytes);
    report->set_dynamic_shmem_bytes(key.dynamic_shmem_bytes);
    for (uint32_t d : key.block) report->add_block_dim(d);
    for (uint32_t d : key.grid) report->add_grid_dim(d);
    report->set_total_duration_ns(value.total_ns);
    report->set_min_duration_ns(value.min_ns);
    report->set_max_duration_ns(value.max_ns);
    report->set_is_kernel_using_tensor_core(key.uses_tensor_core);
    report->set_is_op_tensor_core_eligible(eligible(key));
    report->set_op_name(std::string(strings.Get(key.op_id)));
    report->set_occurrences(static_cast<uint32_t>(value.occurrences));
    report->set_occupancy_pct(static_cast<float>(value.occupancy_pct));
  }
  return db;
}

}  // namespace tbprof::views
