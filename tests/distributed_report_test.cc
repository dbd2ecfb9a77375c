// `tbprof report` end to end on multi-rank runs: the distributed view in the
// terminal (80 columns), as JSON (key "distributed") and in the HTML page,
// on the real 8-rank DLRM job in ../shared/testdata (per file, as a
// directory, and after `tbprof convert` as a logdir run), on one rank of it,
// and on a single-GPU trace (one line saying why there is no view).
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::Value;
using ::testing::HasSubstr;
using testing_util::CliRun;
using testing_util::PathExists;
using testing_util::ReadFileOrEmpty;

const std::string kTestdata = TBPROF_SHARED_TESTDATA;
const std::string kDlrm = kTestdata + "/kineto/dlrm_8ranks";

class DistributedReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PathExists(kDlrm)) GTEST_SKIP() << "no " << kDlrm;
    dir_ = testing_util::MakeTempDirectory("distributed_report_");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }

  CliRun Run(const std::vector<std::string>& args) {
    return testing_util::RunProgram(TBPROF_CLI_PATH, args, dir_);
  }

  // The "distributed" member of `tbprof report --json` on `inputs`.
  Struct DistributedJson(std::vector<std::string> inputs) {
    inputs.insert(inputs.begin(), "report");
    inputs.push_back("--json");
    inputs.push_back("--quiet");
    CliRun r = Run(inputs);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Struct object;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &object).ok()) << r.out;
    if (!object.fields().contains("distributed")) {
      ADD_FAILURE() << "no \"distributed\" key";
      return Struct();
    }
    return object.fields().at("distributed").struct_value();
  }

  std::string dir_;
};

const Value& Field(const Struct& s, const std::string& key) {
  static const Value kNull;
  auto it = s.fields().find(key);
  return it == s.fields().end() ? kNull : it->second;
}

// int64 fields are JSON strings in protobuf JSON.
std::string Str(const Struct& s, const std::string& key) { return Field(s, key).string_value(); }

TEST_F(DistributedReportTest, Dlrm8RanksJson) {
  const Struct d = DistributedJson({kDlrm});
  EXPECT_EQ(Str(d, "worldSize"), "8");
  EXPECT_EQ(Str(d, "ranksInRun"), "8");
  EXPECT_EQ(Str(d, "backend"), "nccl");
  EXPECT_TRUE(Field(d, "crossRank").bool_value());
  EXPECT_EQ(Str(d, "collectiveCalls"), "64");
  EXPECT_EQ(Str(d, "matchedInstances"), "8");
  EXPECT_EQ(Str(d, "unmatchedCalls"), "0");
  ASSERT_EQ(Field(d, "ranks").list_value().values_size(), 8);
  for (const Value& rank : Field(d, "ranks").list_value().values()) {
    const Struct& r = rank.struct_value();
    // Step parts add up to the step; sync + transfer to the matched time.
    const int64_t parts = std::stoll(Str(r, "avgComputePs")) +
                          std::stoll(Str(r, "avgCommunicationPs")) +
                          std::stoll(Str(r, "avgOverlapPs")) + std::stoll(Str(r, "avgOtherPs"));
    EXPECT_EQ(parts, std::stoll(Str(r, "avgStepPs")));
    EXPECT_EQ(std::stoll(Str(r, "syncPs")) + std::stoll(Str(r, "transferPs")),
              std::stoll(Str(r, "matchedPs")));
  }
  const Struct& s = Field(d, "straggler").struct_value();
  EXPECT_EQ(Str(s, "slowestRank"), "1");
  EXPECT_EQ(Str(s, "phase"), "communication");
  EXPECT_EQ(Str(s, "waitedForRank"), "7");
  EXPECT_EQ(Str(s, "waitedForLastArrivals"), "5");
  EXPECT_GT(Field(d, "collectives").list_value().values_size(), 0);
  for (const Value& row : Field(d, "collectives").list_value().values()) {
    EXPECT_GT(Field(row.struct_value(), "busbwGbps").number_value(), 0);
  }
}

