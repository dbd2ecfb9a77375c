#include "converters/views/memory/memory_text_tables.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tbprof::views::memory_profile {
namespace {

TEST(SnapTextTableTest, InternsByPlace) {
  const std::string op = "matmul", region = "output", type = "float", shape = "[2,3]";
  const std::string op_copy = op;
  SnapTextTable table;
  EXPECT_EQ(table.Intern({}), 0u);
  EXPECT_EQ(table[0].tf_op, "");
  const uint32_t a = table.Intern({op, region, type, shape});
  const uint32_t b = table.Intern({op, region, "", shape});
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(table.Intern({op, region, type, shape}), a);  // Same places: same index.
  EXPECT_EQ(table.Intern({op, region, "", shape}), b);
  const uint32_t c = table.Intern({op_copy, region, type, shape});  // Equal text elsewhere.
  EXPECT_EQ(table[c].tf_op, "matmul");
  EXPECT_EQ(table[a].tf_op, "matmul");
  EXPECT_EQ(table[a].region_type, "output");
  EXPECT_EQ(table[a].data_type, "float");
  EXPECT_EQ(table[a].tensor_shape, "[2,3]");
  EXPECT_EQ(table[b].data_type, "");
}

TEST(SnapTextTableTest, ManyKeysSurviveCacheEvictions) {
  std::vector<std::string> ops;
  for (int i = 0; i < 5000; ++i) ops.push_back("op" + std::to_string(i));
  SnapTextTable table;
  std::vector<uint32_t> first;
  for (const std::string& op : ops) first.push_back(table.Intern({op, "", "", ""}));
  for (size_t i = 0; i < ops.size(); ++i) {
    ASSERT_EQ(table.Intern({ops[i], "", "", ""}), first[i]);
    ASSERT_EQ(table[first[i]].tf_op, ops[i]);
  }
}

TEST(DataTypeNamesTest, NamesStayAlive) {
  DataTypeNames names;
  const absl::string_view f = names.Get(1);
  const absl::string_view ref = names.Get(114);
  const absl::string_view unknown = names.Get(1000);
  EXPECT_EQ(f, "float");
  EXPECT_EQ(ref, "bfloat16_ref");
  EXPECT_EQ(unknown, "unknown dtype enum (1000)");
  for (int64_t t = -5; t < 2000; ++t) names.Get(t);
  EXPECT_EQ(names.Get(1).data(), f.data());
  EXPECT_EQ(names.Get(1000).data(), unknown.data());
  EXPECT_EQ(f, "float");
  EXPECT_EQ(unknown, "unknown dtype enum (1000)");
}

}  // namespace
}  // namespace tbprof::views::memory_profile
