#include <malloc.h>

#include "tools/tbprof/cli.h"

int main(int argc, char** argv) {
  // glibc raises its mmap threshold (up to 32 MB) each time a large block is
  // freed, after which blocks of that size come from the heap, whose freed
  // pages are not given back while anything above them lives. tbprof's
  // phases free tens of MB of temporaries while the model they read stays,
  // so with the moving threshold the freed pages of one phase add to the
  // peak of the next (85 MB on an 868 MB xplane.pb: docs/benchmarks.md).
  // A fixed threshold keeps every block of 4 MB or more in its own mapping,
  // returned to the system when freed; smaller blocks stay on the heap and
  // are reused without new page faults (a 128 KB threshold cost `convert`
  // 10% of its time in mapping and faulting its buffers afresh).
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  return tbprof::cli::RunMain(argc, argv);
}
