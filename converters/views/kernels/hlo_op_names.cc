#include "converters/views/kernels/hlo_op_names.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {
namespace {

constexpr absl::string_view kHloProtoStatName = "Hlo Proto";

// Protobuf wire-format field numbers of the xla.HloProto fields we read.
constexpr uint32_t kHloProtoModule = 1;          // HloProto.hlo_module
constexpr uint32_t kModuleComputations = 3;      // HloModuleProto.computations
constexpr uint32_t kComputationInstructions = 2;  // HloComputationProto.instructions
constexpr uint32_t kInstructionName = 1;         // HloInstructionProto.name
constexpr uint32_t kInstructionMetadata = 7;     // HloInstructionProto.metadata
constexpr uint32_t kMetadataOpType = 1;          // OpMetadata.op_type
constexpr uint32_t kMetadataOpName = 2;          // OpMetadata.op_name

bool ReadVarint(const char** p, const char* end, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(*(*p)++);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

// Calls fn(field_number, bytes) for each length-delimited field of the
// serialized message `message`, in order, and skips the other fields.
// Returns false if the wire format is broken (or uses groups) or fn does.
template <typename Fn>
bool ForEachLengthDelimited(absl::string_view message, Fn&& fn) {
  const char* p = message.data();
  const char* const end = p + message.size();
  while (p < end) {
    uint64_t tag;
    if (!ReadVarint(&p, end, &tag)) return false;
    const uint32_t field = static_cast<uint32_t>(tag >> 3);
    if (field == 0) return false;
    switch (tag & 7) {
      case 0: {  // varint
        uint64_t unused;
        if (!ReadVarint(&p, end, &unused)) return false;
        break;
      }
      case 1:  // fixed64
        if (end - p < 8) return false;
        p += 8;
        break;
      case 2: {  // length-delimited
        uint64_t size;
        if (!ReadVarint(&p, end, &size) || size > static_cast<uint64_t>(end - p)) return false;
        if (!fn(field, absl::string_view(p, size))) return false;
        p += size;
        break;
      }
      case 5:  // fixed32
        if (end - p < 4) return false;
        p += 4;
        break;
      default:  // Groups (unused by XLA) and invalid wire types.
        return false;
    }
  }
  return true;
}

// Reads one HloInstructionProto into (name, metadata); repeated singular
// fields follow protobuf's rules (last string wins, messages merge).
bool ParseInstruction(absl::string_view bytes, absl::string_view* name,
                      HloOpNames::OpMetadata* metadata) {
  return ForEachLengthDelimited(bytes, [&](uint32_t field, absl::string_view value) {
    if (field == kInstructionName) {
      *name = value;
    } else if (field == kInstructionMetadata) {
      return ForEachLengthDelimited(value, [&](uint32_t f, absl::string_view v) {
        if (f == kMetadataOpType) metadata->op_type = v;
        if (f == kMetadataOpName) metadata->op_name = v;
        return true;
      });
    }
    return true;
  });
}

}  // namespace

HloOpNames::HloOpNames(const xplane::XSpaceData& space) {
  const xplane::Plane* raw = xplane::FindPlaneWithName(space, xplane::kMetadataPlaneName);
  if (raw == nullptr) return;
  xplane::XPlaneVisitor plane(&space, raw, /*base_ns=*/0);
  const std::optional<uint32_t> hlo_stat = plane.FindStatMetadata(kHloProtoStatName);
  if (!hlo_stat.has_value()) return;
  for (const xplane::EventMetadata& metadata : raw->event_metadata) {
    absl::string_view hlo_proto;
    bool has_proto = false;
    uint64_t program_id = static_cast<uint64_t>(metadata.id);
    for (const xplane::Stat& raw_stat : metadata.stats) {
      xplane::XStatVisitor stat(&plane, &raw_stat);
      if (raw_stat.metadata_index() == *hlo_stat) {
        if (stat.kind() != xplane::StatKind::kBytes) continue;
        hlo_proto = stat.BytesValue();
        has_proto = true;
      } else if (stat.type() == xplane::StatType::kProgramId) {
        program_id = static_cast<uint64_t>(stat.IntOrUintValue());
      }
    }
    if (!has_proto) continue;
    auto [it, inserted] = modules_.try_emplace(program_id);
    if (inserted) it->second.hlo_proto = hlo_proto;  // The first module wins.
  }
}

const HloOpNames::OpMetadata* HloOpNames::Find(uint64_t program_id,
                                               absl::string_view instruction) {
  auto it = modules_.find(program_id);
  if (it == modules_.end()) return nullptr;
  Module& module = it->second;
  if (!module.parsed) {
    module.parsed = true;
    const bool ok = ForEachLengthDelimited(
        module.hlo_proto, [&](uint32_t field, absl::string_view hlo_module) {
          if (field != kHloProtoModule) return true;
          return ForEachLengthDelimited(hlo_module, [&](uint32_t f, absl::string_view computation) {
            if (f != kModuleComputations) return true;
            return ForEachLengthDelimited(computation, [&](uint32_t g, absl::string_view instr) {
              if (g != kComputationInstructions) return true;
              absl::string_view name;
              OpMetadata metadata;
              if (!ParseInstruction(instr, &name, &metadata)) return false;
              module.by_instruction.try_emplace(name, metadata);
              return true;
            });
          });
        });
    if (!ok) module.by_instruction.clear();  // The plugin drops the module.
  }
  auto found = module.by_instruction.find(instruction);
  return found == module.by_instruction.end() ? nullptr : &found->second;
}

std::string HloTfOpFullname(const HloOpNames::OpMetadata& metadata) {
  absl::string_view type = metadata.op_type;
  if (type.empty()) {
    if (metadata.op_name.empty()) return std::string();
    if (metadata.op_name == "XLA_Args" || metadata.op_name == "XLA_Retvals") {
      type = metadata.op_name;
    }
  }
  return absl::StrCat(metadata.op_name, ":", type);
}

}  // namespace tbprof::views
