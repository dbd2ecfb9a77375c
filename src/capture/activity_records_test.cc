#include "src/capture/activity_records.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace tbprof::capture {
namespace {

template <typename T>
void Append(std::string* buf, const T& rec) {
  buf->append(reinterpret_cast<const char*>(&rec), sizeof(rec));
}

KindSizeTable Table() {
  KindSizeTable t;
  t.Apply({{layout::kKindConcurrentKernel, sizeof(layout::KernelRecord)},
           {layout::kKindMemcpy, sizeof(layout::MemcpyRecord)},
           {layout::kKindRuntime, sizeof(layout::ApiRecord)}});
  return t;
}

TEST(ActivityRecordsTest, WalksBackToBackRecords) {
  std::string buf;
  layout::KernelRecord k{};
  k.kind = layout::kKindConcurrentKernel;
  k.grid_x = 7;
  k.name = 3;
  layout::MemcpyRecord m{};
  m.kind = layout::kKindMemcpy;
  m.bytes = 4096;
  layout::ApiRecord a{};
  a.kind = layout::kKindRuntime;
  a.correlation_id = 9;
  Append(&buf, k);
  Append(&buf, m);
  Append(&buf, a);
  KindSizeTable t = Table();
  ActivityRecordIterator it(buf, t);
  ActivityRecord r;
  ASSERT_TRUE(it.Next(&r));
  EXPECT_EQ(r.kind, layout::kKindConcurrentKernel);
  EXPECT_EQ(reinterpret_cast<const layout::KernelRecord*>(r.data)->grid_x, 7);
  ASSERT_TRUE(it.Next(&r));
  EXPECT_EQ(r.offset, sizeof(k));
  EXPECT_EQ(reinterpret_cast<const layout::MemcpyRecord*>(r.data)->bytes, 4096u);
  ASSERT_TRUE(it.Next(&r));
  EXPECT_EQ(reinterpret_cast<const layout::ApiRecord*>(r.data)->correlation_id, 9u);
  EXPECT_FALSE(it.Next(&r));
  EXPECT_TRUE(it.ok());
  EXPECT_EQ(it.unread_bytes(), 0u);
}

TEST(ActivityRecordsTest, StopsAtUnknownKind) {
  std::string buf;
  layout::ApiRecord a{};
  a.kind = layout::kKindRuntime;
  Append(&buf, a);
  a.kind = 77;
  Append(&buf, a);
  KindSizeTable t = Table();
  ActivityRecordIterator it(buf, t);
  ActivityRecord r;
  EXPECT_TRUE(it.Next(&r));
  EXPECT_FALSE(it.Next(&r));
  EXPECT_FALSE(it.ok());
  EXPECT_EQ(it.error(), "unknown activity kind 77 at buffer offset 40");
  EXPECT_EQ(it.unread_bytes(), sizeof(a));
}

TEST(ActivityRecordsTest, StopsAtRecordCutShort) {
  std::string buf;
  layout::MemcpyRecord m{};
  m.kind = layout::kKindMemcpy;
  Append(&buf, m);
  buf.resize(buf.size() - 8);
  KindSizeTable t = Table();
  ActivityRecordIterator it(buf, t);
  ActivityRecord r;
  EXPECT_FALSE(it.Next(&r));
  EXPECT_FALSE(it.ok());
  EXPECT_EQ(it.unread_bytes(), buf.size());
}

TEST(ActivityRecordsTest, CopyRecordZeroFillsShorterRecords) {
  layout::MemcpyRecord m;
  std::memset(&m, 0xff, sizeof(m));
  m.kind = layout::kKindMemcpy;
  layout::MemcpyRecord out;
  ASSERT_TRUE(layout::CopyRecord(&m, offsetof(layout::MemcpyRecord, copy_count), &out));
  EXPECT_EQ(out.copy_count, 0u);
  EXPECT_EQ(out.bytes, ~uint64_t{0});
  EXPECT_FALSE(layout::CopyRecord(&m, 2, &out));
}

TEST(ActivityRecordsTest, SplitsPayloadPrefix) {
  std::string payload(8, '\0');
  payload[0] = 5;
  payload += "abc";
  uint32_t stream = 0;
  std::string_view records;
  ASSERT_TRUE(SplitActivityBufferPayload(payload, &stream, &records));
  EXPECT_EQ(stream, 5u);
  EXPECT_EQ(records, "abc");
  EXPECT_FALSE(SplitActivityBufferPayload("short", &stream, &records));
}

}  // namespace
}  // namespace tbprof::capture
