#include "converters/views/distributed/collective_bandwidth.h"

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

TEST(CollectiveBandwidthTest, KindFromPyTorchNames) {
  EXPECT_EQ(CollectiveKindFromName("allreduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromName("allreduce_coalesced"), CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromName("nccl:all_reduce"), CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromName("c10d::allreduce_"), CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromName("_allgather_base"), CollectiveKind::kAllGather);
  EXPECT_EQ(CollectiveKindFromName("all_gather_into_tensor_coalesced"),
            CollectiveKind::kAllGather);
  EXPECT_EQ(CollectiveKindFromName("_reduce_scatter_base"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveKindFromName("reduce_scatter_tensor_coalesced"),
            CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveKindFromName("all_to_allv"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveKindFromName("c10d::alltoall_base_"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveKindFromName("nccl:all_to_all"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveKindFromName("broadcast"), CollectiveKind::kBroadcast);
  EXPECT_EQ(CollectiveKindFromName("reduce"), CollectiveKind::kReduce);
  EXPECT_EQ(CollectiveKindFromName("send"), CollectiveKind::kSend);
  EXPECT_EQ(CollectiveKindFromName("recvAnySource"), CollectiveKind::kRecv);
  EXPECT_EQ(CollectiveKindFromName("barrier"), CollectiveKind::kBarrier);
  EXPECT_EQ(CollectiveKindFromName("aten::mm"), CollectiveKind::kUnknown);
  EXPECT_EQ(CollectiveKindFromName("coalesced"), CollectiveKind::kUnknown);
  EXPECT_EQ(CollectiveKindFromName(""), CollectiveKind::kUnknown);
  EXPECT_EQ(CollectiveKindName(CollectiveKind::kReduceScatter), "reduce_scatter");
  EXPECT_EQ(CollectiveKindName(CollectiveKind::kUnknown), "unknown");
}

TEST(CollectiveBandwidthTest, KernelNames) {
  EXPECT_TRUE(IsCollectiveKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"));
  EXPECT_TRUE(IsCollectiveKernelName("void ncclDevKernel_Generic(ncclDevComm*)"));
  EXPECT_TRUE(IsCollectiveKernelName("rcclKernel_x"));
  EXPECT_FALSE(IsCollectiveKernelName("volta_sgemm_128x64_nn"));
  EXPECT_FALSE(IsCollectiveKernelName("MemcpyHToD"));

  EXPECT_EQ(CollectiveKindFromKernelName(
                "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)"),
            CollectiveKind::kSendRecv);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"),
            CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclDevKernel_AllGather_RING_LL(x)"),
            CollectiveKind::kAllGather);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclDevKernel_Broadcast_RING_LL"),
            CollectiveKind::kBroadcast);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclAllReduceRingLLKernel_sum_f32(ncclColl)"),
            CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveKindFromKernelName("ncclDevKernel_Generic(x)"), CollectiveKind::kUnknown);
  EXPECT_EQ(CollectiveKindFromKernelName("sgemm"), CollectiveKind::kUnknown);

  EXPECT_EQ(DtypeFromKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"), "float");
  EXPECT_EQ(DtypeFromKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)"), "int8_t");
  EXPECT_EQ(DtypeFromKernelName("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), "bf16");
  EXPECT_EQ(DtypeFromKernelName("ncclKernel_AllReduce_RING_LL_Sum___nv_bfloat16"), "bfloat16");
  EXPECT_EQ(DtypeFromKernelName("ncclDevKernel_AllGather_RING_LL"), "");
}

TEST(CollectiveBandwidthTest, DtypeBytes) {
  EXPECT_EQ(DtypeBytes("Float"), 4);
  EXPECT_EQ(DtypeBytes("float"), 4);
  EXPECT_EQ(DtypeBytes("f32"), 4);
  EXPECT_EQ(DtypeBytes("BFloat16"), 2);
  EXPECT_EQ(DtypeBytes("c10::BFloat16"), 2);
  EXPECT_EQ(DtypeBytes("__nv_bfloat16"), 2);
  EXPECT_EQ(DtypeBytes("Half"), 2);
  EXPECT_EQ(DtypeBytes("c10::Half"), 2);
  EXPECT_EQ(DtypeBytes("Long"), 8);
  EXPECT_EQ(DtypeBytes("long int"), 8);
  EXPECT_EQ(DtypeBytes("int64_t"), 8);
  EXPECT_EQ(DtypeBytes("Double"), 8);
  EXPECT_EQ(DtypeBytes("Int"), 4);
  EXPECT_EQ(DtypeBytes("int"), 4);
  EXPECT_EQ(DtypeBytes("Char"), 1);
  EXPECT_EQ(DtypeBytes("unsigned char"), 1);
  EXPECT_EQ(DtypeBytes("int8_t"), 1);
  EXPECT_EQ(DtypeBytes("Bool"), 1);
  EXPECT_EQ(DtypeBytes("Float8_e4m3fn"), 1);
  EXPECT_EQ(DtypeBytes("f8e5m2"), 1);
  EXPECT_EQ(DtypeBytes("ComplexFloat"), 8);
  EXPECT_EQ(DtypeBytes("TensorList"), 0);
  EXPECT_EQ(DtypeBytes(""), 0);
}

// NCCL-tests' size convention, one case per rule.
TEST(CollectiveBandwidthTest, MessageBytes) {
  // all_reduce of 1000 floats: S = 4000 B.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllReduce, 1000, 1000, 4), 4000);
  // all_gather, 8 ranks of 1000 bf16 each: S = the output, 8000 * 2 B.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllGather, 1000, 8000, 2), 16000);
  // reduce_scatter of 8000 floats into 1000 per rank: S = the input.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kReduceScatter, 8000, 1000, 4), 32000);
  // all_to_all: what the rank sends.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllToAll, 6144, 6144, 4), 24576);
  // recv: PyTorch records only the output count.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kRecv, 0, 256, 8), 2048);
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kSend, 256, -1, 8), 2048);
  // Input unknown: the output.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kBroadcast, -1, 10, 4), 40);
  // Unknown type or counts: 0.
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllReduce, 1000, 1000, 0), 0);
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllGather, 1000, -1, 4), 0);
  EXPECT_EQ(CollectiveMessageBytes(CollectiveKind::kAllReduce, int64_t{1} << 62, 0, 4), 0);
}

TEST(CollectiveBandwidthTest, BusFactors) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 8), 1.75);      // 2*7/8
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 2), 1.0);       // 2*1/2
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllGather, 4), 0.75);      // 3/4
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kReduceScatter, 8), 0.875);  // 7/8
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllToAll, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kSend, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kRecv, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kBarrier, 8), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 0), 0.0);
}

TEST(CollectiveBandwidthTest, Bandwidths) {
  // 1 GB in 10 ms = 100 GB/s; all_reduce over 8 ranks: 175 GB/s on the bus.
  const int64_t bytes = 1000000000;
  const int64_t ten_ms_ps = 10'000'000'000;
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(bytes, ten_ms_ps), 100.0);
  EXPECT_DOUBLE_EQ(BusBandwidthGBps(CollectiveKind::kAllReduce, 8, bytes, ten_ms_ps), 175.0);
  // 24576 B in 10 us = 2.4576 GB/s; all_to_all over 8: * 7/8 = 2.1504.
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(24576, 10'000'000), 2.4576);
  EXPECT_DOUBLE_EQ(BusBandwidthGBps(CollectiveKind::kAllToAll, 8, 24576, 10'000'000), 2.1504);
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(0, 10), 0.0);
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(10, 0), 0.0);
}

}  // namespace
}  // namespace tbprof::views
