#include "converters/views/all_views.h"

#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "converters/views/op_stats_to_input_pipeline_analysis.h"
#include "converters/views/op_stats_to_overview_page.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "src/logdir/profile_logdir.h"

namespace tbprof::views {
namespace {

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

// `trace_json_gz`, when given, is the already computed trace file.
absl::StatusOr<std::vector<ViewFile>> BuildViewFiles(
    const AllViews& views, const xplane::XSpaceData& space, const TraceJsonOptions& trace_options,
    absl::StatusOr<std::string>* trace_json_gz = nullptr) {
  const std::vector<std::string> suffixes = PrecomputedViewSuffixes();
  std::vector<ViewFile> files(suffixes.size());
  for (size_t i = 0; i < suffixes.size(); ++i) files[i].suffix = suffixes[i];
  TBPROF_ASSIGN_OR_RETURN(files[0].contents, Serialize(views.overview));
  TBPROF_ASSIGN_OR_RETURN(files[1].contents, Serialize(views.input_pipeline));
  TBPROF_ASSIGN_OR_RETURN(files[2].contents, Serialize(views.kernel_stats));
  TBPROF_ASSIGN_OR_RETURN(std::string memory_json, MemoryProfileToJson(views.memory_profile));
  TBPROF_ASSIGN_OR_RETURN(files[3].contents, GzipCompress(memory_json));
  if (trace_json_gz != nullptr) {
    TBPROF_RETURN_IF_ERROR(trace_json_gz->status());
    files[4].contents = std::move(**trace_json_gz);
  } else {
    TBPROF_ASSIGN_OR_RETURN(files[4].contents, ConvertXSpaceToTraceJsonGz(space, trace_options));
  }
  return files;
}

}  // namespace

absl::StatusOr<Breakdown> ParseBreakdown(absl::string_view text) {
  if (text == "device-only") return Breakdown::kDeviceOnly;
  if (text == "with-host") return Breakdown::kWithHost;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown breakdown \"", text, "\" (expected device-only or with-host)"));
}

absl::string_view BreakdownName(Breakdown breakdown) {
  return breakdown == Breakdown::kDeviceOnly ? "device-only" : "with-host";
}

absl::StatusOr<AllViews> ComputeAllViews(const xplane::XSpaceData& space,
                                         const ViewOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(StepAnalysis analysis,
                          ConvertXSpaceToStepAnalysis(space, options.steps));
  AllViews views;
  views.overview = ConvertStepAnalysisToOverviewPage(analysis);
  views.input_pipeline = ConvertOpStatsToInputPipelineAnalysis(analysis.op_stats);
  views.kernel_stats = ConvertXSpaceToKernelStatsDb(space, options.kernel_stats);
  views.memory_profile = ConvertXSpaceToMemoryProfile(space, options.memory_profile);
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

absl::Status ComputeAndStagePrecomputedViews(const xplane::XSpaceData& space,
                                             absl::string_view host, logdir::RunWriter* writer,
                                             const ViewOptions& options,
                                             const TraceJsonOptions& trace_options,
                                             AllViews* views_out) {
  absl::StatusOr<std::string> trace_json_gz = absl::InternalError("trace JSON not computed");
  std::thread trace_thread(
      [&] { trace_json_gz = ConvertXSpaceToTraceJsonGz(space, trace_options); });
  absl::StatusOr<AllViews> views = ComputeAllViews(space, options);
  trace_thread.join();
  TBPROF_RETURN_IF_ERROR(views.status());
  TBPROF_ASSIGN_OR_RETURN(std::vector<ViewFile> files,
                          BuildViewFiles(*views, space, trace_options, &trace_json_gz));
  for (const ViewFile& file : files) {
    TBPROF_RETURN_IF_ERROR(writer->StageHostFile(host, file.suffix, file.contents).status());
  }
  if (views_out != nullptr) *views_out = *std::move(views);
  return absl::OkStatus();
}

}  // namespace tbprof::views
