#include "converters/output/gzip_output_stream.h"

#include <zlib.h>

#include <cstring>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

std::string Gunzip(const std::string& compressed) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  EXPECT_EQ(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char buf[65536];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&zs);
  return out;
}

TEST(GzipOutputStreamTest, RoundTripsManyChunks) {
  std::string compressed;
  size_t sink_calls = 0;
  auto gz = GzipOutputStream::Create([&](absl::string_view bytes) {
    ++sink_calls;
    compressed.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  });
  ASSERT_TRUE(gz.ok()) << gz.status();
  std::mt19937 rng(7);
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    std::string chunk(rng() % 20000, '\0');
    for (char& c : chunk) c = static_cast<char>(rng() % 4 == 0 ? rng() : 'a' + rng() % 3);
    expected += chunk;
    ASSERT_TRUE((*gz)->Append(chunk).ok());
  }
  ASSERT_TRUE((*gz)->Finish().ok());
  EXPECT_EQ((*gz)->bytes_in(), expected.size());
  EXPECT_EQ((*gz)->bytes_out(), compressed.size());
  EXPECT_GT(sink_calls, 1u);
  EXPECT_EQ(Gunzip(compressed), expected);
  EXPECT_EQ((*gz)->Append("late").code(), absl::StatusCode::kFailedPrecondition);
}

TEST(GzipOutputStreamTest, EmptyInputIsAValidGzip) {
  std::string compressed;
  auto gz = GzipOutputStream::Create([&](absl::string_view bytes) {
    compressed.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  });
  ASSERT_TRUE(gz.ok());
  ASSERT_TRUE((*gz)->Finish().ok());
  EXPECT_EQ(Gunzip(compressed), "");
}

TEST(GzipOutputStreamTest, SinkErrorStopsTheStream) {
  auto gz = GzipOutputStream::Create(
      [](absl::string_view) { return absl::UnavailableError("broken pipe"); }, /*level=*/0);
  ASSERT_TRUE(gz.ok());
  std::string data(1 << 20, 'x');
  absl::Status status = (*gz)->Append(data);
  if (status.ok()) status = (*gz)->Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*gz)->Finish().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(GzipOutputStreamTest, RejectsBadLevel) {
  EXPECT_EQ(GzipOutputStream::Create([](absl::string_view) { return absl::OkStatus(); }, 10)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tbprof::views
