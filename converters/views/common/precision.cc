#include "converters/views/common/precision.h"

#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "converters/views/common/tensor_core.h"

namespace tbprof::views {
namespace {

// Reduced-precision element types and the MMA shapes of the Tensor Core
// kernels of cuBLAS / cuDNN / CUTLASS names ("s16816gemm": 16x8x16 MMA).
constexpr absl::string_view kReducedPatterns[] = {
    "bf16",  "bfloat16", "BFloat16", "f16",   "half",  "Half",  "fp8",   "e4m3",
    "e5m2",  "Float8",   "tf32",     "int8",  "i8816", "hmma",  "h884",  "h1688",
    "s884",  "s1688",    "16816",    "161616", "i16832"};

constexpr absl::string_view kFullPatterns[] = {"float", "Float", "f32", "fp32",
                                               "double", "f64",  "dmma"};

bool ContainsAny(absl::string_view text, absl::Span<const absl::string_view> patterns) {
  for (absl::string_view p : patterns) {
    if (absl::StrContains(text, p)) return true;
  }
  return false;
}

}  // namespace

PrecisionHint PrecisionOfText(absl::string_view text) {
  // "f64"/"dmma" first: fp64 MMA kernel names also carry MMA shapes.
  if (absl::StrContains(text, "f64") || absl::StrContains(text, "dmma")) {
    return PrecisionHint::kFull;
  }
  if (ContainsAny(text, kReducedPatterns)) return PrecisionHint::kReduced;
  if (ContainsAny(text, kFullPatterns)) return PrecisionHint::kFull;
  return PrecisionHint::kUnknown;
}

bool IsReducedPrecisionKernel(absl::string_view kernel_name) {
  switch (PrecisionOfText(kernel_name)) {
    case PrecisionHint::kReduced: return true;
    case PrecisionHint::kFull: return false;
    case PrecisionHint::kUnknown: return IsKernelUsingTensorCore(kernel_name);
  }
  return false;
}

}  // namespace tbprof::views
