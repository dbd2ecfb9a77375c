#include "tools/tbprof/view_inputs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converters/memory_snapshot/memory_snapshot_report.h"
#include "src/base/progress.h"
#include "src/base/status_macros.h"
#include "src/logdir/part_runs.h"
#include "src/logdir/profile_logdir.h"
#include "src/xplane/xspace_merge.h"

namespace tbprof::cli {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, absl::EndsWith(dir, "/") ? "" : "/", name);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Names of the entries of `dir` (no hidden ones), naturally sorted.
std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* entry = ::readdir(d)) {
      if (entry->d_name[0] != '.') names.push_back(entry->d_name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end(), NaturalLess);
  return names;
}

// The <host>.xplane.pb files of a run directory (empty if there are none).
std::vector<ViewSource> RunDirectorySources(const std::string& dir) {
  const std::string suffix = absl::StrCat(".", logdir::kXSpaceSuffix);
  std::vector<ViewSource> sources;
  for (const std::string& name : ListDirectory(dir)) {
    if (name.size() > suffix.size() && absl::EndsWith(name, suffix) &&
        !IsDirectory(JoinPath(dir, name))) {
      sources.push_back({JoinPath(dir, name), name.substr(0, name.size() - suffix.size())});
    }
  }
  return sources;
}

// Splits ".../<logdir>/plugins/profile/<run>" into logdir and run; false
// for a directory elsewhere.
bool SplitRunDirectory(std::string dir, std::string* logdir, std::string* run) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string marker = "plugins/profile/";
  const size_t at = dir.rfind(marker);
  if (at == std::string::npos || (at > 0 && dir[at - 1] != '/')) return false;
  *run = dir.substr(at + marker.size());
  if (run->empty() || run->find('/') != std::string::npos) return false;
  *logdir = at == 0 ? "." : dir.substr(0, at);
  return true;
}

// The hosts of run `run` of `logdir` and of its part runs, each once: a
// host whole in the run is read from there; a split host from its part runs,
// part 1 first. Sorted by host name (natural order).
absl::StatusOr<std::vector<ViewSource>> RunWithPartsSources(const std::string& logdir,
                                                             const std::string& run) {
  std::vector<ViewSource> sources = RunDirectorySources(logdir::RunDirectory(logdir, run));
  TBPROF_ASSIGN_OR_RETURN(std::vector<std::string> part_runs, logdir::ListPartRuns(logdir, run));
  std::sort(part_runs.begin(), part_runs.end(), NaturalLess);
  const size_t whole_hosts = sources.size();
  for (const std::string& part_run : part_runs) {
    for (ViewSource& part : RunDirectorySources(logdir::RunDirectory(logdir, part_run))) {
      auto same_host = [&](const ViewSource& s) { return s.host == part.host; };
      auto whole = std::find_if(sources.begin(), sources.begin() + whole_hosts, same_host);
      if (whole != sources.begin() + whole_hosts) {
        std::fprintf(stderr,
                     "tbprof: warning: host %s is whole in run %s and also in part run %s; "
                     "using the whole file (convert --force removes the stale parts)\n",
                     part.host.c_str(), run.c_str(), part_run.c_str());
        continue;
      }
      auto split = std::find_if(sources.begin() + whole_hosts, sources.end(), same_host);
      if (split == sources.end()) {
        sources.push_back(std::move(part));
      } else {
        split->more_parts.push_back(std::move(part.path));
      }
    }
  }
  std::sort(sources.begin(), sources.end(), [](const ViewSource& a, const ViewSource& b) {
    return NaturalLess(a.host, b.host);
  });
  return sources;
}

}  // namespace

absl::StatusOr<LoadedInput> LoadViewSource(const ViewSource& source, const LoadOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(LoadedInput loaded, LoadInput(source.path, options));
  if (source.more_parts.empty()) return loaded;
  std::vector<xplane::XSpaceData> parts;
  parts.push_back(std::move(loaded.space));
  for (const std::string& path : source.more_parts) {
    TBPROF_ASSIGN_OR_RETURN(LoadedInput part, LoadInput(path, options));
    loaded.file_bytes += part.file_bytes;
    parts.push_back(std::move(part.space));
  }
  absl::StatusOr<xplane::XSpaceData> merged = xplane::MergeXSpaceParts(std::move(parts));
  if (!merged.ok()) {
    return absl::Status(merged.status().code(),
                        absl::StrCat(source.path, " and its ", source.more_parts.size(),
                                     " other parts: ", merged.status().message()));
  }
  loaded.space = *std::move(merged);
  return loaded;
}

