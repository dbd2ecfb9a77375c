#include "src/base/huge_pages.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof {
namespace {

constexpr uintptr_t kMB = uintptr_t{1} << 20;

const void* At(uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(HugePageSpanOfTest, WholeAlignedPagesInside) {
  // 1 MB past a 2 MB boundary, 9 MB long: the pages at 2 MB .. 8 MB (the
  // last 2 MB page would end at 10 MB, past the end at 9 MB + 1 MB offset).
  const uintptr_t base = 64 * kMB;
  HugePageSpan span = HugePageSpanOf(At(base + kMB), 9 * kMB);
  EXPECT_EQ(span.first, base + 2 * kMB);
  EXPECT_EQ(span.last, base + 10 * kMB);
  EXPECT_EQ(span.bytes(), 8 * kMB);
  // Aligned start and end: all of it.
  span = HugePageSpanOf(At(base), 6 * kMB);
  EXPECT_EQ(span.first, base);
  EXPECT_EQ(span.last, base + 6 * kMB);
}

TEST(HugePageSpanOfTest, SmallOrNullArraysAreLeftAlone) {
  EXPECT_EQ(HugePageSpanOf(At(64 * kMB), kHugePageMinBytes - 1).bytes(), 0u);
  EXPECT_EQ(HugePageSpanOf(nullptr, 64 * kMB).bytes(), 0u);
  // Exactly the minimum, aligned: two pages.
  EXPECT_EQ(HugePageSpanOf(At(64 * kMB), kHugePageMinBytes).bytes(), kHugePageMinBytes);
}

// The VmFlags of the mapping that holds `address`, from /proc/self/smaps.
std::string VmFlagsOf(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = address >= begin && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool KernelHasTransparentHugePages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

TEST(AdviseHugePagesTest, MarksTheMappingAndTheDataSurvives) {
  if (!KernelHasTransparentHugePages()) GTEST_SKIP() << "no transparent huge pages here";
  const size_t bytes = 16 * kMB;
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  const HugePageSpan span = AdviseHugePages(map, bytes);
  ASSERT_GE(span.bytes(), bytes - 2 * kHugePageBytes);
  EXPECT_NE(VmFlagsOf(span.first).find(" hg"), std::string::npos) << VmFlagsOf(span.first);
  std::memset(map, 0x5a, bytes);
  const auto* p = static_cast<const unsigned char*>(map);
  EXPECT_EQ(p[0], 0x5a);
  EXPECT_EQ(p[bytes - 1], 0x5a);
  ::munmap(map, bytes);
}

TEST(AdviseHugePagesTest, VectorCapacity) {
  std::vector<uint64_t> small(16);
  EXPECT_EQ(AdviseHugePagesFor(small).bytes(), 0u);
  std::vector<uint64_t> big;
  big.reserve(2 << 20);  // 16 MB.
  const HugePageSpan span = AdviseHugePagesFor(big);
  if (KernelHasTransparentHugePages()) EXPECT_GT(span.bytes(), 0u);
  big.assign(2 << 20, 7);
  EXPECT_EQ(big.back(), 7u);
}

}  // namespace
}  // namespace tbprof
