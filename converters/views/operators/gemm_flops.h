// FLOPs of GEMM and convolution calls, from what PyTorch's profiler records
// with record_shapes=True on each CPU op: "Input Dims" (tensor shapes),
// "Input type" (dtypes) and, since PyTorch 2.1, "Concrete Inputs" (scalar
// and list arguments such as stride and padding). The Kineto converter keeps
// them as the stats input_dims / input_types / concrete_inputs (JSON arrays).
//
// A multiply-add counts 2 FLOPs; bias additions and epilogues are not
// counted (they are O(output), not O(output x K)). These are the formulas of
// PyTorch's own FLOP counter (torch.utils.flop_counter) and of TraceLens.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_FLOPS_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_FLOPS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace tbprof::views {

// The record_shapes arguments of one call, one entry per input.
struct OpInputs {
  std::vector<std::vector<int64_t>> dims;  // [] for inputs that are not tensors.
  std::vector<std::string> types;          // "float", "c10::BFloat16", "Int", "".
  std::vector<std::string> concrete;       // "[2, 2]", "1", "False", "".
};

// "[[64,64],[],[3]]" -> {{64,64},{},{3}}. False, with *dims cleared, unless
// `json` is an array of arrays of integers (whitespace allowed).
bool ParseInputDims(absl::string_view json, std::vector<std::vector<int64_t>>* dims);

// "[\"float\",\"\"]" -> {"float", ""} (escapes \" and \\ decoded). False,
// with *out cleared, unless `json` is an array of strings.
bool ParseStringList(absl::string_view json, std::vector<std::string>* out);

// "[2, 2]" -> {2, 2}; "2" -> {2}; "[]" -> {}. False for anything else.
bool ParseIntList(absl::string_view text, std::vector<int64_t>* out);

// "fp16", "bf16", "fp32", "fp64", "fp8", "int8" for a recorded dtype
// ("c10::Half", "c10::BFloat16", "float", "double", "c10::Float8_e4m3fn",
// "signed char"); "" for anything else.
std::string DtypeOf(absl::string_view recorded_type);

// Which formula an op name has.
enum class FlopOp : uint8_t {
  kNone,
  kMatmul,               // aten::mm, addmm, _addmm_activation, bmm, baddbmm,
                         // addbmm, matmul, linear, _scaled_mm
  kConvolution,          // aten::conv{1,2,3}d, convolution, _convolution,
                         // cudnn/miopen/mkldnn_convolution, conv_transpose*,
                         // cudnn/miopen_convolution_transpose
  kConvolutionBackward,  // aten::convolution_backward, cudnn_convolution_backward
};
FlopOp FlopOpOf(absl::string_view op_name);

// Output sizes of convolutions, learned from their backward calls (which
// record the gradient of the output, i.e. its shape): traces from before
// PyTorch 2.1 record no stride or padding, so a forward call's output size
// is known only this way. Keyed by the (input, weight) shapes; a key seen
// with two different output sizes is ambiguous and answers nothing.
class ConvOutputShapes {
 public:
  // Records one call of a kConvolutionBackward op (`dims` as recorded).
  void AddBackward(absl::string_view op_name, const std::vector<std::vector<int64_t>>& dims);
  // The output's spatial sizes for this input and weight shape, or nullptr.
  const std::vector<int64_t>* Find(const std::vector<int64_t>& input,
                                   const std::vector<int64_t>& weight) const;
  bool empty() const { return outputs_.empty(); }

 private:
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>,
           std::optional<std::vector<int64_t>>>
      outputs_;
};

struct FlopCount {
  double flops = 0;    // Per call; 0 when unknown.
  std::string dtype;   // DtypeOf() the first tensor input with a known dtype.
  std::string why_not;  // Set when the FLOPs are unknown: what was missing.
};

// FLOPs of one call of `op_name`:
//   mm, _scaled_mm (A[M,K], B[K,N])                       2*M*K*N
//   addmm, _addmm_activation (C, A[M,K], B[K,N])          2*M*K*N
//   bmm (A[b,M,K], B[b,K,N]); baddbmm, addbmm (C, A, B)   2*b*M*K*N
//   matmul (A, B), as torch.matmul: 1-D operands get a unit dimension,
//     batch dimensions broadcast                           2*batch*M*K*N
//   linear (X[..., K], W[N, K], bias)                     2*prod(X[:-1])*K*N
//   convolution (X[n, C, S...], W[Co, C/g, k...]):        2*n*Co*prod(So)*(C/g)*prod(k)
//     with So[i] = (S[i] + 2*pad[i] - dil[i]*(k[i]-1) - 1) / stride[i] + 1
//     from "Concrete Inputs", else So from `conv_outputs` (may be null);
//   transposed convolution (W[C, Co/g, k...]):             2*n*prod(S)*C*(Co/g)*prod(k)
//   convolution backward: the forward count per gradient computed (input,
//     weight): output_mask from "Concrete Inputs", else `grads_hint` when > 0
//     (the caller counts child *_backward_input / *_backward_weight ops),
//     else 2.
// Returns why_not set (flops 0) for other ops and missing or malformed
// shapes.
FlopCount CountFlops(absl::string_view op_name, const OpInputs& inputs,
                     const ConvOutputShapes* conv_outputs, int grads_hint = 0);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_GEMM_FLOPS_H_
