#include "converters/views/all/all_views.h"

#include <atomic>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "converters/views/steps/op_stats_to_input_pipeline_analysis.h"
#include "converters/views/steps/op_stats_to_overview_page.h"
#include "converters/views/distributed/xspace_to_rank_comms.h"
#include "converters/views/kernels/gpu_summary.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::views {
namespace {

// Index of "trace.json.gz" in PrecomputedViewSuffixes(), the one large file.
constexpr size_t kTraceFile = 4;

struct ViewFile {
  std::string suffix;
  std::string contents;
};

absl::StatusOr<std::string> Serialize(const google::protobuf::Message& message) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return absl::InternalError(absl::StrCat("cannot serialize ", message.GetTypeName()));
  }
  return bytes;
}

// The steps' time windows, over which the GPU summary is computed, as
// torch-tb-profiler does.
std::vector<TimeInterval> StepWindows(const tensorflow::profiler::StepDatabaseResult& step_db) {
  std::vector<TimeInterval> windows;
  for (const StepSpan& step : StepSpansOnFirstCore(step_db)) {
    windows.push_back({step.begin_ps, step.begin_ps + step.duration_ps});
  }
  return windows;
}

// The step analysis and the views only it feeds: overview page and
// input-pipeline analysis (one analysis for both) and the breakdown
// summaries. `step_db` receives the analysed steps, for the views over their
// time windows (distributed view, GPU summary).
absl::Status ComputeStepAnalysisViews(const xplane::XSpaceData& space, const ViewOptions& options,
                                      AllViews* views,
                                      tensorflow::profiler::StepDatabaseResult* step_db) {
  TBPROF_ASSIGN_OR_RETURN(
      StepAnalyses analyses,
      ConvertXSpaceToStepAnalyses(space, options.steps, options.compare_breakdowns));
  StepAnalysis& analysis = analyses.analysis;
  views->overview = ConvertStepAnalysisToOverviewPage(analysis);
  views->input_pipeline = ConvertOpStatsToInputPipelineAnalysis(analysis.op_stats);
  views->breakdown = SummarizeBreakdown(options.steps.breakdown, views->input_pipeline);
  if (analyses.has_other) {
    // The other breakdown's steps come from the same passes over the events.
    views->other_breakdown =
        SummarizeBreakdown(analyses.other.breakdown,
                           ConvertOpStatsToInputPipelineAnalysis(analyses.other.op_stats));
    views->has_other_breakdown = true;
  }
  *step_db = std::move(*analysis.op_stats.mutable_step_db());
  return absl::OkStatus();
}

// The step-based views, one after the other on this thread.
absl::Status ComputeStepViews(const xplane::XSpaceData& space, const ViewOptions& options,
                              PhaseTimings* timings, AllViews* views) {
  ScopedPhase phase(timings, "views: steps+overview+input");
  tensorflow::profiler::StepDatabaseResult step_db;
  TBPROF_RETURN_IF_ERROR(ComputeStepAnalysisViews(space, options, views, &step_db));
  views->rank_comms = ConvertXSpaceToRankComms(space, step_db);
  views->gpu_summary = ComputeGpuSummary(space, StepWindows(step_db));
  return absl::OkStatus();
}

// tbprof's own views from the op tree, when options.operator_views.
void ComputeOperatorViews(const xplane::XSpaceData& space, const ViewOptions& options,
                          PhaseTimings* timings, AllViews* views) {
  if (!options.operator_views) return;
  ScopedPhase phase(timings, "views: operators+modules+gemm");
  OperatorViews ops = ConvertXSpaceToOperatorViews(space, options.operators);
  views->operators = std::move(ops.operators);
  views->modules = std::move(ops.modules);
  views->gemm_efficiency = std::move(ops.gemm_efficiency);
}

