// Aggregates for the overview and input-pipeline views that are not part of
// the step breakdown: per-op device time (top device ops), host input ops,
// TensorCore use, and the run environment.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_VIEW_METRICS_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_VIEW_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "proto/op_metrics.pb.h"
#include "proto/op_stats.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::views {

// Name and category of the framework op a device event came from.
struct FrameworkOp {
  std::string name;
  std::string category;
};
// Parses a `tf_op` value: TensorFlow "scope/name:Type" gives (scope/name,
// Type); PyTorch-style "ns::op" gives (ns::op, ns), e.g. ("aten::mm",
// "aten"); anything else (whole string, "Unknown").
FrameworkOp ParseFrameworkOp(absl::string_view tf_op);

// The op name in a TensorFlow annotation stack: the first non-empty
// "::"-separated level, without its "#key=value,...#" metadata.
absl::string_view OpNameOfAnnotation(absl::string_view annotation);


struct OpTensorCoreUse {
  bool eligible = false;
  bool using_tensor_core = false;  // At least one of its kernels does.
};
// Keyed by OpMetrics.name of the device op db.
using OpTensorCoreMap = absl::flat_hash_map<std::string, OpTensorCoreUse>;

// Device time per framework op (the `tf_op` stat of device events; events
// without it are attributed to their kernel / memcpy name). Device events on
// a stream do not nest, so self time == time.
class DeviceOpMetricsBuilder {
 public:
  // The op is `tf_op`, else the first name in `annotation` (TensorFlow 2.x
  // files), else the event name. All three (may be empty) must be views into
  // the XSpaceData's string pool: their addresses are used as cache keys.
  void Add(absl::string_view tf_op, absl::string_view annotation, absl::string_view event_name,
           int64_t duration_ps);

  // Fills db->metrics_db (sorted by self time, descending), total_op_time_ps
  // and total_time_ps (= total op time), and the TensorCore map.
  void Finalize(tensorflow::profiler::OpMetricsDb* db, OpTensorCoreMap* tensor_core);

 private:
  struct Slot {
    std::string name;
    std::string category;
    uint64_t occurrences = 0;
    uint64_t time_ps = 0;
    uint64_t min_time_ps = 0;
    bool using_tensor_core = false;
  };
  struct KernelInfo {
    bool uses_tensor_core = false;
    int32_t fallback_slot = -1;  // Slot used when the event has no tf_op.
  };
  int32_t NewSlot(std::string name, std::string category);
  KernelInfo& Kernel(absl::string_view event_name);
  // The slot of an Add() and the TensorCore use of its kernel, found
  // through the maps below (both never change once found).
  struct Resolved {
    int32_t slot;
    bool uses_tensor_core;
  };
  Resolved Resolve(absl::string_view tf_op, absl::string_view annotation,
                   absl::string_view event_name);
  // A direct-mapped cache of Resolve() by the three strings' addresses and
  // sizes: a trace repeats a few thousand (op, kernel) pairs over its
  // events, and most Add() calls then skip the two map lookups.
  struct CachedAdd {
    const char* tf_op = nullptr;
    const char* annotation = nullptr;
    const char* event_name = nullptr;
    size_t tf_op_size = 0;
    size_t annotation_size = 0;
    size_t event_name_size = 0;
    Resolved resolved{-1, false};
  };
  static constexpr size_t kCacheSlots = 1024;
  std::vector<CachedAdd> cache_ = std::vector<CachedAdd>(kCacheSlots);

  absl::flat_hash_map<const char*, int32_t> slot_by_tf_op_;
  absl::flat_hash_map<const char*, int32_t> slot_by_annotation_;
  absl::flat_hash_map<const char*, KernelInfo> kernels_;
  std::vector<Slot> slots_;
};

// Host input-pipeline ops by name (PyTorch DataLoader iterations,
// `_ipl_stage_*` stages). OpMetrics.category holds the input category
// ("Preprocessing", "Enqueue", "Demanded file read", "Unknown").
class InputOpMetricsBuilder {
 public:
  // `name` must be a view into the XSpaceData's string pool (cache key).
  void Add(absl::string_view name, absl::string_view category, int64_t duration_ps,
           int64_t self_time_ps);
  void Finalize(tensorflow::profiler::OpMetricsDb* db);

 private:
  absl::flat_hash_map<const char*, int32_t> slot_by_name_;
  std::vector<tensorflow::profiler::OpMetrics> slots_;
};

// Input category of an `_ipl_stage_cat` value (enqueue, read, preprocessing).
absl::string_view InputCategoryOfStage(absl::string_view ipl_stage_category);

// "Nvidia GPU (Ampere)", "AMD GPU - gfx942", ... from GPU plane stats. A
// missing vendor with a compute capability counts as Nvidia (older
// TensorFlow files do not write the vendor). "GPU" if nothing is known.
std::string GpuModelName(absl::string_view vendor, int64_t cc_major, int64_t cc_minor,
                         absl::string_view device_name);

// Run environment: device type of the first GPU plane (or "CPU"), number of
// GPU planes, hostnames, hardware type, and `is_training`.
tensorflow::profiler::RunEnvironment ComputeRunEnvironment(const xplane::XSpaceData& space,
                                                           bool is_training);

// True if host event names show a backward pass or an optimizer step
// (PyTorch autograd / Optimizer.step, TensorFlow gradient_tape).
bool LooksLikeTraining(const xplane::XSpaceData& space);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_VIEW_METRICS_H_
