// Peak FLOP rates of a GPU from what a trace says about it (deviceProperties
// -> GPU plane stats: name, SM count, clock, compute capability), with a table
// of per-SM, per-clock rates by architecture and of boost clocks by model,
// each row naming its source (gpu_peak_flops.cc).
//
//   peak = SMs x dense FLOP per clock per SM (architecture, unit) x clock
//
// The clock is the trace's when it has one (deviceProperties.clockRate, the
// maximum boost clock); Kineto traces usually do not, so it comes from the
// model table (the clock at which the vendor states its peak), else an
// architecture default marked "assumed".
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_GPU_PEAK_FLOPS_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_GPU_PEAK_FLOPS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::views {

// The execution units whose peaks are tabulated.
enum class PeakUnit : uint8_t {
  kFp16Tensor,  // FP16 / BF16 inputs on Tensor Cores (FP32 accumulate).
  kTf32Tensor,  // FP32 inputs on Tensor Cores (TF32).
  kFp32,        // FP32 on CUDA cores (FMA = 2 FLOPs).
  kFp8Tensor,
  kInt8Tensor,
};
absl::string_view PeakUnitName(PeakUnit unit);  // "fp16/bf16 tensor", ...

// What a trace records about one GPU (0 / "" when unknown).
struct GpuSpec {
  std::string name;  // "NVIDIA H100 80GB HBM3".
  int compute_major = 0;
  int compute_minor = 0;
  int64_t sm_count = 0;
  int64_t clock_khz = 0;
};

struct GpuPeak {
  std::string architecture;  // "Hopper (sm_90)".
  int64_t sm_count = 0;
  double clock_mhz = 0;
  std::string clock_source;  // "deviceProperties", "table: ...", "assumed: ...".
  std::string source;        // Source of the per-SM rates.
  // Dense TFLOP/s (TOP/s for int8), indexed by PeakUnit; 0 = no such unit.
  double tflops[5] = {0, 0, 0, 0, 0};

  double Tflops(PeakUnit unit) const { return tflops[static_cast<int>(unit)]; }
};

// The peaks of `gpu`, or nullopt with *why_not set (unknown architecture, no
// SM count).
std::optional<GpuPeak> PeakFlopsOf(const GpuSpec& gpu, std::string* why_not);

// The unit a GEMM of `dtype` (gemm_flops.h DtypeOf) runs on: fp16/bf16 ->
// kFp16Tensor; fp32 -> kTf32Tensor if its kernels use Tensor Cores, else
// kFp32; fp8 -> kFp8Tensor; int8 -> kInt8Tensor; nullopt otherwise (fp64,
// unknown).
std::optional<PeakUnit> PeakUnitForDtype(absl::string_view dtype, bool uses_tensor_cores);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_GPU_PEAK_FLOPS_H_
