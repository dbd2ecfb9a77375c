#include "tools/bench/trace_splitter.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::bench {
namespace {

constexpr size_t kChunkBytes = 1 << 20;

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Buffered character source over an InputStream that can copy the exact text
// of one JSON value into a string.
class Reader {
 public:
  explicit Reader(InputStream* input) : input_(input), buf_(kChunkBytes) {}

  // Offset in the decoded text of the next unread character.
  uint64_t offset() const { return buffer_offset_ + pos_; }

  // Next non-space character without consuming it; -1 at end of input.
  absl::StatusOr<int> PeekNonSpace() {
    while (true) {
      while (pos_ < end_ && IsJsonSpace(buf_[pos_])) ++pos_;
      if (pos_ < end_) return static_cast<unsigned char>(buf_[pos_]);
      TBPROF_ASSIGN_OR_RETURN(bool more, Fill());
      if (!more) return -1;
    }
  }

  void Skip() { ++pos_; }  // Only after a successful Peek.

  // Appends the text of the value starting at the next non-space character.
  absl::Status CaptureValue(std::string* out) {
    TBPROF_ASSIGN_OR_RETURN(int first, PeekNonSpace());
    if (first < 0) return Truncated("a value");
    if (first == '{' || first == '[') return CaptureContainer(out);
    if (first == '"') return CaptureString(out);
    if (first == ',' || first == ':' || first == ']' || first == '}') {
      return Error(absl::StrCat("unexpected '", std::string(1, static_cast<char>(first)),
                                "' where a value was expected"));
    }
    return CaptureScalar(out);
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(input_->path(), ": byte ", offset(), ": ", what));
  }
  absl::Status Truncated(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(input_->path(), ": byte ", offset(),
                                            ": input ends inside the trace (expected ",
                                            what, ")"));
  }

 private:
  // Refills the buffer; false at end of input.
  absl::StatusOr<bool> Fill() {
    if (pos_ < end_) return true;
    buffer_offset_ += end_;
    pos_ = end_ = 0;
    TBPROF_ASSIGN_OR_RETURN(size_t n, input_->Read(buf_.data(), buf_.size()));
    end_ = n;
    return n > 0;
  }

  // Copies buf_[start, pos_) to `out` and refills; false at end of input.
  absl::StatusOr<bool> FlushAndFill(size_t start, std::string* out) {
    out->append(buf_.data() + start, pos_ - start);
    return Fill();
  }

  absl::Status CaptureString(std::string* out) {
    size_t start = pos_;
    ++pos_;  // Opening quote.
    bool escaped = false;
    while (true) {
      if (pos_ == end_) {
        TBPROF_ASSIGN_OR_RETURN(bool more, FlushAndFill(start, out));
        if (!more) return Truncated("end of string");
        start = 0;
      }
      char c = buf_[pos_++];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        out->append(buf_.data() + start, pos_ - start);
        return absl::OkStatus();
      }
    }
  }

  absl::Status CaptureScalar(std::string* out) {
    size_t start = pos_;
    while (true) {
      if (pos_ == end_) {
        TBPROF_ASSIGN_OR_RETURN(bool more, FlushAndFill(start, out));
        start = 0;
        if (!more) return absl::OkStatus();
      }
      char c = buf_[pos_];
      if (c == ',' || c == ']' || c == '}' || c == ':' || IsJsonSpace(c)) break;
      if (c == '{' || c == '[' || c == '"') return Error("malformed scalar value");
      ++pos_;
    }
    out->append(buf_.data() + start, pos_ - start);
    return absl::OkStatus();
  }

  absl::Status CaptureContainer(std::string* out) {
    stack_.clear();
    size_t start = pos_;
    bool in_string = false;
    bool escaped = false;
    while (true) {
      if (pos_ == end_) {
        TBPROF_ASSIGN_OR_RETURN(bool more, FlushAndFill(start, out));
        if (!more) return Truncated(in_string ? "end of string" : "closing bracket");
        start = 0;
      }
      char c = buf_[pos_++];
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      switch (c) {
        case '"':
          in_string = true;
          break;
        case '{':
        case '[':
          stack_.push_back(c);
          break;
        case '}':
        case ']':
          if (stack_.empty() || stack_.back() != (c == '}' ? '{' : '[')) {
            --pos_;
            return Error("mismatched bracket");
          }
          stack_.pop_back();
          if (stack_.empty()) {
            out->append(buf_.data() + start, pos_ - start);
            return absl::OkStatus();
          }
          break;
        default:
          break;
      }
    }
  }

  InputStream* input_;
  std::vector<char> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t buffer_offset_ = 0;
  std::vector<char> stack_;
};

