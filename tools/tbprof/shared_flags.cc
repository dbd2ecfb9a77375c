#include "tools/tbprof/shared_flags.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tbprof::cli {
namespace {

int TerminalWidth() {
  struct winsize ws;
  if (::isatty(1) && ::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60) {
    return std::min<int>(ws.ws_col, 160);
  }
  int columns = 0;
  if (const char* env = std::getenv("COLUMNS"); env && absl::SimpleAtoi(env, &columns) &&
                                                columns >= 60) {
    return std::min(columns, 160);
  }
  return 80;
}

}  // namespace

void AddLoadFlags(FlagSet* flag_set, LoadFlags* flags) {
  flag_set->String("steps", &flags->steps);
  flag_set->Int64("max-events", &flags->max_events);
  flag_set->ByteSize("max-inflated-bytes", &flags->max_inflated_bytes);
  flag_set->Int64("max-memory-mb", &flags->max_memory_mb);
  flag_set->Bool("quiet", &flags->quiet);
}

absl::Status ApplyLoadFlags(const LoadFlags& flags, LoadOptions* options) {
  absl::StatusOr<converters::StepsMode> steps = converters::ParseStepsMode(flags.steps);
  if (!steps.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--steps: ", steps.status().message()));
  }
  options->steps = *steps;
  options->max_events = flags.max_events;
  options->max_inflated_bytes = flags.max_inflated_bytes;
  options->max_memory_bytes =
      flags.max_memory_mb < 0 ? kAutoLimit : static_cast<uint64_t>(flags.max_memory_mb) << 20;
  return absl::OkStatus();
}

void AddViewFlags(FlagSet* flag_set, ViewFlags* flags) {
  AddLoadFlags(flag_set, &flags->load);
  flag_set->Bool("json", &flags->json);
  flag_set->String("html", &flags->html);
  flag_set->String("breakdown", &flags->breakdown);
  flag_set->Bool("keep-all-steps", &flags->keep_all_steps);
  flag_set->Int64("top", &flags->top);
  flag_set->Int64("width", &flags->width);
  flag_set->Bool("ascii", &flags->ascii);
}

absl::Status ApplyViewFlags(const ViewFlags& flags, ViewInputsOptions* options) {
  absl::StatusOr<views::Breakdown> breakdown = views::ParseBreakdown(flags.breakdown);
  if (!breakdown.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--breakdown: ", breakdown.status().message()));
  }
  options->views.steps.breakdown = *breakdown;
  options->views.steps.drop_incomplete_steps = !flags.keep_all_steps;
  if (absl::Status status = ApplyLoadFlags(flags.load, &options->load); !status.ok()) {
    return status;
  }
  options->quiet = flags.load.quiet;
  return absl::OkStatus();
}

absl::Status CheckWidthFlag(const ViewFlags& flags) {
  if (flags.width != 0 && flags.width < 60) {
    return absl::InvalidArgumentError("--width must be at least 60");
  }
  return absl::OkStatus();
}

int TextWidth(const ViewFlags& flags) {
  return flags.width > 0 ? static_cast<int>(flags.width) : TerminalWidth();
}

}  // namespace tbprof::cli
