#include "tools/watch/watch_runs.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/logdir/part_runs.h"
#include "src/logdir/profile_logdir.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::cli {
namespace {

constexpr absl::string_view kTorchSuffixes[] = {".pt.trace.json.gz", ".pt.trace.json"};

// A run name from a file stem that ValidateRunName accepts.
std::string RunNameFromStem(const std::string& stem) {
  std::string run;
  for (char c : stem) {
    run.push_back(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                          c == '-'
                      ? c
                      : '_');
  }
  if (run.empty() || run == "." || run == "..") run = "trace";
  if (run.size() > 200) run.resize(200);
  // "x_part2" names a part run of run "x" (src/logdir/part_runs.h): every
  // reader would take this file for a part of x. "x-part2" is its own run.
  if (!logdir::BaseRunOfPartRun(run).empty()) run[run.rfind("_part")] = '-';
  return run;
}

}  // namespace

std::optional<TorchTraceName> ParseTorchTraceName(absl::string_view name) {
  absl::string_view rest = name;
  bool matched = false;
  for (absl::string_view suffix : kTorchSuffixes) {
    if (absl::EndsWith(rest, suffix)) {
      rest.remove_suffix(suffix.size());
      matched = true;
      break;
    }
  }
  if (!matched) return std::nullopt;
  const size_t dot = rest.rfind('.');
  if (dot == absl::string_view::npos || dot == 0) return std::nullopt;
  absl::string_view digits = rest.substr(dot + 1);
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  uint64_t value = 0;
  if (!absl::SimpleAtoi(digits, &value)) return std::nullopt;
  int64_t ms = 0;
  if (digits.size() >= 18) {
    ms = static_cast<int64_t>(value / 1'000'000);
  } else if (digits.size() >= 15) {
    ms = static_cast<int64_t>(value / 1'000);
  } else if (digits.size() >= 12) {
    ms = static_cast<int64_t>(value);
  } else {
    ms = static_cast<int64_t>(value) * 1000;
  }
  return TorchTraceName{std::string(rest.substr(0, dot)), ms};
}

bool PlacementLess(absl::string_view a, absl::string_view b) {
  std::optional<TorchTraceName> ta = ParseTorchTraceName(a);
  std::optional<TorchTraceName> tb = ParseTorchTraceName(b);
  if (ta.has_value() != tb.has_value()) return ta.has_value();
  if (ta.has_value() && ta->timestamp_ms != tb->timestamp_ms) {
    return ta->timestamp_ms < tb->timestamp_ms;
  }
  return NaturalLess(a, b);
}

RunGrouper::RunGrouper(int64_t window_ms, std::function<std::string(int64_t)> run_name_for_ms)
    : window_ms_(window_ms), run_name_for_ms_(std::move(run_name_for_ms)) {
  if (!run_name_for_ms_) {
    run_name_for_ms_ = [](int64_t ms) {
      return logdir::RunNameForTime(static_cast<std::time_t>(ms / 1000));
    };
  }
}

std::string RunGrouper::UniqueRun(const std::string& base) {
  std::string run = base;
  for (int n = 2; runs_.count(run); ++n) run = absl::StrCat(base, "_", n);
  runs_.insert(run);
  return run;
}

RunPlacement RunGrouper::Place(const std::string& file_name) {
  if (auto it = placed_.find(file_name); it != placed_.end()) return it->second;
  RunPlacement placement;
  std::optional<TorchTraceName> torch = ParseTorchTraceName(file_name);
  if (!torch.has_value()) {
    placement.run = UniqueRun(RunNameFromStem(FileStem(file_name)));
  } else {
    Group* best = nullptr;
    int64_t best_distance = 0;
    for (Group& group : groups_) {
      const int64_t distance = std::llabs(group.first_ms - torch->timestamp_ms);
      if (distance > window_ms_ || group.workers.count(torch->worker)) continue;
      if (best == nullptr || distance < best_distance) {
        best = &group;
        best_distance = distance;
      }
    }
    if (best == nullptr) {
      const std::string run = UniqueRun(run_name_for_ms_(torch->timestamp_ms));
      groups_.push_back({torch->timestamp_ms, run, {}});
      best = &groups_.back();
    }
    best->workers.insert(torch->worker);
    placement.run = best->run;
    placement.host = logdir::SanitizeHostName(torch->worker);
  }
  placed_[file_name] = placement;
  return placement;
}

}  // namespace tbprof::cli
