#include "tools/tbprof/trace_inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/output_file.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_io.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Removes the directories MakeTempDir() made when the test program ends.
struct TempDirs {
  ~TempDirs() {
    std::error_code ignored;
    for (const std::string& dir : dirs) std::filesystem::remove_all(dir, ignored);
  }
  std::vector<std::string> dirs;
};
TempDirs& CreatedTempDirs() {
  static TempDirs dirs;
  return dirs;
}

std::string MakeTempDir() {
  std::string pattern = ::testing::TempDir() + "/trace_inputs_test_XXXXXX";
  EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
  CreatedTempDirs().dirs.push_back(pattern);
  return pattern;
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
}

std::string SerializedSpace(const std::string& hostname) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host->GetOrCreateLine(/*line_id=*/1)->AddEvent(host->GetOrCreateEventMetadata("op"),
                                                 /*offset_ps=*/0, /*duration_ps=*/10);
  if (!hostname.empty()) builder.AddHostname(hostname);
  builder.Finalize({});
  return xplane::SerializeXSpaceData(space);
}

TEST(NaturalLessTest, NumbersCompareByValue) {
  std::vector<std::string> names = {"rank10.json", "rank2.json", "rank1.json", "rank02b.json"};
  std::sort(names.begin(), names.end(), NaturalLess);
  EXPECT_THAT(names, ElementsAre("rank1.json", "rank2.json", "rank02b.json", "rank10.json"));
  EXPECT_FALSE(NaturalLess("a", "a"));
}

TEST(FileStemTest, StripsTraceSuffixes) {
  EXPECT_EQ(FileStem("d/worker0_step_12.1694.pt.trace.json.gz"), "worker0_step_12.1694");
  EXPECT_EQ(FileStem("trace.json"), "trace");
  EXPECT_EQ(FileStem("/x/host.a.xplane.pb"), "host.a");
  EXPECT_EQ(FileStem("t.JSON.GZ"), "t");
  EXPECT_EQ(FileStem("noext"), "noext");
  EXPECT_EQ(FileStem(".json"), ".json");
  EXPECT_EQ(FileStem("logs/gpu-7.31337.tbcap"), "gpu-7.31337");
}

TEST(ExpandInputsTest, DirectoryBecomesItsTraceFiles) {
  std::string dir = MakeTempDir();
  for (const char* name : {"w10.json", "w2.json.gz", "w1.xplane.pb", "w3.77.tbcap", ".hidden.json",
                           "notes.txt"}) {
    WriteFile(dir + "/" + name, "{}");
  }
  ASSERT_EQ(::mkdir((dir + "/sub.json").c_str(), 0755), 0);
  auto files = ExpandInputs({dir, dir + "/notes.txt"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(dir + "/w1.xplane.pb", dir + "/w2.json.gz", dir + "/w3.77.tbcap",
                                  dir + "/w10.json", dir + "/notes.txt"));
}

TEST(ExpandInputsTest, RunDirectoryYieldsXSpacesNotViewFiles) {
  std::string dir = MakeTempDir();
  for (const char* name : {"h.1.xplane.pb", "h.1.trace.json.gz", "h.1.memory_profile.json.gz",
                           "h.1.overview_page.pb", "other.json"}) {
    WriteFile(dir + "/" + name, "{}");
  }
  auto files = ExpandInputs({dir});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(dir + "/h.1.xplane.pb", dir + "/other.json"));
}

TEST(ExpandInputsTest, Errors) {
  std::string dir = MakeTempDir();
  auto missing = ExpandInputs({dir + "/nope.json"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("nope.json"));
  WriteFile(dir + "/readme.md", "x");
  auto empty = ExpandInputs({dir});
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr(dir + ": no trace files"));
}

TEST(DetectInputFormatTest, ByContentThenName) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/a.pb", "  \n{\"traceEvents\": []}");
  WriteFile(dir + "/b.bin", SerializedSpace("h"));
  WriteFile(dir + "/c.json", "not json");
  WriteFile(dir + "/d", "\xEF\xBB\xBF[]");
  absl::StatusOr<std::string> gz = GzipCompress("[{\"ph\":\"X\"}]");
  ASSERT_TRUE(gz.ok());
  WriteFile(dir + "/e.gz", *gz);
  EXPECT_EQ(*DetectInputFormat(dir + "/a.pb", 0), InputFormat::kChromeJson);
  EXPECT_EQ(*DetectInputFormat(dir + "/b.bin", 0), InputFormat::kXSpace);
  EXPECT_EQ(*DetectInputFormat(dir + "/c.json", 0), InputFormat::kChromeJson);
  EXPECT_EQ(*DetectInputFormat(dir + "/d", 0), InputFormat::kChromeJson);
  EXPECT_EQ(*DetectInputFormat(dir + "/e.gz", 0), InputFormat::kChromeJson);
  WriteFile(dir + "/f.json", std::string("\x89TBCAP\r\n\x1a\n", 10) + std::string(32, '\0'));
  EXPECT_EQ(*DetectInputFormat(dir + "/f.json", 0), InputFormat::kRawCapture);
}

