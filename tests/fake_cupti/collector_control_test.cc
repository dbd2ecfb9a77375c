// End-to-end tests of the collector's control channel (TBPROF_CONTROL_DIR)
// against the fake libcupti: the collector idles until a client (the
// capture server's role, ControlTestClient) starts a capture, and follows
// the safety rules of docs/control_channel.md. Scenarios run in forked
// children (the collector is process-global), and once with fake_cuda_job
// as a separate process.
#include <dlfcn.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fake_cupti/child_process_test_util.h"
#include "src/capture/control_protocol.h"
#include "src/capture/raw_capture.h"
#include "src/collector/control_test_client.h"
#include "src/collector/tbprof.h"
#ifdef TBPROF_HAVE_RAW_CAPTURE_CONVERTER
#include "converters/raw_capture/raw_capture_to_xspace.h"
#endif
#include "tests/fake_cupti/fake_cupti_control.h"
#include "tests/fake_cupti/fake_workload.h"

namespace tbprof {
namespace {

using ::tbprof::testing_util::RunInChild;
using ::tbprof::testing_util::StderrCapture;

using capture::CollectorState;
using capture::EndReason;
using capture::RawCapture;
using collector::ControlTestClient;
using ::testing::HasSubstr;
namespace layout = capture::layout;

struct CollectorLib {
  int (*InitializeInjection)() = nullptr;
  int (*stop)() = nullptr;
};

CollectorLib LoadCollector() {
  CollectorLib lib;
  void* h = dlopen(TBPROF_COLLECTOR_PATH, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  if (h == nullptr) return lib;
  lib.InitializeInjection = reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection"));
  lib.stop = reinterpret_cast<int (*)()>(dlsym(h, "tbprof_stop"));
  return lib;
}

// Everything the tests write lives under one directory of the test process
// (computed before any fork), removed at the end.
const std::string g_root = testing_util::RegisterTestRoot("tbprof_ctl_e2e_");

std::string Dir(const std::string& name) {
  mkdir(g_root.c_str(), 0700);
  std::string dir = g_root + "/" + name;
  mkdir(dir.c_str(), 0700);
  return dir;
}

// Environment of a job started by `tbprof serve`-style tooling.
void SetEnv(const std::string& control_dir) {
  fakecuda_set_device_count(1);
  setenv("TBPROF_CONTROL_DIR", control_dir.c_str(), 1);
  setenv("TBPROF_CONTROL_TIMEOUT_MS", "300", 1);
  setenv("TBPROF_BUFFER_MB", "4", 1);
  setenv("TBPROF_BUFFER_KB", "64", 1);
  setenv("TBPROF_FLUSH_MS", "20", 1);
  unsetenv("TBPROF_LOGDIR");
  unsetenv("TBPROF_RUN");
}

std::string SocketPath(const std::string& dir, pid_t pid) {
  return dir + "/" + capture::ControlSocketName(static_cast<uint32_t>(pid));
}

std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

template <typename Pred>
bool Eventually(Pred pred, int timeout_ms = 5000) {
  for (int i = 0; i < timeout_ms / 10 && !pred(); ++i) usleep(10000);
  return pred();
}



uint64_t CountKernels(const RawCapture& cap, uint64_t* total = nullptr) {
  uint64_t kernels = 0, all = 0;
  for (const auto& buf : cap.buffers) {
    capture::ActivityRecordIterator it(buf.records(), *buf.sizes);
    capture::ActivityRecord r;
    while (it.Next(&r)) {
      ++all;
      kernels += r.kind == layout::kKindConcurrentKernel;
    }
  }
  if (total != nullptr) *total = all;
  return kernels;
}

capture::StartRequest Request(const std::string& logdir, const std::string& run,
                              uint64_t max_ms = 60000) {
  capture::StartRequest r;
  r.max_duration_ms = max_ms;
  r.logdir = logdir;
  r.run = run;
  return r;
}

// Idle until kStart: no CUPTI call at all; then two captures in a row.
TEST(CollectorControlTest, IdlesThenCapturesTwiceOnRequest) {
  RunInChild([] {
    const std::string dir = Dir("idle");
    SetEnv(dir);
    CollectorLib lib = LoadCollector();
    std::set<int> fds_before;
    for (int fd = 0; fd < 256; ++fd) {
      if (fcntl(fd, F_GETFD) >= 0) fds_before.insert(fd);
    }
    ASSERT_EQ(lib.InitializeInjection(), 1);
    const std::string sock = SocketPath(dir, getpid());
    ASSERT_TRUE(Exists(sock));
    struct stat st;
    ASSERT_EQ(stat(sock.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    fake::FakeGpu gpu;
    gpu.Step(0, 4, 1, 1);
    EXPECT_EQ(gpu.counts.total(), 0u) << "idle collector enabled an activity kind";
    EXPECT_EQ(fakecupti_enabled_kind_count(), 0);
    EXPECT_EQ(fakecupti_subscribed(), 0);
    EXPECT_EQ(fakecupti_total_calls(), 0u) << "idle collector called CUPTI";
    // The listener's fds (socket, wake-up pipe) do not leak into exec'd children.
    int fds_seen = 0;
    for (int fd = 3; fd < 256; ++fd) {
      if (fds_before.count(fd) != 0) continue;
      char link[256] = {};
      const std::string proc = "/proc/self/fd/" + std::to_string(fd);
      if (readlink(proc.c_str(), link, sizeof(link) - 1) <= 0) continue;
      ++fds_seen;
      EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << link;
    }
    EXPECT_EQ(fds_seen, 3) << "listening socket and wake-up pipe";

    ControlTestClient client;
    ASSERT_TRUE(client.Connect(sock));
    capture::HelloReply hello;
    ASSERT_TRUE(client.Hello(&hello));
    EXPECT_EQ(hello.pid, static_cast<uint32_t>(getpid()));
    EXPECT_EQ(hello.state, CollectorState::kIdle);
    EXPECT_EQ(hello.cupti_version, 0u) << "CUPTI is not even loaded while idle";
    EXPECT_EQ(hello.hostname, HostName());
    EXPECT_THAT(hello.command_line, HasSubstr("collector_control_test"));
    EXPECT_EQ(hello.last_error, "");
    EXPECT_EQ(fakecupti_total_calls(), 0u);

    const std::string logdir = dir + "/logs";
    capture::StartReply start;
    ASSERT_TRUE(client.Start(Request(logdir, "first"), &start));
    ASSERT_EQ(start.status, TBPROF_OK) << start.message;
    const std::string expected_path = logdir + "/plugins/profile/first/" + HostName() + "." +
                                      std::to_string(getpid()) + ".tbcap";
    EXPECT_THAT(start.message, HasSubstr(expected_path));
    EXPECT_GT(fakecupti_enabled_kind_count(), 0);
    ASSERT_TRUE(client.Hello(&hello));
    EXPECT_EQ(hello.state, CollectorState::kCapturing);
    EXPECT_GT(hello.cupti_version, 0u);
    ASSERT_TRUE(client.Start(Request(logdir, "again"), &start));
    EXPECT_EQ(start.status, TBPROF_E_ALREADY_STARTED);

    for (int s = 1; s <= 3; ++s) gpu.Step(s, 5, 1, 2);
    const uint64_t first_records = gpu.counts.total();
    const uint64_t first_kernels = gpu.counts.kernels.load();
    ASSERT_GT(first_records, 0u);
    capture::StopReply stop;
    ASSERT_TRUE(client.Stop(&stop));
    ASSERT_EQ(stop.status, TBPROF_OK) << stop.message;
    EXPECT_EQ(stop.capture_path, expected_path);
    EXPECT_EQ(stop.records, first_records);
    EXPECT_EQ(stop.dropped, 0u);
    EXPECT_EQ(fakecupti_enabled_kind_count(), 0);
    ASSERT_TRUE(client.Hello(&hello));
    EXPECT_EQ(hello.state, CollectorState::kIdle);
    ASSERT_TRUE(client.Stop(&stop));
    EXPECT_EQ(stop.status, TBPROF_E_NOT_STARTED);

    auto cap = capture::LoadRawCapture(expected_path);
    ASSERT_TRUE(cap.ok()) << cap.status();
    ASSERT_TRUE(cap->trailer.has_value());
    EXPECT_EQ(cap->trailer->end_reason, EndReason::kStopped);
    EXPECT_EQ(cap->header.run_name, "first");
    EXPECT_EQ(CountKernels(*cap), first_kernels);
    EXPECT_EQ(cap->devices.size(), 1u) << "CUDA is up when a channel capture starts";
#ifdef TBPROF_HAVE_RAW_CAPTURE_CONVERTER
    xplane::XSpaceData space;
    auto summary = converters::ConvertRawCaptureToXSpace(expected_path, {}, &space);
    ASSERT_TRUE(summary.ok()) << summary.status();
    EXPECT_EQ(summary->kernels, static_cast<int64_t>(first_kernels));
#endif

    // Between captures the job runs untraced; the second capture is separate.
    gpu.Step(10, 3, 1, 1);
    EXPECT_EQ(gpu.counts.total(), first_records);
    ASSERT_TRUE(client.Start(Request(logdir, "second"), &start));
    ASSERT_EQ(start.status, TBPROF_OK) << start.message;
    gpu.Step(11, 7, 1, 1);
    ASSERT_TRUE(client.Stop(&stop));
    ASSERT_EQ(stop.status, TBPROF_OK) << stop.message;
    EXPECT_THAT(stop.capture_path, HasSubstr("/plugins/profile/second/"));
    EXPECT_EQ(stop.records, gpu.counts.total() - first_records);
    auto second = capture::LoadRawCapture(stop.capture_path);
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_EQ(CountKernels(*second), 7u);
    EXPECT_TRUE(Exists(expected_path));
  });
}

TEST(CollectorControlTest, ServerDisconnectMidCaptureStopsTracingAndDeletesTheFile) {
  RunInChild([] {
    const std::string dir = Dir("disconnect");
    SetEnv(dir);
    StderrCapture err(dir + ".stderr");
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    ControlTestClient observer;  // another connection: closing it changes nothing
    ASSERT_TRUE(observer.Connect(SocketPath(dir, getpid())));
    std::string path;
    {
      ControlTestClient server;
      ASSERT_TRUE(server.Connect(SocketPath(dir, getpid())));
      capture::StartReply start;
      ASSERT_TRUE(server.Start(Request(dir + "/logs", "r"), &start));
      ASSERT_EQ(start.status, TBPROF_OK) << start.message;
      path = start.message.substr(start.message.find('/'));
      observer.Close();
      gpu.Step(0, 5, 1, 1);
      usleep(100000);
      EXPECT_GT(fakecupti_enabled_kind_count(), 0) << "a bystander's disconnect stopped it";
      EXPECT_TRUE(Exists(path));
    }  // the server goes away without kStop
    EXPECT_TRUE(Eventually([] { return fakecupti_enabled_kind_count() == 0; }));
    EXPECT_TRUE(Eventually([&] { return !Exists(path); })) << path;
    const uint64_t before = gpu.counts.total();
    gpu.Step(1, 5, 1, 1);
    EXPECT_EQ(gpu.counts.total(), before) << "tracing stayed on";
    // The job is unaffected and a new server can capture.
    ControlTestClient again;
    ASSERT_TRUE(again.Connect(SocketPath(dir, getpid())));
    capture::HelloReply hello;
    ASSERT_TRUE(again.Hello(&hello));
    EXPECT_EQ(hello.state, CollectorState::kIdle);
    capture::StartReply start;
    ASSERT_TRUE(again.Start(Request(dir + "/logs", "r2"), &start));
    EXPECT_EQ(start.status, TBPROF_OK) << start.message;
    capture::StopReply stop;
    ASSERT_TRUE(again.Stop(&stop));
    EXPECT_TRUE(Exists(stop.capture_path));
    EXPECT_THAT(err.Read(), HasSubstr("disconnected before stopping the capture"));
  });
}

TEST(CollectorControlTest, MaxDurationEndsTracingAndKeepsTheFileForStop) {
  RunInChild([] {
    const std::string dir = Dir("maxdur");
    SetEnv(dir);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    fake::FakeGpu gpu;
    ControlTestClient client;
    ASSERT_TRUE(client.Connect(SocketPath(dir, getpid())));
    capture::StartReply start;
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "short", /*max_ms=*/400), &start));
    ASSERT_EQ(start.status, TBPROF_OK) << start.message;
    gpu.Step(0, 4, 1, 1);
    const uint64_t in_window = gpu.counts.total();
    EXPECT_GT(in_window, 0u);
    EXPECT_TRUE(Eventually([] { return fakecupti_enabled_kind_count() == 0; }, 5000));
    capture::HelloReply hello;
    EXPECT_TRUE(Eventually([&] {  // idle once the capture is closed
      return client.Hello(&hello) && hello.state == CollectorState::kIdle;
    }));
    gpu.Step(1, 4, 1, 1);
    EXPECT_EQ(gpu.counts.total(), in_window);
    usleep(300000);
    capture::StopReply stop;
    ASSERT_TRUE(client.Stop(&stop));
    ASSERT_EQ(stop.status, TBPROF_OK) << stop.message;
    EXPECT_EQ(stop.records, in_window);
    auto cap = capture::LoadRawCapture(stop.capture_path);
    ASSERT_TRUE(cap.ok()) << cap.status();
    ASSERT_TRUE(cap->trailer.has_value());
    EXPECT_EQ(CountKernels(*cap), 4u);
    // A new capture after one that ended by itself.
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "short", 200), &start));
    EXPECT_EQ(start.status, TBPROF_OK) << start.message;
    EXPECT_TRUE(Eventually([] { return fakecupti_enabled_kind_count() == 0; }, 5000));
    // ... and one more without collecting the previous one: it is finished
    // (kept) and the new one starts.
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "third", 60000), &start));
    EXPECT_EQ(start.status, TBPROF_OK) << start.message;
    ASSERT_TRUE(client.Stop(&stop));
    EXPECT_THAT(stop.capture_path, HasSubstr("/third/"));
  });
}

