#include "src/base/phase_timings.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;

TEST(PhaseTimingsTest, RecordsScopesInEndOrderWithCpuTime) {
  PhaseTimings timings;
  {
    ScopedPhase outer(&timings, "outer");
    {
      ScopedPhase inner(&timings, "inner");
      volatile uint64_t sink = 0;
      for (uint64_t i = 0; i < 20'000'000; ++i) sink = sink + i;
    }
  }
  const auto phases = timings.phases();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].name, "inner");
  EXPECT_EQ(phases[1].name, "outer");
  EXPECT_GT(phases[0].cpu_ns, 0);
  EXPECT_GE(phases[1].wall_ns, phases[0].wall_ns);
  EXPECT_LE(phases[1].start_ns, phases[0].start_ns);
  EXPECT_THAT(timings.Format(), HasSubstr("inner"));
}

TEST(PhaseTimingsTest, ThreadsRecordSafelyAndNullIsANoOp) {
  PhaseTimings timings;
  std::thread a([&] { ScopedPhase p(&timings, "a"); });
  std::thread b([&] { ScopedPhase p(&timings, "b"); });
  a.join();
  b.join();
  EXPECT_EQ(timings.phases().size(), 2u);
  { ScopedPhase nothing(nullptr, "ignored"); }
  EXPECT_EQ(timings.phases().size(), 2u);
  {
    ScopedPhase stopped(&timings, "stopped early");
    stopped.Stop();
    stopped.Stop();
  }
  EXPECT_EQ(timings.phases().size(), 3u);
}

}  // namespace
}  // namespace tbprof
