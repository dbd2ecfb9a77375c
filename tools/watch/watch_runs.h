// Which logdir run and host `tbprof watch` gives each trace file.
//
// torch.profiler.tensorboard_trace_handler writes one file per worker
// (rank) and profiling cycle, named
//     <worker>.<timestamp>.pt.trace.json[.gz]
// where <worker> defaults to "<hostname>_<pid>" and <timestamp> is the time
// of the export in ns (older torch: ms). The files of one cycle carry close
// but different timestamps (each rank takes its own), so they are grouped:
//
//  * A file joins the group whose first timestamp is nearest to its own,
//    when that is at most `window_ms` away and the group has no file of the
//    same worker yet; otherwise it starts a new group.
//  * A group is one run, named after its first timestamp in local time,
//    "YYYY_MM_DD_HH_MM_SS" as the profile plugin names runs (with "_2",
//    "_3"... for a later group of the same second); each file is one host,
//    named after its worker.
//  * Other file names get a run of their own, named after the file without
//    its suffixes ("model.xplane.pb" -> run "model"), and the host name the
//    data suggests (as `tbprof convert` picks it). A name that would read as
//    a part run of another run ("model_part2", see src/logdir/part_runs.h)
//    becomes "model-part2": readers take RUN_partN for a piece of RUN.
//
// Placement depends only on the files seen and their order; the watcher
// places files in timestamp order, so the same files get the same runs
// after a restart.
#ifndef TBPROF_TOOLS_WATCH_WATCH_RUNS_H_
#define TBPROF_TOOLS_WATCH_WATCH_RUNS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tbprof::cli {

struct TorchTraceName {
  std::string worker;
  int64_t timestamp_ms = 0;
};

// Parses "<worker>.<digits>.pt.trace.json[.gz]" (the worker may contain
// dots). The digits are read as ns (18 or more digits), us (15-17),
// ms (12-14) or s (up to 11), which fits timestamps since 2001.
// nullopt for other names.
std::optional<TorchTraceName> ParseTorchTraceName(absl::string_view file_name);

// Orders file names for placement: torch trace names by timestamp, then the
// others, each naturally by name.
bool PlacementLess(absl::string_view a, absl::string_view b);

struct RunPlacement {
  std::string run;
  std::string host;  // Sanitized; "" = pick the host from the data.
};

class RunGrouper {
 public:
  // `run_name_for_ms` names a group from its first timestamp (default: local
  // time, logdir::RunNameForTime).
  explicit RunGrouper(int64_t window_ms,
                      std::function<std::string(int64_t)> run_name_for_ms = nullptr);

  // The run and host of `file_name`; the same answer for the same name.
  RunPlacement Place(const std::string& file_name);

 private:
  struct Group {
    int64_t first_ms = 0;
    std::string run;
    std::set<std::string> workers;
  };
  std::string UniqueRun(const std::string& base);

  int64_t window_ms_;
  std::function<std::string(int64_t)> run_name_for_ms_;
  std::vector<Group> groups_;
  std::set<std::string> runs_;
  std::map<std::string, RunPlacement> placed_;
};

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_WATCH_WATCH_RUNS_H_
