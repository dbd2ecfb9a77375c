// The bundle of offline views of one host: overview page, input-pipeline
// analysis, GPU kernel stats and memory profile (the profile plugin's), plus
// tbprof's operator, module and GEMM-efficiency views, computed together from
// one XSpace, and the legacy precomputed files written from the plugin's.
//
// `tbprof convert` writes these files next to <host>.xplane.pb so that
// profile plugins <= 2.19 (which read precomputed files, not XSpace) show
// data; `tbprof report` renders the same bundle in the terminal, as JSON and
// as HTML (report_*.h).
#ifndef TBPROF_CONVERTERS_VIEWS_ALL_ALL_VIEWS_H_
#define TBPROF_CONVERTERS_VIEWS_ALL_ALL_VIEWS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/views/kernels/xspace_to_kernel_stats.h"
#include "converters/views/memory/xspace_to_memory_profile.h"
#include "converters/views/operators/xspace_to_operator_stats.h"
#include "converters/views/steps/xspace_to_step_db.h"
#include "converters/views/trace/xspace_to_trace_json.h"
#include "proto/distributed.pb.h"
#include "proto/input_pipeline.pb.h"
#include "proto/kernel_stats.pb.h"
#include "proto/memory_profile.pb.h"
#include "proto/operator_stats.pb.h"
#include "proto/overview_page.pb.h"
#include "src/base/phase_timings.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::logdir {
class RunWriter;
class StagedFileStream;
}

