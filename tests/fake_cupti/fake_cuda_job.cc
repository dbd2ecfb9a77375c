// A stand-in for a CUDA training job, for testing `tbprof record` without a
// GPU: it does what the CUDA driver does with CUDA_INJECTION64_PATH (dlopen
// the library, call InitializeInjection) and then runs a scripted workload
// through the fake libcupti it is linked with.
//
//   fake_cuda_job [STEPS [EXIT_CODE [STEP_MS]]]
// STEP_MS (default 0): sleep between steps, so that a capture can be started
// and stopped over the control channel while the job runs.
// FAKE_CUPTI_HOLD_SUBSCRIBER=NAME: another profiler (NAME) holds CUPTI's one
// subscriber before the collector starts (tools/gpu_check's coexistence check).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "tests/fake_cupti/fake_cupti_control.h"
#include "tests/fake_cupti/fake_workload.h"

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 3;
  const int exit_code = argc > 2 ? std::atoi(argv[2]) : 0;
  const int step_ms = argc > 3 ? std::atoi(argv[3]) : 0;
  if (const char* holder = std::getenv("FAKE_CUPTI_HOLD_SUBSCRIBER")) {
    fakecupti_hold_subscriber(holder);
  }
  if (const char* path = std::getenv("CUDA_INJECTION64_PATH")) {
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      std::fprintf(stderr, "fake_cuda_job: cannot load %s: %s\n", path, dlerror());
      return 3;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    if (init == nullptr || init() != 1) return 4;
  }
  fakecupti_context_created(0);
  tbprof::fake::FakeGpu gpu;
  for (int step = 1; step <= steps; ++step) {
    gpu.Step(step, /*kernels=*/6, /*devices=*/1, /*streams=*/2);
    if (step_ms > 0) usleep(static_cast<useconds_t>(step_ms) * 1000);
  }
  std::printf("fake_cuda_job: %d steps done\n", steps);
  return exit_code;  // The collector's atexit handler finishes the capture.
}
