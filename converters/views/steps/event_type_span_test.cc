#include "converters/views/steps/event_type_span.h"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::views {

// Found by argument-dependent lookup from gmock.
bool operator==(const EventTypeSpan& a, const EventTypeSpan& b) {
  return a.begin_ps == b.begin_ps && a.end_ps == b.end_ps && a.type == b.type;
}

void PrintTo(const EventTypeSpan& s, std::ostream* os) {
  *os << "(" << EventTypeName(s.type) << ", " << s.begin_ps << ".." << s.end_ps << ")";
}

namespace {

TEST(ClassifyGpuEventTest, MemcpyKindsByPrefixIgnoringCase) {
  EXPECT_EQ(ClassifyGpuEvent("MemcpyHToD", ""), kHostToDevice);
  EXPECT_EQ(ClassifyGpuEvent("memcpyHtoD (Pageable -> Device)", ""), kHostToDevice);
  EXPECT_EQ(ClassifyGpuEvent("MemcpyDToH", ""), kDeviceToHost);
  EXPECT_EQ(ClassifyGpuEvent("MemcpyDToD", ""), kDeviceToDevice);
  // XLA's own names do not match and count as compute, as in the plugin.
  EXPECT_EQ(ClassifyGpuEvent("MemcpyH2D", ""), kDeviceCompute32);
  // A "name:Type" op is never a memcpy.
  EXPECT_EQ(ClassifyGpuEvent("MemcpyHToD:Foo", ""), kDeviceCompute32);
  // HToH is not a device transfer: compute, like the plugin.
  EXPECT_EQ(ClassifyGpuEvent("MemcpyHToH", ""), kDeviceCompute32);
}

TEST(ClassifyGpuEventTest, CollectivesAndPrecision) {
  EXPECT_EQ(ClassifyGpuEvent("ncclKernel_AllReduce_RING_LL_Sum_float", ""), kDeviceCollectives);
  EXPECT_EQ(ClassifyGpuEvent("NCCL_AllGather", ""), kDeviceCollectives);
  EXPECT_EQ(ClassifyGpuEvent("volta_fp16_s884gemm", ""), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("void gemv<half>", ""), kDeviceCompute16);
  // Unlike the plugin, bf16, fp8 and tf32 kernels are reduced precision too.
  EXPECT_EQ(ClassifyGpuEvent("ampere_bf16_s16816gemm", ""), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", ""), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("void softmax_warp_forward<c10::BFloat16, float>", ""),
            kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32", ""), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4", ""),
            kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("void elementwise_kernel<BinaryFunctor<float, float>>", ""),
            kDeviceCompute32);
  EXPECT_EQ(ClassifyGpuEvent("volta_sgemm_128x64_nn", ""), kDeviceCompute32);
  // With shapes, only the shapes decide.
  EXPECT_EQ(ClassifyGpuEvent("volta_sgemm", "(half[4,8])"), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("volta_sgemm", "(bfloat16[4,8])"), kDeviceCompute16);
  EXPECT_EQ(ClassifyGpuEvent("kernel_fp16", "(float[4,8])"), kDeviceCompute32);
}

