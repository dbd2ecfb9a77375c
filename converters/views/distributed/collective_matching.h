// Matching the collective calls of several ranks, and splitting each matched
// call into waiting for the other ranks and moving data (the pod viewer's
// synchronisation / transfer split). Part of the distributed view
// (distributed_view.h).
//
// Matching. A collective is one call per participating rank. Calls are
// matched by process group (record_param_comms' name, "" when unknown) and
// position: by the group's sequence number (`Seq`) when every call of the
// group on every rank has one, else by order within the step (the k-th call
// of the group in step N on each rank; calls outside the analysed steps are
// then not matched, since the ranks' profiles may not cover the same
// iterations; when no rank has steps, by order in the profile). A match needs
// two or more ranks, one known kind, and, for all_reduce, all_gather,
// reduce_scatter, broadcast and reduce, one message size (all_to_all may
// differ per rank); otherwise its calls stay unmatched.
//
// Split. For a matched collective with calls i, start s_i and duration d_i on
// a common clock (each rank's RankComms.time_zero_ns):
//   sync_i     = min(d_i, max(0, max_j s_j - s_i))   waiting for the last rank
//   transfer_i = d_i - sync_i                        moving data once all are in
//   latency    = min_i d_i                           the collective itself
// so sync_i + transfer_i = d_i. The rank arriving last (the first with
// s_i = max_j s_j) waits nothing; the others' sync is time spent waiting for
// it. If the call ends on some rank before it starts on another (no
// collective can), the clocks disagree: counted as skewed.
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_MATCHING_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_MATCHING_H_

#include <cstdint>
#include <vector>

#include "proto/distributed.pb.h"

namespace tbprof::views {

// One call's match.
struct CallMatch {
  int64_t instance = -1;  // Matched collective, 0, 1, ...; -1 = unmatched.
  int64_t sync_ps = 0;
  int64_t transfer_ps = 0;
  int64_t latency_ps = 0;  // The instance's latency (0 when unmatched).
};

struct CollectiveMatching {
  // calls[r][i]: ranks[r]->collectives(i).
  std::vector<std::vector<CallMatch>> calls;
  // Per rank: matched collectives it reached last, and the sum of the other
  // ranks' sync in them.
  std::vector<int64_t> last_arrivals;
  std::vector<int64_t> others_waited_ps;
  int64_t instances = 0;
  int64_t invalid_instances = 0;  // Positions whose calls disagree in kind or size.
  int64_t skewed_instances = 0;
  int64_t max_skew_ps = 0;  // The largest (max start - min end) among them.
};

// `ranks` must not be null and should all have time_zero_known (else their
// times are compared as if they had).
CollectiveMatching MatchCollectives(const std::vector<const tbprof::RankComms*>& ranks);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_COLLECTIVE_MATCHING_H_
