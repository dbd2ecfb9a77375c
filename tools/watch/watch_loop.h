// The loop of `tbprof watch`: list the directory, convert the files that are
// ready (watch_files.h says when), place them in runs (watch_runs.h), report
// each file, until a signal, a fatal error, or (--once) the end of what the
// directory holds. docs/diff_and_watch.md describes the behaviour.
#ifndef TBPROF_TOOLS_WATCH_WATCH_LOOP_H_
#define TBPROF_TOOLS_WATCH_WATCH_LOOP_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tools/watch/watch_convert.h"

namespace tbprof::cli {

struct WatchLoopOptions {
  std::string dir;     // The watched directory, without a trailing '/'.
  std::string logdir;
  bool once = false;   // Convert what is there, then return.
  bool quiet = false;  // Print only the paths written.
  int64_t settle_ms = 2000;
  int64_t poll_ms = 1000;
  int64_t cycle_window_ms = 20000;
  int64_t incomplete_timeout_ms = 60000;
  ConvertIntoRunOptions convert;  // `cancelled` is set by the loop.
};

struct WatchCounts {
  int converted = 0;
  int already = 0;     // Host files already in the logdir.
  int bad = 0;
  int incomplete = 0;  // Still being written or waited for: left for later.
};

struct WatchOutcome {
  WatchCounts counts;
  // SIGINT or SIGTERM when a signal stopped the loop, else 0.
  int stop_signal = 0;
  // Fatal: kNotFound when the directory disappeared, the logdir's write
  // errors; each names the path.
  absl::Status status;
};

// Watches `options.dir` until SIGINT or SIGTERM (handled for the duration of
// the call: the first stops the loop once the current file is dealt with, a
// second one while a file is being read ends the process), a fatal error, or
// with `once` until every file there is dealt with. Prints one line per file
// on stdout and bad files on stderr.
WatchOutcome WatchDirectory(const WatchLoopOptions& options);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_WATCH_WATCH_LOOP_H_
