// Flags that several subcommands share, defined and applied once: how inputs
// are loaded (LoadFlags: convert, inspect, report, diff, watch) and how the
// views are computed and shown (ViewFlags: report, diff).
#ifndef TBPROF_TOOLS_TBPROF_SHARED_FLAGS_H_
#define TBPROF_TOOLS_TBPROF_SHARED_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/trace_inputs.h"
#include "tools/tbprof/view_inputs.h"

namespace tbprof::cli {

// --steps, the input limits and --quiet, with their defaults.
struct LoadFlags {
  std::string steps = "auto";                // --steps MODE
  int64_t max_events = 0;                    // --max-events N
  uint64_t max_inflated_bytes = kAutoLimit;  // --max-inflated-bytes N
  int64_t max_memory_mb = -1;                // --max-memory-mb N (-1: the default)
  bool quiet = false;                        // --quiet
};

// Registers the flags of LoadFlags on `flag_set`, writing into `*flags`.
void AddLoadFlags(FlagSet* flag_set, LoadFlags* flags);

// Puts --steps and the limits into `*options` (other fields, the progress
// callback and the JSON threads included, are left as they are). Errors:
// kInvalidArgument for a bad --steps, the message starting "--steps: ".
absl::Status ApplyLoadFlags(const LoadFlags& flags, LoadOptions* options);

// The shared flags of `tbprof report` and `tbprof diff`.
struct ViewFlags {
  LoadFlags load;
  bool json = false;                    // --json
  std::string html;                     // --html FILE
  std::string breakdown = "with-host";  // --breakdown MODE
  bool keep_all_steps = false;          // --keep-all-steps
  int64_t top = 10;                     // --top N
  int64_t width = 0;                    // --width N (0: the terminal's)
  bool ascii = false;                   // --ascii
};

// Registers every flag of ViewFlags (LoadFlags included) on `flag_set`.
void AddViewFlags(FlagSet* flag_set, ViewFlags* flags);

// Puts --breakdown, --keep-all-steps, the load flags and --quiet into
// `*options` (other fields are left as they are). Errors: kInvalidArgument for
// a bad --breakdown (checked first) or --steps, the message starting with the
// flag.
absl::Status ApplyViewFlags(const ViewFlags& flags, ViewInputsOptions* options);

// kInvalidArgument when --width is given and below 60.
absl::Status CheckWidthFlag(const ViewFlags& flags);

// The width to render text at: --width, else the terminal's (60 to 160
// columns, also from $COLUMNS), else 80.
int TextWidth(const ViewFlags& flags);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_SHARED_FLAGS_H_
