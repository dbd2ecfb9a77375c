#include "converters/views/steps/launch_precision.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "converters/views/steps/xspace_to_step_db.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::views {

using xplane::StatType;
using xplane::XEventVisitor;
using xplane::XLineVisitor;

LaunchPrecisionHintsBuilder::LaunchPrecisionHintsBuilder(uint32_t types_stat)
    : types_stat_(types_stat), cache_(kCacheSlots), ref_cache_(kRefCacheSlots) {}

PrecisionHint LaunchPrecisionHintsBuilder::HintOf(absl::string_view text) {
  Cached& slot =
      cache_[(reinterpret_cast<uintptr_t>(text.data()) >> 3 ^ text.size()) & (kCacheSlots - 1)];
  if (slot.data == text.data() && slot.size == text.size() && slot.data != nullptr) {
    return slot.hint;
  }
  auto [it, inserted] = text_hints_.try_emplace(std::make_pair(text.data(), text.size()));
  if (inserted) it->second = PrecisionOfText(text);
  slot = {text.data(), text.size(), it->second};
  return it->second;
}

void LaunchPrecisionHintsBuilder::AddEvent(const XEventVisitor& event) {
  const int64_t begin = event.begin_ps();
  const int64_t end = begin + event.duration_ps();
  PrecisionHint hint = Open(begin);
  bool has_correlation = false;
  int64_t correlation = 0;
  event.ForEachStat([&](const xplane::XStatVisitor& stat) {
    if (stat.metadata_index() == types_stat_) {
      Refine(stat, &hint);
    } else if (stat.type() == StatType::kCorrelationId) {
      has_correlation = true;
      correlation = stat.IntOrUintValue();
    }
  });
  Close(end, hint, has_correlation, correlation);
}

LaunchPrecisionHints LaunchPrecisionHintsBuilder::Finish() {
  std::stable_sort(out_.hints_.begin(), out_.hints_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  stack_ = {};
  return std::move(out_);
}

LaunchPrecisionHints LaunchPrecisionHints::Build(const xplane::XPlaneVisitor& host) {
  const std::optional<uint32_t> types_stat = host.FindStatMetadata(kInputTypesStat);
  if (!types_stat.has_value()) return LaunchPrecisionHints();
  LaunchPrecisionHintsBuilder builder(*types_stat);
  for (size_t li = 0; li < host.num_lines(); ++li) {
    const XLineVisitor line = host.line(li);
    if (IsDerivedLine(line.id(), line.name())) continue;
    builder.StartLine();
    for (size_t ei = 0; ei < line.num_events(); ++ei) builder.AddEvent(line.event(ei));
  }
  return builder.Finish();
}

PrecisionHint LaunchPrecisionHints::Find(int64_t correlation_id) const {
  auto it = std::lower_bound(
      hints_.begin(), hints_.end(), correlation_id,
      [](const std::pair<int64_t, PrecisionHint>& h, int64_t id) { return h.first < id; });
  return it != hints_.end() && it->first == correlation_id ? it->second
                                                           : PrecisionHint::kUnknown;
}

}  // namespace tbprof::views
