// DeviceCopies: the device copies (memcpy events) of a trace by the
// correlation id of their launch, kept sorted by id instead of in a hash
// table. Contract: Add() copies in any order, call Finish() once, then
// Find(); among copies with equal ids the last added wins. The host pass
// looks up the launches of a thread line in time order, in which their
// ids nearly ascend: with one Cursor per line a lookup reads next to where
// the previous one ended (no random access per launch), and any order is
// still answered correctly.
#ifndef TBPROF_CONVERTERS_VIEWS_STEPS_DEVICE_COPIES_H_
#define TBPROF_CONVERTERS_VIEWS_STEPS_DEVICE_COPIES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "converters/views/steps/event_type_span.h"

namespace tbprof::views {

// A device copy: its type (kHostToDevice, kDeviceToHost, kDeviceToDevice)
// and when it ran.
struct DeviceCopy {
  EventType type;
  int64_t begin_ps;
  int64_t end_ps;
};

class DeviceCopies {
 public:
  // Where the previous Find() ended; one per walk (a host line).
  struct Cursor {
    size_t position = 0;
  };

  void Add(int64_t correlation_id, const DeviceCopy& copy) {
    entries_.push_back({correlation_id, copy});
  }
  // Sorts the copies by id and keeps the last added of equal ids.
  void Finish();
  // The copy launched with `correlation_id`, or null. O(1) amortized when
  // the ids asked with one cursor nearly ascend; O(log n) otherwise.
  const DeviceCopy* Find(int64_t correlation_id, Cursor* cursor) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    int64_t id;
    DeviceCopy copy;
  };
  // The first entry with id >= `id`, searched outward from `hint`.
  size_t LowerBound(int64_t id, size_t hint) const;

  std::vector<Entry> entries_;  // After Finish(): ascending, unique ids.
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_VIEWS_STEPS_DEVICE_COPIES_H_
