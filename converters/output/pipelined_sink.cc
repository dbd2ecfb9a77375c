#include "converters/output/pipelined_sink.h"

#include <utility>

namespace tbprof::views {

PipelinedSink::PipelinedSink(ByteSink sink, size_t max_queued_chunks)
    : sink_(std::move(sink)),
      max_queued_chunks_(max_queued_chunks == 0 ? 1 : max_queued_chunks),
      worker_([this] { Run(); }) {}

PipelinedSink::~PipelinedSink() { Finish().IgnoreError(); }

absl::Status PipelinedSink::Append(absl::string_view bytes) {
  if (finished_) return absl::FailedPreconditionError("PipelinedSink: Append after Finish");
  if (bytes.empty()) return absl::OkStatus();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < max_queued_chunks_ || !status_.ok(); });
  if (!status_.ok()) return status_;
  std::string chunk;
  if (!spare_.empty()) {
    chunk = std::move(spare_.back());
    spare_.pop_back();
  }
  chunk.assign(bytes.data(), bytes.size());
  queue_.push_back(std::move(chunk));
  changed_.notify_all();
  return absl::OkStatus();
}

absl::Status PipelinedSink::Finish() {
  if (!finished_) {
    finished_ = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
      changed_.notify_all();
    }
    worker_.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

void PipelinedSink::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;  // Closing and drained.
    std::string chunk = std::move(queue_.front());
    queue_.pop_front();
    const bool failed = !status_.ok();
    lock.unlock();
    absl::Status status = failed ? absl::OkStatus() : sink_(chunk);
    lock.lock();
    if (!status.ok() && status_.ok()) status_ = std::move(status);
    if (spare_.size() < max_queued_chunks_) spare_.push_back(std::move(chunk));
    changed_.notify_all();
  }
}

}  // namespace tbprof::views
