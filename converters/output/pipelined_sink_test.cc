#include "converters/output/pipelined_sink.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views {
namespace {

TEST(PipelinedSinkTest, DeliversEveryChunkInOrder) {
  std::string received;
  int calls = 0;
  PipelinedSink piped([&](absl::string_view bytes) {
    received.append(bytes.data(), bytes.size());
    ++calls;
    return absl::OkStatus();
  }, /*max_queued_chunks=*/2);
  std::string expected;
  for (int i = 0; i < 10000; ++i) {
    const std::string chunk = std::to_string(i) + ",";
    expected += chunk;
    ASSERT_TRUE(piped.Append(chunk).ok());
  }
  ASSERT_TRUE(piped.Append("").ok());  // Empty appends are ignored.
  ASSERT_TRUE(piped.Finish().ok());
  EXPECT_EQ(received, expected);
  EXPECT_EQ(calls, 10000);
  EXPECT_EQ(piped.Append("late").code(), absl::StatusCode::kFailedPrecondition);
}

TEST(PipelinedSinkTest, ReportsTheSinksFirstErrorAndStopsCallingIt) {
  int calls = 0;
  PipelinedSink piped([&](absl::string_view) {
    ++calls;
    return calls == 3 ? absl::DataLossError("disk full") : absl::OkStatus();
  });
  absl::Status seen;
  for (int i = 0; i < 1000 && seen.ok(); ++i) seen = piped.Append("chunk");
  const absl::Status finished = piped.Finish();
  EXPECT_EQ(finished.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(finished.message(), "disk full");
  EXPECT_EQ(calls, 3);  // Nothing after the error reached the sink.
}

TEST(PipelinedSinkTest, DestructorWaitsForTheWorker) {
  std::string received;
  {
    PipelinedSink piped([&](absl::string_view bytes) {
      received.append(bytes.data(), bytes.size());
      return absl::OkStatus();
    });
    ASSERT_TRUE(piped.AsByteSink()("abc").ok());
  }
  EXPECT_EQ(received, "abc");
}

}  // namespace
}  // namespace tbprof::views
