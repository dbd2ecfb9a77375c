// Wall-clock and thread CPU time of named phases of one command, for
// `tbprof convert --timings`: where the seconds of a conversion went.
//
// Phases may run on several threads at once (views are computed beside the
// xplane.pb serialization); Record() is thread-safe. A null PhaseTimings*
// turns ScopedPhase into a no-op, so callers time unconditionally.
#ifndef TBPROF_SRC_BASE_PHASE_TIMINGS_H_
#define TBPROF_SRC_BASE_PHASE_TIMINGS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tbprof {

class PhaseTimings {
 public:
  struct Phase {
    std::string name;
    int64_t start_ns;  // Monotonic clock, relative to the PhaseTimings' creation.
    int64_t wall_ns;
    int64_t cpu_ns;    // CPU time of the thread that ran the phase.
  };

  PhaseTimings();

  void Record(std::string name, int64_t start_ns, int64_t wall_ns, int64_t cpu_ns);

  // The phases recorded so far, in the order they ended.
  std::vector<Phase> phases() const;

  // One line per phase, for stderr:
  //   "  load                 0.912 s wall  0.905 s cpu  (from 0.000 s)"
  std::string Format() const;

  // Monotonic clock (ns, relative to creation) and this thread's CPU clock.
  int64_t NowNs() const;
  static int64_t ThreadCpuNs();

 private:
  int64_t origin_ns_;
  mutable std::mutex mutex_;
  std::vector<Phase> phases_;
};

// Times the enclosing scope as one phase of `timings` (if not null).
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimings* timings, std::string name);
  ~ScopedPhase();  // Calls Stop().

  // Records the phase now; later calls and the destructor do nothing.
  void Stop();
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimings* timings_;
  std::string name_;
  int64_t start_ns_ = 0;
  int64_t start_cpu_ns_ = 0;
};

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_PHASE_TIMINGS_H_
