#include "tools/watch/watch_loop.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/logdir/part_runs.h"
#include "src/logdir/profile_logdir.h"
#include "tools/convert/convert_split.h"
#include "tools/watch/watch_files.h"
#include "tools/watch/watch_runs.h"

namespace tbprof::cli {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
// Set while a file is being written into the logdir.
volatile std::sig_atomic_t g_writing = 0;

// The first signal asks to stop; a second one ends the process at once
// unless files are being written (nothing is staged while a file is read).
void OnStopSignal(int signal) {
  if (g_stop_signal != 0 && g_writing == 0) {
    static const char kMessage[] = "tbprof watch: stopped at once (second signal)\n";
    ssize_t ignored = ::write(2, kMessage, sizeof(kMessage) - 1);
    (void)ignored;
    ::_exit(128 + signal);
  }
  g_stop_signal = signal;
}

// SIGINT and SIGTERM set g_stop_signal; the previous handlers come back when
// this object goes away.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = &OnStopSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_;
  struct sigaction old_term_;
};

bool Stopping() { return g_stop_signal != 0; }

int64_t MonotonicMs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

int64_t WallNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Sleeps `ms`, waking early when a stop signal arrives.
void SleepMs(int64_t ms) {
  const int64_t end = MonotonicMs() + ms;
  while (!Stopping()) {
    const int64_t left = end - MonotonicMs();
    if (left <= 0) return;
    const int64_t step = std::min<int64_t>(left, 50);
    struct timespec ts = {static_cast<time_t>(step / 1000),
                          static_cast<long>(step % 1000) * 1'000'000};
    ::nanosleep(&ts, nullptr);
  }
}

// The loaders' errors for input that ends too early: "truncated gzip",
// "truncated JSON", "empty file" (all kDataLoss). A file being written
// sequentially fails only this way; other errors mean a bad file.
bool LooksIncomplete(const absl::Status& status) {
  return status.code() == absl::StatusCode::kDataLoss &&
         (absl::StrContains(status.message(), "truncated") ||
          absl::StrContains(status.message(), "empty file"));
}

