// End-to-end tests of the tbprof binary: exit codes, messages, and what ends
// up in the log directory, on handwritten bad inputs and on the real traces
// in ../shared/testdata.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/xplane.pb.h"
#include "src/base/input_stream.h"
#include "src/base/output_file.h"
#include "src/capture/capture_records.h"
#include "src/capture/raw_capture_writer.h"
#include "tests/cli_process_test_util.h"

namespace tbprof {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using testing_util::CliRun;
using testing_util::ReadFileOrEmpty;

const std::string kTestdata = TBPROF_SHARED_TESTDATA;

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
}

// lstat, unlike testing_util::PathExists: a dangling symlink exists.
bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Every entry under `dir`, relative, directories with a trailing '/'.
std::vector<std::string> ListTree(const std::string& dir, const std::string& prefix = "") {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    struct stat st;
    ::lstat(path.c_str(), &st);
    if (S_ISDIR(st.st_mode)) {
      out.push_back(prefix + name + "/");
      for (std::string& sub : ListTree(path, prefix + name + "/")) out.push_back(std::move(sub));
    } else {
      out.push_back(prefix + name);
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// Real traces come from ../shared/testdata; without it those tests skip.
#define SKIP_WITHOUT_TESTDATA()                                                   \
  if (!Exists(kTestdata + "/README.md")) GTEST_SKIP() << "no " << kTestdata; \
  static_assert(true, "")

// The <host>.xplane.pb files among `files`.
std::vector<std::string> XPlaneFiles(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const std::string& f : files) {
    if (absl::EndsWith(f, ".xplane.pb")) out.push_back(f);
  }
  return out;
}

// Every file of a run directory belongs to a host with a <host>.xplane.pb
// (the precomputed views for old plugins sit beside it), none is hidden (no
// staging leftovers) and none uses a name the plugin writes itself.
void ExpectOnlyHostFiles(const std::vector<std::string>& files) {
  std::vector<std::string> hosts;
  for (const std::string& f : XPlaneFiles(files)) {
    hosts.push_back(f.substr(0, f.size() - std::string(".xplane.pb").size()));
  }
  for (const std::string& f : files) {
    EXPECT_NE(f[0], '.') << f;
    EXPECT_FALSE(absl::EndsWith(f, "SSTABLE") || absl::StartsWith(f, "ALL_HOSTS.") ||
                 f == "cache_version.txt")
        << f;
    bool has_host = false;
    for (const std::string& host : hosts) has_host |= absl::StartsWith(f, host + ".");
    EXPECT_TRUE(has_host) << f << " belongs to no host";
  }
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_util::MakeTempDirectory("cli_test_");
    ASSERT_FALSE(dir_.empty());
    logdir_ = dir_ + "/tb";
    io_dir_ = testing_util::MakeTempDirectory("cli_test_io_");
    ASSERT_FALSE(io_dir_.empty());
  }

  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    std::filesystem::remove_all(io_dir_, ignored);
  }

  // Runs tbprof with `args`; stdout/stderr are captured through files.
  CliRun Run(const std::vector<std::string>& args) {
    return testing_util::RunProgram(TBPROF_CLI_PATH, args, io_dir_);
  }

  // Expects a failure with one error line naming `name`, and an untouched logdir.
  void ExpectCleanFailure(const CliRun& r, const std::string& name, const std::string& what) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(Lines(r.err), SizeIs(1)) << r.err;
    EXPECT_THAT(r.err, StartsWith("tbprof: error: "));
    EXPECT_THAT(r.err, HasSubstr(name));
    EXPECT_THAT(r.err, HasSubstr(what));
    EXPECT_THAT(ListTree(logdir_), IsEmpty()) << "logdir must stay empty";
  }

  std::string RunDir(const std::string& run) const { return logdir_ + "/plugins/profile/" + run; }

  std::string dir_;     // Inputs and the logdir.
  std::string logdir_;
  std::string io_dir_;  // Captured stdout/stderr.
};

