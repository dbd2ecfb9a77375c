#include "src/xplane/xspace_split.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::xplane {
namespace {

// Time slices when a space is cut by time: fine enough that a part is never
// much under its limit, coarse enough to plan in microseconds.
constexpr uint32_t kTimeSlices = 4096;
constexpr uint32_t kUnmapped = std::numeric_limits<uint32_t>::max();

// ---- Wire sizes (proto3: zero scalars and empty strings are not written;
// every field number here is < 16, so tags take one byte).

uint64_t VarintBytes(uint64_t v) {
  uint64_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
uint64_t Int64Field(int64_t v) { return v == 0 ? 0 : 1 + VarintBytes(static_cast<uint64_t>(v)); }
// A length-delimited field holding `n` bytes (strings: not written if empty).
uint64_t LenField(uint64_t n) { return 1 + VarintBytes(n) + n; }
uint64_t StrField(const StringPool& pool, uint32_t id) {
  size_t n = pool.Get(id).size();
  return n == 0 ? 0 : LenField(n);
}

uint64_t StatBytes(const Stat& s, const Plane& plane, const StringPool& pool) {
  uint64_t n = Int64Field(plane.stat_metadata[s.metadata_index()].id);
  switch (s.kind()) {
    case StatKind::kNone:
      break;
    case StatKind::kDouble:
      n += 9;
      break;
    case StatKind::kUint64:
    case StatKind::kRef:
      n += 1 + VarintBytes(s.uint64_value(plane.wide_values));  // Oneof members: written even if 0.
      break;
    case StatKind::kInt64:
      n += 1 + VarintBytes(static_cast<uint64_t>(s.int64_value(plane.wide_values)));
      break;
    case StatKind::kStr:
    case StatKind::kBytes:
    case StatKind::kCompressedStr:
      n += LenField(pool.Get(s.str_id()).size());
      break;
  }
  return n;
}

// Bytes of event `i` of `line` as an XLine.events entry (tag and length
// included).
uint64_t EventBytes(size_t i, const Line& line, const Plane& plane, const StringPool& pool) {
  const Event& e = line.events[i];
  uint64_t n = Int64Field(plane.event_metadata[e.metadata_index()].id);
  if (e.has_data()) n += 1 + VarintBytes(static_cast<uint64_t>(e.offset_ps));
  n += Int64Field(e.duration_ps);
  for (const Stat& s : line.event_stats(i)) n += LenField(StatBytes(s, plane, pool));
  return LenField(n);
}

// Bytes of a line without its events (XLine fields 1, 2, 3, 9, 10, 11).
uint64_t LineHeaderBytes(const Line& line, const StringPool& pool) {
  return Int64Field(line.id) + Int64Field(line.display_id) + StrField(pool, line.name) +
         StrField(pool, line.display_name) + Int64Field(line.timestamp_ns) +
         Int64Field(line.duration_ps);
}

// Bytes of a plane without its lines.
uint64_t PlaneHeaderBytes(const Plane& plane, const StringPool& pool) {
  uint64_t n = Int64Field(plane.id) + StrField(pool, plane.name);
  for (const EventMetadata& md : plane.event_metadata) {
    if (md.implicit) continue;
    uint64_t m = Int64Field(md.id) + StrField(pool, md.name) + StrField(pool, md.display_name) +
                 StrField(pool, md.metadata);
    for (const Stat& s : md.stats) m += LenField(StatBytes(s, plane, pool));
    if (!md.child_ids.empty()) {
      uint64_t packed = 0;
      for (int64_t id : md.child_ids) packed += VarintBytes(static_cast<uint64_t>(id));
      m += LenField(packed);
    }
    n += LenField(Int64Field(md.key) + LenField(m));
  }
  for (const StatMetadata& md : plane.stat_metadata) {
    if (md.implicit) continue;
    uint64_t m = Int64Field(md.id) + StrField(pool, md.name) + StrField(pool, md.description);
    n += LenField(Int64Field(md.key) + LenField(m));
  }
  for (const Stat& s : plane.stats) n += LenField(StatBytes(s, plane, pool));
  return n;
}

uint64_t SpaceHeaderBytes(const XSpaceData& space) {
  uint64_t n = 0;
  for (const auto* list : {&space.errors, &space.warnings, &space.hostnames}) {
    for (const std::string& s : *list) n += LenField(s.size());
  }
  return n;
}

// Index of the stat metadata named `name` in `plane`, or kUnmapped.
uint32_t FindStat(const Plane& plane, const StringPool& pool, absl::string_view name) {
  for (uint32_t i = 0; i < plane.stat_metadata.size(); ++i) {
    if (pool.Get(plane.stat_metadata[i].name) == name) return i;
  }
  return kUnmapped;
}

// The own correlation id stat of event `i` of `line` (of `plane`), if any.
bool CorrelationOf(size_t i, const Line& line, const Plane& plane, uint32_t corr_index,
                   int64_t* out) {
  if (corr_index == kUnmapped) return false;
  for (const Stat& s : line.event_stats(i)) {
    if (s.metadata_index() != corr_index) continue;
    if (s.kind() == StatKind::kInt64) {
      *out = s.int64_value(plane.wide_values);
      return true;
    }
    if (s.kind() == StatKind::kUint64) {
      *out = static_cast<int64_t>(s.uint64_value(plane.wide_values));
      return true;
    }
  }
  return false;
}

int64_t BeginPs(const Line& line, const Event& e, int64_t base_ns) {
  return (line.timestamp_ns - base_ns) * 1000 + e.offset_ps;
}

// The estimate with `event_bytes(p, l, plane, line, i)` giving the bytes of
// event i of line l of plane p as an XLine.events entry.
template <typename EventBytesFn>
uint64_t EstimateWith(const XSpaceData& space, EventBytesFn event_bytes) {
  uint64_t n = SpaceHeaderBytes(space);
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const Plane& plane = space.planes[p];
    uint64_t bytes = PlaneHeaderBytes(plane, space.strings);
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      uint64_t events = LineHeaderBytes(line, space.strings);
      for (size_t i = 0; i < line.events.size(); ++i) {
        events += event_bytes(p, l, plane, line, i);
      }
      bytes += LenField(events);
    }
    n += LenField(bytes);
  }
  return n;
}

}  // namespace

