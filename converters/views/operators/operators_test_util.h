// Test-only: a small XSpace of one PyTorch step with ops, a user annotation,
// nn.Module events, Python frames and device events of every attribution
// case, whose operator, module and GEMM numbers are computed by hand in the
// tests (times in microseconds below; the space is in picoseconds).
//
// Thread "main" (line 1) and its Python line "main python stack":
//   ProfilerStep#1      [0, 1000)  step root
//   aten::linear        [10, 300)  dims [[128,256],[512,256],[512]] bf16
//     aten::t           [12, 20)
//     aten::addmm       [30, 280)  dims [[512],[128,256],[256,512],[],[]] bf16
//       launch 1 @40  -> sm90_xmma_gemm_bf16 100 us   tf_op aten::addmm
//       launch 2 @60  -> splitKreduce_kernel  10 us   tf_op aten::addmm
//   my_block            [302, 600) (user annotation)
//     aten::relu        [310, 400)
//       launch 3 @320 -> relu_kernel           5 us   tf_op aten::relu
//     launch 4 @500   -> custom_kernel        20 us   (no tf_op)
//   launch 5 @700     -> orphan_kernel         7 us   outside any op
//   aten::mm            [720, 800) dims [[64,64],[64,64]] float
//     launch 6 @730   -> volta_sgemm_64x64    10 us   tf_op aten::mm
// Device events without a launch in the trace:
//   corr 99             -> lost_kernel         3 us   (launch not found)
//   no correlation      -> relu_kernel         4 us   tf_op aten::relu (by name)
//   no correlation      -> memset              2 us   (no correlation id)
// Python line: nn.Module: Net_0 [5, 650) > model.py(10): forward [6, 640) >
//   nn.Module: Linear_0 [9, 300) > <built-in function linear> [9.5, 299);
//   nn.Module: ReLU_0 [305, 450) inside model.py(10).
// GPU 0: "NVIDIA H100 80GB HBM3", compute capability 9.0, 132 SMs.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OPERATORS_TEST_UTIL_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OPERATORS_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "converters/views/operators/op_tree.h"
#include "converters/views/common/steps_test_util.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views::testing {

inline constexpr int64_t kUs = 1000000;  // ps

struct SampleOptions {
  bool correlation_ids = true;  // Host and device events carry correlation_id.
  bool device_tf_op = true;     // Device events carry tf_op.
  bool shapes = true;           // Ops carry input_dims / input_types.
  bool python = true;           // The Python line exists.
};

class SampleSpace {
 public:
  explicit SampleSpace(const SampleOptions& o = {}) : o_(o) {
    xplane::XPlaneBuilder* host = b_.Host();
    host->GetOrCreateLine(1)->SetName("main");
    b_.Root(1, "ProfilerStep#1", 0, 1000 * kUs, 1);
    Op("aten::linear", 10, 290, "[[128,256],[512,256],[512]]",
       R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])");
    Op("aten::t", 12, 8, "[[512,256]]", R"(["c10::BFloat16"])");
    Op("aten::addmm", 30, 250, "[[512],[128,256],[256,512],[],[]]",
       R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])");
    Launch(40, 1, "sm90_xmma_gemm_bf16", 100, "aten::addmm");
    Launch(60, 2, "splitKreduce_kernel", 10, "aten::addmm");
    Op("my_block", 302, 298, "", "");
    Op("aten::relu", 310, 90, "[[128,512]]", R"(["c10::BFloat16"])");
    Launch(320, 3, "relu_kernel", 5, "aten::relu");
    Launch(500, 4, "custom_kernel", 20, "");
    Launch(700, 5, "orphan_kernel", 7, "");
    Op("aten::mm", 720, 80, "[[64,64],[64,64]]", R"(["float","float"])");
    Launch(730, 6, "volta_sgemm_64x64", 10, "aten::mm");
    Device(99, "lost_kernel", 3, "");
    Device(-1, "relu_kernel", 4, "aten::relu");
    Device(-1, "memset", 2, "");
    if (o.python) {
      xplane::XLineBuilder* py = host->GetOrCreateLine(2);
      py->SetName(absl::StrCat("main", kPythonStackLineSuffix));
      Python("nn.Module: Net_0", 5 * kUs, 645 * kUs);
      Python("model.py(10): forward", 6 * kUs, 634 * kUs);
      Python("nn.Module: Linear_0", 9 * kUs, 291 * kUs);
      Python("<built-in function linear>", 9500000, 289500000);
      Python("nn.Module: ReLU_0", 305 * kUs, 145 * kUs);
    }
    b_.GpuStatString(0, xplane::StatType::kGpuDeviceName, "NVIDIA H100 80GB HBM3");
    b_.GpuStatInt(0, xplane::StatType::kDevCapComputeCapMajor, 9);
    b_.GpuStatInt(0, xplane::StatType::kDevCapComputeCapMinor, 0);
    b_.GpuStatInt(0, xplane::StatType::kDevCapCoreCount, 132);
  }

  const xplane::XSpaceData& Finish() { return b_.Finish(); }

 private:
  void Op(absl::string_view name, int64_t begin_us, int64_t dur_us, absl::string_view dims,
          absl::string_view types) {
    xplane::XEventBuilder e = b_.HostEvent(1, name, begin_us * kUs, dur_us * kUs);
    if (!o_.shapes || dims.empty()) return;
    xplane::XPlaneBuilder* host = b_.Host();
    e.AddRef(host->GetOrCreateStatMetadata(kInputDimsStatName), dims);
    e.AddRef(host->GetOrCreateStatMetadata(kInputTypesStatName), types);
  }
  // A launch of 10 us at `begin_us` and its device event at next_device_us_.
  void Launch(int64_t begin_us, int64_t correlation, absl::string_view kernel, int64_t dur_us,
              absl::string_view tf_op) {
    if (o_.correlation_ids) {
      b_.Launch(1, begin_us * kUs, 10 * kUs, correlation);
    } else {
      b_.HostEvent(1, "cudaLaunchKernel", begin_us * kUs, 10 * kUs);
    }
    Device(correlation, kernel, dur_us, tf_op);
  }
  void Device(int64_t correlation, absl::string_view kernel, int64_t dur_us,
              absl::string_view tf_op) {
    xplane::XEventBuilder e =
        b_.Device(0, 7, kernel, next_device_us_ * kUs, dur_us * kUs,
                  o_.correlation_ids ? correlation : -1);
    next_device_us_ += dur_us;
    if (o_.device_tf_op && !tf_op.empty()) {
      e.AddRef(b_.Gpu(0)->GetOrCreateStatMetadata(xplane::StatType::kTfOp), tf_op);
    }
  }
  void Python(absl::string_view name, int64_t begin_ps, int64_t dur_ps) {
    b_.HostEvent(2, name, begin_ps, dur_ps);
  }

  SampleOptions o_;
  StepSpaceBuilder b_;
  int64_t next_device_us_ = 100;
};

}  // namespace tbprof::views::testing

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OPERATORS_TEST_UTIL_H_
