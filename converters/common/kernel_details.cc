#include "converters/common/kernel_details.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tbprof::converters {
namespace {

bool ParseDims(absl::string_view value, int64_t dims[3]) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, ',');
  if (parts.size() != 3) return false;
  int64_t parsed[3];
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtoi(parts[i], &parsed[i])) return false;
  }
  for (int i = 0; i < 3; ++i) dims[i] = parsed[i];
  return true;
}

}  // namespace

bool KernelDetails::operator==(const KernelDetails& o) const {
  return registers_per_thread == o.registers_per_thread &&
         static_shared_mem_bytes == o.static_shared_mem_bytes &&
         dynamic_shared_mem_bytes == o.dynamic_shared_mem_bytes && grid[0] == o.grid[0] &&
         grid[1] == o.grid[1] && grid[2] == o.grid[2] && block[0] == o.block[0] &&
         block[1] == o.block[1] && block[2] == o.block[2] && has_occupancy == o.has_occupancy &&
         (!has_occupancy || occupancy_pct == o.occupancy_pct);
}

void AppendKernelDetails(const KernelDetails& d, std::string* out) {
  absl::StrAppend(out, "regs:", d.registers_per_thread,
                  " static_shared:", d.static_shared_mem_bytes,
                  " dynamic_shared:", d.dynamic_shared_mem_bytes, " grid:", d.grid[0], ",",
                  d.grid[1], ",", d.grid[2]);
  absl::StrAppend(out, " block:", d.block[0], ",", d.block[1], ",", d.block[2]);
  if (d.has_occupancy) absl::StrAppend(out, " occ_pct:", d.occupancy_pct);
}

std::string FormatKernelDetails(const KernelDetails& details) {
  std::string out;
  AppendKernelDetails(details, &out);
  return out;
}

bool ParseKernelDetails(absl::string_view text, KernelDetails* out) {
  bool ok = true;
  for (absl::string_view token : absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    size_t colon = token.find(':');
    if (colon == absl::string_view::npos) continue;
    absl::string_view key = token.substr(0, colon);
    absl::string_view value = token.substr(colon + 1);
    if (key == "regs") {
      ok &= absl::SimpleAtoi(value, &out->registers_per_thread);
    } else if (key == "static_shared") {
      ok &= absl::SimpleAtoi(value, &out->static_shared_mem_bytes);
    } else if (key == "dynamic_shared") {
      ok &= absl::SimpleAtoi(value, &out->dynamic_shared_mem_bytes);
    } else if (key == "grid") {
      ok &= ParseDims(value, out->grid);
    } else if (key == "block") {
      ok &= ParseDims(value, out->block);
    } else if (key == "occ_pct") {
      double pct = 0;
      if (absl::SimpleAtod(value, &pct)) {
        out->has_occupancy = true;
        out->occupancy_pct = pct;
      } else {
        ok = false;
      }
    }
  }
  return ok;
}

}  // namespace tbprof::converters