tensorflow::profiler::XSpace ParseXSpaceFile(const std::string& path) {
  tensorflow::profiler::XSpace space;
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(bytes.ok() && space.ParseFromString(*bytes)) << path;
  return space;
}

std::vector<std::string> PlaneNames(const tensorflow::profiler::XSpace& space) {
  std::vector<std::string> names;
  for (const auto& plane : space.planes()) names.push_back(plane.name());
  return names;
}

// ---- help and usage ----------------------------------------------------------

TEST_F(CliTest, HelpListsCommandsWithExamples) {
  CliRun r = Run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("convert"), HasSubstr("inspect"), HasSubstr("Examples")));
  for (const char* command : {"convert", "inspect"}) {
    CliRun help = Run({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.out, AllOf(HasSubstr("Usage: tbprof "), HasSubstr("Examples:")));
    EXPECT_EQ(Run({"help", command}).out, help.out);
  }
  EXPECT_THAT(Run({"convert", "--help"}).out,
              AllOf(HasSubstr("--logdir"), HasSubstr("--force"), HasSubstr("--run")));
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  WriteFile(dir_ + "/a.json", "[]");
  WriteFile(dir_ + "/b.json", "[]");
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"convert", "--logdir", logdir_},
      {"convert", dir_ + "/a.json"},
      {"convert", dir_ + "/a.json", "--logdir", logdir_, "--bogus"},
      {"convert", dir_ + "/a.json", "--logdir", logdir_, "--max-events", "many"},
      {"convert", dir_ + "/a.json", "--logdir", logdir_, "--run", "a/b"},
      {"convert", dir_ + "/a.json", dir_ + "/b.json", "--logdir", logdir_, "--host", "h"},
      {"inspect"},
  };
  for (const auto& args : cases) {
    CliRun r = Run(args);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(args, " ") << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("tbprof")) << absl::StrJoin(args, " ");
  }
  EXPECT_THAT(Run({"frobnicate"}).err, HasSubstr("unknown command 'frobnicate'"));
  EXPECT_THAT(ListTree(logdir_), IsEmpty());
}

// ---- bad input ---------------------------------------------------------------

TEST_F(CliTest, EmptyFile) {
  WriteFile(dir_ + "/empty.json", "");
  ExpectCleanFailure(Run({"convert", dir_ + "/empty.json", "--logdir", logdir_}), "empty.json",
                     "empty");
  EXPECT_FALSE(Exists(logdir_)) << "a logdir this call created is removed again";
}

TEST_F(CliTest, TruncatedGzip) {
  std::string trace = "{\"traceEvents\": [";
  for (int i = 0; i < 20000; ++i) {
    absl::StrAppend(&trace, i ? "," : "", "{\"ph\":\"X\",\"name\":\"op", i % 97,
                    "\",\"pid\":1,\"tid\":1,\"ts\":", i * 10, ",\"dur\":5}");
  }
  trace += "]}";
  absl::StatusOr<std::string> gz = GzipCompress(trace);
  ASSERT_TRUE(gz.ok());
  WriteFile(dir_ + "/cut.json.gz", gz->substr(0, gz->size() / 2));
  ExpectCleanFailure(Run({"convert", dir_ + "/cut.json.gz", "--logdir", logdir_}), "cut.json.gz",
                     "truncated");
}

TEST_F(CliTest, InvalidJsonNamesByteOffset) {
  WriteFile(dir_ + "/bad.json",
            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, "
            "\"pid\": 1, \"tid\": 1}] oops}");
  ExpectCleanFailure(Run({"convert", dir_ + "/bad.json", "--logdir", logdir_}), "bad.json",
                     "byte ");
}

