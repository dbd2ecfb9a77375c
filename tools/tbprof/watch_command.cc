// tbprof watch: converts trace files into a log directory as they appear,
// so that an open TensorBoard shows new profiles while training runs.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/tbprof/commands.h"
#include "tools/convert/convert_split_stage.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/shared_flags.h"
#include "tools/watch/watch_files.h"
#include "tools/watch/watch_loop.h"

namespace tbprof::cli {
namespace {

constexpr char kName[] = "watch";

constexpr char kHelp[] =
    R"HELP(Usage: tbprof watch DIR --logdir LOGDIR [flags]

Converts each trace file that appears in DIR into LOGDIR, as `tbprof
convert` would, so that a TensorBoard already open on LOGDIR shows new
profiles while training runs. Point DIR at the directory of
torch.profiler.tensorboard_trace_handler(DIR). Files already in DIR are
converted too, except those already in LOGDIR.

Runs and hosts: torch writes <worker>.<timestamp>.pt.trace.json[.gz], one
file per worker (rank) and profiling cycle. The files of one cycle (their
timestamps within --cycle-window of each other, one per worker) become one
run, named after the cycle's time (YYYY_MM_DD_HH_MM_SS), with one host per
worker. Other trace files (*.json[.gz], *.xplane.pb, *.tbcap, memory
snapshots *.pickle / *.pkl, Nsight Systems *.sqlite / *.nsys-rep) each become
a run named after the file.

When a file is read: DIR is listed every --poll seconds; a file is read once
its size and modification time have not changed for --settle seconds. A file
that ends too early (a truncated gzip stream or JSON document, or an empty
file) is taken as still being written: it is read again when it changes, and
reported as bad once it is --incomplete-timeout old. A bad file is read again
if it changes. Hidden files, names ending in .tmp or .part, and
subdirectories are ignored. Details: docs/diff_and_watch.md.

A bad file is reported on stderr, skipped, and watching goes on. SIGINT
(Ctrl-C) or SIGTERM stops watching: a file still being read is abandoned
when reading ends (a second signal ends the process at once), one already
being written to LOGDIR is finished; either way nothing partial is left in
LOGDIR. Then a summary is printed and the exit status is 0.

Flags:
  --logdir DIR               TensorBoard log directory (required; created if
                             missing)
  --once                     convert what DIR holds now, then exit (files
                             still being written are left for later)
  --settle SECONDS           quiet period before a file is read (default 2;
                             also 500ms)
  --poll SECONDS             how often DIR is listed (default 1)
  --cycle-window SECONDS     files of one cycle are at most this far apart
                             (default 20)
  --incomplete-timeout SECONDS
                             a file that does not parse and has not changed
                             for this long is bad (default 60)
  --steps MODE               auto (default), markers, infer or none (see
                             convert --help)
  --no-views                 skip the precomputed view files for old plugins
  --tensorboard-budget-mb N  split a file that TensorBoard would need more
                             than N MiB of RAM to open into runs RUN_part1,
                             RUN_part2, ... as convert does (default 8192;
                             0 = never split); each file is judged alone
  --max-events N             fail a file with more than N events (0 = no limit)
  --max-inflated-bytes N     fail a gzip file that inflates past N bytes
  --max-memory-mb N          fail a file when memory use passes N MB
  --quiet                    print only the paths written
  -h, --help                 this text

Output: one line per file on stdout ("converted", "already in the logdir");
bad files on stderr ("tbprof: error: FILE: ... (skipped)"). A file split for
TensorBoard is reported as convert reports it (its parts, one per run).

Exit status: 0 stopped by a signal, or --once with no bad file; 1 DIR
disappears or cannot be read, LOGDIR cannot be written, or --once found a
bad file; 2 usage error.

Examples:
  tbprof watch ./log/resnet --logdir tb &     # beside the training job
  tensorboard --logdir tb
  tbprof watch traces/ --logdir tb --once     # convert what is there, exit
)HELP";

struct WatchFlags {
  std::string logdir;
  bool once = false;
  std::string settle = "2";
  std::string poll = "1";
  std::string cycle_window = "20";
  std::string incomplete_timeout = "60";
  LoadFlags load;
  bool no_views = false;
  int64_t tensorboard_budget_mb = kDefaultTensorBoardBudgetMb;
};

int RunWatch(const std::vector<std::string>& args) {
  WatchFlags flags;
  FlagSet flag_set;
  flag_set.String("logdir", &flags.logdir);
  flag_set.Bool("once", &flags.once);
  flag_set.String("settle", &flags.settle);
  flag_set.String("poll", &flags.poll);
  flag_set.String("cycle-window", &flags.cycle_window);
  flag_set.String("incomplete-timeout", &flags.incomplete_timeout);
  AddLoadFlags(&flag_set, &flags.load);
  flag_set.Bool("no-views", &flags.no_views);
  flag_set.Int64("tensorboard-budget-mb", &flags.tensorboard_budget_mb);
  std::vector<std::string> positional;
  if (absl::Status status = flag_set.Parse(args, &positional); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (positional.size() != 1) {
    return ReportUsageError(kName, absl::StrCat("needs one directory to watch, got ",
                                                positional.size()));
  }
  if (flags.logdir.empty()) return ReportUsageError(kName, "--logdir is required");
  if (std::string error = CheckTensorBoardBudgetFlag(flags.tensorboard_budget_mb);
      !error.empty()) {
    return ReportUsageError(kName, error);
  }
  int64_t durations[4];
  const std::pair<const char*, const std::string*> duration_flags[4] = {
      {"--settle", &flags.settle},
      {"--poll", &flags.poll},
      {"--cycle-window", &flags.cycle_window},
      {"--incomplete-timeout", &flags.incomplete_timeout}};
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<int64_t> ms = ParseDurationMs(*duration_flags[i].second);
    if (!ms.ok()) {
      return ReportUsageError(kName, absl::StrCat(duration_flags[i].first, ": ",
                                                  ms.status().message()));
    }
    durations[i] = *ms;
  }
  const int64_t settle_ms = durations[0];
  const int64_t poll_ms = durations[1];
  ConvertIntoRunOptions convert;
  if (absl::Status status = ApplyLoadFlags(flags.load, &convert.load); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  convert.views = !flags.no_views;
  convert.tensorboard_budget_mb = flags.tensorboard_budget_mb;

  std::string dir = positional[0];
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return ReportFailure(absl::NotFoundError(
        absl::StrCat(dir, ": cannot watch: ", std::strerror(errno))));
  }
  if (!S_ISDIR(st.st_mode)) {
    return ReportFailure(
        absl::InvalidArgumentError(absl::StrCat(dir, ": cannot watch: not a directory")));
  }
  WatchLoopOptions loop;
  loop.dir = dir;
  loop.logdir = flags.logdir;
  loop.once = flags.once;
  loop.quiet = flags.load.quiet;
  loop.settle_ms = settle_ms;
  loop.poll_ms = poll_ms;
  loop.cycle_window_ms = durations[2];
  loop.incomplete_timeout_ms = durations[3];
  loop.convert = convert;
  if (!flags.once && !flags.load.quiet) {
    std::fprintf(stderr, "tbprof: watching %s -> %s (Ctrl-C to stop)\n", dir.c_str(),
                 flags.logdir.c_str());
  }
  const WatchOutcome outcome = WatchDirectory(loop);
  const char* why = !outcome.status.ok()              ? "stopped"
                    : outcome.stop_signal == SIGTERM ? "stopped by SIGTERM"
                    : outcome.stop_signal != 0       ? "stopped by SIGINT"
                                                     : "done";
  const WatchCounts& c = outcome.counts;
  std::fflush(stdout);
  std::fprintf(stderr,
               "tbprof watch: %s: %d converted, %d already in the logdir, %d bad, %d left for "
               "later\n",
               why, c.converted, c.already, c.bad, c.incomplete);
  if (!outcome.status.ok()) return ReportFailure(outcome.status);
  if (outcome.stop_signal != 0) return kExitOk;
  return c.bad > 0 ? kExitFailure : kExitOk;
}

}  // namespace

const CommandSpec kWatchCommand = {
    kName,
    "convert trace files into a logdir as they appear (torch.profiler's trace handler)",
    kHelp,
    &RunWatch,
};

}  // namespace tbprof::cli
