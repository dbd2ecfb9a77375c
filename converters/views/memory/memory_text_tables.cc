#include "converters/views/memory/memory_text_tables.h"

#include "absl/strings/str_cat.h"
#include "converters/views/memory/xspace_to_memory_profile.h"

namespace tbprof::views {
namespace memory_profile {

absl::string_view DataTypeNames::Lookup(int64_t data_type) {
  auto [it, inserted] = names_.try_emplace(data_type);
  if (inserted) it->second = TensorflowDataTypeName(data_type);
  return it->second;
}

}  // namespace memory_profile

std::string TensorflowDataTypeName(int64_t data_type) {
  static constexpr absl::string_view kNames[] = {
      "INVALID",
      "float",
      "double",
      "int32",
      "uint8",
      "int16",
      "int8",
      "string",
      "complex64",
      "int64",
      "bool",
      "qint8",
      "quint8",
      "qint32",
      "bfloat16",
      "qint16",
      "quint16",
      "uint16",
      "complex128",
      "half",
      "resource",
      "variant",
      "uint32",
      "uint64",
      "float8_e5m2",
      "float8_e4m3fn",
      "float8_e4m3fnuz",
      "float8_e4m3b11fnuz",
      "float8_e5m2fnuz",
      "int4",
      "uint4",
  };
  constexpr int64_t kNumNames = sizeof(kNames) / sizeof(kNames[0]);
  constexpr int64_t kRefOffset = 100;
  if (data_type >= 0 && data_type < kNumNames) return std::string(kNames[data_type]);
  if (data_type > kRefOffset && data_type - kRefOffset < kNumNames) {
    return absl::StrCat(kNames[data_type - kRefOffset], "_ref");
  }
  return absl::StrCat("unknown dtype enum (", data_type, ")");
}

}  // namespace tbprof::views
