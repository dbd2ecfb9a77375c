#include "converters/chrome_json/json_scan.h"

#include <string>

#include "converters/chrome_json/json_value.h"
#include "converters/chrome_json/trace_event_parser.h"
#include "gtest/gtest.h"

namespace tbprof::converters::json {
namespace {

// Parses a string token from `text` (which starts with '"').
ScanStatus ParseStringOf(const std::string& text, std::string* out) {
  Cursor c(text.data(), text.data() + text.size());
  StringArena arena;
  absl::string_view v;
  if (!c.ParseString(&v, &arena)) return c.status();
  *out = std::string(v);
  return ScanStatus::kOk;
}

// Whitespace runs of every length and mix, ending in a value or at the end
// of the range (incomplete): the inline one-space case, the scalar tail and
// the 16-byte SSE2 steps must all stop at the first other byte.
TEST(JsonScanTest, SkipWhitespaceRuns) {
  const std::string kinds = " \n\r\t";
  for (int len = 0; len <= 40; ++len) {
    for (int k = 0; k < 5; ++k) {
      std::string run;
      for (int i = 0; i < len; ++i) run.push_back(k < 4 ? kinds[k] : kinds[(i * 7) % 4]);
      for (const char* next : {"1", "\"", "\x01", "\x80", ""}) {
        const std::string text = run + next;
        Cursor c(text.data(), text.data() + text.size());
        const bool complete = c.SkipWhitespace();
        if (*next == '\0') {
          EXPECT_FALSE(complete) << len << " " << k;
          EXPECT_EQ(c.status(), ScanStatus::kIncomplete);
        } else {
          EXPECT_TRUE(complete) << len << " " << k << " " << next;
          EXPECT_EQ(c.pos() - text.data(), len) << len << " " << k << " " << next;
        }
      }
    }
  }
}

TEST(JsonScanTest, NumbersOfEveryLength) {
  for (int len = 1; len <= 30; ++len) {
    std::string digits;
    for (int i = 0; i < len; ++i) digits.push_back(static_cast<char>('1' + i % 9));
    for (const std::string& number : {digits, "-" + digits, digits + ".25", "0." + digits}) {
      const std::string text = number + ",";
      Cursor c(text.data(), text.data() + text.size());
      absl::string_view out;
      ASSERT_TRUE(c.ParseNumber(&out)) << number;
      EXPECT_EQ(out, number);
      // Without the delimiter the number may go on: incomplete.
      Cursor cut(number.data(), number.data() + number.size());
      EXPECT_FALSE(cut.ParseNumber(&out)) << number;
      EXPECT_EQ(cut.status(), ScanStatus::kIncomplete) << number;
    }
    const std::string bad = digits + "x";
    Cursor c(bad.data(), bad.data() + bad.size());
    absl::string_view out;
    ASSERT_TRUE(c.ParseNumber(&out));  // A number followed by another token.
    EXPECT_EQ(out, digits);
    const std::string leading_zero = "0" + digits + ",";
    Cursor z(leading_zero.data(), leading_zero.data() + leading_zero.size());
    EXPECT_FALSE(z.ParseNumber(&out)) << leading_zero;
    EXPECT_EQ(z.status(), ScanStatus::kError);
  }
}

TEST(JsonScanTest, StringsWithEscapes) {
  std::string out;
  ASSERT_EQ(ParseStringOf(R"("plain")", &out), ScanStatus::kOk);
  EXPECT_EQ(out, "plain");
  ASSERT_EQ(ParseStringOf(R"("a\"b\\c\/d\n\t")", &out), ScanStatus::kOk);
  EXPECT_EQ(out, "a\"b\\c/d\n\t");
  ASSERT_EQ(ParseStringOf(R"("\u00e9\u4e2d\ud83d\ude00")", &out), ScanStatus::kOk);
  EXPECT_EQ(out, "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  ASSERT_EQ(ParseStringOf(R"("lone \ud800 x")", &out), ScanStatus::kOk);
  EXPECT_EQ(out, "lone \xEF\xBF\xBD x");
  EXPECT_EQ(ParseStringOf(R"("bad \x")", &out), ScanStatus::kError);
  EXPECT_EQ(ParseStringOf(R"("bad \u12G4")", &out), ScanStatus::kError);
  // Cut anywhere before the closing quote: incomplete, never an error.
  std::string full = R"("ab\"\u00e9\ud83d\ude00cd")";
  for (size_t cut = 1; cut < full.size(); ++cut) {
    EXPECT_EQ(ParseStringOf(full.substr(0, cut), &out), ScanStatus::kIncomplete) << cut;
  }
}

TEST(JsonScanTest, NumbersNeedATerminator) {
  auto scan = [](const std::string& text, absl::string_view* out) {
    Cursor c(text.data(), text.data() + text.size());
    if (!c.ParseNumber(out)) return c.status();
    return ScanStatus::kOk;
  };
  absl::string_view v;
  std::string a = "12.5e3,";
  ASSERT_EQ(scan(a, &v), ScanStatus::kOk);
  EXPECT_EQ(v, "12.5e3");
  EXPECT_EQ(scan("12.5", &v), ScanStatus::kIncomplete);
  EXPECT_EQ(scan("-", &v), ScanStatus::kIncomplete);
  EXPECT_EQ(scan("01,", &v), ScanStatus::kError);
  EXPECT_EQ(scan("1.e5,", &v), ScanStatus::kError);
  EXPECT_EQ(scan("--1,", &v), ScanStatus::kError);
  std::string nan = "NaN,";
  ASSERT_EQ(scan(nan, &v), ScanStatus::kOk);
  EXPECT_EQ(v, "NaN");
}

TEST(JsonScanTest, SkipValueEnforcesDepth) {
  std::string ok(63, '[');
  ok += std::string(63, ']');
  Cursor c1(ok.data(), ok.data() + ok.size());
  EXPECT_TRUE(c1.SkipValue(/*depth=*/1));
  std::string deep(64, '[');
  deep += std::string(64, ']');
  Cursor c2(deep.data(), deep.data() + deep.size());
  EXPECT_FALSE(c2.SkipValue(/*depth=*/1));
  EXPECT_EQ(c2.status(), ScanStatus::kError);
  EXPECT_STREQ(c2.error_message(), "nesting deeper than 64 levels");
}

TEST(JsonScanTest, LenientSkipFindsTheEndOfBrokenValues) {
  auto skip = [](const std::string& text) -> long {
    const char* end = nullptr;
    if (SkipLeniently(text.data(), text.data() + text.size(), &end) != ScanStatus::kOk) return -1;
    return end - text.data();
  };
  EXPECT_EQ(skip(R"({"a": 1x, "b": "}"}, {"next": 1})"), 19);
  EXPECT_EQ(skip(R"({"a": [1, 2}, 3)"), 12);  // A '}' closes the open '['.
  EXPECT_EQ(skip("garbage, {}"), 7);
  EXPECT_EQ(skip(R"("str\"ing", 1)"), 10);
  EXPECT_EQ(skip(R"({"a": "unterminated)"), -1);
}

TEST(JsonScanTest, ResumableSkipperAcrossRanges) {
  std::string doc = R"({"a": [1, {"b": "x\"}]"}], "c": 2}, "after")";
  size_t value_len = doc.find(", \"after\"");
  for (size_t split = 0; split <= value_len; ++split) {
    ResumableSkipper skipper;
    size_t consumed = 0;
    ScanStatus s = skipper.Feed(doc.data(), doc.data() + split, &consumed);
    size_t total;
    if (s == ScanStatus::kOk) {
      total = consumed;
    } else {
      ASSERT_EQ(consumed, split);
      ASSERT_EQ(skipper.Feed(doc.data() + split, doc.data() + doc.size(), &consumed),
                ScanStatus::kOk);
      total = split + consumed;
    }
    EXPECT_EQ(total, value_len) << "split " << split;
  }
}

