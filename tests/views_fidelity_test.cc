// Fidelity of the kernel stats and memory profile on real traces:
//  * H100 Qwen inference (Kineto JSON, AMD-AGI/TraceLens test trace): kernel
//    stats per kernel name agree with TraceLens' kernel summary CSV
//    (occurrences exactly, total duration within 0.1%), and the memory
//    profile's lifetime peak equals the largest "Total Allocated" found by
//    scanning the JSON text independently of the converter.
//  * Real XSpaces written by TensorFlow (8x V100) and JAX (8x MI300X): kernel
//    stats are not empty, memory profile and trace JSON are produced.
// Inputs come from TBPROF_SHARED_TESTDATA; missing files skip the test.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "converters/views/kernels/xspace_to_kernel_stats.h"
#include "converters/views/memory/xspace_to_memory_profile.h"
#include "converters/views/trace/xspace_to_trace_json.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_io.h"
#ifdef TBPROF_HAVE_CHROME_JSON
#include "converters/chrome_json/chrome_json_to_xspace.h"
#endif

namespace tbprof {
namespace {

const std::string kTestdata = TBPROF_SHARED_TESTDATA;

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Splits one CSV record (RFC 4180 quoting; no newlines inside fields).
std::vector<std::string> SplitCsvLine(absl::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back().push_back(c);
    }
  }
  return fields;
}

struct PeerKernel {
  double total_us = 0;
  int64_t count = 0;
};

// TraceLens kernel summary rows summed per kernel name (rows are split by
// parent op and stream).
std::map<std::string, PeerKernel> ReadTraceLensKernelSummary(const std::string& path) {
  std::map<std::string, PeerKernel> out;
  absl::StatusOr<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return out;
  std::vector<std::string> lines = absl::StrSplit(*text, '\n', absl::SkipEmpty());
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return out;
  const std::vector<std::string> header = SplitCsvLine(lines[0]);
  auto column = [&](absl::string_view name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << "column " << name;
    return static_cast<size_t>(it - header.begin());
  };
  const size_t name_col = column("Kernel name");
  const size_t sum_col = column("Kernel duration (\xC2\xB5s)_sum");
  const size_t count_col = column("Kernel duration (\xC2\xB5s)_count");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> f = SplitCsvLine(lines[i]);
    EXPECT_EQ(f.size(), header.size()) << "row " << i;
    if (f.size() != header.size()) continue;
    double sum = 0;
    int64_t count = 0;
    EXPECT_TRUE(absl::SimpleAtod(f[sum_col], &sum)) << f[sum_col];
    EXPECT_TRUE(absl::SimpleAtoi(f[count_col], &count)) << f[count_col];
    PeerKernel& k = out[f[name_col]];
    k.total_us += sum;
    k.count += count;
  }
  return out;
}

// Largest value of `"Total Allocated": N` in the (decompressed) JSON text.
int64_t MaxTotalAllocated(const std::string& json) {
  constexpr absl::string_view kKey = "\"Total Allocated\"";
  int64_t best = -1;
  const absl::string_view text(json);
  for (size_t pos = text.find(kKey); pos != absl::string_view::npos;
       pos = text.find(kKey, pos + 1)) {
    size_t p = pos + kKey.size();
    while (p < json.size() && (json[p] == ' ' || json[p] == ':')) ++p;
    size_t end = p;
    while (end < json.size() &&
           (isdigit(static_cast<unsigned char>(json[end])) || json[end] == '-')) {
      ++end;
    }
    int64_t value = 0;
    if (absl::SimpleAtoi(text.substr(p, end - p), &value)) {
      best = std::max(best, value);
    }
  }
  return best;
}

#ifdef TBPROF_HAVE_CHROME_JSON
class QwenTraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!FileExists(kTrace)) return;
    space_ = new xplane::XSpaceData();
    absl::StatusOr<converters::ChromeJsonSummary> summary =
        converters::ConvertChromeJsonToXSpace(kTrace, {}, space_);
    *convert_status_ = summary.status();
  }
  static void TearDownTestSuite() {
    delete space_;
    space_ = nullptr;
  }
  void SetUp() override {
    if (space_ == nullptr) GTEST_SKIP() << "missing " << kTrace;
    ASSERT_TRUE(convert_status_->ok()) << *convert_status_;
  }

  static inline const std::string kTrace = kTestdata + "/kineto/h100_qwen_inference.json.gz";
  static inline xplane::XSpaceData* space_ = nullptr;
  static inline absl::Status* convert_status_ = new absl::Status();
};

