#include "converters/views/distributed/rank_identity_checks.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/message_differencer.h"

namespace tbprof::views {
namespace {

// "a, b, c" or "a, b, c and N more" for long lists.
std::string NameHosts(const std::vector<std::string>& hosts) {
  constexpr size_t kShown = 4;
  if (hosts.size() <= kShown) return absl::StrJoin(hosts, ", ");
  std::vector<std::string> shown(hosts.begin(), hosts.begin() + kShown);
  return absl::StrCat(absl::StrJoin(shown, ", "), " and ", hosts.size() - kShown, " more");
}

}  // namespace

bool HasDuplicateRankIds(const std::vector<RankInput>& ranks) {
  std::map<int64_t, int> count;
  for (const RankInput& r : ranks) {
    if (r.comms->rank() >= 0 && ++count[r.comms->rank()] > 1) return true;
  }
  return false;
}

std::vector<RankInput> DropDuplicateRanks(const std::vector<RankInput>& ranks,
                                          std::string* line) {
  line->clear();
  std::map<int64_t, std::vector<const RankInput*>> hosts_of_rank;
  std::vector<RankInput> kept;
  for (const RankInput& r : ranks) {
    if (r.comms->rank() >= 0) {
      std::vector<const RankInput*>& hosts = hosts_of_rank[r.comms->rank()];
      hosts.push_back(&r);
      if (hosts.size() > 1) continue;
    }
    kept.push_back(r);
  }
  std::vector<std::string> duplicates;
  size_t dropped = 0;
  for (const auto& [rank, hosts] : hosts_of_rank) {
    if (hosts.size() < 2) continue;
    dropped += hosts.size() - 1;
    std::vector<std::string> names;
    bool same = true;
    for (const RankInput* r : hosts) {
      names.push_back(r->source.empty() ? r->host : absl::StrCat(r->host, " (", r->source, ")"));
      same &= google::protobuf::util::MessageDifferencer::Equals(*r->comms, *hosts[0]->comms);
    }
    duplicates.push_back(absl::StrCat("rank ", rank, " in ", NameHosts(names), same ? ", the same profile" : ", different profiles", "; counted as ", hosts[0]->host));
  }
  if (!duplicates.empty()) {
    constexpr size_t kShown = 4;
    std::string listed = absl::StrJoin(duplicates.begin(),
                                       duplicates.begin() + std::min(kShown, duplicates.size()),
                                       "; ");
    if (duplicates.size() > kShown) {
      absl::StrAppend(&listed, "; and ", duplicates.size() - kShown, " more rank ids");
    }
    *line = absl::StrCat("duplicate rank ids: ", listed,
                         ". Each rank counts once: ", dropped,
                         dropped == 1 ? " host is" : " hosts are",
                         " left out of the distributed view (a rank read twice, or ranks of "
                         "different jobs in one run)");
  }
  return kept;
}

std::vector<std::string> CheckRankIdentities(const std::vector<RankInput>& ranks) {
  RankIdentityLines found = CheckRankIdentityLines(ranks);
  std::vector<std::string> lines;
  for (std::string* line : {&found.duplicates, &found.world_sizes, &found.spans_apart}) {
    if (!line->empty()) lines.push_back(std::move(*line));
  }
  return lines;
}

RankIdentityLines CheckRankIdentityLines(const std::vector<RankInput>& ranks) {
  RankIdentityLines lines;
  // Duplicate rank ids, one line for all of them.
  std::map<int64_t, std::vector<std::string>> hosts_of_rank;
  for (const RankInput& r : ranks) {
    if (r.comms->rank() >= 0) hosts_of_rank[r.comms->rank()].push_back(r.host);
  }
  std::vector<std::string> duplicates;
  for (const auto& [rank, hosts] : hosts_of_rank) {
    if (hosts.size() > 1) {
      duplicates.push_back(absl::StrCat("rank ", rank, " (", NameHosts(hosts), ")"));
    }
  }
  if (!duplicates.empty()) {
    lines.duplicates = (absl::StrCat(
        "duplicate rank ids: ", NameHosts(duplicates),
        "; a rank converted twice, or ranks of different jobs in one run: ranks are numbered by "
        "their order in the run"));
  }
  // World sizes.
  std::map<int64_t, std::vector<std::string>> hosts_of_world;
  for (const RankInput& r : ranks) {
    if (r.comms->world_size() > 0) hosts_of_world[r.comms->world_size()].push_back(r.host);
  }
  if (hosts_of_world.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [world, hosts] : hosts_of_world) {
      parts.push_back(absl::StrCat("world size ", world, ": ", NameHosts(hosts)));
    }
    lines.world_sizes = (absl::StrCat("the ranks disagree on the world size (",
                                 absl::StrJoin(parts, "; "),
                                 "): ranks of different jobs in one run; bandwidth uses the "
                                 "largest"));
  }
  // Profiled spans in absolute time.
  const RankInput* latest_start = nullptr;
  const RankInput* earliest_end = nullptr;
  int64_t latest_start_ns = 0, earliest_end_ns = 0;
  for (const RankInput& r : ranks) {
    const RankComms& c = *r.comms;
    if (!c.time_zero_known() || c.steps_size() == 0) continue;
    int64_t begin_ps = c.steps(0).begin_ps(), end_ps = begin_ps;
    for (const RankStep& s : c.steps()) {
      begin_ps = std::min(begin_ps, s.begin_ps());
      end_ps = std::max(end_ps, s.begin_ps() + s.duration_ps());
    }
    const int64_t begin_ns = c.time_zero_ns() + begin_ps / 1000;
    const int64_t end_ns = c.time_zero_ns() + end_ps / 1000;
    if (latest_start == nullptr || begin_ns > latest_start_ns) {
      latest_start = &r;
      latest_start_ns = begin_ns;
    }
    if (earliest_end == nullptr || end_ns < earliest_end_ns) {
      earliest_end = &r;
      earliest_end_ns = end_ns;
    }
  }
  if (latest_start != nullptr && latest_start != earliest_end &&
      latest_start_ns - earliest_end_ns > kRankSpanGapToleranceNs) {
    lines.spans_apart = (absl::StrFormat(
        "the ranks' profiles do not overlap in time: %s starts %.3f s after %s ends; clocks "
        "that disagree by seconds, or traces of different jobs: collectives are matched by "
        "sequence or order, but the waiting across ranks is not meaningful",
        latest_start->host, static_cast<double>(latest_start_ns - earliest_end_ns) / 1e9,
        earliest_end->host));
  }
  return lines;
}

}  // namespace tbprof::views
