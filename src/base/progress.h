// Progress reporting for long conversions, meant for stderr.
//
// On a terminal it redraws one line in place, at most every 100 ms:
//   converting trace.json.gz [##########..........]  48%  120.3/250.0 MB  85.2 MB/s
// Elsewhere (CI logs, pipes) it prints a plain line at most every 5 seconds
// and only once the task has run for a while, so short tasks stay silent.
// kQuiet prints nothing.
#ifndef TBPROF_SRC_BASE_PROGRESS_H_
#define TBPROF_SRC_BASE_PROGRESS_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace tbprof {

// "0 B", "512 B", "1.5 KB", "120.3 MB", "2.00 GB" (powers of 1000).
std::string FormatBytes(uint64_t bytes);

class ProgressReporter {
 public:
  enum class Mode { kAuto, kBar, kLines, kQuiet };

  struct Options {
    Mode mode = Mode::kAuto;  // kAuto: kBar on a terminal, else kLines.
    int64_t bar_interval_ns = 100'000'000;      // Redraw period in kBar mode.
    int64_t line_interval_ns = 5'000'000'000;   // Line period in kLines mode.
    // Time source (monotonic ns); tests inject a fake one.
    std::function<int64_t()> now_ns;
    // Where text goes; defaults to fwrite(stderr). Tests capture it.
    std::function<void(const std::string&)> write;
    // Used to pick kBar/kLines in kAuto mode (defaults to stderr).
    int terminal_fd = 2;
  };

  // `label` is shown before the figures, e.g. "converting trace.json.gz".
  ProgressReporter(std::string label, Options options);
  ~ProgressReporter();  // Calls Finish().
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Reports `done` of `total` bytes (total 0 = unknown). Cheap when nothing
  // needs printing, so it may be called for every chunk.
  void Update(uint64_t done, uint64_t total);
  // Ends the display: in kBar mode the line is cleared so later output starts
  // on a clean line. Idempotent.
  void Finish();

  Mode mode() const { return mode_; }

 private:
  std::string Render(uint64_t done, uint64_t total, int64_t now_ns, bool bar) const;

  std::string label_;
  Options options_;
  Mode mode_;
  int64_t start_ns_;
  int64_t last_print_ns_;
  bool printed_ = false;
  bool finished_ = false;
};

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_PROGRESS_H_
