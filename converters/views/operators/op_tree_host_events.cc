#include "converters/views/operators/op_tree_host_events.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "converters/views/kernels/xspace_to_kernel_stats.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::op_tree_internal {
namespace {

using xplane::StatType;

// Names xprof parses as TensorFlow / JAX / tf.data ops.
bool IsTfOpFullname(absl::string_view name) {
  return OpNameFromTfOp(name) != name || absl::StartsWith(name, "Iterator::");
}

// Kineto's span of the whole trace ("PyTorch Profiler (0)").
bool IsKinetoTraceSpan(absl::string_view name) {
  return absl::StartsWith(name, "PyTorch Profiler (") && absl::EndsWith(name, ")");
}

// CUDA / HIP runtime and driver calls by name (cudaLaunchKernel,
// cuLaunchKernel, hipMemcpyAsync: a prefix and an upper-case letter), for
// traces whose launches lost their correlation ids.
bool IsRuntimeCallName(absl::string_view name) {
  for (absl::string_view prefix : {"cuda", "cu", "hip"}) {
    if (name.size() > prefix.size() && absl::StartsWith(name, prefix) &&
        absl::ascii_isupper(static_cast<unsigned char>(name[prefix.size()]))) {
      return true;
    }
  }
  return false;
}

// True if the line's events are in nesting order already: by (begin,
// longest first), the order in which parents come before their children.
bool InNestingOrder(const xplane::XLineVisitor& line) {
  for (size_t i = 1; i < line.num_events(); ++i) {
    const xplane::XEventVisitor x = line.event(i - 1), y = line.event(i);
    if (y.begin_ps() < x.begin_ps() ||
        (y.begin_ps() == x.begin_ps() && y.duration_ps() > x.duration_ps())) {
      return false;
    }
  }
  return true;
}

}  // namespace

NestingOrder::NestingOrder(const xplane::XLineVisitor& line) : size_(line.num_events()) {
  if (InNestingOrder(line)) return;
  order_.resize(size_);
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    const xplane::XEventVisitor x = line.event(a), y = line.event(b);
    if (x.begin_ps() != y.begin_ps()) return x.begin_ps() < y.begin_ps();
    return x.duration_ps() > y.duration_ps();
  });
}

std::vector<uint8_t> HostNameFlags(const xplane::XPlaneVisitor& plane) {
  std::vector<uint8_t> flags(plane.num_event_metadata(), 0);
  for (size_t m = 0; m < flags.size(); ++m) {
    const uint32_t index = static_cast<uint32_t>(m);
    const xplane::HostEventType type = plane.host_event_type(index);
    const absl::string_view name = plane.event_name(index);
    if (type == xplane::HostEventType::kMemoryAllocation ||
        type == xplane::HostEventType::kMemoryDeallocation) {
      flags[m] |= kMemoryEvent;
    }
    if (IsTfOpFullname(name)) flags[m] |= kTfOpNamed;
    if (IsKinetoTraceSpan(name) || IsRuntimeCallName(name)) flags[m] |= kNotAHostOp;
  }
  return flags;
}

void MarkMetadataRoleStats(const xplane::XPlaneVisitor& plane, const std::vector<StatRole>& roles,
                           std::vector<uint8_t>* flags) {
  const std::vector<xplane::EventMetadata>& metadata = plane.raw().event_metadata;
  for (size_t m = 0; m < metadata.size() && m < flags->size(); ++m) {
    for (const xplane::Stat& stat : metadata[m].stats) {
      if (roles[stat.metadata_index()] != StatRole::kNone) (*flags)[m] |= kMetadataRoleStats;
    }
  }
}

bool HostMarksOps(const xplane::XPlaneVisitor& plane, const std::vector<uint8_t>& name_flags) {
  if (!plane.FindStatMetadata(xplane::StatTypeName(StatType::kTfOp)).has_value()) return false;
  for (size_t l = 0; l < plane.num_lines(); ++l) {
    const xplane::XLineVisitor line = plane.line(l);
    if (IsDerivedLine(line) || IsPythonLine(line)) continue;
    for (size_t i = 0; i < line.num_events(); ++i) {
      const xplane::XEventVisitor e = line.event(i);
      if (name_flags[e.metadata_index()] & kMemoryEvent) continue;
      std::optional<xplane::XStatVisitor> tf_op = e.GetStat(StatType::kTfOp);
      if (tf_op.has_value() && !tf_op->StrOrRefValue().empty()) return true;
    }
  }
  return false;
}

}  // namespace tbprof::views::op_tree_internal
