#include "converters/chrome_json/json_number.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace tbprof::converters::json {
namespace {

int64_t Ns(absl::string_view us) {
  int64_t ns = -1;
  EXPECT_TRUE(ParseDecimalScaled(us, 3, &ns)) << us;
  return ns;
}

TEST(JsonNumberTest, MicrosecondsToNanosecondsExactly) {
  EXPECT_EQ(Ns("0"), 0);
  EXPECT_EQ(Ns("123"), 123000);
  EXPECT_EQ(Ns("123.5"), 123500);
  EXPECT_EQ(Ns("1419247332972.313"), 1419247332972313);
  // Epoch microseconds: exact, and far beyond double's integer precision
  // once in ps (the caller keeps ns).
  EXPECT_EQ(Ns("1623143093496523"), 1623143093496523000);
  EXPECT_EQ(Ns("-2.5"), -2500);
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("15E-1"), 1500);
  EXPECT_EQ(Ns("0.0001"), 0);  // 0.1 ns rounds to 0.
  EXPECT_EQ(Ns("0.0005"), 1);  // Halves away from zero.
  EXPECT_EQ(Ns("-0.0005"), -1);
  EXPECT_EQ(Ns("1.23456"), 1235);  // More decimals than ns resolution.
  EXPECT_EQ(Ns("9223372036854775.807"), INT64_MAX);
}

TEST(JsonNumberTest, RejectsNonNumbersAndOverflow) {
  int64_t v;
  for (absl::string_view bad : {"", "-", "1.", ".5", "01", "1e", "1e+", "abc", "12a", " 1", "1 ",
                                "NaN", "Infinity", "0x10", "+1"}) {
    EXPECT_FALSE(ParseDecimalScaled(bad, 3, &v)) << bad;
  }
  EXPECT_FALSE(ParseDecimalScaled("9223372036854775.808", 3, &v));
  EXPECT_FALSE(ParseDecimalScaled("1e30", 3, &v));
  EXPECT_FALSE(ParseDecimalScaled("123456789012345678901234567890", 0, &v));
}

TEST(JsonNumberTest, Int64IsExact) {
  int64_t v;
  ASSERT_TRUE(ParseInt64("42", &v));
  EXPECT_EQ(v, 42);
  ASSERT_TRUE(ParseInt64("-7", &v));
  EXPECT_EQ(v, -7);
  ASSERT_TRUE(ParseInt64("7.0", &v));
  EXPECT_EQ(v, 7);
  ASSERT_TRUE(ParseInt64("1e3", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseInt64("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(ParseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808", &v));
  EXPECT_FALSE(ParseInt64("7.5", &v));
  EXPECT_FALSE(ParseInt64("1e-1", &v));
  EXPECT_FALSE(ParseInt64("007", &v));
}

TEST(JsonNumberTest, Uint64CoversValuesAboveInt64) {
  uint64_t v;
  ASSERT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  ASSERT_TRUE(ParseUint64("9223372036854775808", &v));
  EXPECT_EQ(v, uint64_t{1} << 63);
  EXPECT_FALSE(ParseUint64("18446744073709551616", &v));
  EXPECT_FALSE(ParseUint64("-1", &v));
  ASSERT_TRUE(ParseUint64("-0", &v));
  EXPECT_EQ(v, 0u);
}

TEST(JsonNumberTest, Doubles) {
  double d;
  ASSERT_TRUE(ParseDouble("0.0004464285714285714", &d));
  EXPECT_DOUBLE_EQ(d, 0.0004464285714285714);
  ASSERT_TRUE(ParseDouble("NaN", &d));
  EXPECT_TRUE(std::isnan(d));
  ASSERT_TRUE(ParseDouble("-Infinity", &d));
  EXPECT_TRUE(std::isinf(d) && d < 0);
  ASSERT_TRUE(ParseDouble("1e999", &d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_FALSE(ParseDouble("1.2.3", &d));
  EXPECT_TRUE(IsJsonNumber("-0.5e-3"));
  EXPECT_FALSE(IsJsonNumber("-.5"));
}

}  // namespace
}  // namespace tbprof::converters::json
