#include "converters/common/gpu_memcpy_kinds.h"

#include "gtest/gtest.h"

namespace tbprof::converters {
namespace {

TEST(GpuMemcpyKindsTest, ParsesKinetoNames) {
  MemcpyNameInfo h2d = ParseMemcpyName("Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(h2d.direction, MemcpyDirection::kHToD);
  EXPECT_EQ(h2d.src_kind, "Pageable");
  EXPECT_EQ(h2d.dst_kind, "Device");
  EXPECT_EQ(ParseMemcpyName("Memcpy DtoH (Device -> Pinned)").direction, MemcpyDirection::kDToH);
  EXPECT_EQ(ParseMemcpyName("Memcpy DtoD (Device -> Device)").direction, MemcpyDirection::kDToD);
  EXPECT_EQ(ParseMemcpyName("Memcpy HtoH (Pinned -> Pinned)").direction, MemcpyDirection::kHToH);
  EXPECT_EQ(ParseMemcpyName("Memcpy PtoP (Device -> Device)").direction, MemcpyDirection::kPToP);
  EXPECT_EQ(ParseMemcpyName("Memcpy Peer").direction, MemcpyDirection::kPToP);
  EXPECT_EQ(ParseMemcpyName("Memcpy HtoA").direction, MemcpyDirection::kHToD);
  EXPECT_EQ(ParseMemcpyName("Memcpy AtoH").direction, MemcpyDirection::kDToH);
  EXPECT_EQ(ParseMemcpyName("CopyHostToDevice").direction, MemcpyDirection::kHToD);
  EXPECT_EQ(ParseMemcpyName("Memcpy ???").direction, MemcpyDirection::kUnknown);
  EXPECT_EQ(ParseMemcpyName("something else").direction, MemcpyDirection::kUnknown);
}

TEST(GpuMemcpyKindsTest, EventNamesMatchPluginPrefixes) {
  EXPECT_EQ(MemcpyEventName(MemcpyDirection::kHToD), "MemcpyHToD");
  EXPECT_EQ(MemcpyEventName(MemcpyDirection::kDToH), "MemcpyDToH");
  EXPECT_EQ(MemcpyEventName(MemcpyDirection::kDToD), "MemcpyDToD");
  EXPECT_EQ(MemcpyEventName(MemcpyDirection::kHToH), "MemcpyHToH");
  EXPECT_EQ(MemcpyEventName(MemcpyDirection::kPToP), "MemcpyPToP");
}

TEST(GpuMemcpyKindsTest, DetailsStartWithNumBytes) {
  std::string details;
  AppendMemcpyDetails(19267584, "Pageable", "Device", &details);
  EXPECT_EQ(details, "num_bytes:19267584 kind_src:pageable kind_dst:device");
  details.clear();
  AppendMemcpyDetails(8, "", "", &details);
  EXPECT_EQ(details, "num_bytes:8");
  details.clear();
  AppendMemsetDetails(4, "Device Static", &details);
  EXPECT_EQ(details, "num_bytes:4 kind:device_static");
}

}  // namespace
}  // namespace tbprof::converters
