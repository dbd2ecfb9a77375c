// Transparent huge pages for large arrays that are written in full.
//
// A fresh array of N bytes costs N / 4096 page faults as it is first
// written: on a 27 MB xplane.pb, `report` took 20 k faults, about a quarter
// of its CPU time in the kernel. Asking for transparent huge pages (2 MB)
// on an array that will be written from end to end turns 512 of those faults
// into one, and costs no memory: every page of it is resident anyway.
//
// Only for arrays that are written in full (e.g. a vector allocated at its
// final size and then filled): on an array reserved larger than it is
// filled, a huge page maps 2 MB where a few bytes were written, so the
// resident memory grows.
#ifndef TBPROF_SRC_BASE_HUGE_PAGES_H_
#define TBPROF_SRC_BASE_HUGE_PAGES_H_

#include <cstddef>
#include <cstdint>

namespace tbprof {

// Arrays smaller than this are left alone (they hold at most one whole huge
// page, and blocks this small may share the heap with other data).
inline constexpr size_t kHugePageMinBytes = size_t{4} << 20;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// The whole 2 MB-aligned pages inside [begin, begin + bytes): [first, last),
// empty (first == last) when there are none or `bytes` < kHugePageMinBytes.
struct HugePageSpan {
  uintptr_t first = 0;
  uintptr_t last = 0;
  size_t bytes() const { return static_cast<size_t>(last - first); }
};
HugePageSpan HugePageSpanOf(const void* begin, size_t bytes);

// Advises the kernel to back HugePageSpanOf(begin, bytes) with transparent
// huge pages (madvise MADV_HUGEPAGE), before the memory is first written.
// Best effort: does nothing where the kernel has no transparent huge pages
// or they are off ("never"); never fails. Returns the span advised (empty
// when nothing was).
HugePageSpan AdviseHugePages(const void* begin, size_t bytes);

// The same for the capacity of a vector-like container (data(), capacity()).
template <typename Vector>
HugePageSpan AdviseHugePagesFor(const Vector& v) {
  return AdviseHugePages(v.data(), v.capacity() * sizeof(*v.data()));
}

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_HUGE_PAGES_H_
