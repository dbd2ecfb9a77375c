#include "tools/convert/convert_malloc.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tbprof::cli {

void UseOneMallocArena() {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.arena_max") != nullptr) return;
  mallopt(M_ARENA_MAX, 1);
#endif
}

}  // namespace tbprof::cli
