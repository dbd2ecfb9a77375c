#include "tests/fake_cupti/alloc_counter.h"

#include <time.h>

#include <atomic>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TBPROF_ALLOC_COUNTER_DISABLED 1  // the sanitizer owns malloc; no counting
#endif

extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);
extern "C" void __libc_free(void*);

namespace {

__thread bool t_in_callback = false;
__thread int64_t t_enter_ns = 0;
std::atomic<uint64_t> g_allocs{0};
std::atomic<uint64_t> g_callbacks{0};
std::atomic<uint64_t> g_ns{0};

inline void Count() {
  if (t_in_callback) g_allocs.fetch_add(1, std::memory_order_relaxed);
}

int64_t MonoNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

#ifndef TBPROF_ALLOC_COUNTER_DISABLED
extern "C" {
void* malloc(size_t n) {
  Count();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  Count();
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  Count();
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  Count();
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
  Count();
  *p = __libc_memalign(a, n);
  return *p == nullptr ? 12 : 0;
}
void* aligned_alloc(size_t a, size_t n) {
  Count();
  return __libc_memalign(a, n);
}
void free(void* p) { __libc_free(p); }
}  // extern "C"
#endif

namespace tbprof::fake {

bool AllocCounterEnabled() {
#ifdef TBPROF_ALLOC_COUNTER_DISABLED
  return false;
#else
  return true;
#endif
}

void AllocCounterEnter() {
  g_callbacks.fetch_add(1, std::memory_order_relaxed);
  t_enter_ns = MonoNs();
  t_in_callback = true;
}

void AllocCounterLeave() {
  t_in_callback = false;
  g_ns.fetch_add(static_cast<uint64_t>(MonoNs() - t_enter_ns), std::memory_order_relaxed);
}

CallbackStats GetCallbackStats() {
  return {g_callbacks.load(), g_allocs.load(), g_ns.load()};
}

void ResetCallbackStats() {
  g_callbacks = 0;
  g_allocs = 0;
  g_ns = 0;
}

}  // namespace tbprof::fake
