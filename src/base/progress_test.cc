#include "src/base/progress.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int64_t kSecond = 1'000'000'000;

// A reporter on a fake clock that records what it writes.
struct Harness {
  explicit Harness(ProgressReporter::Mode mode) {
    ProgressReporter::Options options;
    options.mode = mode;
    options.now_ns = [this] { return now; };
    options.write = [this](const std::string& s) { writes.push_back(s); };
    reporter = std::make_unique<ProgressReporter>("converting t.json", std::move(options));
  }
  int64_t now = 0;
  std::vector<std::string> writes;
  std::unique_ptr<ProgressReporter> reporter;
};

TEST(FormatBytesTest, Units) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1500), "1.50 KB");
  EXPECT_EQ(FormatBytes(120'300'000), "120 MB");
  EXPECT_EQ(FormatBytes(12'340'000), "12.3 MB");
  EXPECT_EQ(FormatBytes(2'000'000'000), "2.00 GB");
}

TEST(ProgressReporterTest, QuietPrintsNothing) {
  Harness h(ProgressReporter::Mode::kQuiet);
  for (int i = 0; i < 100; ++i) {
    h.now += kSecond;
    h.reporter->Update(i, 100);
  }
  h.reporter->Finish();
  EXPECT_THAT(h.writes, IsEmpty());
}

TEST(ProgressReporterTest, LinesAreRateLimited) {
  Harness h(ProgressReporter::Mode::kLines);
  // 20 seconds of updates every 100 ms: at most one line per 5 s.
  for (int i = 1; i <= 200; ++i) {
    h.now = i * kSecond / 10;
    h.reporter->Update(/*done=*/i * 1'000'000, /*total=*/200'000'000);
  }
  h.reporter->Finish();
  ASSERT_THAT(h.writes, SizeIs(4));
  EXPECT_THAT(h.writes[0], HasSubstr("converting t.json"));
  EXPECT_THAT(h.writes[0], HasSubstr("25%"));
  EXPECT_THAT(h.writes[0], HasSubstr("MB/s"));
  EXPECT_EQ(h.writes[0].back(), '\n');
  EXPECT_EQ(h.writes[0].find('\r'), std::string::npos);
}

TEST(ProgressReporterTest, ShortTaskPrintsNoLines) {
  Harness h(ProgressReporter::Mode::kLines);
  h.now = kSecond;
  h.reporter->Update(50, 100);
  h.reporter->Finish();
  EXPECT_THAT(h.writes, IsEmpty());
}

TEST(ProgressReporterTest, BarRedrawsInPlaceAndClearsAtEnd) {
  Harness h(ProgressReporter::Mode::kBar);
  h.now = kSecond;
  h.reporter->Update(/*done=*/50, /*total=*/100);
  h.now += kSecond / 1000;  // Too soon for another redraw.
  h.reporter->Update(/*done=*/60, /*total=*/100);
  h.reporter->Finish();
  h.reporter->Finish();
  ASSERT_THAT(h.writes, SizeIs(2));
  EXPECT_EQ(h.writes[0][0], '\r');
  EXPECT_THAT(h.writes[0], HasSubstr("[############............]"));
  EXPECT_THAT(h.writes[0], HasSubstr(" 50%"));
  EXPECT_EQ(h.writes[1], "\r\x1b[K");
}

TEST(ProgressReporterTest, UnknownTotalShowsBytesOnly) {
  Harness h(ProgressReporter::Mode::kLines);
  h.now = 10 * kSecond;
  h.reporter->Update(/*done=*/5'000'000, /*total=*/0);
  ASSERT_THAT(h.writes, SizeIs(1));
  EXPECT_THAT(h.writes[0], HasSubstr("5.00 MB"));
  EXPECT_EQ(h.writes[0].find('%'), std::string::npos);
}

}  // namespace
}  // namespace tbprof
