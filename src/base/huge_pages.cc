#include "src/base/huge_pages.h"

#include <sys/mman.h>

namespace tbprof {

HugePageSpan HugePageSpanOf(const void* begin, size_t bytes) {
  HugePageSpan span;
  if (begin == nullptr || bytes < kHugePageMinBytes) return span;
  const uintptr_t start = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (start + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  const uintptr_t last = (start + bytes) & ~(uintptr_t{kHugePageBytes} - 1);
  if (last > first) {
    span.first = first;
    span.last = last;
  }
  return span;
}

HugePageSpan AdviseHugePages(const void* begin, size_t bytes) {
  const HugePageSpan span = HugePageSpanOf(begin, bytes);
  if (span.bytes() == 0) return span;
#ifdef MADV_HUGEPAGE
  if (::madvise(reinterpret_cast<void*>(span.first), span.bytes(), MADV_HUGEPAGE) == 0) return span;
#endif
  return HugePageSpan{};
}

}  // namespace tbprof
