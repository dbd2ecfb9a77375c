// Framework ops of XLA instructions, read from the HLO protos that XLA
// stores in an XSpace, the way the profile plugin names the op of an XLA
// kernel (its HloModuleMap).
//
// Input contract: event metadata of the "/host:metadata" plane with a bytes
// stat "Hlo Proto" (a serialized xla.HloProto). The program id is the event
// metadata's id, or its `program_id` stat when it has one; the first module
// seen for a program id wins. Only the fields needed are read from the wire
// format: HloProto.hlo_module (1) -> HloModuleProto.computations (3) ->
// HloComputationProto.instructions (2) -> HloInstructionProto.name (1) and
// .metadata (7) -> OpMetadata.op_type (1) / .op_name (2). Instruction names
// are unique in a module; should one repeat, the first wins.
//
// A module is parsed the first time one of its instructions is looked up. A
// module whose wire format is broken (in the fields read) is treated as
// absent, as the plugin drops modules it cannot parse; unlike the plugin we
// do not verify the HLO itself.
#ifndef TBPROF_CONVERTERS_VIEWS_KERNELS_HLO_OP_NAMES_H_
#define TBPROF_CONVERTERS_VIEWS_KERNELS_HLO_OP_NAMES_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

class HloOpNames {
 public:
  // An instruction's OpMetadata fields; views into the XSpace's strings.
  struct OpMetadata {
    absl::string_view op_type;
    absl::string_view op_name;
  };

  // Indexes the modules of `space`, which must outlive this object.
  explicit HloOpNames(const xplane::XSpaceData& space);

  bool empty() const { return modules_.empty(); }

  // The metadata of instruction `instruction` of program `program_id`, or
  // nullptr when the program or the instruction is unknown.
  const OpMetadata* Find(uint64_t program_id, absl::string_view instruction);

 private:
  struct Module {
    absl::string_view hlo_proto;  // Serialized xla.HloProto.
    bool parsed = false;
    absl::flat_hash_map<absl::string_view, OpMetadata> by_instruction;
  };

  absl::flat_hash_map<uint64_t, Module> modules_;
};

// The plugin's "TF op fullname" of an HLO instruction (TfOpFullname): ""
// when both are empty; else "<op_name>:<op_type>", where an empty op_type
// of the XLA_Args / XLA_Retvals ops is the op name itself.
std::string HloTfOpFullname(const HloOpNames::OpMetadata& metadata);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_KERNELS_HLO_OP_NAMES_H_
