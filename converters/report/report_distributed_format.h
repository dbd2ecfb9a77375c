// Number and name formats shared by the text and HTML renderings of the
// distributed view (report_distributed.h). Internal to converters/report.
#ifndef TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_FORMAT_H_
#define TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace tbprof::views {

inline double PsToMs(int64_t ps) { return static_cast<double>(ps) / 1e9; }

// "compute" -> "compute", "communication" -> "communication not overlapped
// with compute", ... (Straggler.phase).
inline std::string PhaseLabel(absl::string_view phase) {
  if (phase == "communication") return "communication not overlapped with compute";
  if (phase == "overlap") return "compute overlapped with communication";
  if (phase == "other") return "other time (copies, host work, idle)";
  return std::string(phase);
}

// A short element-type name: "fp32", "bf16", "fp16", "fp8", "fp64", "i64",
// "i32", "i16", "i8", "u8", "bool"; other names as given (at most 5 chars);
// "-" when empty.
inline std::string ShortDtype(absl::string_view dtype) {
  const std::string t = absl::AsciiStrToLower(dtype);
  if (t.empty()) return "-";
  auto has = [&](absl::string_view s) { return absl::StrContains(t, s); };
  if (has("bfloat16") || has("bf16")) return "bf16";
  if (has("float8") || has("f8") || has("fp8")) return "fp8";
  if (has("half") || has("float16") || has("f16")) return "fp16";
  if (has("double") || has("float64") || has("f64")) return "fp64";
  if (has("float") || has("f32")) return "fp32";
  if (has("bool")) return "bool";
  if (has("uint8") || has("unsigned char") || t == "byte" || t == "u8") return "u8";
  if (has("int8") || has("char") || t == "i8") return "i8";
  if (has("long") || has("int64") || t == "i64" || t == "u64") return "i64";
  if (has("short") || has("int16")) return "i16";
  if (has("int") || t == "i32" || t == "u32") return "i32";
  return std::string(t.substr(0, 5));
}

// GB/s in at most 7 characters: "175", "12.3", "1.94", "0.200", "0.0063",
// "1.9e-05"; "-" for 0.
inline std::string Gbps(double v) {
  if (v <= 0) return "-";
  if (v >= 100) return absl::StrFormat("%.0f", v);
  if (v >= 10) return absl::StrFormat("%.1f", v);
  if (v >= 1) return absl::StrFormat("%.2f", v);
  if (v >= 0.01) return absl::StrFormat("%.3f", v);
  if (v >= 0.0001) return absl::StrFormat("%.2g", v);
  return absl::StrFormat("%.1e", v);
}

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_REPORT_DISTRIBUTED_FORMAT_H_
