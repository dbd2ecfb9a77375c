// The distributed view in a tbprof report: the run's DistributedView
// (converters/views/distributed/distributed_view.h), built from the hosts' RankComms,
// rendered for the terminal, as a JSON member and as an HTML section.
//
// Every renderer shows, when the run has collectives: per rank the average
// step split into compute / communication / overlap / other and the share of
// collective time spent waiting for other ranks; the step-time spread, the
// slowest rank with the phase where it loses its time, and the rank the
// others wait for; the collectives (count, size, latency, algorithm and bus
// bandwidth, sync share); and the counted notes about missing metadata.
// Without collectives it says why in one line.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "converters/views/distributed/distributed_view.h"
#include "converters/views/summary/report_model.h"
#include "converters/report/report_text.h"
#include "proto/distributed.pb.h"

namespace tbprof::views {

// The ranks of the report: one per host, in the report's host order
// (pointing into `input`).
std::vector<RankInput> RankInputsOf(const ReportInput& input);

// The run's distributed view: one rank per host, in the report's host order.
tbprof::DistributedView BuildDistributedReport(const ReportInput& input);

// The renderers below, for a view already built (BuildDistributedView()):
// the report built host by host (report_stream.h) keeps only the ranks'
// RankComms.
std::string RenderDistributedText(const tbprof::DistributedView& view,
                                  const TextReportOptions& options);
absl::Status AppendDistributedJsonMember(const tbprof::DistributedView& view,
                                         std::string* json_object);
std::string RenderDistributedHtml(const tbprof::DistributedView& view);

// The terminal section: a blank line, then either the no-data line or the
// "== Distributed ..." section; every line within options.width columns
// (options.max_kernels rows of collectives, options.ascii honoured).
std::string RenderDistributedText(const ReportInput& input, const TextReportOptions& options);

// Inserts `,"distributed":<DistributedView>` (protobuf JSON, as the other
// views are printed, see report_json.h) before the closing '}' of the JSON
// object in `json_object`. Errors: kInvalidArgument if `json_object` does not
// end with '}', kInternal if protobuf cannot print the view.
absl::Status AppendDistributedJsonMember(const ReportInput& input, std::string* json_object);

// A self-contained HTML section (its own scoped CSS, inline SVG charts, and
// a small script that makes its tables sortable by clicking a header):
// per-rank step split and sync/transfer bars, the rank and collective
// tables, the straggler verdict and the notes. All trace text is escaped.
std::string RenderDistributedHtml(const ReportInput& input);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_H_
