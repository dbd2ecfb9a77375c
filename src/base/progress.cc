#include "src/base/progress.h"

#include <unistd.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tbprof {
namespace {

constexpr int kBarWidth = 24;

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WriteStderr(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1000) return absl::StrCat(bytes, " B");
  const char* units[] = {"KB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  // Precision from the magnitude; constant formats (clang checks them).
  const int precision = value >= 100 ? 0 : (value >= 10 ? 1 : 2);
  return absl::StrFormat("%.*f %s", precision, value, units[unit]);
}

ProgressReporter::ProgressReporter(std::string label, Options options)
    : label_(std::move(label)), options_(std::move(options)) {
  if (!options_.now_ns) options_.now_ns = SteadyNowNs;
  if (!options_.write) options_.write = WriteStderr;
  mode_ = options_.mode;
  if (mode_ == Mode::kAuto) mode_ = ::isatty(options_.terminal_fd) ? Mode::kBar : Mode::kLines;
  start_ns_ = options_.now_ns();
  last_print_ns_ = start_ns_;
}

ProgressReporter::~ProgressReporter() { Finish(); }

void ProgressReporter::Update(uint64_t done, uint64_t total) {
  if (mode_ == Mode::kQuiet || finished_) return;
  int64_t now = options_.now_ns();
  int64_t interval = mode_ == Mode::kBar ? options_.bar_interval_ns : options_.line_interval_ns;
  if (now - last_print_ns_ < interval) return;
  last_print_ns_ = now;
  if (mode_ == Mode::kBar) {
    options_.write(absl::StrCat("\r", Render(done, total, now, /*bar=*/true), "\x1b[K"));
  } else {
    options_.write(absl::StrCat("tbprof: ", Render(done, total, now, /*bar=*/false), "\n"));
  }
  printed_ = true;
}

void ProgressReporter::Finish() {
  if (finished_) return;
  finished_ = true;
  if (mode_ == Mode::kBar && printed_) options_.write("\r\x1b[K");
}

std::string ProgressReporter::Render(uint64_t done, uint64_t total, int64_t now_ns,
                                     bool bar) const {
  std::string out = label_;
  double elapsed_s = static_cast<double>(now_ns - start_ns_) / 1e9;
  if (total > 0) {
    uint64_t clamped = done > total ? total : done;
    int percent = static_cast<int>(100.0 * static_cast<double>(clamped) / static_cast<double>(total));
    if (bar) {
      int filled = static_cast<int>(kBarWidth * static_cast<double>(clamped) /
                                    static_cast<double>(total));
      absl::StrAppend(&out, " [", std::string(filled, '#'), std::string(kBarWidth - filled, '.'),
                      "]");
    }
    absl::StrAppendFormat(&out, " %3d%%  %s of %s", percent, FormatBytes(clamped),
                          FormatBytes(total));
  } else {
    absl::StrAppend(&out, "  ", FormatBytes(done));
  }
  if (elapsed_s > 0) {
    absl::StrAppend(&out, "  ",
                    FormatBytes(static_cast<uint64_t>(static_cast<double>(done) / elapsed_s)),
                    "/s");
  }
  return out;
}

}  // namespace tbprof
