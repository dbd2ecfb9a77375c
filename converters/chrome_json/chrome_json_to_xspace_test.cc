#include "converters/chrome_json/chrome_json_to_xspace.h"

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::converters {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using xplane::StatKind;

std::string DataPath(absl::string_view name) {
  return absl::StrCat(TBPROF_SOURCE_DIR, "/testdata/chrome_json/", name);
}

// One converted event, flattened for assertions. Stats are rendered
// "<kind>:<value>" with kind i (int64), u (uint64), d (double), s (str), r (ref).
struct Ev {
  std::string line;
  std::string name;
  std::string display_name;
  int64_t begin_ps = 0;
  int64_t duration_ps = 0;
  std::map<std::string, std::string> stats;
};

std::string RenderStat(const xplane::XStatVisitor& s) {
  switch (s.kind()) {
    case StatKind::kInt64:
      return absl::StrCat("i:", s.IntValue());
    case StatKind::kUint64:
      return absl::StrCat("u:", s.UintValue());
    case StatKind::kDouble:
      return absl::StrCat("d:", s.DoubleValue());
    case StatKind::kStr:
      return absl::StrCat("s:", s.StrOrRefValue());
    case StatKind::kRef:
      return absl::StrCat("r:", s.StrOrRefValue());
    default:
      return "?";
  }
}

struct Converted {
  xplane::XSpaceData space;
  ChromeJsonSummary summary;

  const xplane::Plane* Plane(absl::string_view name) const {
    return xplane::FindPlaneWithName(space, name);
  }
  std::vector<Ev> Events(absl::string_view plane_name) const {
    std::vector<Ev> out;
    const xplane::Plane* plane = Plane(plane_name);
    if (plane == nullptr) return out;
    xplane::XPlaneVisitor pv(&space, plane, xplane::SpaceBaseNs(space));
    pv.ForEachLine([&](const xplane::XLineVisitor& line) {
      line.ForEachEvent([&](const xplane::XEventVisitor& e) {
        Ev ev;
        ev.line = std::string(line.name());
        ev.name = std::string(e.name());
        ev.display_name = std::string(e.display_name());
        ev.begin_ps = e.begin_ps();
        ev.duration_ps = e.duration_ps();
        e.ForEachStat([&](const xplane::XStatVisitor& s) {
          ev.stats[std::string(s.name())] = RenderStat(s);
        });
        out.push_back(ev);
      });
    });
    return out;
  }
  std::optional<Ev> Find(absl::string_view plane, absl::string_view name) const {
    for (Ev& e : Events(plane)) {
      if (e.name == name) return e;
    }
    return std::nullopt;
  }
  std::vector<std::string> LineNames(absl::string_view plane_name) const {
    std::vector<std::string> names;
    const xplane::Plane* plane = Plane(plane_name);
    if (plane == nullptr) return names;
    for (const xplane::Line& l : plane->lines)
      names.push_back(std::string(space.strings.Get(l.name)));
    return names;
  }
  std::map<std::string, std::string> PlaneStats(absl::string_view plane_name) const {
    std::map<std::string, std::string> stats;
    const xplane::Plane* plane = Plane(plane_name);
    if (plane == nullptr) return stats;
    xplane::XPlaneVisitor pv(&space, plane, 0);
    pv.ForEachStat(
        [&](const xplane::XStatVisitor& s) { stats[std::string(s.name())] = RenderStat(s); });
    return stats;
  }
};

std::unique_ptr<Converted> Convert(absl::string_view name) {
  auto c = std::make_unique<Converted>();
  auto summary = ConvertChromeJsonToXSpace(DataPath(name), ChromeJsonOptions(), &c->space);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (summary.ok()) c->summary = *summary;
  return c;
}

constexpr int64_t kUsPs = 1000000;

// Python tracer frames straddle ProfilerStep#N's start and end (as in the
// H100 BERT/Qwen traces); they must not cut the step root short.
TEST(ChromeJsonToXSpaceTest, PythonFramesDoNotTruncateStepRoots) {
  auto c = Convert("python_frame_straddles_step.json");
  auto step = c->Find(xplane::kHostThreadsPlaneName, "ProfilerStep#3");
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->line, "thread 7");
  EXPECT_EQ(step->duration_ps, 1000 * kUsPs);
  auto launch = c->Find(xplane::kHostThreadsPlaneName, "cudaLaunchKernel");
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->line, "thread 7");
  auto frame = c->Find(xplane::kHostThreadsPlaneName, "torch/profiler/profiler.py(821): step");
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->line, "thread 7 python stack");
  EXPECT_EQ(frame->duration_ps, 150 * kUsPs);
  for (const std::string& w : c->space.warnings) EXPECT_THAT(w, Not(HasSubstr("overlapped")));
}

