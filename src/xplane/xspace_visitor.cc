#include "src/xplane/xspace_visitor.h"

#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tbprof::xplane {

// ---- XStatVisitor ----------------------------------------------------------


int64_t XStatVisitor::IntOrUintValue() const {
  if (stat_->kind() == StatKind::kInt64) return stat_->int64_value(wide());
  if (stat_->kind() == StatKind::kUint64) return static_cast<int64_t>(stat_->uint64_value(wide()));
  return 0;
}

double XStatVisitor::NumericValue() const {
  switch (stat_->kind()) {
    case StatKind::kInt64:
      return static_cast<double>(stat_->int64_value(wide()));
    case StatKind::kUint64:
      return static_cast<double>(stat_->uint64_value(wide()));
    case StatKind::kDouble:
      return stat_->double_value(wide());
    default:
      return 0;
  }
}

absl::string_view XStatVisitor::StrOrRefValue() const {
  if (stat_->kind() == StatKind::kStr) return plane_->str(stat_->str_id());
  if (stat_->kind() == StatKind::kRef) return plane_->stat_name_by_id(stat_->uint64_value(wide()));
  return {};
}

absl::string_view XStatVisitor::BytesValue() const {
  if (stat_->kind() == StatKind::kBytes || stat_->kind() == StatKind::kCompressedStr) {
    return plane_->str(stat_->str_id());
  }
  return {};
}

std::string XStatVisitor::ToString() const {
  switch (stat_->kind()) {
    case StatKind::kNone:
      return "";
    case StatKind::kDouble:
      return absl::StrCat(stat_->double_value(wide()));
    case StatKind::kUint64:
      return absl::StrCat(stat_->uint64_value(wide()));
    case StatKind::kInt64:
      return absl::StrCat(stat_->int64_value(wide()));
    case StatKind::kStr:
    case StatKind::kRef:
      return std::string(StrOrRefValue());
    case StatKind::kBytes:
      return absl::StrCat("<", BytesValue().size(), " bytes>");
    case StatKind::kCompressedStr:
      return absl::StrCat("<", BytesValue().size(), " compressed bytes>");
  }
  return "";
}

// ---- XEventVisitor ---------------------------------------------------------


absl::string_view XEventVisitor::display_name() const {
  const EventMetadata& md = plane_->raw().event_metadata[event_->metadata_index()];
  return plane_->str(md.display_name != 0 ? md.display_name : md.name);
}



std::optional<XStatVisitor> XEventVisitor::GetStat(StatType type) const {
  const Stat* stats = line_->stats.data();
  for (uint32_t i = event_->stats_begin, end = stats_end(); i < end; ++i) {
    if (plane_->stat_type(stats[i].metadata_index()) == type) {
      return XStatVisitor(plane_, stats + i);
    }
  }
  for (const Stat& s : plane_->raw().event_metadata[event_->metadata_index()].stats) {
    if (plane_->stat_type(s.metadata_index()) == type) return XStatVisitor(plane_, &s);
  }
  return std::nullopt;
}

std::optional<XStatVisitor> XEventVisitor::GetStatByName(absl::string_view name) const {
  std::optional<uint32_t> index = plane_->FindStatMetadata(name);
  if (!index) return std::nullopt;
  const Stat* stats = line_->stats.data();
  for (uint32_t i = event_->stats_begin, end = stats_end(); i < end; ++i) {
    if (stats[i].metadata_index() == *index) return XStatVisitor(plane_, stats + i);
  }
  for (const Stat& s : plane_->raw().event_metadata[event_->metadata_index()].stats) {
    if (s.metadata_index() == *index) return XStatVisitor(plane_, &s);
  }
  return std::nullopt;
}

// ---- XLineVisitor ----------------------------------------------------------

absl::string_view XLineVisitor::name() const { return plane_->str(line_->name); }
absl::string_view XLineVisitor::display_name() const {
  return plane_->str(line_->display_name != 0 ? line_->display_name : line_->name);
}

// ---- XPlaneVisitor ---------------------------------------------------------