namespace tbprof::views {

// "device-only" / "with-host" (`--breakdown`), see xspace_to_step_db.h.
// Errors: kInvalidArgument naming the accepted values.
absl::StatusOr<Breakdown> ParseBreakdown(absl::string_view text);
absl::string_view BreakdownName(Breakdown breakdown);

struct ViewOptions {
  StepOptions steps;  // breakdown: kWithHost by default.
  KernelStatsOptions kernel_stats;
  MemoryProfileOptions memory_profile;
  // tbprof's own views (operators, modules, GEMM efficiency), computed after
  // the step analysis when set (by ComputeAllViews() and PrecomputedViewsJob,
  // whose caller puts them in the views file, converters/report/views_file.h).
  bool operator_views = true;
  OperatorStatsOptions operators;
  // Also run the step analysis with the other breakdown and keep its summary
  // (AllViews::other_breakdown), so that a report can say how its numbers
  // relate to xprof's (device-only) overview. Costs a second step analysis;
  // `tbprof report` sets it, `convert` does not.
  bool compare_breakdowns = false;
  // ComputeAllViews() on two threads (the kernel stats and the memory
  // profile beside the step analysis); the views are the same either way.
  // (PrecomputedViewsJob always uses threads.)
  bool parallel = true;
  // With `parallel`, ComputeAllViews() (`tbprof report`) also runs the op
  // tree views on the second thread, beside the step analysis, when the
  // space's events and stats take at most this many bytes
  // (ModelEventBytes()): their temporaries are then a few tens of MB and the
  // wall time matters more. Above it they run after the step analysis, so
  // that the two largest sets of temporaries (each up to ~0.25x the model)
  // are never held at once. PrecomputedViewsJob (`convert`) always runs them
  // after the step analysis: the trace JSON already keeps the second core
  // busy there, so running them beside it saves no time.
  uint64_t side_by_side_max_model_bytes = uint64_t{256} << 20;
};

// Bytes of the space's events and stats in memory (Event and Stat vectors at
// their sizes, wide values included): what the views' temporaries scale with.
uint64_t ModelEventBytes(const xplane::XSpaceData& space);

// True when `options` let the op tree views run beside the step analysis on
// `space` (ViewOptions::side_by_side_max_model_bytes).
bool OperatorViewsBesideSteps(const xplane::XSpaceData& space, const ViewOptions& options);

// Step time and input time of one breakdown, averaged over the steps the
// input-pipeline analysis shows.
struct BreakdownSummary {
  Breakdown breakdown = Breakdown::kWithHost;
  int32_t num_steps = 0;       // 0: no steps (the numbers below are 0).
  double avg_step_ms = 0;
  double input_ms = 0;         // Per step: input_percent of avg_step_ms.
  double input_percent = 0;    // The analysis' input share (wait + host-to-device).
};

// The summary of an input-pipeline analysis computed with `breakdown`.
BreakdownSummary SummarizeBreakdown(Breakdown breakdown,
                                    const tensorflow::profiler::InputPipelineAnalysisResult& ipa);

// The views of one host, as the profile plugin's protos.
struct AllViews {
  // The breakdown the step views above were computed with, summarized.
  BreakdownSummary breakdown;
  // The other breakdown's summary, when ViewOptions::compare_breakdowns
  // (has_other_breakdown); device-only is what xprof's overview shows.
  bool has_other_breakdown = false;
  BreakdownSummary other_breakdown;
  tensorflow::profiler::OverviewPage overview;
  tensorflow::profiler::InputPipelineAnalysisResult input_pipeline;
  tensorflow::profiler::KernelStatsDb kernel_stats;
  tensorflow::profiler::MemoryProfile memory_profile;
  // tbprof's own (proto/operator_stats.proto); empty unless computed.
  tbprof::OperatorStats operators;
  tbprof::ModuleStats modules;
  tbprof::GemmEfficiency gemm_efficiency;
  // Per GPU over the steps: utilization, SM efficiency, occupancy, Tensor
  // Core share (converters/views/kernels/gpu_summary.h); with the steps.
  tbprof::GpuSummary gpu_summary;
  // This host's part of the distributed view (xspace_to_rank_comms.h); the
  // run's view combines those of all hosts (distributed_view.h).
  tbprof::RankComms rank_comms;
};

// A host's views with the host name they belong to (the <host> of
// <host>.xplane.pb), the unit of multi-host reports.
struct HostViews {
  std::string host;
  AllViews views;
  // The file the host was read from ("" if unknown), to name it in notes.
  std::string source;
};

// Computes every view of `space` (one host). The step analysis runs once and
// feeds both the overview page and the input-pipeline analysis; the op tree
// (op_tree.h) runs once and feeds the operator, module and GEMM views (when
// options.operator_views). Views without data come out empty (no steps, no
// kernels, no allocators) or, for tbprof's own, with a no_data_reason. Errors
// are those of the step analysis (kInvalidArgument for a space without any
// plane).
// `timings`, when not null, receives one phase per view.
absl::StatusOr<AllViews> ComputeAllViews(const xplane::XSpaceData& space,
                                         const ViewOptions& options = {},
                                         PhaseTimings* timings = nullptr);

// Suffixes of the legacy precomputed per-host files, in writing order:
// "overview_page.pb", "input_pipeline.pb", "kernel_stats.pb" (serialized
// protos), "memory_profile.json.gz" (gzipped proto-JSON as the plugin serves
// it), "trace.json.gz" (gzipped trace-viewer JSON of `space`, see
// xspace_to_trace_json.h; `trace_options` below caps its events).
std::vector<std::string> PrecomputedViewSuffixes();

// Writes "<run_dir>/<host>.<suffix>" for every suffix above, each atomically
// (temporary file + rename): a reader never sees a partial file, and on error
// the files of this call that were already published are removed again.
// `host` is used as given (sanitize it first, see logdir::SanitizeHostName);
// `run_dir` must exist. Without `overwrite`, an existing file is not touched
// and kAlreadyExists is returned. Returns the paths written.
absl::StatusOr<std::vector<std::string>> WritePrecomputedViews(
    const AllViews& views, const xplane::XSpaceData& space, const std::string& run_dir,
    absl::string_view host, bool overwrite, const TraceJsonOptions& trace_options = {});

// Stages the same files in `writer` (logdir/profile_logdir.h), so that they
// are published together with the host's xplane.pb by writer->Publish().
// `host` is sanitized by the writer. Errors: the writer's (kAlreadyExists
// without --force), kInternal if a view cannot be serialized.
absl::Status StagePrecomputedViews(const AllViews& views, const xplane::XSpaceData& space,
                                   absl::string_view host, logdir::RunWriter* writer,
                                   const TraceJsonOptions& trace_options = {});

// ComputeAllViews() and StagePrecomputedViews() split so that the views are
// computed while the caller does other work (`tbprof convert` serializes the
// xplane.pb meanwhile): Start() returns at once, with the trace-viewer JSON
// (the costliest file: text + gzip) produced on one background thread and
// the other views, with their files, on another. `space` is only read, so
// the caller may read it at the same time; it must outlive the job and must
// not change until Finish() returns or the job is destroyed.
class PrecomputedViewsJob {
 public:
  // `timings`, when not null, receives one phase per view (see
  // src/base/phase_timings.h); it must outlive the job.
  static std::unique_ptr<PrecomputedViewsJob> Start(const xplane::XSpaceData& space,
                                                    const ViewOptions& options = {},
                                                    const TraceJsonOptions& trace_options = {},
                                                    PhaseTimings* timings = nullptr);
  // Start() for staging in `writer`: the trace-viewer JSON, the one large
  // file, goes through gzip straight into its staged file
  // "<host>.trace.json.gz" (RunWriter::BeginHostFile(), called here, so on
  // the writer's thread) as it is produced and is never held in memory.
  // Finish() must then get the same `host` and `writer`; the other files
  // are staged there, in the same order as by Start(). The writer must
  // outlive the job.
  static std::unique_ptr<PrecomputedViewsJob> StartStaging(
      const xplane::XSpaceData& space, absl::string_view host, logdir::RunWriter* writer,
      const ViewOptions& options = {}, const TraceJsonOptions& trace_options = {},
      PhaseTimings* timings = nullptr);

  ~PrecomputedViewsJob();  // Waits for the background threads.
  PrecomputedViewsJob(const PrecomputedViewsJob&) = delete;
  PrecomputedViewsJob& operator=(const PrecomputedViewsJob&) = delete;

  // Waits for the views, then stages their files in `writer` as
  // StagePrecomputedViews() does. Call at most once. `views_out`, when not
  // null, receives the views. Errors: as ComputeAllViews() and
  // StagePrecomputedViews(); kFailedPrecondition for another host or writer
  // than StartStaging()'s. On error the trace file being staged is deleted.
  absl::Status Finish(absl::string_view host, logdir::RunWriter* writer,
                      AllViews* views_out = nullptr);

 private:
  struct State;
  explicit PrecomputedViewsJob(std::unique_ptr<State> state);
  void Join();
  // Finish() after Join(), less the cleanup.
  absl::Status StageFiles(absl::string_view host, logdir::RunWriter* writer);

  std::unique_ptr<State> state_;
};

// StartStaging() and Finish() in one call: the views with the trace JSON
// beside them.
absl::Status ComputeAndStagePrecomputedViews(const xplane::XSpaceData& space,
                                             absl::string_view host, logdir::RunWriter* writer,
                                             const ViewOptions& options = {},
                                             const TraceJsonOptions& trace_options = {},
                                             AllViews* views_out = nullptr);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_ALL_ALL_VIEWS_H_
