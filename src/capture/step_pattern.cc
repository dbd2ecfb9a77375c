#include "src/capture/step_pattern.h"

namespace tbprof::capture {

bool GlobMatch(const char* p, const char* t) {
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*t != '\0') {
    if (*p == '*') {
      star = p++;
      resume = t;
    } else if (*p == '?' || *p == *t) {
      ++p;
      ++t;
    } else if (star != nullptr) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (*p == '*') ++p;
  return *p == '\0';
}

int64_t StepNumberFromName(const char* name) {
  if (name == nullptr) return -1;
  const char* hash = nullptr;
  const char* end = name;
  for (; *end != '\0'; ++end) {
    if (*end == '#') hash = end;
  }
  auto parse = [](const char* b, const char* e) -> int64_t {
    if (b == e || e - b > 18) return -1;
    int64_t v = 0;
    for (const char* q = b; q < e; ++q) {
      if (*q < '0' || *q > '9') return -1;
      v = v * 10 + (*q - '0');
    }
    return v;
  };
  if (hash != nullptr) {
    const char* b = hash + 1;
    const char* e = b;
    while (*e >= '0' && *e <= '9') ++e;
    int64_t v = parse(b, e);
    if (v >= 0) return v;
  }
  const char* b = end;
  while (b > name && b[-1] >= '0' && b[-1] <= '9') --b;
  return parse(b, end);
}

}  // namespace tbprof::capture
