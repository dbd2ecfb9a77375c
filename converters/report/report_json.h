// The machine-readable form of a tbprof report (`tbprof report --json`): the
// view protos as protobuf JSON, the format the profile plugin serves and
// google::protobuf::util::JsonStringToMessage reads back.
//
// Shape, one host:
//   {"overview": <OverviewPage>, "input_pipeline": <InputPipelineAnalysisResult>,
//    "kernel_stats": <KernelStatsDb>, "memory_profile": <MemoryProfile>,
//    "operators": <tbprof.OperatorStats>, "modules": <tbprof.ModuleStats>,
//    "gemm_efficiency": <tbprof.GemmEfficiency>, "gpu_summary": <tbprof.GpuSummary>,
//    "step_breakdown": {"shown": B, "other": B, "note": "..."},
//    "distributed": <tbprof.DistributedView>}
// where B = {"breakdown": "with-host" | "device-only", "steps", "avgStepMs",
// "inputMs", "inputPercent"}: the breakdown the step views use and, when
// the report computed it, the other one (device-only is what xprof's
// overview shows); "note" is the sentence the text and HTML reports show.
// several hosts (in run order):
//   {"hosts": [{"host": "<name>", "overview": ..., ...}, ...],
//    "distributed": <tbprof.DistributedView>}
// "distributed" is the run's (report_distributed.h), after the hosts.
// Each view is printed by views::AppendMessageAsJson (proto_json.h): the
// JSON value MessageToJsonString prints with always_print_primitive_fields,
// i.e. lowerCamelCase field names, int64 values as strings, fields with
// default values included and Any fields expanded with their "@type".
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_JSON_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "converters/views/all/all_views.h"
#include "converters/views/summary/report_model.h"

namespace tbprof::views {

// The members of one host's views object ("overview":...,"input_pipeline":
// ...), appended to `out` without braces. Errors: kInternal if protobuf
// cannot print a view.
absl::Status AppendViewsJsonMembers(const AllViews& views, std::string* out);

// The object of one host's views (without a "host" key), no newline.
// Errors: kInternal if protobuf cannot print a view.
absl::StatusOr<std::string> RenderViewsJson(const AllViews& views);

// The report as one JSON object (shapes above), ending with a newline.
// Errors: as RenderViewsJson.
absl::StatusOr<std::string> RenderJsonReport(const ReportInput& input);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_JSON_H_
