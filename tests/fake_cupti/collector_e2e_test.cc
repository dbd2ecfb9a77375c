// End-to-end tests of libtbprof_cupti.so against the fake libcupti.so.13:
// the collector is dlopen()ed as the CUDA driver would, InitializeInjection()
// is called, scripted workloads run through the real callbacks, and the
// resulting capture is checked with the raw-capture reader. Every scenario
// runs in a forked child so that each sees a fresh process (the collector is
// process-global and disables itself for good after an error).
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cupti.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fake_cupti/child_process_test_util.h"
#include "src/capture/raw_capture.h"
#ifdef TBPROF_HAVE_RAW_CAPTURE_CONVERTER
#include "converters/raw_capture/raw_capture_to_xspace.h"
#include "src/xplane/xspace_visitor.h"
#endif
#include "src/collector/tbprof.h"
#include "tests/fake_cupti/alloc_counter.h"
#include "tests/fake_cupti/fake_cupti_control.h"
#include "tests/fake_cupti/fake_workload.h"



namespace tbprof {
namespace {

using ::tbprof::testing_util::RunInChild;
using ::tbprof::testing_util::StderrCapture;

using capture::ActivityRecord;
using capture::ActivityRecordIterator;
using capture::EndReason;
using capture::RawCapture;
using ::testing::HasSubstr;
namespace layout = capture::layout;

struct CollectorLib {
  int (*InitializeInjection)() = nullptr;
  int (*start)(const tbprof_options*) = nullptr;
  int (*stop)() = nullptr;
  int64_t (*step)() = nullptr;
  int (*flush)() = nullptr;
  int (*capture_path)(char*, size_t) = nullptr;

