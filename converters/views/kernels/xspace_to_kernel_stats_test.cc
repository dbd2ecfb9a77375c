#include "converters/views/kernels/xspace_to_kernel_stats.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "converters/views/common/tensor_core.h"

namespace tbprof::views {
namespace {

using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;
using ::testing::ElementsAre;
using xplane::StatType;

constexpr char kDetails[] = "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1";

// Adds kernels to one stream line of a GPU plane.
class GpuLine {
 public:
  GpuLine(xplane::XSpaceBuilder* builder, int ordinal, int64_t line_id) {
    plane_ = builder->GetOrCreatePlane(xplane::GpuPlaneName(ordinal));
    line_ = plane_->GetOrCreateLine(line_id);
  }

  // Empty `details` / `tf_op` / `equation` are not added as stats.
  xplane::XEventBuilder Add(absl::string_view name, int64_t offset_ps, int64_t duration_ps,
                            absl::string_view details, absl::string_view tf_op = "",
                            absl::string_view equation = "") {
    xplane::XEventBuilder event =
        line_->AddEvent(plane_->GetOrCreateEventMetadata(name), offset_ps, duration_ps);
    if (!details.empty())
      event.AddRef(plane_->GetOrCreateStatMetadata(StatType::kKernelDetails), details);
    if (!tf_op.empty()) event.AddRef(plane_->GetOrCreateStatMetadata(StatType::kTfOp), tf_op);
    if (!equation.empty()) {
      event.AddString(plane_->GetOrCreateStatMetadata(StatType::kEquation), equation);
    }
    return event;
  }

 private:
  xplane::XPlaneBuilder* plane_;
  xplane::XLineBuilder* line_;
};

const KernelReport* FindReport(const KernelStatsDb& db, absl::string_view name,
                               absl::string_view op = "") {
  for (const KernelReport& r : db.reports()) {
    if (r.name() == name && r.op_name() == op) return &r;
  }
  return nullptr;
}

TEST(XSpaceToKernelStatsTest, AggregatesByKeyAndSortsByTotalDuration) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/7);
  stream.Add("kA", /*offset_ps=*/0, /*duration_ps=*/3000, kDetails);
  stream.Add("kA", /*offset_ps=*/10000, /*duration_ps=*/5000, kDetails);
  // Same name, other grid: its own report.
  stream.Add("kA", /*offset_ps=*/20000, /*duration_ps=*/1000,
             "regs:32 static_shared:0 dynamic_shared:0 grid:2,1,1 block:128,1,1");
  // Same kernel on another GPU merges with the first report.
  GpuLine other(&builder, /*ordinal=*/1, /*line_id=*/3);
  other.Add("kA", /*offset_ps=*/0, /*duration_ps=*/4000, kDetails);
  other.Add("kB", /*offset_ps=*/5000, /*duration_ps=*/20000, kDetails);
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 3);
  EXPECT_EQ(db.reports(0).name(), "kB");
  const KernelReport& a = db.reports(1);
  EXPECT_EQ(a.name(), "kA");
  EXPECT_EQ(a.occurrences(), 3u);
  EXPECT_EQ(a.total_duration_ns(), 12u);
  EXPECT_EQ(a.min_duration_ns(), 3u);
  EXPECT_EQ(a.max_duration_ns(), 5u);
  EXPECT_THAT(a.grid_dim(), ElementsAre(1, 1, 1));
  EXPECT_EQ(db.reports(2).occurrences(), 1u);
  EXPECT_THAT(db.reports(2).grid_dim(), ElementsAre(2, 1, 1));
}

TEST(XSpaceToKernelStatsTest, SkipsDerivedLinesShortEventsAndEventsWithoutDetails) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/7);
  stream.Add("kernel", /*offset_ps=*/0, /*duration_ps=*/2000, kDetails);
  stream.Add("memcpy_without_details", /*offset_ps=*/3000, /*duration_ps=*/2000, "");
  stream.Add("under_one_ns", /*offset_ps=*/6000, /*duration_ps=*/999, kDetails);
  GpuLine derived(&builder, /*ordinal=*/0, /*line_id=*/xplane::kThreadIdStepInfo + 3);
  derived.Add("kernel", /*offset_ps=*/0, /*duration_ps=*/2000, kDetails);
  // Host planes are not GPU planes.
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host->GetOrCreateLine(1)
      ->AddEvent(host->GetOrCreateEventMetadata("kernel"), /*offset_ps=*/0, /*duration_ps=*/2000)
      .AddRef(host->GetOrCreateStatMetadata(StatType::kKernelDetails), kDetails);
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 1);
  EXPECT_EQ(db.reports(0).name(), "kernel");
  EXPECT_EQ(db.reports(0).occurrences(), 1u);
}

