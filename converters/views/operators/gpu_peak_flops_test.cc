#include "converters/views/operators/gpu_peak_flops.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;

GpuSpec Spec(const std::string& name, int major, int minor, int64_t sms, int64_t clock_khz = 0) {
  GpuSpec s;
  s.name = name;
  s.compute_major = major;
  s.compute_minor = minor;
  s.sm_count = sms;
  s.clock_khz = clock_khz;
  return s;
}

// Each table row reproduces the vendor's published dense peaks.
TEST(GpuPeakFlopsTest, ReproducesPublishedPeaks) {
  std::string why;
  // H100 SXM5: 132 SMs x 4096 x 1830 MHz = 989.4 TFLOPS BF16.
  auto h100 = PeakFlopsOf(Spec("NVIDIA H100 80GB HBM3", 9, 0, 132), &why);
  ASSERT_TRUE(h100.has_value()) << why;
  EXPECT_THAT(h100->Tflops(PeakUnit::kFp16Tensor), DoubleNear(989.4, 0.1));
  EXPECT_THAT(h100->Tflops(PeakUnit::kTf32Tensor), DoubleNear(494.7, 0.1));
  EXPECT_THAT(h100->Tflops(PeakUnit::kFp8Tensor), DoubleNear(1978.9, 0.1));
  EXPECT_EQ(h100->clock_mhz, 1830);
  EXPECT_THAT(h100->clock_source, HasSubstr("table: H100 SXM5"));
  EXPECT_EQ(h100->architecture, "Hopper (sm_90)");
  // V100: 80 SMs x 1024 x 1530 MHz = 125.3 TFLOPS; FP32 15.7.
  auto v100 = PeakFlopsOf(Spec("Tesla V100-SXM2-32GB", 7, 0, 80), &why);
  ASSERT_TRUE(v100.has_value());
  EXPECT_THAT(v100->Tflops(PeakUnit::kFp16Tensor), DoubleNear(125.3, 0.1));
  EXPECT_THAT(v100->Tflops(PeakUnit::kFp32), DoubleNear(15.7, 0.1));
  EXPECT_EQ(v100->Tflops(PeakUnit::kTf32Tensor), 0);
  // DGX Station V100 and V100 PCIe.
  EXPECT_EQ(PeakFlopsOf(Spec("Tesla V100-DGXS-32GB", 7, 0, 80), &why)->clock_mhz, 1530);
  EXPECT_EQ(PeakFlopsOf(Spec("Tesla V100-PCIE-32GB", 7, 0, 80), &why)->clock_mhz, 1380);
  // A100: 108 x 2048 x 1410 MHz = 311.9 TFLOPS.
  auto a100 = PeakFlopsOf(Spec("NVIDIA A100-SXM4-80GB", 8, 0, 108), &why);
  ASSERT_TRUE(a100.has_value());
  EXPECT_THAT(a100->Tflops(PeakUnit::kFp16Tensor), DoubleNear(311.9, 0.1));
  EXPECT_THAT(a100->Tflops(PeakUnit::kFp32), DoubleNear(19.5, 0.1));
  // "A10" is a word of its own, not a prefix of "A100".
  EXPECT_EQ(PeakFlopsOf(Spec("NVIDIA A10", 8, 6, 72), &why)->clock_mhz, 1695);
  EXPECT_EQ(PeakFlopsOf(Spec("NVIDIA L40S", 8, 9, 142), &why)->clock_mhz, 2520);
  EXPECT_EQ(PeakFlopsOf(Spec("NVIDIA L4", 8, 9, 58), &why)->clock_mhz, 2040);
  EXPECT_EQ(PeakFlopsOf(Spec("NVIDIA H100 PCIe", 9, 0, 114), &why)->clock_mhz, 1620);
  // MI300X: 304 CUs x 2048 x 2100 MHz = 1307.4 TFLOPS.
  auto mi300 = PeakFlopsOf(Spec("AMD Instinct MI300X", 9, 4, 304), &why);
  ASSERT_TRUE(mi300.has_value());
  EXPECT_THAT(mi300->Tflops(PeakUnit::kFp16Tensor), DoubleNear(1307.4, 0.1));
}

TEST(GpuPeakFlopsTest, ClockFromTraceWinsThenAssumed) {
  std::string why;
  // deviceProperties.clockRate 1980000 kHz: 132 x 4096 x 1980 MHz.
  auto traced = PeakFlopsOf(Spec("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980000), &why);
  ASSERT_TRUE(traced.has_value());
  EXPECT_EQ(traced->clock_source, "deviceProperties");
  EXPECT_THAT(traced->Tflops(PeakUnit::kFp16Tensor), DoubleNear(132 * 4096 * 1.98e9 / 1e12, 1e-6));
  auto unknown_model = PeakFlopsOf(Spec("Some Hopper", 9, 0, 100), &why);
  ASSERT_TRUE(unknown_model.has_value());
  EXPECT_THAT(unknown_model->clock_source, HasSubstr("assumed: 1830 MHz"));
}

TEST(GpuPeakFlopsTest, UnknownDevices) {
  std::string why;
  EXPECT_FALSE(PeakFlopsOf(Spec("NVIDIA B200", 10, 0, 148), &why).has_value());
  EXPECT_THAT(why, HasSubstr("compute capability 10.0"));
  EXPECT_FALSE(PeakFlopsOf(Spec("NVIDIA H100 80GB HBM3", 9, 0, 0), &why).has_value());
  EXPECT_THAT(why, HasSubstr("SM count"));
  EXPECT_FALSE(PeakFlopsOf(Spec("", 0, 0, 0), &why).has_value());
  EXPECT_FALSE(PeakFlopsOf(Spec("AMD Instinct MI250X", 9, 0, 220), &why).has_value());
}

TEST(GpuPeakFlopsTest, UnitForDtype) {
  EXPECT_EQ(PeakUnitForDtype("bf16", false), PeakUnit::kFp16Tensor);
  EXPECT_EQ(PeakUnitForDtype("fp16", true), PeakUnit::kFp16Tensor);
  EXPECT_EQ(PeakUnitForDtype("fp32", false), PeakUnit::kFp32);
  EXPECT_EQ(PeakUnitForDtype("fp32", true), PeakUnit::kTf32Tensor);
  EXPECT_EQ(PeakUnitForDtype("fp8", true), PeakUnit::kFp8Tensor);
  EXPECT_FALSE(PeakUnitForDtype("fp64", false).has_value());
  EXPECT_FALSE(PeakUnitForDtype("", false).has_value());
}

}  // namespace
}  // namespace tbprof::views