uint64_t EstimateXSpaceWireBytes(const XSpaceData& space) {
  return EstimateWith(space, [&](size_t, size_t, const Plane& plane, const Line& line, size_t i) {
    return EventBytes(i, line, plane, space.strings);
  });
}

uint64_t EstimateXSpaceWireBytes(const XSpaceData& space, const EventWireSizes& sizes) {
  return EstimateWith(space, [&](size_t p, size_t l, const Plane&, const Line&, size_t i) {
    return EventEntryBytes(sizes[p][l][i]);
  });
}

XSpaceSplit XSpaceSplit::Plan(const XSpaceData& space, uint64_t max_part_bytes,
                              const EventWireSizes* sizes) {
  XSpaceSplit split(&space);
  EventWireSizes computed;
  if (sizes == nullptr) {
    computed = ComputeEventWireSizes(space);
    sizes = &computed;
  }
  split.sizes_ = sizes;
  const uint64_t total = EstimateXSpaceWireBytes(space, *sizes);
  bool by_steps = split.AssignSlots(/*by_steps=*/true);
  if (!by_steps) split.AssignSlots(/*by_steps=*/false);
  // What every part repeats: planes, lines, metadata (no events).
  uint64_t event_bytes = 0;
  for (uint64_t b : split.slot_bytes_) event_bytes += b;
  split.fixed_bytes_ = total > event_bytes ? total - event_bytes : 0;
  const uint64_t limit =
      max_part_bytes > split.fixed_bytes_ ? max_part_bytes - split.fixed_bytes_ : 1;
  if (!split.PackSlots(limit)) {  // A step alone is over the limit.
    split.AssignSlots(/*by_steps=*/false);
    split.PackSlots(limit);
  }
  split.SummarizeParts();
  split.sizes_ = nullptr;  // Only for planning.
  return split;
}

