// The `kernel_details` device-event stat the profile plugin's kernel stats
// read: space-separated `key:value` tokens
//   regs:R static_shared:S dynamic_shared:D grid:x,y,z block:x,y,z occ_pct:P
// (xprof ParseKernelLaunchParams also accepts newlines between tokens and
// ignores unknown keys). Producers write it with FormatKernelDetails().
#ifndef TBPROF_CONVERTERS_COMMON_KERNEL_DETAILS_H_
#define TBPROF_CONVERTERS_COMMON_KERNEL_DETAILS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::converters {

struct KernelDetails {
  int64_t registers_per_thread = 0;
  int64_t static_shared_mem_bytes = 0;
  int64_t dynamic_shared_mem_bytes = 0;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  // Theoretical occupancy in percent; written only when has_occupancy.
  bool has_occupancy = false;
  double occupancy_pct = 0;

  bool operator==(const KernelDetails& o) const;
};

// "regs:R static_shared:S dynamic_shared:D grid:x,y,z block:x,y,z[ occ_pct:P]"
// with P printed in shortest form ("50", "37.5").
std::string FormatKernelDetails(const KernelDetails& details);
// Appends the same text to *out (no allocation when *out has capacity).
void AppendKernelDetails(const KernelDetails& details, std::string* out);

// Parses a kernel_details string into *out (fields missing from the string
// keep their defaults). Tokens may be separated by spaces or newlines; unknown
// keys are skipped. Returns false if a known key has a malformed value.
bool ParseKernelDetails(absl::string_view text, KernelDetails* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_KERNEL_DETAILS_H_