TEST(ClassifyCpuEventTest, RuleOrder) {
  EXPECT_EQ(ClassifyCpuEvent("MemcpyHToD", true, true, false), kHostToDevice);
  EXPECT_EQ(ClassifyCpuEvent("MemcpyHToH", true, false, false), kHostToHost);
  EXPECT_EQ(ClassifyCpuEvent("cudaLaunchKernel", /*has_device=*/true, /*corr=*/true, false),
            kHostPrepare);
  EXPECT_EQ(ClassifyCpuEvent("cudaLaunchKernel", /*has_device=*/false, /*corr=*/true, false),
            kHostCompute);
  EXPECT_EQ(ClassifyCpuEvent("ExecutorState::Process", true, false, false), kHostPrepare);
  EXPECT_EQ(ClassifyCpuEvent("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                             true, false, false),
            kHostWaitInput);
  EXPECT_EQ(ClassifyCpuEvent("IteratorGetNext", true, false, false), kHostWaitInput);
  EXPECT_EQ(ClassifyCpuEvent("load_batch", true, false, /*root_stage=*/true), kHostWaitInput);
  EXPECT_EQ(ClassifyCpuEvent("aten::conv2d", true, false, false), kHostCompute);
}

TEST(IsRealCpuComputeTest, WrappersAndMarkers) {
  EXPECT_FALSE(IsRealCpuCompute("EagerExecute: MatMul"));
  EXPECT_FALSE(IsRealCpuCompute("FunctionRun"));
  EXPECT_FALSE(IsRealCpuCompute("train_step"));
  EXPECT_FALSE(IsRealCpuCompute("TraceContext"));
  EXPECT_FALSE(IsRealCpuCompute("train.py(42): train_one_epoch"));
  EXPECT_FALSE(IsRealCpuCompute("<built-in method conv2d of type object>"));
  EXPECT_TRUE(IsRealCpuCompute("train/step/MatMul"));  // Has '/': not a marker.
  EXPECT_TRUE(IsRealCpuCompute("aten::addmm"));
}

TEST(OverlapResolverTest, HighestTypeWinsAtEachInstant) {
  OverlapResolver resolver;
  std::vector<EventTypeSpan> spans = {
      {/*begin_ps=*/0, /*end_ps=*/100, kDeviceCompute32},
      {/*begin_ps=*/50, /*end_ps=*/150, kHostWaitInput},
      {/*begin_ps=*/60, /*end_ps=*/70, kHostCompute},
      {/*begin_ps=*/200, /*end_ps=*/250, kHostToDevice},
  };
  std::vector<EventTypeSpan> pieces = resolver.ToNonOverlapped(spans);
  EXPECT_THAT(pieces, ::testing::ElementsAre(
                          EventTypeSpan{0, 50, kDeviceCompute32},
                          EventTypeSpan{50, 60, kDeviceCompute32},
                          EventTypeSpan{60, 70, kDeviceCompute32},
                          EventTypeSpan{70, 100, kDeviceCompute32},
                          EventTypeSpan{100, 150, kHostWaitInput},
                          EventTypeSpan{150, 200, kUnknownTime},
                          EventTypeSpan{200, 250, kHostToDevice}));
}

TEST(OverlapResolverTest, LowerTypeResumesWhenHigherEnds) {
  OverlapResolver resolver;
  std::vector<EventTypeSpan> spans = {
      {0, 100, kHostCompute},
      {20, 40, kHostPrepare},
      {30, 35, kDeviceCompute16},
  };
  ResolvedBreakdown b;
  resolver.Resolve(spans, /*window_begin_ps=*/0, /*window_end_ps=*/100, &b);
  EXPECT_EQ(b.type_ps[kHostCompute], 80u);
  EXPECT_EQ(b.type_ps[kHostPrepare], 15u);
  EXPECT_EQ(b.type_ps[kDeviceCompute16], 5u);
  EXPECT_EQ(b.compute_16bit_ps, 5u);
  EXPECT_EQ(b.compute_32bit_ps, 0u);
}

TEST(OverlapResolverTest, ClipsToWindowButPresenceAndPrecisionAreUnclipped) {
  OverlapResolver resolver;
  std::vector<EventTypeSpan> spans = {
      {0, 100, kDeviceCompute32},
      {300, 400, kDeviceToHost},
  };
  ResolvedBreakdown b;
  resolver.Resolve(spans, /*window_begin_ps=*/50, /*window_end_ps=*/350, &b);
  EXPECT_EQ(b.type_ps[kDeviceCompute32], 50u);
  EXPECT_EQ(b.type_ps[kUnknownTime], 200u);
  EXPECT_EQ(b.type_ps[kDeviceToHost], 50u);
  EXPECT_TRUE(b.present[kDeviceCompute32]);
  EXPECT_EQ(b.compute_32bit_ps, 100u);
  EXPECT_FALSE(b.present[kHostWaitInput]);
}

TEST(OverlapResolverTest, EqualTypesOverlappingCountOnce) {
  OverlapResolver resolver;
  std::vector<EventTypeSpan> spans = {{0, 60, kDeviceCompute32}, {40, 100, kDeviceCompute32}};
  ResolvedBreakdown b;
  resolver.Resolve(spans, 0, 100, &b);
  EXPECT_EQ(b.type_ps[kDeviceCompute32], 100u);
  EXPECT_EQ(b.compute_32bit_ps, 100u);
}

// Spans with the same shape, once near 0 and once spread over more than
// 2^55 ps (past the packed-key sort's range), resolve to the same pieces;
// ties at equal times (ends before starts, higher type first) included.
TEST(OverlapResolverTest, HugeTimeRangesResolveLikeSmallOnes) {
  const std::vector<EventTypeSpan> small = {
      {0, 100, kHostCompute},     {20, 40, kHostPrepare},   {40, 60, kDeviceCompute16},
      {40, 60, kDeviceCompute32}, {60, 60, kHostWaitInput}, {90, 130, kDeviceToDevice},
  };
  const int64_t base = -(int64_t{1} << 62);
  const int64_t far = int64_t{1} << 62;
  std::vector<EventTypeSpan> huge = small;
  for (EventTypeSpan& s : huge) {
    s.begin_ps += base;
    s.end_ps += base;
  }
  huge.push_back({far, far + 10, kHostCompute});
  OverlapResolver resolver;
  std::vector<EventTypeSpan> small_pieces = resolver.ToNonOverlapped(small);
  std::vector<EventTypeSpan> huge_pieces = resolver.ToNonOverlapped(huge);
  ASSERT_EQ(huge_pieces.size(), small_pieces.size() + 2);  // + the gap and the far span.
  for (size_t i = 0; i < small_pieces.size(); ++i) {
    EXPECT_EQ(huge_pieces[i].begin_ps - base, small_pieces[i].begin_ps) << i;
    EXPECT_EQ(huge_pieces[i].end_ps - base, small_pieces[i].end_ps) << i;
    EXPECT_EQ(huge_pieces[i].type, small_pieces[i].type) << i;
  }
  EXPECT_EQ(huge_pieces.back().type, kHostCompute);
  EXPECT_EQ(huge_pieces.back().begin_ps, far);
}

// The resolution as first written: boundaries sorted as structs, the next
// winner found by scanning down the open counts. OverlapResolver must give
// the same pieces for any input.
std::vector<EventTypeSpan> ReferencePieces(const std::vector<EventTypeSpan>& spans) {
  struct B {
    int64_t time_ps;
    int order;
    EventType type;
    bool is_start;
  };
  std::vector<B> b;
  for (const EventTypeSpan& s : spans) {
    const int end_order = kNumEventTypeSlots - 1 - s.type;
    b.push_back({s.begin_ps, kNumEventTypeSlots + end_order, s.type, true});
    b.push_back({s.end_ps, end_order, s.type, false});
  }
  std::sort(b.begin(), b.end(), [](const B& x, const B& y) {
    return x.time_ps < y.time_ps || (x.time_ps == y.time_ps && x.order < y.order);
  });
  std::vector<EventTypeSpan> pieces;
  std::array<int32_t, kNumEventTypeSlots> open{};
  int current = kUnknownTime;
  for (size_t i = 0; i + 1 < b.size(); ++i) {
    if (b[i].is_start) {
      // A start that brings a count back to 0 closes a zero-length span.
      if (++open[b[i].type] > 0 && b[i].type > current) current = b[i].type;
    } else {
      --open[b[i].type];
      if (b[i].type == current && open[b[i].type] == 0) {
        current = kUnknownTime;
        for (int t = b[i].type - 1; t >= 0; --t) {
          if (open[t] > 0) {
            current = t;
            break;
          }
        }
      }
    }
    pieces.push_back({b[i].time_ps, b[i + 1].time_ps, static_cast<EventType>(current)});
  }
  return pieces;
}

// Random spans on time grids of 1 ps, 1 ns and 1 us (the packed sort scales
// by the grid), with zero-length spans, equal times, negative times and all
// event types, below and above the size where the radix sort starts.
TEST(OverlapResolverTest, MatchesReferenceOnRandomSpans) {
  const EventType kTypes[] = {kUnknownTime,      kHostCompute,      kHostWaitInput,
                              kHostPrepare,      kHostToDevice,     kDeviceCollectives,
                              kDeviceToHost,     kDeviceCompute32,  kDeviceCompute16,
                              kDeviceWaitHost,   kHostToHost,       kDeviceToDevice,
                              kHostPreprocess,   kHostPostprocess,  kHostBatchFormation,
                              kHostRuntime,      kHostCompile,      kDeviceWaitDevice};
  std::mt19937_64 rng(7);
  OverlapResolver resolver;
  for (int64_t grid : {int64_t{1}, int64_t{1000}, int64_t{1000000}, int64_t{3000}}) {
    for (int64_t offset : {int64_t{0}, int64_t{-5000000000}, int64_t{123}, int64_t{1} << 40}) {
      for (size_t n : {1u, 7u, 200u, 300u, 5000u}) {
        for (int64_t range : {int64_t{50}, int64_t{100000}, int64_t{1} << 30}) {
          SCOPED_TRACE(testing::Message() << "grid=" << grid << " offset=" << offset
                                          << " n=" << n << " range=" << range);
          std::vector<EventTypeSpan> spans(n);
          for (EventTypeSpan& s : spans) {
            const int64_t begin = static_cast<int64_t>(rng() % range);
            const int64_t length =
                rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % (range / 8 + 1));
            s.begin_ps = offset + begin * grid;
            s.end_ps = offset + (begin + length) * grid;
            s.type = kTypes[rng() % (sizeof(kTypes) / sizeof(kTypes[0]))];
          }
          ASSERT_EQ(resolver.ToNonOverlapped(spans), ReferencePieces(spans));
        }
      }
    }
  }
}