TEST(XSpaceToKernelStatsTest, KeepsTheLongestKernels) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/1);
  constexpr int kKernels = 1005;
  int64_t offset_ps = 0;
  for (int i = 1; i <= kKernels; ++i) {
    const int64_t duration_ps = i * 1000;
    stream.Add("k" + std::to_string(i), offset_ps, duration_ps, kDetails);
    offset_ps += duration_ps;
  }
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 1000);
  EXPECT_EQ(db.reports(0).name(), "k1005");
  EXPECT_EQ(db.reports(999).name(), "k6");
  for (int i = 1; i < db.reports_size(); ++i) {
    EXPECT_GT(db.reports(i - 1).total_duration_ns(), db.reports(i).total_duration_ns());
  }
  EXPECT_EQ(ConvertXSpaceToKernelStatsDb(space, {.max_kernels = 3}).reports_size(), 3);
}

TEST(XSpaceToKernelStatsTest, TensorCoreEligibilityIsConsistentPerOp) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/1);
  constexpr char kGemm[] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
  // aten::mm: a Tensor Core gemm and a plain kernel; both rows eligible.
  stream.Add("elementwise_kernel", /*offset_ps=*/0, /*duration_ps=*/1000, kDetails, "aten::mm");
  stream.Add(kGemm, /*offset_ps=*/2000, /*duration_ps=*/1000, kDetails, "aten::mm");
  // No Tensor Core kernel and no eligible name.
  stream.Add("elementwise_kernel", /*offset_ps=*/4000, /*duration_ps=*/1000, kDetails, "aten::add");
  // Eligible by name (TF op "name:Type" -> name).
  stream.Add("volta_sgemm", /*offset_ps=*/6000, /*duration_ps=*/1000, kDetails,
             "model/dense/MatMul:MatMul");
  // Eligible by a two-input einsum on one of its events.
  stream.Add("einsum_kernel", /*offset_ps=*/8000, /*duration_ps=*/1000, kDetails,
             "Einsum_80:Einsum");
  stream.Add("einsum_kernel2", /*offset_ps=*/10000, /*duration_ps=*/1000, kDetails,
             "Einsum_80:Einsum", "ab,bc->ac");
  // A Tensor Core kernel without an op is never op-eligible.
  stream.Add(kGemm, /*offset_ps=*/12000, /*duration_ps=*/1000, kDetails);
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 7);
  const KernelReport* mm_plain = FindReport(db, "elementwise_kernel", "aten::mm");
  const KernelReport* mm_gemm = FindReport(db, kGemm, "aten::mm");
  ASSERT_NE(mm_plain, nullptr);
  ASSERT_NE(mm_gemm, nullptr);
  EXPECT_TRUE(mm_gemm->is_kernel_using_tensor_core());
  EXPECT_FALSE(mm_plain->is_kernel_using_tensor_core());
  EXPECT_TRUE(mm_gemm->is_op_tensor_core_eligible());
  EXPECT_TRUE(mm_plain->is_op_tensor_core_eligible());
  EXPECT_FALSE(FindReport(db, "elementwise_kernel", "aten::add")->is_op_tensor_core_eligible());
  EXPECT_TRUE(FindReport(db, "volta_sgemm", "model/dense/MatMul")->is_op_tensor_core_eligible());
  EXPECT_TRUE(FindReport(db, "einsum_kernel", "Einsum_80")->is_op_tensor_core_eligible());
  EXPECT_TRUE(FindReport(db, "einsum_kernel2", "Einsum_80")->is_op_tensor_core_eligible());
  const KernelReport* no_op = FindReport(db, kGemm, "");
  ASSERT_NE(no_op, nullptr);
  EXPECT_TRUE(no_op->is_kernel_using_tensor_core());
  EXPECT_FALSE(no_op->is_op_tensor_core_eligible());

  // The invariant the plugin's overview CHECKs (xprof #1267).
  for (const KernelReport& a : db.reports()) {
    for (const KernelReport& b : db.reports()) {
      if (a.op_name() == b.op_name()) {
        EXPECT_EQ(a.is_op_tensor_core_eligible(), b.is_op_tensor_core_eligible()) << a.op_name();
      }
    }
  }
}

