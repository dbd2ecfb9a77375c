// Exported C entry points of libtbprof_cupti.so (declared in tbprof.h).
#include "src/collector/collector.h"
#include "src/collector/tbprof.h"

using tbprof::collector::Collector;

extern "C" {

TBPROF_API int InitializeInjection(void) {
  // Never fail the job: the driver ignores our return value only when it is 1.
  Collector::Get()->StartFromInjection();
  return 1;
}

TBPROF_API int InitializeInjectionNvtx2(const void* get_export_table) {
  return Collector::Get()->InitializeNvtx(get_export_table);
}

TBPROF_API int tbprof_start(const tbprof_options* options) {
  return Collector::Get()->StartFromApi(options);
}

TBPROF_API int tbprof_stop(void) {
  return Collector::Get()->Stop(tbprof::capture::EndReason::kStopped);
}

TBPROF_API int64_t tbprof_step(void) { return Collector::Get()->Step(); }

TBPROF_API int tbprof_flush(void) { return Collector::Get()->Flush(); }

TBPROF_API int tbprof_capture_path(char* buf, size_t size) {
  return Collector::Get()->CapturePath(buf, size);
}

}  // extern "C"
