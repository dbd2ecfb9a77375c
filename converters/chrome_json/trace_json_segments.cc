#include "converters/chrome_json/trace_json_segments.h"

#include <malloc.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "converters/chrome_json/trace_event_batch.h"

namespace tbprof::converters::json {
namespace {

// Chunks per segment: one at first, one more per kInputPerSegmentChunk read,
// up to kMaxSegmentChunks. The segments out hold their bytes plus ~800 bytes
// per parsed event: with one chunk that is a few MB, which the peak RSS of a
// 300 MB trace's convert shows (4-chunk segments added 8 MB to it there);
// on a 10 GB trace each hand-over costs a few context switches, and 4-chunk
// segments halve the system time for a few MB out of 1.8 GB.
constexpr size_t kMaxSegmentChunks = 4;
constexpr uint64_t kInputPerSegmentChunk = uint64_t{1} << 30;
// Segments out at once (being filled, queued, parsed or delivered), and
// how many when a reader that found them all out goes on.
constexpr size_t kMaxSegmentsOut = 8;
constexpr size_t kReaderWakeAt = kMaxSegmentsOut - 4;
// A segment with no element start in this many chunks (a huge element, or
// not an array of objects) is passed on uncut, and the rest of the input is
// left to the single-threaded reader.
constexpr size_t kMaxUncutChunks = 64;

struct Segment {
  std::unique_ptr<char[]> bytes;
  size_t cap = 0;
  size_t size = 0;
  ArrayPosition start;  // start.offset: input offset of bytes[0].
  bool parse = true;    // False: only its bytes are used.
  bool done = false;    // Parsed, or not to be parsed (guarded by the pipeline).
  TraceEventBatch batch;
  SegmentStop stop;
  uint64_t file_bytes_consumed = 0, file_size = 0;
  // The end of the input: no bytes; end_status is the failed read's error
  // (OK at the end of the file) and total_bytes_read all the bytes read.
  bool last = false;
  absl::Status end_status;
  uint64_t total_bytes_read = 0;

