// Joining the parts of a split profile (xspace_split.h; `tbprof convert`
// writes them to runs <run>_part1..N) back into the one XSpace they were cut
// from, so that readers (`report`, `inspect`, `diff`) see the whole host.
//
// The parts of one host carry the same planes, line ids and metadata ids, and
// event times on the same time base; each event is in exactly one part. The
// merge keeps the first part's planes and metadata, adds what later parts have
// that it lacks (matched by plane id and name, line id, metadata id), appends
// every later part's events to their lines, and restores each line's order
// (begin, then longest first). The errors and warnings are the first part's,
// less the "part K of N" warning; the Task Environment's profile start and
// stop span all parts.
#ifndef TBPROF_SRC_XPLANE_XSPACE_MERGE_H_
#define TBPROF_SRC_XPLANE_XSPACE_MERGE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::xplane {

// True for the warning XSpaceSplit::ExtractPart() and WritePart() put in each
// part.
bool IsSplitPartWarning(absl::string_view warning);

// Merges `parts` (in part order; at least one) into one space. Errors:
// kInvalidArgument when `parts` is empty, or when a later part's plane
// names an event or stat metadata id that has another name in the first
// part (the files are not parts of one profile).
absl::StatusOr<XSpaceData> MergeXSpaceParts(std::vector<XSpaceData> parts);

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_MERGE_H_
