#include "converters/views/diagnosis/inspect_diagnosis.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using xplane::StatType;

constexpr char kKernelDetails[] =
    "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50";

// Builds small spaces: one host thread with optional step root and launch,
// one GPU stream with one device event.
struct SpaceSpec {
  bool gpu = true;
  bool step_root = true;
  bool launch_inside_step = true;
  int64_t launch_correlation = 7;
  int64_t device_correlation = 7;
  bool kernel_details = true;
  std::string device_event_name = "volta_sgemm";
  bool memory_events = false;
  bool tf_op = false;
};

void Build(const SpaceSpec& spec, xplane::XSpaceData* space) {
  xplane::XSpaceBuilder builder(space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  xplane::XLineBuilder* thread = host->GetOrCreateLine(/*line_id=*/100);
  thread->SetName("python");
  if (spec.step_root) {
    xplane::XEventBuilder step = thread->AddEvent(host->GetOrCreateEventMetadata("ProfilerStep#1"),
                                                  /*offset_ps=*/0, /*duration_ps=*/10'000'000);
    step.AddInt64(host->GetOrCreateStatMetadata(StatType::kIsRoot), 1);
    step.AddInt64(host->GetOrCreateStatMetadata(StatType::kStepNum), 1);
  }
  int64_t launch_offset_ps = spec.launch_inside_step ? 1'000'000 : 20'000'000;
  xplane::XEventBuilder launch =
      thread->AddEvent(host->GetOrCreateEventMetadata("cudaLaunchKernel"), launch_offset_ps,
                       /*duration_ps=*/500'000);
  launch.AddInt64(host->GetOrCreateStatMetadata(StatType::kCorrelationId),
                  spec.launch_correlation);
  if (spec.memory_events) {
    xplane::XEventBuilder alloc = thread->AddEvent(
        host->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName),
        /*offset_ps=*/2'000'000, /*duration_ps=*/0);
    alloc.AddInt64(host->GetOrCreateStatMetadata(StatType::kBytesAllocated), 1024);
    thread->AddEvent(host->GetOrCreateEventMetadata(xplane::kMemoryDeallocationEventName),
                     /*offset_ps=*/3'000'000, /*duration_ps=*/0);
  }
  if (spec.gpu) {
    xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
    xplane::XLineBuilder* stream = gpu->GetOrCreateLine(/*line_id=*/7);
    xplane::XEventBuilder kernel =
        stream->AddEvent(gpu->GetOrCreateEventMetadata(spec.device_event_name),
                         /*offset_ps=*/2'000'000, /*duration_ps=*/3'000'000);
    kernel.AddInt64(gpu->GetOrCreateStatMetadata(StatType::kCorrelationId),
                    spec.device_correlation);
    if (spec.kernel_details) {
      kernel.AddRef(gpu->GetOrCreateStatMetadata(StatType::kKernelDetails), kKernelDetails);
    }
    if (spec.tf_op) kernel.AddRef(gpu->GetOrCreateStatMetadata(StatType::kTfOp), "mm:aten::mm");
  }
  builder.Finalize({});
}

const ToolDiagnosis& Tool(const XSpaceDiagnosis& d, const std::string& name) {
  for (const ToolDiagnosis& tool : d.tools) {
    if (tool.tool == name) return tool;
  }
  static const ToolDiagnosis kMissing{"<missing>", false, "<missing>"};
  ADD_FAILURE() << "no diagnosis for " << name;
  return kMissing;
}

XSpaceDiagnosis Diagnose(const SpaceSpec& spec) {
  xplane::XSpaceData space;
  Build(spec, &space);
  return DiagnoseXSpace(space);
}

TEST(InspectDiagnosisTest, CompleteGpuProfileHasEveryView) {
  SpaceSpec spec;
  spec.memory_events = true;
  spec.tf_op = true;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.step_roots, 1);
  EXPECT_EQ(d.step_roots_with_launches, 1);
  EXPECT_EQ(d.steps_with_device_work, 1);
  EXPECT_EQ(d.gpu_planes, 1);
  EXPECT_EQ(d.device_events, 1);
  EXPECT_EQ(d.device_events_linked, 1);
  EXPECT_EQ(d.memory_allocations, 1);
  EXPECT_EQ(d.memory_deallocations, 1);
  for (const char* tool : {"trace_viewer", "overview_page", "input_pipeline_analyzer",
                           "kernel_stats", "memory_profile", "framework_op_stats"}) {
    EXPECT_TRUE(Tool(d, tool).has_data) << tool << ": " << Tool(d, tool).detail;
  }
  // A GPU profile with steps and no XLA HLO: why xprof's overview shows "All Others".
  EXPECT_THAT(d.notes, Contains(HasSubstr("\"All Others\"")));
}

