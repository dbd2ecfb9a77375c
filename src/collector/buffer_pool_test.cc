#include "src/collector/buffer_pool.h"

#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::collector {
namespace {

TEST(BufferPoolTest, PopsEveryBufferOnceThenRunsDry) {
  auto pool = BufferPool::Create(/*buffer_size=*/5000, /*count=*/4);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->buffer_size(), 8192u);  // rounded to pages
  std::set<uint8_t*> seen;
  for (int i = 0; i < 4; ++i) {
    uint8_t* b = pool->Pop();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(pool->Owns(b));
    EXPECT_EQ(b[0], 0);  // fresh buffers are zeroed
    seen.insert(b);
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(pool->Pop(), nullptr);
  EXPECT_EQ(pool->free_count(), 0u);
  pool->Push(*seen.begin());
  EXPECT_EQ(pool->Pop(), *seen.begin());
}

TEST(BufferPoolTest, OwnsOnlyBufferStarts) {
  auto pool = BufferPool::Create(4096, 2);
  uint8_t* b = pool->Pop();
  EXPECT_FALSE(pool->Owns(b + 1));
  uint8_t other[16];
  EXPECT_FALSE(pool->Owns(other));
}

TEST(BufferPoolTest, ConcurrentPopPushKeepsEveryBuffer) {
  auto pool = BufferPool::Create(4096, 8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        uint8_t* b = pool->Pop();
        if (b != nullptr) {
          b[0] = 1;
          b[0] = 0;
          pool->Push(b);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<uint8_t*> all;
  while (uint8_t* b = pool->Pop()) all.insert(b);
  EXPECT_EQ(all.size(), 8u);
}

}  // namespace
}  // namespace tbprof::collector