void ComputeKernelAndMemoryViews(const xplane::XSpaceData& space, const ViewOptions& options,
                                 PhaseTimings* timings, AllViews* views) {
  {
    ScopedPhase phase(timings, "views: kernel stats");
    views->kernel_stats = ConvertXSpaceToKernelStatsDb(space, options.kernel_stats);
  }
  ScopedPhase phase(timings, "views: memory profile");
  views->memory_profile = ConvertXSpaceToMemoryProfile(space, options.memory_profile);
}

// File contents of the step-based views (overview, input pipeline).
absl::Status SerializeStepViews(const AllViews& views, std::vector<ViewFile>* files) {
  TBPROF_ASSIGN_OR_RETURN((*files)[0].contents, Serialize(views.overview));
  TBPROF_ASSIGN_OR_RETURN((*files)[1].contents, Serialize(views.input_pipeline));
  return absl::OkStatus();
}

// File contents of the kernel-stats and memory-profile views.
absl::Status SerializeKernelAndMemoryViews(const AllViews& views, std::vector<ViewFile>* files) {
  TBPROF_ASSIGN_OR_RETURN((*files)[2].contents, Serialize(views.kernel_stats));
  TBPROF_ASSIGN_OR_RETURN(std::string memory_json, MemoryProfileToJson(views.memory_profile));
  TBPROF_ASSIGN_OR_RETURN((*files)[3].contents, GzipCompress(memory_json));
  return absl::OkStatus();
}

// One entry per PrecomputedViewSuffixes() suffix, contents empty.
std::vector<ViewFile> EmptyViewFiles() {
  std::vector<ViewFile> files;
  for (std::string& suffix : PrecomputedViewSuffixes()) files.push_back({std::move(suffix), ""});
  return files;
}

absl::StatusOr<std::vector<ViewFile>> BuildViewFiles(const AllViews& views,
                                                     const xplane::XSpaceData& space,
                                                     const TraceJsonOptions& trace_options) {
  std::vector<ViewFile> files = EmptyViewFiles();
  TBPROF_RETURN_IF_ERROR(SerializeStepViews(views, &files));
  TBPROF_RETURN_IF_ERROR(SerializeKernelAndMemoryViews(views, &files));
  TBPROF_ASSIGN_OR_RETURN(files[kTraceFile].contents,
                          ConvertXSpaceToTraceJsonGz(space, trace_options));
  return files;
}

}  // namespace

BreakdownSummary SummarizeBreakdown(Breakdown breakdown,
                                    const tensorflow::profiler::InputPipelineAnalysisResult& ipa) {
  BreakdownSummary s;
  s.breakdown = breakdown;
  s.num_steps = ipa.step_details_size();
  if (s.num_steps == 0) return s;
  s.avg_step_ms = ipa.step_time_summary().average();
  s.input_percent = ipa.input_percent();
  s.input_ms = s.avg_step_ms * s.input_percent / 100.0;
  return s;
}

absl::StatusOr<Breakdown> ParseBreakdown(absl::string_view text) {
  if (text == "device-only") return Breakdown::kDeviceOnly;
  if (text == "with-host") return Breakdown::kWithHost;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown breakdown \"", text, "\" (expected device-only or with-host)"));
}

absl::string_view BreakdownName(Breakdown breakdown) {
  return breakdown == Breakdown::kDeviceOnly ? "device-only" : "with-host";
}

uint64_t ModelEventBytes(const xplane::XSpaceData& space) {
  uint64_t bytes = 0;
  for (const xplane::Plane& plane : space.planes) {
    bytes += plane.wide_values.size() * sizeof(uint64_t);
    for (const xplane::Line& line : plane.lines) {
      bytes += line.events.size() * sizeof(xplane::Event) + line.stats.size() * sizeof(xplane::Stat);
    }
  }
  return bytes;
}

bool OperatorViewsBesideSteps(const xplane::XSpaceData& space, const ViewOptions& options) {
  return options.parallel && options.operator_views &&
         ModelEventBytes(space) <= options.side_by_side_max_model_bytes;
}

