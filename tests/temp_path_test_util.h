// Paths for the files a test program writes in ::testing::TempDir().
#ifndef TBPROF_TESTS_TEMP_PATH_TEST_UTIL_H_
#define TBPROF_TESTS_TEMP_PATH_TEST_UTIL_H_

#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::testing_util {

// ::testing::TempDir() + "/" + name, with no file there yet; the file is
// removed when the test program exits.
inline std::string TempFilePath(const std::string& name) {
  struct Created {
    std::vector<std::string> paths;
    ~Created() {
      for (const std::string& path : paths) std::remove(path.c_str());
    }
  };
  static Created created;
  std::string path = ::testing::TempDir() + "/" + name;
  std::remove(path.c_str());
  created.paths.push_back(path);
  return path;
}

}  // namespace tbprof::testing_util

#endif  // TBPROF_TESTS_TEMP_PATH_TEST_UTIL_H_
