// Counts heap allocations made inside the collector's CUPTI callbacks and the
// time spent there. alloc_counter.cc interposes malloc & co. for the
// executable that links it; pass AllocCounterEnter/Leave to
// fakecupti_set_callback_observer().
#ifndef TBPROF_TESTS_FAKE_CUPTI_ALLOC_COUNTER_H_
#define TBPROF_TESTS_FAKE_CUPTI_ALLOC_COUNTER_H_

#include <cstdint>

namespace tbprof::fake {

// False in sanitizer builds, where malloc is not interposed.
bool AllocCounterEnabled();
void AllocCounterEnter();
void AllocCounterLeave();

struct CallbackStats {
  uint64_t callbacks = 0;
  uint64_t allocations = 0;  // malloc/calloc/realloc/memalign calls inside callbacks
  uint64_t nanoseconds = 0;  // wall time inside callbacks
};
CallbackStats GetCallbackStats();
void ResetCallbackStats();

}  // namespace tbprof::fake

#endif  // TBPROF_TESTS_FAKE_CUPTI_ALLOC_COUNTER_H_
