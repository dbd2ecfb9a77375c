// Text layout for the terminal report: display widths (code points), padding,
// truncation with an ellipsis, word wrapping, bars and number formats. Every
// function keeps within the width it is given.
#ifndef TBPROF_CONVERTERS_REPORT_TEXT_FORMAT_H_
#define TBPROF_CONVERTERS_REPORT_TEXT_FORMAT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace tbprof::views {

// Number of Unicode code points in UTF-8 `text`.
int DisplayWidth(absl::string_view text);

namespace text {

// Byte length of the first `n` code points of `text`.
size_t PrefixBytes(absl::string_view text, int n);
// "…", or "..." when `ascii`.
std::string Ellipsis(bool ascii);
// `text` cut to `width` code points: its end, middle or start replaced by an
// ellipsis when it does not fit.
std::string TruncateRight(absl::string_view text, int width, bool ascii);
std::string TruncateMiddle(absl::string_view text, int width, bool ascii);
std::string TruncateLeft(absl::string_view text, int width, bool ascii);
// `text` padded with spaces to `width` code points (never cut).
std::string PadRight(absl::string_view text, int width);
std::string PadLeft(absl::string_view text, int width);
// Word-wraps `text`: the first line starts with `first`, the others with
// `indent` (both count toward `width`); words too long for a line are cut.
void AppendWrapped(absl::string_view text, absl::string_view first, absl::string_view indent,
                   int width, std::string* out);
// A horizontal bar of `fraction` (0..1) of `width` cells, with eighth blocks
// ('#' when `ascii`).
std::string Bar(double fraction, int width, bool ascii);
// "== title ====...", `width` wide, with a newline.
std::string Heading(absl::string_view title, int width, bool ascii);
// Milliseconds with 3 decimals (1 from 100 ms, none from 100,000 ms).
std::string Ms(double ms);
// "12.3%".
std::string Pct(double pct);

}  // namespace text
}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_TEXT_FORMAT_H_
