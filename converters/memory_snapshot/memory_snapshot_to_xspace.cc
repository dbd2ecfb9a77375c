#include "converters/memory_snapshot/memory_snapshot_to_xspace.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/input_stream.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_builder.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_wire_reader.h"

namespace tbprof::converters {
namespace {

using memory_snapshot::Action;
using memory_snapshot::DeviceMemory;
using memory_snapshot::LiveBlock;
using memory_snapshot::RunningBytes;
using memory_snapshot::Snapshot;
using memory_snapshot::TraceEvent;
using xplane::StatType;

constexpr int64_t kPsPerUs = 1000000;
constexpr int64_t kMaxOffsetUs = std::numeric_limits<int64_t>::max() / kPsPerUs / 2;
// Per memory event: at most 11 stats (Add()), of which at most 4 take a wide
// value (bytes allocated, available and peak past 2 GiB, the address).
constexpr size_t kMaxStatsPerEvent = 11;
constexpr size_t kMaxWidePerEvent = 4;

// `f` (a fraction in [0, 1]) rounded to the nearest double whose low 32
// bits are 0 (20 bits of mantissa: relative error below 1e-6, invisible
// in a percentage), which XSpaceData holds in the Stat itself instead of
// 8 more bytes of wide value per event.
double NarrowFraction(double f) {
  uint64_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + (uint64_t{1} << 31)) & ~uint64_t{0xffffffff};
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

class Emitter {
 public:
  Emitter(const Snapshot& snapshot, xplane::XSpaceData* space)
      : snapshot_(snapshot), builder_(space) {
    plane_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
    alloc_md_ = plane_->GetOrCreateEventMetadata(xplane::kMemoryAllocationEventName);
    dealloc_md_ = plane_->GetOrCreateEventMetadata(xplane::kMemoryDeallocationEventName);
    s_allocator_ = plane_->GetOrCreateStatMetadata(StatType::kAllocatorName);
    s_allocated_ = plane_->GetOrCreateStatMetadata(StatType::kBytesAllocated);
    s_available_ = plane_->GetOrCreateStatMetadata(StatType::kBytesAvailable);
    s_peak_ = plane_->GetOrCreateStatMetadata(StatType::kPeakBytesInUse);
    s_fragmentation_ = plane_->GetOrCreateStatMetadata(StatType::kFragmentation);
    s_requested_ = plane_->GetOrCreateStatMetadata(StatType::kRequestedBytes);
    s_allocation_ = plane_->GetOrCreateStatMetadata(StatType::kAllocationBytes);
    s_addr_ = plane_->GetOrCreateStatMetadata(StatType::kAddress);
    s_tf_op_ = plane_->GetOrCreateStatMetadata(StatType::kTfOp);
    s_region_ = plane_->GetOrCreateStatMetadata(StatType::kRegionType);
    s_stack_ = plane_->GetOrCreateStatMetadata(kStackStatName);
    stack_refs_.assign(snapshot.stacks.size(), {0, 0});
  }

  // Time base: the earliest time_us of any event (0 without times).
  void SetTimeBase(bool has_times) {
    has_times_ = has_times;
    bool any = false;
    for (const TraceEvent& e : snapshot_.events) {
      if (!e.has_time) continue;
      base_us_ = any ? std::min(base_us_, e.time_us) : e.time_us;
      any = true;
    }
    if (!any) has_times_ = false;
    if (!has_times_) base_us_ = 0;
  }