  std::string Path() const {
    char buf[4096];
    return capture_path(buf, sizeof(buf)) < 0 ? "" : std::string(buf);
  }
};

CollectorLib LoadCollector() {
  CollectorLib lib;
  void* h = dlopen(TBPROF_COLLECTOR_PATH, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  if (h == nullptr) return lib;
  lib.InitializeInjection = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
  lib.start = reinterpret_cast<int (*)(const tbprof_options*)>(dlsym(h, "tbprof_start"));
  lib.stop = reinterpret_cast<int (*)()>(dlsym(h, "tbprof_stop"));
  lib.step = reinterpret_cast<int64_t (*)()>(dlsym(h, "tbprof_step"));
  lib.flush = reinterpret_cast<int (*)()>(dlsym(h, "tbprof_flush"));
  lib.capture_path = reinterpret_cast<int (*)(char*, size_t)>(dlsym(h, "tbprof_capture_path"));
  EXPECT_NE(lib.InitializeInjection, nullptr);
  EXPECT_EQ(dlsym(h, "_ZN6tbprof9collector9Collector3GetEv"), nullptr) << "internals exported";
  return lib;
}

// Everything the tests write lives under one directory of the test process
// (computed before any fork), removed at the end; names carry the pid of the
// process asking (scenarios run in forked children).
const std::string g_root = testing_util::RegisterTestRoot("collector_e2e_");

std::string LogDir(const std::string& name) {
  mkdir(g_root.c_str(), 0700);
  return g_root + "/" + std::to_string(getpid()) + "_" + name;
}

void SetEnv(const std::string& logdir) {
  fakecuda_set_device_count(2);  // also makes the test load the fake libcuda.so.1
  setenv("TBPROF_LOGDIR", logdir.c_str(), 1);
  setenv("TBPROF_RUN", "run1", 1);
  setenv("TBPROF_BUFFER_MB", "4", 1);
  setenv("TBPROF_BUFFER_KB", "64", 1);
  setenv("TBPROF_FLUSH_MS", "20", 1);
}



struct Summary {
  std::map<uint32_t, uint64_t> by_kind;
  std::set<std::string> kernel_names;
  std::set<std::string> marker_names;
  std::set<uint32_t> kernel_correlations;
  std::set<uint32_t> runtime_correlations;
  std::set<uint32_t> api_threads;
  std::set<uint32_t> kernel_devices;
  uint64_t poisoned_names = 0;
  uint64_t stale_pointers = 0;
  uint64_t walk_errors = 0;
  uint64_t total = 0;
};

Summary Summarize(const RawCapture& cap) {
  Summary s;
  for (const auto& buf : cap.buffers) {
    ActivityRecordIterator it(buf.records(), *buf.sizes);
    ActivityRecord r;
    while (it.Next(&r)) {
      s.by_kind[r.kind]++;
      s.total++;
      if (r.kind == layout::kKindConcurrentKernel) {
        layout::KernelRecord k;
        layout::CopyRecord(r.data, r.size, &k);
        const std::string& name = cap.String(k.name);
        if (name.find("POISON") != std::string::npos) s.poisoned_names++;
        s.kernel_names.insert(name);
        s.kernel_correlations.insert(k.correlation_id);
        s.kernel_devices.insert(k.device_id);
        if (k.access_policy_window != 0) s.stale_pointers++;
      } else if (r.kind == layout::kKindRuntime || r.kind == layout::kKindDriver) {
        layout::ApiRecord a;
        layout::CopyRecord(r.data, r.size, &a);
        s.runtime_correlations.insert(a.correlation_id);
        s.api_threads.insert(a.thread_id);
      } else if (r.kind == layout::kKindMarker) {
        layout::MarkerRecord m;
        layout::CopyRecord(r.data, r.size, &m);
        if (m.flags & layout::kFlagMarkerStart) {
          const std::string& name = cap.String(m.name);
          if (name.find("POISON") != std::string::npos) s.poisoned_names++;
          s.marker_names.insert(name);
        }
      } else if (r.kind == layout::kKindOverhead) {
        layout::OverheadRecord o;
        layout::CopyRecord(r.data, r.size, &o);
        if (o.overhead_data != 0) s.stale_pointers++;
      } else if (r.kind == layout::kKindMemory2) {
        layout::MemoryRecord m;
        layout::CopyRecord(r.data, r.size, &m);
        if (cap.String(m.name) != "activations") s.stale_pointers++;
      }
    }
    if (!it.ok()) s.walk_errors++;
  }
  return s;
}

RawCapture LoadOrDie(const std::string& path) {
  auto cap = capture::LoadRawCapture(path);
  EXPECT_TRUE(cap.ok()) << cap.status();
  return cap.ok() ? std::move(*cap) : RawCapture();
}

// Runs `steps` steps on each of `threads` threads, naming the threads.
void RunThreads(fake::FakeGpu* gpu, int threads, int steps, int kernels) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      std::string name = "worker_" + std::to_string(t);
      pthread_setname_np(pthread_self(), name.c_str());
      for (int s = 0; s < steps; ++s) gpu->Step(s, kernels, /*devices=*/2, /*streams=*/3);
    });
  }
  for (auto& t : pool) t.join();
}

// The allocation counter used below really sees allocations.
TEST(CollectorE2eTest, AllocationCounterCountsInsideCallbacksOnly) {
  if (!fake::AllocCounterEnabled()) GTEST_SKIP() << "sanitizer build";
  fake::ResetCallbackStats();
  void* outside = malloc(16);
  fake::AllocCounterEnter();
  void* inside = malloc(16);
  std::string* s = new std::string(100, 'x');
  fake::AllocCounterLeave();
  EXPECT_EQ(fake::GetCallbackStats().allocations, 2u);
  EXPECT_EQ(fake::GetCallbackStats().callbacks, 1u);
  delete s;
  free(inside);
  free(outside);
  fake::ResetCallbackStats();
}

