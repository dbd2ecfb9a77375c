// Which device computation is reduced precision (bf16, fp16, fp8, tf32,
// int8), decided from kernel names, tensor shapes and op input types.
//
// The profile plugin (xprof `ClassifyGpuEvent`) counts a GPU kernel as
// 16-bit only when its `shape` stat, or without one its name, contains
// "half" or "fp16": bf16, fp8 and tf32 kernels count as 32-bit, so a bf16
// model reads "32-bit 100%" there. Our views use these rules instead.
#ifndef TBPROF_CONVERTERS_VIEWS_COMMON_PRECISION_H_
#define TBPROF_CONVERTERS_VIEWS_COMMON_PRECISION_H_

#include "absl/strings/string_view.h"

namespace tbprof::views {

// What a piece of text (a kernel name, a `shape` stat, an op's `Input type`
// list) says about the precision of the computation.
enum class PrecisionHint {
  kUnknown,   // Mentions no element type.
  kReduced,   // bf16, fp16, fp8 (e4m3/e5m2), tf32, int8 or a Tensor Core MMA.
  kFull,      // float32 / float64 and no reduced type.
};

// Reduced when `text` names a reduced type ("bf16", "bfloat16", "BFloat16",
// "f16", "fp16", "half", "Half", "fp8", "e4m3", "e5m2", "Float8", "tf32",
// "int8", "i8816", "hmma", "h884", "h1688", "s884", "s1688", "16816",
// "161616", "i16832"), else Full when it names "float", "Float", "f32",
// "fp32", "double", "f64" or "dmma", else Unknown. Case matters only where
// the patterns say so (e.g. "half" and "Half", never "HALF").
PrecisionHint PrecisionOfText(absl::string_view text);

// A kernel is reduced precision when its name says so by PrecisionOfText,
// or, when the name names no type, when it is a Tensor Core kernel
// (IsKernelUsingTensorCore): Tensor Cores run fp16/bf16/tf32/fp8/int8
// (fp64 MMA kernels name "f64"/"dmma" and are excluded above).
bool IsReducedPrecisionKernel(absl::string_view kernel_name);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_COMMON_PRECISION_H_