TEST_F(DistributedReportTest, Dlrm8RanksText) {
  CliRun r = Run({"report", kDlrm, "--width", "80", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("== Distributed: 8 ranks of 8, nccl ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string section = r.out.substr(at);
  for (absl::string_view line : absl::StrSplit(section, '\n')) {
    int width = 0;  // Code points.
    for (char c : line) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(width, 80) << line;
  }
  EXPECT_THAT(section, HasSubstr("Slowest     rank 1 (worker1_step_12.1694128201556)"));
  EXPECT_THAT(section, HasSubstr("Waited for  rank 7 arrives last at 5 of 8 collectives"));
  EXPECT_THAT(section, HasSubstr("all_to_all                fp32  24.0 KiB     2     10.0"));
  EXPECT_THAT(section, HasSubstr("64 of 64 collective calls take their size"));
}

TEST_F(DistributedReportTest, Dlrm8RanksHtml) {
  const std::string page = dir_ + "/report.html";
  CliRun r = Run({"report", kDlrm, "--html", page, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFileOrEmpty(page);
  EXPECT_THAT(html, HasSubstr("<main id=\"distributed\">"));
  EXPECT_THAT(html, HasSubstr("Average step per rank"));
  EXPECT_THAT(html, HasSubstr("waiting vs moving data"));
  EXPECT_THAT(html, HasSubstr("<table class=\"sortable\" data-num-col=\"7\">"));
  EXPECT_THAT(html, HasSubstr("worker7_step_12.1694128201553"));
}

// The same figures from the logdir `tbprof convert` writes: the XSpace keeps
// what the view needs (distributedInfo, record_param_comms and shapes).
TEST_F(DistributedReportTest, SameAfterConvert) {
  const std::string logdir = dir_ + "/tb";
  CliRun c = Run({"convert", kDlrm, "--logdir", logdir, "--run", "r", "--quiet"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const Struct direct = DistributedJson({kDlrm});
  const Struct converted = DistributedJson({logdir + "/plugins/profile/r"});
  for (const char* key :
       {"worldSize", "collectiveCalls", "matchedInstances", "callsWithOpShapes"}) {
    EXPECT_EQ(Str(converted, key), Str(direct, key)) << key;
  }
  const Struct& a = Field(direct, "straggler").struct_value();
  const Struct& b = Field(converted, "straggler").struct_value();
  for (const char* key : {"slowestRank", "waitedForRank", "waitedForPs", "slowestAvgStepPs"}) {
    EXPECT_EQ(Str(b, key), Str(a, key)) << key;
  }
}

// One rank of the job: per-rank figures with the world size from the trace.
TEST_F(DistributedReportTest, OneRankOfEight) {
  const Struct d =
      DistributedJson({kDlrm + "/worker3_step_12.1694128201557.pt.trace.json.gz"});
  EXPECT_EQ(Str(d, "worldSize"), "8");
  EXPECT_FALSE(Field(d, "crossRank").bool_value());
  EXPECT_THAT(Str(d, "crossRankReason"), HasSubstr("1 of 8 ranks in this run"));
  ASSERT_EQ(Field(d, "ranks").list_value().values_size(), 1);
  EXPECT_EQ(Str(Field(d, "ranks").list_value().values(0).struct_value(), "rank"), "3");
  for (const Value& row : Field(d, "collectives").list_value().values()) {
    EXPECT_EQ(Str(row.struct_value(), "groupSize"), "8");
    EXPECT_TRUE(Field(row.struct_value(), "latencyIncludesWait").bool_value());
  }
}

TEST_F(DistributedReportTest, SingleGpuTraceSaysWhyInOneLine) {
  const std::string trace = kTestdata + "/kineto/h100_bert_small_inference.json.gz";
  CliRun r = Run({"report", trace, "--width", "80", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nDistributed one rank, no collective (NCCL/RCCL) kernels: not a "
                               "distributed job\n"));
  EXPECT_FALSE(absl::StrContains(r.out, "== Distributed"));
  const Struct d = DistributedJson({trace});
  EXPECT_THAT(Str(d, "noDataReason"), HasSubstr("not a distributed job"));
}

}  // namespace
}  // namespace tbprof