  absl::string_view view() const { return absl::string_view(bytes.get(), size); }
  void Reserve(size_t n) {
    if (n <= cap) return;
    size_t new_cap = std::max(n, 2 * cap);
    std::unique_ptr<char[]> fresh(new char[new_cap]);
    if (size > 0) std::memcpy(fresh.get(), bytes.get(), size);
    bytes = std::move(fresh);
    cap = new_cap;
  }
  void Assign(const char* data, size_t n) {
    size = 0;
    Reserve(n);
    if (n > 0) std::memcpy(bytes.get(), data, n);
    size = n;
  }
};

// The segments between the reading thread, the workers and the consumer.
// Each side waits on its own condition, and is woken only by a change it
// waits for: one condition for all made ~15 futex calls per segment.
class SegmentPipeline {
 public:
  // Reader: a cleared segment; blocks while kMaxSegmentsOut are out. Null
  // once cancelled.
  Segment* Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    if (out_ >= kMaxSegmentsOut) {
      // Full: wait until a few are back, then read those in one go (waking
      // the reader for every segment cost two futex calls each).
      reader_waiting_ = true;
      reader_wakes_.wait(lock, [&] { return cancelled_ || out_ <= kReaderWakeAt; });
      reader_waiting_ = false;
    }
    if (cancelled_) return nullptr;
    ++out_;
    if (free_.empty()) {
      owned_.push_back(std::make_unique<Segment>());
      return owned_.back().get();
    }
    Segment* s = free_.back();
    free_.pop_back();
    return s;
  }
  // Reader: queues `s` for delivery, and for parsing unless a hand-over
  // happened or it is not to be parsed. False once cancelled.
  bool Dispatch(Segment* s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return false;
    if (handover_) s->parse = false;
    s->done = !s->parse || s->last;
    ordered_.push_back(s);
    if (s->done) {
      if (ordered_.front() == s) consumer_wakes_.notify_one();
    } else {
      work_.push_back(s);
      worker_wakes_.notify_one();
    }
    return true;
  }
  // Reader: no more segments.
  void CloseWork() {
    std::lock_guard<std::mutex> lock(mu_);
    work_closed_ = true;
    worker_wakes_.notify_all();
  }
  // Worker: the next segment to parse; null when there will be none.
  Segment* NextToParse() {
    std::unique_lock<std::mutex> lock(mu_);
    worker_wakes_.wait(lock, [&] { return cancelled_ || work_closed_ || !work_.empty(); });
    if (cancelled_ || work_.empty()) return nullptr;
    Segment* s = work_.front();
    work_.pop_front();
    return s;
  }
  void Parsed(Segment* s) {
    std::lock_guard<std::mutex> lock(mu_);
    s->done = true;
    if (ordered_.front() == s) consumer_wakes_.notify_one();
  }
  bool handover() const { return handover_.load(std::memory_order_relaxed); }
  // Consumer: the next segment in input order, once parsed.
  Segment* NextInOrder() {
    std::unique_lock<std::mutex> lock(mu_);
    consumer_wakes_.wait(lock,
                         [&] { return cancelled_ || (!ordered_.empty() && ordered_.front()->done); });
    if (cancelled_) return nullptr;
    Segment* s = ordered_.front();
    ordered_.pop_front();
    return s;
  }
  // Consumer: `s` was delivered; its buffers are reused.
  void Release(Segment* s) {
    s->size = 0;
    s->batch.Clear();
    s->stop = SegmentStop();
    s->last = false;
    s->end_status = absl::OkStatus();
    s->parse = true;
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(s);
    if (--out_ == kReaderWakeAt && reader_waiting_) reader_wakes_.notify_one();
  }
  // Consumer: from now on segments are not parsed, only their bytes used.
  void SetHandover() {
    std::lock_guard<std::mutex> lock(mu_);
    handover_ = true;
    for (Segment* s : work_) {
      s->parse = false;
      s->done = true;
    }
    work_.clear();
  }
  // Consumer: stop everything (the other threads return soon).
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    reader_wakes_.notify_all();
    worker_wakes_.notify_all();
    consumer_wakes_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable reader_wakes_, worker_wakes_, consumer_wakes_;
  std::vector<std::unique_ptr<Segment>> owned_;
  std::vector<Segment*> free_;
  std::deque<Segment*> ordered_;  // Dispatched, not yet taken by the consumer.
  std::deque<Segment*> work_;     // Waiting for a worker.
  size_t out_ = 0;
  bool reader_waiting_ = false;
  bool cancelled_ = false;
  bool work_closed_ = false;
  std::atomic<bool> handover_{false};
};

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The last position in (0, size) of a '{' preceded by '}' and ',' and
// followed by '"' (an object's first key), with only whitespace between
// them; 0 if there is none. (A Python dict or escaped JSON inside a string
// does not look like that.)
size_t FindCut(const char* bytes, size_t size) {
  size_t end = size;
  while (end > 1) {
    const void* hit = memrchr(bytes + 1, '{', end - 1);
    if (hit == nullptr) return 0;
    const size_t brace = static_cast<size_t>(static_cast<const char*>(hit) - bytes);
    end = brace;
    size_t k = brace + 1;
    while (k < size && IsJsonSpace(bytes[k])) ++k;
    if (k == size || bytes[k] != '"') continue;
    size_t j = brace;
    while (j > 0 && IsJsonSpace(bytes[j - 1])) --j;
    if (j > 0 && bytes[j - 1] == ',') {
      --j;
      while (j > 0 && IsJsonSpace(bytes[j - 1])) --j;
      if (j > 0 && bytes[j - 1] == '}') return brace;
    }
  }
  return 0;
}

// The reading thread: reads the rest of the input into segments.
void CutSegments(InputStream* in, const TraceJsonReaderOptions& options, const ReaderCore& prefix,
                 SegmentPipeline* pipe) {
  const size_t chunk = std::max<size_t>(options.chunk_bytes, 1);
  Segment* cur = pipe->Acquire();
  if (cur == nullptr) return;
  const ArrayPosition at = prefix.array_position();
  cur->start = at;
  cur->Assign(prefix.pending().data(), prefix.pending().size());
  uint64_t total = prefix.result().bytes_read;
  absl::Status end_status = prefix.deferred_read_error();
  bool ended = prefix.at_eof() || !end_status.ok();
  bool uncut = false;  // A segment went uncut: nothing after it is parsed.
  while (!ended) {
    cur->Reserve(cur->size + chunk);
    absl::StatusOr<size_t> n = in->Read(cur->bytes.get() + cur->size, chunk);
    if (!n.ok()) {
      end_status = n.status();
      break;
    }
    if (*n == 0) break;
    cur->size += *n;
    total += *n;
    const size_t segment_chunks =
        std::min<size_t>(kMaxSegmentChunks, 1 + total / kInputPerSegmentChunk);
    if (cur->size < segment_chunks * chunk) continue;
    size_t cut = uncut || pipe->handover() ? cur->size : FindCut(cur->bytes.get(), cur->size);
    if (cut == 0) {
      if (cur->size < kMaxUncutChunks * chunk) continue;
      cut = cur->size;
      uncut = true;
    }
    Segment* next = pipe->Acquire();
    if (next == nullptr) return;
    next->Assign(cur->bytes.get() + cut, cur->size - cut);
    next->start = ArrayPosition{ReaderState::kArrayElement, cur->start.offset + cut,
                                at.event_depth, at.bare_array};
    next->parse = !uncut;
    cur->size = cut;
    cur->file_bytes_consumed = in->file_bytes_consumed();
    cur->file_size = in->file_size();
    if (!pipe->Dispatch(cur)) return;
    cur = next;
  }
  cur->file_bytes_consumed = in->file_bytes_consumed();
  cur->file_size = in->file_size();
  if (!pipe->Dispatch(cur)) return;
  Segment* last = pipe->Acquire();
  if (last == nullptr) return;
  last->last = true;
  last->end_status = end_status;
  last->total_bytes_read = total;
  last->file_bytes_consumed = in->file_bytes_consumed();
  last->file_size = in->file_size();
  pipe->Dispatch(last);
  pipe->CloseWork();
}

void ParseSegments(const TraceJsonReaderOptions& options, const std::string& path,
                   SegmentPipeline* pipe) {
  while (Segment* s = pipe->NextToParse()) {
    if (!pipe->handover()) {
      s->stop = ReaderCore::ParseSegment(s->view(), s->start, options, path, &s->batch);
    }
    pipe->Parsed(s);
  }
}

// The bytes of the segments from a point on, in order, then the input's end
// (or its read error), as an InputStream for the resumed reader.
class ReplayStream : public InputStream {
 public:
  ReplayStream(SegmentPipeline* pipe, Segment* first, size_t first_pos, const InputStream& in)
      : pipe_(pipe), cur_(first), pos_(first_pos), path_(in.path()), is_gzip_(in.is_gzip()) {
    consumed_ = first->file_bytes_consumed;
    size_ = first->file_size;
  }
  ~ReplayStream() override {
    if (cur_ != nullptr) pipe_->Release(cur_);
  }

