// A ByteSink run on a thread of its own, so that producing bytes (trace JSON
// text) and consuming them (gzip) use two cores at once.
//
//   PipelinedSink piped([&](absl::string_view b) { return gzip->Append(b); });
//   ... writer uses piped.AsByteSink() ...
//   TBPROF_RETURN_IF_ERROR(piped.Finish());   // then gzip->Finish()
//
// Append() copies the bytes into a queue and returns; the worker hands the
// chunks to the wrapped sink in order. At most `max_queued_chunks` chunks
// wait, then Append() blocks, so memory stays bounded by roughly
// max_queued_chunks x the producer's chunk size.
#ifndef TBPROF_CONVERTERS_OUTPUT_PIPELINED_SINK_H_
#define TBPROF_CONVERTERS_OUTPUT_PIPELINED_SINK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "converters/output/gzip_output_stream.h"

namespace tbprof::views {

class PipelinedSink {
 public:
  // `sink` runs on the worker thread only; it must outlive Finish().
  explicit PipelinedSink(ByteSink sink, size_t max_queued_chunks = 4);
  ~PipelinedSink();  // Calls Finish(), dropping its status.
  PipelinedSink(const PipelinedSink&) = delete;
  PipelinedSink& operator=(const PipelinedSink&) = delete;

  // Queues a copy of `bytes`. Returns the wrapped sink's first error once
  // the worker has seen one (the bytes are then dropped), else OK.
  // kFailedPrecondition after Finish().
  absl::Status Append(absl::string_view bytes);

  // Waits until every queued chunk went to the sink and stops the worker.
  // Returns the sink's first error, or OK. Later calls return the same.
  absl::Status Finish();

  // A ByteSink that calls Append(); valid while this object lives.
  ByteSink AsByteSink() {
    return [this](absl::string_view bytes) { return Append(bytes); };
  }

 private:
  void Run();

  ByteSink sink_;
  const size_t max_queued_chunks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;  // Guarded by mutex_.
  std::deque<std::string> spare_;  // Emptied chunks for reuse; guarded by mutex_.
  absl::Status status_;            // The sink's first error; guarded by mutex_.
  bool closing_ = false;           // Guarded by mutex_.
  bool finished_ = false;          // Finish() ran; producer side only.
  std::thread worker_;
};

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_OUTPUT_PIPELINED_SINK_H_
