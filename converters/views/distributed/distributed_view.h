// The distributed view of a run (one host per rank): the ranks' RankComms
// (xspace_to_rank_comms.h) combined into a tbprof.DistributedView
// (proto/distributed.proto).
//
// Collective calls are matched across ranks and each matched call split into
// synchronisation (waiting for the last rank to arrive) and transfer, as
// collective_matching.h says; this needs two or more ranks with collectives
// and a known time zero on each (DistributedView.cross_rank). A rank that
// rarely waits is the one the others wait for: the view names the rank whose
// late arrivals cost the others the most waiting (Straggler.waited_for_*).
//
// Bandwidth per collective row (collective_bandwidth.h): algbw = S / mean
// latency, busbw = algbw * factor(kind, n), n = the call's group size, else
// the world size, else the ranks in the run. For calls not matched (one-rank
// traces), the latency is the call's own duration, which includes waiting:
// the bandwidth is then a lower bound (CollectiveRow.latency_includes_wait).
//
// Step-time spread and straggler: per step number shared by two or more
// ranks, the ranks' step times; over the steps every rank has, each rank's
// average step and RankStep parts. The slowest rank is the one with the
// longest average step; the phase where it loses its time is the part
// (compute, communication, overlap, other) in which it exceeds the median
// of the ranks most.
//
// Never fails: missing metadata, unmatched calls, unknown clocks give
// partial views with counted notes.
#ifndef TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_DISTRIBUTED_VIEW_H_
#define TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_DISTRIBUTED_VIEW_H_

#include <string>
#include <vector>

#include "proto/distributed.pb.h"

namespace tbprof::views {

struct RankInput {
  std::string host;
  const tbprof::RankComms* comms = nullptr;  // Not null.
  // The file the host was read from ("" if unknown), to name it in notes.
  std::string source;
};

// Ranks are identified by RankComms.rank when every host has a distinct one,
// else by their position in `ranks` (with a note). A rank id named by
// several hosts (the same trace read twice, or two traces claiming one rank)
// counts once, as its first host; the others are left out of the view and
// named in one note (DropDuplicateRanks()).
tbprof::DistributedView BuildDistributedView(const std::vector<RankInput>& ranks);

// Clears what BuildDistributedView() never reads from a rank's RankComms
// (each call's kernel_name, collective_name, process_group_desc and
// process_group_ranks, used only while the calls are extracted), so that a
// report over many ranks keeps less per rank. The view built from the
// trimmed RankComms is the same.
void TrimForDistributedView(tbprof::RankComms* comms);

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_DISTRIBUTED_DISTRIBUTED_VIEW_H_