  absl::StatusOr<size_t> Read(char* buffer, size_t capacity) override {
    while (true) {
      if (cur_ == nullptr) {
        cur_ = pipe_->NextInOrder();
        if (cur_ == nullptr) return absl::CancelledError("reading was cancelled");
        pos_ = 0;
      }
      consumed_ = cur_->file_bytes_consumed;
      size_ = cur_->file_size;
      if (cur_->last) {
        total_bytes_read_ = cur_->total_bytes_read;
        if (!cur_->end_status.ok()) return cur_->end_status;
        return 0;
      }
      if (pos_ < cur_->size) {
        const size_t n = std::min(capacity, cur_->size - pos_);
        std::memcpy(buffer, cur_->bytes.get() + pos_, n);
        pos_ += n;
        return n;
      }
      pipe_->Release(cur_);
      cur_ = nullptr;
    }
  }
  uint64_t file_bytes_consumed() const override { return consumed_; }
  uint64_t file_size() const override { return size_; }
  bool is_gzip() const override { return is_gzip_; }
  const std::string& path() const override { return path_; }
  // All the bytes read from the input; known once its end was served.
  uint64_t total_bytes_read() const { return total_bytes_read_; }

 private:
  SegmentPipeline* pipe_;
  Segment* cur_;
  size_t pos_;
  std::string path_;
  bool is_gzip_;
  uint64_t consumed_ = 0, size_ = 0, total_bytes_read_ = 0;
};

// The calling thread: delivers the segments in order, then hands over.
absl::StatusOr<TraceJsonReadResult> DeliverSegments(InputStream* in,
                                                    const TraceJsonReaderOptions& options,
                                                    TraceJsonHandler* handler,
                                                    const ReaderCore& prefix,
                                                    SegmentPipeline* pipe) {
  TraceJsonReadResult so_far = prefix.result();
  ArrayPosition at = prefix.array_position();
  while (true) {
    Segment* s = pipe->NextInOrder();
    if (s == nullptr) return absl::CancelledError("reading was cancelled");
    size_t resume_pos = 0;
    if (!s->last) {
      absl::Status delivered = DeliverBatch(s->batch, in->path(), handler);
      if (!delivered.ok()) {
        pipe->Release(s);
        return delivered;
      }
      so_far.elements += s->stop.elements;
      if (options.progress) options.progress(s->file_bytes_consumed, s->file_size);
      at = s->stop.position;
      if (s->stop.clean) {
        pipe->Release(s);
        continue;
      }
      resume_pos = static_cast<size_t>(at.offset - s->start.offset);
    }
    // The rest on this thread, from where the last segment stopped.
    pipe->SetHandover();
    ReplayStream replay(pipe, s, resume_pos, *in);
    ReaderCore rest(&replay, options, handler);
    rest.Resume(at, so_far);
    absl::StatusOr<TraceJsonReadResult> result = rest.Run();
    if (result.ok()) result->bytes_read = replay.total_bytes_read();
    return result;
  }
}

}  // namespace

absl::StatusOr<TraceJsonReadResult> ReadEventArrayInSegments(InputStream* in,
                                                             const TraceJsonReaderOptions& options,
                                                             TraceJsonHandler* handler,
                                                             const ReaderCore& prefix) {
  absl::StatusOr<TraceJsonReadResult> result;
  {
    SegmentPipeline pipe;
    std::thread reader([&] { CutSegments(in, options, prefix, &pipe); });
    std::vector<std::thread> workers;
    const int num_workers = std::max(1, options.threads);
    for (int i = 0; i < num_workers; ++i) {
      workers.emplace_back([&] { ParseSegments(options, in->path(), &pipe); });
    }
    result = DeliverSegments(in, options, handler, prefix, &pipe);
    pipe.Cancel();
    reader.join();
    for (std::thread& w : workers) w.join();
  }
  // What the workers allocated (the events of the segments) sits free in
  // their malloc arenas, where the calling thread's allocations never reuse
  // it: give it back (13-18 MB after a 300 MB trace).
  malloc_trim(0);
  return result;
}

}  // namespace tbprof::converters::json