bool XSpaceSplit::AssignSlots(bool by_steps) {
  const XSpaceData& space = *space_;
  const int64_t base_ns = SpaceBaseNs(space);
  const Plane* host = FindPlaneWithName(space, kHostThreadsPlaneName);
  by_steps_ = by_steps;
  step_nums_.clear();

  // Slot boundaries: step starts, or equal time slices.
  std::vector<int64_t> step_begins;
  int64_t t_min = 0;
  __int128 t_span = 1;
  uint32_t num_slots = 1;
  if (by_steps) {
    if (host == nullptr) return false;
    // Without `_r` stat metadata no event is a root: no pass over the events.
    bool has_root_stat = false;
    for (const StatMetadata& md : host->stat_metadata) {
      has_root_stat |= FindStatType(space.strings.Get(md.name)) == StatType::kIsRoot;
    }
    if (!has_root_stat) return false;
    struct Root {
      int64_t begin, end, step_num;
    };
    std::vector<Root> roots;
    XPlaneVisitor visitor(&space, host, base_ns);
    visitor.ForEachLine([&](const XLineVisitor& line) {
      line.ForEachEvent([&](const XEventVisitor& event) {
        std::optional<XStatVisitor> root = event.GetStat(StatType::kIsRoot);
        if (!root || root->NumericValue() == 0) return;
        std::optional<XStatVisitor> num = event.GetStat(StatType::kStepNum);
        roots.push_back({event.begin_ps(), event.end_ps(), num ? num->IntOrUintValue() : -1});
      });
    });
    std::sort(roots.begin(), roots.end(), [](const Root& a, const Root& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    int64_t covered_end = std::numeric_limits<int64_t>::min();
    for (const Root& root : roots) {
      if (root.begin < covered_end) continue;  // Nested in (or overlapping) the previous step.
      step_begins.push_back(root.begin);
      step_nums_.push_back(root.step_num);
      covered_end = root.end;
    }
    if (step_begins.size() < 2) return false;
    num_slots = static_cast<uint32_t>(step_begins.size());
  } else {
    int64_t t_max = std::numeric_limits<int64_t>::min();
    t_min = std::numeric_limits<int64_t>::max();
    for (const Plane& plane : space.planes) {
      for (const Line& line : plane.lines) {
        for (const Event& e : line.events) {
          if (e.is_aggregate()) continue;
          int64_t t = BeginPs(line, e, base_ns);
          t_min = std::min(t_min, t);
          t_max = std::max(t_max, t);
        }
      }
    }
    if (t_max < t_min) t_min = t_max = 0;
    t_span = static_cast<__int128>(t_max) - t_min + 1;
    num_slots = kTimeSlices;
  }
  auto slot_of_time = [&](int64_t t) -> uint32_t {
    if (by_steps) {
      auto it = std::upper_bound(step_begins.begin(), step_begins.end(), t);
      return it == step_begins.begin() ? 0 : static_cast<uint32_t>(it - step_begins.begin() - 1);
    }
    __int128 s = (static_cast<__int128>(t) - t_min) * num_slots / t_span;
    return static_cast<uint32_t>(std::clamp<__int128>(s, 0, num_slots - 1));
  };

  // Launches: correlation id -> slot of the host event that carries it.
  absl::flat_hash_map<int64_t, uint32_t> slot_of_correlation;
  if (host != nullptr) {
    const uint32_t corr = FindStat(*host, space.strings, StatTypeName(StatType::kCorrelationId));
    for (const Line& line : host->lines) {
      for (size_t i = 0; i < line.events.size(); ++i) {
        const Event& e = line.events[i];
        int64_t id;
        if (!e.is_aggregate() && CorrelationOf(i, line, *host, corr, &id)) {
          slot_of_correlation.emplace(id, slot_of_time(BeginPs(line, e, base_ns)));
        }
      }
    }
  }

  slot_bytes_.assign(num_slots, 0);
  slot_.assign(space.planes.size(), {});
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const Plane& plane = space.planes[p];
    const bool is_host = &plane == host;
    const uint32_t corr =
        is_host ? kUnmapped
                : FindStat(plane, space.strings, StatTypeName(StatType::kCorrelationId));
    slot_[p].resize(plane.lines.size());
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      std::vector<uint32_t>& slots = slot_[p][l];
      const std::vector<uint32_t>& event_sizes = (*sizes_)[p][l];
      slots.resize(line.events.size());
      for (size_t i = 0; i < line.events.size(); ++i) {
        const Event& e = line.events[i];
        uint32_t slot = 0;
        int64_t id;
        if (e.is_aggregate()) {
          slot = 0;  // No time: kept with the first part.
        } else if (CorrelationOf(i, line, plane, corr, &id)) {
          auto it = slot_of_correlation.find(id);
          slot = it != slot_of_correlation.end() ? it->second
                                                  : slot_of_time(BeginPs(line, e, base_ns));
        } else {
          slot = slot_of_time(BeginPs(line, e, base_ns));
        }
        slots[i] = slot;
        slot_bytes_[slot] += EventEntryBytes(event_sizes[i]);
      }
    }
  }
  return true;
}

