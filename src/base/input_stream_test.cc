#include "src/base/input_stream.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/output_file.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(InputStreamTest, ReadsPlainAndGzipAlike) {
  std::string text(300000, 'x');
  for (size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(WriteFileAtomically(TempPath("plain.json"), text, AtomicOutputFile::Overwrite::kReplace).ok());
  auto gz = GzipCompress(text);
  ASSERT_TRUE(gz.ok());
  ASSERT_TRUE(WriteFileAtomically(TempPath("c.json.gz"), *gz, AtomicOutputFile::Overwrite::kReplace).ok());
  EXPECT_EQ(*ReadFileToString(TempPath("plain.json")), text);
  EXPECT_EQ(*ReadFileToString(TempPath("c.json.gz")), text);
  // Concatenated gzip members are one stream.
  ASSERT_TRUE(WriteFileAtomically(TempPath("cat.gz"), *gz + *gz, AtomicOutputFile::Overwrite::kReplace).ok());
  EXPECT_EQ(*ReadFileToString(TempPath("cat.gz")), text + text);
}

TEST(InputStreamTest, TruncatedGzipIsDataLoss) {
  auto gz = GzipCompress(std::string(100000, 'y') + "tail");
  ASSERT_TRUE(gz.ok());
  std::string cut = gz->substr(0, gz->size() / 2);
  ASSERT_TRUE(WriteFileAtomically(TempPath("cut.gz"), cut, AtomicOutputFile::Overwrite::kReplace).ok());
  auto result = ReadFileToString(TempPath("cut.gz"));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("cut.gz"));
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("truncated"));
}

TEST(InputStreamTest, CorruptGzipNamesOffset) {
  auto gz = GzipCompress(std::string(100000, 'z'));
  ASSERT_TRUE(gz.ok());
  std::string bad = *gz;
  for (size_t i = 20; i < 40 && i < bad.size(); ++i) bad[i] = static_cast<char>(0xff);
  ASSERT_TRUE(WriteFileAtomically(TempPath("bad.gz"), bad, AtomicOutputFile::Overwrite::kReplace).ok());
  auto result = ReadFileToString(TempPath("bad.gz"));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("byte"));
}

TEST(InputStreamTest, GzipBombLimit) {
  auto gz = GzipCompress(std::string(5 << 20, '\0'));
  ASSERT_TRUE(gz.ok());
  ASSERT_TRUE(WriteFileAtomically(TempPath("bomb.gz"), *gz, AtomicOutputFile::Overwrite::kReplace).ok());
  auto result = ReadFileToString(TempPath("bomb.gz"), {.max_inflated_bytes = 1 << 20});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(InputStreamTest, MissingFileAndDirectory) {
  EXPECT_EQ(OpenInputStream(TempPath("does-not-exist")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(OpenInputStream(::testing::TempDir()).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(InputStreamTest, EmptyAndOneByteFiles) {
  ASSERT_TRUE(WriteFileAtomically(TempPath("empty"), "", AtomicOutputFile::Overwrite::kReplace).ok());
  EXPECT_EQ(*ReadFileToString(TempPath("empty")), "");
  ASSERT_TRUE(WriteFileAtomically(TempPath("one"), "\x1f", AtomicOutputFile::Overwrite::kReplace).ok());
  EXPECT_EQ(*ReadFileToString(TempPath("one")), "\x1f");
}

}  // namespace
}  // namespace tbprof
