// tbprof diff: compares two profiles (step time and its spread, breakdown,
// kernels, operators, memory peak, communication) in the terminal, as JSON
// or as HTML, and can fail when the step time grew (CI gate).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/output_file.h"
#include "tools/tbprof/commands.h"
#include "converters/report/diff_html.h"
#include "converters/report/diff_json.h"
#include "converters/views/diff/diff_model.h"
#include "converters/report/diff_text.h"
#include "tools/tbprof/flags.h"
#include "tools/tbprof/shared_flags.h"
#include "tools/tbprof/view_inputs.h"

namespace tbprof::cli {

using views::CheckSlower;
using views::DiffJsonOptions;
using views::DiffProfiles;
using views::DiffTextOptions;
using views::ProfileDiff;
using views::ProfileSummary;
using views::RenderDiffHtml;
using views::RenderDiffJson;
using views::RenderDiffText;
using views::SlowerGate;
using views::SummarizeProfile;
namespace {

constexpr char kName[] = "diff";

// Exit status when --fail-if-slower trips.
constexpr int kExitSlower = 3;

constexpr char kHelp[] =
    R"(Usage: tbprof diff BASE NEW [flags]

Compares two profiles: the step time with its spread (and whether the
change is within the step-to-step noise), its breakdown per category,
kernels and operators matched by name (count, total, mean), the memory peak
per allocator and communication (nccl* collective kernels).

BASE and NEW are each what `tbprof report` reads: a trace (*.json[.gz],
*.pt.trace.json[.gz]), an *.xplane.pb, a directory of traces (one host per
file), a logdir run directory or a log directory (its latest run). With
several hosts, a step takes as long as its slowest host.

Noise: a difference of the mean step time is within noise when it is smaller
than the larger of the two standard deviations of the step time; with fewer
than 2 steps on a side it is unknown.

Flags:
  --fail-if-slower PCT     exit with status 3 when the mean step time grew by
                           more than PCT percent (e.g. 5 or 2.5), unless the
                           growth is within noise; needs steps on both sides
  --ignore-noise           with --fail-if-slower: fail on the mean alone,
                           even when the growth is within noise
  --json                   print one JSON object instead of text (the shape
                           is in docs/diff_and_watch.md)
  --html FILE              also write a self-contained HTML page (bar chart
                           of the category changes, sortable tables)
  --top N                  rows of the kernel and operator tables (default 10)
  --width N                terminal width (default: the terminal's, else 80)
  --ascii                  plain ASCII output
  --breakdown MODE         with-host (default) or device-only, as in report
  --keep-all-steps         keep the first and last step (see report --help)
  --steps MODE             auto (default), markers, infer or none, as in report
  --max-events N           fail if a trace has more than N events (0 = no limit)
  --max-inflated-bytes N   fail if a gzip input inflates past N bytes (e.g. 16G)
  --max-memory-mb N        stop when memory use passes N MB (default 80% of RAM)
  --quiet                  no progress display
  -h, --help               this text

Exit status: 0 compared (and not slower), 1 failure (an input cannot be
read, the profiles have nothing in common, or --fail-if-slower without steps
on both sides), 2 usage error, 3 slower than --fail-if-slower allows.

Examples:
  tbprof diff base.pt.trace.json.gz new.pt.trace.json.gz
  tbprof diff tb/plugins/profile/run_a tb/plugins/profile/run_b --html diff.html
  tbprof diff main/ pr/ --fail-if-slower 5        # CI: fail on a >5% slowdown
  tbprof diff a.json b.json --json | python3 -m json.tool
)";

struct DiffFlags {
  ViewFlags view;
  std::string fail_if_slower;
  bool ignore_noise = false;
};

int RunDiff(const std::vector<std::string>& args) {
  DiffFlags flags;
  FlagSet flag_set;
  AddViewFlags(&flag_set, &flags.view);
  flag_set.String("fail-if-slower", &flags.fail_if_slower);
  flag_set.Bool("ignore-noise", &flags.ignore_noise);
  std::vector<std::string> inputs;
  if (absl::Status status = flag_set.Parse(args, &inputs); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  if (inputs.size() != 2) {
    return ReportUsageError(kName, absl::StrCat("needs two inputs, BASE and NEW; got ",
                                                inputs.size()));
  }
  double max_slower_pct = -1;
  if (!flags.fail_if_slower.empty()) {
    std::string text = flags.fail_if_slower;
    if (!text.empty() && text.back() == '%') text.pop_back();
    if (!absl::SimpleAtod(text, &max_slower_pct) || !std::isfinite(max_slower_pct) ||
        max_slower_pct < 0) {
      return ReportUsageError(kName, absl::StrCat("--fail-if-slower: expected a percentage >= 0, "
                                                  "got '", flags.fail_if_slower, "'"));
    }
  }
  if (flags.ignore_noise && max_slower_pct < 0) {
    return ReportUsageError(kName, "--ignore-noise needs --fail-if-slower");
  }
  if (absl::Status status = CheckWidthFlag(flags.view); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }
  ViewInputsOptions options;
  if (absl::Status status = ApplyViewFlags(flags.view, &options); !status.ok()) {
    return ReportUsageError(kName, status.message());
  }

  ProfileSummary sides[2];
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<views::ReportInput> loaded = LoadViewInputs({inputs[i]}, options);
    if (!loaded.ok()) return ReportFailure(loaded.status());
    sides[i] = SummarizeProfile(*loaded);
  }
  absl::StatusOr<ProfileDiff> diff = DiffProfiles(sides[0], sides[1]);
  if (!diff.ok()) return ReportFailure(diff.status());

  DiffJsonOptions json_options;
  if (max_slower_pct >= 0) {
    if (!diff->step.available) {
      const std::string& missing = diff->step.base.count == 0 ? inputs[0] : inputs[1];
      return ReportFailure(absl::FailedPreconditionError(absl::StrCat(
          missing, ": no steps, so --fail-if-slower cannot compare step time")));
    }
    json_options.gate = CheckSlower(diff->step, max_slower_pct, flags.ignore_noise);
    json_options.gate_pct = max_slower_pct;
    json_options.gate_ignore_noise = flags.ignore_noise;
  }
  if (!flags.view.html.empty()) {
    if (absl::Status status = WriteFileAtomically(flags.view.html, RenderDiffHtml(*diff, json_options),
                                                  AtomicOutputFile::Overwrite::kReplace);
        !status.ok()) {
      return ReportFailure(status);
    }
  }
  if (flags.view.json) {
    std::string json = RenderDiffJson(*diff, json_options);
    json.push_back('\n');
    std::fwrite(json.data(), 1, json.size(), stdout);
  } else {
    DiffTextOptions text_options;
    text_options.width = TextWidth(flags.view);
    text_options.top = static_cast<int>(std::clamp<int64_t>(flags.view.top, 1, 100000));
    text_options.ascii = flags.view.ascii;
    const std::string text = RenderDiffText(*diff, text_options);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  std::fflush(stdout);
  if (!flags.view.html.empty()) std::fprintf(stderr, "tbprof: wrote %s\n", flags.view.html.c_str());
  if (json_options.gate.has_value()) {
    const SlowerGate& gate = *json_options.gate;
    std::fprintf(stderr, "tbprof: --fail-if-slower %s: %s%s\n", flags.fail_if_slower.c_str(),
                 gate.message.c_str(), gate.tripped ? " (exit status 3)" : "");
    if (gate.tripped) return kExitSlower;
  }
  return kExitOk;
}

}  // namespace

const CommandSpec kDiffCommand = {
    kName,
    "compare two profiles: step time and noise, breakdown, kernels, ops, memory, comms",
    kHelp,
    &RunDiff,
};

}  // namespace tbprof::cli
