#include "converters/views/operators/gemm_flops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

OpInputs Inputs(std::vector<std::vector<int64_t>> dims, std::vector<std::string> types = {},
                std::vector<std::string> concrete = {}) {
  return OpInputs{std::move(dims), std::move(types), std::move(concrete)};
}

TEST(GemmFlopsTest, ParsesRecordedArguments) {
  std::vector<std::vector<int64_t>> dims;
  ASSERT_TRUE(ParseInputDims("[[64, 64],\n [], [3]]", &dims));
  EXPECT_THAT(dims, ElementsAre(ElementsAre(64, 64), IsEmpty(), ElementsAre(3)));
  ASSERT_TRUE(ParseInputDims("[]", &dims));
  EXPECT_THAT(dims, IsEmpty());
  EXPECT_FALSE(ParseInputDims("[[64, \"x\"]]", &dims));
  EXPECT_THAT(dims, IsEmpty());
  EXPECT_FALSE(ParseInputDims("[[1]] trailing", &dims));
  EXPECT_FALSE(ParseInputDims("", &dims));

  std::vector<std::string> types;
  ASSERT_TRUE(ParseStringList(R"(["float", "", "unsigned char", "a\"b"])", &types));
  EXPECT_THAT(types, ElementsAre("float", "", "unsigned char", "a\"b"));
  EXPECT_FALSE(ParseStringList("[1]", &types));

  std::vector<int64_t> ints;
  ASSERT_TRUE(ParseIntList("[2, 2]", &ints));
  EXPECT_THAT(ints, ElementsAre(2, 2));
  ASSERT_TRUE(ParseIntList(" 3 ", &ints));
  EXPECT_THAT(ints, ElementsAre(3));
  EXPECT_FALSE(ParseIntList("False", &ints));
  EXPECT_FALSE(ParseIntList("", &ints));
}

TEST(GemmFlopsTest, Dtypes) {
  EXPECT_EQ(DtypeOf("float"), "fp32");
  EXPECT_EQ(DtypeOf("c10::Half"), "fp16");
  EXPECT_EQ(DtypeOf("c10::BFloat16"), "bf16");
  EXPECT_EQ(DtypeOf("double"), "fp64");
  EXPECT_EQ(DtypeOf("c10::Float8_e4m3fn"), "fp8");
  EXPECT_EQ(DtypeOf("signed char"), "int8");
  EXPECT_EQ(DtypeOf("long int"), "");
  EXPECT_EQ(DtypeOf("GenericList"), "");
}

