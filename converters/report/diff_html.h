// The HTML form of `tbprof diff` (`--html FILE`): one self-contained page
// with no network resources (the report's stylesheet plus a little CSS,
// a small dependency-free script, the data embedded as the `--json` object)
// that draws:
//  * cards with the mean step time of each side, the change and the noise
//    verdict;
//  * a bar chart (SVG) of the change of each step-time category, bars to the
//    right (red) for categories that grew, to the left (green) for those
//    that shrank;
//  * tables of kernels, operators, collective kernels and memory peaks,
//    sortable by clicking their column headers.
//
// After drawing, the script writes "ok charts=<n> errors=0" into the
// data-status attribute of the hidden element with id "render-status" (or
// "error charts=<n> errors=<k>: <messages>");
// opened with "#selftest" it also sorts every table by clicking its headers,
// checks the order and adds " sorted=<tables>". All text is inserted as
// text, never as markup, so names from traces cannot inject HTML.
#ifndef TBPROF_CONVERTERS_REPORT_DIFF_HTML_H_
#define TBPROF_CONVERTERS_REPORT_DIFF_HTML_H_

#include <string>

#include "converters/report/diff_json.h"
#include "converters/views/diff/diff_model.h"

namespace tbprof::views {

// The complete page (UTF-8). Tables hold at most 500 rows each.
std::string RenderDiffHtml(const ProfileDiff& diff, DiffJsonOptions options = {});

}  // namespace tbprof::views

#endif  // TBPROF_CONVERTERS_REPORT_DIFF_HTML_H_