TEST(InspectDiagnosisTest, SummarizesPlanesLinesAndStats) {
  XSpaceDiagnosis d = Diagnose(SpaceSpec());
  ASSERT_GE(d.planes.size(), 2u);
  const PlaneSummary& host = d.planes[0];
  EXPECT_EQ(host.name, xplane::kHostThreadsPlaneName);
  EXPECT_EQ(host.num_lines, 1);
  EXPECT_EQ(host.num_events, 2);
  EXPECT_EQ(host.num_event_stats, 3);
  ASSERT_EQ(host.lines.size(), 1u);
  EXPECT_EQ(host.lines[0].id, 100);
  EXPECT_EQ(host.lines[0].name, "python");
  EXPECT_THAT(host.stat_counts, Contains(Pair("correlation_id", 1)));
  EXPECT_THAT(host.stat_counts, Contains(Pair("_r", 1)));
  EXPECT_EQ(d.planes[1].name, "/device:GPU:0");
  EXPECT_THAT(d.planes[1].stat_counts, Contains(Pair("kernel_details", 1)));
}

TEST(InspectDiagnosisTest, NoStepRootExplainsNoStepMarker) {
  SpaceSpec spec;
  spec.step_root = false;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.step_roots, 0);
  EXPECT_FALSE(Tool(d, "overview_page").has_data);
  EXPECT_THAT(Tool(d, "overview_page").detail, HasSubstr("No step marker observed"));
  EXPECT_FALSE(Tool(d, "input_pipeline_analyzer").has_data);
  EXPECT_TRUE(Tool(d, "kernel_stats").has_data);
}

TEST(InspectDiagnosisTest, CpuOnlyProfileHasNoKernelStats) {
  SpaceSpec spec;
  spec.gpu = false;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.gpu_planes, 0);
  EXPECT_FALSE(Tool(d, "kernel_stats").has_data);
  EXPECT_THAT(Tool(d, "kernel_stats").detail, HasSubstr("no /device:GPU:* plane"));
  // CPU-only steps come from host roots alone.
  EXPECT_TRUE(Tool(d, "overview_page").has_data);
  EXPECT_THAT(d.notes, Not(Contains(HasSubstr("\"All Others\""))));
}

TEST(InspectDiagnosisTest, DeviceEventsWithoutKernelDetails) {
  SpaceSpec spec;
  spec.kernel_details = false;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_FALSE(Tool(d, "kernel_stats").has_data);
  EXPECT_THAT(Tool(d, "kernel_stats").detail, HasSubstr("kernel_details"));
  EXPECT_TRUE(Tool(d, "overview_page").has_data);
}

TEST(InspectDiagnosisTest, LaunchOutsideStep) {
  SpaceSpec spec;
  spec.launch_inside_step = false;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.step_roots, 1);
  EXPECT_EQ(d.step_roots_with_launches, 0);
  EXPECT_FALSE(Tool(d, "overview_page").has_data);
  EXPECT_THAT(Tool(d, "overview_page").detail, HasSubstr("no kernel launch"));
}

TEST(InspectDiagnosisTest, LaunchesAndKernelsNotLinked) {
  SpaceSpec spec;
  spec.device_correlation = 8;  // Launch says 7.
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.device_events_linked, 0);
  EXPECT_EQ(d.step_roots_with_launches, 1);
  EXPECT_FALSE(Tool(d, "overview_page").has_data);
  EXPECT_THAT(Tool(d, "overview_page").detail, HasSubstr("not linked by correlation_id"));
  EXPECT_THAT(d.notes, Contains(HasSubstr("matches no host launch")));
}