TEST(CollectorControlTest, MalformedFramesAndBadRequestsLeaveTheJobAlone) {
  RunInChild([] {
    const std::string dir = Dir("malformed");
    SetEnv(dir);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    const std::string sock = SocketPath(dir, getpid());
    fake::FakeGpu gpu;
    for (const std::string& junk :
         {std::string("GET / HTTP/1.1\r\n\r\n"), std::string(12, '\0'),
          capture::EncodeControlFrame(capture::ControlType::kStopReply, ""),
          capture::EncodeControlFrame(capture::ControlType::kStart, "short")}) {
      ControlTestClient bad;
      ASSERT_TRUE(bad.Connect(sock));
      ASSERT_TRUE(bad.SendRaw(junk));
      EXPECT_TRUE(bad.WaitClosed(3000));
    }
    {
      ControlTestClient stalled;  // half a header, then silence
      ASSERT_TRUE(stalled.Connect(sock));
      ASSERT_TRUE(stalled.SendRaw("TBPC"));
      EXPECT_TRUE(stalled.WaitClosed(3000));
    }
    ControlTestClient client;
    ASSERT_TRUE(client.Connect(sock));
    capture::StartReply start;
    for (const capture::StartRequest& r :
         {Request("relative", "r"), Request(dir, "a/b"), Request(dir, ".."),
          Request(dir, "r", 0), Request(dir, "r", 3600001)}) {
      ASSERT_TRUE(client.Start(r, &start));
      EXPECT_EQ(start.status, TBPROF_E_INVALID);
      EXPECT_FALSE(start.message.empty());
    }
    EXPECT_EQ(fakecupti_total_calls(), 0u);
    gpu.Step(0, 3, 1, 1);
    EXPECT_EQ(gpu.counts.total(), 0u);
    // A malformed frame from the server that started a capture is that
    // server going away: the capture is stopped and deleted.
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "r"), &start));
    ASSERT_EQ(start.status, TBPROF_OK) << start.message;
    const std::string path = start.message.substr(start.message.find('/'));
    ASSERT_TRUE(client.SendRaw("XXXXXXXXXXXX"));
    EXPECT_TRUE(client.WaitClosed(3000));
    EXPECT_TRUE(Eventually([&] { return !Exists(path); }));
    EXPECT_EQ(fakecupti_enabled_kind_count(), 0);
    ControlTestClient last;
    ASSERT_TRUE(last.Connect(sock));
    capture::HelloReply hello;
    ASSERT_TRUE(last.Hello(&hello));
    EXPECT_EQ(hello.state, CollectorState::kIdle);
  });
}

