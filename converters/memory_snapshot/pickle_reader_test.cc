#include "converters/memory_snapshot/pickle_reader.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof::converters::pickle {
namespace {

using ::testing::HasSubstr;

// Renders every reduced container as text, so a test sees the whole tree.
class TextVisitor : public PickleVisitor {
 public:
  absl::StatusOr<Value> Reduce(Kind kind, absl::Span<const Value> items, uint64_t) override {
    std::string s = kind == Kind::kDict ? "{" : kind == Kind::kList ? "[" : kind == Kind::kSet ? "set(" : "(";
    for (size_t k = 0; k < items.size(); ++k) {
      if (k > 0) s += kind == Kind::kDict && k % 2 == 1 ? ": " : ", ";
      s += Text(items[k]);
    }
    s += kind == Kind::kDict ? "}" : kind == Kind::kList ? "]" : ")";
    texts.push_back(s);
    ++reductions;
    return Value::Handle(7, texts.size() - 1);
  }
  std::string Text(const Value& v) const {
    switch (v.kind) {
      case Kind::kNone: return "None";
      case Kind::kBool: return v.i ? "True" : "False";
      case Kind::kInt: return absl::StrCat(v.i);
      case Kind::kUInt: return absl::StrCat(v.u, "u");
      case Kind::kBigInt: return "bigint";
      case Kind::kFloat: return absl::StrCat(v.d);
      case Kind::kString: return absl::StrCat("'", v.string(), "'");
      case Kind::kBytes: return absl::StrCat("b'", v.string(), "'");
      case Kind::kHandle: return texts[v.u];
      default: return "?";
    }
  }
  std::vector<std::string> texts;
  int reductions = 0;
};

absl::StatusOr<std::string> Read(const std::string& bytes, int* reductions = nullptr) {
  TextVisitor visitor;
  absl::StatusOr<Value> v = ReadPickle(bytes, "t.pickle", &visitor);
  if (!v.ok()) return v.status();
  if (reductions != nullptr) *reductions = visitor.reductions;
  return visitor.Text(*v);
}

std::string B(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(PickleReaderTest, DictOfListWithMemoSharing) {
  // Protocol 4 of {'a': [1, -2, 'x'], 'b': <the same list>} with MEMOIZE.
  std::string p = B({0x80, 4, '}', 0x94, '(', 0x8c, 1}) + "a" +
                  B({0x94, ']', 0x94, '(', 'K', 1, 'J', 0xfe, 0xff, 0xff, 0xff, 0x8c, 1}) + "x" +
                  B({0x94, 'e', 0x8c, 1}) + "b" + B({0x94, 'h', 2, 'u', '.'});
  int reductions = 0;
  absl::StatusOr<std::string> text = Read(p, &reductions);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{'a': [1, -2, 'x'], 'b': [1, -2, 'x']}");
  EXPECT_EQ(reductions, 2);  // The shared list is reduced once.
}

TEST(PickleReaderTest, NumbersAndScalars) {
  // (None, True, False, 2**64-1, -1 (LONG1), 2**70, 1.5, b'hi', bytearray b'z')
  std::string p = B({0x80, 5, '(', 'N', 0x88, 0x89, 0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                     0xff, 0xff, 0, 0x8a, 1, 0xff, 0x8a, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0,
                     'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 'C', 2, 'h', 'i', 0x96, 1, 0, 0, 0, 0, 0,
                     0, 0, 'z', 0x98, 't', '.'});
  absl::StatusOr<std::string> text = Read(p);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "(None, True, False, 18446744073709551615u, -1, bigint, 1.5, b'hi', b'z')");
}

TEST(PickleReaderTest, RefusesCode) {
  for (int op : std::vector<int>{'c', 0x93, 'R', 'b', 'i', 'o', 0x81, 0x92, 0x82, 'Q'}) {
    std::string p = B({0x80, 2, 'N', op, '.'});
    absl::StatusOr<std::string> text = Read(p);
    ASSERT_FALSE(text.ok());
    EXPECT_THAT(text.status().message(), HasSubstr(std::string(kRunsCodeMessage)));
    EXPECT_THAT(text.status().message(), HasSubstr("t.pickle: byte 3"));
  }
}

TEST(PickleReaderTest, LengthsAreBoundedByTheInput) {
  // BINUNICODE8 claiming 10 GB.
  std::string p = B({0x80, 4, 0x8d, 0x00, 0xe4, 0x0b, 0x54, 0x02, 0, 0, 0}) + "abc";
  absl::StatusOr<std::string> text = Read(p);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(text.status().message(), HasSubstr("byte 2: truncated pickle: a string of 10000000000"));
  // FRAME past the end, LONG4 past the end.
  EXPECT_FALSE(Read(B({0x80, 4, 0x95, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 'N', '.'})).ok());
  EXPECT_FALSE(Read(B({0x80, 4, 0x8b, 0xff, 0xff, 0xff, 0x7f, '.'})).ok());
}

TEST(PickleReaderTest, MalformedStreams) {
  EXPECT_THAT(Read(B({0x80, 4, 'N'})).status().message(), HasSubstr("no STOP"));
  EXPECT_THAT(Read(B({0x80, 4, 'N', '.', 'N'})).status().message(), HasSubstr("after the end"));
  EXPECT_THAT(Read(B({0x80, 4, 'a', '.'})).status().message(), HasSubstr("APPEND needs"));
  EXPECT_THAT(Read(B({0x80, 4, 'K', 1, 'K', 2, 'a', '.'})).status().message(),
              HasSubstr("needs a list"));
  EXPECT_THAT(Read(B({0x80, 4, 'h', 3, '.'})).status().message(), HasSubstr("memo key 3"));
  EXPECT_THAT(Read(B({0x80, 4, 'e', '.'})).status().message(), HasSubstr("without a MARK"));
  EXPECT_THAT(Read(B({0x80, 5, 0x97, '.'})).status().message(), HasSubstr("out-of-band"));
  EXPECT_THAT(Read(B({0x80, 9, 'N', '.'})).status().message(), HasSubstr("protocol 9"));
  EXPECT_THAT(Read(B({'I', '1', '\n', '.'})).status().message(), HasSubstr("protocol 0/1"));
  EXPECT_THAT(Read(B({0x80, 4, 0xff, '.'})).status().message(), HasSubstr("unknown pickle opcode"));
  // A list that contains itself: reduced while its items are appended.
  EXPECT_FALSE(Read(B({0x80, 4, ']', 0x94, 'h', 0, 'a', '.'})).ok());
  // A container DUPed without the memo, then used twice.
  EXPECT_THAT(Read(B({0x80, 4, ']', '2', 0x86, '.'})).status().message(),
              HasSubstr("used again"));
  // A sparse memo index stays cheap.
  std::string text = *Read(B({0x80, 4, 'K', 5, 'r', 0xff, 0xff, 0xff, 0x7f, '0', 'j', 0xff, 0xff,
                              0xff, 0x7f, '.'}));
  EXPECT_EQ(text, "5");
}

TEST(PickleReaderTest, EveryTruncationIsDataLoss) {
  // Tests run from the source directory (memory_snapshot_to_xspace_test.cc).
  std::ifstream in("testdata/memory_snapshot/small.p4.pickle", std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string whole = buffer.str();
  ASSERT_GT(whole.size(), 100u);
  ASSERT_TRUE(Read(whole).ok());
  for (size_t k = 0; k < whole.size(); ++k) {
    absl::StatusOr<std::string> text = Read(whole.substr(0, k));
    ASSERT_FALSE(text.ok()) << k;
    EXPECT_EQ(text.status().code(), absl::StatusCode::kDataLoss) << k << text.status();
    EXPECT_THAT(text.status().message(), HasSubstr("t.pickle: byte ")) << k;
    EXPECT_THAT(text.status().message(), HasSubstr("truncated pickle")) << k;
  }
}

TEST(PickleReaderTest, EachArgumentIsCheckedAtItsOpcode) {
  // Every opcode with an argument, one byte short: the error names the
  // opcode's byte (2), never a read past the end.
  const std::vector<std::pair<int, int>> ops = {
      {'h', 1}, {'j', 4}, {'q', 1}, {'r', 4}, {'K', 1}, {'M', 2}, {'J', 4}, {0x8a, 1},
      {0x8b, 4}, {'G', 8}, {0x8c, 1}, {'U', 1}, {'C', 1}, {'X', 4}, {'T', 4}, {'B', 4},
      {0x8d, 8}, {0x8e, 8}, {0x96, 8}, {0x95, 8}};
  for (auto [op, width] : ops) {
    std::string p = B({0x80, 4, op});
    p.append(static_cast<size_t>(width - 1), '\x01');
    absl::StatusOr<std::string> text = Read(p);
    ASSERT_FALSE(text.ok()) << op;
    EXPECT_EQ(text.status().code(), absl::StatusCode::kDataLoss) << op;
    EXPECT_THAT(text.status().message(), HasSubstr("t.pickle: byte 2: truncated pickle")) << op;
  }
  // A length that fits, with its data one byte short.
  EXPECT_THAT(Read(B({0x80, 4, 0x8c, 3, 'a', 'b'})).status().message(),
              HasSubstr("byte 2: truncated pickle: a string of 3 bytes"));
  EXPECT_THAT(Read(B({0x80, 4, 0x8a, 6, 1, 2, 3, 4, 5})).status().message(),
              HasSubstr("byte 2: truncated pickle: an integer of 6 bytes"));
}

TEST(PickleReaderTest, IntegersOfEveryWidthAnywhereInTheInput) {
  // LONG1 of 1..9 bytes, positive and negative, read the same at the very
  // end of the input (fewer than 8 bytes left) and with more input after.
  for (int n = 1; n <= 9; ++n) {
    for (int top : {0x71, 0x91}) {
      std::string digits;
      unsigned __int128 magnitude = 0;
      for (int k = 0; k < n; ++k) {
        const int b = k == n - 1 ? top : 0x11 * (k + 1);
        digits.push_back(static_cast<char>(b));
        magnitude |= static_cast<unsigned __int128>(b) << (8 * k);
      }
      std::string expected;
      if (n <= 8) {
        __int128 v = static_cast<__int128>(magnitude);
        if (top & 0x80) v -= static_cast<__int128>(1) << (8 * n);
        expected = absl::StrCat(static_cast<int64_t>(v));
      } else {
        expected = "bigint";  // 9 bytes with a nonzero top byte.
      }
      const std::string at_end = B({0x80, 4, 0x8a, n}) + digits + ".";
      const std::string padded = B({0x80, 4, 'N', '0', 0x8a, n}) + digits +
                                 B({'N', '0', 'N', '0', 'N', '0', 'N', '0', 'N', '0', '.'});
      EXPECT_EQ(*Read(at_end), expected) << n << " " << top;
      EXPECT_EQ(*Read(padded), expected) << n << " " << top;
    }
  }
  // 2**64 - 1 as 9 bytes: unsigned.
  EXPECT_EQ(*Read(B({0x80, 4, 0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, '.'})),
            "18446744073709551615u");
}

TEST(PickleReaderTest, ContainersReusingSlotsStayApart) {
  // [[0..99], [1], [2, 3]] with each inner list reduced at its APPEND, so
  // the next one reuses its slot (the first one's 100 items are given back).
  std::string p = B({0x80, 4, ']', ']', '('});
  std::string want = "[[";
  for (int k = 0; k < 100; ++k) {
    p += B({'K', k});
    absl::StrAppend(&want, k == 0 ? "" : ", ", k);
  }
  p += B({'e', 'a', ']', '(', 'K', 1, 'e', 'a', ']', '(', 'K', 2, 'K', 3, 'e', 'a', '.'});
  want += "], [1], [2, 3]]";
  int reductions = 0;
  absl::StatusOr<std::string> text = Read(p, &reductions);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, want);
  EXPECT_EQ(reductions, 4);
}

TEST(PickleReaderTest, LooksLikePickle) {
  EXPECT_TRUE(LooksLikePickle(B({0x80, 2, '}'})));
  EXPECT_TRUE(LooksLikePickle(B({0x80, 5, 0x95})));
  EXPECT_FALSE(LooksLikePickle(B({0x80, 6, 0x95})));
  EXPECT_FALSE(LooksLikePickle("{\"a\""));
}

}  // namespace
}  // namespace tbprof::converters::pickle