absl::StatusOr<AllViews> ComputeAllViews(const xplane::XSpaceData& space,
                                         const ViewOptions& options, PhaseTimings* timings) {
  // The views only read `space`, and each writes its own members of `views`.
  // With options.parallel, the kernel stats and the memory profile are
  // computed on a second thread while this one runs the step analysis. The
  // step analysis and the op tree have the largest temporaries (16 B spans
  // for device events and for the host events no enclosing span covers,
  // 12 B per launch and 2 B per host event while grouping, in the step
  // analysis; 20 B per op call, 24 B per call with device time and 12 B per
  // launch in the op tree; see docs/benchmarks.md), so on a large space the
  // op tree views come after both, keeping the peak memory lower; on a small
  // one (OperatorViewsBesideSteps) the second thread runs them too, beside
  // the step analysis. The memory profile's temporaries (32 B per memory
  // event) fit beside the step analysis'.
  AllViews views;
  const bool ops_beside_steps = OperatorViewsBesideSteps(space, options);
  if (ops_beside_steps) {
    // The step analysis on this thread; on the other, kernel stats, memory
    // profile and the op tree views. The collective calls of the
    // distributed view (all of it but the steps' windows) go to whichever
    // thread is done first; the GPU summary follows the steps here.
    RankCommsEvents rank_events;
    std::atomic<bool> rank_events_taken{false};
    auto collect_rank_events = [&] {
      if (rank_events_taken.exchange(true)) return;
      ScopedPhase phase(timings, "views: rank comms (events)");
      rank_events = CollectRankCommsEvents(space);
    };
    std::thread worker([&] {
      ComputeKernelAndMemoryViews(space, options, timings, &views);
      ComputeOperatorViews(space, options, timings, &views);
      collect_rank_events();
    });
    tensorflow::profiler::StepDatabaseResult step_db;
    absl::Status steps_status;
    {
      ScopedPhase phase(timings, "views: steps+overview+input");
      steps_status = ComputeStepAnalysisViews(space, options, &views, &step_db);
    }
    if (steps_status.ok()) {
      collect_rank_events();
      ScopedPhase phase(timings, "views: GPU summary");
      views.gpu_summary = ComputeGpuSummary(space, StepWindows(step_db));
    }
    worker.join();
    TBPROF_RETURN_IF_ERROR(steps_status);
    ScopedPhase phase(timings, "views: rank comms (steps)");
    views.rank_comms = FinishRankComms(std::move(rank_events), step_db);
    return views;
  }
  absl::Status steps_status;
  if (options.parallel) {
    std::thread worker([&] { ComputeKernelAndMemoryViews(space, options, timings, &views); });
    steps_status = ComputeStepViews(space, options, timings, &views);
    worker.join();
  } else {
    steps_status = ComputeStepViews(space, options, timings, &views);
    if (steps_status.ok()) ComputeKernelAndMemoryViews(space, options, timings, &views);
  }
  TBPROF_RETURN_IF_ERROR(steps_status);
  ComputeOperatorViews(space, options, timings, &views);
  return views;
}

std::vector<std::string> PrecomputedViewSuffixes() {
  return {"overview_page.pb", "input_pipeline.pb", "kernel_stats.pb", "memory_profile.json.gz",
          "trace.json.gz"};
}