bool XSpaceSplit::PackSlots(uint64_t limit) {
  const size_t num_slots = slot_bytes_.size();
  uint64_t total = 0, largest = 0;
  for (uint64_t b : slot_bytes_) {
    total += b;
    largest = std::max(largest, b);
  }
  total_bytes_ = fixed_bytes_ + total;
  if (by_steps_ && largest > limit) return false;
  part_of_slot_.assign(num_slots, 0);

  // Parts of K consecutive slots: the largest K whose every chunk fits.
  auto fits = [&](size_t k) {
    for (size_t i = 0; i < num_slots; i += k) {
      uint64_t sum = 0;
      for (size_t j = i; j < std::min(num_slots, i + k); ++j) sum += slot_bytes_[j];
      if (sum > limit) return false;
    }
    return true;
  };
  size_t k = std::clamp<size_t>(static_cast<size_t>(static_cast<__int128>(limit) * num_slots /
                                                    std::max<uint64_t>(total, 1)),
                                1, num_slots);
  for (int tries = 0; k > 1 && !fits(k) && tries < 64; ++tries) --k;
  if (largest <= limit && fits(k)) {
    // Same number of parts, evened out (10,10,3 -> 8,8,7) if that still fits.
    size_t parts = (num_slots + k - 1) / k;
    size_t even = (num_slots + parts - 1) / parts;
    if (fits(even)) k = even;
    for (size_t i = 0; i < num_slots; ++i) part_of_slot_[i] = static_cast<uint32_t>(i / k);
    steps_per_part_ = by_steps_ ? static_cast<int64_t>(k) : 0;
  } else {
    // Uneven slots: fill each part greedily; a slot over the limit stands alone.
    uint32_t part = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < num_slots; ++i) {
      if (sum > 0 && sum + slot_bytes_[i] > limit) {
        ++part;
        sum = 0;
      }
      sum += slot_bytes_[i];
      part_of_slot_[i] = part;
    }
    steps_per_part_ = 0;
    if (by_steps_) {
      std::vector<int64_t> steps(part + 1, 0);
      for (uint32_t p : part_of_slot_) ++steps[p];
      steps_per_part_ = *std::max_element(steps.begin(), steps.end());
    }
  }
  // Parts without events (time slices of an idle gap) are dropped: their
  // slots join the previous part (or the next, at the start).
  std::vector<uint64_t> part_bytes(part_of_slot_.empty() ? 1 : part_of_slot_.back() + 1, 0);
  for (size_t i = 0; i < num_slots; ++i) part_bytes[part_of_slot_[i]] += slot_bytes_[i];
  std::vector<uint32_t> renumber(part_bytes.size(), kUnmapped);
  uint32_t next = 0;
  for (size_t p = 0; p < part_bytes.size(); ++p) {
    if (part_bytes[p] > 0) renumber[p] = next++;
  }
  if (next == 0) next = 1;
  uint32_t last = 0;
  for (size_t i = 0; i < num_slots; ++i) {
    uint32_t r = renumber[part_of_slot_[i]];
    if (r == kUnmapped) {
      // Leading empty parts join part 0, later ones the previous part.
      r = last;
    }
    part_of_slot_[i] = r;
    last = r;
  }
  parts_.assign(next, SplitPart{});
  return true;
}

void XSpaceSplit::SummarizeParts() {
  const XSpaceData& space = *space_;
  const int64_t base_ns = SpaceBaseNs(space);
  for (SplitPart& part : parts_) {
    part = SplitPart{};
    part.begin_ps = std::numeric_limits<int64_t>::max();
    part.end_ps = std::numeric_limits<int64_t>::min();
    part.estimated_bytes = fixed_bytes_;
  }
  for (size_t s = 0; s < slot_bytes_.size(); ++s) {
    SplitPart& part = parts_[part_of_slot_[s]];
    part.estimated_bytes += slot_bytes_[s];
    if (by_steps_) {
      if (part.num_steps == 0) part.first_step_num = step_nums_[s];
      part.last_step_num = step_nums_[s];
      ++part.num_steps;
    }
  }
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const Plane& plane = space.planes[p];
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      for (size_t i = 0; i < line.events.size(); ++i) {
        SplitPart& part = parts_[part_of_slot_[slot_[p][l][i]]];
        ++part.num_events;
        const Event& e = line.events[i];
        if (e.is_aggregate()) continue;
        int64_t begin = BeginPs(line, e, base_ns);
        part.begin_ps = std::min(part.begin_ps, begin);
        part.end_ps = std::max(part.end_ps, begin + e.duration_ps);
      }
    }
  }
  for (SplitPart& part : parts_) {
    if (part.end_ps < part.begin_ps) part.begin_ps = part.end_ps = 0;
  }
}

