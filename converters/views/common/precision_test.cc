#include "converters/views/common/precision.h"

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

TEST(PrecisionOfTextTest, ReducedTypesInKernelNamesAndInputTypes) {
  for (const char* text :
       {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
        "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>",
        "void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>",
        "void gemv<half>", "volta_fp16_s884gemm_fp16_128x128", "__nv_bfloat16",
        "sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32", "e5m2", "fp8_gemm", "Float8_e4m3fn",
        "sm80_xmma_gemm_f32f32_tf32f32_f32_nn", "turing_h1688gemm_256x128",
        "[\"c10::BFloat16\", \"ScalarList\"]", "[\"c10::Half\", \"c10::Half\"]",
        "(bfloat16[8,128])", "ampere_int8_i16832gemm"}) {
    EXPECT_EQ(PrecisionOfText(text), PrecisionHint::kReduced) << text;
  }
}

TEST(PrecisionOfTextTest, FullAndUnknown) {
  EXPECT_EQ(PrecisionOfText("void elementwise_kernel<BinaryFunctor<float, float, float>>"),
            PrecisionHint::kFull);
  EXPECT_EQ(PrecisionOfText("[\"float\", \"float\"]"), PrecisionHint::kFull);
  EXPECT_EQ(PrecisionOfText("(float[4,8])"), PrecisionHint::kFull);
  EXPECT_EQ(PrecisionOfText("sm80_xmma_gemm_f64f64_f64f64_f64_nn"), PrecisionHint::kFull);
  EXPECT_EQ(PrecisionOfText("ampere_dmma_gemm_16816"), PrecisionHint::kFull);  // fp64 MMA.
  EXPECT_EQ(PrecisionOfText("volta_sgemm_128x64_nn"), PrecisionHint::kUnknown);
  EXPECT_EQ(PrecisionOfText("void direct_copy_kernel_cuda"), PrecisionHint::kUnknown);
  EXPECT_EQ(PrecisionOfText(""), PrecisionHint::kUnknown);
  EXPECT_EQ(PrecisionOfText("HALF"), PrecisionHint::kUnknown);  // Case matters.
}

TEST(IsReducedPrecisionKernelTest, TensorCoreKernelsWithoutTypeNames) {
  EXPECT_TRUE(IsReducedPrecisionKernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32"));
  EXPECT_TRUE(IsReducedPrecisionKernel("volta_h884gemm_64x64"));
  // An unnamed-type Tensor Core kernel (xmma) is reduced precision.
  EXPECT_TRUE(IsReducedPrecisionKernel("xmma_gemm_tilesize128x128"));
  EXPECT_FALSE(IsReducedPrecisionKernel("volta_sgemm_128x64_nn"));
  EXPECT_FALSE(IsReducedPrecisionKernel("void elementwise_kernel<float>"));
  EXPECT_FALSE(IsReducedPrecisionKernel("sm80_xmma_gemm_f64f64_f64f64_f64_nn"));
}

}  // namespace
}  // namespace tbprof::views