TEST(ChromeJsonToXSpaceTest, KinetoHostEventsAndSteps) {
  auto c = Convert("kineto_small.json");
  EXPECT_EQ(c->summary.step_roots, 1);
  EXPECT_EQ(c->summary.rank, 3);
  EXPECT_EQ(c->summary.hostname_hint, "node-a");
  EXPECT_THAT(c->space.hostnames, ElementsAre("node-a"));
  EXPECT_EQ(c->summary.events_ignored, 3);  // Two flow events, one counter.
  EXPECT_EQ(c->summary.metadata_events, 3);
  EXPECT_EQ(c->summary.events_malformed, 0);
  EXPECT_EQ(c->summary.events_read, 24);

  // Python tracer frames get a line of their own next to their thread's.
  EXPECT_THAT(c->LineNames(xplane::kHostThreadsPlaneName),
              ElementsAre("thread 100 (python)", "thread 101 (pt_autograd_0)",
                          "thread 101 (pt_autograd_0) python stack"));
  auto step = c->Find(xplane::kHostThreadsPlaneName, "ProfilerStep#5");
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->stats.at("_r"), "i:1");
  EXPECT_EQ(step->stats.at("step_num"), "i:5");
  EXPECT_EQ(step->begin_ps, 0);  // The earliest event.
  EXPECT_EQ(step->duration_ps, 500500000);
  auto launch = c->Find(xplane::kHostThreadsPlaneName, "cudaLaunchKernel");
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->stats.at("correlation_id"), "i:1001");
  EXPECT_EQ(launch->begin_ps, 20 * kUsPs);
  // Quoted ts/dur and a string tid that names the same thread as 101.
  auto py = c->Find(xplane::kHostThreadsPlaneName, "train.py(10): step");
  ASSERT_TRUE(py.has_value());
  EXPECT_EQ(py->line, "thread 101 (pt_autograd_0) python stack");
  EXPECT_EQ(py->begin_ps, 50500000);
  EXPECT_EQ(py->duration_ps, 20 * kUsPs);
  // Unknown categories are kept for the trace viewer; instants have no length.
  ASSERT_TRUE(c->Find(xplane::kHostThreadsPlaneName, "custom span").has_value());
  auto marker = c->Find(xplane::kHostThreadsPlaneName, "marker");
  ASSERT_TRUE(marker.has_value());
  EXPECT_EQ(marker->duration_ps, 0);
  // Work on another thread during the step is tied to the step root.
  EXPECT_EQ(step->stats.at("_pt"), "i:0");
  EXPECT_EQ(step->stats.at("_p"), "i:1");
  for (const Ev& e : c->Events(xplane::kHostThreadsPlaneName)) {
    if (e.line != "thread 101 (pt_autograd_0)") {
      EXPECT_EQ(e.stats.count("_c"), 0u) << e.name;
      continue;
    }
    EXPECT_EQ(e.stats.at("_ct"), "i:0") << e.name;
    EXPECT_EQ(e.stats.at("_c"), "i:1") << e.name;
  }
  // No stat named group_id anywhere.
  for (const xplane::Plane& p : c->space.planes) {
    for (const xplane::StatMetadata& m : p.stat_metadata) {
      EXPECT_NE(c->space.strings.Get(m.name), "group_id");
    }
  }
}