XSpaceData XSpaceSplit::ExtractPart(size_t index) const {
  const XSpaceData& space = *space_;
  XSpaceData out;
  std::vector<uint32_t> remap(space.strings.size(), kUnmapped);
  remap[0] = 0;
  auto str = [&](uint32_t id) {
    if (remap[id] == kUnmapped) remap[id] = out.strings.Intern(space.strings.Get(id));
    return remap[id];
  };
  // A stat of `from` for `to`: its string re-interned, its wide value copied.
  auto copy_stat = [&](const Stat& stat, const Plane& from, Plane& to) {
    Stat s = stat.copy_wide_value(from.wide_values, &to.wide_values);
    if (s.kind() == StatKind::kStr || s.kind() == StatKind::kBytes ||
        s.kind() == StatKind::kCompressedStr) {
      s.set_str_id(str(s.str_id()));
    }
    return s;
  };
  for (size_t p = 0; p < space.planes.size(); ++p) {
    const Plane& plane = space.planes[p];
    Plane& q = out.planes.emplace_back();
    q.id = plane.id;
    q.name = str(plane.name);
    q.event_metadata = plane.event_metadata;
    for (EventMetadata& md : q.event_metadata) {
      md.name = str(md.name);
      md.display_name = str(md.display_name);
      md.metadata = str(md.metadata);
      for (Stat& s : md.stats) s = copy_stat(s, plane, q);
    }
    q.stat_metadata = plane.stat_metadata;
    for (StatMetadata& md : q.stat_metadata) {
      md.name = str(md.name);
      md.description = str(md.description);
    }
    WideValues stats_wide;
    for (const Stat& s : PartPlaneStats(index, p, &stats_wide)) {
      Stat c = s.copy_wide_value(stats_wide, &q.wide_values);
      if (c.kind() == StatKind::kStr || c.kind() == StatKind::kBytes ||
          c.kind() == StatKind::kCompressedStr) {
        c.set_str_id(str(c.str_id()));
      }
      q.stats.push_back(c);
    }
    // The part's events, stats and wide values per line, counted first so
    // that each vector is allocated once at its final size: a part of
    // millions of events would otherwise regrow (and copy) its largest
    // vectors, holding up to twice their size while the whole space is
    // still in memory.
    std::vector<std::pair<size_t, size_t>> line_counts(plane.lines.size());  // Events, stats.
    size_t part_wide = 0;
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      const std::vector<uint32_t>& slots = slot_[p][l];
      for (size_t i = 0; i < line.events.size(); ++i) {
        if (part_of_slot_[slots[i]] != index) continue;
        ++line_counts[l].first;
        for (const Stat& s : line.event_stats(i)) {
          ++line_counts[l].second;
          part_wide += s.is_wide();
        }
      }
    }
    q.wide_values.reserve(q.wide_values.size() + part_wide);
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      const std::vector<uint32_t>& slots = slot_[p][l];
      const size_t count = line_counts[l].first;
      if (count == 0 && !line.events.empty()) continue;  // All its events are elsewhere.
      Line& m = q.lines.emplace_back();
      m.id = line.id;
      m.display_id = line.display_id;
      m.name = str(line.name);
      m.display_name = str(line.display_name);
      m.timestamp_ns = line.timestamp_ns;
      m.duration_ps = line.duration_ps;
      m.events.reserve(count);
      m.stats.reserve(line_counts[l].second);
      int64_t line_end = 0;
      for (size_t i = 0; i < line.events.size(); ++i) {
        if (part_of_slot_[slots[i]] != index) continue;
        Event e = line.events[i];
        e.stats_begin = static_cast<uint32_t>(m.stats.size());  // Events and stats in order.
        for (const Stat& s : line.event_stats(i)) m.stats.push_back(copy_stat(s, plane, q));
        if (!e.is_aggregate()) line_end = std::max(line_end, e.offset_ps + e.duration_ps);
        m.events.push_back(e);
      }
      if (!m.events.empty()) m.duration_ps = line_end;
    }
  }
  out.errors = space.errors;
  out.warnings = space.warnings;
  out.hostnames = space.hostnames;
  out.warnings.push_back(PartWarning(index));
  return out;
}