TEST(CollectorE2eTest, RecordsEveryKindFromSeveralThreadsAndDevices) {
  RunInChild([] {
    std::string logdir = LogDir("all");
    SetEnv(logdir);
    CollectorLib lib = LoadCollector();
    fakecupti_set_callback_observer(&fake::AllocCounterEnter, &fake::AllocCounterLeave);
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fakecupti_context_created(0);
    fakecupti_context_created(1);
    fake::FakeGpu gpu;
    RunThreads(&gpu, /*threads=*/3, /*steps=*/20, /*kernels=*/40);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    EXPECT_EQ(fakecupti_call_count("cuptiFinalize"), 0u);
    fake::CallbackStats cb = fake::GetCallbackStats();
    EXPECT_GT(cb.callbacks, 0u);
    EXPECT_EQ(cb.allocations, 0u) << "the CUPTI callbacks allocated memory";

    std::string path = lib.Path();
    EXPECT_THAT(path, HasSubstr(logdir + "/plugins/profile/run1/"));
    EXPECT_THAT(path, HasSubstr("." + std::to_string(getpid()) + ".tbcap"));
    RawCapture cap = LoadOrDie(path);
    EXPECT_FALSE(cap.read_stats.lost_anything());
    ASSERT_TRUE(cap.trailer.has_value());
    EXPECT_EQ(cap.trailer->end_reason, EndReason::kStopped);
    EXPECT_EQ(cap.header.pid, static_cast<uint32_t>(getpid()));
    EXPECT_EQ(cap.header.cupti_version_runtime, static_cast<uint32_t>(CUPTI_API_VERSION));
    EXPECT_EQ(cap.header.run_name, "run1");
    EXPECT_EQ(cap.header.step_pattern, "ProfilerStep#*");
    EXPECT_EQ(cap.header.cuda_driver_version, 13000);

    Summary s = Summarize(cap);
    fakecupti_stats stats;
    fakecupti_get_stats(&stats);
    EXPECT_EQ(stats.records_dropped, 0u);
    EXPECT_EQ(gpu.counts.rejected.load(), 0u);
    EXPECT_EQ(s.total, gpu.counts.total());
    EXPECT_EQ(cap.trailer->activity_records, gpu.counts.total());
    EXPECT_EQ(cap.trailer->activity_buffers, cap.buffers.size());
    EXPECT_EQ(s.by_kind[layout::kKindConcurrentKernel], gpu.counts.kernels.load());
    EXPECT_EQ(s.by_kind[layout::kKindMemcpy], gpu.counts.memcpys.load());
    EXPECT_EQ(s.by_kind[layout::kKindMemset], gpu.counts.memsets.load());
    EXPECT_EQ(s.by_kind[layout::kKindRuntime], gpu.counts.runtime.load());
    EXPECT_EQ(s.by_kind[layout::kKindDriver], gpu.counts.driver.load());
    EXPECT_EQ(s.by_kind[layout::kKindMarker], gpu.counts.markers.load());
    EXPECT_EQ(s.by_kind[layout::kKindMemory2], gpu.counts.memory.load());
    EXPECT_EQ(s.by_kind[layout::kKindSynchronization], gpu.counts.syncs.load());
    EXPECT_EQ(s.by_kind[layout::kKindExternalCorrelation], gpu.counts.external.load());
    EXPECT_EQ(s.by_kind[layout::kKindOverhead], gpu.counts.overheads.load());
    EXPECT_EQ(s.walk_errors, 0u);
    EXPECT_EQ(s.poisoned_names, 0u) << "a name was read after its completion callback";
    EXPECT_EQ(s.stale_pointers, 0u);
    EXPECT_EQ(s.kernel_names.size(), 40u);
    EXPECT_EQ(s.kernel_names.count("kernel_39"), 1u);
    EXPECT_EQ(s.marker_names.count("ProfilerStep#19"), 1u);
    EXPECT_EQ(s.kernel_devices, (std::set<uint32_t>{0, 1}));
    EXPECT_EQ(s.api_threads.size(), 3u);
    for (uint32_t c : s.kernel_correlations) EXPECT_EQ(s.runtime_correlations.count(c), 1u);
    EXPECT_GT(cap.buffers.size(), 10u);  // small buffers: many completions

    ASSERT_EQ(cap.devices.size(), 2u);
    EXPECT_EQ(cap.devices[1].name, "Fake H100 #1");
    EXPECT_EQ(cap.devices[0].Get(capture::DeviceAttr::kMultiprocessorCount), 132);
    EXPECT_EQ(cap.devices[0].Get(capture::DeviceAttr::kMaxSharedMemoryPerBlockOptin), 232448);
    EXPECT_EQ(cap.devices[0].Get(capture::DeviceAttr::kReservedSharedMemoryPerBlock), 1024);
    EXPECT_EQ(cap.devices[0].Get(capture::DeviceAttr::kMemoryBandwidthBytesPerSec),
              int64_t{2} * 2619000 * 1000 * 5120 / 8);
    std::set<std::string> names;
    for (const auto& t : cap.thread_names) names.insert(t.name);
    EXPECT_EQ(names.count("worker_0") + names.count("worker_1") + names.count("worker_2"), 3u)
        << "thread names are polled every second; the threads may have ended before";
    EXPECT_GE(cap.clock_samples.size(), 1u);
    EXPECT_EQ(cap.callback_names.at({2, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}),
              "cudaLaunchKernel_v7000");
    EXPECT_EQ(cap.callback_names.at({1, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async}),
              "cuMemsetD8Async");
    EXPECT_GE(cap.header.kind_sizes.size(), 10u);
  });
}