// Kineto writes kernels with `dur` 0. One in a gap between kernels is no
// device time: the gap stays unknown (it was counted as compute until the
// next compute span ended: ~3.9 ms per step on the ResNet-50 workers0
// trace). Same with a higher type open, and for a zero-length span at the
// start or end of another of its type.
TEST(OverlapResolverTest, ZeroLengthSpanInAGapIsNotBusyTime) {
  OverlapResolver resolver;
  ResolvedBreakdown b;
  resolver.Resolve({{0, 10, kDeviceCompute32},
                    {20, 20, kDeviceCompute32},
                    {30, 40, kDeviceCompute32},
                    {40, 40, kDeviceCompute32},
                    {45, 45, kDeviceCompute16},
                    {50, 50, kDeviceCompute32},
                    {50, 60, kDeviceCompute32},
                    {0, 100, kHostCompute}},
                   0, 100, &b);
  EXPECT_EQ(b.type_ps[kDeviceCompute32], 30u);
  EXPECT_EQ(b.type_ps[kDeviceCompute16], 0u);
  EXPECT_EQ(b.type_ps[kHostCompute], 70u);
  EXPECT_EQ(b.compute_32bit_ps, 30u);
  EXPECT_EQ(b.compute_16bit_ps, 0u);

  // xprof's resolution (device-only breakdown): the gap after the kernel at
  // 20 counts as compute until the kernel at 30 ends.
  OverlapResolver xprof;
  xprof.set_xprof_zero_length_quirk(true);
  ResolvedBreakdown x;
  xprof.Resolve({{0, 10, kDeviceCompute32}, {20, 20, kDeviceCompute32}, {30, 40, kDeviceCompute32},
                 {0, 100, kHostCompute}},
                0, 100, &x);
  EXPECT_EQ(x.type_ps[kDeviceCompute32], 30u);
  EXPECT_EQ(x.type_ps[kHostCompute], 70u);
}