TEST_F(CliTest, TraceWithOnlyMalformedEvents) {
  // A broken event is skipped, not fatal; with nothing left there is no profile.
  WriteFile(dir_ + "/broken.json", "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\",, }]}");
  ExpectCleanFailure(Run({"convert", dir_ + "/broken.json", "--logdir", logdir_}), "broken.json",
                     "malformed; first: byte ");
}

TEST_F(CliTest, JsonThatIsNotATrace) {
  WriteFile(dir_ + "/config.json", "{\"learning_rate\": 0.1, \"layers\": [1, 2, 3]}");
  ExpectCleanFailure(Run({"convert", dir_ + "/config.json", "--logdir", logdir_}), "config.json",
                     "");
}

TEST_F(CliTest, NotAnXSpace) {
  WriteFile(dir_ + "/junk.xplane.pb", "this is plain text, not a protobuf");
  ExpectCleanFailure(Run({"convert", dir_ + "/junk.xplane.pb", "--logdir", logdir_}),
                     "junk.xplane.pb", "not an XSpace");
}

TEST_F(CliTest, MissingFile) {
  ExpectCleanFailure(Run({"convert", dir_ + "/nope.json", "--logdir", logdir_}), "nope.json",
                     "No such file");
}

TEST_F(CliTest, DirectoryWithoutTraces) {
  ASSERT_EQ(::mkdir((dir_ + "/empty_dir").c_str(), 0755), 0);
  WriteFile(dir_ + "/empty_dir/notes.txt", "hello");
  ExpectCleanFailure(Run({"convert", dir_ + "/empty_dir", "--logdir", logdir_}), "empty_dir",
                     "no trace files");
}

