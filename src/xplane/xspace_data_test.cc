#include "src/xplane/xspace_data.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace tbprof::xplane {
namespace {

// Every kind and every value survive the 12-byte packing, next to the largest
// metadata index, and setting one field leaves the others alone.
TEST(StatTest, PacksIndexKindAndValue) {
  const StatKind kinds[] = {StatKind::kNone,  StatKind::kDouble, StatKind::kUint64,
                            StatKind::kInt64, StatKind::kStr,    StatKind::kBytes,
                            StatKind::kRef,   StatKind::kCompressedStr};
  for (uint32_t index : {uint32_t{0}, uint32_t{1}, uint32_t{12345}, Stat::kMaxStatMetadata}) {
    for (StatKind kind : kinds) {
      Stat s(index, kind);
      EXPECT_EQ(s.metadata_index(), index);
      EXPECT_EQ(s.kind(), kind);
      for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0xffffffff}, uint64_t{1} << 32,
                         std::numeric_limits<uint64_t>::max()}) {
        s.set_uint64_value(v);
        EXPECT_EQ(s.uint64_value(), v);
        EXPECT_EQ(s.metadata_index(), index);
        EXPECT_EQ(s.kind(), kind);
      }
    }
  }
  Stat s(7, StatKind::kInt64);
  for (int64_t v : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    s.set_int64_value(v);
    EXPECT_EQ(s.int64_value(), v);
  }
  s.set_kind(StatKind::kDouble);
  for (double d : {0.0, -0.0, 1.5, -1e300, std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::infinity()}) {
    s.set_double_value(d);
    EXPECT_EQ(std::signbit(s.double_value()), std::signbit(d));
    EXPECT_EQ(s.double_value(), d);
  }
  s.set_double_value(std::nan(""));
  EXPECT_TRUE(std::isnan(s.double_value()));
  // A string id clears the value's upper half (no stale bits of an earlier value).
  s.set_int64_value(-1);
  s.set_kind(StatKind::kStr);
  s.set_str_id(42);
  EXPECT_EQ(s.str_id(), 42u);
  EXPECT_EQ(s.uint64_value(), 42u);
  s.set_metadata_index(Stat::kMaxStatMetadata);
  EXPECT_EQ(s.kind(), StatKind::kStr);
  EXPECT_EQ(s.str_id(), 42u);
  EXPECT_EQ(sizeof(Stat), 12u);
}

}  // namespace
}  // namespace tbprof::xplane
