#include "src/xplane/xspace_data.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace tbprof::xplane {
namespace {

const StatKind kNumericKinds[] = {StatKind::kNone, StatKind::kDouble, StatKind::kUint64,
                                  StatKind::kInt64, StatKind::kRef};

// Every kind and every value survive the 8-byte packing, next to the largest
// metadata index; values that do not fit 32 bits go to the plane's wide
// values, and setting one field leaves the others alone.
TEST(StatTest, PacksIndexKindAndValue) {
  for (uint32_t index : {uint32_t{0}, uint32_t{1}, uint32_t{12345}, Stat::kMaxStatMetadata}) {
    for (StatKind kind : kNumericKinds) {
      WideValues wide;
      Stat s(index, kind);
      EXPECT_EQ(s.metadata_index(), index);
      EXPECT_EQ(s.kind(), kind);
      for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0x7fffffff}, uint64_t{0x80000000},
                         uint64_t{0xffffffff}, uint64_t{1} << 32, uint64_t{0x4049000000000000},
                         std::numeric_limits<uint64_t>::max()}) {
        s.set_uint64_value(v, &wide);
        EXPECT_EQ(s.uint64_value(wide), v) << static_cast<int>(kind) << " " << v;
        EXPECT_EQ(s.metadata_index(), index);
        EXPECT_EQ(s.kind(), kind);
      }
    }
  }
  WideValues wide;
  Stat s(7, StatKind::kInt64);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{std::numeric_limits<int32_t>::min()},
                    int64_t{std::numeric_limits<int32_t>::min()} - 1,
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    s.set_int64_value(v, &wide);
    EXPECT_EQ(s.int64_value(wide), v);
  }
  s.set_kind(StatKind::kDouble);
  for (double d : {0.0, -0.0, 1.5, 50.0, 0.1, -1e300, std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::infinity()}) {
    s.set_double_value(d, &wide);
    EXPECT_EQ(std::signbit(s.double_value(wide)), std::signbit(d));
    EXPECT_EQ(s.double_value(wide), d);
  }
  s.set_double_value(std::nan(""), &wide);
  EXPECT_TRUE(std::isnan(s.double_value(wide)));
  // A string id clears the wide flag (no stale index of an earlier value).
  s.set_kind(StatKind::kInt64);
  s.set_int64_value(std::numeric_limits<int64_t>::min() + 1, &wide);
  EXPECT_TRUE(s.is_wide());
  s.set_kind(StatKind::kStr);
  s.set_str_id(42);
  EXPECT_FALSE(s.is_wide());
  EXPECT_EQ(s.str_id(), 42u);
  EXPECT_EQ(s.uint64_value(wide), 42u);
  s.set_metadata_index(Stat::kMaxStatMetadata);
  EXPECT_EQ(s.kind(), StatKind::kStr);
  EXPECT_EQ(s.str_id(), 42u);
  EXPECT_EQ(sizeof(Stat), 8u);
}

// Only values that do not fit 32 bits take room in the wide values.
TEST(StatTest, SmallValuesStayInTheStat) {
  WideValues wide;
  Stat i(1, StatKind::kInt64), u(2, StatKind::kUint64), d(3, StatKind::kDouble);
  i.set_int64_value(-5, &wide);
  u.set_uint64_value(0xffffffff, &wide);
  d.set_double_value(37.5, &wide);  // Low 32 bits of the double are 0.
  EXPECT_TRUE(wide.empty());
  EXPECT_FALSE(i.is_wide() || u.is_wide() || d.is_wide());
  d.set_double_value(66.7, &wide);
  u.set_uint64_value(uint64_t{1} << 40, &wide);
  EXPECT_EQ(wide.size(), 2u);
  EXPECT_TRUE(d.is_wide() && u.is_wide());
  EXPECT_EQ(d.double_value(wide), 66.7);
  EXPECT_EQ(u.uint64_value(wide), uint64_t{1} << 40);
}

// copy_wide_value() carries a wide value over to another plane's values.
TEST(StatTest, CopyToAnotherPlane) {
  WideValues from, to = {9, 9, 9};
  Stat wide(4, StatKind::kInt64), narrow(5, StatKind::kInt64);
  wide.set_int64_value(int64_t{1} << 50, &from);
  narrow.set_int64_value(3, &from);
  const Stat wide_copy = wide.copy_wide_value(from, &to);
  const Stat narrow_copy = narrow.copy_wide_value(from, &to);
  EXPECT_EQ(wide_copy.int64_value(to), int64_t{1} << 50);
  EXPECT_EQ(wide_copy.wide_index(), 3u);
  EXPECT_EQ(narrow_copy.int64_value(to), 3);
  EXPECT_EQ(to.size(), 4u);
  EXPECT_EQ(wide_copy.metadata_index(), 4u);
}

}  // namespace
}  // namespace tbprof::xplane
