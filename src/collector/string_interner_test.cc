#include "src/collector/string_interner.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::collector {
namespace {

std::string Lookup(const std::vector<capture::StringEntry>& all, uint64_t id) {
  for (const auto& e : all) {
    if (e.id == id) return std::string(e.text);
  }
  return "<missing>";
}

TEST(StringInternerTest, SameContentSameIdAcrossPointers) {
  StringInterner in(/*arena_bytes=*/1024, /*max_strings=*/16);
  char a[] = "kernel_a";
  char b[] = "kernel_a";
  uint64_t ia = in.Intern(a);
  EXPECT_EQ(in.Intern(b), ia);
  EXPECT_EQ(in.Intern(a), ia);
  EXPECT_NE(in.Intern("kernel_b"), ia);
  EXPECT_EQ(in.Intern(nullptr), 0u);
  std::vector<capture::StringEntry> all;
  in.TakePending(&all);
  EXPECT_EQ(Lookup(all, StringInterner::kOverflowId), "<tbprof: string table full>");
  EXPECT_EQ(Lookup(all, ia), "kernel_a");
  EXPECT_EQ(all.size(), 3u);
}

TEST(StringInternerTest, ReusedPointerWithNewContentGetsNewId) {
  StringInterner in(1024, 16);
  char buf[32];
  std::strcpy(buf, "first");
  uint64_t first = in.Intern(buf);
  std::strcpy(buf, "second");
  uint64_t second = in.Intern(buf);
  EXPECT_NE(first, second);
  std::vector<capture::StringEntry> all;
  in.TakePending(&all);
  EXPECT_EQ(Lookup(all, first), "first");
  EXPECT_EQ(Lookup(all, second), "second");
}

TEST(StringInternerTest, PendingIsIncrementalAndResettable) {
  StringInterner in(1024, 16);
  std::vector<capture::StringEntry> got;
  in.Intern("x");
  in.TakePending(&got);
  EXPECT_EQ(got.size(), 2u);
  got.clear();
  in.Intern("y");
  in.TakePending(&got);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].text, "y");
  got.clear();
  in.ResetTaken();
  in.TakePending(&got);
  EXPECT_EQ(got.size(), 3u);
}

TEST(StringInternerTest, OverflowReturnsOverflowIdAndCounts) {
  StringInterner in(/*arena_bytes=*/8, /*max_strings=*/100);
  EXPECT_NE(in.Intern("abc"), StringInterner::kOverflowId);
  EXPECT_EQ(in.Intern("this does not fit"), StringInterner::kOverflowId);
  EXPECT_EQ(in.overflows(), 1u);
  StringInterner few(1024, /*max_strings=*/1);
  EXPECT_NE(few.Intern("a"), StringInterner::kOverflowId);
  EXPECT_EQ(few.Intern("b"), StringInterner::kOverflowId);
}

TEST(StringInternerTest, ManyDistinctPointersKeepWorking) {
  StringInterner in(1 << 20, 64);
  std::vector<std::string> copies(5000, "same");
  uint64_t id = in.Intern(copies[0].c_str());
  for (const std::string& s : copies) EXPECT_EQ(in.Intern(s.c_str()), id);
}

}  // namespace
}  // namespace tbprof::collector
