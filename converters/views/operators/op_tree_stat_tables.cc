#include "converters/views/operators/op_tree_stat_tables.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "converters/views/operators/op_tree.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views::op_tree_internal {

using xplane::StatType;

std::vector<StatRole> StatRoles(const xplane::XPlaneVisitor& plane) {
  std::vector<StatRole> roles(plane.num_stat_metadata(), StatRole::kNone);
  for (size_t m = 0; m < roles.size(); ++m) {
    switch (plane.stat_type(static_cast<uint32_t>(m))) {
      case StatType::kCorrelationId:
        roles[m] = StatRole::kCorrelation;
        break;
      case StatType::kIsRoot:
        roles[m] = StatRole::kIsRoot;
        break;
      case StatType::kTfOp:
        roles[m] = StatRole::kTfOp;
        break;
      case StatType::kKernelDetails:
        roles[m] = StatRole::kKernelDetails;
        break;
      case StatType::kIplStageId:
        roles[m] = StatRole::kInputPipelineStage;
        break;
      default:
        break;
    }
  }
  auto by_name = [&](absl::string_view name, StatRole role) {
    std::optional<uint32_t> m = plane.FindStatMetadata(name);
    if (m.has_value() && roles[*m] == StatRole::kNone) roles[*m] = role;
  };
  by_name(kInputDimsStatName, StatRole::kInputDims);
  by_name(kInputTypesStatName, StatRole::kInputTypes);
  by_name(kConcreteInputsStatName, StatRole::kConcreteInputs);
  by_name(kCallStackStatName, StatRole::kCallStack);
  return roles;
}

StatTexts::StatTexts(const xplane::XPlaneVisitor& plane)
    : plane_(&plane), strings_(&plane.space().strings), wide_(&plane.raw().wide_values) {
  const std::vector<xplane::StatMetadata>& metadata = plane.raw().stat_metadata;
  for (const xplane::StatMetadata& md : metadata) {
    if (md.id < 0 || static_cast<uint64_t>(md.id) >= 4 * metadata.size() + 1024) return;
  }
  std::vector<bool> set;
  for (size_t m = 0; m < metadata.size(); ++m) {
    const size_t id = static_cast<size_t>(metadata[m].id);
    if (id >= by_id_.size()) {
      by_id_.resize(id + 1);
      set.resize(id + 1, false);
    }
    if (set[id]) continue;
    set[id] = true;
    by_id_[id] = plane.stat_name(static_cast<uint32_t>(m));
  }
  small_ids_ = true;
}

GpuSpec ReadGpuSpec(const xplane::XPlaneVisitor& plane) {
  GpuSpec spec;
  plane.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case StatType::kGpuDeviceName:
        spec.name = std::string(stat.StrOrRefValue());
        break;
      case StatType::kDevCapCoreCount:
        spec.sm_count = stat.IntOrUintValue();
        break;
      case StatType::kDevCapClockRateKHz:
        spec.clock_khz = stat.IntOrUintValue();
        break;
      case StatType::kDevCapComputeCapMajor:
        spec.compute_major = static_cast<int>(stat.IntOrUintValue());
        break;
      case StatType::kDevCapComputeCapMinor:
        spec.compute_minor = static_cast<int>(stat.IntOrUintValue());
        break;
      default:
        break;
    }
  });
  return spec;
}

}  // namespace tbprof::views::op_tree_internal
