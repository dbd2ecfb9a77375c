#include "tools/bench/event_rewriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tbprof::bench {
namespace {

constexpr size_t kNpos = absl::string_view::npos;
constexpr absl::string_view kStepPrefix = "ProfilerStep#";

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t SkipSpace(absl::string_view t, size_t pos) {
  while (pos < t.size() && IsSpace(t[pos])) ++pos;
  return pos;
}

// Position just after the string whose opening quote is at `pos`.
size_t SkipString(absl::string_view t, size_t pos) {
  for (++pos; pos < t.size(); ++pos) {
    if (t[pos] == '\\') {
      ++pos;
    } else if (t[pos] == '"') {
      return pos + 1;
    }
  }
  return kNpos;
}

// Position just after the value that starts at `pos`; kNpos if malformed.
size_t SkipValue(absl::string_view t, size_t pos) {
  if (pos >= t.size()) return kNpos;
  char c = t[pos];
  if (c == '"') return SkipString(t, pos);
  if (c == '{' || c == '[') {
    int depth = 0;
    while (pos < t.size()) {
      char d = t[pos];
      if (d == '"') {
        pos = SkipString(t, pos);
        if (pos == kNpos) return kNpos;
        continue;
      }
      if (d == '{' || d == '[') ++depth;
      if (d == '}' || d == ']') {
        if (--depth == 0) return pos + 1;
      }
      ++pos;
    }
    return kNpos;
  }
  size_t start = pos;
  while (pos < t.size() && t[pos] != ',' && t[pos] != '}' && t[pos] != ']' &&
         !IsSpace(t[pos])) {
    ++pos;
  }
  return pos == start ? kNpos : pos;
}

// Calls f(key, value_begin, value_end) for each member of the object whose
// '{' is at `pos` (key without quotes). False if the object is malformed.
template <typename F>
bool ForEachMember(absl::string_view t, size_t pos, F&& f) {
  if (pos >= t.size() || t[pos] != '{') return false;
  pos = SkipSpace(t, pos + 1);
  if (pos < t.size() && t[pos] == '}') return true;
  while (pos < t.size()) {
    if (t[pos] != '"') return false;
    size_t key_end = SkipString(t, pos);
    if (key_end == kNpos) return false;
    absl::string_view key = t.substr(pos + 1, key_end - pos - 2);
    pos = SkipSpace(t, key_end);
    if (pos >= t.size() || t[pos] != ':') return false;
    size_t value_begin = SkipSpace(t, pos + 1);
    size_t value_end = SkipValue(t, value_begin);
    if (value_end == kNpos) return false;
    f(key, value_begin, value_end);
    pos = SkipSpace(t, value_end);
    if (pos >= t.size()) return false;
    if (t[pos] == '}') return true;
    if (t[pos] != ',') return false;
    pos = SkipSpace(t, pos + 1);
  }
  return false;
}

bool IsIdKey(absl::string_view key) {
  return key == "correlation" || key == "External id" || key == "external id" ||
         key == "Ev Idx" || key == "Python id" || key == "Python parent id" ||
         key == "Record function id" || key == "Sequence number";
}

absl::string_view Unquote(absl::string_view raw, bool* quoted) {
  *quoted = raw.size() >= 2 && raw.front() == '"' && raw.back() == '"';
  return *quoted ? raw.substr(1, raw.size() - 2) : raw;
}

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<double> ParseDouble(absl::string_view raw) {
  bool quoted;
  absl::string_view s = Unquote(raw, &quoted);
  double v;
  if (!absl::SimpleAtod(s, &v) || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Step number of a "ProfilerStep#N" name value (raw, with quotes).
std::optional<int64_t> ParseStepName(absl::string_view raw) {
  bool quoted;
  absl::string_view s = Unquote(raw, &quoted);
  if (!quoted || !absl::StartsWith(s, kStepPrefix)) return std::nullopt;
  s.remove_prefix(kStepPrefix.size());
  int64_t n;
  if (!AllDigits(s) || !absl::SimpleAtoi(s, &n)) return std::nullopt;
  return n;
}

std::optional<std::string> ShiftIdText(absl::string_view raw, int64_t delta) {
  std::optional<int64_t> id = ParseIdText(raw);
  int64_t shifted;
  if (!id || __builtin_add_overflow(*id, delta, &shifted)) return std::nullopt;
  bool quoted;
  absl::string_view s = Unquote(raw, &quoted);
  if (!quoted) return absl::StrCat(shifted);
  if (absl::StartsWith(s, "0x") || absl::StartsWith(s, "0X")) {
    return absl::StrCat("\"0x", absl::Hex(shifted), "\"");
  }
  return absl::StrCat("\"", shifted, "\"");
}

}  // namespace

std::optional<int64_t> ParseIdText(absl::string_view raw) {
  bool quoted;
  absl::string_view s = Unquote(raw, &quoted);
  int64_t v = 0;
  if (quoted && (absl::StartsWith(s, "0x") || absl::StartsWith(s, "0X"))) {
    s.remove_prefix(2);
    if (s.empty() || s.size() > 15) return std::nullopt;
    for (char c : s) {
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return std::nullopt;
      }
      v = v * 16 + digit;
    }
    return v;
  }
  if (!AllDigits(s) || !absl::SimpleAtoi(s, &v)) return std::nullopt;
  return v;
}

std::optional<std::string> ShiftNumberText(absl::string_view raw, int64_t delta) {
  bool quoted;
  absl::string_view s = Unquote(raw, &quoted);
  size_t dot = s.find('.');
  absl::string_view int_part = s.substr(0, dot);
  absl::string_view frac_part = dot == kNpos ? absl::string_view() : s.substr(dot);
  std::string shifted;
  int64_t value;
  if (AllDigits(int_part) && (frac_part.empty() || AllDigits(frac_part.substr(1))) &&
      absl::SimpleAtoi(int_part, &value) && !__builtin_add_overflow(value, delta, &value) &&
      value >= 0) {
    // Exact path: integer arithmetic on the integer part, fraction unchanged.
    shifted = absl::StrCat(value, frac_part);
  } else {
    // Negative, exponent or huge values: go through double precision.
    double v;
    if (!absl::SimpleAtod(s, &v) || !std::isfinite(v)) return std::nullopt;
    if (s.find_first_of("eE") != kNpos) {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", v + static_cast<double>(delta));
      shifted = buf;
    } else {
      int decimals = frac_part.empty() ? 0 : static_cast<int>(frac_part.size() - 1);
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.*f", decimals, v + static_cast<double>(delta));
      shifted = buf;
    }
  }
  return quoted ? absl::StrCat("\"", shifted, "\"") : shifted;
}

void ScanEvent(absl::string_view event, TraceExtent* extent) {
  ++extent->num_events;
  std::optional<double> ts;
  double dur = 0;
  auto note_id = [extent](absl::string_view raw) {
    std::optional<int64_t> id = ParseIdText(raw);
    if (id && *id > extent->max_id) extent->max_id = *id;
  };
  bool ok = ForEachMember(event, SkipSpace(event, 0), [&](absl::string_view key,
                                                         size_t begin, size_t end) {
    absl::string_view value = event.substr(begin, end - begin);
    if (key == "ts") {
      ts = ParseDouble(value);
    } else if (key == "dur") {
      dur = ParseDouble(value).value_or(0);
    } else if (key == "ph") {
      if (value == "\"M\"") ++extent->num_metadata_events;
    } else if (key == "id" || key == "bind_id") {
      note_id(value);
    } else if (key == "name") {
      if (std::optional<int64_t> step = ParseStepName(value)) {
        if (!extent->has_steps) {
          extent->has_steps = true;
          extent->min_step = extent->max_step = *step;
        }
        extent->min_step = std::min(extent->min_step, *step);
        extent->max_step = std::max(extent->max_step, *step);
      }
    } else if (key == "args") {
      ForEachMember(value, 0, [&](absl::string_view arg, size_t b, size_t e) {
        if (IsIdKey(arg)) note_id(value.substr(b, e - b));
      });
    }
  });
  if (!ok) {
    ++extent->num_malformed_events;
    return;
  }
  if (!ts) return;
  int64_t begin_us = static_cast<int64_t>(std::floor(*ts));
  int64_t end_us = static_cast<int64_t>(std::ceil(*ts + std::max(dur, 0.0)));
  if (!extent->has_time) {
    extent->has_time = true;
    extent->min_ts_us = begin_us;
    extent->max_end_us = end_us;
  }
  extent->min_ts_us = std::min(extent->min_ts_us, begin_us);
  extent->max_end_us = std::max(extent->max_end_us, end_us);
}

CopyStrides ComputeStrides(const TraceExtent& extent, int64_t gap_us) {
  CopyStrides strides;
  int64_t span = extent.has_time ? extent.max_end_us - extent.min_ts_us : 0;
  strides.time_stride_us = std::max<int64_t>(span + gap_us, 1);
  int64_t id_stride = 1;
  while (id_stride <= extent.max_id && id_stride <= std::numeric_limits<int64_t>::max() / 10) {
    id_stride *= 10;
  }
  strides.id_stride = id_stride;
  strides.step_stride = extent.has_steps ? extent.max_step - extent.min_step + 1 : 0;
  return strides;
}

bool RewriteEvent(absl::string_view event, int64_t copy, const CopyStrides& strides,
                  std::string* out) {
  if (copy == 0) {
    out->append(event.data(), event.size());
    return true;
  }
  const size_t out_start = out->size();
  const int64_t time_delta = copy * strides.time_stride_us;
  const int64_t id_delta = copy * strides.id_stride;
  const int64_t step_delta = copy * strides.step_stride;
  size_t copied_to = 0;  // Event bytes before this offset are in `out`.
  bool metadata = false;
  // Replaces event[begin, end) with `replacement` when it has a value.
  auto replace = [&](size_t begin, size_t end, const std::optional<std::string>& replacement) {
    if (!replacement) return;
    out->append(event.data() + copied_to, begin - copied_to);
    out->append(*replacement);
    copied_to = end;
  };
  ForEachMember(event, SkipSpace(event, 0), [&](absl::string_view key, size_t begin,
                                               size_t end) {
    absl::string_view value = event.substr(begin, end - begin);
    if (key == "ts") {
      replace(begin, end, ShiftNumberText(value, time_delta));
    } else if (key == "ph") {
      metadata = value == "\"M\"";
    } else if (key == "id" || key == "bind_id") {
      replace(begin, end, ShiftIdText(value, id_delta));
    } else if (key == "name") {
      if (std::optional<int64_t> step = ParseStepName(value)) {
        replace(begin, end, absl::StrCat("\"", kStepPrefix, *step + step_delta, "\""));
      }
    } else if (key == "args") {
      ForEachMember(value, 0, [&](absl::string_view arg, size_t b, size_t e) {
        absl::string_view arg_value = value.substr(b, e - b);
        if (IsIdKey(arg)) {
          replace(begin + b, begin + e, ShiftIdText(arg_value, id_delta));
        } else if (arg == "external ts") {
          replace(begin + b, begin + e, ShiftNumberText(arg_value, time_delta));
        }
      });
    }
  });
  if (metadata) {
    out->resize(out_start);
    return false;
  }
  out->append(event.data() + copied_to, event.size() - copied_to);
  return true;
}

}  // namespace tbprof::bench
