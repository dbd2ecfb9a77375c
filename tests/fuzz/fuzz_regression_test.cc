// Replays every seed (tests/fuzz/corpus/<target>/) and every reproducer of a
// fixed fuzzer finding (tests/fuzz/regressions/<target>/) through the same
// entry points the libFuzzer targets use. Runs in the normal build without
// clang; a crash, a sanitizer report (in the ASan build) or a hang here is
// a regression.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/cli_process_test_util.h"
#include "tests/fuzz/fuzz_entry_points.h"

namespace tbprof::fuzz {
namespace {

using testing_util::ReadFileOrEmpty;

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return files;
  while (struct dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.empty() || name[0] == '.' || name == "README.md") continue;
    std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.push_back(path);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

class FuzzRegressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegressionTest, SeedCorpusRunsClean) {
  const std::string dir = absl::StrCat(TBPROF_SOURCE_DIR, "/tests/fuzz/corpus/", GetParam());
  std::vector<std::string> files = FilesIn(dir);
  ASSERT_FALSE(files.empty()) << "no seeds in " << dir;
  int accepted = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    if (RunFuzzTarget(GetParam(), ReadFileOrEmpty(path)).ok()) ++accepted;
  }
  // The seeds are real inputs: most of them must be accepted, or the entry
  // point (not the fuzzer) is broken and the fuzzer explores nothing.
  EXPECT_GT(accepted, 0) << "every seed in " << dir << " was rejected";
}

TEST_P(FuzzRegressionTest, ReproducersRunClean) {
  const std::string dir =
      absl::StrCat(TBPROF_SOURCE_DIR, "/tests/fuzz/regressions/", GetParam());
  for (const std::string& path : FilesIn(dir)) {
    SCOPED_TRACE(path);
    (void)RunFuzzTarget(GetParam(), ReadFileOrEmpty(path));  // Must not crash or hang.
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FuzzRegressionTest,
                         ::testing::ValuesIn(FuzzTargetNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tbprof::fuzz
