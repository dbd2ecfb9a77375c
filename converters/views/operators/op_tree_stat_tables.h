// Per-plane tables the op tree (op_tree.cc) reads stats through, built once
// per XPlane so that the per-event scans cost a table load per stat instead
// of a lookup by name or id.
//
// Contract. Each table views the plane's metadata (and the space's strings)
// that `plane` was made from: the XSpaceData must outlive it and every
// string_view it returns. StatRoles() is indexed by stat metadata index of
// that plane; StatTexts::Of() answers only stats of that plane. Neither
// changes what the visitor would return: StatTexts::Of(stat) ==
// stat.StrOrRefValue() for every stat of the plane.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_STAT_TABLES_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_STAT_TABLES_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "converters/views/operators/gpu_peak_flops.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::op_tree_internal {

// What a stat tells the op tree, by stat metadata index of a plane: the
// per-event scans then cost a byte load per stat. The type decides first;
// the record_shapes / with_stack stats go by name.
enum class StatRole : uint8_t {
  kNone = 0,
  kCorrelation,
  kIsRoot,
  kTfOp,
  kKernelDetails,
  kInputDims,
  kInputTypes,
  kConcreteInputs,
  kCallStack,
  kInputPipelineStage,  // `_ipl_stage_id`: xprof counts the event as a host (input) op.
};

// The role of each stat metadata of `plane`, by metadata index.
std::vector<StatRole> StatRoles(const xplane::XPlaneVisitor& plane);

// A stat's StrOrRefValue without a call per stat for references (a host
// op carries several: tf_op, input dims and types): the stat metadata names
// by id, in a table when the ids are small (the usual 0..n), the same views
// the visitor returns (the first metadata of an id wins, "" for none).
//
// Of(const xplane::Stat&) and IntOrUint() read a raw stat of the plane (one
// of its lines' or event metadata's) without a visitor, inline: the same
// values as XStatVisitor's StrOrRefValue() and IntOrUintValue(). The
// `plane` visitor must outlive the table.
class StatTexts {
 public:
  explicit StatTexts(const xplane::XPlaneVisitor& plane);
  absl::string_view Of(const xplane::XStatVisitor& stat) const {
    if (small_ids_ && stat.kind() == xplane::StatKind::kRef) {
      const uint64_t id = stat.RefId();
      return id < by_id_.size() ? by_id_[id] : absl::string_view();
    }
    return stat.StrOrRefValue();
  }
  absl::string_view Of(const xplane::Stat& stat) const {
    switch (stat.kind()) {
      case xplane::StatKind::kStr:
        return strings_->Get(stat.str_id());
      case xplane::StatKind::kRef:
        if (small_ids_) {
          const uint64_t id = stat.uint64_value(*wide_);
          return id < by_id_.size() ? by_id_[id] : absl::string_view();
        }
        return xplane::XStatVisitor(plane_, &stat).StrOrRefValue();
      default:
        return absl::string_view();
    }
  }
  int64_t IntOrUint(const xplane::Stat& stat) const {
    const xplane::StatKind kind = stat.kind();
    if (kind != xplane::StatKind::kInt64 && kind != xplane::StatKind::kUint64) return 0;
    return static_cast<int64_t>(stat.uint64_value(*wide_));
  }

 private:
  const xplane::XPlaneVisitor* plane_;
  const xplane::StringPool* strings_;
  const xplane::WideValues* wide_;
  bool small_ids_ = false;
  std::vector<absl::string_view> by_id_;
};

// The GPU of a /device:GPU:<n> plane, from its device stats (name, SM
// count, clock in kHz, compute capability); fields absent stay default.
GpuSpec ReadGpuSpec(const xplane::XPlaneVisitor& plane);

}  // namespace tbprof::views::op_tree_internal

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_STAT_TABLES_H_