absl::StatusOr<std::vector<std::string>> WritePrecomputedViews(
    const AllViews& views, const xplane::XSpaceData& space, const std::string& run_dir,
    absl::string_view host, bool overwrite, const TraceJsonOptions& trace_options) {
  if (!overwrite) {
    for (const std::string& suffix : PrecomputedViewSuffixes()) {
      const std::string path = logdir::HostFilePath(run_dir, host, suffix);
      if (access(path.c_str(), F_OK) == 0) {
        return absl::AlreadyExistsError(
            absl::StrCat(path, ": already exists (use --force to replace it)"));
      }
    }
  }
  TBPROF_ASSIGN_OR_RETURN(std::vector<ViewFile> files,
                          BuildViewFiles(views, space, trace_options));
  // Write every temporary file first, then publish them one by one; on a
  // failed publish, take back the ones this call already published.
  std::vector<std::unique_ptr<AtomicOutputFile>> outputs;
  for (const ViewFile& file : files) {
    TBPROF_ASSIGN_OR_RETURN(auto out, AtomicOutputFile::Create(
                                          logdir::HostFilePath(run_dir, host, file.suffix)));
    TBPROF_RETURN_IF_ERROR(out->Append(file.contents));
    outputs.push_back(std::move(out));
  }
  std::vector<std::string> written;
  for (auto& out : outputs) {
    const absl::Status status = out->Commit(overwrite ? AtomicOutputFile::Overwrite::kReplace
                                                      : AtomicOutputFile::Overwrite::kRefuse);
    if (!status.ok()) {
      for (const std::string& path : written) unlink(path.c_str());
      return status;
    }
    written.push_back(out->target_path());
  }
  return written;
}

absl::Status StagePrecomputedViews(const AllViews& views, const xplane::XSpaceData& space,
                                   absl::string_view host, logdir::RunWriter* writer,
                                   const TraceJsonOptions& trace_options) {
  TBPROF_ASSIGN_OR_RETURN(std::vector<ViewFile> files,
                          BuildViewFiles(views, space, trace_options));
  for (const ViewFile& file : files) {
    TBPROF_RETURN_IF_ERROR(writer->StageHostFile(host, file.suffix, file.contents).status());
  }
  return absl::OkStatus();
}

// Each background thread writes only its own members: the trace thread
// `trace_status` and files[4] (or `trace_stream`); the steps thread
// `steps_status`, the step views and files[0..1]; the kernels thread
// `kernels_status`, the other views and files[2..3]. Finish() reads them all
// after joining.
struct PrecomputedViewsJob::State {
  const xplane::XSpaceData* space;
  ViewOptions options;
  TraceJsonOptions trace_options;
  PhaseTimings* timings;
  AllViews views;
  std::vector<ViewFile> files = EmptyViewFiles();
  absl::Status trace_status, steps_status, kernels_status;
  // StartStaging() only: where files[4] is streamed instead, or why it
  // could not be begun (reported where Finish() stages files[4]).
  logdir::RunWriter* writer = nullptr;
  std::string host;
  std::unique_ptr<logdir::StagedFileStream> trace_stream;
  absl::Status trace_begin_status;
  std::vector<std::thread> threads;
};

PrecomputedViewsJob::PrecomputedViewsJob(std::unique_ptr<State> state)
    : state_(std::move(state)) {}

PrecomputedViewsJob::~PrecomputedViewsJob() { Join(); }

void PrecomputedViewsJob::Join() {
  for (std::thread& thread : state_->threads) {
    if (thread.joinable()) thread.join();
  }
}

std::unique_ptr<PrecomputedViewsJob> PrecomputedViewsJob::Start(
    const xplane::XSpaceData& space, const ViewOptions& options,
    const TraceJsonOptions& trace_options, PhaseTimings* timings) {
  return StartStaging(space, "", nullptr, options, trace_options, timings);
}