TEST(CollectorE2eTest, IncompleteBuffersAreWithheldUntilForcedFlush) {
  RunInChild([] {
    SetEnv(LogDir("incomplete"));
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    fakecupti_set_incomplete(1);
    gpu.Step(/*step=*/0, /*kernels=*/5, /*devices=*/1, /*streams=*/1);
    ASSERT_EQ(lib.flush(), TBPROF_OK);  // FlushAll(0) must not return them
    {
      RawCapture mid = LoadOrDie(lib.Path());
      EXPECT_EQ(Summarize(mid).total, 0u);
      EXPECT_FALSE(mid.trailer.has_value());
    }
    ASSERT_EQ(lib.stop(), TBPROF_OK);  // FlushAll(FORCED) returns them
    RawCapture cap = LoadOrDie(lib.Path());
    EXPECT_EQ(Summarize(cap).total, gpu.counts.total());
    EXPECT_TRUE(cap.trailer.has_value());
  });
}

TEST(CollectorE2eTest, CompletedBuffersReachTheFileWhileRunning) {
  RunInChild([] {
    SetEnv(LogDir("running"));
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    gpu.Step(0, 5, 1, 1);
    ASSERT_EQ(lib.flush(), TBPROF_OK);
    RawCapture mid = LoadOrDie(lib.Path());
    EXPECT_EQ(Summarize(mid).total, gpu.counts.total());
    EXPECT_FALSE(mid.read_stats.lost_anything());
    ASSERT_EQ(lib.stop(), TBPROF_OK);
  });
}

TEST(CollectorE2eTest, BufferBudgetExhaustionCountsDrops) {
  RunInChild([] {
    SetEnv(LogDir("budget"));
    setenv("TBPROF_BUFFER_MB", "1", 1);
    setenv("TBPROF_BUFFER_KB", "16", 1);  // 64 buffers of 16 KiB
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fakecupti_set_incomplete(1);  // CUPTI keeps every buffer until the forced flush
    fake::FakeGpu gpu;
    for (int s = 0; s < 200; ++s) gpu.Step(s, 50, 1, 1);
    EXPECT_GT(gpu.counts.rejected.load(), 0u);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    RawCapture cap = LoadOrDie(lib.Path());
    ASSERT_TRUE(cap.trailer.has_value());
    EXPECT_GT(cap.trailer->buffers_refused, 0u);
    EXPECT_EQ(cap.trailer->dropped_by_cupti, gpu.counts.rejected.load());
    uint64_t dropped = 0;
    for (const auto& d : cap.drops) dropped += d.dropped_by_cupti;
    EXPECT_EQ(dropped, gpu.counts.rejected.load());
    EXPECT_EQ(Summarize(cap).total, gpu.counts.total());
  });
}

TEST(CollectorE2eTest, OldCuptiGetsADiscardBufferInsteadOfNull) {
  RunInChild([] {
    SetEnv(LogDir("oldcupti"));
    setenv("TBPROF_BUFFER_MB", "1", 1);
    setenv("TBPROF_BUFFER_KB", "16", 1);
    fakecupti_set_version(26);  // the fake aborts on NULL buffers, as CUPTI < 27 crashes
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fakecupti_set_incomplete(1);
    fake::FakeGpu gpu;
    for (int s = 0; s < 200; ++s) gpu.Step(s, 50, 1, 1);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    RawCapture cap = LoadOrDie(lib.Path());
    ASSERT_TRUE(cap.trailer.has_value());
    EXPECT_GT(cap.trailer->buffers_refused, 0u);
    uint64_t discarded = 0;
    for (const auto& d : cap.drops) discarded += d.discarded_bytes;
    EXPECT_GT(discarded, 0u);
    // Records in the discard buffer are lost; everything else arrives intact.
    Summary s = Summarize(cap);
    EXPECT_LT(s.total, gpu.counts.total());
    EXPECT_EQ(s.walk_errors, 0u);
    EXPECT_EQ(s.poisoned_names, 0u);
  });
}

