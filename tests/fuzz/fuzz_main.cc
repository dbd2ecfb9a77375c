// libFuzzer driver for one target of fuzz_entry_points.h, chosen at build
// time by TBPROF_FUZZ_TARGET_NAME (see tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "google/protobuf/stubs/logging.h"
#include "tests/fuzz/fuzz_entry_points.h"

#ifndef TBPROF_FUZZ_TARGET_NAME
#error "define TBPROF_FUZZ_TARGET_NAME"
#endif

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Protobuf logs every rejected UTF-8 string; thousands per second drown
  // the fuzzer's own output.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tbprof::fuzz::RunFuzzTarget(
      TBPROF_FUZZ_TARGET_NAME, absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
