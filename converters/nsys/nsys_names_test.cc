#include "converters/nsys/nsys_names.h"

#include "gtest/gtest.h"

namespace tbprof::converters::nsys {
namespace {

TEST(NsysNamesTest, PytorchNvtxRanges) {
  NvtxRangeName n = ParseNvtxRangeName("aten::view, op_id = 314290");
  EXPECT_EQ(n.name, "aten::view");
  EXPECT_TRUE(n.pytorch_op);
  n = ParseNvtxRangeName("aten::mm, seq = 3, op_id = 17, sizes = [[2, 2], [2, 2]]");
  EXPECT_EQ(n.name, "aten::mm");
  n = ParseNvtxRangeName("FSDP::pre_forward (shared), op_id = 317171");
  EXPECT_EQ(n.name, "FSDP::pre_forward (shared)");
  n = ParseNvtxRangeName("MPI_Send");
  EXPECT_EQ(n.name, "MPI_Send");
  EXPECT_FALSE(n.pytorch_op);
  n = ParseNvtxRangeName("ProfilerStep#12, op_id = 5");
  EXPECT_TRUE(n.is_step);
  EXPECT_EQ(n.step, 12);
  EXPECT_FALSE(n.pytorch_op);
  EXPECT_FALSE(ParseNvtxRangeName("ProfilerStep#x").is_step);
}

TEST(NsysNamesTest, ApiEnumsAndIds) {
  EXPECT_EQ(StripApiVersionSuffix("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersionSuffix("cudaMemcpy"), "cudaMemcpy");
  EXPECT_EQ(StripApiVersionSuffix("cu_vx"), "cu_vx");
  EXPECT_EQ(MemcpyDirectionOfCopyKind(1), MemcpyDirection::kHToD);
  EXPECT_EQ(MemcpyDirectionOfCopyKind(2), MemcpyDirection::kDToH);
  EXPECT_EQ(MemcpyDirectionOfCopyKind(8), MemcpyDirection::kDToD);
  EXPECT_EQ(MemcpyDirectionOfCopyKind(10), MemcpyDirection::kPToP);
  EXPECT_EQ(MemcpyDirectionOfCopyKind(99), MemcpyDirection::kUnknown);
  EXPECT_EQ(MemoryKindName(2), "pinned");
  EXPECT_EQ(MemoryKindName(-1), "unknown");
  EXPECT_EQ(SyncTypeName(2), "cuStreamWaitEvent");
  EXPECT_EQ(PidOfGlobalId(281476838981743), 111);
  EXPECT_EQ(TidOfGlobalId(281476838981743), 111);
  EXPECT_TRUE(XprofParsesAsOpName("nccl:all_reduce"));
  EXPECT_FALSE(XprofParsesAsOpName("aten::mm"));
}

}  // namespace
}  // namespace tbprof::converters::nsys
