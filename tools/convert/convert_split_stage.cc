#include "tools/convert/convert_split_stage.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "converters/views/all/all_views.h"
#include "src/base/progress.h"
#include "src/xplane/xspace_split.h"

namespace tbprof::cli {

uint64_t TensorBoardBudget::max_file_bytes() const {
  if (budget_mb <= 0) return 0;
  return MaxXPlaneBytesForBudget(budget_bytes(), 1);
}

std::string CheckTensorBoardBudgetFlag(int64_t mb) {
  if (mb < 0) return "--tensorboard-budget-mb must be >= 0 (0 = never split)";
  // Keeps `mb << 20` within uint64_t (and any budget sensible: 1 EiB).
  if (mb > (int64_t{1} << 40)) return "--tensorboard-budget-mb is too large";
  return "";
}

PartRunWriters::PartRunWriters(std::string logdir, std::string run,
                               logdir::RunWriterOptions options)
    : logdir_(std::move(logdir)), run_(std::move(run)), options_(options) {}

absl::StatusOr<logdir::RunWriter*> PartRunWriters::Writer(const std::string& part_run) {
  std::unique_ptr<logdir::RunWriter>& writer = writers_[part_run];
  if (writer == nullptr) {
    absl::StatusOr<std::unique_ptr<logdir::RunWriter>> opened =
        logdir::RunWriter::Open(logdir_, part_run, options_);
    if (!opened.ok()) {
      writers_.erase(part_run);
      return opened.status();
    }
    writer = std::move(*opened);
  }
  return writer.get();
}

absl::StatusOr<StagedHostXSpace> StageHostXSpace(const xplane::XSpaceData& space,
                                                 const std::string& host,
                                                 const TensorBoardBudget& budget,
                                                 logdir::RunWriter* writer,
                                                 PartRunWriters* parts,
                                                 PhaseTimings* timings) {
  StagedHostXSpace staged;
  const uint64_t max_file_bytes = budget.max_file_bytes();
  std::optional<xplane::XSpaceSplit> split;
  uint64_t whole_bytes = 0;
  // The wire size of every event, computed once for the estimate, the plan
  // and the writing (4 bytes per event).
  xplane::EventWireSizes sizes;
  if (max_file_bytes > 0) {
    ScopedPhase phase(timings, "estimate TensorBoard memory");
    sizes = xplane::ComputeEventWireSizes(space);
    whole_bytes = xplane::EstimateXSpaceWireBytes(space, sizes);
    if (whole_bytes > max_file_bytes) {
      split = xplane::XSpaceSplit::Plan(space, max_file_bytes, &sizes);
      if (split->num_parts() < 2) split.reset();  // Nothing to cut at: one file.
    }
  }
  if (!split) {
    absl::StatusOr<std::string> output;
    {
      ScopedPhase phase(timings, "write xplane.pb");
      output = writer->StageXSpaceWith(host, [&](AtomicOutputFile* file) {
        return xplane::WriteXSpaceWire(space, sizes.empty() ? nullptr : &sizes,
                                       /*subset=*/nullptr, file);
      });
    }
    if (!output.ok()) return output.status();
    staged.output_path = *output;
    staged.bytes = writer->staged_files().back().bytes;
    if (max_file_bytes > 0 && staged.bytes > max_file_bytes) {
      std::fprintf(stderr,
                   "tbprof: warning: %s (%s) may need more than the TensorBoard budget "
                   "(--tensorboard-budget-mb %lld) and has nothing to split it at\n",
                   staged.output_path.c_str(), FormatBytes(staged.bytes).c_str(),
                   static_cast<long long>(budget.budget_mb));
    }
    return staged;
  }

  ScopedPhase phase(timings, "split + write xplane.pb parts");
  SplitReport& report = staged.split.emplace();
  report.host = host;
  report.whole_bytes = whole_bytes;
  report.budget_bytes = budget.budget_bytes();
  report.by_steps = split->by_steps();
  report.steps_per_part = split->steps_per_part();
  for (size_t k = 0; k < split->num_parts(); ++k) {
    const std::string part_run = PartRunName(parts->run(), k, split->num_parts());
    absl::StatusOr<logdir::RunWriter*> part_writer = parts->Writer(part_run);
    if (!part_writer.ok()) return part_writer.status();
    absl::StatusOr<std::string> output;
    output = (*part_writer)->StageXSpaceWith(
        host, [&](AtomicOutputFile* file) { return split->WritePart(k, &sizes, file); });
    if (!output.ok()) return output.status();
    SplitReport::Part& part = report.parts.emplace_back();
    part.run = part_run;
    part.path = *output;
    part.bytes = (*part_writer)->staged_files().back().bytes;
    part.plan = split->parts()[k];
    staged.bytes += part.bytes;
  }
  staged.output_path = logdir::HostFilePath(
      logdir::RunDirectory(parts->logdir(),
                           absl::StrCat(PartRunName(parts->run(), 0, split->num_parts()), "..",
                                        split->num_parts())),
      logdir::SanitizeHostName(host));
  return staged;
}

absl::Status PublishRunWithParts(logdir::RunWriter* main, PartRunWriters* parts,
                                 const std::vector<std::string>& hosts,
                                 const std::vector<std::string>& split_hosts,
                                 StaleFilesRemoved* stale) {
  StaleFilesRemoved ignored;
  if (stale == nullptr) stale = &ignored;
  // What this conversion writes: never removed below.
  std::set<std::string> written;
  for (const auto& staged : main->staged_files()) written.insert(staged.final_path);
  for (const auto& [part_run, writer] : parts->writers_) {
    for (const auto& staged : writer->staged_files()) written.insert(staged.final_path);
  }

  for (auto& [part_run, writer] : parts->writers_) {
    if (absl::Status status = writer->Publish(); !status.ok()) return status;
  }
  if (main->staged_files().empty() && !parts->empty()) {
    main->Abort();
  } else if (absl::Status status = main->Publish(); !status.ok()) {
    return status;
  }
  if (!parts->options_.force) return absl::OkStatus();

  std::vector<std::string> sanitized;
  for (const std::string& host : hosts) sanitized.push_back(logdir::SanitizeHostName(host));
  std::vector<std::string> suffixes = {std::string(logdir::kXSpaceSuffix)};
  for (const std::string& suffix : views::PrecomputedViewSuffixes()) suffixes.push_back(suffix);
  suffixes.push_back(std::string(logdir::kViewsFileSuffix));
  stale->status = logdir::RemoveStalePartRunFiles(parts->logdir(), parts->run(), sanitized,
                                                  suffixes, written, &stale->removed);
  const std::string run_dir = logdir::RunDirectory(parts->logdir(), parts->run());
  for (const std::string& host : split_hosts) {
    const std::string path = logdir::HostFilePath(run_dir, logdir::SanitizeHostName(host));
    if (written.count(path) > 0) continue;
    if (std::remove(path.c_str()) == 0) {
      stale->removed.files.push_back(path);
    } else if (errno != ENOENT && stale->status.ok()) {
      stale->status = absl::UnavailableError(
          absl::StrCat(path, ": cannot remove: ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

std::string FormatStaleFilesRemoved(const StaleFilesRemoved& stale) {
  std::string out;
  for (const std::string& path : stale.removed.files) {
    absl::StrAppend(&out, "tbprof: removed stale ", path, " (--force)\n");
  }
  for (const std::string& dir : stale.removed.dirs) {
    absl::StrAppend(&out, "tbprof: removed empty run ", dir, "\n");
  }
  if (!stale.status.ok()) {
    absl::StrAppend(&out, "tbprof: warning: could not remove a stale file of an earlier "
                          "conversion: ",
                    stale.status.message(), "\n");
  }
  return out;
}

}  // namespace tbprof::cli