TEST(ChromeJsonToXSpaceTest, KinetoDeviceEvents) {
  auto c = Convert("kineto_small.json");
  const std::string gpu = xplane::GpuPlaneName(0);
  EXPECT_THAT(c->LineNames(gpu), ElementsAre("Stream #7"));
  // Annotation copies and sync waits are not device activity: a plane of
  // their own, which the plugin shows in the trace viewer only.
  const std::string side = xplane::GpuAnnotationPlaneName(0);
  EXPECT_EQ(side, "/device:CUSTOM:GPU 0 annotations");
  EXPECT_THAT(c->LineNames(side),
              ElementsAre("GPU annotations (stream 7)", "CUDA sync (stream 7)"));
  EXPECT_EQ(c->summary.kernels, 1);
  EXPECT_EQ(c->summary.memcpys, 1);
  EXPECT_EQ(c->summary.memsets, 1);

  auto kernel = c->Find(gpu, "volta_sgemm_64x64_nn");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_EQ(kernel->line, "Stream #7");
  EXPECT_EQ(kernel->begin_ps, 30 * kUsPs);
  EXPECT_EQ(kernel->duration_ps, 50125000);
  EXPECT_EQ(kernel->stats.at("correlation_id"), "i:1001");
  // deviceProperties come after traceEvents in this file and still apply.
  EXPECT_EQ(kernel->stats.at("kernel_details"),
            "r:regs:64 static_shared:0 dynamic_shared:0 grid:66,1,1 block:256,1,1 occ_pct:50");
  EXPECT_EQ(kernel->stats.at("theoretical_occupancy_pct"), "d:50");
  EXPECT_EQ(kernel->stats.at("est_achieved_occupancy_pct"), "d:6");
  EXPECT_EQ(kernel->stats.at("tf_op"), "r:aten::mm");

  auto memcpy = c->Find(gpu, "MemcpyHToD");
  ASSERT_TRUE(memcpy.has_value());
  EXPECT_EQ(memcpy->display_name, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(memcpy->stats.at("memcpy_details"),
            "s:num_bytes:4096 kind_src:pageable kind_dst:device");
  EXPECT_EQ(memcpy->stats.at("tf_op"), "r:aten::copy_");
  auto memset = c->Find(gpu, "Memset");
  ASSERT_TRUE(memset.has_value());
  EXPECT_EQ(memset->display_name, "Memset (Device)");
  EXPECT_EQ(memset->stats.at("Memset_details"), "s:num_bytes:128 kind:device");
  EXPECT_EQ(memset->stats.at("tf_op"), "r:aten::zero_");

  auto annotation = c->Find(side, "ProfilerStep#5");
  ASSERT_TRUE(annotation.has_value());
  EXPECT_EQ(annotation->line, "GPU annotations (stream 7)");
  EXPECT_EQ(annotation->stats.count("_r"), 0u);  // Only host steps are roots.
  auto sync = c->Find(side, "Stream Sync");
  ASSERT_TRUE(sync.has_value());
  EXPECT_EQ(sync->line, "CUDA sync (stream 7)");
  EXPECT_EQ(sync->stats.count("correlation_id"), 0u);  // Waiting is not device work.

  auto stats = c->PlaneStats(gpu);
  EXPECT_EQ(stats["device_vendor"], "s:Nvidia");
  EXPECT_EQ(stats["gpu_device_name"], "s:NVIDIA H100 80GB HBM3");
  EXPECT_EQ(stats["core_count"], "i:132");
  EXPECT_EQ(stats["memory_size"], "i:85018279936");
  EXPECT_EQ(stats["compute_cap_major"], "i:9");
  EXPECT_EQ(stats["compute_cap_minor"], "i:0");
}

TEST(ChromeJsonToXSpaceTest, KinetoMemoryEventsAndEpoch) {
  auto c = Convert("kineto_small.json");
  EXPECT_EQ(c->summary.memory_events, 2);
  auto alloc = c->Find(xplane::kHostThreadsPlaneName, "MemoryAllocation");
  ASSERT_TRUE(alloc.has_value());
  EXPECT_EQ(alloc->line, "thread 100 (python)");
  EXPECT_EQ(alloc->duration_ps, 0);
  EXPECT_EQ(alloc->stats.at("allocator_name"), "s:GPU_0_caching");
  EXPECT_EQ(alloc->stats.at("bytes_allocated"), "i:5024");
  EXPECT_EQ(alloc->stats.at("bytes_reserved"), "i:0");
  EXPECT_EQ(alloc->stats.at("bytes_available"), "i:4976");
  EXPECT_EQ(alloc->stats.at("peak_bytes_in_use"), "i:5024");
  EXPECT_EQ(alloc->stats.at("requested_bytes"), "i:1024");
  EXPECT_EQ(alloc->stats.at("allocation_bytes"), "i:1024");
  EXPECT_EQ(alloc->stats.at("addr"), "i:140000000");
  EXPECT_EQ(alloc->stats.at("tf_op"), "r:aten::mm");
  auto dealloc = c->Find(xplane::kHostThreadsPlaneName, "MemoryDeallocation");
  ASSERT_TRUE(dealloc.has_value());
  EXPECT_EQ(dealloc->stats.at("bytes_allocated"), "i:4000");
  EXPECT_EQ(dealloc->stats.at("bytes_available"), "i:6000");
  EXPECT_EQ(dealloc->stats.at("peak_bytes_in_use"), "i:5024");
  EXPECT_EQ(dealloc->stats.at("tf_op"), "r:aten::zero_");

  // ts counts from baseTimeNanoseconds (given after traceEvents).
  auto env = c->PlaneStats(xplane::kTaskEnvPlaneName);
  EXPECT_EQ(env["profile_start_time"], absl::StrCat("i:", int64_t{1700000000000000000} + 1000000));
  EXPECT_EQ(env["profile_stop_time"], absl::StrCat("i:", int64_t{1700000000000000000} + 1500500));
}

TEST(ChromeJsonToXSpaceTest, GzipAndBareArrayGiveTheSameEvents) {
  auto plain = Convert("kineto_small.json");
  auto gz = Convert("kineto_small.json.gz");
  auto bare = Convert("kineto_small_bare.json");
  EXPECT_TRUE(bare->summary.bare_array);
  auto render = [](const std::vector<Ev>& events, bool details) {
    std::vector<std::string> out;
    for (const Ev& e : events) {
      std::string s = absl::StrCat(e.line, "|", e.name, "|", e.begin_ps, "|", e.duration_ps);
      for (const auto& [k, v] : e.stats) {
        if (details || (k != "kernel_details" && k != "theoretical_occupancy_pct")) {
          absl::StrAppend(&s, "|", k, "=", v);
        }
      }
      out.push_back(s);
    }
    return out;
  };
  for (absl::string_view plane :
       {xplane::kHostThreadsPlaneName, absl::string_view("/device:GPU:0")}) {
    EXPECT_EQ(render(gz->Events(plane), true), render(plain->Events(plane), true));
    // Without deviceProperties only the occupancy differs.
    EXPECT_EQ(render(bare->Events(plane), false), render(plain->Events(plane), false));
  }
  auto kernel = bare->Find("/device:GPU:0", "volta_sgemm_64x64_nn");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_EQ(kernel->stats.at("kernel_details"),
            "r:regs:64 static_shared:0 dynamic_shared:0 grid:66,1,1 block:256,1,1");
  EXPECT_EQ(kernel->stats.count("theoretical_occupancy_pct"), 0u);
  EXPECT_THAT(bare->space.warnings, Contains(HasSubstr("without deviceProperties")));
  // CUDA runtime events still identify the vendor.
  EXPECT_EQ(bare->PlaneStats("/device:GPU:0")["device_vendor"], "s:Nvidia");
}

TEST(ChromeJsonToXSpaceTest, OldCapitalisedCategories) {
  auto c = Convert("old_capitalised.json");
  EXPECT_EQ(c->summary.kernels, 2);
  EXPECT_EQ(c->summary.memcpys, 1);
  EXPECT_EQ(c->summary.memsets, 1);
  EXPECT_EQ(c->summary.step_roots, 1);
  const std::string gpu = xplane::GpuPlaneName(0);
  EXPECT_THAT(c->LineNames(gpu), ElementsAre("Stream #7"));
  auto k1 = c->Find(gpu, "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)");
  ASSERT_TRUE(k1.has_value());
  EXPECT_EQ(k1->stats.at("kernel_details"),
            "r:regs:38 static_shared:0 dynamic_shared:0 grid:13,1,1 block:256,1,1 occ_pct:75");
  EXPECT_EQ(k1->stats.at("tf_op"), "r:aten::cudnn_convolution");
  EXPECT_EQ(k1->stats.at("est_achieved_occupancy_pct"), "d:2");
  auto k2 = c->Find(gpu, "volta_scudnn_128x64_relu_interior_nn_v1");
  ASSERT_TRUE(k2.has_value());
  EXPECT_EQ(k2->stats.at("theoretical_occupancy_pct"), "d:25");
  // The copy's launch is not in the trace and its external id names no op.
  auto d2h = c->Find(gpu, "MemcpyDToH");
  ASSERT_TRUE(d2h.has_value());
  EXPECT_EQ(d2h->stats.at("memcpy_details"),
            "s:num_bytes:19267584 kind_src:device kind_dst:pageable");
  EXPECT_EQ(d2h->stats.count("tf_op"), 0u);

  // Host: "25738" and 25738 are one thread; epoch-microsecond timestamps.
  EXPECT_THAT(c->LineNames(xplane::kHostThreadsPlaneName),
              ElementsAre("thread 25738 (python)", "PyTorch Profiler"));
  auto env = c->PlaneStats(xplane::kTaskEnvPlaneName);
  EXPECT_EQ(env["profile_start_time"], "i:1623143093496439000");

  // Memory without totals: running totals in time order, shifted so the
  // free of a block from before the trace does not go below zero.
  std::vector<std::string> gpu_memory;
  std::string cpu_memory;
  for (const Ev& e : c->Events(xplane::kHostThreadsPlaneName)) {
    if (e.name != "MemoryAllocation" && e.name != "MemoryDeallocation") continue;
    if (e.stats.at("allocator_name") == "s:CPU") {
      cpu_memory = e.stats.at("bytes_allocated");
      continue;
    }
    gpu_memory.push_back(absl::StrCat(e.name, " ", e.stats.at("bytes_allocated"), " ",
                                      e.stats.at("peak_bytes_in_use")));
  }
  EXPECT_THAT(gpu_memory,
              ElementsAre("MemoryAllocation i:1200 i:1200", "MemoryAllocation i:1700 i:1700",
                          "MemoryDeallocation i:700 i:1700", "MemoryDeallocation i:0 i:1700"));
  EXPECT_EQ(cpu_memory, "i:4");
}

// record_shapes / with_stack args of CPU ops become the stats the operator
// view reads (converters/views/operators/op_tree.h), JSON arrays without whitespace.
TEST(ChromeJsonToXSpaceTest, OpShapesAndCallStacksAreKept) {
  auto c = Convert("kineto_small.json");  // Pretty-printed "Input Dims".
  auto mm = c->Find(xplane::kHostThreadsPlaneName, "aten::mm");
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->stats.at("input_dims"), "r:[[64,64],[64,64]]");
  EXPECT_EQ(mm->stats.at("input_types"), "r:[\"float\",\"float\"]");
  EXPECT_EQ(mm->stats.count("call_stack"), 0u);
  auto copy = c->Find(xplane::kHostThreadsPlaneName, "aten::copy_");
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ(copy->stats.count("input_dims"), 0u);  // Not recorded.

  auto old = Convert("old_capitalised.json");
  bool found = false;
  for (const Ev& e : old->Events(xplane::kHostThreadsPlaneName)) {
    if (e.stats.count("call_stack") == 0) continue;
    found = true;
    EXPECT_EQ(e.stats.at("call_stack"), "r:a.py(1): f;b.py(2): g");
    EXPECT_EQ(e.stats.at("input_dims"), "r:[[32,3,224,224],[]]");
  }
  EXPECT_TRUE(found);
}