// Every CUPTI call the collector makes, injected with each error code: the
// job goes on, exactly one message is printed, the capture is closed with the
// error recorded, and the collector stays off.
TEST(CollectorE2eTest, EveryCuptiErrorDisablesTracingCleanly) {
  const char* functions[] = {
      "cuptiGetVersion",           "cuptiSubscribe_v2",      "cuptiActivitySetAttribute",
      "cuptiSetThreadIdType",      "cuptiActivityRegisterCallbacks", "cuptiEnableCallback",
      "cuptiActivityEnable",       "cuptiActivityFlushAll",  "cuptiActivityGetNumDroppedRecords",
      "cuptiActivityDisable",      "cuptiUnsubscribe",
  };
  for (const char* fn : functions) {
    for (int code : {35, 39, 999}) {
      SCOPED_TRACE(std::string(fn) + " -> " + std::to_string(code));
      RunInChild([&] {
        std::string logdir = LogDir(std::string("err_") + fn + std::to_string(code));
        SetEnv(logdir);
        fakecupti_inject_error(fn, code, /*nth=*/1);
        StderrCapture err(logdir + ".stderr");
        CollectorLib lib = LoadCollector();
        EXPECT_EQ(lib.InitializeInjection(), 1);
        fake::FakeGpu gpu;
        for (int s = 0; s < 3; ++s) gpu.Step(s, 10, 2, 2);
        lib.flush();
        lib.stop();
        const bool informational = std::string(fn) == "cuptiGetVersion";
        int restart = lib.start(nullptr);
        if (restart == TBPROF_OK) lib.stop();
        std::string text = err.Read();
        ASSERT_GT(fakecupti_call_count(fn), 0u) << "the collector never calls " << fn;
        if (informational) {
          EXPECT_EQ(text, "") << "the version is informational";
          return;
        }
        EXPECT_EQ(restart, TBPROF_E_DISABLED);
        int lines = 0;
        for (char c : text) lines += c == '\n';
        EXPECT_EQ(lines, 1) << text;
        EXPECT_THAT(text, HasSubstr("CUPTI error " + std::to_string(code)));
        EXPECT_THAT(text, HasSubstr("the job continues"));
        if (code == 35) {
          EXPECT_THAT(text, HasSubstr("NVreg_RestrictProfilingToAdminUsers=0"));
        }
        if (code == 39) {
          EXPECT_THAT(text, HasSubstr("Another profiler"));
        }
        std::string path = lib.Path();
        ASSERT_FALSE(path.empty());
        RawCapture cap = LoadOrDie(path);
        ASSERT_TRUE(cap.trailer.has_value());
        // Errors in calls made only while stopping leave the stop's reason.
        const bool teardown_only = std::string(fn) == "cuptiActivityDisable" ||
                                   std::string(fn) == "cuptiUnsubscribe";
        EXPECT_EQ(cap.trailer->end_reason,
                  teardown_only ? EndReason::kStopped : EndReason::kCuptiError);
        bool found = false;
        for (const auto& m : cap.messages) found |= m.code == code;
        EXPECT_TRUE(found);
        EXPECT_EQ(Summarize(cap).walk_errors, 0u);
      });
    }
  }
}

TEST(CollectorE2eTest, AnotherProfilerHoldingCuptiIsNamed) {
  RunInChild([] {
    std::string logdir = LogDir("held");
    SetEnv(logdir);
    fakecupti_hold_subscriber("Nsight Systems");
    StderrCapture err(logdir + ".stderr");
    CollectorLib lib = LoadCollector();
    EXPECT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    gpu.Step(0, 3, 1, 1);
    EXPECT_EQ(gpu.counts.total(), 0u);  // nothing enabled
    lib.stop();
    std::string text = err.Read();
    EXPECT_THAT(text, HasSubstr("CUPTI error 39"));
    EXPECT_THAT(text, HasSubstr("current subscriber: Nsight Systems"));
  });
}

