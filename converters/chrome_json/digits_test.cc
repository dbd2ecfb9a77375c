#include "converters/chrome_json/digits.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace tbprof::converters::json {
namespace {

const char* SkipDigitsScalar(const char* p, const char* end) {
  while (p < end && IsAsciiDigit(*p)) ++p;
  return p;
}

const char* AccumulateScalar(const char* p, const char* end, int max_digits, uint64_t* value) {
  int taken = 0;
  while (p < end && IsAsciiDigit(*p) && taken < max_digits) {
    *value = *value * 10 + static_cast<unsigned>(*p++ - '0');
    ++taken;
  }
  return p;
}

// Every byte value at every position of a run of digits, for every length
// of the range: the word forms must stop exactly where the scalar loop does.
TEST(DigitsTest, EveryByteAtEveryPosition) {
  for (int len = 0; len <= 20; ++len) {
    for (int pos = 0; pos < len; ++pos) {
      for (int b = 0; b < 256; ++b) {
        std::string s;
        for (int i = 0; i < len; ++i) s.push_back(static_cast<char>('0' + (i * 7 + 3) % 10));
        s[pos] = static_cast<char>(b);
        s.append("99999999");  // Digits beyond `end` must not be read.
        const char* begin = s.data();
        const char* end = begin + len;
        ASSERT_EQ(SkipDigits(begin, end), SkipDigitsScalar(begin, end))
            << "len " << len << " pos " << pos << " byte " << b;
        for (int max_digits : {0, 3, 8, 18, 19}) {
          uint64_t a = 5, want = 5;
          ASSERT_EQ(AccumulateDigits(begin, end, max_digits, &a),
                    AccumulateScalar(begin, end, max_digits, &want))
              << "len " << len << " pos " << pos << " byte " << b << " max " << max_digits;
          ASSERT_EQ(a, want) << "len " << len << " pos " << pos << " byte " << b;
        }
      }
    }
  }
}

TEST(DigitsTest, Values) {
  const std::string s = "1712195495896243.426";
  uint64_t v = 0;
  const char* p = AccumulateDigits(s.data(), s.data() + s.size(), 19, &v);
  EXPECT_EQ(p - s.data(), 16);
  EXPECT_EQ(v, 1712195495896243ULL);
  const std::string max = "18446744073709551615";  // 2^64 - 1, 20 digits.
  v = 0;
  p = AccumulateDigits(max.data(), max.data() + max.size(), 19, &v);
  EXPECT_EQ(p - max.data(), 19);
  EXPECT_EQ(v, 1844674407370955161ULL);
  const std::string zeros = "00000000000000000000x";
  v = 0;
  EXPECT_EQ(SkipDigits(zeros.data(), zeros.data() + zeros.size()), zeros.data() + 20);
}

}  // namespace
}  // namespace tbprof::converters::json
