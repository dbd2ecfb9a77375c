// rocprofv3 JSON through the tbprof binary: convert, report, inspect, diff
// and watch recognise it by content (whatever the file is called), and a
// rocprofv3 JSON of another shape, or a cut one, is one error line naming
// the file and the byte, a non-zero exit and an empty logdir.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using testing_util::CliRun;

const std::string kTestdata = TBPROF_SHARED_TESTDATA;

// Two kernels on one queue of GPU 0 launched by hipLaunchKernel, a CPU agent.
constexpr char kDoc[] = R"json({"rocprofiler-sdk-tool": [{
  "metadata": {"pid": 5, "node": {"hostname": "mi-node"}},
  "agents": [{"id": {"handle": 1}, "type": 1, "name": "CPU"},
             {"id": {"handle": 2}, "type": 2, "gpu_index": 0, "name": "gfx942",
              "product_name": "AMD Instinct MI300X", "cu_count": 304}],
  "strings": {"buffer_records": [{"kind": "NONE", "operations": []},
                                 {"kind": "HIP_RUNTIME_API", "operations": ["hipLaunchKernel"]}]},
  "kernel_symbols": [{"kernel_id": 1, "formatted_kernel_name": "gemm_kernel"},
                     {"kernel_id": 2, "formatted_kernel_name": "relu_kernel"}],
  "buffer_records": {
    "hip_api": [{"kind": 1, "operation": 0, "correlation_id": {"internal": 1},
                 "start_timestamp": 1000, "end_timestamp": 1500, "thread_id": 9},
                {"kind": 1, "operation": 0, "correlation_id": {"internal": 2},
                 "start_timestamp": 2000, "end_timestamp": 2500, "thread_id": 9}],
    "kernel_dispatch": [
      {"thread_id": 9, "correlation_id": {"internal": 1}, "start_timestamp": 3000,
       "end_timestamp": 13000, "dispatch_info": {"agent_id": {"handle": 2},
       "queue_id": {"handle": 4}, "kernel_id": 1, "grid_size": {"x": 512, "y": 1, "z": 1},
       "workgroup_size": {"x": 256, "y": 1, "z": 1}}},
      {"thread_id": 9, "correlation_id": {"internal": 2}, "start_timestamp": 14000,
       "end_timestamp": 15000, "dispatch_info": {"agent_id": {"handle": 2},
       "queue_id": {"handle": 4}, "kernel_id": 2, "grid_size": {"x": 64, "y": 1, "z": 1},
       "workgroup_size": {"x": 64, "y": 1, "z": 1}}}]}}]})json";

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

class RocprofCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_util::MakeTempDirectory("rocprof_cli_test_");
    ASSERT_FALSE(dir_.empty());
    logdir_ = dir_ + "/tb";
    io_dir_ = dir_ + "/io";
    ASSERT_EQ(::mkdir(io_dir_.c_str(), 0755), 0);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  CliRun Run(const std::vector<std::string>& args) {
    return testing_util::RunProgram(TBPROF_CLI_PATH, args, io_dir_);
  }

  bool LogdirEmpty() const {
    std::error_code ec;
    return !std::filesystem::exists(logdir_, ec) || std::filesystem::is_empty(logdir_, ec);
  }

  void ExpectCleanFailure(const CliRun& r, const std::string& name, const std::string& what) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(Lines(r.err), SizeIs(1)) << r.err;
    EXPECT_THAT(r.err, StartsWith("tbprof: error: "));
    EXPECT_THAT(r.err, HasSubstr(name));
    EXPECT_THAT(r.err, HasSubstr(what));
    EXPECT_TRUE(LogdirEmpty()) << "logdir must stay empty";
  }

  std::string dir_, logdir_, io_dir_;
};

TEST_F(RocprofCliTest, ConvertRecognisesTheContentWhateverTheName) {
  // Not a .json name: recognised by its first member, not by the suffix.
  WriteFile(dir_ + "/results.data", kDoc);
  CliRun r = Run({"convert", dir_ + "/results.data", "--logdir", logdir_, "--run", "r"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rocprofv3 JSON"));
  EXPECT_THAT(r.out, HasSubstr("/device:GPU:0"));
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::exists(logdir_ + "/plugins/profile/r/mi-node.xplane.pb", ec));
}

TEST_F(RocprofCliTest, ReportInspectDiffAndWatchAcceptIt) {
  const std::string traces = dir_ + "/traces";
  ASSERT_EQ(::mkdir(traces.c_str(), 0755), 0);
  const std::string file = traces + "/results.json";
  WriteFile(file, kDoc);

  CliRun report = Run({"report", file});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("gemm_kernel"));

  CliRun inspect = Run({"inspect", file});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_THAT(inspect.out, HasSubstr("rocprofv3 JSON"));
  EXPECT_THAT(inspect.out, HasSubstr("Queue #4"));

  CliRun diff = Run({"diff", file, file, "--quiet"});
  EXPECT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_THAT(diff.out, HasSubstr("gemm_kernel"));

  CliRun watch = Run({"watch", traces, "--logdir", logdir_, "--once", "--settle", "0.1"});
  ASSERT_EQ(watch.exit_code, 0) << watch.err;
  bool found = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(logdir_)) {
    found |= entry.path().filename() == "mi-node.xplane.pb";
  }
  EXPECT_TRUE(found) << watch.out << watch.err;
}

TEST_F(RocprofCliTest, AnotherShapeIsOneLineNamingFileAndByte) {
  std::string doc = kDoc;
  // The second dispatch loses its end.
  const std::string end = "\"end_timestamp\": 15000, ";
  doc.erase(doc.find(end), end.size());
  WriteFile(dir_ + "/other.json", doc);
  ExpectCleanFailure(Run({"convert", dir_ + "/other.json", "--logdir", logdir_}), "other.json",
                     "buffer_records.kernel_dispatch[1]");
  CliRun r = Run({"convert", dir_ + "/other.json", "--logdir", logdir_});
  EXPECT_THAT(r.err, HasSubstr("at byte "));

  WriteFile(dir_ + "/mistyped.json",
            R"json({"rocprofiler-sdk-tool": [{"kernel_symbols": {"1": "k"}}]})json");
  ExpectCleanFailure(Run({"convert", dir_ + "/mistyped.json", "--logdir", logdir_}),
                     "mistyped.json", "kernel_symbols: expected an array");
}

TEST_F(RocprofCliTest, CutFileFails) {
  const std::string doc = kDoc;
  for (size_t cut : {size_t{40}, doc.size() / 2, doc.size() - 3}) {
    WriteFile(dir_ + "/cut.json", doc.substr(0, cut));
    ExpectCleanFailure(Run({"convert", dir_ + "/cut.json", "--logdir", logdir_}), "cut.json",
                       "");
  }
}

TEST_F(RocprofCliTest, MemoryLimitStopsTheReadCleanly) {
  WriteFile(dir_ + "/results.json", kDoc);
  ExpectCleanFailure(
      Run({"convert", dir_ + "/results.json", "--logdir", logdir_, "--max-memory-mb", "1"}),
      "results.json", "memory use reached");
}

TEST_F(RocprofCliTest, RealMi350Export) {
  const std::string path = kTestdata + "/rocprof/mi350_training_rocprofv3.json.gz";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) GTEST_SKIP() << "no " << path;
  CliRun r = Run({"inspect", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("43,915"));
  EXPECT_THAT(r.out, HasSubstr("/device:GPU:7"));
}

}  // namespace
}  // namespace tbprof