TEST(CollectorE2eTest, ForkedChildIsInertAndParentCaptureIntact) {
  RunInChild([] {
    SetEnv(LogDir("fork"));
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    gpu.Step(0, 5, 1, 1);
    pid_t child = fork();
    if (child == 0) {
      int rc = 0;
      if (lib.flush() != TBPROF_E_DISABLED) rc |= 1;
      if (lib.step() != -1) rc |= 2;
      if (lib.start(nullptr) != TBPROF_E_DISABLED) rc |= 4;
#if defined(__SANITIZE_ADDRESS__)
      // GCC's ASan allocator takes no lock across fork(): when the writer or
      // the fake CUPTI thread was inside malloc at the fork, the child's
      // first free/malloc (static destructors, the leak check at exit)
      // waits forever. The atexit path is checked by the normal build.
      _exit(rc);
#else
      exit(rc);  // runs atexit handlers: they must not touch the parent's capture
#endif
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    gpu.Step(1, 5, 1, 1);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    RawCapture cap = LoadOrDie(lib.Path());
    EXPECT_FALSE(cap.read_stats.lost_anything());
    ASSERT_TRUE(cap.trailer.has_value());
    EXPECT_EQ(cap.trailer->end_reason, EndReason::kStopped);
    EXPECT_EQ(Summarize(cap).total, gpu.counts.total());
  });
}

TEST(CollectorE2eTest, ExitMidCaptureFlushesAndWritesTrailer) {
  std::string logdir = LogDir("exit");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  uint64_t emitted = 0;
  if (pid == 0) {
    SetEnv(logdir);
    CollectorLib lib = LoadCollector();
    lib.InitializeInjection();
    fake::FakeGpu gpu;
    fakecupti_set_incomplete(1);  // only the forced flush at exit returns these
    for (int s = 0; s < 5; ++s) gpu.Step(s, 10, 2, 2);
    std::ofstream(logdir + ".count") << gpu.counts.total();
    exit(0);  // no tbprof_stop()
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  std::ifstream(logdir + ".count") >> emitted;
  std::string path = logdir + "/plugins/profile/run1/";
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  path += std::string(host) + "." + std::to_string(pid) + ".tbcap";
  RawCapture cap = LoadOrDie(path);
  ASSERT_TRUE(cap.trailer.has_value());
  EXPECT_EQ(cap.trailer->end_reason, EndReason::kProcessExit);
  EXPECT_GT(emitted, 0u);
  EXPECT_EQ(Summarize(cap).total, emitted);
}

TEST(CollectorE2eTest, KilledMidCaptureKeepsEveryWrittenChunk) {
  std::string logdir = LogDir("killed");
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    SetEnv(logdir);
    CollectorLib lib = LoadCollector();
    lib.InitializeInjection();
    fake::FakeGpu gpu;
    for (int s = 0; s < 5; ++s) gpu.Step(s, 10, 2, 2);
    lib.flush();
    uint64_t n = gpu.counts.total();
    if (write(pipefd[1], &n, sizeof(n)) != sizeof(n)) _exit(3);
    gpu.Step(99, 10, 2, 2);  // still in CUPTI's buffers when killed
    raise(SIGKILL);
  }
  close(pipefd[1]);
  uint64_t flushed = 0;
  ASSERT_EQ(read(pipefd[0], &flushed, sizeof(flushed)), static_cast<ssize_t>(sizeof(flushed)));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string path = logdir + "/plugins/profile/run1/" + host + "." + std::to_string(pid) +
                     ".tbcap";
  auto reader = capture::RawCaptureReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  RawCapture cap = capture::LoadRawCaptureFrom(reader->get());
  EXPECT_FALSE(cap.trailer.has_value());
  EXPECT_THAT((*reader)->LossSummary(), HasSubstr("no trailer"));
  EXPECT_GE(Summarize(cap).total, flushed);
  EXPECT_EQ(Summarize(cap).walk_errors, 0u);
}

TEST(CollectorE2eTest, StepWindowRecordsOnlyTheConfiguredSteps) {
  RunInChild([] {
    SetEnv(LogDir("steps"));
    setenv("TBPROF_STEPS", "2-3", 1);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    uint64_t in_window = 0;
    for (int step = 0; step < 6; ++step) {
      EXPECT_EQ(lib.step(), step);
      uint64_t before = gpu.counts.total();
      gpu.Step(step, 4, 1, 1);
      if (step >= 2 && step <= 3) in_window += gpu.counts.total() - before;
    }
    EXPECT_EQ(gpu.counts.total(), in_window);
    lib.stop();
    RawCapture cap = LoadOrDie(lib.Path());
    Summary s = Summarize(cap);
    EXPECT_EQ(s.total, in_window);
    EXPECT_EQ(s.marker_names, (std::set<std::string>{"ProfilerStep#2", "ProfilerStep#3"}));
    std::vector<int64_t> steps;
    for (const auto& m : cap.markers) {
      if (m.kind == capture::MarkerKind::kStep) steps.push_back(m.value);
    }
    // Step markers are kept while the capture is open (before and after the window).
    EXPECT_THAT(steps, ::testing::IsSupersetOf({2, 3}));
    EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
    ASSERT_TRUE(cap.trailer.has_value());
    EXPECT_EQ(cap.trailer->end_reason, EndReason::kStopped);
  });
}

TEST(CollectorE2eTest, NvtxStepRangesDriveTheWindow) {
  RunInChild([] {
    SetEnv(LogDir("nvtx"));
    setenv("TBPROF_STEPS", "5", 1);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    for (int step = 3; step < 8; ++step) {
      fakecupti_nvtx_range_push("aten::mm");  // not a step
      fakecupti_nvtx_range_push(("ProfilerStep#" + std::to_string(step)).c_str());
      gpu.Step(step, 2, 1, 1);
    }
    lib.stop();
    RawCapture cap = LoadOrDie(lib.Path());
    EXPECT_EQ(Summarize(cap).marker_names, (std::set<std::string>{"ProfilerStep#5"}));
  });
}

TEST(CollectorE2eTest, StartDelayKeepsTracingOffAtFirst) {
  RunInChild([] {
    SetEnv(LogDir("delay"));
    setenv("TBPROF_START_DELAY_MS", "60000", 1);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    gpu.Step(0, 3, 1, 1);
    EXPECT_EQ(gpu.counts.total(), 0u);
    EXPECT_GT(gpu.counts.rejected.load(), 0u);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    RawCapture cap = LoadOrDie(lib.Path());
    EXPECT_TRUE(cap.trailer.has_value());
  });
}

TEST(CollectorE2eTest, ApiSessionsWriteSeparateCaptures) {
  RunInChild([] {
    std::string logdir = LogDir("api");
    SetEnv(logdir);
    CollectorLib lib = LoadCollector();
    tbprof_options opts = {};
    opts.struct_size = sizeof(opts);
    opts.run = "api_run";
    ASSERT_EQ(lib.start(&opts), TBPROF_OK);
    EXPECT_EQ(lib.start(&opts), TBPROF_E_ALREADY_STARTED);
    fake::FakeGpu gpu;
    gpu.Step(0, 3, 1, 1);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    EXPECT_EQ(lib.stop(), TBPROF_E_NOT_STARTED);
    std::string first = lib.Path();
    uint64_t first_count = gpu.counts.total();
    ASSERT_EQ(lib.start(&opts), TBPROF_OK);
    gpu.Step(1, 3, 1, 1);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    std::string second = lib.Path();
    EXPECT_NE(first, second);
    EXPECT_THAT(first, HasSubstr("/plugins/profile/api_run/"));
    EXPECT_THAT(second, HasSubstr("-2.tbcap"));
    RawCapture a = LoadOrDie(first);
    RawCapture b = LoadOrDie(second);
    EXPECT_EQ(Summarize(a).total, first_count);
    Summary sb = Summarize(b);
    EXPECT_EQ(sb.total, gpu.counts.total() - first_count);
    // The second file carries its own string table.
    EXPECT_EQ(sb.kernel_names, (std::set<std::string>{"kernel_0", "kernel_1", "kernel_2"}));
    EXPECT_EQ(b.devices.size(), 2u);  // API start: CUDA already initialized
  });
}

#ifdef TBPROF_HAVE_RAW_CAPTURE_CONVERTER
// Collector -> capture -> XSpace: what the profile plugin needs is there.
TEST(CollectorE2eTest, CaptureConvertsToThePluginsXSpace) {
  RunInChild([] {
    SetEnv(LogDir("xspace"));
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fakecupti_context_created(0);
    fake::FakeGpu gpu;
    for (int s = 0; s < 4; ++s) gpu.Step(s, /*kernels=*/6, /*devices=*/2, /*streams=*/2);
    ASSERT_EQ(lib.stop(), TBPROF_OK);
    xplane::XSpaceData space;
    auto summary = converters::ConvertRawCaptureToXSpace(lib.Path(), {}, &space);
    ASSERT_TRUE(summary.ok()) << summary.status();
    EXPECT_EQ(summary->kernels, static_cast<int64_t>(gpu.counts.kernels.load()));
    EXPECT_EQ(summary->step_roots, 4);
    EXPECT_EQ(summary->records_bad_time, 0);
    EXPECT_EQ(summary->unmatched_markers, 0);
    EXPECT_EQ(summary->memory_events, static_cast<int64_t>(gpu.counts.memory.load()));
    EXPECT_TRUE(space.errors.empty());
    ASSERT_EQ(xplane::FindGpuPlanes(space).size(), 2u);
    // Every kernel: correlation_id, kernel_details with occupancy; every
    // launch on a host line with the same correlation_id inside a step root.
    std::set<int64_t> kernel_corr, launch_corr;
    int64_t kernels_with_occ = 0;
    const int64_t base = xplane::SpaceBaseNs(space);
    for (const xplane::Plane* p : xplane::FindGpuPlanes(space)) {
      xplane::XPlaneVisitor pv(&space, p, base);
      EXPECT_TRUE(pv.GetStat(xplane::StatType::kDevCapCoreCount).has_value());
      pv.ForEachLine([&](const xplane::XLineVisitor& line) {
        line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
          if (ev.name().substr(0, 7) != "kernel_") return;
          auto corr = ev.GetStat(xplane::StatType::kCorrelationId);
          ASSERT_TRUE(corr.has_value());
          kernel_corr.insert(corr->IntOrUintValue());
          auto details = ev.GetStat(xplane::StatType::kKernelDetails);
          ASSERT_TRUE(details.has_value());
          if (details->StrOrRefValue().find("occ_pct:") != absl::string_view::npos) {
            ++kernels_with_occ;
          }
        });
      });
    }
    const xplane::Plane* host = xplane::FindPlaneWithName(space, xplane::kHostThreadsPlaneName);
    ASSERT_NE(host, nullptr);
    xplane::XPlaneVisitor hv(&space, host, base);
    int64_t roots = 0;
    hv.ForEachLine([&](const xplane::XLineVisitor& line) {
      std::vector<std::pair<int64_t, int64_t>> steps;
      line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
        if (ev.GetStat(xplane::StatType::kIsRoot).has_value()) {
          ++roots;
          steps.push_back({ev.begin_ps(), ev.end_ps()});
        }
      });
      line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
        if (ev.name() != "cudaLaunchKernel") return;
        auto corr = ev.GetStat(xplane::StatType::kCorrelationId);
        ASSERT_TRUE(corr.has_value());
        launch_corr.insert(corr->IntOrUintValue());
        bool inside = false;
        for (auto [b, e] : steps) inside |= ev.begin_ps() >= b && ev.end_ps() <= e;
        EXPECT_TRUE(inside) << "launch outside every step root";
      });
    });
    EXPECT_EQ(roots, 4);
    EXPECT_EQ(kernel_corr.size(), gpu.counts.kernels.load());
    EXPECT_EQ(kernel_corr, launch_corr);
    EXPECT_EQ(kernels_with_occ, static_cast<int64_t>(gpu.counts.kernels.load()));
  });
}
#endif

}  // namespace
}  // namespace tbprof
