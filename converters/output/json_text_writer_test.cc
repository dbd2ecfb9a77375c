#include "converters/output/json_text_writer.h"

#include <string>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

std::string Quote(absl::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(JsonTextWriterTest, EscapesStrings) {
  EXPECT_EQ(Quote("plain"), "\"plain\"");
  EXPECT_EQ(Quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Quote("x\ny\tz\x01"), "\"x\\ny\\tz\\u0001\"");
  EXPECT_EQ(Quote("\xC3\xA9t\xC3\xA9"), "\"\xC3\xA9t\xC3\xA9\"");  // Valid UTF-8 kept.
  EXPECT_EQ(Quote("\xE2\x82\xAC"), "\"\xE2\x82\xAC\"");
  EXPECT_EQ(Quote("bad\xFF"), "\"bad\\ufffd\"");
  EXPECT_EQ(Quote("\xC3"), "\"\\ufffd\"");                        // Truncated sequence.
  EXPECT_EQ(Quote("\xC0\x80"), "\"\\ufffd\\ufffd\"");             // Overlong encoding.
  EXPECT_EQ(Quote("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // Surrogate.
  EXPECT_EQ(Quote(absl::string_view("a\0b", 3)), "\"a\\u0000b\"");
}

// The eight-bytes-at-a-time scan must notice a special byte at any offset
// of a long string: compare with a byte-by-byte reference.
TEST(JsonTextWriterTest, EscapesSpecialBytesAtEveryOffsetOfLongStrings) {
  auto reference = [](absl::string_view s) {
    std::string out = "\"";
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"') out += "\\\"";
      else if (c == '\\') out += "\\\\";
      else if (c == '\n') out += "\\n";
      else if (c == 0x01 || c == 0x1F) out += c == 0x01 ? "\\u0001" : "\\u001f";
      else if (c == 0xFF) out += "\\ufffd";
      else out.push_back(ch);
    }
    return out + "\"";
  };
  for (const char special : {'"', '\\', '\n', '\x01', '\x1F', '\xFF', '~', ' '}) {
    for (size_t length : {7, 8, 9, 16, 17, 31}) {
      for (size_t at = 0; at < length; ++at) {
        std::string s(length, 'a');
        s[at] = special;
        EXPECT_EQ(Quote(s), reference(s)) << "special " << int(special) << " at " << at;
      }
    }
  }
  // Valid multi-byte UTF-8 straddling an eight-byte boundary stays intact.
  const std::string euro = "abcdefg\xE2\x82\xACxyz";
  EXPECT_EQ(Quote(euro), "\"" + euro + "\"");
}

TEST(JsonTextWriterTest, FormatsDoubles) {
  auto fmt = [](double v) {
    std::string s;
    AppendJsonDouble(v, &s);
    return s;
  };
  EXPECT_EQ(fmt(0.5), "0.5");
  EXPECT_EQ(fmt(0.1), "0.1");
  EXPECT_EQ(fmt(1e300), "1e+300");
  EXPECT_EQ(fmt(0.0 / 0.0), "\"nan\"");
  EXPECT_EQ(fmt(-1.0 / 0.0), "\"-inf\"");
}

TEST(JsonTextWriterTest, FlushesToTheSink) {
  std::string sunk;
  ByteSink sink = [&](absl::string_view bytes) {
    sunk.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  };
  JsonTextWriter out(&sink);
  out.Raw("[");
  out.Int(-3);
  out.Raw(",");
  out.Uint(18446744073709551615ull);
  out.Raw(",");
  out.String("s");
  out.Raw("]");
  EXPECT_TRUE(out.MaybeFlush().ok());
  EXPECT_EQ(sunk, "");  // Below one chunk: nothing handed over yet.
  EXPECT_TRUE(out.Flush().ok());
  EXPECT_EQ(sunk, "[-3,18446744073709551615,\"s\"]");
}

}  // namespace
}  // namespace tbprof::views