// Every piece of positive length is typed with the highest type of the
// spans that cover it, kUnknownTime if none (brute force, small inputs).
TEST(OverlapResolverTest, PositivePiecesTakeTheHighestCoveringType) {
  const EventType kTypes[] = {kHostCompute, kHostWaitInput, kHostPrepare, kHostToDevice,
                              kDeviceToHost, kDeviceCompute32, kDeviceCompute16};
  std::mt19937_64 rng(11);
  OverlapResolver resolver;
  for (int round = 0; round < 200; ++round) {
    std::vector<EventTypeSpan> spans(1 + rng() % 40);
    for (EventTypeSpan& s : spans) {
      s.begin_ps = static_cast<int64_t>(rng() % 100);
      s.end_ps = s.begin_ps + (rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 20));
      s.type = kTypes[rng() % (sizeof(kTypes) / sizeof(kTypes[0]))];
    }
    for (const EventTypeSpan& piece : resolver.ToNonOverlapped(spans)) {
      if (piece.end_ps == piece.begin_ps) continue;
      int expected = kUnknownTime;
      for (const EventTypeSpan& s : spans) {
        if (s.begin_ps <= piece.begin_ps && piece.end_ps <= s.end_ps) {
          expected = std::max<int>(expected, s.type);
        }
      }
      ASSERT_EQ(piece.type, expected) << "round " << round << " piece " << piece.begin_ps;
    }
  }
}

TEST(OverlapResolverTest, EmptyInputGivesNothing) {
  OverlapResolver resolver;
  ResolvedBreakdown b;
  resolver.Resolve({}, 0, 100, &b);
  EXPECT_TRUE(b.present.none());
  EXPECT_TRUE(resolver.ToNonOverlapped({}).empty());
}

}  // namespace
}  // namespace tbprof::views
