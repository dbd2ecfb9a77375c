// tbprof's views file end to end (docs/views_file.md): `convert` publishes
// <host>.tbprof_views.json.gz beside each xplane.pb with the same host
// views that `report --views-out` writes for that xplane.pb; readers of a
// run skip views files (of a host and of the whole run); a run of several
// hosts gets its distributed view; --no-views writes none; a views file
// that cannot be written is an error that leaves nothing behind.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::google::protobuf::Struct;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_util::CliRun;

const std::string kShared = TBPROF_SHARED_TESTDATA;
const std::string kResnet = kShared + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
const std::string kDlrm = kShared + "/kineto/dlrm_8ranks";
constexpr char kHost[] = "resnet50_v100_dataloader_workers0";

Struct ParseJson(const std::string& json) {
  Struct object;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &object).ok())
      << json.substr(0, 300);
  return object;
}

class ViewsFileCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_util::PathExists(kResnet)) GTEST_SKIP() << "no " << kResnet;
    dir_ = testing_util::MakeTempDirectory("views_file_cli_");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    if (!dir_.empty()) testing_util::RunProgram("/bin/rm", {"-rf", dir_}, "/tmp");
  }
  CliRun Run(const std::vector<std::string>& args) {
    return testing_util::RunProgram(TBPROF_CLI_PATH, args, dir_);
  }
  std::string RunDir(const std::string& run) { return dir_ + "/tb/plugins/profile/" + run; }

  std::string dir_;
};

TEST_F(ViewsFileCliTest, ConvertWritesTheHostViewsThatReportWrites) {
  CliRun convert = Run({"convert", kResnet, "--logdir", dir_ + "/tb", "--run", "r", "--quiet"});
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  const std::string views_path = RunDir("r") + "/" + kHost + ".tbprof_views.json.gz";
  ASSERT_TRUE(testing_util::PathExists(views_path));
  const Struct converted = ParseJson(testing_util::ReadGzipFile(views_path));
  EXPECT_EQ(converted.fields().at("schema").string_value(), "tbprof.views");
  EXPECT_EQ(converted.fields().at("version").number_value(), 1);

  // report on the xplane.pb: the same host object, member for member.
  const std::string out = dir_ + "/report.json";
  CliRun report = Run({"report", RunDir("r") + "/" + kHost + ".xplane.pb", "--views-out", out,
                       "--quiet"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.err, HasSubstr("wrote " + out));
  const Struct reported = ParseJson(testing_util::ReadFileOrEmpty(out));
  const auto& a = converted.fields().at("hosts").list_value();
  const auto& b = reported.fields().at("hosts").list_value();
  ASSERT_EQ(a.values_size(), 1);
  ASSERT_EQ(b.values_size(), 1);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a.values(0), b.values(0)));
  // The operator view is there (convert computes it for the views file).
  const auto& ops = a.values(0).struct_value().fields().at("ops").struct_value().fields();
  EXPECT_GT(ops.at("rows").list_value().values_size(), 0);
  // And the step note says how the numbers relate to xprof's overview.
  const auto& step = a.values(0).struct_value().fields().at("step").struct_value().fields();
  EXPECT_THAT(step.at("note").string_value(), HasSubstr("xprof's overview counts device events"));
}

TEST_F(ViewsFileCliTest, ReadersOfARunSkipViewsFiles) {
  ASSERT_EQ(Run({"convert", kResnet, "--logdir", dir_ + "/tb", "--run", "r", "--quiet"})
                .exit_code,
            0);
  // A run-level views file, as the TensorBoard tab caches it.
  const std::string run_file = RunDir("r") + "/tbprof_run.tbprof_views.json.gz";
  CliRun cache = Run({"report", RunDir("r"), "--views-out", run_file, "--quiet"});
  ASSERT_EQ(cache.exit_code, 0) << cache.err;
  for (const std::string& command : {"report", "inspect"}) {
    CliRun run = Run({command, RunDir("r"), "--json", "--quiet"});
    EXPECT_EQ(run.exit_code, 0) << command << ": " << run.err;
    EXPECT_THAT(run.err, Not(HasSubstr("tbprof_views"))) << command;
  }
}

TEST_F(ViewsFileCliTest, NoViewsWritesNone) {
  ASSERT_EQ(Run({"convert", kResnet, "--logdir", dir_ + "/tb", "--run", "r", "--quiet",
                 "--no-views"})
                .exit_code,
            0);
  for (const std::string& name : testing_util::DirectoryEntries(RunDir("r"))) {
    EXPECT_FALSE(absl::EndsWith(name, ".tbprof_views.json.gz")) << name;
  }
}

TEST_F(ViewsFileCliTest, SeveralHostsGetTheDistributedView) {
  if (!testing_util::PathExists(kDlrm)) GTEST_SKIP() << "no " << kDlrm;
  const std::string out = dir_ + "/run.tbprof_views.json.gz";
  CliRun report = Run({"report", kDlrm, "--views-out", out, "--quiet"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const Struct views = ParseJson(testing_util::ReadGzipFile(out));
  EXPECT_EQ(views.fields().at("hosts").list_value().values_size(), 8);
  EXPECT_THAT(views.fields().at("distributedHtml").string_value(), HasSubstr("Distributed"));
  EXPECT_EQ(views.fields()
                .at("distributed")
                .struct_value()
                .fields()
                .at("ranks")
                .list_value()
                .values_size(),
            8);
}

TEST_F(ViewsFileCliTest, UnwritableViewsFileFailsAndLeavesNothing) {
  const std::string out = dir_ + "/missing/dir/v.json";
  CliRun report = Run({"report", kResnet, "--views-out", out, "--quiet"});
  EXPECT_NE(report.exit_code, 0);
  EXPECT_THAT(report.err, HasSubstr("missing/dir"));
  EXPECT_FALSE(testing_util::PathExists(out));
  EXPECT_THAT(testing_util::DirectoryEntries(dir_),
              ::testing::UnorderedElementsAre("stderr", "stdout"));
}

}  // namespace
}  // namespace tbprof