TEST(GemmFlopsTest, MatmulFamily) {
  // mm: A[M=64,K=32] x B[K=32,N=16]: 2*64*32*16 = 65536.
  FlopCount c = CountFlops("aten::mm", Inputs({{64, 32}, {32, 16}}, {"float", "float"}), nullptr);
  EXPECT_EQ(c.flops, 65536);
  EXPECT_EQ(c.dtype, "fp32");
  EXPECT_THAT(c.why_not, IsEmpty());
  // addmm(bias[16], A[64,32], B[32,16]): the bias is not counted.
  c = CountFlops("aten::addmm",
                 Inputs({{16}, {64, 32}, {32, 16}, {}, {}},
                        {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"}),
                 nullptr);
  EXPECT_EQ(c.flops, 65536);
  EXPECT_EQ(c.dtype, "bf16");
  // bmm: A[b=4,M=8,K=16] x B[4,16,N=2]: 2*4*8*16*2 = 2048.
  EXPECT_EQ(CountFlops("aten::bmm", Inputs({{4, 8, 16}, {4, 16, 2}}), nullptr).flops, 2048);
  EXPECT_EQ(CountFlops("aten::baddbmm", Inputs({{4, 8, 2}, {4, 8, 16}, {4, 16, 2}}), nullptr).flops,
            2048);
  // linear: X[2,3,K=8] x W[N=5,K=8]^T: 2*(2*3)*8*5 = 480.
  EXPECT_EQ(CountFlops("aten::linear", Inputs({{2, 3, 8}, {5, 8}, {5}}), nullptr).flops, 480);
  // matmul with broadcast batch: A[2,1,M=3,K=4] x B[5,K=4,N=6]: batch 2*5.
  EXPECT_EQ(CountFlops("aten::matmul", Inputs({{2, 1, 3, 4}, {5, 4, 6}}), nullptr).flops,
            2.0 * 10 * 3 * 4 * 6);
  // matmul of a vector and a matrix: [K=4] x [4, N=6] -> 2*1*4*6.
  EXPECT_EQ(CountFlops("aten::matmul", Inputs({{4}, {4, 6}}), nullptr).flops, 48);
  // Dot product [4] x [4] -> 2*4.
  EXPECT_EQ(CountFlops("aten::matmul", Inputs({{4}, {4}}), nullptr).flops, 8);
}

TEST(GemmFlopsTest, ConvolutionFromConcreteInputs) {
  // conv2d(X[n=2,C=3,8,8], W[Co=4,3,3,3], bias, stride [2,2], padding [1,1],
  // dilation [1,1], groups 1): So = (8 + 2 - 2 - 1) / 2 + 1 = 4 per side.
  // FLOPs = 2 * 2 * 4 * (4*4) * 3 * (3*3) = 6912.
  OpInputs in = Inputs({{2, 3, 8, 8}, {4, 3, 3, 3}, {4}, {}, {}, {}, {}},
                       {"c10::Half", "c10::Half", "c10::Half", "ScalarList", "ScalarList",
                        "ScalarList", "Int"},
                       {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"});
  FlopCount c = CountFlops("aten::conv2d", in, nullptr);
  EXPECT_EQ(c.flops, 6912);
  EXPECT_EQ(c.dtype, "fp16");
  // cudnn_convolution(self, weight, padding, stride, dilation, groups, ...):
  // the same call with padding before stride.
  OpInputs cudnn = Inputs({{2, 3, 8, 8}, {4, 3, 3, 3}, {}, {}, {}, {}},
                          {"c10::Half", "c10::Half"}, {"", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"});
  EXPECT_EQ(CountFlops("aten::cudnn_convolution", cudnn, nullptr).flops, 6912);
  // Grouped (depthwise) conv: W[Co=3, C/g=1, 3, 3], stride 1, padding 1:
  // So = 8x8; 2 * 2 * 3 * 64 * 1 * 9 = 6912.
  OpInputs depthwise = Inputs({{2, 3, 8, 8}, {3, 1, 3, 3}, {}, {}, {}, {}, {}}, {},
                              {"", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "3"});
  EXPECT_EQ(CountFlops("aten::conv2d", depthwise, nullptr).flops, 6912);
  // padding="same" keeps the size.
  OpInputs same = Inputs({{1, 2, 5, 5}, {2, 2, 3, 3}, {}, {}, {}, {}, {}}, {},
                         {"", "", "", "[1, 1]", "same", "[1, 1]", "1"});
  EXPECT_EQ(CountFlops("aten::conv2d", same, nullptr).flops, 2.0 * 1 * 2 * 25 * 2 * 9);
  // Transposed: X[n=1,C=4,3,3], W[C=4, Co/g=2, 2, 2]: 2 * 1 * 9 * 4 * 2 * 4 = 576.
  EXPECT_EQ(
      CountFlops("aten::conv_transpose2d", Inputs({{1, 4, 3, 3}, {4, 2, 2, 2}}), nullptr).flops,
      576);
  OpInputs transposed = Inputs({{1, 4, 3, 3}, {4, 2, 2, 2}, {}, {}, {}, {}, {}, {}, {}}, {},
                               {"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"});
  EXPECT_EQ(CountFlops("aten::convolution", transposed, nullptr).flops, 576);
}

TEST(GemmFlopsTest, ConvolutionOutputLearnedFromBackward) {
  // PyTorch 1.9: no Concrete Inputs. The backward call of the same shapes
  // (input [32,3,224,224], grad_output [32,64,112,112], weight [64,3,7,7])
  // gives the output size.
  const OpInputs forward = Inputs({{32, 3, 224, 224}, {64, 3, 7, 7}, {}, {}, {}, {}, {}, {}, {}},
                                  {"float", "float", "GenericList"});
  FlopCount unknown = CountFlops("aten::cudnn_convolution", forward, nullptr);
  EXPECT_EQ(unknown.flops, 0);
  EXPECT_THAT(unknown.why_not, HasSubstr("output size unknown"));

  ConvOutputShapes outputs;
  outputs.AddBackward("aten::cudnn_convolution_backward",
                      {{32, 3, 224, 224}, {32, 64, 112, 112}, {64, 3, 7, 7}, {}, {}});
  // 2 * 32 * 64 * (112*112) * 3 * (7*7) = 7,552,892,928.
  EXPECT_EQ(CountFlops("aten::cudnn_convolution", forward, &outputs).flops, 7552892928.0);
  // A second backward call of the same key with another output: ambiguous.
  outputs.AddBackward("aten::convolution_backward",
                      {{32, 64, 56, 56}, {32, 3, 224, 224}, {64, 3, 7, 7}});
  EXPECT_EQ(outputs.Find({32, 3, 224, 224}, {64, 3, 7, 7}), nullptr);
  EXPECT_EQ(CountFlops("aten::cudnn_convolution", forward, &outputs).flops, 0);
}

TEST(GemmFlopsTest, ConvolutionBackward) {
  // cudnn_convolution_backward(input [2,3,8,8], grad_output [2,4,4,4],
  // weight [4,3,3,3]): forward = 2*2*4*16*3*9 = 6912; both gradients: 13824.
  const OpInputs old = Inputs({{2, 3, 8, 8}, {2, 4, 4, 4}, {4, 3, 3, 3}});
  EXPECT_EQ(CountFlops("aten::cudnn_convolution_backward", old, nullptr).flops, 13824);
  // One gradient (the caller saw only a *_backward_weight child).
  EXPECT_EQ(CountFlops("aten::cudnn_convolution_backward", old, nullptr, 1).flops, 6912);
  // convolution_backward(grad_output, input, weight, ..., output_mask).
  OpInputs modern =
      Inputs({{2, 4, 4, 4}, {2, 3, 8, 8}, {4, 3, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}}, {},
             {"", "", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1",
              "[False, True, True]"});
  EXPECT_EQ(CountFlops("aten::convolution_backward", modern, nullptr).flops, 6912);
}

TEST(GemmFlopsTest, MissingOrMalformedShapes) {
  EXPECT_THAT(CountFlops("aten::mm", Inputs({}), nullptr).why_not, HasSubstr("no input shapes"));
  EXPECT_THAT(CountFlops("aten::mm", Inputs({{64}, {64, 8}}), nullptr).why_not, HasSubstr("2-D"));
  EXPECT_THAT(CountFlops("aten::mm", Inputs({{-1, 4}, {4, 4}}), nullptr).why_not,
              HasSubstr("negative"));
  EXPECT_THAT(CountFlops("aten::relu", Inputs({{4}}), nullptr).why_not, HasSubstr("not a GEMM"));
  EXPECT_EQ(FlopOpOf("aten::relu"), FlopOp::kNone);
  EXPECT_EQ(FlopOpOf("aten::addmm"), FlopOp::kMatmul);
  EXPECT_EQ(FlopOpOf("aten::cudnn_convolution"), FlopOp::kConvolution);
  EXPECT_EQ(FlopOpOf("aten::convolution_backward"), FlopOp::kConvolutionBackward);
  EXPECT_EQ(FlopOpOf("mm"), FlopOp::kNone);
}

}  // namespace
}  // namespace tbprof::views
