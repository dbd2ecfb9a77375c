// glibc malloc settings of `tbprof convert`.
#ifndef TBPROF_TOOLS_CONVERT_CONVERT_MALLOC_H_
#define TBPROF_TOOLS_CONVERT_CONVERT_MALLOC_H_

namespace tbprof::cli {

// Makes every thread allocate from glibc's main arena (mallopt M_ARENA_MAX 1)
// instead of one arena per thread. Convert frees the loader's temporaries
// on its main thread and then allocates the views on other threads; with
// per-thread arenas the views took fresh pages while the freed ones stayed
// resident in the main arena (peak RSS on the 318 MB benchmark trace:
// 160 MB with per-thread arenas, 124 MB with one, no more CPU time: most
// allocations are large and few, the small ones hit the per-thread tcache).
// Call before starting threads; arenas created earlier are kept. No-op
// without glibc or when GLIBC_TUNABLES sets glibc.malloc.arena_max (the
// user's choice wins).
void UseOneMallocArena();

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_CONVERT_CONVERT_MALLOC_H_