XPlaneVisitor::XPlaneVisitor(const XSpaceData* space, const Plane* plane, int64_t base_ns)
    : space_(space), plane_(plane), base_ns_(base_ns) {
  stat_types_.reserve(plane->stat_metadata.size());
  for (const StatMetadata& md : plane->stat_metadata) {
    stat_types_.push_back(FindStatType(space->strings.Get(md.name)));
  }
  const size_t num_stats = plane->stat_metadata.size();
  small_stat_ids_ = true;
  for (const StatMetadata& md : plane->stat_metadata) {
    if (md.id < 0 || static_cast<uint64_t>(md.id) >= 4 * num_stats + 1024) small_stat_ids_ = false;
  }
  for (uint32_t i = 0; i < num_stats; ++i) {
    const int64_t id = plane->stat_metadata[i].id;
    if (!small_stat_ids_) {
      stat_index_by_id_.emplace(id, i);
      continue;
    }
    if (static_cast<size_t>(id) >= stat_index_by_small_id_.size()) {
      stat_index_by_small_id_.resize(id + 1, UINT32_MAX);
    }
    if (stat_index_by_small_id_[id] == UINT32_MAX) stat_index_by_small_id_[id] = i;
  }
  host_event_types_.reserve(plane->event_metadata.size());
  for (const EventMetadata& md : plane->event_metadata) {
    host_event_types_.push_back(FindHostEventType(space->strings.Get(md.name)));
  }
}

std::optional<XStatVisitor> XPlaneVisitor::GetStat(StatType type) const {
  for (const Stat& s : plane_->stats) {
    if (stat_types_[s.metadata_index()] == type) return XStatVisitor(this, &s);
  }
  return std::nullopt;
}

absl::string_view XPlaneVisitor::stat_name_by_id(uint64_t id) const {
  if (small_stat_ids_) {
    if (id >= stat_index_by_small_id_.size() || stat_index_by_small_id_[id] == UINT32_MAX) {
      return {};
    }
    return stat_name(stat_index_by_small_id_[id]);
  }
  auto it = stat_index_by_id_.find(static_cast<int64_t>(id));
  if (it == stat_index_by_id_.end()) return {};
  return stat_name(it->second);
}

std::optional<uint32_t> XPlaneVisitor::FindStatMetadata(absl::string_view name) const {
  for (uint32_t i = 0; i < plane_->stat_metadata.size(); ++i) {
    if (space_->strings.Get(plane_->stat_metadata[i].name) == name) return i;
  }
  return std::nullopt;
}

// ---- free functions --------------------------------------------------------

int64_t SpaceBaseNs(const XSpaceData& space) {
  int64_t base = std::numeric_limits<int64_t>::max();
  for (const Plane& plane : space.planes) {
    for (const Line& line : plane.lines) base = std::min(base, line.timestamp_ns);
  }
  return base == std::numeric_limits<int64_t>::max() ? 0 : base;
}

const Plane* FindPlaneWithName(const XSpaceData& space, absl::string_view name) {
  for (const Plane& plane : space.planes) {
    if (space.strings.Get(plane.name) == name) return &plane;
  }
  return nullptr;
}

std::vector<const Plane*> FindPlanesWithPrefix(const XSpaceData& space, absl::string_view prefix) {
  std::vector<const Plane*> out;
  for (const Plane& plane : space.planes) {
    if (absl::StartsWith(space.strings.Get(plane.name), prefix)) out.push_back(&plane);
  }
  return out;
}

std::vector<const Plane*> FindGpuPlanes(const XSpaceData& space) {
  std::vector<std::pair<int64_t, const Plane*>> found;
  for (const Plane& plane : space.planes) {
    if (auto ordinal = ParseGpuPlaneOrdinal(space.strings.Get(plane.name))) {
      found.emplace_back(*ordinal, &plane);
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Plane*> out;
  for (const auto& [ordinal, plane] : found) out.push_back(plane);
  return out;
}

}  // namespace tbprof::xplane