TEST_F(CliTest, UnwritableLogdir) {
  // A path below a regular file cannot be created, even by root.
  WriteFile(dir_ + "/a.json", "{\"traceEvents\": []}");
  WriteFile(dir_ + "/plain_file", "x");
  CliRun r = Run({"convert", dir_ + "/a.json", "--logdir", dir_ + "/plain_file/tb"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(Lines(r.err), SizeIs(1));
  EXPECT_THAT(r.err, AllOf(StartsWith("tbprof: error: "), HasSubstr("plain_file")));
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/plain_file"), "x");
}

// --strict keeps all-or-nothing; without it the good inputs are published
// (tests/ranks_cli_test.cc).
TEST_F(CliTest, OneBadInputOfManyWritesNothingWithStrict) {
  SKIP_WITHOUT_TESTDATA();
  WriteFile(dir_ + "/bad.json", "{\"traceEvents\": [");
  ASSERT_EQ(::mkdir(logdir_.c_str(), 0755), 0);
  CliRun r = Run({"convert", kTestdata + "/kineto/h100_bert_small_inference.json.gz",
                  dir_ + "/bad.json", "--logdir", logdir_, "--run", "r", "--strict"});
  ExpectCleanFailure(r, "bad.json", "");
  EXPECT_TRUE(Exists(logdir_)) << "a logdir that existed before stays";
}

// ---- real traces -------------------------------------------------------------

TEST_F(CliTest, ConvertsBertTrace) {
  SKIP_WITHOUT_TESTDATA();
  const std::string input = kTestdata + "/kineto/h100_bert_small_inference.json.gz";
  CliRun r = Run({"convert", input, "--logdir", logdir_, "--run", "bert"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> all_files = ListTree(RunDir("bert"));
  ExpectOnlyHostFiles(all_files);
  std::vector<std::string> files = XPlaneFiles(all_files);
  ASSERT_THAT(files, SizeIs(1));
  EXPECT_TRUE(absl::EndsWith(files[0], ".xplane.pb")) << files[0];
  EXPECT_NE(files[0], "xplane.pb");
  tensorflow::profiler::XSpace space = ParseXSpaceFile(RunDir("bert") + "/" + files[0]);
  EXPECT_THAT(PlaneNames(space), AllOf(Contains("/host:CPU"), Contains("/device:GPU:0")));
  EXPECT_THAT(r.out, HasSubstr("tensorboard --logdir " + logdir_));
  EXPECT_THAT(r.out, HasSubstr(RunDir("bert") + "/" + files[0]));
  EXPECT_THAT(r.out, AllOf(HasSubstr("/device:GPU:0"), HasSubstr("steps:")));

  // A second conversion into the same run refuses to overwrite...
  std::string before = ReadFileOrEmpty(RunDir("bert") + "/" + files[0]);
  CliRun again = Run({"convert", input, "--logdir", logdir_, "--run", "bert"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, AllOf(HasSubstr(files[0]), HasSubstr("--force")));
  EXPECT_EQ(ListTree(RunDir("bert")), all_files);
  // ...unless forced.
  CliRun forced = Run({"convert", input, "--logdir", logdir_, "--run", "bert", "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(ListTree(RunDir("bert")), all_files);
  EXPECT_EQ(ReadFileOrEmpty(RunDir("bert") + "/" + files[0]), before)
      << "conversion is deterministic";
}

TEST_F(CliTest, QuietPrintsOnlyPathsAndHostOverride) {
  SKIP_WITHOUT_TESTDATA();
  CliRun r = Run({"convert", kTestdata + "/kineto/h100_qwen_inference.json.gz", "--logdir",
                  logdir_, "--run", "q", "--host", "gpu-node.7", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, RunDir("q") + "/gpu-node.7.xplane.pb\n");
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(XPlaneFiles(ListTree(RunDir("q"))), ElementsAre("gpu-node.7.xplane.pb"));
  ExpectOnlyHostFiles(ListTree(RunDir("q")));
}

TEST_F(CliTest, TimingsListEveryPhaseOnStderr) {
  SKIP_WITHOUT_TESTDATA();
  CliRun r = Run({"convert", kTestdata + "/kineto/h100_qwen_inference.json.gz", "--logdir",
                  logdir_, "--run", "t", "--host", "qwen", "--quiet", "--timings"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, RunDir("t") + "/qwen.xplane.pb\n");
  EXPECT_THAT(r.err, HasSubstr("tbprof: phase timings:"));
  for (const char* phase : {"load (parse + build)", "write xplane.pb", "views: trace JSON",
                            "views: steps+overview+input", "views: kernel stats",
                            "views: memory profile", "publish", "total"}) {
    EXPECT_THAT(r.err, HasSubstr(phase));
  }
  // The views computed beside the xplane.pb write are all there.
  for (const char* suffix : {".overview_page.pb", ".input_pipeline.pb", ".kernel_stats.pb",
                             ".memory_profile.json.gz", ".trace.json.gz"}) {
    EXPECT_TRUE(Exists(RunDir("t") + "/qwen" + suffix)) << suffix;
  }
}

TEST_F(CliTest, DefaultRunNameIsTimestamp) {
  SKIP_WITHOUT_TESTDATA();
  CliRun r = Run({"convert", kTestdata + "/kineto/h100_bert_small_inference.json.gz",
                  "--logdir", logdir_, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> runs = ListTree(logdir_ + "/plugins/profile");
  ASSERT_GE(runs.size(), 1u);
  int y, mo, d, h, mi, s;
  EXPECT_EQ(std::sscanf(runs[0].c_str(), "%4d_%2d_%2d_%2d_%2d_%2d/", &y, &mo, &d, &h, &mi, &s), 6)
      << runs[0];
}

TEST_F(CliTest, DirectoryOfRanksBecomesOneRunWithEightHosts) {
  SKIP_WITHOUT_TESTDATA();
  CliRun r = Run({"convert", kTestdata + "/kineto/dlrm_8ranks", "--logdir", logdir_, "--run",
                  "dlrm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOnlyHostFiles(ListTree(RunDir("dlrm")));
  std::vector<std::string> files = XPlaneFiles(ListTree(RunDir("dlrm")));
  ASSERT_THAT(files, SizeIs(8)) << r.out;
  for (const std::string& file : files) {
    EXPECT_TRUE(absl::EndsWith(file, ".xplane.pb")) << file;
    EXPECT_NE(file[0], '.') << file;
    tensorflow::profiler::XSpace space = ParseXSpaceFile(RunDir("dlrm") + "/" + file);
    EXPECT_THAT(PlaneNames(space), Contains("/host:CPU")) << file;
  }
  EXPECT_THAT(ListTree(logdir_ + "/plugins/profile"), Contains("dlrm/"));
  EXPECT_THAT(r.out, HasSubstr("with 8 hosts"));

  // inspect takes the run directory: the eight XSpaces, not the view files beside them.
  CliRun inspect = Run({"inspect", RunDir("dlrm")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  size_t sections = 0;
  for (size_t at = inspect.out.find("TensorBoard profile tools ("); at != std::string::npos;
       at = inspect.out.find("TensorBoard profile tools (", at + 1)) {
    ++sections;
  }
  EXPECT_EQ(sections, 8u);
}

TEST_F(CliTest, XSpaceInputsAreCopiedWithoutLoss) {
  SKIP_WITHOUT_TESTDATA();
  for (const char* name : {"tf_v100x8_multiworker", "jax08_mi300x8_conv"}) {
    SCOPED_TRACE(name);
    const std::string input = kTestdata + "/xspace/" + name + ".xplane.pb";
    const std::string run = std::string("x_") + name;
    CliRun r = Run({"convert", input, "--logdir", logdir_, "--run", run});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectOnlyHostFiles(ListTree(RunDir(run)));
    std::vector<std::string> files = XPlaneFiles(ListTree(RunDir(run)));
    ASSERT_THAT(files, SizeIs(1));
    tensorflow::profiler::XSpace original = ParseXSpaceFile(input);
    // Host: XSpace.hostnames[0], else the file name.
    std::string expected_host = original.hostnames_size() > 0 ? original.hostnames(0) : name;
    for (char& c : expected_host) {
      if (!(isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
    }
    EXPECT_EQ(files[0], expected_host + ".xplane.pb");
    tensorflow::profiler::XSpace written = ParseXSpaceFile(RunDir(run) + "/" + files[0]);
    google::protobuf::util::MessageDifferencer differencer;
    std::string diff;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(original, written)) << diff.substr(0, 2000);
    EXPECT_GT(written.planes_size(), 1);
  }
}

// A collector capture with three tbprof_step() markers and no GPU activity.
std::string WriteStepCapture(const std::string& path) {
  capture::CaptureHeader header;
  header.pid = 4242;
  header.hostname = "gpu-node";
  header.start_cupti_ns = 1'000'000'000;
  header.start_realtime_ns = 1'700'000'000'000'000'000;
  header.start_monotonic_ns = 5'000'000'000;
  int err = 0;
  std::unique_ptr<capture::RawCaptureWriter> writer =
      capture::RawCaptureWriter::Create(path, header, &err);
  EXPECT_NE(writer, nullptr) << "errno " << err;
  if (writer == nullptr) return path;
  for (int step = 1; step <= 3; ++step) {
    capture::Marker marker;
    marker.kind = capture::MarkerKind::kStep;
    marker.cupti_ts_ns = header.start_cupti_ns + step * 1'000'000;
    marker.value = step;
    marker.tid = 7;
    EXPECT_TRUE(writer->AppendMarker(marker));
  }
  capture::Trailer trailer;
  trailer.stop_cupti_ns = header.start_cupti_ns + 10'000'000;
  trailer.end_reason = capture::EndReason::kStopped;
  EXPECT_TRUE(writer->Finish(trailer));
  return path;
}

TEST_F(CliTest, ConvertsCollectorCapture) {
  const std::string input = WriteStepCapture(dir_ + "/gpu-node.4242.tbcap");
  CliRun r = Run({"convert", input, "--logdir", logdir_, "--run", "cap"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectOnlyHostFiles(ListTree(RunDir("cap")));
  EXPECT_THAT(XPlaneFiles(ListTree(RunDir("cap"))), ElementsAre("gpu-node.xplane.pb"));
  tensorflow::profiler::XSpace space = ParseXSpaceFile(RunDir("cap") + "/gpu-node.xplane.pb");
  EXPECT_THAT(PlaneNames(space), Contains("/host:CPU"));
  EXPECT_THAT(r.out, AllOf(HasSubstr("tbprof raw capture"), HasSubstr("3 step markers")));
}

TEST_F(CliTest, BrokenCapture) {
  WriteFile(dir_ + "/broken.tbcap", std::string("\x89TBCAP\r\n", 8) + "not a header");
  ExpectCleanFailure(Run({"convert", dir_ + "/broken.tbcap", "--logdir", logdir_}),
                     "broken.tbcap", "");
}

TEST_F(CliTest, InspectExplainsTools) {
  SKIP_WITHOUT_TESTDATA();
  CliRun r = Run({"inspect", kTestdata + "/kineto/h100_bert_small_inference.json.gz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("/host:CPU"), HasSubstr("/device:GPU:0"),
                           HasSubstr("kernel_stats"), HasSubstr("overview_page"),
                           HasSubstr("memory_profile"), HasSubstr("Steps")));
  CliRun json = Run({"inspect", "--json", kTestdata + "/xspace/jax08_mi300x8_conv.xplane.pb"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, AllOf(StartsWith("{\"source\":"), HasSubstr("\"tools\":[")));
  EXPECT_THAT(ListTree(dir_), IsEmpty()) << "inspect writes nothing";
}

// The report says which breakdown its step time uses and gives xprof's
// (device-only) numbers beside it: ResNet-50 with DataLoader(num_workers=0),
// where TensorBoard's overview shows 118.3 ms per step and 1.7 ms input.
TEST_F(CliTest, ReportSaysWhichBreakdownItShows) {
  SKIP_WITHOUT_TESTDATA();
  const std::string input =
      kTestdata + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
  CliRun r = Run({"report", "--width", "200", input});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Step time includes host activity (tbprof's default): 150.8 ms "
                               "per step"));
  EXPECT_THAT(r.out, HasSubstr("xprof's overview counts device events only: 118.3 ms per step, "
                               "input 1.7 ms"));
  CliRun device = Run({"report", "--width", "200", "--breakdown=device-only", input});
  ASSERT_EQ(device.exit_code, 0) << device.err;
  EXPECT_THAT(device.out, HasSubstr("Step time counts device events only, as xprof's overview "
                                    "does: 118.3 ms per step"));
  CliRun html = Run({"report", "--html", dir_ + "/r.html", input});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_THAT(ReadFileOrEmpty(dir_ + "/r.html"),
              HasSubstr("xprof's overview counts device events only"));
  // inspect says why xprof's own overview shows "All Others" for this file.
  CliRun inspect = Run({"inspect", input});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_THAT(inspect.out, HasSubstr("no step-time graph: xprof marks a run as training only "
                                     "from XLA HLO"));
}

TEST_F(CliTest, InspectBadInput) {
  WriteFile(dir_ + "/empty.xplane.pb", "");
  CliRun r = Run({"inspect", dir_ + "/empty.xplane.pb"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, AllOf(StartsWith("tbprof: error: "), HasSubstr("empty.xplane.pb")));
}

// `convert --force` into a run that holds a host split for TensorBoard:
// parts of that host the new conversion does not write are removed, and
// nothing of other hosts. The ResNet-50 sample (6 steps, ~3.2 MB) splits
// into 3 runs at a budget of 140 MiB, into 2 at 160 MiB, and not at 8192.
TEST_F(CliTest, ForceRemovesStalePartRunsOfTheHostsItRewrites) {
  SKIP_WITHOUT_TESTDATA();
  const std::string trace =
      kTestdata + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
  auto convert = [&](const std::string& host, const std::string& budget, bool force) {
    std::vector<std::string> args = {"convert", trace,   "--logdir", logdir_, "--run", "r",
                                     "--host",  host,    "--no-views", "--quiet",
                                     "--tensorboard-budget-mb", budget};
    if (force) args.push_back("--force");
    return Run(args);
  };
  for (const char* host : {"a", "b"}) {
    CliRun r = convert(host, "140", false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("split into 3 runs of 2 steps each (r_part1..3)"));
  }
  // Without --force nothing changes: the host exists.
  CliRun r = convert("a", "160", false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--force"));
  EXPECT_TRUE(Exists(RunDir("r_part3") + "/a.xplane.pb"));

  // 3 parts -> 2: a's third part goes, b's stay.
  r = convert("a", "160", true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("split into 2 runs of 3 steps each (r_part1..2)"));
  EXPECT_TRUE(Exists(RunDir("r_part1") + "/a.xplane.pb"));
  EXPECT_TRUE(Exists(RunDir("r_part2") + "/a.xplane.pb"));
  EXPECT_FALSE(Exists(RunDir("r_part3") + "/a.xplane.pb"));
  for (const char* part : {"r_part1", "r_part2", "r_part3"}) {
    EXPECT_TRUE(Exists(RunDir(part) + "/b.xplane.pb")) << part;
  }

  // Unsplit: every part of a goes; a is whole in r; b untouched. Not
  // --quiet: the removals are reported.
  r = Run({"convert", trace, "--logdir", logdir_, "--run", "r", "--host", "a", "--no-views",
           "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("removed stale " + RunDir("r_part1") + "/a.xplane.pb (--force)"));
  EXPECT_TRUE(Exists(RunDir("r") + "/a.xplane.pb"));
  for (const char* part : {"r_part1", "r_part2", "r_part3"}) {
    EXPECT_FALSE(Exists(RunDir(part) + "/a.xplane.pb")) << part;
    EXPECT_TRUE(Exists(RunDir(part) + "/b.xplane.pb")) << part;
  }

  // b split -> unsplit: its part runs become empty and are removed; the
  // stale whole file of a split host goes too (a split again).
  r = convert("b", "8192", true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Exists(RunDir("r") + "/b.xplane.pb"));
  EXPECT_FALSE(Exists(RunDir("r_part1")));
  EXPECT_FALSE(Exists(RunDir("r_part3")));
  r = convert("a", "160", true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Exists(RunDir("r") + "/a.xplane.pb"));
  EXPECT_TRUE(Exists(RunDir("r") + "/b.xplane.pb"));
  EXPECT_TRUE(Exists(RunDir("r_part2") + "/a.xplane.pb"));
}

// An error before publishing leaves the old parts (the new run is never
// published, so nothing is removed).
TEST_F(CliTest, ForceThatFailsLeavesTheOldParts) {
  SKIP_WITHOUT_TESTDATA();
  const std::string trace =
      kTestdata + "/kineto/resnet50_v100_dataloader_workers0.pt.trace.json.gz";
  CliRun r = Run({"convert", trace, "--logdir", logdir_, "--run", "r", "--host", "a",
                  "--no-views", "--quiet", "--tensorboard-budget-mb", "140"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  WriteFile(dir_ + "/bad.json", "{\"traceEvents\": [");
  r = Run({"convert", dir_ + "/bad.json", "--logdir", logdir_, "--run", "r", "--host", "a",
           "--force", "--no-views", "--quiet"});
  EXPECT_EQ(r.exit_code, 1);
  for (const char* part : {"r_part1", "r_part2", "r_part3"}) {
    EXPECT_TRUE(Exists(RunDir(part) + "/a.xplane.pb")) << part;
  }
}

}  // namespace
}  // namespace tbprof