// A CUPTI error during a channel start: reported in StartReply and
// HelloReply, the collector stays off, the job goes on.
TEST(CollectorControlTest, CuptiErrorIsReportedAndDisablesTheCollector) {
  RunInChild([] {
    const std::string dir = Dir("cuptierr");
    SetEnv(dir);
    StderrCapture err(dir + ".stderr");
    fakecupti_inject_error("cuptiActivityEnable", 35, /*nth=*/1);
    CollectorLib lib = LoadCollector();
    ASSERT_EQ(lib.InitializeInjection(), 1);
    ControlTestClient client;
    ASSERT_TRUE(client.Connect(SocketPath(dir, getpid())));
    capture::StartReply start;
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "r"), &start));
    EXPECT_EQ(start.status, TBPROF_E_CUPTI);
    EXPECT_THAT(start.message, HasSubstr("CUPTI error 35"));
    capture::HelloReply hello;
    ASSERT_TRUE(client.Hello(&hello));
    EXPECT_EQ(hello.state, CollectorState::kDisabled);
    EXPECT_THAT(hello.last_error, HasSubstr("NVreg_RestrictProfilingToAdminUsers=0"));
    capture::StopReply stop;
    ASSERT_TRUE(client.Stop(&stop));  // collects what the failed session wrote
    EXPECT_EQ(stop.status, TBPROF_OK);
    EXPECT_THAT(stop.message, HasSubstr("CUPTI error 35"));
    ASSERT_TRUE(client.Start(Request(dir + "/logs", "r2"), &start));
    EXPECT_EQ(start.status, TBPROF_E_DISABLED);
    EXPECT_EQ(fakecupti_enabled_kind_count(), 0);
    fake::FakeGpu gpu;
    gpu.Step(0, 3, 1, 1);
    EXPECT_EQ(gpu.counts.total(), 0u);
    std::string text = err.Read();
    int lines = 0;
    for (char c : text) lines += c == '\n';
    EXPECT_EQ(lines, 1) << text;
  });
}

