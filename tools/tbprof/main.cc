#include <malloc.h>

#include "tools/tbprof/cli.h"

int main(int argc, char** argv) {
  // glibc raises its mmap threshold (up to 32 MB) each time a large block is
  // freed, after which blocks of that size come from the heap, whose freed
  // pages are not given back while anything above them lives. tbprof's
  // phases free tens of MB of temporaries while the model they read stays,
  // so with the moving threshold the freed pages of one phase add to the
  // peak of the next (about 75 MB on an 868 MB xplane.pb: docs/benchmarks.md).
  // A fixed threshold keeps every block of 128 KB or more in its own mapping,
  // returned to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  return tbprof::cli::RunMain(argc, argv);
}