TEST(JsonScanTest, JsonValueTree) {
  auto v = ParseJsonValue(R"( {"a": [1, "x", {"b": null}], "n": "12", "a": true} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_NE(v->Find("a"), nullptr);
  EXPECT_EQ(v->Find("a")->kind, ValueKind::kBool);  // Last duplicate wins.
  int64_t n;
  ASSERT_TRUE(v->Find("n")->AsInt64(&n));
  EXPECT_EQ(n, 12);
  EXPECT_EQ(v->members[0].second.elements.size(), 3u);
  auto bad = ParseJsonValue(R"({"a": })");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("byte 6"), std::string::npos) << bad.status();
  EXPECT_FALSE(ParseJsonValue("[1] 2").ok());
  auto number = ParseJsonValue("1751410836000000000");
  ASSERT_TRUE(number.ok());
  ASSERT_TRUE(number->AsInt64(&n));
  EXPECT_EQ(n, 1751410836000000000);
}

TEST(JsonScanTest, Dim3) {
  int64_t d[3];
  ASSERT_TRUE(ParseDim3("[13, 2, 1]", d));
  EXPECT_EQ(d[0], 13);
  EXPECT_EQ(d[1], 2);
  ASSERT_TRUE(ParseDim3("[7]", d));
  EXPECT_EQ(d[0], 7);
  EXPECT_EQ(d[2], 1);
  EXPECT_FALSE(ParseDim3("[1, 2, 3, 4]", d));
  EXPECT_FALSE(ParseDim3("[1.5]", d));
  EXPECT_FALSE(ParseDim3("{}", d));
}

}  // namespace
}  // namespace tbprof::converters::json