TEST_F(QwenTraceTest, KernelStatsAgreeWithTraceLens) {
  const std::string csv =
      kTestdata + "/peer_outputs/h100_qwen_inference.tracelens_kernel_summary.csv";
  if (!FileExists(csv)) GTEST_SKIP() << "missing " << csv;
  const std::map<std::string, PeerKernel> peer = ReadTraceLensKernelSummary(csv);
  ASSERT_FALSE(peer.empty());

  tensorflow::profiler::KernelStatsDb db =
      views::ConvertXSpaceToKernelStatsDb(*space_, {.max_kernels = 1 << 30});
  std::map<std::string, PeerKernel> ours;
  for (const auto& report : db.reports()) {
    PeerKernel& k = ours[report.name()];
    k.total_us += report.total_duration_ns() / 1000.0;
    k.count += report.occurrences();
  }
  EXPECT_EQ(ours.size(), peer.size());
  for (const auto& [name, expected] : peer) {
    auto it = ours.find(name);
    ASSERT_NE(it, ours.end()) << "kernel missing from our stats: " << name;
    EXPECT_EQ(it->second.count, expected.count) << name;
    EXPECT_NEAR(it->second.total_us, expected.total_us, 1e-3 * expected.total_us) << name;
  }
}

TEST_F(QwenTraceTest, MemoryPeakIsTheLargestTotalAllocated) {
  absl::StatusOr<std::string> json = ReadFileToString(kTrace);
  ASSERT_TRUE(json.ok()) << json.status();
  const int64_t expected_peak = MaxTotalAllocated(*json);
  ASSERT_GT(expected_peak, 0);

  tensorflow::profiler::MemoryProfile profile = views::ConvertXSpaceToMemoryProfile(*space_);
  ASSERT_GT(profile.memory_ids_size(), 0);
  int64_t peak = 0;
  for (const auto& [id, allocator] : profile.memory_profile_per_allocator()) {
    peak = std::max(peak, allocator.profile_summary().peak_bytes_usage_lifetime());
    EXPECT_LE(allocator.sampled_timeline_snapshots_size(), 1000) << id;
    EXPECT_GT(allocator.sampled_timeline_snapshots_size(), 0) << id;
  }
  EXPECT_EQ(peak, expected_peak);
  absl::StatusOr<std::string> profile_json = views::MemoryProfileToJson(profile);
  ASSERT_TRUE(profile_json.ok()) << profile_json.status();
}
#else
TEST(QwenTraceTest, NeedsTheChromeJsonConverter) {
  GTEST_SKIP() << "built without converters/chrome_json (ConvertChromeJsonToXSpace)";
}
#endif  // TBPROF_HAVE_CHROME_JSON

class RealXSpaceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RealXSpaceTest, ViewsAreNotEmpty) {
  const std::string path = kTestdata + "/xspace/" + GetParam();
  if (!FileExists(path)) GTEST_SKIP() << "missing " << path;
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<xplane::XSpaceData> space = xplane::ParseXSpaceData(*bytes, path);
  ASSERT_TRUE(space.ok()) << space.status();

  tensorflow::profiler::KernelStatsDb db = views::ConvertXSpaceToKernelStatsDb(*space);
  ASSERT_GT(db.reports_size(), 0);
  for (const auto& report : db.reports()) {
    EXPECT_GT(report.occurrences(), 0u);
    EXPECT_GE(report.total_duration_ns(), report.max_duration_ns());
    EXPECT_GE(report.max_duration_ns(), report.min_duration_ns());
  }

  tensorflow::profiler::MemoryProfile profile = views::ConvertXSpaceToMemoryProfile(*space);
  EXPECT_EQ(profile.version(), 1);
  absl::StatusOr<views::TraceJsonSummary> trace =
      views::WriteXSpaceAsTraceJson(*space, {}, [](absl::string_view) { return absl::OkStatus(); });
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_GT(trace->events_written, 0);
}

INSTANTIATE_TEST_SUITE_P(Files, RealXSpaceTest,
                         ::testing::Values("tf_v100x8_multiworker.xplane.pb",
                                           "jax08_mi300x8_conv.xplane.pb"));

}  // namespace
}  // namespace tbprof
