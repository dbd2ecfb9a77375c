#include "converters/output/json_text_writer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tbprof::views {

void AppendJsonDouble(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("\"nan\"");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "\"inf\"" : "\"-inf\"");
    return;
  }
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr - buf);
}

JsonTextWriter::JsonTextWriter(const ByteSink* sink) : sink_(sink) {
  buffer_.reserve(kChunkBytes + 64 * 1024);
}

void JsonTextWriter::Int(int64_t v) { absl::StrAppend(&buffer_, v); }
void JsonTextWriter::Uint(uint64_t v) { absl::StrAppend(&buffer_, v); }

absl::Status JsonTextWriter::Flush() {
  if (!status_.ok()) {
    buffer_.clear();
    return status_;
  }
  if (!buffer_.empty()) {
    status_ = (*sink_)(buffer_);
    buffer_.clear();
  }
  return status_;
}

}  // namespace tbprof::views
