// Conversions between XSpaceData and the XSpace protobuf / wire format.
//
// All conversions are lossless: XSpace -> XSpaceData -> XSpace reproduces
// the message field for field (map entries come out ordered by key).
#ifndef TBPROF_SRC_XPLANE_XSPACE_IO_H_
#define TBPROF_SRC_XPLANE_XSPACE_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/xplane.pb.h"
#include "src/xplane/xspace_data.h"

namespace tbprof {
class AtomicOutputFile;
}

namespace tbprof::xplane {

// Copies a protobuf XSpace into `out` (which must be empty). ParseXSpaceData
// gives the same result from the wire bytes without building the message.
// A plane must hold at most Event::kMaxEventMetadata event metadata, implicit
// ones included (no message that large fits in memory; ParseXSpaceData
// rejects such files).
void ConvertXSpaceProtoToData(const tensorflow::profiler::XSpace& proto, XSpaceData* out);

// Builds the protobuf form (for tests and small spaces; large spaces should
// use SerializeXSpaceData, which builds no messages).
void ConvertXSpaceDataToProto(const XSpaceData& data, tensorflow::profiler::XSpace* out);

// Serializes `data` in XSpace wire format, byte-identical to serializing
// ConvertXSpaceDataToProto(data) with deterministic map order.
std::string SerializeXSpaceData(const XSpaceData& data);
// Streams the same bytes into `file` without holding them all in memory.
absl::Status WriteXSpaceData(const XSpaceData& data, AtomicOutputFile* file);

// Parses XSpace wire bytes straight into XSpaceData (no protobuf messages;
// see xspace_wire_reader.h, which also reads files with bounded memory).
// The result equals ConvertXSpaceProtoToData of the parsed message. `source`
// names the input in errors (kDataLoss: "<source>: not a valid XSpace
// protobuf: <what> at byte <offset> (<plane, line, event>)").
absl::StatusOr<XSpaceData> ParseXSpaceData(absl::string_view bytes, absl::string_view source);

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_IO_H_
