// The report `tbprof convert` prints after writing a run.
#ifndef TBPROF_TOOLS_CONVERT_CONVERT_SUMMARY_H_
#define TBPROF_TOOLS_CONVERT_CONVERT_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "converters/chrome_json/chrome_json_to_xspace.h"
#include "converters/raw_capture/raw_capture_to_xspace.h"
#include "converters/views/diagnosis/inspect_diagnosis.h"
#include "tools/tbprof/trace_inputs.h"

namespace tbprof::cli {

// What was done for one input.
struct HostReport {
  std::string input_path;
  InputFormat format = InputFormat::kChromeJson;
  uint64_t input_bytes = 0;
  std::string host;
  std::string output_path;
  uint64_t output_bytes = 0;
  // Other files written for the host (precomputed views for old plugins).
  std::vector<std::string> extra_files;
  std::optional<converters::ChromeJsonSummary> json_summary;
  std::optional<converters::RawCaptureSummary> raw_summary;
  views::XSpaceDiagnosis diagnosis;
};

// Per host: input, output file, events per plane, steps found, warnings
// (malformed events with their first offsets); then how to open the logdir.
std::string FormatConvertSummary(const std::string& logdir, const std::string& run,
                                 const std::string& run_dir,
                                 const std::vector<HostReport>& hosts);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_CONVERT_CONVERT_SUMMARY_H_
