#include "tools/convert/convert_malloc.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tbprof::cli {
namespace {

#if defined(__GLIBC__)
// Number of arenas in glibc's malloc_info() report; -1 if it has none (e.g.
// under a sanitizer's allocator).
int CountArenas() {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return -1;
  malloc_info(0, out);
  std::fclose(out);
  std::string report(text, size);
  std::free(text);
  int arenas = 0;
  for (size_t at = report.find("<heap nr="); at != std::string::npos;
       at = report.find("<heap nr=", at + 1)) {
    ++arenas;
  }
  return arenas == 0 ? -1 : arenas;
}
#endif

// Threads started afterwards allocate from the one main arena.
TEST(UseOneMallocArenaTest, ThreadsShareTheMainArena) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "glibc only";
#else
  if (std::getenv("GLIBC_TUNABLES") != nullptr) GTEST_SKIP() << "GLIBC_TUNABLES set";
  if (CountArenas() != 1) GTEST_SKIP() << "not glibc's allocator, or threads ran before";
  UseOneMallocArena();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      std::vector<void*> blocks;
      for (int i = 0; i < 1000; ++i) blocks.push_back(std::malloc(2000));
      for (void* block : blocks) std::free(block);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(CountArenas(), 1);
#endif
}

}  // namespace
}  // namespace tbprof::cli