TEST(DetectInputFormatTest, EmptyFiles) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/empty.json", "");
  WriteFile(dir + "/blank.xplane.pb", " \n\t");
  auto empty = DetectInputFormat(dir + "/empty.json", 0);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty.json: empty file"));
  EXPECT_EQ(DetectInputFormat(dir + "/blank.xplane.pb", 0).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DetectInputFormat(dir + "/missing", 0).status().code(), absl::StatusCode::kNotFound);
}

TEST(CheckXSpaceWireFormatTest, AcceptsXSpaceRejectsOthers) {
  std::string bytes = SerializedSpace("h");
  EXPECT_TRUE(CheckXSpaceWireFormat(bytes, "f").ok());
  EXPECT_TRUE(CheckXSpaceWireFormat("", "f").ok());
  absl::Status text = CheckXSpaceWireFormat("hello world", "f.xplane.pb");
  EXPECT_EQ(text.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(text.message(), HasSubstr("f.xplane.pb: not an XSpace protobuf"));
  EXPECT_THAT(text.message(), HasSubstr("at byte 0"));
  absl::Status truncated = CheckXSpaceWireFormat(bytes.substr(0, bytes.size() - 1), "f");
  EXPECT_EQ(truncated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(truncated.message(), HasSubstr("runs past the end"));
}

TEST(LoadInputTest, ReadsXSpaceWithHostHint) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/x.xplane.pb", SerializedSpace("node-3"));
  int progress_calls = 0;
  LoadOptions options;
  options.progress = [&](uint64_t, uint64_t) { ++progress_calls; };
  auto loaded = LoadInput(dir + "/x.xplane.pb", options);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->format, InputFormat::kXSpace);
  EXPECT_EQ(loaded->host_hint, "node-3");
  EXPECT_FALSE(loaded->json_summary.has_value());
  EXPECT_GT(loaded->file_bytes, 0u);
  EXPECT_GT(progress_calls, 0);
  EXPECT_FALSE(loaded->space.planes.empty());
}

TEST(LoadInputTest, StreamsXSpaceEventsWhenAsked) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/x.xplane.pb", SerializedSpace("node-3"));
  for (converters::StepsMode steps :
       {converters::StepsMode::kAuto, converters::StepsMode::kMarkers,
        converters::StepsMode::kInfer, converters::StepsMode::kNone}) {
    const bool streams =
        steps == converters::StepsMode::kAuto || steps == converters::StepsMode::kMarkers;
    LoadOptions options;
    options.steps = steps;
    int events = 0, line_ends = 0;
    options.xspace_line_events = [&](const xplane::XSpaceData&, const xplane::Plane&,
                                     const xplane::Line& line, bool line_end) {
      events += static_cast<int>(line.events.size());
      line_ends += line_end;
    };
    auto loaded = LoadInput(dir + "/x.xplane.pb", options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->lines_streamed, streams);
    EXPECT_EQ(events, streams ? 1 : 0);
    EXPECT_EQ(line_ends, streams ? 1 : 0);
    size_t lines = 0, kept = 0;
    for (const xplane::Plane& plane : loaded->space.planes) {
      lines += plane.lines.size();
      for (const xplane::Line& line : plane.lines) kept += line.events.size();
    }
    EXPECT_EQ(lines, 1u);
    // Streamed events are not kept (--steps infer/none needs them: not streamed).
    EXPECT_EQ(kept, streams ? 0u : 1u);
    EXPECT_EQ(loaded->host_hint, "node-3");
  }
}

TEST(LoadInputTest, RejectsNonXSpaceBytes) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/bad.xplane.pb", "this is not a protobuf");
  auto loaded = LoadInput(dir + "/bad.xplane.pb", {});
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr("bad.xplane.pb: not an XSpace protobuf"));
}

TEST(HostNamerTest, UniqueSanitizedNames) {
  HostNamer namer;
  EXPECT_EQ(namer.Pick("", -1, "d/w0.pt.trace.json.gz"), "w0");
  EXPECT_EQ(namer.Pick("node", 0, "x"), "node");
  EXPECT_EQ(namer.Pick("node", 1, "x"), "node_rank1");
  // Collector captures "<host>.<pid>.tbcap" of one host fall back to the stem.
  EXPECT_EQ(namer.Pick("node", -1, "d/node.4242.tbcap"), "node.4242");
  EXPECT_EQ(namer.Pick("node", -1, "d/node.4242.tbcap"), "node_2");
  EXPECT_EQ(namer.Pick("node", -1, "d/node.4242.tbcap"), "node_3");
  EXPECT_EQ(namer.Pick("a/b", -1, "x"), "a_b");
  EXPECT_EQ(namer.Pick("", -1, "d/.json"), "_json");
}

}  // namespace
}  // namespace tbprof::cli