TEST(XSpaceToKernelStatsTest, LaunchParametersAndOccupancyPassThrough) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/1);
  // Newline separators and an unknown key, in another order.
  stream.Add("k", /*offset_ps=*/0, /*duration_ps=*/1000,
             "occ_pct:37.5\nblock:256,2,1\ngrid:8,4,2\nfoo:bar\nregs:64\ndynamic_shared:2048\n"
             "static_shared:1024");
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 1);
  const KernelReport& r = db.reports(0);
  EXPECT_EQ(r.registers_per_thread(), 64u);
  EXPECT_EQ(r.static_shmem_bytes(), 1024u);
  EXPECT_EQ(r.dynamic_shmem_bytes(), 2048u);
  EXPECT_THAT(r.grid_dim(), ElementsAre(8, 4, 2));
  EXPECT_THAT(r.block_dim(), ElementsAre(256, 2, 1));
  EXPECT_FLOAT_EQ(r.occupancy_pct(), 37.5f);
}

TEST(XSpaceToKernelStatsTest, Level0IsNotAnOpName) {
  // TensorFlow 2.3-era device events name their op in "level 0", which the
  // plugin does not read: one row without op name (tf_v100x8_multiworker:
  // 15 rows, not one per op).
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  xplane::XLineBuilder* line = gpu->GetOrCreateLine(1);
  for (int i = 0; i < 3; ++i) {
    xplane::XEventBuilder tf = line->AddEvent(gpu->GetOrCreateEventMetadata("tf_kernel"),
                                              /*offset_ps=*/i * 2000, /*duration_ps=*/1000);
    tf.AddRef(gpu->GetOrCreateStatMetadata(StatType::kKernelDetails),
              "regs:38 shm:0 grid:160,1,1 block:1024,1,1");
    tf.AddRef(gpu->GetOrCreateStatMetadata("level 0"),
              "replica_" + std::to_string(i) + "/conv/Conv2D:Conv2D");
  }
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 1);
  EXPECT_EQ(db.reports(0).op_name(), "");
  EXPECT_EQ(db.reports(0).occurrences(), 3u);
  EXPECT_EQ(db.reports(0).registers_per_thread(), 38u);
  EXPECT_FALSE(db.reports(0).is_op_tensor_core_eligible());
}

// Protobuf wire format, for HLO protos in fixtures.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    out.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
  return out;
}
std::string Bytes(uint32_t field, absl::string_view value) {
  return Varint(field << 3 | 2) + Varint(value.size()) + std::string(value);
}
std::string Int(uint32_t field, uint64_t value) { return Varint(field << 3) + Varint(value); }
// HloInstructionProto{name, opcode, metadata{op_type, op_name}, id}.
std::string Instruction(absl::string_view name, absl::string_view op_type,
                        absl::string_view op_name) {
  return Bytes(1, name) + Bytes(2, "fusion") + Bytes(7, Bytes(1, op_type) + Bytes(2, op_name)) +
         Int(35, 7);
}
// HloProto{hlo_module{name, computations[{name, instructions}]}}.
std::string HloProtoBytes(absl::string_view module, const std::vector<std::string>& instructions) {
  std::string computation = Bytes(1, "main");
  for (const std::string& instruction : instructions) computation += Bytes(2, instruction);
  return Bytes(1, Bytes(1, module) + Bytes(3, Bytes(1, "fused_computation")) +
                      Bytes(3, computation));
}

