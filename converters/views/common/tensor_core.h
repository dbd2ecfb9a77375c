// Tensor Core rules shared by the kernel-stats and overview views, so both
// pages agree on which kernels use Tensor Cores and which ops could.
#ifndef TBPROF_CONVERTERS_VIEWS_COMMON_TENSOR_CORE_H_
#define TBPROF_CONVERTERS_VIEWS_COMMON_TENSOR_CORE_H_

#include "absl/strings/string_view.h"

namespace tbprof::views {

// True if the kernel name contains one of the plugin's Tensor Core kernel
// patterns (cuBLAS/cuDNN naming: "h884", "s1688", "16816", "hmma",
// "xmma_gemm", ...).
bool IsKernelUsingTensorCore(absl::string_view kernel_name);

// True if the op could use Tensor Cores: the plugin's TensorFlow rules
// (Conv2D*, Conv3D, DepthwiseConv2dNative*, /MatMul, FusedMatMul,
// BatchMatMul, CudnnRNN*, XlaDot*; einsums go by IsEinsumTensorCoreEligible)
// plus PyTorch GEMM, attention and
// convolution ops (aten::mm, addmm, bmm, baddbmm, matmul, linear, einsum,
// aten::*conv*, aten::*scaled_dot_product*).
bool IsOpTensorCoreEligible(absl::string_view op_name);

// True for an einsum equation with exactly two inputs ("ab,bc->ac").
bool IsEinsumTensorCoreEligible(absl::string_view equation);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_COMMON_TENSOR_CORE_H_
