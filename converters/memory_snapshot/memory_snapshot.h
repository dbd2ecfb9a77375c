// The data of a PyTorch CUDA memory snapshot (`torch.cuda.memory.
// _dump_snapshot()`, a pickle of plain dicts and lists), read into compact
// records: interned strings, frames and stacks; trace events per device;
// segments with their blocks at dump time.
//
// Structure read (torch/cuda/memory.py, torch/cuda/_memory_viz.py): a dict
// with "segments" (dicts with device, address, total_size, stream,
// segment_type, frames, and "blocks": dicts with size, requested_size,
// state, frames or history; a block's address is its segment's address
// plus the sizes of the blocks before it unless it has "address"),
// "device_traces" (one list per device of dicts with action, addr, size,
// stream, time_us, frames), "allocator_settings" and
// "external_annotations" (ignored). Frames are dicts with filename, line,
// name, innermost first. A bare list of segments (torch.cuda.
// memory_snapshot()) is accepted too. Dicts are recognized by their keys,
// so unknown extra keys and extra top-level entries do no harm.
#ifndef TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_H_
#define TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/memory_snapshot/pickle_reader.h"

namespace tbprof::converters::memory_snapshot {

enum class Action : uint8_t {
  kAlloc,
  kFreeRequested,
  kFreeCompleted,
  kSegmentAlloc,
  kSegmentFree,
  kSegmentMap,
  kSegmentUnmap,
  kSnapshot,
  kOom,
  kOther,  // Unknown action, or an event without the fields its action needs.
};
absl::string_view ActionName(Action action);

// String ids index Snapshot::strings; 0 is "".
struct Frame {
  uint32_t filename = 0;
  uint32_t name = 0;
  int64_t line = 0;
};

struct TraceEvent {
  uint64_t addr = 0;
  int64_t size = 0;
  int64_t stream = 0;
  int64_t time_us = 0;
  uint32_t stack = 0;  // Index into Snapshot::stacks; 0 is the empty stack.
  Action action = Action::kOther;
  bool has_time = false;
};

enum class BlockState : uint8_t { kActiveAllocated, kActivePendingFree, kInactive, kUnknown };

struct Block {
  uint64_t addr = 0;
  int64_t size = 0;
  int64_t requested_size = 0;
  uint32_t stack = 0;
  BlockState state = BlockState::kUnknown;
  // Live in the allocator (allocated, or freed but waiting on a stream).
  bool active() const {
    return state == BlockState::kActiveAllocated || state == BlockState::kActivePendingFree;
  }
};

struct Segment {
  int64_t device = 0;
  uint64_t address = 0;
  int64_t total_size = 0;
  int64_t stream = 0;
  uint32_t segment_type = 0;  // String id ("large", "small").
  uint32_t stack = 0;
  std::vector<Block> blocks;
};

struct Snapshot {
  std::vector<std::string> strings{""};
  std::vector<Frame> frames;
  std::vector<std::vector<uint32_t>> stacks{{}};  // Frame indices, innermost first.
  std::vector<Segment> segments;
  // All trace events, in file order; device_traces[d] lists the indices of
  // device d's events in its trace order.
  std::vector<TraceEvent> events;
  std::vector<std::vector<uint32_t>> device_traces;
  bool has_device_traces = false;  // False for a bare list of segments.
  int64_t malformed_events = 0;    // Events without the fields their action needs.
  int64_t unknown_actions = 0;
};

// Reads snapshot `bytes` (the whole pickle). Errors: those of ReadPickle,
// and kInvalidArgument when the pickle is plain data but not a memory
// snapshot; all name `source`.
absl::StatusOr<Snapshot> ReadMemorySnapshot(absl::string_view bytes, absl::string_view source,
                                            const pickle::PickleReadOptions& options = {});

}  // namespace tbprof::converters::memory_snapshot

#endif  // TBPROF_CONVERTERS_MEMORY_SNAPSHOT_MEMORY_SNAPSHOT_H_