// Adds a program to the /host:metadata plane as XLA does.
void AddProgram(xplane::XSpaceBuilder* builder, absl::string_view name, int64_t program_id,
                const std::string& hlo_proto) {
  xplane::XPlaneBuilder* metadata = builder->GetOrCreatePlane(xplane::kMetadataPlaneName);
  xplane::EventMetadata& program =
      metadata->event_metadata(metadata->GetOrCreateEventMetadata(name));
  xplane::Stat proto{};
  proto.set_metadata_index(metadata->GetOrCreateStatMetadata("Hlo Proto"));
  proto.set_kind(xplane::StatKind::kBytes);
  proto.set_str_id(builder->space()->strings.Intern(hlo_proto));
  program.stats.push_back(proto);
  xplane::Stat id{};
  id.set_metadata_index(metadata->GetOrCreateStatMetadata(StatType::kProgramId));
  id.set_kind(xplane::StatKind::kInt64);
  id.set_int64_value(program_id, &metadata->plane()->wide_values);
  program.stats.push_back(id);
}

TEST(XSpaceToKernelStatsTest, XlaKernelsTakeTheirOpFromTheHloProto) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  AddProgram(&builder, "jit_f(1)", /*program_id=*/42,
             HloProtoBytes("jit_f", {Instruction("fusion.1", "transpose", "x"),
                                     Instruction("conv.1", "Conv3D", "scope/Conv3D"),
                                     Instruction("args.1", "XLA_Args", ""),
                                     Instruction("copy.1", "", ""),
                                     Instruction("dot.1", "", "jit(f)/dot_general")}));
  // Same program id again: the first module wins.
  AddProgram(&builder, "jit_f(2)", /*program_id=*/42,
             HloProtoBytes("jit_f", {Instruction("fusion.1", "", "other")}));
  // A module whose wire format is broken is not used.
  AddProgram(&builder, "jit_g(3)", /*program_id=*/43, std::string("\x0a\x05" "ab"));

  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  xplane::XLineBuilder* line = gpu->GetOrCreateLine(1);
  int64_t offset_ps = 0;
  auto add = [&](absl::string_view kernel, absl::string_view hlo_op, int64_t program_id) {
    xplane::XEventBuilder event =
        line->AddEvent(gpu->GetOrCreateEventMetadata(kernel), offset_ps, /*duration_ps=*/1000);
    offset_ps += 2000;
    event.AddRef(gpu->GetOrCreateStatMetadata(StatType::kKernelDetails), kDetails);
    event.AddRef(gpu->GetOrCreateStatMetadata(StatType::kTfOp), "XlaModule:");
    event.AddRef(gpu->GetOrCreateStatMetadata(StatType::kHloOp), hlo_op);
    if (program_id >= 0) {
      event.AddInt64(gpu->GetOrCreateStatMetadata(StatType::kProgramId), program_id);
    }
  };
  add("k_transpose", "fusion.1", 42);
  add("k_nested", "while.1::fusion.1", 42);  // The last name is the instruction.
  add("k_conv", "conv.1", 42);
  add("k_args", "args.1", 42);
  add("k_copy", "copy.1", 42);
  add("k_dot", "dot.1", 42);
  add("k_unknown_instruction", "missing.1", 42);
  add("k_unknown_program", "fusion.1", 99);
  add("k_no_program_id", "fusion.1", -1);
  add("k_broken_module", "fusion.1", 43);
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  EXPECT_NE(FindReport(db, "k_transpose", "x"), nullptr);
  EXPECT_NE(FindReport(db, "k_nested", "x"), nullptr);
  ASSERT_NE(FindReport(db, "k_conv", "scope/Conv3D"), nullptr);
  EXPECT_TRUE(FindReport(db, "k_conv", "scope/Conv3D")->is_op_tensor_core_eligible());
  EXPECT_NE(FindReport(db, "k_args", ":XLA_Args"), nullptr);
  EXPECT_NE(FindReport(db, "k_copy", ""), nullptr);
  EXPECT_NE(FindReport(db, "k_dot", "jit(f)/dot_general"), nullptr);
  // Not found: the tf_op's name.
  EXPECT_NE(FindReport(db, "k_unknown_instruction", "XlaModule"), nullptr);
  EXPECT_NE(FindReport(db, "k_unknown_program", "XlaModule"), nullptr);
  EXPECT_NE(FindReport(db, "k_no_program_id", "XlaModule"), nullptr);
  EXPECT_NE(FindReport(db, "k_broken_module", "XlaModule"), nullptr);
  EXPECT_EQ(db.reports_size(), 10);
}

