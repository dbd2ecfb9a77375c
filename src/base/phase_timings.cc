#include "src/base/phase_timings.h"

#include <time.h>

#include <utility>

#include "absl/strings/str_format.h"

namespace tbprof {
namespace {

int64_t ClockNs(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

PhaseTimings::PhaseTimings() : origin_ns_(ClockNs(CLOCK_MONOTONIC)) {}

int64_t PhaseTimings::NowNs() const { return ClockNs(CLOCK_MONOTONIC) - origin_ns_; }

int64_t PhaseTimings::ThreadCpuNs() { return ClockNs(CLOCK_THREAD_CPUTIME_ID); }

void PhaseTimings::Record(std::string name, int64_t start_ns, int64_t wall_ns, int64_t cpu_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  phases_.push_back({std::move(name), start_ns, wall_ns, cpu_ns});
}

std::vector<PhaseTimings::Phase> PhaseTimings::phases() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return phases_;
}

std::string PhaseTimings::Format() const {
  std::string text;
  for (const Phase& p : phases()) {
    absl::StrAppendFormat(&text, "  %-26s %7.3f s wall %7.3f s cpu  (from %.3f s)\n", p.name,
                          p.wall_ns * 1e-9, p.cpu_ns * 1e-9, p.start_ns * 1e-9);
  }
  return text;
}

ScopedPhase::ScopedPhase(PhaseTimings* timings, std::string name)
    : timings_(timings), name_(std::move(name)) {
  if (timings_ == nullptr) return;
  start_ns_ = timings_->NowNs();
  start_cpu_ns_ = PhaseTimings::ThreadCpuNs();
}

ScopedPhase::~ScopedPhase() { Stop(); }

void ScopedPhase::Stop() {
  if (timings_ == nullptr) return;
  timings_->Record(std::move(name_), start_ns_, timings_->NowNs() - start_ns_,
                   PhaseTimings::ThreadCpuNs() - start_cpu_ns_);
  timings_ = nullptr;
}

}  // namespace tbprof
