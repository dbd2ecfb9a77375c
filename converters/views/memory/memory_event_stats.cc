#include "converters/views/memory/memory_event_stats.h"

#include "absl/strings/str_cat.h"

namespace tbprof::views::memory_profile {

void AllocatorStat::MemoryId(std::string* id) const {
  if (type == xplane::StatType::kAllocatorName) {
    id->assign(name.data(), name.size());
  } else if (type == xplane::StatType::kUnknown) {
    id->clear();
  } else {
    *id = absl::StrCat(static_cast<int64_t>(value));
  }
}

void ReadMemoryEvent(const xplane::XEventVisitor& event, DataTypeNames* data_types,
                     MemoryEventStats* stats, AllocatorStat* allocator) {
  bool has_fragmentation = false;
  SnapTexts& texts = stats->texts;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    switch (stat.type()) {
      case xplane::StatType::kIndexOnHost:
      case xplane::StatType::kDeviceOrdinal:
        if (allocator != nullptr) {
          *allocator = {stat.type(), stat.kind(), static_cast<uint64_t>(stat.IntOrUintValue()), {}};
        }
        break;
      case xplane::StatType::kAllocatorName:
        if (allocator != nullptr) {
          const absl::string_view name = stat.StrOrRefValue();
          const uint64_t value = stat.kind() == xplane::StatKind::kRef
                                     ? stat.RefId()
                                     : reinterpret_cast<uintptr_t>(name.data());
          *allocator = {stat.type(), stat.kind(), value, name};
        }
        break;
      case xplane::StatType::kBytesReserved:
        stats->stack_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAllocated:
        stats->heap_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kBytesAvailable:
        stats->free_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kFragmentation:
        stats->fragmentation = stat.NumericValue();
        has_fragmentation = true;
        break;
      case xplane::StatType::kPeakBytesInUse:
        stats->peak_bytes_in_use = stat.IntOrUintValue();
        break;
      case xplane::StatType::kRequestedBytes:
        stats->requested_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAllocationBytes:
        stats->allocation_bytes = stat.IntOrUintValue();
        break;
      case xplane::StatType::kAddress:
        stats->address = static_cast<uint64_t>(stat.IntOrUintValue());
        break;
      case xplane::StatType::kTfOp:
        texts.tf_op = stat.StrOrRefValue();
        break;
      case xplane::StatType::kRegionType:
        texts.region_type = stat.StrOrRefValue();
        break;
      case xplane::StatType::kDataType:
        if (stat.kind() == xplane::StatKind::kStr || stat.kind() == xplane::StatKind::kRef) {
          texts.data_type = stat.StrOrRefValue();
        } else {
          texts.data_type = data_types->Get(stat.IntOrUintValue());
        }
        break;
      case xplane::StatType::kTensorShapes:
        texts.tensor_shape = stat.StrOrRefValue();
        break;
      case xplane::StatType::kGroupId:
        stats->group_id = stat.IntOrUintValue();
        break;
      default:
        break;
    }
  });
  if (!has_fragmentation) {
    const int64_t held = stats->heap_bytes + stats->free_bytes;
    stats->fragmentation = held > 0 ? static_cast<double>(stats->free_bytes) / held : 0.0;
  }
}

int64_t AllocationBytesOf(const xplane::XEventVisitor& event) {
  int64_t bytes = 0;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    if (stat.type() == xplane::StatType::kAllocationBytes) bytes = stat.IntOrUintValue();
  });
  return bytes;
}

}  // namespace tbprof::views::memory_profile