TEST(XSpaceToKernelStatsTest, KeepsTheTop1000AfterGrouping) {
  // 1500 launches of one kernel and 1001 other kernels: the cut applies to
  // the grouped rows, so the frequent kernel keeps all its occurrences.
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  GpuLine stream(&builder, /*ordinal=*/0, /*line_id=*/1);
  int64_t offset_ps = 0;
  for (int i = 0; i < 1500; ++i) {
    stream.Add("frequent", offset_ps, /*duration_ps=*/1000, kDetails);
    offset_ps += 2000;
  }
  for (int i = 1; i <= 1001; ++i) {
    stream.Add("k" + std::to_string(i), offset_ps, /*duration_ps=*/(i + 1) * 1000, kDetails);
    offset_ps += (i + 2) * 1000;
  }
  builder.Finalize({.normalize_timestamps = false});

  KernelStatsDb db = ConvertXSpaceToKernelStatsDb(space);
  ASSERT_EQ(db.reports_size(), 1000);
  EXPECT_EQ(db.reports(0).name(), "frequent");
  EXPECT_EQ(db.reports(0).occurrences(), 1500u);
  EXPECT_EQ(db.reports(0).total_duration_ns(), 1500u);
  EXPECT_EQ(db.reports(1).name(), "k1001");
  EXPECT_EQ(db.reports(999).name(), "k3");  // k1 and k2 are cut.
}

TEST(XSpaceToKernelStatsTest, NoGpuPlanesGivesEmptyDb) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName)->GetOrCreateLine(1);
  builder.Finalize({});
  EXPECT_EQ(ConvertXSpaceToKernelStatsDb(space).reports_size(), 0);
}

TEST(XSpaceToKernelStatsTest, OpNameFromTfOp) {
  EXPECT_EQ(OpNameFromTfOp("model/conv1/Conv2D:Conv2D"), "model/conv1/Conv2D");
  EXPECT_EQ(OpNameFromTfOp("Einsum_80:Einsum"), "Einsum_80");
  EXPECT_EQ(OpNameFromTfOp("jit_f/dot_general:dot_general"), "jit_f/dot_general");
  EXPECT_EQ(OpNameFromTfOp("jit_f/transpose:transpose[permutation=(1, 0)]"), "jit_f/transpose");
  EXPECT_EQ(OpNameFromTfOp("jit_f/dot_general_3:"), "jit_f/dot_general_3");
  EXPECT_EQ(OpNameFromTfOp("aten::mm"), "aten::mm");
  EXPECT_EQ(OpNameFromTfOp("Iterator::Batch::Map"), "Iterator::Batch::Map");
  EXPECT_EQ(OpNameFromTfOp("no_colon"), "no_colon");
  EXPECT_EQ(OpNameFromTfOp(""), "");
}

TEST(XSpaceToKernelStatsTest, TensorCoreRules) {
  EXPECT_TRUE(IsKernelUsingTensorCore("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_TRUE(IsKernelUsingTensorCore("turing_fp16_s1688cudnn_fp16_128x128"));
  EXPECT_TRUE(IsKernelUsingTensorCore("ampere_bf16_s16816gemm_bf16_128x128"));
  EXPECT_FALSE(IsKernelUsingTensorCore("volta_sgemm_128x64_nn"));
  EXPECT_TRUE(IsOpTensorCoreEligible("a/b/Conv2DBackpropInput"));
  EXPECT_TRUE(IsOpTensorCoreEligible("a/BatchMatMulV2"));
  EXPECT_TRUE(IsOpTensorCoreEligible("dense/MatMul"));
  EXPECT_FALSE(IsOpTensorCoreEligible("MatMul"));  // Needs the "/": exact op name match.
  EXPECT_TRUE(IsOpTensorCoreEligible("aten::mm"));  // PyTorch GEMMs count too.
  EXPECT_FALSE(IsOpTensorCoreEligible("aten::add"));
  EXPECT_TRUE(IsEinsumTensorCoreEligible("ab,bc->ac"));
  EXPECT_FALSE(IsEinsumTensorCoreEligible("abc->acb"));
  EXPECT_FALSE(IsEinsumTensorCoreEligible("a,b,c->abc"));
  EXPECT_FALSE(IsEinsumTensorCoreEligible(""));
}

}  // namespace
}  // namespace tbprof::views
