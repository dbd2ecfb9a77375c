// Input-pipeline stage stats on PyTorch DataLoader iterations, so that
// xprof's input-pipeline analyzer lists them as host input ops.
//
// How xprof reads them (xprof/convert/xplane_to_op_metrics_db.cc,
// CollectTfOpsFromHostThreadsXPlane): a host event with an int
// `_ipl_stage_id` and a string `_ipl_stage_cat` becomes an input-pipeline op
// named after the event, of category `_ipl_stage_cat` ("enqueue", "read" or
// "preprocessing", xprof/convert/host_op_utils.h), keyed by the stage id, so
// every event of one kind must carry the same id: we use the event's own
// metadata id. `_ipl_stage_name` names the stage; a root stage is waiting
// for input in xprof's step events (and in tbprof's, event_type_span.h).
//
// Only `enumerate(DataLoader)#...` events are tagged, as "preprocessing"
// (fetching and transforming a batch). Host-to-device copies are never
// tagged "enqueue": xprof would then scale the whole input breakdown by the
// copy share, which describes TensorFlow's infeed, not PyTorch.
#ifndef TBPROF_CONVERTERS_COMMON_INPUT_PIPELINE_STAGES_H_
#define TBPROF_CONVERTERS_COMMON_INPUT_PIPELINE_STAGES_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::converters {

// The stage category written on DataLoader iterations.
inline constexpr absl::string_view kDataLoaderStageCategory = "preprocessing";

// True for PyTorch's DataLoader iteration events ("enumerate(DataLoader)#...").
bool IsDataLoaderIteration(absl::string_view event_name);

// When `event_name` (the name of event metadata `event_metadata_index` of
// `plane`) is a DataLoader iteration, adds `_ipl_stage_name` (the name),
// `_ipl_stage_cat` (kDataLoaderStageCategory) and `_ipl_stage_id` (the
// metadata's id, int64) to `event` and returns true; otherwise does nothing
// and returns false. A tagged event must not also carry `tf_op`: xprof would
// count it twice, once as an input op without children (its self time then
// equals its total time) and once as a framework op.
bool AddInputPipelineStageStats(xplane::XPlaneBuilder* plane, uint32_t event_metadata_index,
                                absl::string_view event_name, xplane::XEventBuilder* event);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_INPUT_PIPELINE_STAGES_H_
