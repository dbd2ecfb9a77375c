// Whether the hosts of a run are the ranks of one job: the lines the
// distributed view (and `tbprof report`) gives, one per problem, naming the
// hosts, when ranks cannot simply be put side by side:
//   - two or more hosts name the same rank id;
//   - the hosts disagree on the world size;
//   - the ranks' profiled spans do not overlap in time (clocks that disagree
//     by seconds, or traces of different jobs or runs of a job).
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_RANK_IDENTITY_CHECKS_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_RANK_IDENTITY_CHECKS_H_

#include <string>
#include <vector>

#include "converters/views/distributed/distributed_view.h"

namespace tbprof::views {

// Spans that start more than this after another rank's span ended are
// reported as not overlapping (profilers of one job start within a step).
inline constexpr int64_t kRankSpanGapToleranceNs = 1'000'000'000;

// What CheckRankIdentities() found, one line per problem.
struct RankIdentityLines {
  std::string duplicates;   // Some rank id named by several hosts ("" if none).
  std::string world_sizes;  // The hosts disagree on the world size.
  std::string spans_apart;  // The profiled spans are seconds apart.
};
RankIdentityLines CheckRankIdentityLines(const std::vector<RankInput>& ranks);

// One line per problem found (empty when the ranks look like one job), the
// non-empty lines above in that order. The span check uses only ranks with
// a known time zero and steps.
std::vector<std::string> CheckRankIdentities(const std::vector<RankInput>& ranks);

// True when some rank id is named by two or more hosts.
bool HasDuplicateRankIds(const std::vector<RankInput>& ranks);

// `ranks` with each rank id once: the first host naming an id is kept, the
// later ones dropped (hosts without a rank id are all kept). When some were
// dropped, `*line` receives one line naming, per duplicated id, its hosts
// (and files, where known), whether they hold the same profile, and which
// one counts; else it is cleared.
std::vector<RankInput> DropDuplicateRanks(const std::vector<RankInput>& ranks,
                                          std::string* line);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_RANK_IDENTITY_CHECKS_H_
