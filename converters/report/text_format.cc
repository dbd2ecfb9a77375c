#include "converters/report/text_format.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace tbprof::views {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

int DisplayWidth(absl::string_view text) {
  int n = 0;
  for (char c : text) n += IsContinuation(c) ? 0 : 1;
  return n;
}

namespace text {
namespace {

// The last `n` code points of `text`.
absl::string_view SuffixCodePoints(absl::string_view text, int n) {
  const int total = DisplayWidth(text);
  if (n >= total) return text;
  return text.substr(PrefixBytes(text, total - n));
}

}  // namespace

// Byte length of the first `n` code points of `text`.
size_t PrefixBytes(absl::string_view text, int n) {
  size_t i = 0;
  int seen = 0;
  while (i < text.size()) {
    if (!IsContinuation(text[i])) {
      if (seen == n) break;
      ++seen;
    }
    ++i;
  }
  return i;
}

std::string Ellipsis(bool ascii) { return ascii ? "..." : "\xE2\x80\xA6"; }

// Cuts `text` to `width` code points, ending in an ellipsis when cut.
std::string TruncateRight(absl::string_view text, int width, bool ascii) {
  if (DisplayWidth(text) <= width) return std::string(text);
  const std::string dots = Ellipsis(ascii);
  const int keep = std::max(0, width - DisplayWidth(dots));
  return absl::StrCat(text.substr(0, PrefixBytes(text, keep)), dots);
}

// Cuts the middle of `text`, keeping its start and end.
std::string TruncateMiddle(absl::string_view text, int width, bool ascii) {
  if (DisplayWidth(text) <= width) return std::string(text);
  const std::string dots = Ellipsis(ascii);
  const int room = std::max(0, width - DisplayWidth(dots));
  const int tail = room / 3;
  const int head = room - tail;
  return absl::StrCat(text.substr(0, PrefixBytes(text, head)), dots,
                      SuffixCodePoints(text, tail));
}

// Cuts the start of `text` (for paths, whose end matters most).
std::string TruncateLeft(absl::string_view text, int width, bool ascii) {
  if (DisplayWidth(text) <= width) return std::string(text);
  const std::string dots = Ellipsis(ascii);
  return absl::StrCat(dots, SuffixCodePoints(text, std::max(0, width - DisplayWidth(dots))));
}

std::string PadRight(absl::string_view text, int width) {
  std::string out(text);
  out.append(static_cast<size_t>(std::max(0, width - DisplayWidth(text))), ' ');
  return out;
}

std::string PadLeft(absl::string_view text, int width) {
  std::string out(static_cast<size_t>(std::max(0, width - DisplayWidth(text))), ' ');
  out.append(text.data(), text.size());
  return out;
}

// Word-wraps `text`: the first line starts with `first`, the others with
// `indent` (both count toward `width`); words too long for a line are cut.
void AppendWrapped(absl::string_view text, absl::string_view first, absl::string_view indent,
                   int width, std::string* out) {
  std::string line(first);
  int line_width = DisplayWidth(first);
  const int indent_width = DisplayWidth(indent);
  bool line_has_word = false;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    std::string w(word);
    while (true) {
      const int ww = DisplayWidth(w);
      const int need = ww + (line_has_word ? 1 : 0);
      if (line_width + need <= width) {
        if (line_has_word) line.push_back(' ');
        line += w;
        line_width += need;
        line_has_word = true;
        break;
      }
      if (line_has_word) {
        absl::StrAppend(out, line, "\n");
        line = std::string(indent);
        line_width = indent_width;
        line_has_word = false;
        continue;
      }
      // A word longer than a whole line: cut it.
      const int room = std::max(1, width - line_width);
      const size_t bytes = PrefixBytes(w, room);
      absl::StrAppend(out, line, w.substr(0, bytes), "\n");
      w = w.substr(bytes);
      line = std::string(indent);
      line_width = indent_width;
      if (w.empty()) break;
    }
  }
  if (line_has_word) absl::StrAppend(out, line, "\n");
}

// A horizontal bar of `fraction` (0..1) of `width` cells, with eighth blocks.
std::string Bar(double fraction, int width, bool ascii) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  if (ascii) return std::string(static_cast<size_t>(std::lround(fraction * width)), '#');
  static const char* const kEighths[] = {"", "\xE2\x96\x8F", "\xE2\x96\x8E", "\xE2\x96\x8D",
                                         "\xE2\x96\x8C", "\xE2\x96\x8B", "\xE2\x96\x8A",
                                         "\xE2\x96\x89"};
  const long eighths = std::lround(fraction * width * 8);
  std::string out;
  for (long i = 0; i < eighths / 8; ++i) out += "\xE2\x96\x88";  // Full block.
  out += kEighths[eighths % 8];
  return out;
}

std::string Heading(absl::string_view title, int width, bool ascii) {
  std::string text = absl::StrCat("== ", TruncateRight(title, width - 4, ascii), " ");
  return absl::StrCat(text, std::string(std::max(0, width - DisplayWidth(text)), '='), "\n");
}

std::string Ms(double ms) {
  if (ms >= 1e5) return absl::StrFormat("%.0f", ms);
  if (ms >= 100) return absl::StrFormat("%.1f", ms);
  return absl::StrFormat("%.3f", ms);
}

std::string Pct(double pct) { return absl::StrFormat("%.1f%%", pct); }

}  // namespace text
}  // namespace tbprof::views
