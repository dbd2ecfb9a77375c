#include "converters/chrome_json/trace_json_reader_core.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::converters::json {

ReaderCore::ReaderCore(InputStream* in, const TraceJsonReaderOptions& options,
                       TraceJsonHandler* handler)
    : in_(in),
      options_(&options),
      handler_(handler),
      path_(&in->path()),
      element_limit_(MaxElementBytes(options)) {
  // Room for a read of chunk_bytes behind a pending element of up to as much.
  cap_ = 2 * std::max<size_t>(options.chunk_bytes, 1);
  owned_.reset(new char[cap_]);
  buf_ = owned_.get();
}

ReaderCore::ReaderCore(SegmentTag, absl::string_view bytes, const ArrayPosition& at,
                       const std::string& path, TraceEventBatch* batch)
    : batch_(batch), path_(&path) {
  buf_ = const_cast<char*>(bytes.data());
  cap_ = end_ = bytes.size();
  base_ = at.offset;
  state_ = at.state;
  event_depth_ = at.event_depth;
  result_.bare_array = at.bare_array;
  seen_trace_events_ = true;
}

void ReaderCore::Resume(const ArrayPosition& at, const TraceJsonReadResult& so_far) {
  pos_ = end_ = 0;
  base_ = at.offset;
  state_ = at.state;
  event_depth_ = at.event_depth;
  seen_trace_events_ = true;
  result_ = so_far;
  result_.bare_array = at.bare_array;
}

ArrayPosition ReaderCore::array_position() const {
  ArrayPosition at;
  at.state = state_;
  at.offset = OffsetOf(data());
  at.event_depth = event_depth_;
  at.bare_array = result_.bare_array;
  return at;
}

ReaderCore::Step ReaderCore::Fail(absl::StatusCode code, uint64_t offset,
                                  absl::string_view message) {
  status_ = absl::Status(code, absl::StrCat(*path_, ": byte ", offset, ": ", message));
  return Step::kError;
}

ReaderCore::Step ReaderCore::InvalidJson(const char* at, absl::string_view message) {
  return Fail(absl::StatusCode::kDataLoss, OffsetOf(at), absl::StrCat("invalid JSON: ", message));
}

void ReaderCore::MalformedEvent(uint64_t byte_offset, absl::string_view reason) {
  if (batch_ == nullptr) {
    handler_->OnMalformedEvent(byte_offset, reason);
    return;
  }
  batch_->malformed.push_back({static_cast<uint32_t>(batch_->num_events), byte_offset,
                               std::string(reason)});
}

void ReaderCore::TopLevelValueSkipped(uint64_t byte_offset, absl::string_view reason) {
  handler_->OnTopLevelValueSkipped(key_, byte_offset, reason);
}

void ReaderCore::Reallocate(size_t cap) {
  std::unique_ptr<char[]> fresh(new char[cap]);
  std::memcpy(fresh.get(), buf_ + pos_, end_ - pos_);
  base_ += pos_;
  end_ -= pos_;
  pos_ = 0;
  owned_ = std::move(fresh);
  buf_ = owned_.get();
  cap_ = cap;
}