namespace {
}  // namespace

absl::StatusOr<std::vector<ViewSource>> ResolveViewInputs(const std::vector<std::string>& inputs,
                                                          std::string* description) {
  std::vector<ViewSource> sources;
  std::vector<std::string> plain;
  std::vector<std::pair<std::string, std::string>> runs_read;  // (logdir, run)
  for (const std::string& input : inputs) {
    std::string dir = input;
    std::string logdir, run;
    bool part = false;  // `input` is a part run of `run`.
    if (!IsDirectory(input)) {
      // A run whose hosts were all split (and have no views) is only its parts.
      absl::StatusOr<std::vector<std::string>> part_runs;
      if (!SplitRunDirectory(input, &logdir, &run) ||
          !(part_runs = logdir::ListPartRuns(logdir, run)).ok() || part_runs->empty()) {
        plain.push_back(input);
        continue;
      }
    }
    const std::string profile_dir = JoinPath(input, "plugins/profile");
    if (IsDirectory(profile_dir)) {  // A logdir: take its latest run (a part's run).
      std::vector<std::string> runs;
      for (const std::string& name : ListDirectory(profile_dir)) {
        if (!IsDirectory(JoinPath(profile_dir, name))) continue;
        std::string base = logdir::BaseRunOfPartRun(name);
        if (base.empty()) base = name;
        if (std::find(runs.begin(), runs.end(), base) == runs.end()) runs.push_back(base);
      }
      if (runs.empty()) {
        return absl::NotFoundError(absl::StrCat(profile_dir, ": no runs in this log directory"));
      }
      std::sort(runs.begin(), runs.end());
      logdir = input;
      run = runs.back();
      if (runs.size() > 1) {
        std::fprintf(stderr, "tbprof: %s has %zu runs; using the latest, %s\n", input.c_str(),
                     runs.size(), run.c_str());
      }
    } else if (!run.empty() || SplitRunDirectory(input, &logdir, &run)) {
      const std::string base = logdir::BaseRunOfPartRun(run);
      if (!base.empty()) {
        run = base;
        part = true;
      }
    }
    if (!run.empty()) {
      std::error_code ignored;  // A logdir named two ways is one logdir.
      const std::pair<std::string, std::string> key(
          std::filesystem::weakly_canonical(logdir, ignored).string(), run);
      const bool read_already =
          std::find(runs_read.begin(), runs_read.end(), key) != runs_read.end();
      if (part || read_already) {  // The whole run is read, once.
        std::fprintf(stderr, "tbprof: %s %s run %s, %s\n", input.c_str(),
                     part ? "is a part of" : "names", run.c_str(),
                     read_already ? "read already" : "which is read whole");
      }
      if (read_already) continue;
      runs_read.push_back(key);
      TBPROF_ASSIGN_OR_RETURN(std::vector<ViewSource> run_sources,
                              RunWithPartsSources(logdir, run));
      if (!run_sources.empty()) {
        sources.insert(sources.end(), run_sources.begin(), run_sources.end());
        continue;
      }
      dir = logdir::RunDirectory(logdir, run);
    }
    std::vector<ViewSource> run_files = RunDirectorySources(dir);
    if (!run_files.empty()) {
      sources.insert(sources.end(), run_files.begin(), run_files.end());
    } else {
      plain.push_back(dir);  // Traces, one per rank: ExpandInputs lists them.
    }
  }
  if (!plain.empty()) {
    TBPROF_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandInputs(plain));
    std::set<std::string> read;  // Canonical paths: a file named twice is read once.
    for (std::string& file : files) {
      std::error_code ignored;
      std::string canonical = std::filesystem::weakly_canonical(file, ignored).string();
      if (!read.insert(std::move(canonical)).second) {
        std::fprintf(stderr, "tbprof: %s is named twice; read once\n", file.c_str());
        continue;
      }
      sources.push_back({std::move(file), ""});
    }
  }
  if (description != nullptr && !inputs.empty()) {
    *description = inputs.size() == 1
                       ? inputs[0]
                       : absl::StrCat(inputs[0], " and ", inputs.size() - 1, " more");
  }
  return sources;
}

