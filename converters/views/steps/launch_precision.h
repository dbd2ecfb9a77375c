// Precision hints for kernels whose names name no element type, from the op
// input types that Kineto records (`Input type`, stat `input_types`, with
// record_shapes=True): a kernel launched inside an op whose inputs are
// c10::BFloat16 / c10::Half / Float8 is reduced-precision compute.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "converters/views/common/precision.h"
#include "src/xplane/xspace_visitor.h"

namespace tbprof::views {

// The stat the Kineto converter writes an op's `Input type` list to.
inline constexpr absl::string_view kInputTypesStat = "input_types";

// Launch correlation id -> what the input types of the innermost op around
// the launch (on the launch's host line) say about precision.
class LaunchPrecisionHints {
 public:
  // Walks the host plane's thread lines (derived lines excluded) once; empty
  // without an `input_types` stat on the plane (no pass at all then).
  static LaunchPrecisionHints Build(const xplane::XPlaneVisitor& host);

  bool empty() const { return hints_.empty(); }
  // kUnknown when the launch is unknown or no op around it has input types
  // that name a type.
  PrecisionHint Find(int64_t correlation_id) const;

 private:
  friend class LaunchPrecisionHintsBuilder;
  std::vector<std::pair<int64_t, PrecisionHint>> hints_;  // Sorted by id.
};

// Builds LaunchPrecisionHints from a walk over the host plane's thread
// lines that the caller drives, so that a pass that reads the host events'
// stats anyway (GroupXSpaceSteps) builds the hints on the way: for each
// line, StartLine(), then for each event in line order (aggregates
// included) Open(), Refine() with each of its `input_types` stats, Close().
// The same walk as Build()'s gives the same hints.
class LaunchPrecisionHintsBuilder {
 public:
  // `types_stat`: the index of the host plane's `input_types` stat metadata.
  explicit LaunchPrecisionHintsBuilder(uint32_t types_stat);

  uint32_t types_stat() const { return types_stat_; }
  void StartLine() { stack_.clear(); }
  // An event that begins at `begin_ps`: closes the open events that end by
  // then and returns the hint it inherits (the innermost open one's).
  PrecisionHint Open(int64_t begin_ps) {
    while (!stack_.empty() && stack_.back().end_ps <= begin_ps) stack_.pop_back();
    return stack_.empty() ? PrecisionHint::kUnknown : stack_.back().hint;
  }
  // `*hint` refined by one of the event's `input_types` stats.
  void Refine(const xplane::XStatVisitor& input_types, PrecisionHint* hint) {
    const PrecisionHint own = input_types.kind() == xplane::StatKind::kRef
                                  ? HintOfRef(input_types)
                                  : HintOf(input_types.StrOrRefValue());
    if (own != PrecisionHint::kUnknown) *hint = own;
  }
  // The event ends at `end_ps` with `hint`; a launch when has_correlation.
  void Close(int64_t end_ps, PrecisionHint hint, bool has_correlation, int64_t correlation_id) {
    if (has_correlation && hint != PrecisionHint::kUnknown) {
      out_.hints_.emplace_back(correlation_id, hint);
    }
    // Written in place: a struct built on the stack and copied in with a
    // wide load stalls on the narrow stores (store forwarding fails).
    OpenOp& open = stack_.emplace_back();
    open.end_ps = end_ps;
    open.hint = hint;
  }
  // All of Open() .. Close() for `event`, reading its stats.
  void AddEvent(const xplane::XEventVisitor& event);
  // The hints; the builder is spent.
  LaunchPrecisionHints Finish();

 private:
  struct OpenOp {
    int64_t end_ps;
    PrecisionHint hint;  // Of the innermost op with typed inputs, this one included.
  };
  // A cache slot: PrecisionOfText of the string at `data`.
  struct Cached {
    const char* data = nullptr;
    size_t size = 0;
    PrecisionHint hint = PrecisionHint::kUnknown;
  };
  // A ref cache slot: the hint of the text of the stat metadata `id + 1`
  // (0: empty slot).
  struct CachedRef {
    uint64_t id_plus_1 = 0;
    PrecisionHint hint = PrecisionHint::kUnknown;
  };
  static constexpr size_t kCacheSlots = 1024;
  static constexpr size_t kRefCacheSlots = 4096;
  PrecisionHint HintOf(absl::string_view text);
  // HintOf() the text of a kRef stat, cached by the id it refers to: most
  // lookups do not resolve the id to its text (a few random reads).
  PrecisionHint HintOfRef(const xplane::XStatVisitor& stat) {
    const uint64_t id = stat.RefId();
    CachedRef& slot = ref_cache_[(id ^ id >> 12) & (kRefCacheSlots - 1)];
    if (slot.id_plus_1 == id + 1 && id + 1 != 0) return slot.hint;
    slot = {id + 1, HintOf(stat.StrOrRefValue())};
    return slot.hint;
  }

  uint32_t types_stat_;
  LaunchPrecisionHints out_;
  std::vector<OpenOp> stack_;
  // PrecisionOfText is ~30 substring searches; a trace repeats a few hundred
  // distinct type lists over millions of ops, all interned in the space's
  // string pool, so the answer is cached by the string's address and size:
  // in a direct-mapped cache by the address (most lookups cost a shift and
  // two compares), behind it in a map.
  std::vector<Cached> cache_;
  std::vector<CachedRef> ref_cache_;
  absl::flat_hash_map<std::pair<const char*, size_t>, PrecisionHint> text_hints_;
};

// LaunchPrecisionHints built on the first Find(): most traces' kernels name
// their precision, and then the host plane is never walked for hints.
// Borrows `host` (may be null: no hints), which must outlive this.
class LazyLaunchPrecisionHints {
 public:
  explicit LazyLaunchPrecisionHints(const xplane::XPlaneVisitor* host)
      : host_(host && host->FindStatMetadata(kInputTypesStat).has_value() ? host : nullptr) {}

  // False when no hint can exist (no host plane, or no `input_types` stat on
  // it): Find() would always return kUnknown.
  bool possible() const { return host_ != nullptr; }
  // Hands in the hints, built by a LaunchPrecisionHintsBuilder over the
  // same host plane: Find() then builds nothing.
  void Set(LaunchPrecisionHints hints) { hints_ = std::move(hints); }
  // As LaunchPrecisionHints::Find; the first call builds the hints.
  PrecisionHint Find(int64_t correlation_id) {
    if (!host_) return PrecisionHint::kUnknown;
    if (!hints_.has_value()) hints_ = LaunchPrecisionHints::Build(*host_);
    return hints_->Find(correlation_id);
  }

 private:
  const xplane::XPlaneVisitor* host_;
  std::optional<LaunchPrecisionHints> hints_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_LAUNCH_PRECISION_H_
