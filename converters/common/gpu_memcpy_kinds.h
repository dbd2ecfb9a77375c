// Naming of device copies and memsets the way the profile plugin classifies
// them: event names `MemcpyHToD` / `MemcpyDToH` / `MemcpyDToD` / `MemcpyHToH`
// / `MemcpyPToP` (matched by prefix), byte counts in `memcpy_details` /
// `Memset_details` under the key `num_bytes`, which must come first (xprof
// reads the first `num_bytes:` token of a space-separated list).
#ifndef TBPROF_CONVERTERS_COMMON_GPU_MEMCPY_KINDS_H_
#define TBPROF_CONVERTERS_COMMON_GPU_MEMCPY_KINDS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::converters {

enum class MemcpyDirection : uint8_t { kUnknown = 0, kHToD, kDToH, kDToD, kHToH, kPToP };

// "MemcpyHToD", ..., "MemcpyPToP"; "MemcpyOther" for kUnknown.
absl::string_view MemcpyEventName(MemcpyDirection direction);

// What a Kineto / Chrome-trace copy name says. Kineto writes
// "Memcpy HtoD (Pageable -> Device)"; CUPTI kinds HtoA/AtoD/... count the
// array side as device; HIP traces may say "CopyHostToDevice".
struct MemcpyNameInfo {
  MemcpyDirection direction = MemcpyDirection::kUnknown;
  // Memory kinds from the parenthesised part, lower-case with '_' for spaces
  // ("pageable", "pinned", "device", "managed", "device_static", ...); empty
  // if absent. Views into a static table or into the parsed name.
  absl::string_view src_kind;
  absl::string_view dst_kind;
};
MemcpyNameInfo ParseMemcpyName(absl::string_view name);

// Appends "num_bytes:<bytes>[ kind_src:<src>][ kind_dst:<dst>]" to *out.
// Kinds are written lower-case with spaces as '_'.
void AppendMemcpyDetails(uint64_t num_bytes, absl::string_view src_kind, absl::string_view dst_kind,
                         std::string* out);
// Appends "num_bytes:<bytes>[ kind:<kind>]" (the `Memset_details` value).
void AppendMemsetDetails(uint64_t num_bytes, absl::string_view kind, std::string* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_COMMON_GPU_MEMCPY_KINDS_H_