// A correlation launched more than once (on several lines) belongs to the
// step root of its first launch that has one: the later launches' roots get
// neither the launch nor the kernel.
TEST(InspectDiagnosisTest, RepeatedCorrelationKeepsTheFirstLaunchWithARoot) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  const uint32_t corr = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
  const uint32_t is_root = host->GetOrCreateStatMetadata(StatType::kIsRoot);
  const uint32_t launch_md = host->GetOrCreateEventMetadata("cudaLaunchKernel");
  // Line 1: correlation 5 launched outside any root; line 2: inside root A;
  // line 3: inside root B.
  host->GetOrCreateLine(1)->AddEvent(launch_md, 50'000'000, 1'000).AddInt64(corr, 5);
  for (int64_t line_id : {2, 3}) {
    xplane::XLineBuilder* line = host->GetOrCreateLine(line_id);
    line->AddEvent(host->GetOrCreateEventMetadata("ProfilerStep#1"), 0, 10'000'000)
        .AddInt64(is_root, 1);
    line->AddEvent(launch_md, 1'000'000, 1'000).AddInt64(corr, 5);
    line->AddEvent(launch_md, 2'000'000, 1'000).AddInt64(corr, 100 + line_id);
  }
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  xplane::XLineBuilder* stream = gpu->GetOrCreateLine(7);
  stream->AddEvent(gpu->GetOrCreateEventMetadata("volta_sgemm"), 3'000'000, 1'000)
      .AddInt64(gpu->GetOrCreateStatMetadata(StatType::kCorrelationId), 5);
  stream->AddEvent(gpu->GetOrCreateEventMetadata("volta_sgemm"), 4'000'000, 1'000)
      .AddInt64(gpu->GetOrCreateStatMetadata(StatType::kCorrelationId), 9);  // No launch.
  builder.Finalize({});

  XSpaceDiagnosis d = DiagnoseXSpace(space);
  EXPECT_EQ(d.host_events_with_correlation, 5);
  EXPECT_EQ(d.step_roots, 2);
  EXPECT_EQ(d.step_roots_with_launches, 2);  // Root A by 5, root B by 103 only.
  EXPECT_EQ(d.device_events_with_correlation, 2);
  EXPECT_EQ(d.device_events_linked, 1);
  EXPECT_EQ(d.steps_with_device_work, 1);  // Root A: the first launch of 5 with a root.
}

TEST(InspectDiagnosisTest, MemcpyAloneIsNoComputeWork) {
  SpaceSpec spec;
  spec.device_event_name = "MemcpyHToD";
  spec.kernel_details = false;
  XSpaceDiagnosis d = Diagnose(spec);
  EXPECT_EQ(d.device_events_linked, 1);
  EXPECT_EQ(d.steps_with_device_work, 0);
  EXPECT_THAT(Tool(d, "overview_page").detail, HasSubstr("no GPU compute event"));
}

TEST(InspectDiagnosisTest, MissingMemoryEventsAndOps) {
  XSpaceDiagnosis d = Diagnose(SpaceSpec());
  EXPECT_FALSE(Tool(d, "memory_profile").has_data);
  EXPECT_THAT(Tool(d, "memory_profile").detail, HasSubstr("MemoryAllocation"));
  EXPECT_FALSE(Tool(d, "framework_op_stats").has_data);
  EXPECT_THAT(Tool(d, "framework_op_stats").detail, HasSubstr("tf_op"));
}

TEST(InspectDiagnosisTest, AlreadyGroupedFileUsesStepsLines) {
  xplane::XSpaceData space;
  xplane::XSpaceBuilder builder(&space);
  xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  host->GetOrCreateLine(/*line_id=*/1)->AddEvent(host->GetOrCreateEventMetadata("op"),
                                                 /*offset_ps=*/0, /*duration_ps=*/10);
  host->GetOrCreateStatMetadata(StatType::kGroupId);
  xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
  xplane::XLineBuilder* steps = gpu->GetOrCreateLine(/*line_id=*/xplane::kThreadIdStepInfo);
  steps->SetName(xplane::kStepLineName);
  steps->AddEvent(gpu->GetOrCreateEventMetadata("1"), /*offset_ps=*/0, /*duration_ps=*/100);
  steps->AddEvent(gpu->GetOrCreateEventMetadata("2"), /*offset_ps=*/100, /*duration_ps=*/100);
  builder.Finalize({});
  XSpaceDiagnosis d = DiagnoseXSpace(space);
  EXPECT_TRUE(d.has_group_id);
  EXPECT_EQ(d.device_step_line_events, 2);
  EXPECT_EQ(d.device_events, 0);  // Steps is a derived line.
  EXPECT_TRUE(Tool(d, "overview_page").has_data);
  EXPECT_THAT(d.notes, Contains(HasSubstr("group_id")));
}

TEST(InspectDiagnosisTest, EmptySpaceHasNothing) {
  xplane::XSpaceData space;
  XSpaceDiagnosis d = DiagnoseXSpace(space);
  EXPECT_TRUE(d.planes.empty());
  EXPECT_FALSE(Tool(d, "trace_viewer").has_data);
  EXPECT_THAT(d.notes, Contains(HasSubstr("no /host:CPU plane")));
}

TEST(InspectDiagnosisTest, TextAndJsonMentionEveryTool) {
  XSpaceDiagnosis d = Diagnose(SpaceSpec());
  std::string text = FormatDiagnosisText(d, "trace.json");
  std::string json = FormatDiagnosisJson(d, "trace.json");
  for (const ToolDiagnosis& tool : d.tools) {
    EXPECT_THAT(text, HasSubstr(tool.tool));
    EXPECT_THAT(json, HasSubstr("\"tool\":\"" + tool.tool + "\""));
  }
  EXPECT_THAT(text, HasSubstr("/device:GPU:0"));
  EXPECT_THAT(json, HasSubstr("\"source\":\"trace.json\""));
  EXPECT_EQ(json.front(), '{');
}

// Hands `space`'s lines to `diagnoser` in pieces of `piece` events, as the
// streaming wire reader does.
XSpaceDiagnosis DiagnoseInPieces(const xplane::XSpaceData& space, size_t piece) {
  XSpaceDiagnoser diagnoser;
  for (const xplane::Plane& plane : space.planes) {
    for (const xplane::Line& line : plane.lines) {
      size_t begin = 0;
      do {
        const size_t end = std::min(begin + piece, line.events.size());
        xplane::Line part;
        part.id = line.id;
        part.name = line.name;
        part.display_name = line.display_name;
        part.timestamp_ns = line.timestamp_ns;
        const uint32_t first = begin < end ? line.events[begin].stats_begin : 0;
        for (size_t i = begin; i < end; ++i) {
          part.events.push_back(line.events[i]);
          part.events.back().stats_begin -= first;
        }
        if (begin < end) {
          part.stats.assign(line.stats.begin() + first, line.stats.begin() + line.stats_end(end - 1));
        }
        diagnoser.AddLineEvents(space, plane, part, end == line.events.size());
        begin = end;
      } while (begin < line.events.size());
    }
  }
  return diagnoser.Finish(space);
}

TEST(InspectDiagnosisTest, StreamedInPiecesLikeWhole) {
  for (bool gpu_first : {false, true}) {
    xplane::XSpaceData space;
    xplane::XSpaceBuilder builder(&space);
    // With gpu_first, device events come before the launches they match.
    xplane::XPlaneBuilder* gpu =
        gpu_first ? builder.GetOrCreatePlane(xplane::GpuPlaneName(0)) : nullptr;
    builder.GetOrCreatePlane("/host:other");
    xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    if (!gpu_first) gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
    const uint32_t corr = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
    const uint32_t is_root = host->GetOrCreateStatMetadata(StatType::kIsRoot);
    const uint32_t launch_md = host->GetOrCreateEventMetadata("cudaLaunchKernel");
    const uint32_t alloc_md = host->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName);
    const uint32_t gpu_corr = gpu->GetOrCreateStatMetadata(StatType::kCorrelationId);
    const uint32_t details = gpu->GetOrCreateStatMetadata(StatType::kKernelDetails);
    xplane::XLineBuilder* stream = gpu->GetOrCreateLine(7);
    gpu->GetOrCreateLine(8)->SetName("Stream #8 (overlapping)");
    for (int64_t line_id : {1, 2, 3}) {
      xplane::XLineBuilder* line = host->GetOrCreateLine(line_id);
      for (int64_t step = 0; step < 4; ++step) {
        const int64_t at = step * 100'000'000;
        if (line_id != 3) {
          line->AddEvent(host->GetOrCreateEventMetadata(absl::StrCat("ProfilerStep#", step)), at,
                         90'000'000)
              .AddInt64(is_root, 1);
        }
        for (int64_t k = 0; k < 5; ++k) {
          const int64_t c = line_id * 1000 + step * 10 + k;
          line->AddEvent(launch_md, at + k * 1'000'000, 1'000).AddInt64(corr, c);
          if (k == 2) line->AddEvent(alloc_md, at + k * 1'000'000 + 10, 0);
          xplane::XEventBuilder kernel = stream->AddEvent(
              gpu->GetOrCreateEventMetadata(k == 4 ? "MemcpyHToD" : "volta_sgemm"), at + k, 1);
          kernel.AddInt64(gpu_corr, k == 3 ? c + 500 : c);
          if (k < 4) kernel.AddRef(details, kKernelDetails);
        }
      }
    }
    builder.Finalize({});
    const XSpaceDiagnosis whole = DiagnoseXSpace(space);
    EXPECT_EQ(whole.step_roots, 8);
    EXPECT_EQ(whole.device_events_linked, 48);
    EXPECT_EQ(whole.overlap_lines, 1);
    for (size_t piece : {1, 2, 7, 1000}) {
      SCOPED_TRACE(absl::StrCat("gpu_first ", gpu_first, ", pieces of ", piece));
      const XSpaceDiagnosis streamed = DiagnoseInPieces(space, piece);
      EXPECT_EQ(FormatDiagnosisJson(streamed, "x"), FormatDiagnosisJson(whole, "x"));
      EXPECT_EQ(FormatDiagnosisText(streamed, "x"), FormatDiagnosisText(whole, "x"));
    }
  }
}

// Launches of the same correlations in two steps, in orders that make few
// runs (merged) and many (sorted): each correlation belongs to the first
// step that launched it, so only that step has GPU work.
TEST(InspectDiagnosisTest, FirstLaunchWinsWhateverTheOrderOfCorrelations) {
  for (int runs : {1, 4, 10, 500}) {  // Each divides kLaunches.
    xplane::XSpaceData space;
    xplane::XSpaceBuilder builder(&space);
    xplane::XPlaneBuilder* host = builder.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    const uint32_t corr = host->GetOrCreateStatMetadata(StatType::kCorrelationId);
    const uint32_t is_root = host->GetOrCreateStatMetadata(StatType::kIsRoot);
    const uint32_t launch_md = host->GetOrCreateEventMetadata("cudaLaunchKernel");
    xplane::XLineBuilder* line = host->GetOrCreateLine(1);
    xplane::XPlaneBuilder* gpu = builder.GetOrCreatePlane(xplane::GpuPlaneName(0));
    const uint32_t gpu_corr = gpu->GetOrCreateStatMetadata(StatType::kCorrelationId);
    xplane::XLineBuilder* stream = gpu->GetOrCreateLine(7);
    constexpr int kLaunches = 500;
    for (int step = 0; step < 2; ++step) {
      const int64_t at = step * 1'000'000'000;
      line->AddEvent(host->GetOrCreateEventMetadata(absl::StrCat("ProfilerStep#", step)), at,
                     900'000'000)
          .AddInt64(is_root, 1);
      for (int k = 0; k < kLaunches; ++k) {
        // `runs` rising runs, in a different order in each step.
        const int per_run = kLaunches / runs;
        const int run = step == 0 ? k / per_run : runs - 1 - k / per_run;
        const int64_t c = 1000 + run * per_run + k % per_run;
        line->AddEvent(launch_md, at + 1000 + k * 1000, 10).AddInt64(corr, c);
        if (step == 0) {
          stream->AddEvent(gpu->GetOrCreateEventMetadata("volta_sgemm"), k * 10, 5)
              .AddInt64(gpu_corr, c);
        }
      }
    }
    builder.Finalize({});
    SCOPED_TRACE(absl::StrCat(runs, " runs"));
    const XSpaceDiagnosis d = DiagnoseXSpace(space);
    EXPECT_EQ(d.host_events_with_correlation, 2 * kLaunches);
    EXPECT_EQ(d.device_events_linked, kLaunches);
    EXPECT_EQ(d.step_roots, 2);
    EXPECT_EQ(d.step_roots_with_launches, 1);
    EXPECT_EQ(d.steps_with_device_work, 1);
  }
}

TEST(FormatCountTest, ThousandsSeparators) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(-1234), "-1,234");
}

}  // namespace
}  // namespace tbprof::views
