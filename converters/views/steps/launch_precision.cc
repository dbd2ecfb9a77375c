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

LaunchPrecisionHints LaunchPrecisionHints::Build(const xplane::XPlaneVisitor& host) {
  LaunchPrecisionHints out;
  const std::optional<uint32_t> types_stat = host.FindStatMetadata(kInputTypesStat);
  if (!types_stat.has_value()) return out;
  struct Open {
    int64_t end_ps;
    PrecisionHint hint;  // Of the innermost op with typed inputs, this one included.
  };
  std::vector<Open> stack;
  // PrecisionOfText is ~30 substring searches; a trace repeats a few hundred
  // distinct type lists over millions of ops, all interned in the space's
  // string pool, so the answer is cached by the string's address and size.
  absl::flat_hash_map<std::pair<const char*, size_t>, PrecisionHint> text_hints;
  // In front of the map, a direct-mapped cache by the string's address: most
  // lookups cost a shift and two compares instead of hashing and probing.
  struct Cached {
    const char* data = nullptr;
    size_t size = 0;
    PrecisionHint hint = PrecisionHint::kUnknown;
  };
  constexpr size_t kCacheSlots = 1024;
  std::vector<Cached> cache(kCacheSlots);
  const auto hint_of = [&text_hints, &cache](absl::string_view text) {
    Cached& slot =
        cache[(reinterpret_cast<uintptr_t>(text.data()) >> 3 ^ text.size()) & (kCacheSlots - 1)];
    if (slot.data == text.data() && slot.size == text.size() && slot.data != nullptr) {
      return slot.hint;
    }
    auto [it, inserted] = text_hints.try_emplace(std::make_pair(text.data(), text.size()));
    if (inserted) it->second = PrecisionOfText(text);
    slot = {text.data(), text.size(), it->second};
    return it->second;
  };
  for (size_t li = 0; li < host.num_lines(); ++li) {
    const XLineVisitor line = host.line(li);
    if (IsDerivedLine(line.id(), line.name())) continue;
    stack.clear();
    for (size_t ei = 0; ei < line.num_events(); ++ei) {
      const XEventVisitor event = line.event(ei);
      const int64_t begin = event.begin_ps();
      const int64_t end = begin + event.duration_ps();
      while (!stack.empty() && stack.back().end_ps <= begin) stack.pop_back();
      PrecisionHint hint = stack.empty() ? PrecisionHint::kUnknown : stack.back().hint;
      bool has_correlation = false;
      int64_t correlation = 0;
      event.ForEachStat([&](const xplane::XStatVisitor& stat) {
        if (stat.metadata_index() == *types_stat) {
          const PrecisionHint own = hint_of(stat.StrOrRefValue());
          if (own != PrecisionHint::kUnknown) hint = own;
        } else if (stat.type() == StatType::kCorrelationId) {
          has_correlation = true;
          correlation = stat.IntOrUintValue();
        }
      });
      if (has_correlation && hint != PrecisionHint::kUnknown) {
        out.hints_.emplace_back(correlation, hint);
      }
      stack.push_back({end, hint});
    }
  }
  std::stable_sort(out.hints_.begin(), out.hints_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

PrecisionHint LaunchPrecisionHints::Find(int64_t correlation_id) const {
  auto it = std::lower_bound(
      hints_.begin(), hints_.end(), correlation_id,
      [](const std::pair<int64_t, PrecisionHint>& h, int64_t id) { return h.first < id; });
  return it != hints_.end() && it->first == correlation_id ? it->second
                                                           : PrecisionHint::kUnknown;
}

}  // namespace tbprof::views