TEST(ChromeJsonToXSpaceTest, EmptyDevicePropertiesAndDisplayTimeUnit) {
  auto c = Convert("empty_device_properties.json");
  const std::string gpu = xplane::GpuPlaneName(1);
  ASSERT_NE(c->Plane(gpu), nullptr);
  auto kernel = c->Find(gpu, "relu_kernel");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_EQ(kernel->stats.at("kernel_details"),
            "r:regs:16 static_shared:512 dynamic_shared:0 grid:40,1,1 block:128,2,1");
  EXPECT_EQ(kernel->stats.at("tf_op"), "r:aten::relu");
  // displayTimeUnit only affects display: ts stays in microseconds.
  EXPECT_EQ(kernel->begin_ps, 10 * kUsPs);
  EXPECT_EQ(kernel->duration_ps, 2500000);
  EXPECT_THAT(c->space.warnings, Contains(HasSubstr("without deviceProperties")));
}

TEST(ChromeJsonToXSpaceTest, RocmTraceHasNoOccupancy) {
  auto c = Convert("rocm_like.json");
  const std::string gpu = xplane::GpuPlaneName(0);
  auto kernel = c->Find(gpu, "elementwise_kernel");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_EQ(kernel->stats.at("kernel_details"),
            "r:regs:32 static_shared:0 dynamic_shared:0 grid:1024,1,1 block:256,1,1");
  EXPECT_EQ(kernel->stats.count("theoretical_occupancy_pct"), 0u);
  EXPECT_EQ(kernel->stats.at("tf_op"), "r:aten::add");
  auto stats = c->PlaneStats(gpu);
  EXPECT_EQ(stats["device_vendor"], "s:AMD");
  EXPECT_EQ(stats["gpu_device_name"], "s:AMD Instinct MI300X");
}

