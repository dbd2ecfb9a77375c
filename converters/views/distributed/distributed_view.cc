#include "converters/views/distributed/distributed_view.h"
#include "converters/views/distributed/rank_identity_checks.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "converters/views/distributed/collective_bandwidth.h"
#include "converters/views/distributed/collective_matching.h"

namespace tbprof::views {
namespace {

using tbprof::CollectiveCall;
using tbprof::DistributedView;
using tbprof::RankComms;
using tbprof::RankStep;

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

struct Rank {
  std::string host;
  int64_t id = 0;
  const RankComms* comms = nullptr;
  std::vector<CallMatch> matches;  // Parallel to comms->collectives().
  int64_t last_arrivals = 0;
  int64_t others_waited_ps = 0;
};

// Per-rank step averages over `steps` (all of the rank's when empty).
struct StepAverages {
  int64_t steps = 0, step = 0, compute = 0, comm = 0, overlap = 0, other = 0, sync = 0;
};

StepAverages AverageSteps(const Rank& r, const std::set<int64_t>& only) {
  StepAverages a;
  std::set<int64_t> used;
  for (const RankStep& s : r.comms->steps()) {
    if (!only.empty() && !only.count(s.step_num())) continue;
    ++a.steps;
    used.insert(s.step_num());
    a.step += s.duration_ps();
    a.compute += s.compute_ps();
    a.comm += s.communication_ps();
    a.overlap += s.overlap_ps();
    a.other += s.other_ps();
  }
  const auto& calls = r.comms->collectives();
  for (int i = 0; i < calls.size(); ++i) {
    if (used.count(calls[i].step_num())) a.sync += r.matches[i].sync_ps;
  }
  if (a.steps > 0) {
    for (int64_t* v : {&a.step, &a.compute, &a.comm, &a.overlap, &a.other, &a.sync}) *v /= a.steps;
  }
  return a;
}

void AddStepSpread(const std::vector<Rank>& ranks, DistributedView* out) {
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> by_step;  // step -> (time, rank).
  for (const Rank& r : ranks) {
    for (const RankStep& s : r.comms->steps()) {
      by_step[s.step_num()].push_back({s.duration_ps(), r.id});
    }
  }
  for (auto& [step, times] : by_step) {
    if (times.size() < 2) continue;
    std::sort(times.begin(), times.end());
    tbprof::StepSpread* spread = out->add_step_spread();
    spread->set_step_num(step);
    spread->set_ranks(static_cast<int64_t>(times.size()));
    spread->set_min_ps(times.front().first);
    spread->set_max_ps(times.back().first);
    std::vector<int64_t> values;
    for (const auto& t : times) values.push_back(t.first);
    spread->set_median_ps(Median(values));
    spread->set_fastest_rank(times.front().second);
    spread->set_slowest_rank(times.back().second);
  }
}

void AddStraggler(const std::vector<Rank>& ranks, DistributedView* out) {
  std::vector<const Rank*> with_steps;
  for (const Rank& r : ranks) {
    if (r.comms->steps_size() > 0) with_steps.push_back(&r);
  }
  if (with_steps.size() < 2) return;
  std::set<int64_t> common;  // Step numbers every rank has.
  for (const RankStep& s : with_steps.front()->comms->steps()) common.insert(s.step_num());
  for (const Rank* r : with_steps) {
    std::set<int64_t> mine;
    for (const RankStep& s : r->comms->steps()) {
      if (common.count(s.step_num())) mine.insert(s.step_num());
    }
    common = mine;
  }
  std::vector<StepAverages> avg;
  for (const Rank* r : with_steps) avg.push_back(AverageSteps(*r, common));
  size_t slowest = 0, fastest = 0;
  for (size_t i = 1; i < avg.size(); ++i) {
    if (avg[i].step > avg[slowest].step) slowest = i;
    if (avg[i].step < avg[fastest].step) fastest = i;
  }
  auto median_of = [&](int64_t StepAverages::*field) {
    std::vector<int64_t> v;
    for (const StepAverages& a : avg) v.push_back(a.*field);
    return Median(v);
  };
  tbprof::Straggler* s = out->mutable_straggler();
  s->set_slowest_rank(with_steps[slowest]->id);
  s->set_slowest_host(with_steps[slowest]->host);
  s->set_slowest_avg_step_ps(avg[slowest].step);
  s->set_fastest_rank(with_steps[fastest]->id);
  s->set_fastest_avg_step_ps(avg[fastest].step);
  s->set_common_steps(static_cast<int64_t>(common.size()));
  s->set_whole_profile(common.size() == 1 && *common.begin() == -1);
  s->set_median_avg_step_ps(median_of(&StepAverages::step));
  if (s->median_avg_step_ps() > 0) {
    s->set_spread_percent(100.0 * static_cast<double>(avg[slowest].step - avg[fastest].step) /
                          static_cast<double>(s->median_avg_step_ps()));
  }
  const std::pair<const char*, int64_t StepAverages::*> phases[] = {
      {"compute", &StepAverages::compute},
      {"communication", &StepAverages::comm},
      {"overlap", &StepAverages::overlap},
      {"other", &StepAverages::other}};
  int64_t best = 0;
  for (const auto& [name, field] : phases) {
    const int64_t excess = avg[slowest].*field - median_of(field);
    if (excess > best) {
      best = excess;
      s->set_phase(name);
      s->set_phase_excess_ps(excess);
    }
  }
  s->set_slowest_sync_per_step_ps(avg[slowest].sync);
  int64_t max_sync = 0;
  for (const StepAverages& a : avg) max_sync = std::max(max_sync, a.sync);
  s->set_max_sync_per_step_ps(max_sync);
}

// Rows of the collective table.
void AddCollectiveRows(const std::vector<Rank>& ranks, int64_t default_group_size,
                       DistributedView* out) {
  struct Row {
    tbprof::CollectiveRow row;
    absl::flat_hash_set<int64_t> instances;
    int64_t latency_sum = 0, sync_sum = 0, transfer_sum = 0;
    int weakest = tbprof::COLLECTIVE_METADATA_PARAM_COMMS;
  };
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, std::string>, Row> rows;
  int64_t lone = -1;  // Instance ids of unmatched calls: -1, -2, ...
  for (const Rank& r : ranks) {
    const auto& calls = r.comms->collectives();
    for (int i = 0; i < calls.size(); ++i) {
      const CollectiveCall& c = calls[i];
      const CallMatch& m = r.matches[i];
      const int64_t n = c.group_size() > 0 ? c.group_size() : default_group_size;
      Row& row = rows[{c.kind(), c.dtype(), c.message_bytes(), n, c.process_group()}];
      row.row.set_calls(row.row.calls() + 1);
      row.row.set_total_ps(row.row.total_ps() + c.duration_ps());
      row.weakest = std::min<int>(row.weakest, c.metadata());
      const int64_t instance = m.instance >= 0 ? m.instance : lone--;
      if (row.instances.insert(instance).second) {
        row.latency_sum += m.instance >= 0 ? m.latency_ps : c.duration_ps();
      }
      if (m.instance >= 0) {
        row.row.set_matched_calls(row.row.matched_calls() + 1);
        row.sync_sum += m.sync_ps;
        row.transfer_sum += m.transfer_ps;
      } else {
        row.row.set_latency_includes_wait(true);
      }
    }
  }
  for (auto& [key, row] : rows) {
    tbprof::CollectiveRow& out_row = row.row;
    const auto& [kind, dtype, bytes, n, group] = key;
    out_row.set_kind(kind);
    out_row.set_dtype(dtype);
    out_row.set_message_bytes(bytes);
    out_row.set_group_size(n);
    out_row.set_process_group(group);
    out_row.set_count(static_cast<int64_t>(row.instances.size()));
    out_row.set_avg_latency_ps(row.latency_sum / std::max<int64_t>(1, out_row.count()));
    if (out_row.matched_calls() > 0) {
      out_row.set_avg_sync_ps(row.sync_sum / out_row.matched_calls());
      out_row.set_avg_transfer_ps(row.transfer_sum / out_row.matched_calls());
    }
    const CollectiveKind k = CollectiveKindFromName(kind);
    out_row.set_algbw_gbps(AlgorithmBandwidthGBps(bytes, out_row.avg_latency_ps()));
    out_row.set_busbw_gbps(BusBandwidthGBps(k, n, bytes, out_row.avg_latency_ps()));
    out_row.set_metadata(row.weakest == tbprof::COLLECTIVE_METADATA_PARAM_COMMS ? "param_comms"
                         : row.weakest == tbprof::COLLECTIVE_METADATA_OP_SHAPES ? "op_shapes"
                                                                                 : "none");
    *out->add_collectives() = std::move(out_row);
  }
  std::sort(out->mutable_collectives()->begin(), out->mutable_collectives()->end(),
            [](const tbprof::CollectiveRow& a, const tbprof::CollectiveRow& b) {
              return a.total_ps() > b.total_ps();
            });
}

void AddRankSummaries(const std::vector<Rank>& ranks, DistributedView* out) {
  for (const Rank& r : ranks) {
    tbprof::RankSummary* s = out->add_ranks();
    s->set_host(r.host);
    s->set_rank(r.id);
    const StepAverages a = AverageSteps(r, {});
    s->set_steps(a.steps);
    s->set_avg_step_ps(a.step);
    s->set_avg_compute_ps(a.compute);
    s->set_avg_communication_ps(a.comm);
    s->set_avg_overlap_ps(a.overlap);
    s->set_avg_other_ps(a.other);
    const auto& calls = r.comms->collectives();
    for (int i = 0; i < calls.size(); ++i) {
      s->set_collective_calls(s->collective_calls() + 1);
      s->set_collective_ps(s->collective_ps() + calls[i].duration_ps());
      if (r.matches[i].instance < 0) continue;
      s->set_matched_calls(s->matched_calls() + 1);
      s->set_matched_ps(s->matched_ps() + calls[i].duration_ps());
      s->set_sync_ps(s->sync_ps() + r.matches[i].sync_ps);
      s->set_transfer_ps(s->transfer_ps() + r.matches[i].transfer_ps);
    }
    s->set_last_arrivals(r.last_arrivals);
    s->set_others_waited_ps(r.others_waited_ps);
    if (s->matched_ps() > 0) {
      s->set_sync_percent(100.0 * static_cast<double>(s->sync_ps()) /
                          static_cast<double>(s->matched_ps()));
    }
    for (const CollectiveCall& c : calls) {
      out->set_collective_calls(out->collective_calls() + 1);
      if (c.metadata() == tbprof::COLLECTIVE_METADATA_PARAM_COMMS) {
        out->set_calls_with_param_comms(out->calls_with_param_comms() + 1);
      } else if (c.metadata() == tbprof::COLLECTIVE_METADATA_OP_SHAPES) {
        out->set_calls_with_op_shapes(out->calls_with_op_shapes() + 1);
      } else {
        out->set_calls_without_metadata(out->calls_without_metadata() + 1);
      }
    }
  }
}

void AddWaitedFor(DistributedView* out) {
  const tbprof::RankSummary* most = nullptr;
  for (const tbprof::RankSummary& r : out->ranks()) {
    if (r.last_arrivals() == 0) continue;
    if (most == nullptr || r.others_waited_ps() > most->others_waited_ps() ||
        (r.others_waited_ps() == most->others_waited_ps() &&
         r.sync_percent() < most->sync_percent())) {
      most = &r;
    }
  }
  if (most == nullptr) return;
  tbprof::Straggler* s = out->mutable_straggler();
  s->set_waited_for_rank(most->rank());
  s->set_waited_for_host(most->host());
  s->set_waited_for_sync_percent(most->sync_percent());
  s->set_waited_for_ps(most->others_waited_ps());
  s->set_waited_for_last_arrivals(most->last_arrivals());
}

void AddNotes(const CollectiveMatching& m, DistributedView* out) {
  const int64_t total = out->collective_calls();
  if (out->calls_without_metadata() > 0) {
    out->add_notes(absl::StrCat(
        out->calls_without_metadata(), " of ", total,
        " collective calls have no size metadata (no record_param_comms args, no recorded "
        "input shape): their time is counted, their bandwidth is not shown"));
  }
  if (out->calls_with_op_shapes() > 0) {
    out->add_notes(absl::StrCat(
        out->calls_with_op_shapes(), " of ", total,
        " collective calls take their size from the launching op's input shape "
        "(record_param_comms has no args in this PyTorch version); their process group is "
        "unknown, so they are matched across ranks by order"));
  }
  if (out->cross_rank() && out->unmatched_calls() > 0) {
    out->add_notes(absl::StrCat(
        out->unmatched_calls(), " of ", total,
        " collective calls are not matched with other ranks (outside the analysed steps, on "
        "one rank only, or a different kind or size at the same position",
        m.invalid_instances > 0 ? absl::StrCat("; ", m.invalid_instances, " positions disagreed")
                                : "",
        "): no sync/transfer split for them"));
  }
  if (m.skewed_instances > 0) {
    out->add_notes(absl::StrFormat(
        "%d of %d matched collectives end on some rank before they start on another: the "
        "ranks' clocks disagree by up to %.1f us, so sync times are approximate",
        m.skewed_instances, m.instances, static_cast<double>(m.max_skew_ps) / 1e6));
  }
}

}  // namespace

DistributedView BuildDistributedView(const std::vector<RankInput>& all_inputs) {
  DistributedView out;
  // A rank id named twice counts once (rank_identity_checks.h).
  std::string duplicate_line;
  const std::vector<RankInput> inputs = DropDuplicateRanks(all_inputs, &duplicate_line);
  std::vector<Rank> ranks;
  std::set<int64_t> ids;
  bool ids_distinct = true;
  int64_t world_size = 0;
  for (const RankInput& in : inputs) {
    world_size = std::max(world_size, in.comms->world_size());
    if (out.backend().empty()) out.set_backend(in.comms->backend());
    ids_distinct &= in.comms->rank() >= 0 && ids.insert(in.comms->rank()).second;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const RankComms& comms = *inputs[i].comms;
    if (comms.collectives_size() == 0) continue;
    Rank& r = ranks.emplace_back();
    r.host = inputs[i].host;
    r.id = ids_distinct ? comms.rank() : static_cast<int64_t>(i);
    r.comms = &comms;
    r.matches.resize(comms.collectives_size());
  }
  std::sort(ranks.begin(), ranks.end(), [](const Rank& a, const Rank& b) { return a.id < b.id; });
  out.set_ranks_in_run(static_cast<int64_t>(inputs.size()));
  out.set_world_size(std::max<int64_t>(world_size, out.ranks_in_run()));
  if (ranks.empty()) {
    out.set_no_data_reason(
        inputs.size() <= 1 && world_size <= 1
            ? "one rank, no collective (NCCL/RCCL) kernels: not a distributed job"
            : "no collective (NCCL/RCCL) kernels in this run");
    return out;
  }
  if (ranks.size() < inputs.size()) {
    out.add_notes(absl::StrCat(inputs.size() - ranks.size(), " of ", inputs.size(),
                               " hosts have no collective kernels and are left out"));
  }
  // Duplicate rank ids, disagreeing world sizes, spans apart in time.
  // World sizes and spans over every host read: a second job's ranks are
  // dropped as duplicates, but still tell that there were two jobs.
  const RankIdentityLines identity = CheckRankIdentityLines(all_inputs);
  const std::string* lines[] = {&duplicate_line, &identity.world_sizes, &identity.spans_apart};
  for (const std::string* line : lines) {
    if (!line->empty()) out.add_notes(*line);
  }
  if (!ids_distinct && inputs.size() > 1 && !HasDuplicateRankIds(inputs)) {
    out.add_notes("the traces do not all name a distinct rank (distributedInfo): ranks are "
                  "numbered by their order in the run");
  }

  CollectiveMatching matching;
  if (ranks.size() < 2) {
    out.set_cross_rank_reason(
        inputs.size() == 1 && out.world_size() > 1
            ? absl::StrCat("1 of ", out.world_size(), " ranks in this run: waiting and step "
                           "spread across ranks need the traces of every rank")
            : "only one rank has collectives: nothing to compare across ranks");
  } else {
    const Rank* no_clock = nullptr;
    for (const Rank& r : ranks) {
      if (!r.comms->time_zero_known()) no_clock = &r;
    }
    if (no_clock != nullptr) {
      out.set_cross_rank_reason(absl::StrCat(no_clock->host,
                                             " has no absolute time: ranks cannot be aligned"));
    } else {
      std::vector<const RankComms*> comms;
      for (const Rank& r : ranks) comms.push_back(r.comms);
      matching = MatchCollectives(comms);
      for (size_t i = 0; i < ranks.size(); ++i) {
        ranks[i].matches = std::move(matching.calls[i]);
        ranks[i].last_arrivals = matching.last_arrivals[i];
        ranks[i].others_waited_ps = matching.others_waited_ps[i];
      }
      out.set_cross_rank(true);
    }
  }
  AddRankSummaries(ranks, &out);
  out.set_matched_instances(matching.instances);
  int64_t matched_calls = 0;
  for (const tbprof::RankSummary& r : out.ranks()) matched_calls += r.matched_calls();
  out.set_unmatched_calls(out.collective_calls() - matched_calls);
  if (ranks.size() >= 2) {
    AddStepSpread(ranks, &out);
    AddStraggler(ranks, &out);
  }
  if (out.cross_rank()) AddWaitedFor(&out);
  AddCollectiveRows(ranks, out.world_size() > 1 ? out.world_size() : 0, &out);
  // Clocks seconds apart are named once, by the span line.
  if (!identity.spans_apart.empty()) matching.skewed_instances = 0;
  AddNotes(matching, &out);
  // With disagreeing world sizes the world-size line says it.
  if (static_cast<int64_t>(inputs.size()) < out.world_size() && inputs.size() > 1 &&
      identity.world_sizes.empty()) {
    out.add_notes(absl::StrCat("the run has ", inputs.size(), " of ", out.world_size(),
                               " ranks: figures across ranks cover those only"));
  }
  return out;
}

void TrimForDistributedView(RankComms* comms) {
  for (CollectiveCall& call : *comms->mutable_collectives()) {
    call.clear_kernel_name();
    call.clear_collective_name();
    call.clear_process_group_desc();
    call.clear_process_group_ranks();
  }
}

}  // namespace tbprof::views
