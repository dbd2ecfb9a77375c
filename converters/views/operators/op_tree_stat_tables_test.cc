#include "converters/views/operators/op_tree_stat_tables.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converters/views/common/steps_test_util.h"
#include "converters/views/operators/op_tree.h"
#include "converters/views/operators/op_tree_host_events.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views::op_tree_internal {
namespace {

constexpr int64_t kUs = 1000000;

// The raw readers give what the visitor gives, for every kind and width of
// value, on lines and on event metadata.
TEST(StatTextsTest, RawReadersMatchTheVisitor) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  xplane::XEventBuilder e = b.HostEvent(1, "op", 0, 10 * kUs);
  e.AddString(host->GetOrCreateStatMetadata("s"), "a string");
  e.AddString(host->GetOrCreateStatMetadata("empty"), "");
  e.AddRef(host->GetOrCreateStatMetadata("r"), "a ref");
  e.AddInt64(host->GetOrCreateStatMetadata("i"), -5);
  e.AddInt64(host->GetOrCreateStatMetadata("wide i"), std::numeric_limits<int64_t>::min() + 3);
  e.AddUint64(host->GetOrCreateStatMetadata("u"), 7);
  e.AddUint64(host->GetOrCreateStatMetadata("wide u"), std::numeric_limits<uint64_t>::max() - 1);
  e.AddDouble(host->GetOrCreateStatMetadata("d"), 1.25);
  e.AddBytes(host->GetOrCreateStatMetadata("b"), "bytes");
  const xplane::XSpaceData& space = b.Finish();
  const xplane::Plane& raw = *xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
  const xplane::XPlaneVisitor plane(&space, &raw, 0);
  const StatTexts texts(plane);
  int seen = 0;
  for (const xplane::Line& line : raw.lines) {
    for (const xplane::Stat& stat : line.stats) {
      const xplane::XStatVisitor v(&plane, &stat);
      EXPECT_EQ(texts.Of(stat), v.StrOrRefValue()) << v.name();
      EXPECT_EQ(texts.Of(stat).data(), v.StrOrRefValue().data()) << v.name();
      EXPECT_EQ(texts.IntOrUint(stat), v.IntOrUintValue()) << v.name();
      ++seen;
    }
  }
  EXPECT_EQ(seen, 9);
}

// A stat on an event's metadata counts as the event's own (after them):
// here the metadata marks the ops (tf_op) and carries the input dims.
TEST(ReadHostEventTest, MetadataStatsAreRead) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("t");
  b.HostEvent(1, "aten::mm", 0, 10 * kUs);
  b.HostEvent(1, "aten::mm", 20 * kUs, 10 * kUs)
      .AddRef(host->GetOrCreateStatMetadata(kInputDimsStatName), "[[2,2]]");
  b.HostEvent(1, "other", 40 * kUs, 10 * kUs);
  const uint32_t mm = host->GetOrCreateEventMetadata("aten::mm");
  const uint32_t tf_op = host->GetOrCreateStatMetadata(xplane::StatType::kTfOp);
  const uint32_t dims = host->GetOrCreateStatMetadata(kInputDimsStatName);
  const uint32_t text = host->GetOrCreateStatMetadata("[[1,1]]");
  xplane::Plane& raw = *host->plane();
  for (uint32_t role_stat : {tf_op, dims}) {
    xplane::Stat stat(role_stat, xplane::StatKind::kRef);
    stat.set_uint64_value(static_cast<uint64_t>(raw.stat_metadata[text].id), &raw.wide_values);
    raw.event_metadata[mm].stats.push_back(stat);
  }
  const OpTree tree = BuildOpTree(b.Finish());
  EXPECT_TRUE(tree.ops_from_tf_op);
  ASSERT_EQ(tree.ops.size(), 2u);  // The two aten::mm calls; "other" has no tf_op.
  // The metadata's dims come after the event's own: the last one wins.
  EXPECT_EQ(tree.InputsOf(tree.ops[0]).input_dims, "[[1,1]]");
  EXPECT_EQ(tree.InputsOf(tree.ops[1]).input_dims, "[[1,1]]");
  EXPECT_EQ(tree.ops_with_input_dims, 2);
}

// Many distinct inputs (more than InputsIndex's cache holds), each used
// twice, interleaved: every call gets the entry of its own texts.
TEST(InputsIndexTest, ManyDistinctInputs) {
  testing::StepSpaceBuilder b;
  xplane::XPlaneBuilder* host = b.Host();
  host->GetOrCreateLine(1)->SetName("t");
  const uint32_t dims = host->GetOrCreateStatMetadata(kInputDimsStatName);
  const uint32_t types = host->GetOrCreateStatMetadata(kInputTypesStatName);
  constexpr int kDistinct = 3000;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kDistinct; ++i) {
      const int64_t begin = (pass * kDistinct + i) * 10 * kUs;
      xplane::XEventBuilder e = b.HostEvent(1, "aten::mm", begin, 5 * kUs);
      e.AddRef(dims, absl::StrCat("[[", i % 1000, "]]"));
      e.AddRef(types, absl::StrCat("[\"t", i / 1000, "\"]"));
    }
  }
  const OpTree tree = BuildOpTree(b.Finish());
  ASSERT_EQ(tree.ops.size(), 2u * kDistinct);
  EXPECT_EQ(tree.inputs.size(), 1u + kDistinct);
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kDistinct; ++i) {
      const OpCall& c = tree.ops[pass * kDistinct + i];
      EXPECT_EQ(tree.InputsOf(c).input_dims, absl::StrCat("[[", i % 1000, "]]"));
      EXPECT_EQ(tree.InputsOf(c).input_types, absl::StrCat("[\"t", i / 1000, "\"]"));
      EXPECT_EQ(c.inputs, tree.ops[i].inputs);
    }
  }
}

}  // namespace
}  // namespace tbprof::views::op_tree_internal