std::unique_ptr<PrecomputedViewsJob> PrecomputedViewsJob::StartStaging(
    const xplane::XSpaceData& space, absl::string_view host, logdir::RunWriter* writer,
    const ViewOptions& options, const TraceJsonOptions& trace_options, PhaseTimings* timings) {
  auto state = std::make_unique<State>();
  state->space = &space;
  state->options = options;
  state->trace_options = trace_options;
  state->timings = timings;
  State* s = state.get();
  if (writer != nullptr) {
    s->writer = writer;
    s->host = std::string(host);
    absl::StatusOr<std::unique_ptr<logdir::StagedFileStream>> stream =
        writer->BeginHostFile(host, s->files[kTraceFile].suffix);
    if (stream.ok()) {
      s->trace_stream = *std::move(stream);
    } else {
      s->trace_begin_status = stream.status();
    }
  }
  s->threads.emplace_back([s] {
    if (s->writer != nullptr && s->trace_stream == nullptr) return;  // Could not begin.
    ScopedPhase phase(s->timings, "views: trace JSON (gzip)");
    if (s->trace_stream != nullptr) {
      logdir::StagedFileStream* stream = s->trace_stream.get();
      s->trace_status = WriteXSpaceAsTraceJsonGzTo(*s->space, s->trace_options,
                                                   [stream](absl::string_view bytes) {
                                                     return stream->Append(bytes);
                                                   })
                            .status();
      return;
    }
    absl::StatusOr<std::string> gz = ConvertXSpaceToTraceJsonGz(*s->space, s->trace_options);
    s->trace_status = gz.status();
    if (gz.ok()) s->files[kTraceFile].contents = *std::move(gz);
  });
  s->threads.emplace_back([s] {
    s->steps_status = ComputeStepViews(*s->space, s->options, s->timings, &s->views);
    if (s->steps_status.ok()) s->steps_status = SerializeStepViews(s->views, &s->files);
    // After the step analysis, whose temporaries are gone by then: beside
    // the trace JSON and the loaded model, running them beside it gains no
    // wall time on two cores and costs ~0.04x the JSON in peak memory.
    if (s->steps_status.ok()) ComputeOperatorViews(*s->space, s->options, s->timings, &s->views);
  });
  s->threads.emplace_back([s] {
    ComputeKernelAndMemoryViews(*s->space, s->options, s->timings, &s->views);
    ScopedPhase phase(s->timings, "views: serialize kernels+memory");
    s->kernels_status = SerializeKernelAndMemoryViews(s->views, &s->files);
  });
  return std::unique_ptr<PrecomputedViewsJob>(new PrecomputedViewsJob(std::move(state)));
}

absl::Status PrecomputedViewsJob::Finish(absl::string_view host, logdir::RunWriter* writer,
                                         AllViews* views_out) {
  Join();
  State& s = *state_;
  absl::Status status = StageFiles(host, writer);
  if (s.trace_stream != nullptr) s.writer->AbandonHostFile(std::move(s.trace_stream));
  TBPROF_RETURN_IF_ERROR(status);
  if (views_out != nullptr) *views_out = std::move(s.views);
  return absl::OkStatus();
}

absl::Status PrecomputedViewsJob::StageFiles(absl::string_view host, logdir::RunWriter* writer) {
  State& s = *state_;
  if (s.writer != nullptr && (writer != s.writer || host != s.host)) {
    return absl::FailedPreconditionError(
        "PrecomputedViewsJob::Finish() with another host or writer than StartStaging()");
  }
  TBPROF_RETURN_IF_ERROR(s.steps_status);
  TBPROF_RETURN_IF_ERROR(s.kernels_status);
  TBPROF_RETURN_IF_ERROR(s.trace_status);
  for (size_t i = 0; i < s.files.size(); ++i) {
    const ViewFile& file = s.files[i];
    if (i == kTraceFile && s.writer != nullptr) {
      TBPROF_RETURN_IF_ERROR(s.trace_begin_status);
      TBPROF_RETURN_IF_ERROR(writer->FinishHostFile(std::move(s.trace_stream)).status());
      continue;
    }
    TBPROF_RETURN_IF_ERROR(writer->StageHostFile(host, file.suffix, file.contents).status());
  }
  return absl::OkStatus();
}

absl::Status ComputeAndStagePrecomputedViews(const xplane::XSpaceData& space,
                                             absl::string_view host, logdir::RunWriter* writer,
                                             const ViewOptions& options,
                                             const TraceJsonOptions& trace_options,
                                             AllViews* views_out) {
  return PrecomputedViewsJob::StartStaging(space, host, writer, options, trace_options)
      ->Finish(host, writer, views_out);
}

}  // namespace tbprof::views
