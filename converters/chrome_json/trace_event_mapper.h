// Maps parsed Chrome / Kineto trace events onto an XSpace (the rules of
// DESIGN.md "Kineto / Chrome trace mapping"):
//   - host events -> /host:CPU, one line per (pid, tid), emitted as they come;
//   - GPU activity (kernels, copies, memsets, GPU annotations, syncs) ->
//     /device:GPU:<device>, one line per stream; buffered in a compact form
//     and emitted by Finish(), when deviceProperties (which may follow the
//     events) and the launching CPU ops are known;
//   - [memory] instants -> MemoryAllocation / MemoryDeallocation, buffered so
//     running totals are computed in time order.
// Internal to the chrome_json converter; see chrome_json_to_xspace.h.
#ifndef TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_MAPPER_H_
#define TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_MAPPER_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/chrome_json/json_value.h"
#include "converters/chrome_json/trace_json_reader.h"
#include "converters/common/gpu_occupancy.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::converters {

class TraceEventMapper : public json::TraceJsonHandler {
 public:
  TraceEventMapper(const ChromeJsonOptions& options, xplane::XSpaceData* space);

  absl::Status OnEvent(const json::RawTraceEvent& event) override;
  void OnMalformedEvent(uint64_t byte_offset, absl::string_view reason) override;
  bool WantsTopLevelValue(absl::string_view key) override;
  absl::Status OnTopLevelValue(absl::string_view key, absl::string_view json,
                               uint64_t byte_offset) override;
  void OnTopLevelValueSkipped(absl::string_view key, uint64_t byte_offset,
                              absl::string_view reason) override;

  // Emits buffered events, names lines, finalizes the space and fills the
  // summary. Call once, after the reader is done. Errors: kResourceExhausted
  // when options.max_memory_bytes is passed (message without the file name).
  absl::StatusOr<ChromeJsonSummary> Finish(const json::TraceJsonReadResult& read);

 private:
  // What an event is, from its category.
  enum class Kind : uint8_t {
    kHost,
    kCpuOp,
    kUserAnnotation,  // record_function(...) spans, ProfilerStep#N included.
    kRuntime,
    kKernel,
    kMemcpy,
    kMemset,
    kGpuAnnotation,
    kGpuSync,
    // PyTorch's Python tracer frames ("python_function"). They start and end
    // at Python call boundaries, which straddle the framework's own spans
    // (ProfilerStep#N begins inside record_function.__enter__), so they go on
    // a line of their own per thread and never cut a step root short.
    kPythonFrame,
  };
  static constexpr int64_t kNone = INT64_MIN;