TEST(ChromeJsonToXSpaceTest, CpuOnlyBareArrayWithMalformedEvents) {
  auto c = Convert("cpu_only.json");
  EXPECT_EQ(xplane::FindGpuPlanes(c->space).size(), 0u);
  EXPECT_EQ(c->summary.events_read, 20);
  EXPECT_EQ(c->summary.events_read, c->summary.events_converted + c->summary.events_ignored +
                                        c->summary.events_malformed + c->summary.metadata_events);
  EXPECT_EQ(c->summary.events_malformed, 6);
  ASSERT_EQ(c->summary.malformed_examples.size(), 5u);  // The default keeps 5.
  EXPECT_THAT(c->summary.malformed_examples[0], HasSubstr("without \"ts\""));
  EXPECT_THAT(c->summary.malformed_examples[1], HasSubstr("without a \"ph\""));
  EXPECT_THAT(c->summary.malformed_examples[2], HasSubstr("\"ts\" is not a number"));
  EXPECT_THAT(c->summary.malformed_examples[3], HasSubstr("negative"));
  EXPECT_THAT(c->summary.malformed_examples[4], HasSubstr("not a JSON object"));
  EXPECT_THAT(c->space.warnings, Contains(HasSubstr("6 malformed trace events")));
  EXPECT_THAT(c->space.warnings,
              Contains(HasSubstr("1 \"B\" events without an \"E\" and 1 \"E\"")));

  auto outer = c->Find(xplane::kHostThreadsPlaneName, "outer");
  ASSERT_TRUE(outer.has_value());
  EXPECT_EQ(outer->begin_ps, 150 * kUsPs);
  EXPECT_EQ(outer->duration_ps, 250 * kUsPs);
  auto inner = c->Find(xplane::kHostThreadsPlaneName, "inner");
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(inner->duration_ps, 100250000);
  // A correlation above int64 is dropped, not wrapped.
  auto py = c->Find(xplane::kHostThreadsPlaneName, "model.py(3): forward");
  ASSERT_TRUE(py.has_value());
  EXPECT_EQ(py->stats.count("correlation_id"), 0u);
  auto mystery = c->Find(xplane::kHostThreadsPlaneName, "mystery");
  ASSERT_TRUE(mystery.has_value());
  EXPECT_EQ(mystery->line, "worker");
  EXPECT_EQ(mystery->duration_ps, 10001000);  // 10.0005 us rounds to 10001 ns.
  EXPECT_TRUE(c->Find(xplane::kHostThreadsPlaneName, "global marker").has_value());
  EXPECT_TRUE(c->Find(xplane::kHostThreadsPlaneName, "async instant").has_value());
  EXPECT_TRUE(c->Find(xplane::kHostThreadsPlaneName, "na\xC3\xAFve \xF0\x9F\x98\x80").has_value());
  EXPECT_EQ(c->summary.step_roots, 1);
}

