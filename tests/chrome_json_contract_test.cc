// Converts every real Kineto trace under ../shared/testdata/kineto and checks
// the XSpace contract of DESIGN.md: plane names, sorted and only-nested lines,
// int64 integer stats, no group_id, steps, kernel<->launch correlation, and
// device event counts equal to what the JSON holds (counted by a separate
// pass over the raw events, not by the converter).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/chrome_json/json_number.h"
#include "converters/chrome_json/trace_json_reader.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using converters::json::RawTraceEvent;
using xplane::StatKind;

std::vector<std::string> KinetoTraces() {
  std::vector<std::string> files;
  fs::path dir = fs::path(TBPROF_SHARED_TESTDATA) / "kineto";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    std::string path = entry.path().string();
    if (entry.is_regular_file() &&
        (absl::EndsWith(path, ".json") || absl::EndsWith(path, ".json.gz"))) {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// What the JSON holds, from the raw event stream.
class CountingHandler : public converters::json::TraceJsonHandler {
 public:
  int64_t kernels = 0, memcpys = 0, memsets = 0, memory = 0, steps = 0, runtime = 0;
  absl::flat_hash_set<int64_t> runtime_correlations;
  std::vector<int64_t> kernel_correlations;

  absl::Status OnEvent(const RawTraceEvent& e) override {
    if (e.ph.text == "X") {
      absl::string_view cat = e.cat.text;
      int64_t correlation = -1;
      converters::json::ParseInt64(e.args.correlation.text, &correlation);
      if (cat == "kernel" || cat == "Kernel") {
        ++kernels;
        kernel_correlations.push_back(correlation);
      }
      if (cat == "gpu_memcpy" || cat == "Memcpy") ++memcpys;
      if (cat == "gpu_memset" || cat == "Memset") ++memsets;
      if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") {
        ++runtime;
        runtime_correlations.insert(correlation);
      }
      bool device = absl::StrContains(cat, "gpu") || cat == "kernel" || cat == "Kernel" ||
                    cat == "Memcpy" || cat == "Memset" || cat == "cuda_sync";
      if (!device && absl::StartsWith(e.name.text, "ProfilerStep#")) ++steps;
    }
    if (e.ph.text == "i" && e.name.text == "[memory]") ++memory;
    return absl::OkStatus();
  }
  void OnMalformedEvent(uint64_t, absl::string_view) override {}
  bool WantsTopLevelValue(absl::string_view) override { return false; }
  absl::Status OnTopLevelValue(absl::string_view, absl::string_view, uint64_t) override {
    return absl::OkStatus();
  }
};

class ChromeJsonContractTest : public ::testing::TestWithParam<std::string> {};

TEST(ChromeJsonContractSetup, SharedTracesExist) {
  if (KinetoTraces().empty()) GTEST_SKIP() << "no traces under " << TBPROF_SHARED_TESTDATA;
  EXPECT_GE(KinetoTraces().size(), 12u);  // 4 single traces + 8 DLRM ranks.
}

TEST_P(ChromeJsonContractTest, ConvertsToThePluginContract) {
  const std::string& path = GetParam();
  SCOPED_TRACE(path);

  CountingHandler counts;
  {
    auto in = OpenInputStream(path);
    ASSERT_TRUE(in.ok()) << in.status();
    ASSERT_TRUE(converters::json::ReadTraceJson(in->get(), {}, &counts).ok());
  }

  xplane::XSpaceData space;
  auto summary = converters::ConvertChromeJsonToXSpace(path, {}, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->events_malformed, 0);

  // Planes: /host:CPU, /device:GPU:n in ordinal order, Task Environment.
  ASSERT_FALSE(space.planes.empty());
  EXPECT_EQ(space.strings.Get(space.planes[0].name), xplane::kHostThreadsPlaneName);
  int64_t last_ordinal = -1;
  for (const xplane::Plane& plane : space.planes) {
    absl::string_view name = space.strings.Get(plane.name);
    if (auto ordinal = xplane::ParseGpuPlaneOrdinal(name)) {
      EXPECT_GT(*ordinal, last_ordinal);
      last_ordinal = *ordinal;
    } else {
      EXPECT_TRUE(name == xplane::kHostThreadsPlaneName || name == xplane::kTaskEnvPlaneName ||
                  absl::StartsWith(name, xplane::kCustomPlanePrefix))
          << name;
    }
    for (const xplane::StatMetadata& m : plane.stat_metadata) {
      EXPECT_NE(space.strings.Get(m.name), "group_id");
    }
  }
  EXPECT_NE(xplane::FindPlaneWithName(space, xplane::kTaskEnvPlaneName), nullptr);

  int64_t base_ns = xplane::SpaceBaseNs(space);
  absl::flat_hash_set<int64_t> launch_correlations;
  int64_t kernels = 0, memcpys = 0, memsets = 0, memory = 0, steps = 0;
  std::vector<int64_t> kernel_correlations;
  for (const xplane::Plane& plane : space.planes) {
    xplane::XPlaneVisitor pv(&space, &plane, base_ns);
    bool host = pv.name() == xplane::kHostThreadsPlaneName;
    bool gpu = xplane::ParseGpuPlaneOrdinal(pv.name()).has_value();
    pv.ForEachLine([&](const xplane::XLineVisitor& line) {
      EXPECT_LT(line.id(), xplane::kThreadIdStepInfo);
      bool stream_line = absl::StartsWith(line.name(), "Stream #");
      // Sorted by begin, and events only nest.
      std::vector<int64_t> open_ends;
      int64_t last_begin = INT64_MIN;
      line.ForEachEvent([&](const xplane::XEventVisitor& e) {
        EXPECT_GE(e.begin_ps(), last_begin) << line.name() << " " << e.name();
        last_begin = e.begin_ps();
        while (!open_ends.empty() && open_ends.back() <= e.begin_ps()) open_ends.pop_back();
        if (!open_ends.empty()) {
          EXPECT_LE(e.end_ps(), open_ends.back()) << line.name() << " " << e.name();
        }
        open_ends.push_back(e.end_ps());

        bool has_details = false;
        int64_t correlation = -1;
        e.ForEachStat([&](const xplane::XStatVisitor& s) {
          EXPECT_NE(s.kind(), StatKind::kUint64) << s.name();
          switch (s.type()) {
            case xplane::StatType::kCorrelationId:
            case xplane::StatType::kIsRoot:
            case xplane::StatType::kStepNum:
            case xplane::StatType::kBytesAllocated:
            case xplane::StatType::kBytesReserved:
            case xplane::StatType::kBytesAvailable:
            case xplane::StatType::kPeakBytesInUse:
            case xplane::StatType::kRequestedBytes:
            case xplane::StatType::kAllocationBytes:
            case xplane::StatType::kAddress:
              EXPECT_EQ(s.kind(), StatKind::kInt64) << s.name();
              break;
            default:
              break;
          }
          if (s.type() == xplane::StatType::kCorrelationId) correlation = s.IntValue();
          if (s.type() == xplane::StatType::kKernelDetails) has_details = true;
        });
        if (host) {
          if (correlation >= 0) launch_correlations.insert(correlation);
          if (absl::StartsWith(e.name(), "ProfilerStep#")) {
            ++steps;
            auto root = e.GetStat(xplane::StatType::kIsRoot);
            auto step_num = e.GetStat(xplane::StatType::kStepNum);
            ASSERT_TRUE(root.has_value());
            ASSERT_TRUE(step_num.has_value());
            EXPECT_EQ(root->IntValue(), 1);
            EXPECT_EQ(absl::StrCat("ProfilerStep#", step_num->IntValue()), e.name());
          }
          if (e.name() == xplane::kMemoryAllocationEventName ||
              e.name() == xplane::kMemoryDeallocationEventName) {
            ++memory;
            EXPECT_TRUE(e.GetStat(xplane::StatType::kAllocatorName).has_value());
          }
        }
        if (gpu && stream_line) {
          if (has_details) {
            ++kernels;
            if (correlation >= 0) kernel_correlations.push_back(correlation);
          } else if (absl::StartsWith(e.name(), "Memcpy")) {
            ++memcpys;
            auto details = e.GetStat(xplane::StatType::kMemcpyDetails);
            ASSERT_TRUE(details.has_value());
            EXPECT_TRUE(absl::StartsWith(details->StrOrRefValue(), "num_bytes:"));
          } else if (e.name() == "Memset") {
            ++memsets;
          }
        }
      });
    });
  }
  EXPECT_EQ(kernels, counts.kernels);
  EXPECT_EQ(memcpys, counts.memcpys);
  EXPECT_EQ(memsets, counts.memsets);
  EXPECT_EQ(memory, counts.memory);
  EXPECT_EQ(steps, counts.steps);
  EXPECT_EQ(summary->step_roots, counts.steps);
  // Kernels whose launch is in the JSON keep the link in the XSpace (some
  // kernels ran before the first recorded launch and have none).
  if (counts.runtime > 0) {
    int64_t expected_linked = 0, linked = 0;
    for (int64_t c : counts.kernel_correlations) {
      expected_linked += counts.runtime_correlations.contains(c) ? 1 : 0;
    }
    for (int64_t c : kernel_correlations) linked += launch_correlations.contains(c) ? 1 : 0;
    EXPECT_GT(expected_linked, 0);
    EXPECT_EQ(linked, expected_linked);
    EXPECT_EQ(static_cast<int64_t>(kernel_correlations.size()), kernels);
  }

  // The written bytes are a valid XSpace protobuf (strings are UTF-8).
  std::string bytes = xplane::SerializeXSpaceData(space);
  tensorflow::profiler::XSpace proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  EXPECT_EQ(proto.planes_size(), static_cast<int>(space.planes.size()));
}

INSTANTIATE_TEST_SUITE_P(SharedKinetoTraces, ChromeJsonContractTest,
                         ::testing::ValuesIn(KinetoTraces()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = fs::path(info.param).filename().string();
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ChromeJsonContractTest);

}  // namespace
}  // namespace tbprof