absl::Status ReaderCore::Refill() {
  // A read that failed after others succeeded in the same refill: the bytes
  // before it were parsed first, as with any other split of the reads.
  if (!deferred_read_error_.ok()) return deferred_read_error_;
  if (pos_ > 0) {
    std::memmove(buf_, buf_ + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  const size_t chunk = std::max<size_t>(options_->chunk_bytes, 1);
  // The pending bytes are one incomplete element (or top-level value); the
  // largest accepted is max_element_bytes (or one chunk, when larger).
  if (PendingAtLimit()) {
    if (state_ == ReaderState::kValue) {
      // An optional top-level value too large to deliver: stream past it.
      TopLevelValueSkipped(base_,
                           absl::StrCat("larger than ", options_->max_element_bytes, " bytes"));
      skipper_ = ResumableSkipper();
      state_ = ReaderState::kSkippingValue;
      return absl::OkStatus();
    }
    return absl::ResourceExhaustedError(absl::StrCat(*path_, ": byte ", base_,
                                                     ": a JSON element is larger than ",
                                                     options_->max_element_bytes, " bytes"));
  }
  if (cap_ > 8 * chunk && end_ < chunk) Reallocate(2 * chunk);  // A large element is behind us.
  // An incomplete element is parsed again from its start after the refill:
  // at least double what is pending, so a large element is re-parsed
  // O(log size) times, not once per chunk. Every read asks for exactly
  // `chunk` bytes.
  const size_t target = std::max(end_ + chunk, 2 * end_);
  bool read_some = false;
  while (end_ < target) {
    if (cap_ - end_ < chunk) Reallocate(std::max(2 * cap_, end_ + chunk));
    absl::StatusOr<size_t> n = in_->Read(buf_ + end_, chunk);
    if (!n.ok()) {
      if (!read_some) return n.status();
      deferred_read_error_ = n.status();
      break;
    }
    if (*n == 0) {
      eof_ = true;
      break;
    }
    read_some = true;
    end_ += *n;
    result_.bytes_read += *n;
    if (options_->progress) {
      options_->progress(in_->file_bytes_consumed(), in_->file_size());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TraceJsonReadResult> ReaderCore::Run() {
  absl::StatusOr<TraceJsonReadResult> done;
  RunUntil(/*stop_in_event_array=*/false, &done);
  return done;
}

bool ReaderCore::RunUntilEventArray(absl::StatusOr<TraceJsonReadResult>* done) {
  return RunUntil(/*stop_in_event_array=*/true, done);
}

bool ReaderCore::RunUntil(bool stop_in_event_array, absl::StatusOr<TraceJsonReadResult>* done) {
  while (!stop_in_event_array || !InEventArray(state_)) {
    switch (DoStep()) {
      case Step::kProgress:
        break;
      case Step::kError:
        *done = status_;
        return false;
      case Step::kNeedMore:
        if (eof_ && !PendingAtLimit()) {
          absl::Status s = AtEndOfInput();
          if (s.ok()) {
            *done = result_;
          } else {
            *done = s;
          }
          return false;
        }
        if (absl::Status s = Refill(); !s.ok()) {
          *done = s;
          return false;
        }
        break;
    }
  }
  return true;
}

SegmentStop ReaderCore::ParseSegment(absl::string_view bytes, const ArrayPosition& at,
                                     const TraceJsonReaderOptions& options,
                                     const std::string& path, TraceEventBatch* batch) {
  ReaderCore core(SegmentTag{}, bytes, at, path, batch);
  core.element_limit_ = MaxElementBytes(options);
  SegmentStop stop;
  while (InEventArray(core.state_)) {
    const Step step = core.DoStep();
    if (step == Step::kProgress) continue;
    // The rest (an element cut by the end, or something to report) is left
    // to a stream reader resumed here, which does it again with more input.
    stop.clean = step == Step::kNeedMore && core.state_ == ReaderState::kArrayElement &&
                 core.pos_ == core.end_;
    break;
  }
  stop.position = core.array_position();
  stop.elements = core.result_.elements;
  return stop;
}

absl::Status ReaderCore::AtEndOfInput() {
  uint64_t end_offset = base_ + end_;
  auto truncated = [&](absl::string_view where) {
    return absl::DataLossError(absl::StrCat(*path_, ": byte ", end_offset,
                                            ": truncated JSON: the file ends ", where));
  };
  switch (state_) {
    case ReaderState::kStart:
      return absl::DataLossError(
          absl::StrCat(*path_, ": byte ", end_offset, ": empty file (no JSON document)"));
    case ReaderState::kAfterDocument:
      if (!seen_trace_events_) {
        return absl::InvalidArgumentError(
            absl::StrCat(*path_, ": byte ", end_offset,
                         ": not a Chrome trace: the JSON object has no traceEvents array"));
      }
      return absl::OkStatus();
    case ReaderState::kArrayElementOrEnd:
    case ReaderState::kArrayElement:
    case ReaderState::kArrayCommaOrEnd:
      if (result_.bare_array && pos_ == end_) {
        result_.missing_array_end = true;
        return absl::OkStatus();
      }
      if (pos_ != end_) {
        return truncated(
            absl::StrCat("inside the trace event starting at byte ", OffsetOf(data())));
      }
      return truncated("inside the traceEvents array");
    default:
      return truncated("inside the top-level object");
  }
}

ReaderCore::Step ReaderCore::EndOfArray() {
  state_ = result_.bare_array ? ReaderState::kAfterDocument : ReaderState::kObjectCommaOrEnd;
  return Step::kProgress;
}

ReaderCore::Step ReaderCore::ParseElement() {
  const char* start = data();
  if (*start != '{') {
    if (*start == ']') {  // Trailing comma: "[..., ]".
      Consume(start + 1);
      return EndOfArray();
    }
    const char* value_end = nullptr;
    if (SkipLeniently(start, data_end(), &value_end) == ScanStatus::kIncomplete ||
        TooLong(start, value_end)) {
      return Step::kNeedMore;
    }
    ++result_.elements;
    MalformedEvent(OffsetOf(start), "trace event is not a JSON object");
    Consume(value_end);
    state_ = ReaderState::kArrayCommaOrEnd;
    return Step::kProgress;
  }
  // With a batch, the event is parsed in place into the batch, its strings
  // into the batch's arena (kept until the batch is delivered).
  RawTraceEvent* event = &event_;
  StringArena* arena = &arena_;
  if (batch_ != nullptr) {
    event = batch_->NextEvent();
    arena = &batch_->arena;
  } else {
    arena_.Reset();
  }
  Cursor cursor(start, data_end());
  if (ParseTraceEvent(&cursor, event_depth_, arena, event)) {
    if (TooLong(start, cursor.pos())) return Step::kNeedMore;
    ++result_.elements;
    event->byte_offset = OffsetOf(start);
    if (batch_ != nullptr) {
      batch_->CommitEvent();
    } else {
      absl::Status s = handler_->OnEvent(*event);
      if (!s.ok()) {
        status_ = absl::Status(s.code(), absl::StrCat(*path_, ": ", s.message()));
        return Step::kError;
      }
    }
    Consume(cursor.pos());
    state_ = ReaderState::kArrayCommaOrEnd;
    return Step::kProgress;
  }
  if (cursor.status() == ScanStatus::kIncomplete) return Step::kNeedMore;
  // Malformed: find the event's end and go on.
  const char* value_end = nullptr;
  if (SkipLeniently(start, data_end(), &value_end) == ScanStatus::kIncomplete ||
      TooLong(start, value_end)) {
    return Step::kNeedMore;
  }
  ++result_.elements;
  MalformedEvent(OffsetOf(cursor.error_pos()), cursor.error_message());
  Consume(value_end);
  state_ = ReaderState::kArrayCommaOrEnd;
  return Step::kProgress;
}

ReaderCore::Step ReaderCore::DoStep() {
  if (state_ == ReaderState::kSkippingValue) {
    size_t consumed = 0;
    ScanStatus s = skipper_.Feed(data(), data_end(), &consumed);
    pos_ += consumed;
    if (s == ScanStatus::kIncomplete) return Step::kNeedMore;
    state_ = ReaderState::kObjectCommaOrEnd;
    return Step::kProgress;
  }
  if (state_ == ReaderState::kStart && base_ == 0 && pos_ == 0) {
    // UTF-8 byte order mark (possibly split over reads).
    size_t n = std::min<size_t>(end_, 3);
    if (std::memcmp(buf_, "\xEF\xBB\xBF", n) == 0) {
      if (n < 3 && !eof_) return Step::kNeedMore;
      if (n == 3) pos_ = 3;
    }
  }
  if (!SkipWhitespace()) return Step::kNeedMore;
  const char* p = data();
  switch (state_) {
    case ReaderState::kStart:
      if (*p == '{') {
        state_ = ReaderState::kObjectKeyOrEnd;
      } else if (*p == '[') {
        result_.bare_array = true;
        seen_trace_events_ = true;
        event_depth_ = 2;
        state_ = ReaderState::kArrayElementOrEnd;
      } else {
        return Fail(absl::StatusCode::kInvalidArgument, OffsetOf(p),
                    "not a Chrome trace: the JSON document is not an object or array");
      }
      Consume(p + 1);
      return Step::kProgress;

    case ReaderState::kObjectKeyOrEnd:
      if (*p == '}') {
        Consume(p + 1);
        state_ = ReaderState::kAfterDocument;
        return Step::kProgress;
      }
      [[fallthrough]];
    case ReaderState::kObjectKey: {
      if (*p != '"') return InvalidJson(p, "expected a string key");
      Cursor cursor(p, data_end());
      absl::string_view key;
      if (!cursor.ParseString(&key, &arena_)) {
        if (cursor.status() == ScanStatus::kIncomplete) return Step::kNeedMore;
        return InvalidJson(cursor.error_pos(), cursor.error_message());
      }
      if (TooLong(p, cursor.pos())) return Step::kNeedMore;
      key_.assign(key.data(), key.size());
      arena_.Reset();
      Consume(cursor.pos());
      state_ = ReaderState::kColon;
      return Step::kProgress;
    }

    case ReaderState::kColon:
      if (*p != ':') return InvalidJson(p, "expected ':' after key");
      Consume(p + 1);
      state_ = ReaderState::kValue;
      return Step::kProgress;

    case ReaderState::kValue:
      if (key_ == "traceEvents") {
        if (*p != '[') {
          return Fail(absl::StatusCode::kInvalidArgument, OffsetOf(p),
                      "not a Chrome trace: traceEvents is not an array");
        }
        seen_trace_events_ = true;
        event_depth_ = 3;
        Consume(p + 1);
        state_ = ReaderState::kArrayElementOrEnd;
        return Step::kProgress;
      }
      if (handler_->WantsTopLevelValue(key_)) {
        Cursor cursor(p, data_end());
        const char* value_end = nullptr;
        if (cursor.SkipValue(/*depth=*/1)) {
          value_end = cursor.pos();
        } else if (cursor.status() == ScanStatus::kIncomplete) {
          return Step::kNeedMore;
        } else if (cursor.depth_exceeded()) {
          // Too deep to parse but well delimited: the handler gets the text
          // and decides (its own parse reports the depth).
          if (SkipLeniently(p, data_end(), &value_end) == ScanStatus::kIncomplete) {
            return Step::kNeedMore;
          }
        } else {
          return InvalidJson(cursor.error_pos(), cursor.error_message());
        }
        if (TooLong(p, value_end)) return Step::kNeedMore;
        absl::string_view json(p, static_cast<size_t>(value_end - p));
        absl::Status s = handler_->OnTopLevelValue(key_, json, OffsetOf(p));
        if (!s.ok()) {
          status_ = absl::Status(s.code(), absl::StrCat(*path_, ": ", s.message()));
          return Step::kError;
        }
        Consume(value_end);
        state_ = ReaderState::kObjectCommaOrEnd;
        return Step::kProgress;
      }
      skipper_ = ResumableSkipper();
      state_ = ReaderState::kSkippingValue;
      return Step::kProgress;

    case ReaderState::kObjectCommaOrEnd:
      if (*p == ',') {
        state_ = ReaderState::kObjectKey;
      } else if (*p == '}') {
        state_ = ReaderState::kAfterDocument;
      } else {
        return InvalidJson(p, "expected ',' or '}' after a top-level value");
      }
      Consume(p + 1);
      return Step::kProgress;

    case ReaderState::kArrayElementOrEnd:
      if (*p == ']') {
        Consume(p + 1);
        return EndOfArray();
      }
      state_ = ReaderState::kArrayElement;
      return ParseElement();

    case ReaderState::kArrayElement:
      return ParseElement();

    case ReaderState::kArrayCommaOrEnd:
      if (*p == ',') {
        Consume(p + 1);
        state_ = ReaderState::kArrayElement;
        return Step::kProgress;
      }
      if (*p == ']') {
        Consume(p + 1);
        return EndOfArray();
      }
      return InvalidJson(p, "expected ',' or ']' after a trace event");

    case ReaderState::kAfterDocument:
      return InvalidJson(p, "unexpected text after the JSON document");

    case ReaderState::kSkippingValue:
      break;
  }
  return Step::kProgress;
}

absl::Status DeliverBatch(const TraceEventBatch& batch, const std::string& path,
                          TraceJsonHandler* handler) {
  size_t next_malformed = 0;
  for (size_t i = 0; i <= batch.num_events; ++i) {
    while (next_malformed < batch.malformed.size() &&
           batch.malformed[next_malformed].before_event <= i) {
      const MalformedElement& m = batch.malformed[next_malformed++];
      handler->OnMalformedEvent(m.byte_offset, m.reason);
    }
    if (i == batch.num_events) break;
    absl::Status s = handler->OnEvent(batch.events[i]);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tbprof::converters::json
