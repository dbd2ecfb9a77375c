#include "converters/common/kernel_details.h"

#include "gtest/gtest.h"

namespace tbprof::converters {
namespace {

TEST(KernelDetailsTest, FormatsInPluginOrder) {
  KernelDetails d;
  d.registers_per_thread = 64;
  d.static_shared_mem_bytes = 16384;
  d.dynamic_shared_mem_bytes = 0;
  d.grid[0] = 784;
  d.block[0] = 128;
  EXPECT_EQ(FormatKernelDetails(d),
            "regs:64 static_shared:16384 dynamic_shared:0 grid:784,1,1 block:128,1,1");
  d.has_occupancy = true;
  d.occupancy_pct = 37.5;
  EXPECT_EQ(FormatKernelDetails(d),
            "regs:64 static_shared:16384 dynamic_shared:0 grid:784,1,1 block:128,1,1 "
            "occ_pct:37.5");
  d.occupancy_pct = 50;
  EXPECT_NE(FormatKernelDetails(d).find("occ_pct:50"), std::string::npos);
}

TEST(KernelDetailsTest, RoundTrips) {
  KernelDetails d;
  d.registers_per_thread = 255;
  d.static_shared_mem_bytes = 1;
  d.dynamic_shared_mem_bytes = 2;
  d.grid[0] = 3;
  d.grid[1] = 4;
  d.grid[2] = 5;
  d.block[0] = 6;
  d.block[1] = 7;
  d.block[2] = 8;
  d.has_occupancy = true;
  d.occupancy_pct = 12.5;
  KernelDetails parsed;
  ASSERT_TRUE(ParseKernelDetails(FormatKernelDetails(d), &parsed));
  EXPECT_TRUE(parsed == d);
}

TEST(KernelDetailsTest, ParsesNewlinesAndUnknownKeys) {
  KernelDetails d;
  ASSERT_TRUE(ParseKernelDetails("regs:32\nfoo:bar static_shared:8\n\ngrid:2,2,1", &d));
  EXPECT_EQ(d.registers_per_thread, 32);
  EXPECT_EQ(d.static_shared_mem_bytes, 8);
  EXPECT_EQ(d.grid[1], 2);
  EXPECT_EQ(d.block[0], 1);
  EXPECT_FALSE(d.has_occupancy);
  KernelDetails bad;
  EXPECT_FALSE(ParseKernelDetails("grid:1,2 regs:x", &bad));
  EXPECT_EQ(bad.grid[0], 1);
}

}  // namespace
}  // namespace tbprof::converters
