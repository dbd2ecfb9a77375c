#include "src/base/spool.h"

#include <string>

#include "gtest/gtest.h"

namespace tbprof {
namespace {

std::string ReadAll(Spool& spool) {
  std::string out;
  EXPECT_TRUE(spool
                  .CopyTo([&](absl::string_view piece) {
                    out.append(piece.data(), piece.size());
                    return absl::OkStatus();
                  })
                  .ok());
  return out;
}

TEST(SpoolTest, SmallOutputStaysInMemory) {
  Spool spool(16);
  ASSERT_TRUE(spool.Append("hello ").ok());
  ASSERT_TRUE(spool.Append("world").ok());
  EXPECT_FALSE(spool.spilled());
  EXPECT_EQ(spool.size(), 11u);
  EXPECT_EQ(ReadAll(spool), "hello world");
}

TEST(SpoolTest, LargeOutputGoesToATemporaryFileInOrder) {
  Spool spool(10);
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    const std::string piece = std::to_string(i) + ",";
    expected += piece;
    ASSERT_TRUE(spool.Append(piece).ok());
  }
  EXPECT_TRUE(spool.spilled());
  EXPECT_EQ(spool.size(), expected.size());
  EXPECT_EQ(ReadAll(spool), expected);
  // Appending after a copy continues at the end.
  ASSERT_TRUE(spool.Append("end").ok());
  EXPECT_EQ(ReadAll(spool), expected + "end");
}

TEST(SpoolTest, SinkErrorStopsTheCopy) {
  Spool spool(4);
  ASSERT_TRUE(spool.Append("0123456789").ok());
  absl::Status status =
      spool.CopyTo([](absl::string_view) { return absl::InternalError("sink full"); });
  EXPECT_EQ(status.message(), "sink full");
}

TEST(SpoolTest, EmptySpoolCallsNoSink) {
  Spool spool;
  int calls = 0;
  ASSERT_TRUE(spool.CopyTo([&](absl::string_view) {
                     ++calls;
                     return absl::OkStatus();
                   })
                  .ok());
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace tbprof