int64_t XSpaceSplit::WholeBeginPs() const {
  int64_t whole_begin_ps = std::numeric_limits<int64_t>::max();
  for (const SplitPart& p : parts_) whole_begin_ps = std::min(whole_begin_ps, p.begin_ps);
  return whole_begin_ps;
}

std::vector<Stat> XSpaceSplit::PartPlaneStats(size_t index, size_t p, WideValues* wide) const {
  const XSpaceData& space = *space_;
  const Plane& plane = space.planes[p];
  const SplitPart& part = parts_[index];
  const int64_t whole_begin_ps = WholeBeginPs();
  const bool task_env = space.strings.Get(plane.name) == kTaskEnvPlaneName;
  std::vector<Stat> stats;
  stats.reserve(plane.stats.size());
  for (const Stat& s : plane.stats) {
    Stat c = s.copy_wide_value(plane.wide_values, wide);
    if (task_env && c.kind() == StatKind::kInt64) {
      absl::string_view name = space.strings.Get(plane.stat_metadata[s.metadata_index()].name);
      // Epoch ns of the whole session -> of this part's span.
      int64_t start_shift_ns = (part.begin_ps - whole_begin_ps) / 1000;
      if (name == StatTypeName(StatType::kProfileStartTime)) {
        c.set_int64_value(s.int64_value(plane.wide_values) + start_shift_ns, wide);
      } else if (name == StatTypeName(StatType::kProfileStopTime)) {
        for (const Stat& t : plane.stats) {
          if (space.strings.Get(plane.stat_metadata[t.metadata_index()].name) ==
                  StatTypeName(StatType::kProfileStartTime) &&
              t.kind() == StatKind::kInt64) {
            c.set_int64_value(t.int64_value(plane.wide_values) + start_shift_ns +
                                  (part.end_ps - part.begin_ps) / 1000,
                              wide);
          }
        }
      }
    }
    stats.push_back(c);
  }
  return stats;
}

std::string XSpaceSplit::PartWarning(size_t index) const {
  const SplitPart& part = parts_[index];
  const int64_t whole_begin_ps = WholeBeginPs();
  std::string what =
      by_steps_ ? (part.first_step_num >= 0
                       ? absl::StrCat("steps ", part.first_step_num, "-", part.last_step_num)
                       : absl::StrCat(part.num_steps, " steps"))
                : absl::StrFormat("%.6f s to %.6f s of the trace",
                                  (part.begin_ps - whole_begin_ps) / 1e12,
                                  (part.end_ps - whole_begin_ps) / 1e12);
  return absl::StrCat("tbprof: part ", index + 1, " of ", parts_.size(),
                      " of a profile split to fit TensorBoard's memory: ", what);
}

XSpaceWireSubset XSpaceSplit::PartSubset(size_t index) const {
  XSpaceWireSubset subset;
  subset.group = &slot_;
  subset.part_of_group = &part_of_slot_;
  subset.part = static_cast<uint32_t>(index);
  const size_t num_planes = space_->planes.size();
  subset.plane_stats.resize(num_planes);
  subset.plane_stats_wide.resize(num_planes);
  for (size_t p = 0; p < num_planes; ++p) {
    subset.plane_stats[p] = PartPlaneStats(index, p, &subset.plane_stats_wide[p]);
  }
  subset.extra_warnings.push_back(PartWarning(index));
  return subset;
}

absl::Status XSpaceSplit::WritePart(size_t index, const EventWireSizes* sizes,
                                    AtomicOutputFile* file) const {
  const XSpaceWireSubset subset = PartSubset(index);
  return WriteXSpaceWire(*space_, sizes, &subset, file);
}

std::string XSpaceSplit::SerializePart(size_t index, const EventWireSizes* sizes) const {
  const XSpaceWireSubset subset = PartSubset(index);
  return SerializeXSpaceWire(*space_, sizes, &subset);
}

}  // namespace tbprof::xplane
