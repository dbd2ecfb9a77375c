// The launches of a host plane, by correlation id, for the op tree
// (op_tree.cc): correlation id -> the innermost op call around the launch.
//
// Contract. Add() every launch (an id and the OpTree::ops index of the
// innermost op call around it, or -1 when it is outside every op), in the
// order the launches are read (thread lines in plane order, each line in
// nesting order), Truncate() taking back the last ones if need be; then
// Seal() once; then Find() any number of times. The
// first launch added of an id wins. Ids are any int64 (sparse, negative,
// out of order, repeated); calls are opaque int32 values other than kAbsent.
// Memory: 12 bytes a launch until Release(). Sealing is O(n log runs) when
// the launches come in at most 64 runs of rising ids, else one stable sort;
// a lookup is O(log distance) from where the previous lookup with the same
// `hint` ended.
#ifndef TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_LAUNCHES_H_
#define TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_LAUNCHES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tbprof::views::op_tree_internal {

// Correlation id -> the innermost op call around its launch (kNoOp: none);
// the first launch of an id wins. The launches sorted by id (12 bytes
// each), searched from where the previous lookup of the same device line
// ended: device events come roughly in launch order, so a search takes a
// few steps on memory the previous one touched, where a hash map would miss
// the cache on every lookup (and on every insert).
class LaunchTable {
 public:
  static constexpr int32_t kAbsent = INT32_MIN;

  // Room for `n` launches at once (an upper bound, e.g. the host events:
  // pages never written cost no memory), so that the table is not copied
  // and held twice as it grows.
  void Reserve(size_t n) { launches_.reserve(n); }
  void Add(int64_t id, int32_t call) { launches_.push_back(Launch(id, call)); }
  // How many were added; Truncate(n) (before Seal) forgets all added after
  // the first n (n <= size()).
  size_t size() const { return launches_.size(); }
  void Truncate(size_t n) { launches_.resize(n, Launch(0, 0)); }
  // Call after the last Add, before the first Find.
  void Seal() { SortStably(&launches_); }
  // The call of id's launch (-1, kNoOp, if outside every op), kAbsent if none.
  // `hint` (start at 0) carries the position from one lookup to the next.
  int32_t Find(int64_t id, size_t* hint) const {
    const size_t at = LowerBoundNear(id, *hint);
    *hint = at;
    return at < launches_.size() && launches_[at].id() == id ? launches_[at].call : kAbsent;
  }
  void Release() { std::vector<Launch>().swap(launches_); }

 private:
  // 12 bytes: the id in two 32-bit halves (as xplane::Stat keeps values).
  struct Launch {
    Launch(int64_t id, int32_t call)
        : id_low(static_cast<uint32_t>(id)),
          id_high(static_cast<uint32_t>(static_cast<uint64_t>(id) >> 32)),
          call(call) {}
    int64_t id() const { return static_cast<int64_t>(uint64_t{id_high} << 32 | id_low); }
    uint32_t id_low, id_high;
    int32_t call;
  };
  static_assert(sizeof(Launch) == 12, "Launch must stay compact");

  // Sorts by id, equal ids in the order added. The launches come in runs
  // of rising ids (one per thread line, as a thread launches in order):
  // the runs are merged, or, if there are many, the whole is sorted.
  static void SortStably(std::vector<Launch>* launches);

  // The first position whose id is not below `id`, galloping from `hint`.
  size_t LowerBoundNear(int64_t id, size_t hint) const {
    const size_t n = launches_.size();
    auto below = [&](size_t i) { return launches_[i].id() < id; };
    size_t lo, hi;  // The answer is in [lo, hi].
    if (hint < n && below(hint)) {
      lo = hint + 1;
      size_t step = 1;
      while (lo + step - 1 < n && below(lo + step - 1)) {
        lo += step;
        step *= 2;
      }
      hi = std::min(n, lo + step - 1);
    } else {
      hi = std::min(hint, n);
      size_t step = 1;
      while (hi >= step && !below(hi - step)) {
        hi -= step;
        step *= 2;
      }
      lo = hi >= step ? hi - step + 1 : 0;
    }
    auto first = launches_.begin();
    return static_cast<size_t>(
        std::lower_bound(first + lo, first + hi, id,
                         [](const Launch& l, int64_t v) { return l.id() < v; }) -
        first);
  }

  std::vector<Launch> launches_;
};

}  // namespace tbprof::views::op_tree_internal

#endif  // TBPROF_CONVERTERS_VIEWS_OPERATORS_OP_TREE_LAUNCHES_H_