TEST(ChromeJsonToXSpaceTest, Errors) {
  xplane::XSpaceData space;
  auto s = ConvertChromeJsonToXSpace(DataPath("empty.json"), {}, &space).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("empty.json: byte 0: empty file"));

  xplane::XSpaceData space2;
  s = ConvertChromeJsonToXSpace(DataPath("truncated.json.gz"), {}, &space2).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_THAT(s.message(), HasSubstr("truncated.json.gz"));

  xplane::XSpaceData space3;
  s = ConvertChromeJsonToXSpace(DataPath("invalid.json"), {}, &space3).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("invalid.json: byte 64: invalid JSON"));

  xplane::XSpaceData space4;
  s = ConvertChromeJsonToXSpace(DataPath("not_a_trace.json"), {}, &space4).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("no traceEvents array"));

  xplane::XSpaceData space5;
  s = ConvertChromeJsonToXSpace(DataPath("does_not_exist.json"), {}, &space5).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);

  xplane::XSpaceData space6;
  ChromeJsonOptions limited;
  limited.max_events = 3;
  s = ConvertChromeJsonToXSpace(DataPath("kineto_small.json"), limited, &space6).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
}

std::string WriteTemp(absl::string_view name, absl::string_view contents) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  return path;
}

TEST(ChromeJsonToXSpaceTest, LimitsAndFarAwayTimes) {
  // 115 days after the first event: counted as malformed, not wrapped.
  std::string far = WriteTemp("far.json", R"([{"ph": "X", "name": "a", "ts": 0, "dur": 1},
      {"ph": "X", "name": "b", "ts": 10000000000000, "dur": 1}])");
  xplane::XSpaceData space;
  auto summary = ConvertChromeJsonToXSpace(far, {}, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->events_converted, 1);
  ASSERT_EQ(summary->malformed_examples.size(), 1u);
  EXPECT_THAT(summary->malformed_examples[0], HasSubstr("26 days"));

  // An optional top-level value above max_element_bytes is skipped.
  std::string big = WriteTemp(
      "big_metadata.json",
      absl::StrCat(R"({"metadata": {"blob": ")", std::string(3 << 20, 'm'),
                   R"("}, "traceEvents": [{"ph": "X", "name": "a", "ts": 0, "dur": 1}]})"));
  ChromeJsonOptions small;
  small.max_element_bytes = 1 << 20;
  xplane::XSpaceData space2;
  summary = ConvertChromeJsonToXSpace(big, small, &space2);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->events_converted, 1);
  EXPECT_THAT(space2.warnings, Contains(HasSubstr("top-level \"metadata\" at byte 13 skipped")));

  // An event above it is an error.
  std::string big_event = WriteTemp(
      "big_event.json",
      absl::StrCat(R"([{"ph": "X", "ts": 0, "name": ")", std::string(3 << 20, 'e'), R"("}])"));
  xplane::XSpaceData space3;
  auto status = ConvertChromeJsonToXSpace(big_event, small, &space3).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("big_event.json: byte 1: a JSON element is larger"));

  // The memory guard names the file.
  ChromeJsonOptions no_memory;
  no_memory.max_memory_bytes = 1;
  xplane::XSpaceData space4;
  status = ConvertChromeJsonToXSpace(far, no_memory, &space4).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("far.json: after reading: memory use reached"));
}