TEST(CollectorControlTest, UnusableControlDirIsOneLineAndNoCapture) {
  const std::string long_dir = [] {
    std::string d = Dir("long");
    while (d.size() < 110) {
      d += "/dddddddddddddddddddd";
      mkdir(d.c_str(), 0700);
    }
    return d;
  }();
  for (const std::string& dir : {std::string("/nonexistent/tbprof_control"), long_dir}) {
    SCOPED_TRACE(dir);
    RunInChild([&] {
      SetEnv(dir);
      StderrCapture err(Dir("unusable") + ".stderr");
      CollectorLib lib = LoadCollector();
      EXPECT_EQ(lib.InitializeInjection(), 1);
      fake::FakeGpu gpu;
      gpu.Step(0, 3, 1, 1);
      EXPECT_EQ(gpu.counts.total(), 0u);
      EXPECT_EQ(fakecupti_total_calls(), 0u);
      std::string text = err.Read();
      int lines = 0;
      for (char c : text) lines += c == '\n';
      EXPECT_EQ(lines, 1) << text;
      EXPECT_THAT(text, HasSubstr("without the control channel"));
    });
  }
}

TEST(CollectorControlTest, ForkedChildLeavesTheSocketAndExitRemovesIt) {
  const std::string dir = Dir("fork");
  pid_t job = fork();
  ASSERT_GE(job, 0);
  if (job == 0) {
    SetEnv(dir);
    CollectorLib lib = LoadCollector();
    lib.InitializeInjection();
    pid_t child = fork();
    if (child == 0) {
#if defined(__SANITIZE_ADDRESS__)
      // GCC's ASan allocator takes no lock across fork(): when the listener
      // thread was inside malloc at the fork (it has just started), the
      // child's leak check at exit waits forever for that lock. The atexit
      // path is checked by the normal build.
      _exit(0);
#else
      exit(0);  // runs atexit handlers: must not remove the parent's socket
#endif
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!Exists(SocketPath(dir, getpid()))) _exit(5);
    if (Exists(SocketPath(dir, child))) _exit(6);
    ControlTestClient client;
    capture::HelloReply hello;
    if (!client.Connect(SocketPath(dir, getpid())) || !client.Hello(&hello)) _exit(7);
    capture::StartReply start;
    if (!client.Start(Request(dir + "/logs", "exit"), &start) || start.status != 0) _exit(8);
    fake::FakeGpu gpu;
    fakecupti_set_incomplete(1);  // only the forced flush at exit returns these
    gpu.Step(0, 6, 1, 1);
    std::ofstream(dir + "/count") << gpu.counts.kernels.load();
    exit(0);  // mid-capture, connection still open: the exit path keeps the file
  }
  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(Exists(SocketPath(dir, job))) << "socket file left after exit";
  uint64_t kernels = 0;
  std::ifstream(dir + "/count") >> kernels;
  auto cap = capture::LoadRawCapture(dir + "/logs/plugins/profile/exit/" + HostName() + "." +
                                     std::to_string(job) + ".tbcap");
  ASSERT_TRUE(cap.ok()) << cap.status();
  ASSERT_TRUE(cap->trailer.has_value());
  EXPECT_EQ(cap->trailer->end_reason, EndReason::kProcessExit);
  EXPECT_EQ(CountKernels(*cap), kernels);
  EXPECT_EQ(kernels, 6u);
}

