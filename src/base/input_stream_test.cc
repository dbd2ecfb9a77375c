#include "src/base/input_stream.h"

#include <string>
#include <vector>

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

// What reading a whole stream `chunk` bytes at a time gives: the bytes
// before the first error, and that error (OK at a clean end).
struct ReadOutcome {
  std::string bytes;
  absl::Status status;
};
ReadOutcome ReadInChunks(const std::string& path, const InputStreamOptions& options,
                         size_t chunk) {
  ReadOutcome out;
  absl::StatusOr<std::unique_ptr<InputStream>> in = OpenInputStream(path, options);
  if (!in.ok()) {
    out.status = in.status();
    return out;
  }
  std::string buffer(chunk, '\0');
  while (true) {
    absl::StatusOr<size_t> n = (*in)->Read(buffer.data(), chunk);
    if (!n.ok()) {
      out.status = n.status();
      return out;
    }
    if (*n == 0) return out;
    out.bytes.append(buffer.data(), *n);
  }
}

// The default inflater (ISA-L where the build has it) and zlib read the same
// bytes from valid streams at every read size, and fail alike on damaged ones.
TEST(InputStreamTest, DefaultInflaterAgreesWithZlib) {
  std::string text;
  for (int i = 0; text.size() < 400000; ++i) {
    text += "{\"name\": \"op" + std::to_string(i % 97) + "\", \"ts\": " + std::to_string(i * 13) +
            "},\n";
  }
  auto gz = GzipCompress(text);
  ASSERT_TRUE(gz.ok());
  auto small = GzipCompress("tail");
  ASSERT_TRUE(small.ok());
  struct Case {
    std::string name;
    std::string data;
  };
  std::vector<Case> cases = {{"whole.gz", *gz}, {"concatenated.gz", *gz + *small + *gz}};
  for (size_t cut : {size_t{1}, size_t{2}, size_t{10}, gz->size() / 3, gz->size() - 9,
                     gz->size() - 1}) {
    cases.push_back({"cut" + std::to_string(cut) + ".gz", gz->substr(0, cut)});
  }
  for (size_t at : {size_t{3}, size_t{12}, gz->size() / 2, gz->size() - 6, gz->size() - 2}) {
    std::string bad = *gz;
    bad[at] = static_cast<char>(bad[at] ^ 0x55);
    cases.push_back({"flip" + std::to_string(at) + ".gz", bad});
  }
  cases.push_back({"garbage_after.gz", *gz + "not gzip"});
  for (const Case& c : cases) {
    const std::string path = TempPath(c.name);
    ASSERT_TRUE(WriteFileAtomically(path, c.data, AtomicOutputFile::Overwrite::kReplace).ok());
    for (size_t chunk : {size_t{7}, size_t{4096}, size_t{1} << 20}) {
      SCOPED_TRACE(c.name + " read " + std::to_string(chunk));
      ReadOutcome fast = ReadInChunks(path, {}, chunk);
      ReadOutcome zlib = ReadInChunks(path, {.force_zlib = true}, chunk);
      EXPECT_EQ(fast.status.code(), zlib.status.code()) << fast.status << " vs " << zlib.status;
      if (zlib.status.ok()) {
        EXPECT_EQ(fast.bytes, zlib.bytes);
      } else {
        // (A damaged block may inflate to wrong bytes before the CRC or a
        // code fails, at a point that depends on the inflater.)
        EXPECT_THAT(std::string(fast.status.message()), HasSubstr(path));
      }
    }
  }
  ReadOutcome bomb = ReadInChunks(TempPath("whole.gz"), {.max_inflated_bytes = 1000}, 4096);
  EXPECT_EQ(bomb.status.code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace tbprof