  // A host thread (pid, tid) and what Finish() needs about it.
  // OpSpan and Probe are packed to 4-byte alignment (20 and 12 bytes, not
  // 24 and 16): a trace has about as many as host events, all held until
  // Finish(). Copy their fields; do not bind references to them.
  struct __attribute__((packed, aligned(4))) OpSpan {
    int64_t begin_ns, end_ns;
    uint32_t name_id;  // StringPool id.
  };
  struct __attribute__((packed, aligned(4))) Probe {  // A point on the thread to attribute to a CPU op.
    int64_t ts_ns;
    uint32_t index;  // Bit 31 set: memory event index; else launch index.
  };
  static_assert(sizeof(OpSpan) == 20 && sizeof(Probe) == 12, "packed host-thread lists");
  struct OpenSpan {  // A "B" event waiting for its "E".
    int64_t ts_ns;
    uint32_t name_id;
    Kind kind;
    int64_t correlation;
    int64_t device;
  };
  struct HostThread {
    int64_t pid_key, tid_key;
    std::string tid_text;
    xplane::XLineBuilder* line = nullptr;
    xplane::Line* raw_line = nullptr;
    xplane::XLineBuilder* python_line = nullptr;  // Created on first kPythonFrame.
    bool has_step_root = false;
    std::vector<OpenSpan> open;
    std::vector<OpSpan> ops;
    std::vector<Probe> probes;
  };
  // A host event ready to be emitted.
  struct HostEvent {
    absl::string_view name;
    Kind kind;
    int64_t ts_ns, dur_ns;
    int64_t correlation = kNone;
    int64_t device = kNone;
    int64_t external_id = kNone;
    // record_shapes / with_stack args of CPU ops (raw JSON arrays, call
    // stack text); empty when absent. See EmitOpArgStats().
    absl::string_view input_dims, input_types, concrete_inputs, call_stack;
    // record_param_comms: the event's raw JSON (see EmitCommsArgStats()).
    absl::string_view comms_event_json;
  };
  // 64 bytes (a trace holds one per GPU event until Finish()): a kernel's
  // launch configuration is held once per distinct configuration, in
  // kernel_configs_.
  struct PendingGpuEvent {
    int64_t ts_ns, dur_ns;
    int64_t correlation, external_id;
    int64_t stream;
    // kKernel: index into kernel_configs_; kMemcpy, kMemset: the bytes.
    uint64_t bytes_or_config;
    int32_t device;
    uint32_t name_id;
    float est_occupancy_pct;  // NaN if absent.
    Kind kind;
  };
  static_assert(sizeof(PendingGpuEvent) == 64, "PendingGpuEvent must stay compact");
  struct PendingMemoryEvent {
    int64_t ts_ns;
    int64_t bytes;
    uint64_t addr;
    bool has_addr;
    int64_t total_allocated, total_reserved;  // kNone if absent.
    uint32_t thread_index;
    int32_t device_type, device_id;
    uint32_t op_name_id = 0;  // Innermost enclosing CPU op, 0 if none.
  };

  Kind Classify(const json::Token& cat);
  static Kind ClassifyText(absl::string_view cat);
  int64_t EncodeId(const json::Token& token, bool* ok);
  uint32_t ThreadIndex(const json::Token& pid, const json::Token& tid, bool* ok);
  bool ToOffsetPs(int64_t ts_ns, int64_t* offset_ps);
  void Malformed(uint64_t byte_offset, absl::string_view reason);
  absl::Status CheckMemory(absl::string_view where) const;
  xplane::XPlaneBuilder* HostPlane();

  absl::Status OnCompleteEvent(const json::RawTraceEvent& e, Kind kind, int64_t ts_ns);
  void OnMetadataEvent(const json::RawTraceEvent& e);
  void OnMemoryEvent(const json::RawTraceEvent& e, uint32_t thread, int64_t ts_ns);
  void BufferGpuEvent(const json::RawTraceEvent& e, Kind kind, int64_t ts_ns, int64_t dur_ns);
  void EmitHostEvent(uint32_t thread, const HostEvent& event, uint64_t byte_offset);
  // Adds the stats `input_dims`, `input_types`, `concrete_inputs` (JSON arrays
  // without whitespace) and `call_stack` (as recorded) that the operator view
  // reads (converters/views/operators/op_tree.h), as refs: shapes repeat across calls.
  void EmitOpArgStats(const HostEvent& event, xplane::XEventBuilder* ev);
  // trace_event_mapper_comms.cc: record_param_comms args and distributedInfo
  // kept as stats (converters/common/collective_stats.h).
  void EmitCommsArgStats(absl::string_view event_json, xplane::XEventBuilder* ev);
  void ReadDistributedInfo(const json::JsonValue& value);
  void EmitDistributedInfo();

  // Finish() steps (trace_event_mapper_finish.cc).
  void AttributeToCpuOps();
  void EmitGpuEvents();
  void EmitMemoryEvents();
  void NameHostLines();
  void LinkThreadsToSteps();
  const GpuDeviceProperties* DeviceProps(int64_t device) const;
  struct GpuPlane;
  GpuPlane& GetGpuPlane(int32_t device);
  xplane::XLineBuilder* GpuLine(GpuPlane& plane, Kind kind, int64_t stream);

  absl::Status ParseDeviceProperties(const json::JsonValue& value);

  const ChromeJsonOptions& options_;
  xplane::XSpaceData* space_;
  xplane::XSpaceBuilder builder_;
  ChromeJsonSummary summary_;