  int64_t Emit(const DeviceMemory& m) {
    xplane::XLineBuilder* line = plane_->GetOrCreateLine(m.device);
    line->SetName(absl::StrCat("GPU:", m.device, " memory snapshot"));
    // Epoch microseconds: the line starts there (Finalize keeps the epoch
    // as profile_start_time and counts offsets from the session start).
    if (has_times_ && base_us_ > 0 && base_us_ <= std::numeric_limits<int64_t>::max() / 1000) {
      line->SetTimestampNs(base_us_ * 1000);
    }
    allocator_ = plane_->GetOrCreateStatMetadata(absl::StrCat("GPU_", m.device, "_caching"));
    const std::vector<uint32_t> empty;
    const std::vector<uint32_t>& trace =
        static_cast<size_t>(m.device) < snapshot_.device_traces.size()
            ? snapshot_.device_traces[m.device]
            : empty;
    // Exactly the events written (allocs, completed frees and the blocks
    // live before recording), so that no large vector regrows and copies.
    const size_t events = static_cast<size_t>(m.allocs + m.frees) + m.initial_blocks.size();
    line->ReserveMore(events, events * kMaxStatsPerEvent);
    std::vector<uint64_t>& wide = plane_->plane()->wide_values;
    wide.reserve(wide.size() + events * kMaxWidePerEvent);
    int64_t start_ps = 0;
    for (uint32_t index : trace) {
      const TraceEvent& e = snapshot_.events[index];
      if (e.has_time || !has_times_) {
        start_ps = OffsetPs(e, 0);
        break;
      }
    }
    int64_t written = 0;
    // Blocks live before recording: the running total climbs to the start state.
    int64_t allocated = 0, peak = 0;
    for (const LiveBlock& b : m.initial_blocks) {
      allocated = memory_snapshot::SaturatingAdd(allocated, b.size);
      peak = std::max(peak, allocated);
      Add(line, alloc_md_, start_ps, b.addr, b.size, allocated, m.initial_reserved_bytes, peak,
          b.stack, /*before=*/true);
      ++written;
    }
    memory_snapshot::ForEachRunning(
        snapshot_, m, [&](size_t i, const TraceEvent& e, const RunningBytes& r) {
          if (!r.changed_allocated) return;
          peak = std::max(peak, r.allocated);
          Add(line, e.action == Action::kAlloc ? alloc_md_ : dealloc_md_, OffsetPs(e, i), e.addr,
              e.size, r.allocated, r.reserved, peak, e.stack, false);
          ++written;
        });
    return written;
  }

  xplane::XSpaceBuilder& builder() { return builder_; }

 private:
  int64_t OffsetPs(const TraceEvent& e, size_t index) const {
    int64_t us = static_cast<int64_t>(std::min<size_t>(index, kMaxOffsetUs));
    if (has_times_) {
      int64_t diff;
      if (!e.has_time || __builtin_sub_overflow(e.time_us, base_us_, &diff)) diff = 0;
      us = std::clamp<int64_t>(diff, 0, kMaxOffsetUs);
    }
    return us * kPsPerUs;
  }

  void Add(xplane::XLineBuilder* line, uint32_t md, int64_t offset_ps, uint64_t addr, int64_t size,
           int64_t allocated, int64_t reserved, int64_t peak, uint32_t stack, bool before) {
    xplane::XEventBuilder ev = line->AddEvent(md, offset_ps, 0);
    // A ref: the name is written once, not once per event (the plugin reads
    // it with StrOrRefValue()).
    ev.AddRefToMetadata(s_allocator_, allocator_);
    ev.AddInt64(s_allocated_, allocated);
    // No bytes_reserved: the plugin reads it as stack memory (heap + stack
    // = in use) and takes a missing stat as 0; PyTorch's reserved bytes hold
    // the allocated ones, so the free part of the segments goes to
    // bytes_available instead.
    const int64_t available = std::max<int64_t>(0, reserved - allocated);
    ev.AddInt64(s_available_, available);
    // The free share of the segments; the plugin shows 0 without this stat.
    const double held = static_cast<double>(available) + static_cast<double>(allocated);
    ev.AddDouble(s_fragmentation_,
                 NarrowFraction(held > 0 ? static_cast<double>(available) / held : 0.0));
    ev.AddInt64(s_peak_, peak);
    ev.AddInt64(s_requested_, size);
    ev.AddInt64(s_allocation_, size);
    ev.AddInt64(s_addr_, static_cast<int64_t>(addr));
    if (before) ev.AddRef(s_region_, kBeforeRecordingRegion);
    if (stack != 0) {
      auto& [tf_op, frames] = stack_refs_[stack];
      if (frames == 0) {
        tf_op = plane_->GetOrCreateStatMetadata(UserFrameText(snapshot_, stack));
        frames = plane_->GetOrCreateStatMetadata(StackText(snapshot_, stack));
      }
      ev.AddRefToMetadata(s_tf_op_, tf_op);
      ev.AddRefToMetadata(s_stack_, frames);
    }
  }

