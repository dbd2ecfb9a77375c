// Staging and publishing the xplane.pb of hosts under the TensorBoard budget
// (--tensorboard-budget-mb): a host that fits is staged whole in its run, a
// larger one is split into runs <run>_part1..N (convert_split.h). Shared by
// `tbprof convert` and `tbprof watch`, so that both split alike and say so
// in the same words.
#ifndef TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_STAGE_H_
#define TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_STAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "src/base/phase_timings.h"
#include "src/logdir/part_runs.h"
#include "src/logdir/profile_logdir.h"
#include "src/xplane/xspace_data.h"
#include "tools/convert/convert_split.h"

namespace tbprof::cli {

// The budget of each host's file: a tool request for one host reads that
// host's file only, so each host opens within the budget however many hosts
// the run has (all_hosts_needs.h says what the all-hosts views need), and
// processes converting ranks separately split them as one process would.
struct TensorBoardBudget {
  // --tensorboard-budget-mb; 0 = never split.
  int64_t budget_mb = kDefaultTensorBoardBudgetMb;

  uint64_t budget_bytes() const { return static_cast<uint64_t>(budget_mb) << 20; }
  // The largest xplane.pb staged whole; 0 = no limit.
  uint64_t max_file_bytes() const;
};

// The usage error for a bad --tensorboard-budget-mb, or "" when `mb` is fine.
std::string CheckTensorBoardBudgetFlag(int64_t mb);

// What PublishRunWithParts() removed after publishing.
struct StaleFilesRemoved {
  logdir::RemovedPartRunFiles removed;
  // The first error removing them (naming the path); the new files are
  // published all the same.
  absl::Status status;
};

// The writers of the part runs <run>_partK of one run, opened on first use
// with the options of the run's own writer. Not thread-safe.
class PartRunWriters {
 public:
  PartRunWriters(std::string logdir, std::string run, logdir::RunWriterOptions options);

  // The writer of `part_run`, opened now if need be. Errors: RunWriter::Open's.
  absl::StatusOr<logdir::RunWriter*> Writer(const std::string& part_run);

  const std::string& logdir() const { return logdir_; }
  const std::string& run() const { return run_; }
  bool empty() const { return writers_.empty(); }

 private:
  friend absl::Status PublishRunWithParts(logdir::RunWriter*, PartRunWriters*,
                                          const std::vector<std::string>&,
                                          const std::vector<std::string>&, StaleFilesRemoved*);
  std::string logdir_;
  std::string run_;
  logdir::RunWriterOptions options_;
  std::map<std::string, std::unique_ptr<logdir::RunWriter>> writers_;
};

struct StagedHostXSpace {
  // <run_dir>/<host>.xplane.pb; for a split host
  // <logdir>/plugins/profile/<run>_part1..N/<host>.xplane.pb.
  std::string output_path;
  uint64_t bytes = 0;  // Of the file, or of all parts.
  std::optional<SplitReport> split;
};

// Stages the xplane.pb of `host` (as given; sanitized by the writers): whole
// in `writer` when its estimated size fits budget.max_file_bytes(), else
// split at step boundaries (by time without steps) into part runs of
// `parts` (which must name the same logdir and run as `writer`). A host
// over the budget with nothing to cut at is staged whole, with a warning on
// stderr. `timings` (optional) receives the phases. Errors: staging's; what
// was staged stays with the writers (their destructors remove it).
absl::StatusOr<StagedHostXSpace> StageHostXSpace(const xplane::XSpaceData& space,
                                                 const std::string& host,
                                                 const TensorBoardBudget& budget,
                                                 logdir::RunWriter* writer,
                                                 PartRunWriters* parts,
                                                 PhaseTimings* timings = nullptr);

// Publishes the part runs, then `main` (aborted instead when it staged
// nothing but there are parts: every host was split and has no views, so no
// empty <run>). Parts first: should the main run then fail, the parts
// published are complete and each opens on its own.
//
// When the writers replace files (RunWriterOptions::force), then removes
// what an earlier conversion of `hosts` (as given to StageHostXSpace) left
// that this one did not write: their tbprof files (the xplane.pb and the
// precomputed views) in part runs of the run (logdir::
// RemoveStalePartRunFiles), and the whole <run>/<host>.xplane.pb of
// `split_hosts` (split now). This comes after publishing, so an error
// earlier leaves the old state. Errors: publishing's (then nothing is
// removed). `*stale` (optional) says what was removed.
absl::Status PublishRunWithParts(logdir::RunWriter* main, PartRunWriters* parts,
                                 const std::vector<std::string>& hosts,
                                 const std::vector<std::string>& split_hosts,
                                 StaleFilesRemoved* stale = nullptr);

// For stderr: one line per file removed, "tbprof: removed stale PATH
// (--force)", and a warning for a failed removal.
std::string FormatStaleFilesRemoved(const StaleFilesRemoved& stale);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_CONVERT_CONVERT_SPLIT_STAGE_H_