bool CurrentStat(const std::string& path, FileStat* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  *out = {static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
  return true;
}

class Watcher {
 public:
  explicit Watcher(const WatchLoopOptions& options)
      : dir_(options.dir),
        flags_(options),
        convert_(options.convert),
        tracker_(options.settle_ms),
        grouper_(options.cycle_window_ms),
        incomplete_timeout_ms_(options.incomplete_timeout_ms) {}

  // Lists the directory and converts what is ready. Errors: the directory
  // is gone or unreadable, or the logdir cannot be written (fatal).
  absl::Status Poll() {
    absl::StatusOr<std::map<std::string, FileStat>> listing = ListWatchedFiles(dir_);
    if (absl::IsNotFound(listing.status())) {
      return absl::NotFoundError(absl::StrCat(dir_, ": the watched directory disappeared"));
    }
    if (!listing.ok()) return listing.status();
    tracker_.Observe(*listing, MonotonicMs());
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      it = listing->count(*it) ? std::next(it) : waiting_.erase(it);
    }
    std::vector<std::string> ready = tracker_.Ready(MonotonicMs());
    std::sort(ready.begin(), ready.end(),
              [](const std::string& a, const std::string& b) { return PlacementLess(a, b); });
    for (const std::string& name : ready) {
      if (Stopping()) break;
      if (absl::Status status = Process(name); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

  // --once: files that never settled are reported as left for later.
  void ReportUnsettled() {
    for (const std::string& name : tracker_.Unsettled(MonotonicMs())) {
      std::fprintf(stderr, "tbprof: %s/%s: still being written; left for later\n", dir_.c_str(),
                   name.c_str());
    }
  }
  bool AnythingUnsettled() const { return !tracker_.Unsettled(MonotonicMs()).empty(); }
  // The counts so far; files not read yet, still being written or waited
  // for count as left for later.
  WatchCounts counts() const {
    WatchCounts c = counts_;
    c.incomplete += static_cast<int>(waiting_.size() + tracker_.Pending().size());
    return c;
  }

 private:
  absl::Status Process(const std::string& name) {
    const bool was_waiting = waiting_.erase(name) > 0;
    const std::string path = absl::StrCat(dir_, dir_.back() == '/' ? "" : "/", name);
    const RunPlacement placement = grouper_.Place(name);
    if (!placement.host.empty() && HostInLogdir(placement)) {
      tracker_.MarkDone(name);
      ++counts_.already;
      if (!flags_.quiet) {
        std::printf("already in the logdir: %s (run %s, host %s)\n", name.c_str(),
                    placement.run.c_str(), placement.host.c_str());
        std::fflush(stdout);
      }
      return absl::OkStatus();
    }
    const FileStat before = tracker_.stat(name);
    bool changed = false;
    ConvertIntoRunOptions options = convert_;
    options.cancelled = [&]() {
      FileStat now;
      changed = !CurrentStat(path, &now) || now != before;
      if (Stopping() || changed) return true;
      g_writing = 1;  // ConvertIntoRun writes from here on.
      return false;
    };
    ConvertFailure failure = ConvertFailure::kNone;
    absl::StatusOr<ConvertIntoRunResult> result =
        ConvertIntoRun(path, flags_.logdir, placement.run, placement.host, options, &failure);
    g_writing = 0;
    if (result.ok()) {
      tracker_.MarkDone(name);
      ++counts_.converted;
      // A split host is reported as by `tbprof convert`.
      if (flags_.quiet && result->split) {
        std::fflush(stdout);
        std::fprintf(stderr, "tbprof: %s\n", FormatSplitOneLine(*result->split).c_str());
        for (const SplitReport::Part& part : result->split->parts) {
          std::printf("%s\n", part.path.c_str());
        }
      } else if (flags_.quiet) {
        std::printf("%s\n", result->output_path.c_str());
      } else {
        std::printf("converted %s -> %s (%lld events; %s)\n", name.c_str(),
                    result->output_path.c_str(), static_cast<long long>(result->events),
                    result->steps_message.empty() ? "no steps" : result->steps_message.c_str());
        if (result->split) std::fputs(FormatSplitReports({*result->split}).c_str(), stdout);
      }
      std::fflush(stdout);
      return absl::OkStatus();
    }
    const absl::Status& status = result.status();
    if (status.code() == absl::StatusCode::kCancelled) {
      if (changed) tracker_.MarkPending(name, MonotonicMs());  // Read again once it settles.
      return absl::OkStatus();
    }
    if (status.code() == absl::StatusCode::kAlreadyExists) {
      tracker_.MarkDone(name);
      ++counts_.already;
      if (!flags_.quiet) {
        std::printf("already in the logdir: %s (run %s)\n", name.c_str(), placement.run.c_str());
        std::fflush(stdout);
      }
      return absl::OkStatus();
    }
    if (failure == ConvertFailure::kOutput) return status;  // The logdir: fatal.
    // Ends too early: still being written while it is young.
    const int64_t age_ms = (WallNs() - before.mtime_ns) / 1'000'000;
    if (LooksIncomplete(status) && age_ms < incomplete_timeout_ms_) {
      if (flags_.once) {
        ++counts_.incomplete;
        std::fprintf(stderr, "tbprof: %s: incomplete (%s); left for later\n", path.c_str(),
                     std::string(status.message()).c_str());
        tracker_.MarkDone(name);
      } else {
        tracker_.MarkFailed(name, MonotonicMs() + (incomplete_timeout_ms_ - age_ms));
        waiting_.insert(name);
        if (!was_waiting && !flags_.quiet) {
          std::fprintf(stderr, "tbprof: %s: ends early; waiting for the rest to be written\n",
                       path.c_str());
        }
      }
      return absl::OkStatus();
    }
    ++counts_.bad;
    tracker_.MarkFailed(name);  // Again only if it changes.
    std::string message(status.message());
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::fprintf(stderr, "tbprof: error: %s (skipped)\n", message.c_str());
    return absl::OkStatus();
  }

  // Whether the host file of `placement` is in its run, or in one of the
  // part runs of its run (a host split for TensorBoard).
  bool HostInLogdir(const RunPlacement& placement) const {
    if (Exists(logdir::HostFilePath(logdir::RunDirectory(flags_.logdir, placement.run),
                                    placement.host))) {
      return true;
    }
    absl::StatusOr<std::vector<std::string>> part_runs =
        logdir::ListPartRuns(flags_.logdir, placement.run);
    if (!part_runs.ok()) return false;  // Converting will say what is wrong.
    for (const std::string& part_run : *part_runs) {
      if (Exists(logdir::HostFilePath(logdir::RunDirectory(flags_.logdir, part_run),
                                      placement.host))) {
        return true;
      }
    }
    return false;
  }

  static bool Exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  const std::string dir_;
  const WatchLoopOptions& flags_;
  const ConvertIntoRunOptions& convert_;
  FileTracker tracker_;
  RunGrouper grouper_;
  const int64_t incomplete_timeout_ms_;
  WatchCounts counts_;
  std::set<std::string> waiting_;  // Files said to be incomplete once.
};

}  // namespace

WatchOutcome WatchDirectory(const WatchLoopOptions& options) {
  StopSignals signals;
  Watcher watcher(options);
  WatchOutcome outcome;
  // --once gives files that keep changing three settle periods to finish.
  const int64_t once_deadline = MonotonicMs() + 3 * std::max<int64_t>(options.settle_ms, 1000);
  const int64_t poll_ms = std::max<int64_t>(10, options.poll_ms);
  while (!Stopping()) {
    if (absl::Status status = watcher.Poll(); !status.ok()) {
      outcome.status = status;
      break;
    }
    if (options.once) {
      if (!watcher.AnythingUnsettled()) break;
      if (MonotonicMs() >= once_deadline) {
        watcher.ReportUnsettled();
        break;
      }
    }
    SleepMs(options.once ? std::min<int64_t>(poll_ms, 100) : poll_ms);
  }
  outcome.stop_signal = outcome.status.ok() ? static_cast<int>(g_stop_signal) : 0;
  outcome.counts = watcher.counts();
  return outcome;
}

}  // namespace tbprof::cli