absl::StatusOr<size_t> ForEachViewInput(const std::vector<std::string>& inputs,
                                         const ViewInputsOptions& options,
                                         const ViewInputConsumer& consume,
                                         std::string* description) {
  TBPROF_ASSIGN_OR_RETURN(std::vector<ViewSource> sources, ResolveViewInputs(inputs, description));
  HostNamer namer;
  const bool keep_going = options.failed != nullptr && sources.size() > 1;
  size_t failures = 0, hosts = 0;
  // Returns true when the file is to be skipped, false when `status` ends all.
  auto skip = [&](const absl::Status& status) {
    if (!keep_going) return false;
    std::fprintf(stderr, "tbprof: error: skipped %s\n", std::string(status.message()).c_str());
    options.failed->push_back(status);
    ++failures;
    return true;
  };
  for (size_t i = 0; i < sources.size(); ++i) {
    const ViewSource& source = sources[i];
    ProgressReporter::Options progress_options;
    progress_options.mode =
        options.quiet ? ProgressReporter::Mode::kQuiet : ProgressReporter::Mode::kAuto;
    ProgressReporter progress(
        sources.size() > 1 ? absl::StrCat(options.progress_verb, " [", i + 1, "/", sources.size(),
                                          "] ", BaseName(source.path))
                           : absl::StrCat(options.progress_verb, " ", BaseName(source.path)),
        std::move(progress_options));
    LoadOptions load_options = options.load;
    load_options.progress = [&progress](uint64_t done, uint64_t total) {
      progress.Update(done, total);
    };
    ScopedPhase load_phase(options.timings, "load");
    absl::StatusOr<LoadedInput> loaded = LoadViewSource(source, load_options);
    load_phase.Stop();
    progress.Finish();
    if (!loaded.ok()) {
      if (skip(loaded.status())) continue;
      return loaded.status();
    }
    absl::StatusOr<views::AllViews> computed =
        views::ComputeAllViews(loaded->space, options.views, options.timings);
    if (!computed.ok()) {
      absl::Status status(computed.status().code(),
                          absl::StrCat(source.path, ": ", computed.status().message()));
      if (skip(status)) continue;
      return status;
    }
    const std::string host = source.host.empty()
                                 ? namer.Pick(loaded->host_hint, loaded->rank, source.path)
                                 : namer.Pick(source.host, -1, source.path);
    std::optional<views::ReportAppendix> appendix;
    if (loaded->memory_snapshot_summary.has_value()) {
      const converters::MemorySnapshotSummary& summary = *loaded->memory_snapshot_summary;
      // A snapshot has no GPU planes (only memory events on /host:CPU), so
      // the run environment would say "CPU": name its CUDA devices instead.
      tensorflow::profiler::OverviewPageRunEnvironment* env =
          computed->overview.mutable_run_environment();
      env->set_device_type(converters::MemorySnapshotDeviceType(summary));
      env->set_device_core_count(static_cast<int32_t>(summary.analysis.devices.size()));
      appendix = views::ReportAppendix{host,
                                       "memory_snapshot",
                                       "memory snapshot",
                                       converters::FormatMemorySnapshotText(summary),
                                       converters::MemorySnapshotToJson(summary),
                                       converters::MemorySnapshotToHtml(summary)};
    }
    // The space is not needed any more: free it before the host is rendered.
    loaded->space = xplane::XSpaceData();
    TBPROF_RETURN_IF_ERROR(
        consume(views::HostViews{host, *std::move(computed), source.path}, std::move(appendix)));
    ++hosts;
  }
  if (hosts == 0 && failures > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("none of the ", sources.size(), " inputs could be read"));
  }
  return hosts;
}

absl::StatusOr<views::ReportInput> LoadViewInputs(const std::vector<std::string>& inputs,
                                                  const ViewInputsOptions& options) {
  views::ReportInput report;
  std::vector<views::ReportAppendix> appendices;
  TBPROF_RETURN_IF_ERROR(
      ForEachViewInput(
          inputs, options,
          [&](views::HostViews host, std::optional<views::ReportAppendix> appendix) {
            if (appendix.has_value()) report.appendices.push_back(*std::move(appendix));
            report.hosts.push_back(std::move(host));
            return absl::OkStatus();
          },
          &report.source)
          .status());
  return report;
}

}  // namespace tbprof::cli
