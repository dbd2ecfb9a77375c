// One file of `tbprof watch` into the log directory, through the same
// library calls `tbprof convert FILE --logdir LOGDIR --run RUN [--host HOST]`
// makes (LoadInput, logdir::RunWriter, views::PrecomputedViewsJob, and the
// TensorBoard split of convert_split_stage.h), without starting another
// process.
#ifndef TBPROF_TOOLS_WATCH_WATCH_CONVERT_H_
#define TBPROF_TOOLS_WATCH_WATCH_CONVERT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "tools/convert/convert_split.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::cli {

struct ConvertIntoRunOptions {
  // Limits and step mode (`progress` is not used).
  LoadOptions load;
  // Write the precomputed view files for old plugins too (`--no-views`).
  bool views = true;
  // --tensorboard-budget-mb (0 = never split). Each file is judged alone,
  // as the only host of its run: the other files of its run may not exist
  // yet when it is converted.
  int64_t tensorboard_budget_mb = kDefaultTensorBoardBudgetMb;
  // Asked after loading, before anything is written; returning true
  // abandons the file (nothing written, kCancelled).
  std::function<bool()> cancelled;
};

struct ConvertIntoRunResult {
  std::string host;
  // <run_dir>/<host>.xplane.pb, or for a split host
  // <logdir>/plugins/profile/<run>_part1..N/<host>.xplane.pb.
  std::string output_path;
  // Set when the host was split into runs <run>_partK for TensorBoard.
  std::optional<SplitReport> split;
  int64_t events = 0;
  // What the steps came from, one line (converters::StepsResult::message).
  std::string steps_message;
};

// Where a failure came from: the input (the file is bad) or the logdir.
enum class ConvertFailure { kNone, kInput, kOutput };

// Converts `path` into <logdir>/plugins/profile/<run>/<host>.xplane.pb and,
// with `views`, the precomputed view files beside it. A host too large for
// TensorBoard's budget goes to runs <run>_part1..N instead, as in convert
// (its views stay in <run>). `host` "" picks the host from the data as
// `tbprof convert` does (the trace's host name, else the file stem). All
// files of the host are staged and published together: on any error or
// cancellation nothing new is left in the logdir, and directories created
// for it are removed again.
// Errors: those of LoadInput (naming `path`); kInvalidArgument for a file
// without any trace event; kAlreadyExists when the host file or one of its
// parts exists; write errors (naming the logdir path). `*failure` (optional) says which side
// failed.
absl::StatusOr<ConvertIntoRunResult> ConvertIntoRun(const std::string& path,
                                                    const std::string& logdir,
                                                    const std::string& run,
                                                    const std::string& host,
                                                    const ConvertIntoRunOptions& options,
                                                    ConvertFailure* failure = nullptr);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_WATCH_WATCH_CONVERT_H_