  bool have_base_ = false;
  int64_t base_ns_ = 0;       // Trace-clock ns of line timestamp_ns.
  int64_t base_time_ns_ = 0;  // baseTimeNanoseconds (epoch of ts 0), 0 if absent.
  bool rocm_ = false;         // HIP runtime events or ROCm keys seen.
  bool cuda_ = false;         // CUDA runtime/driver events seen.
  int64_t world_size_ = -1;   // distributedInfo.world_size, -1 if absent.
  std::string backend_;       // distributedInfo.backend.

  xplane::XPlaneBuilder* host_plane_ = nullptr;
  uint32_t stat_correlation_ = 0, stat_device_id_ = 0, stat_is_root_ = 0, stat_step_num_ = 0;
  uint32_t stat_tf_op_ = 0;
  // Op argument stats, created on first use (UINT32_MAX until then).
  uint32_t stat_input_dims_ = UINT32_MAX, stat_input_types_ = UINT32_MAX,
           stat_concrete_inputs_ = UINT32_MAX, stat_call_stack_ = UINT32_MAX;

  std::deque<HostThread> threads_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> thread_index_;
  // The last (pid, tid) texts seen and their thread: consecutive events
  // mostly come from one thread.
  std::string last_pid_text_, last_tid_text_;
  json::ValueKind last_pid_kind_ = json::ValueKind::kAbsent;
  json::ValueKind last_tid_kind_ = json::ValueKind::kAbsent;
  uint32_t last_thread_ = UINT32_MAX;
  // The last category text and its kind.
  std::string last_cat_text_;
  Kind last_cat_kind_ = Kind::kHost;
  absl::flat_hash_map<std::string, int64_t> string_ids_;  // Non-numeric pid/tid.
  absl::flat_hash_map<int64_t, int64_t> used_line_ids_;   // line id -> thread index.
  int64_t next_synthetic_line_id_ = 0xC0000000;
  // Returns a line id not used by any thread line yet.
  int64_t NewSyntheticLineId();
  absl::flat_hash_map<std::pair<int64_t, int64_t>, std::string> thread_names_;

  std::vector<int64_t> launch_correlations_;               // Indexed by Probe::index.
  // Correlation -> op name id (the innermost CPU op around the launch), only
  // for the correlations of GPU events, the only ones looked up: the keys are
  // made before attribution, and a key no launch probe found holds kNoLaunchOp.
  absl::flat_hash_map<int64_t, uint32_t> launch_op_;
  static constexpr uint32_t kNoLaunchOp = UINT32_MAX;
  // (External id, op name id) of every CPU op with an External id, in input
  // order. Only GPU events whose launch has no enclosing op look an External
  // id up (EmitGpuEvents), so the map is built at the end for just the ids
  // they need: a hash insert per CPU op into a map of millions of ids was a
  // cache miss per op on large traces.
  //
  // Stored as varints, ~4 bytes an op where a 16-byte entry took 16 (ids
  // mostly rise by small steps; the list is largest when the load's other
  // buffers are): each entry is the zigzag difference from the previous
  // External id, then the name id.
  class ExternalIdOps {
   public:
    void Append(int64_t external_id, uint32_t name_id) {
      const uint64_t delta = static_cast<uint64_t>(external_id) - static_cast<uint64_t>(last_);
      last_ = external_id;
      // Zigzag: small differences of either sign take few bytes.
      PutVarint((delta << 1) ^ (static_cast<int64_t>(delta) < 0 ? ~uint64_t{0} : 0));
      PutVarint(name_id);
    }
    // Calls fn(external_id, name_id) for every entry, in the order appended.
    template <typename Fn>
    void ForEach(Fn&& fn) const {
      const uint8_t* p = bytes_.data();
      const uint8_t* end = p + bytes_.size();
      int64_t id = 0;
      while (p < end) {
        const uint64_t zigzag = GetVarint(&p);
        id = static_cast<int64_t>(static_cast<uint64_t>(id) +
                                  ((zigzag >> 1) ^ (~(zigzag & 1) + 1)));
        fn(id, static_cast<uint32_t>(GetVarint(&p)));
      }
    }
    // Frees the entries.
    void Clear() {
      std::vector<uint8_t>().swap(bytes_);
      last_ = 0;
    }

