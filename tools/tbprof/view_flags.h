// The flags that `tbprof report` and `tbprof diff` share (how the views are
// computed and shown, and the input limits), defined and applied once.
#ifndef TBPROF_TOOLS_TBPROF_VIEW_FLAGS_H_
#define TBPROF_TOOLS_TBPROF_VIEW_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/trace_inputs.h"
#include "tools/tbprof/view_inputs.h"

namespace tbprof::cli {

// Values of the shared flags, with their defaults.
struct ViewFlags {
  bool json = false;                       // --json
  std::string html;                        // --html FILE
  std::string breakdown = "with-host";     // --breakdown MODE
  bool keep_all_steps = false;             // --keep-all-steps
  std::string steps = "auto";              // --steps MODE
  int64_t top = 10;                        // --top N
  int64_t width = 0;                       // --width N (0: the terminal's)
  bool ascii = false;                      // --ascii
  int64_t max_events = 0;                  // --max-events N
  uint64_t max_inflated_bytes = kAutoLimit;  // --max-inflated-bytes N
  int64_t max_memory_mb = -1;              // --max-memory-mb N (-1: the default)
  bool quiet = false;                      // --quiet
};

// Registers every flag above on `flag_set`, writing into `*flags`.
void AddViewFlags(FlagSet* flag_set, ViewFlags* flags);

// Puts --breakdown, --keep-all-steps, --steps, the limits and --quiet into
// `*options` (other fields are left as they are). Errors: kInvalidArgument
// for a bad --breakdown or --steps, the message starting with the flag.
absl::Status ApplyViewFlags(const ViewFlags& flags, ViewInputsOptions* options);

// kInvalidArgument when --width is given and below 60.
absl::Status CheckWidthFlag(const ViewFlags& flags);

// The width to render text at: --width, else the terminal's (60 to 160
// columns, also from $COLUMNS), else 80.
int TextWidth(const ViewFlags& flags);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_VIEW_FLAGS_H_
