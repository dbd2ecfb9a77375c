// Cutting one XSpace into several smaller ones of whole steps, for profiles
// that TensorBoard's profile plugin could not open in one piece (xprof needs
// about 30x the xplane.pb size in RAM: docs/tensorboard_limits.md).
//
// A part is a self-contained XSpace: every plane, line name, event and stat
// metadata of the original (so ids and names stay valid), the errors,
// warnings and hostnames, and the events assigned to it:
//   - Step roots (stat `_r` != 0 on a "/host:CPU" line, e.g. PyTorch's
//     ProfilerStep#N; nested roots count once) cut the time axis: the slot of
//     step i runs from its start to the start of step i+1; events before the
//     first step go with it, events after the last step's start with the last.
//   - A host event, or any event without a usable correlation id, belongs to
//     the slot its start time falls in; it keeps its full duration even when
//     it runs past the cut (durations are facts).
//   - An event on another plane (GPU streams, annotations) with a
//     `correlation_id` that a "/host:CPU" event also carries goes with that
//     host event (its launch), so a step's kernels stay with their step even
//     when they run after the next step began.
//   - Consecutive slots are packed into parts of K slots each, K as large as
//     the byte limit allows.
// With fewer than two steps, or when one step alone is over the limit, the
// time axis is cut into equal slices instead (by_steps() is then false).
//
// Event order within a line is kept, so parts stay sorted and nested.
#ifndef TBPROF_SRC_XPLANE_XSPACE_SPLIT_H_
#define TBPROF_SRC_XPLANE_XSPACE_SPLIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/xplane/xspace_data.h"
#include "src/xplane/xspace_wire_writer.h"

namespace tbprof::xplane {

// Size of `space` in XSpace wire format as SerializeXSpaceData would write
// it (computed without serializing; exact up to map-entry framing, within a
// fraction of a percent for real traces).
uint64_t EstimateXSpaceWireBytes(const XSpaceData& space);
// The same from the sizes of its events (ComputeEventWireSizes(space)),
// without visiting a stat.
uint64_t EstimateXSpaceWireBytes(const XSpaceData& space, const EventWireSizes& sizes);

struct SplitPart {
  int64_t num_steps = 0;        // Whole steps in the part (0 when cut by time).
  int64_t first_step_num = -1;  // step_num of its first and last step; -1 if
  int64_t last_step_num = -1;   // unknown or cut by time.
  int64_t num_events = 0;
  // Span of the part's events, in XEventVisitor time (ps from SpaceBaseNs).
  int64_t begin_ps = 0;
  int64_t end_ps = 0;
  // Estimated wire size of the part (EstimateXSpaceWireBytes of it).
  uint64_t estimated_bytes = 0;
};

class XSpaceSplit {
 public:
  // Plans parts of at most `max_part_bytes` each (estimated wire size) where
  // whole steps allow it; a space under the limit gives one part. `space`
  // must outlive the split and stay unmodified. `sizes`, if not null, must be
  // ComputeEventWireSizes(space) (else they are computed, and dropped after
  // planning). Memory: 4 bytes per event plus a map of the host plane's
  // correlation ids.
  static XSpaceSplit Plan(const XSpaceData& space, uint64_t max_part_bytes,
                          const EventWireSizes* sizes = nullptr);

  bool by_steps() const { return by_steps_; }
  size_t num_parts() const { return parts_.size(); }
  const std::vector<SplitPart>& parts() const { return parts_; }
  // Steps per part (the last part may hold fewer); 0 when cut by time.
  int64_t steps_per_part() const { return steps_per_part_; }
  uint64_t total_estimated_bytes() const { return total_bytes_; }

  // Builds part `index` (< num_parts()). Its string pool holds only the
  // strings it uses. A "Task Environment" plane's profile_start_time /
  // profile_stop_time are narrowed to the part's span; one warning says which
  // part of how many this is.
  XSpaceData ExtractPart(size_t index) const;

  // Writes part `index` to `file` straight from the whole space, the bytes
  // of SerializeXSpaceData(ExtractPart(index)) without building the part
  // (memory: the part's plane stats). `sizes`: as for WriteXSpaceWire().
  absl::Status WritePart(size_t index, const EventWireSizes* sizes,
                         AtomicOutputFile* file) const;
  // The same bytes in a string.
  std::string SerializePart(size_t index, const EventWireSizes* sizes) const;

 private:
  explicit XSpaceSplit(const XSpaceData* space) : space_(space) {}
  // Assigns every event to a slot (steps or time slices); false if by steps
  // was asked for and the space has fewer than two steps.
  bool AssignSlots(bool by_steps);
  // Packs slots into parts of at most `limit` event bytes; false if one slot
  // alone is over it.
  bool PackSlots(uint64_t limit);
  void SummarizeParts();
  // Begin of the earliest part (XEventVisitor time).
  int64_t WholeBeginPs() const;
  // The XPlane.stats of plane `p` in part `index` (the Task Environment's
  // profile times narrowed), their wide values appended to `wide`.
  std::vector<Stat> PartPlaneStats(size_t index, size_t p, WideValues* wide) const;
  // The warning that says which part `index` is.
  std::string PartWarning(size_t index) const;
  // Part `index` as a subset of the space (refers to this split).
  XSpaceWireSubset PartSubset(size_t index) const;

  const XSpaceData* space_;
  const EventWireSizes* sizes_ = nullptr;  // While planning.
  bool by_steps_ = false;
  uint64_t total_bytes_ = 0;
  uint64_t fixed_bytes_ = 0;  // Planes, lines and metadata: in every part.
  int64_t steps_per_part_ = 0;
  std::vector<int64_t> step_nums_;                       // Per step slot.
  std::vector<uint64_t> slot_bytes_;                     // Event bytes per slot.
  std::vector<std::vector<std::vector<uint32_t>>> slot_;  // [plane][line][event]
  std::vector<uint32_t> part_of_slot_;
  std::vector<SplitPart> parts_;
};

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_SPLIT_H_