// The real shape: the job is another process (fake_cuda_job, injected as the
// CUDA driver would), the test plays the capture server.
TEST(CollectorControlTest, FakeCudaJobCapturedFromOutside) {
  const std::string dir = Dir("job");
  const std::string logdir = dir + "/logs";
  pid_t job = fork();
  ASSERT_GE(job, 0);
  if (job == 0) {
    setenv("CUDA_INJECTION64_PATH", TBPROF_COLLECTOR_PATH, 1);
    setenv("TBPROF_CUPTI_LIBRARY", TBPROF_FAKE_CUPTI_PATH, 1);
    setenv("TBPROF_CONTROL_DIR", dir.c_str(), 1);
    execl(TBPROF_FAKE_CUDA_JOB, TBPROF_FAKE_CUDA_JOB, "250", "0", "20", nullptr);
    _exit(127);
  }
  const std::string sock = SocketPath(dir, job);
  ControlTestClient client;
  ASSERT_TRUE(client.Connect(sock, 10000));
  capture::HelloReply hello;
  ASSERT_TRUE(client.Hello(&hello));
  EXPECT_EQ(hello.pid, static_cast<uint32_t>(job));
  EXPECT_EQ(hello.state, CollectorState::kIdle);
  EXPECT_THAT(hello.command_line, HasSubstr("fake_cuda_job 250 0 20"));
  capture::StartReply start;
  ASSERT_TRUE(client.Start(Request(logdir, "remote"), &start));
  ASSERT_EQ(start.status, TBPROF_OK) << start.message;
  usleep(500000);
  capture::StopReply stop;
  ASSERT_TRUE(client.Stop(&stop));
  ASSERT_EQ(stop.status, TBPROF_OK) << stop.message;
  EXPECT_GT(stop.records, 0u);
  client.Close();
  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(Exists(sock));
  auto cap = capture::LoadRawCapture(stop.capture_path);
  ASSERT_TRUE(cap.ok()) << cap.status();
  uint64_t total = 0;
  const uint64_t kernels = CountKernels(*cap, &total);
  EXPECT_GT(kernels, 0u);
  EXPECT_EQ(total, stop.records);
  EXPECT_EQ(cap->header.pid, static_cast<uint32_t>(job));
}

}  // namespace
}  // namespace tbprof