TEST(ChromeJsonToXSpaceTest, RandomDamageIsReportedNeverFatal) {
  auto original = ReadFileToString(DataPath("kineto_small.json"));
  ASSERT_TRUE(original.ok());
  std::mt19937 rng(20240611);
  const std::string path = absl::StrCat(::testing::TempDir(), "/damaged.json");
  const char kSpecial[] = "{}[]\",:\\ 0-.eE";
  int ok = 0, failed = 0;
  for (int round = 0; round < 400; ++round) {
    std::string doc = *original;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits && !doc.empty(); ++i) {
      size_t pos = rng() % doc.size();
      switch (rng() % 4) {
        case 0:
          doc[pos] = kSpecial[rng() % (sizeof(kSpecial) - 1)];
          break;
        case 1:
          doc[pos] = static_cast<char>(rng() % 256);
          break;
        case 2:
          doc.erase(pos, 1 + rng() % 8);
          break;
        default:
          doc.resize(pos);
          break;
      }
    }
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << doc;
    }
    xplane::XSpaceData space;
    auto summary = ConvertChromeJsonToXSpace(path, {}, &space);
    if (summary.ok()) {
      ++ok;
      EXPECT_EQ(summary->events_read, summary->events_converted + summary->events_ignored +
                                          summary->events_malformed + summary->metadata_events)
          << doc;
    } else {
      ++failed;
      EXPECT_THAT(summary.status().message(), HasSubstr("damaged.json: byte ")) << doc;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace tbprof::converters

namespace tbprof::converters {
namespace {

// A GPU event whose launch has no enclosing CPU op takes the op its External
// id names (the last op with that id, whatever ids the others have); a launch
// inside an op wins over the External id; an id no op has gives no tf_op.
TEST(ChromeJsonToXSpaceTest, ExternalIdNamesTheOpOnlyWithoutALaunchingOp) {
  const std::string path = ::testing::TempDir() + "/external_id_ops.json";
  {
    std::ofstream f(path);
    f << R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::first", "pid": 1, "tid": 1, "ts": 10, "dur": 1,
   "args": {"External id": 7}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::second", "pid": 1, "tid": 1, "ts": 20, "dur": 1,
   "args": {"External id": 7}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::huge", "pid": 1, "tid": 1, "ts": 21, "dur": 1,
   "args": {"External id": 4611686018427387904}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::negative", "pid": 1, "tid": 1, "ts": 22, "dur": 1,
   "args": {"External id": -5}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::outer", "pid": 1, "tid": 1, "ts": 30, "dur": 10,
   "args": {"External id": 8}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 31,
   "dur": 2, "args": {"External id": 8, "correlation": 100}},
  {"ph": "X", "cat": "kernel", "name": "kernel_without_launch", "pid": 0, "tid": 7, "ts": 50,
   "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 99, "External id": 7}},
  {"ph": "X", "cat": "kernel", "name": "kernel_with_launch", "pid": 0, "tid": 7, "ts": 60,
   "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 100, "External id": 7}},
  {"ph": "X", "cat": "kernel", "name": "kernel_unknown_id", "pid": 0, "tid": 7, "ts": 70,
   "dur": 1, "args": {"device": 0, "stream": 7, "External id": 9}},
  {"ph": "X", "cat": "kernel", "name": "kernel_huge_id", "pid": 0, "tid": 7, "ts": 80,
   "dur": 1, "args": {"device": 0, "stream": 7, "External id": 4611686018427387904}},
  {"ph": "X", "cat": "kernel", "name": "kernel_negative_id", "pid": 0, "tid": 7, "ts": 90,
   "dur": 1, "args": {"device": 0, "stream": 7, "External id": -5}}
]})";
  }
  xplane::XSpaceData space;
  auto summary = ConvertChromeJsonToXSpace(path, ChromeJsonOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  std::map<std::string, std::string> tf_op;
  const xplane::Plane* gpu = xplane::FindPlaneWithName(space, xplane::GpuPlaneName(0));
  ASSERT_NE(gpu, nullptr);
  xplane::XPlaneVisitor pv(&space, gpu, xplane::SpaceBaseNs(space));
  pv.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& e) {
      std::string& op = tf_op[std::string(e.name())];
      e.ForEachStat([&](const xplane::XStatVisitor& s) {
        if (s.name() == "tf_op") op = std::string(s.StrOrRefValue());
      });
    });
  });
  EXPECT_EQ(tf_op["kernel_without_launch"], "aten::second");
  EXPECT_EQ(tf_op["kernel_with_launch"], "aten::outer");
  EXPECT_EQ(tf_op["kernel_unknown_id"], "");
  // Ids far apart and falling (the list stores differences).
  EXPECT_EQ(tf_op["kernel_huge_id"], "aten::huge");
  EXPECT_EQ(tf_op["kernel_negative_id"], "aten::negative");
  EXPECT_EQ(tf_op.size(), 5u);
}

}  // namespace
}  // namespace tbprof::converters
