// Writing XSpaceData in XSpace wire format, without building protobuf
// messages: the whole space (SerializeXSpaceData, WriteXSpaceData in
// xspace_io.h are built on this) or a subset of its events (a part of a
// split, xspace_split.h), byte for byte what serializing the equivalent
// XSpace message (ConvertXSpaceDataToProto) gives, with map entries ordered
// by key.
//
// A length-delimited message must be preceded by its size, so a line's size
// needs the size of each of its events before any of them is written. The
// writer computes each event's size once (EventWireSizes) and reuses it for
// the line's and the event's length prefixes.
#ifndef TBPROF_SRC_XPLANE_XSPACE_WIRE_WRITER_H_
#define TBPROF_SRC_XPLANE_XSPACE_WIRE_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/xplane/xspace_data.h"

namespace tbprof {
class AtomicOutputFile;
}

namespace tbprof::xplane {

// Wire size of every XEvent message of a space, without its tag and length
// prefix: sizes[plane][line][event], 4 bytes per event. An event's size is
// under 4 GiB (it holds at most a few strings of the pool).
using EventWireSizes = std::vector<std::vector<std::vector<uint32_t>>>;

// Sizes of every event of `space` (one pass over its stats).
EventWireSizes ComputeEventWireSizes(const XSpaceData& space);
// Sizes of the events of one plane: [line][event].
std::vector<std::vector<uint32_t>> ComputePlaneEventWireSizes(const XSpaceData& space,
                                                              const Plane& plane);

// Bytes of an event of `event_size` bytes (EventWireSizes) as an entry of
// XLine.events: its size plus the tag and length prefix.
inline uint64_t EventEntryBytes(uint32_t event_size) {
  uint64_t n = 2;  // Tag (field 4) and the first length byte.
  for (uint32_t v = event_size; v >= 0x80; v >>= 7) ++n;
  return n + event_size;
}

// A subset of a space to write in its place. Event i of line l of plane p
// is kept iff (*part_of_group)[(*group)[p][l][i]] == part. A line with
// events of which none is kept is left out; a line with kept events gets
// duration_ps = the largest offset_ps + duration_ps of its kept
// non-aggregate events (0 if none). Metadata, line names and ids, errors and
// hostnames are written as in the space.
struct XSpaceWireSubset {
  const std::vector<std::vector<std::vector<uint32_t>>>* group = nullptr;
  const std::vector<uint32_t>* part_of_group = nullptr;
  uint32_t part = 0;
  // Per plane, the XPlane.stats to write instead of the plane's (same
  // metadata indices); their wide values are in `plane_stats_wide[p]`.
  std::vector<std::vector<Stat>> plane_stats;
  std::vector<WideValues> plane_stats_wide;
  // Appended to the space's warnings.
  std::vector<std::string> extra_warnings;
};

// Writes `space` (or `subset` of it, if not null) to `file`, streamed.
// `sizes`, if not null, must be ComputeEventWireSizes(space); without it
// the sizes are computed plane by plane (4 bytes per event of the largest
// plane, held while that plane is written).
absl::Status WriteXSpaceWire(const XSpaceData& space, const EventWireSizes* sizes,
                             const XSpaceWireSubset* subset, AtomicOutputFile* file);
// The same bytes in a string.
std::string SerializeXSpaceWire(const XSpaceData& space, const EventWireSizes* sizes,
                                const XSpaceWireSubset* subset);

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_WIRE_WRITER_H_