   private:
    void PutVarint(uint64_t v) {
      while (v >= 0x80) {
        bytes_.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
      }
      bytes_.push_back(static_cast<uint8_t>(v));
    }
    static uint64_t GetVarint(const uint8_t** p) {
      uint64_t v = 0;
      for (int shift = 0;; shift += 7) {
        const uint8_t b = *(*p)++;
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (b < 0x80) return v;
      }
    }

    std::vector<uint8_t> bytes_;
    int64_t last_ = 0;
  };
  ExternalIdOps external_id_ops_;
  absl::flat_hash_map<int64_t, uint32_t> external_id_op_;  // External id -> op name id.
  // Fills external_id_op_ for the External ids of the GPU events whose
  // correlation has no launching op (the last op with an id wins).
  void ResolveExternalIdOps();

  // A /device:GPU:n plane being filled by EmitGpuEvents().
  // What the kernel_details / occupancy stats of a kernel depend on.
  struct KernelConfig {
    int32_t registers;
    int64_t shared_memory;
    int32_t grid[3], block[3];
    bool has_launch_params;
    bool operator==(const KernelConfig& o) const {
      return registers == o.registers && shared_memory == o.shared_memory &&
             std::equal(grid, grid + 3, o.grid) && std::equal(block, block + 3, o.block) &&
             has_launch_params == o.has_launch_params;
    }
  };
  struct KernelConfigHash {
    size_t operator()(const KernelConfig& c) const {
      return absl::HashOf(c.registers, c.shared_memory, c.grid[0], c.grid[1], c.grid[2],
                          c.block[0], c.block[1], c.block[2], c.has_launch_params);
    }
  };
  struct KernelConfigStats {
    uint32_t details_metadata;  // Stat metadata named by the kernel_details text.
    bool has_occupancy;
    double occupancy_pct;
  };
  struct GpuPlane {
    xplane::XPlaneBuilder* plane = nullptr;
    // GPU annotations and sync waits (xplane::GpuAnnotationPlaneName), made
    // on first use.
    xplane::XPlaneBuilder* annotation_plane = nullptr;
    int32_t device = 0;
    uint32_t correlation = 0, kernel_details = 0, theoretical_occupancy = 0, est_occupancy = 0,
             tf_op = 0, memcpy_details = 0, memset_details = 0;
    absl::flat_hash_map<std::pair<int, int64_t>, xplane::XLineBuilder*> lines;
    absl::flat_hash_map<uint32_t, uint32_t> renamed_metadata;  // Original name id -> index.
    // Kernel launch configurations seen on this GPU and what they give (the
    // same few recur in every step).
    absl::flat_hash_map<KernelConfig, KernelConfigStats, KernelConfigHash> kernel_configs;
    int64_t next_line_id = 0x30000000;
  };
  absl::flat_hash_map<int32_t, GpuPlane> gpu_planes_;
  // The distinct launch configurations of the kernels buffered so far, by
  // PendingGpuEvent::bytes_or_config.
  std::vector<KernelConfig> kernel_configs_;
  absl::flat_hash_map<KernelConfig, uint32_t, KernelConfigHash> kernel_config_index_;
  uint32_t KernelConfigIndex(const KernelConfig& config);
  // ProfilerStep#N roots, for LinkThreadsToSteps().
  struct StepRoot {
    uint32_t thread;
    uint32_t event_index;
    int64_t begin_ns, end_ns;
  };
  std::vector<StepRoot> step_roots_;
  std::vector<PendingGpuEvent> gpu_events_;
  std::vector<PendingMemoryEvent> memory_events_;
  std::vector<GpuDeviceProperties> device_props_;

  int64_t unmatched_begin_ = 0, unmatched_end_ = 0, out_of_range_ = 0;
  std::string scratch_;
  std::string arg_scratch_;  // EmitOpArgStats().
};

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_CHROME_JSON_TRACE_EVENT_MAPPER_H_
