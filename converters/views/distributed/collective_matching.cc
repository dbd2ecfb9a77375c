#include "converters/views/distributed/collective_matching.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/string_view.h"

namespace tbprof::views {
namespace {

bool SizeMustAgree(absl::string_view kind) {
  return kind == "all_reduce" || kind == "all_gather" || kind == "reduce_scatter" ||
         kind == "broadcast" || kind == "reduce";
}

// (group, by sequence number, position a, position b) -> (rank, call) pairs.
using Positions =
    std::map<std::tuple<std::string, bool, int64_t, int64_t>, std::vector<std::pair<int, int>>>;

Positions PositionCalls(const std::vector<const tbprof::RankComms*>& ranks) {
  bool use_steps = true;
  for (const tbprof::RankComms* r : ranks) use_steps &= !r->steps_from_profile_span();
  std::map<std::string, bool> group_has_seq;
  for (const tbprof::RankComms* r : ranks) {
    for (const tbprof::CollectiveCall& c : r->collectives()) {
      auto [it, inserted] = group_has_seq.emplace(c.process_group(), true);
      it->second &= c.seq() >= 0;
    }
  }
  Positions positions;
  for (size_t ri = 0; ri < ranks.size(); ++ri) {
    std::map<std::pair<std::string, int64_t>, int64_t> next;  // (group, a) -> next b.
    const auto& calls = ranks[ri]->collectives();
    for (int ci = 0; ci < calls.size(); ++ci) {
      const tbprof::CollectiveCall& c = calls[ci];
      const bool by_seq = group_has_seq[c.process_group()];
      if (!by_seq && use_steps && c.step_num() < 0) continue;
      const int64_t a = by_seq ? c.seq() : c.step_num();
      const int64_t b = next[{c.process_group(), a}]++;
      positions[{c.process_group(), by_seq, a, b}].push_back({static_cast<int>(ri), ci});
    }
  }
  return positions;
}

}  // namespace

CollectiveMatching MatchCollectives(const std::vector<const tbprof::RankComms*>& ranks) {
  CollectiveMatching m;
  m.last_arrivals.assign(ranks.size(), 0);
  m.others_waited_ps.assign(ranks.size(), 0);
  for (const tbprof::RankComms* r : ranks) m.calls.emplace_back(r->collectives_size());
  int64_t min_zero_ns = INT64_MAX;
  for (const tbprof::RankComms* r : ranks) min_zero_ns = std::min(min_zero_ns, r->time_zero_ns());
  auto start_of = [&](int ri, const tbprof::CollectiveCall& c) {
    return (ranks[ri]->time_zero_ns() - min_zero_ns) * 1000 + c.begin_ps();
  };
  for (const auto& [key, members] : PositionCalls(ranks)) {
    if (members.size() < 2) continue;
    std::set<std::string> kinds;
    std::set<int64_t> sizes;
    for (const auto& [ri, ci] : members) {
      const tbprof::CollectiveCall& c = ranks[ri]->collectives(ci);
      if (c.kind() != "unknown") kinds.insert(c.kind());
      if (c.message_bytes() > 0) sizes.insert(c.message_bytes());
    }
    if (kinds.size() > 1 ||
        (kinds.size() == 1 && SizeMustAgree(*kinds.begin()) && sizes.size() > 1)) {
      ++m.invalid_instances;
      continue;
    }
    int64_t max_start = INT64_MIN, min_end = INT64_MAX, latency = INT64_MAX;
    for (const auto& [ri, ci] : members) {
      const tbprof::CollectiveCall& c = ranks[ri]->collectives(ci);
      max_start = std::max(max_start, start_of(ri, c));
      min_end = std::min(min_end, start_of(ri, c) + c.duration_ps());
      latency = std::min(latency, c.duration_ps());
    }
    if (min_end < max_start) {
      ++m.skewed_instances;
      m.max_skew_ps = std::max(m.max_skew_ps, max_start - min_end);
    }
    const int64_t instance = m.instances++;
    int last = -1;
    int64_t waited = 0;
    for (const auto& [ri, ci] : members) {
      const tbprof::CollectiveCall& c = ranks[ri]->collectives(ci);
      CallMatch& match = m.calls[ri][ci];
      match.instance = instance;
      match.sync_ps = std::clamp<int64_t>(max_start - start_of(ri, c), 0, c.duration_ps());
      match.transfer_ps = c.duration_ps() - match.sync_ps;
      match.latency_ps = latency;
      waited += match.sync_ps;
      if (last < 0 && start_of(ri, c) == max_start) last = ri;
    }
    ++m.last_arrivals[last];
    m.others_waited_ps[last] += waited;  // Its own sync is 0.
  }
  return m;
}

}  // namespace tbprof::views
