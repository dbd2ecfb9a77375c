// The inputs of the commands that show views (`tbprof report`, `tbprof
// diff`): command-line arguments resolved to files, each file loaded and its
// views computed, one host per file.
//
// An argument is a trace or XSpace file, a directory of traces (one host per
// file), a logdir run directory (one host per <host>.xplane.pb) or a log
// directory (its most recent run by name).
//
// A run that `tbprof convert` split for TensorBoard (part runs RUN_part1..N,
// src/logdir/part_runs.h) is one job: the run, the log directory or any of
// its parts stands for the run with all its parts, each host once, its parts
// merged back into one space; a run named twice is read once.
#ifndef TBPROF_TOOLS_TBPROF_VIEW_INPUTS_H_
#define TBPROF_TOOLS_TBPROF_VIEW_INPUTS_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "converters/views/summary/report_model.h"
#include "converters/views/all/all_views.h"
#include "src/base/phase_timings.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::cli {

// One file to load and the host name to give it ("" = pick from the data).
struct ViewSource {
  std::string path;
  std::string host;
  // For a host split into part runs: parts 2..N after `path` (part 1), to be
  // merged with it (xplane::MergeXSpaceParts).
  std::vector<std::string> more_parts;
};

// Expands the command-line inputs into files. A log directory with several
// runs prints a line on stderr naming the run it uses; a part run, one
// naming the run it is part of; a run or a file given twice (also through
// its directory), one saying so, and it is read once. `*description`
// (optional) receives "INPUT" or "INPUT and N more", for titles. Errors:
// kNotFound (a path does not exist or a log directory has no runs),
// kInvalidArgument (a directory holds no trace files); each names the path.
absl::StatusOr<std::vector<ViewSource>> ResolveViewInputs(const std::vector<std::string>& inputs,
                                                          std::string* description = nullptr);

// LoadInput() of `source.path`, and of its other parts merged into one space
// (file_bytes: of all parts). Errors: LoadInput()'s; a merge error names
// `source.path`.
absl::StatusOr<LoadedInput> LoadViewSource(const ViewSource& source, const LoadOptions& options);

struct ViewInputsOptions {
  // Limits and step mode for each file; `progress` is ignored (see `quiet`).
  LoadOptions load;
  views::ViewOptions views;
  // No progress display on stderr.
  bool quiet = false;
  // Shown before the file name in the progress display.
  std::string progress_verb = "reading";
  // Where the load and view phases of every file are timed (optional; not
  // owned).
  PhaseTimings* timings = nullptr;
  // With several files and `failed` set: a file that cannot be loaded or
  // analysed is appended to `*failed` (its error, naming it) and left out,
  // and the others are used (not owned). Null (or a single file): the first
  // failure is the result, as with --strict.
  std::vector<absl::Status>* failed = nullptr;
};

// Receives each host's views as soon as they are computed (the file's space
// already freed), with the appendix its input gives (a memory snapshot's),
// in report order. An error ends ForEachViewInput() with that error.
using ViewInputConsumer = std::function<absl::Status(
    views::HostViews host, std::optional<views::ReportAppendix> appendix)>;

// ResolveViewInputs() (`*description` as there), then LoadInput() and
// ComputeAllViews() for each file, one file at a time, each host handed to
// `consume` and not kept, with host names handed out as `tbprof convert`
// does (HostNamer). Returns how many hosts were handed over. Errors: as
// LoadViewInputs(), and `consume`'s.
absl::StatusOr<size_t> ForEachViewInput(const std::vector<std::string>& inputs,
                                         const ViewInputsOptions& options,
                                         const ViewInputConsumer& consume,
                                         std::string* description = nullptr);

// ResolveViewInputs(), then LoadInput() and ComputeAllViews() for each file,
// with host names handed out as `tbprof convert` does (HostNamer). The
// result's `source` is the description above. Errors: the first failing
// file's, naming it, unless options.failed collects the failures (then only
// when every file failed: kInvalidArgument, "none of the N inputs ...").
// Every host kept (ForEachViewInput() collecting them).
absl::StatusOr<views::ReportInput> LoadViewInputs(const std::vector<std::string>& inputs,
                                                  const ViewInputsOptions& options);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_VIEW_INPUTS_H_
