#include "src/base/output_file.h"

#include <dirent.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/base/input_stream.h"

namespace tbprof {
namespace {

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

std::string FreshDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/" + name;
  mkdir(dir.c_str(), 0755);
  for (const std::string& n : ListDir(dir)) unlink((dir + "/" + n).c_str());
  return dir;
}

TEST(AtomicOutputFileTest, NothingVisibleUntilCommit) {
  std::string dir = FreshDir("atomic1");
  auto file = AtomicOutputFile::Create(dir + "/out.pb");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("hello").ok());
  for (const std::string& n : ListDir(dir)) EXPECT_EQ(n[0], '.') << n;  // Only the hidden temp.
  ASSERT_TRUE((*file)->Commit(AtomicOutputFile::Overwrite::kRefuse).ok());
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"out.pb"});
  EXPECT_EQ(*ReadFileToString(dir + "/out.pb"), "hello");
}

TEST(AtomicOutputFileTest, AbandonLeavesNothing) {
  std::string dir = FreshDir("atomic2");
  {
    auto file = AtomicOutputFile::Create(dir + "/out.pb");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append(std::string(3 << 20, 'a')).ok());
  }  // Destroyed without commit.
  EXPECT_TRUE(ListDir(dir).empty());
}

TEST(AtomicOutputFileTest, RefuseKeepsExistingFile) {
  std::string dir = FreshDir("atomic3");
  ASSERT_TRUE(WriteFileAtomically(dir + "/x", "first", AtomicOutputFile::Overwrite::kRefuse).ok());
  absl::Status second = WriteFileAtomically(dir + "/x", "second", AtomicOutputFile::Overwrite::kRefuse);
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(*ReadFileToString(dir + "/x"), "first");
  EXPECT_EQ(ListDir(dir).size(), 1u);
  ASSERT_TRUE(WriteFileAtomically(dir + "/x", "third", AtomicOutputFile::Overwrite::kReplace).ok());
  EXPECT_EQ(*ReadFileToString(dir + "/x"), "third");
}

TEST(AtomicOutputFileTest, MissingDirectoryIsAnError) {
  auto file = AtomicOutputFile::Create(::testing::TempDir() + "/no/such/dir/out.pb");
  EXPECT_FALSE(file.ok());
  EXPECT_NE(std::string(file.status().message()).find("out.pb"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