// Parses the body of the events array after its '['. In the bare array form
// the closing ']' may be missing (the Chrome trace format allows that).
absl::Status SplitEvents(Reader& reader, TraceVisitor* visitor, bool allow_eof) {
  std::string event;
  while (true) {
    TBPROF_ASSIGN_OR_RETURN(int c, reader.PeekNonSpace());
    if (c < 0) {
      if (allow_eof) return absl::OkStatus();
      return reader.Truncated("']' closing traceEvents");
    }
    if (c == ']') {  // Empty array or trailing comma.
      reader.Skip();
      return absl::OkStatus();
    }
    event.clear();
    TBPROF_RETURN_IF_ERROR(reader.CaptureValue(&event));
    TBPROF_RETURN_IF_ERROR(visitor->OnEvent(event));
    TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
    if (c == ',') {
      reader.Skip();
    } else if (c == ']') {
      reader.Skip();
      return absl::OkStatus();
    } else if (c < 0) {
      if (allow_eof) return absl::OkStatus();
      return reader.Truncated("',' or ']' in traceEvents");
    } else {
      return reader.Error("expected ',' or ']' after an event");
    }
  }
}

absl::Status SplitObject(Reader& reader, TraceVisitor* visitor) {
  std::string key;
  std::string value;
  bool saw_events = false;
  TBPROF_ASSIGN_OR_RETURN(int c, reader.PeekNonSpace());
  if (c == '}') {
    reader.Skip();
  } else {
    while (true) {
      TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
      if (c < 0) return reader.Truncated("a member name");
      if (c != '"') return reader.Error("expected a member name");
      key.clear();
      TBPROF_RETURN_IF_ERROR(reader.CaptureValue(&key));
      TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
      if (c < 0) return reader.Truncated("':'");
      if (c != ':') return reader.Error("expected ':' after a member name");
      reader.Skip();
      TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
      if (key == "\"traceEvents\"" && c == '[' && !saw_events) {
        reader.Skip();
        saw_events = true;
        TBPROF_RETURN_IF_ERROR(visitor->OnEventsBegin());
        TBPROF_RETURN_IF_ERROR(SplitEvents(reader, visitor, /*allow_eof=*/false));
        TBPROF_RETURN_IF_ERROR(visitor->OnEventsEnd());
      } else {
        value.clear();
        TBPROF_RETURN_IF_ERROR(reader.CaptureValue(&value));
        TBPROF_RETURN_IF_ERROR(visitor->OnMember(key, value));
      }
      TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
      if (c == ',') {
        reader.Skip();
      } else if (c == '}') {
        reader.Skip();
        break;
      } else if (c < 0) {
        return reader.Truncated("',' or '}' at top level");
      } else {
        return reader.Error("expected ',' or '}' after a top-level member");
      }
    }
  }
  if (!saw_events) {
    TBPROF_RETURN_IF_ERROR(visitor->OnEventsBegin());
    TBPROF_RETURN_IF_ERROR(visitor->OnEventsEnd());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SplitTrace(InputStream* input, TraceVisitor* visitor) {
  Reader reader(input);
  TBPROF_ASSIGN_OR_RETURN(int c, reader.PeekNonSpace());
  if (c < 0) return reader.Truncated("'{' or '['");
  if (c == '[') {
    reader.Skip();
    TBPROF_RETURN_IF_ERROR(visitor->OnStart(/*bare_array=*/true));
    TBPROF_RETURN_IF_ERROR(visitor->OnEventsBegin());
    TBPROF_RETURN_IF_ERROR(SplitEvents(reader, visitor, /*allow_eof=*/true));
    TBPROF_RETURN_IF_ERROR(visitor->OnEventsEnd());
  } else if (c == '{') {
    reader.Skip();
    TBPROF_RETURN_IF_ERROR(visitor->OnStart(/*bare_array=*/false));
    TBPROF_RETURN_IF_ERROR(SplitObject(reader, visitor));
  } else {
    return reader.Error("a trace starts with '{' or '['");
  }
  TBPROF_ASSIGN_OR_RETURN(c, reader.PeekNonSpace());
  if (c >= 0) return reader.Error("unexpected text after the end of the trace");
  return absl::OkStatus();
}

}  // namespace tbprof::bench
