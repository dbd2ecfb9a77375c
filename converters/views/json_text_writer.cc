#include "converters/views/json_text_writer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tbprof::views {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t Utf8SequenceLength(absl::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len;
  uint32_t min_code;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, min_code = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, min_code = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, min_code = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  uint32_t code = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    code = (code << 6) | (cc & 0x3F);
  }
  if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

void AppendJsonString(absl::string_view s, std::string* out) {
  out->push_back('"');
  size_t run_start = 0;  // Start of bytes that need no escaping.
  size_t i = 0;
  auto flush_run = [&](size_t end) { out->append(s.data() + run_start, end - run_start); };
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s, i);
      if (len > 0) {
        i += len;
        continue;
      }
      flush_run(i);
      out->append("\\ufffd");
      run_start = ++i;
      continue;
    }
    flush_run(i);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xF]);
    }
    run_start = ++i;
  }
  flush_run(i);
  out->push_back('"');
}

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