  const Snapshot& snapshot_;
  xplane::XSpaceBuilder builder_;
  xplane::XPlaneBuilder* plane_;
  bool has_times_ = true;
  int64_t base_us_ = 0;
  uint32_t allocator_ = 0;  // Stat metadata named "GPU_<d>_caching" (the ref value).
  uint32_t alloc_md_, dealloc_md_;
  uint32_t s_allocator_, s_allocated_, s_available_, s_peak_, s_fragmentation_,
      s_requested_,
      s_allocation_, s_addr_, s_tf_op_, s_region_, s_stack_;
  std::vector<std::pair<uint32_t, uint32_t>> stack_refs_;  // (tf_op, frames) metadata by stack.
};

}  // namespace

MemorySnapshotSummary ConvertSnapshotToXSpace(const Snapshot& snapshot, xplane::XSpaceData* space) {
  MemorySnapshotSummary summary;
  summary.analysis = memory_snapshot::AnalyzeStartState(snapshot);
  // Writing the events needs only each device's start state: the peaks and
  // the blocks live at them are found meanwhile on a second thread (when
  // there is a second core).
  std::thread finish;
  if (std::thread::hardware_concurrency() >= 2) {
    finish = std::thread(
        [&snapshot, &summary] { memory_snapshot::FinishAnalysis(snapshot, &summary.analysis); });
  } else {
    memory_snapshot::FinishAnalysis(snapshot, &summary.analysis);
  }
  summary.trace_events = static_cast<int64_t>(snapshot.events.size());
  summary.segments = static_cast<int64_t>(snapshot.segments.size());
  summary.distinct_stacks = static_cast<int64_t>(snapshot.stacks.size()) - 1;
  Emitter emitter(snapshot, space);
  emitter.SetTimeBase(summary.analysis.has_times);
  int64_t ooms = 0;
  // Only the fields AnalyzeStartState() filled are read until the join.
  for (const DeviceMemory& m : summary.analysis.devices) {
    summary.memory_events += emitter.Emit(m);
    ooms += m.ooms;
  }
  if (finish.joinable()) finish.join();
  for (const DeviceMemory& m : summary.analysis.devices) {
    // Each distinct stack once: a peak may hold millions of blocks of a few
    // stacks.
    for (const LiveBlock& b : m.live_at_peak) {
      if (b.stack == 0 || b.stack >= snapshot.stacks.size()) continue;
      if (summary.stack_texts.size() <= b.stack) {
        summary.stack_texts.resize(snapshot.stacks.size());
      }
      if (summary.stack_texts[b.stack].empty()) {
        summary.stack_texts[b.stack] = StackText(snapshot, b.stack);
      }
    }
  }
  for (const std::string& w : summary.analysis.warnings) {
    emitter.builder().AddWarning(absl::StrCat("memory snapshot: ", w));
  }
  if (ooms > 0) {
    emitter.builder().AddWarning(
        absl::StrCat("memory snapshot: ", ooms, " out-of-memory (oom) events in the trace"));
  }
  xplane::FinalizeOptions finalize;
  finalize.epoch_ns_of_zero = 0;  // Line timestamps are epoch ns (time_us * 1000) or 0.
  emitter.builder().Finalize(finalize);
  return summary;
}

absl::StatusOr<MemorySnapshotSummary> ConvertMemorySnapshotToXSpace(
    const std::string& path, const MemorySnapshotOptions& options, xplane::XSpaceData* space) {
  InputStreamOptions stream_options;
  stream_options.max_inflated_bytes = options.max_inflated_bytes;
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<xplane::XSpaceInput> input,
                          xplane::XSpaceInput::Open(path, stream_options));
  struct stat st;
  // A mapped file refills released pages from the page cache, so strings in
  // the memo stay readable; an inflated or piped one would read zeros.
  const bool mapped = !input->is_gzip() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  pickle::PickleReadOptions read_options;
  if (mapped) {
    read_options.progress = [&input](uint64_t offset) { input->ReleaseBefore(offset); };
  }
  TBPROF_ASSIGN_OR_RETURN(memory_snapshot::Snapshot snapshot,
                          memory_snapshot::ReadMemorySnapshot(input->bytes(), path, read_options));
  input.reset();
  if (snapshot.events.empty() && snapshot.segments.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": the memory snapshot is empty (no trace events and no segments): record with "
              "torch.cuda.memory._record_memory_history() before allocating"));
  }
  MemorySnapshotSummary summary = ConvertSnapshotToXSpace(snapshot, space);
  space->hostnames.clear();
  return summary;
}

}  // namespace tbprof::converters
