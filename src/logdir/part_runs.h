// The part runs of a run: "<run>_part<digits>", where `tbprof convert` and
// `tbprof watch` put the pieces of a host too large for TensorBoard in one
// file (tools/convert/convert_split.h, docs/tensorboard_limits.md).
//
// Replacing a host (--force) must not leave the pieces of an earlier, larger
// split beside the new ones: RemoveStalePartRunFiles() deletes the host's
// files in part runs that the new conversion did not write.
#ifndef TBPROF_SRC_LOGDIR_PART_RUNS_H_
#define TBPROF_SRC_LOGDIR_PART_RUNS_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::logdir {

// True if `name` is "<run>_part" followed by one or more ASCII digits.
bool IsPartRunName(absl::string_view name, absl::string_view run);

// The run that `name` is a part run of ("r" for "r_part2"), or "" when
// `name` does not end in "_part" and digits (or is nothing else).
std::string BaseRunOfPartRun(absl::string_view name);

// The names of the part runs of `run` that are directories in
// <logdir>/plugins/profile, sorted. Empty when that directory does not
// exist. Errors: kUnavailable (or kPermissionDenied) listing it, naming it.
absl::StatusOr<std::vector<std::string>> ListPartRuns(absl::string_view logdir,
                                                      absl::string_view run);

struct RemovedPartRunFiles {
  std::vector<std::string> files;  // Paths removed, in removal order.
  std::vector<std::string> dirs;   // Part-run directories removed (emptied here).
};

// For every host of `hosts` (sanitized names, as in HostFilePath()) and
// every suffix of `suffixes`, removes "<part_run_dir>/<host>.<suffix>" in
// every part run of `run` unless its path is in `keep` (the files just
// published). Only regular files are removed, never symlinks, directories or
// files of other names (other hosts, the plugin's caches). A part-run
// directory that this call emptied is removed too; one that was empty
// already, or still holds anything, is left. Goes on past errors; the first
// is returned (naming the path) after everything else was tried, and
// `*removed` (optional) lists what was removed either way.
absl::Status RemoveStalePartRunFiles(absl::string_view logdir, absl::string_view run,
                                     const std::vector<std::string>& hosts,
                                     const std::vector<std::string>& suffixes,
                                     const std::set<std::string>& keep,
                                     RemovedPartRunFiles* removed = nullptr);

}  // namespace tbprof::logdir

#endif  // TBPROF_SRC_LOGDIR_PART_RUNS_H_
