#include "converters/views/common/tensor_core.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace tbprof::views {
namespace {

constexpr absl::string_view kTensorCoreKernelPatterns[] = {
    "16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
    "first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688",
    "xmma_gemm", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_sparse_gemm",
    "xmma_warp_specialized_implicit_gemm"};

constexpr absl::string_view kEligibleTfOpSuffixes[] = {
    "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "/MatMul",
    "FusedMatMul", "/CudnnRNN", "XlaDot", "XlaDotV2"};

constexpr absl::string_view kEligibleTfOpParts[] = {"BatchMatMul", "CudnnRNNV", "CudnnRNNForward",
                                                    "CudnnRNNBackprop"};

constexpr absl::string_view kEligibleAtenOps[] = {"mm",     "addmm",  "bmm",    "baddbmm",
                                                  "matmul", "linear", "einsum", "addbmm",
                                                  "_addmm_activation"};

}  // namespace

bool IsKernelUsingTensorCore(absl::string_view kernel_name) {
  for (absl::string_view pattern : kTensorCoreKernelPatterns) {
    if (absl::StrContains(kernel_name, pattern)) return true;
  }
  return false;
}

bool IsOpTensorCoreEligible(absl::string_view op) {
  for (absl::string_view suffix : kEligibleTfOpSuffixes) {
    if (absl::EndsWith(op, suffix)) return true;
  }
  for (absl::string_view part : kEligibleTfOpParts) {
    if (absl::StrContains(op, part)) return true;
  }
  if (!absl::StartsWith(op, "aten::")) return false;
  absl::string_view aten = op.substr(6);
  for (absl::string_view exact : kEligibleAtenOps) {
    if (aten == exact) return true;
  }
  return absl::StrContains(aten, "conv") || absl::StrContains(aten, "scaled_dot_product");
}

bool IsEinsumTensorCoreEligible(absl::string_view equation) {
  size_t arrow = equation.find("->");
  if (arrow == absl::string_view::npos) return false;
  if (equation.find("->", arrow + 2) != absl::string_view::npos) return false;
  absl::string_view inputs = equation.substr(0, arrow);
  return std::count(inputs.begin(), inputs.end(), ',') == 1;
}

}  // namespace tbprof::views
