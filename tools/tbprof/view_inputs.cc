#include "tools/tbprof/view_inputs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/progress.h"
#include "src/base/status_macros.h"
#include "src/logdir/profile_logdir.h"

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

}  // namespace

absl::StatusOr<std::vector<ViewSource>> ResolveViewInputs(const std::vector<std::string>& inputs,
                                                          std::string* description) {
  std::vector<ViewSource> sources;
  std::vector<std::string> plain;
  for (const std::string& input : inputs) {
    if (!IsDirectory(input)) {
      plain.push_back(input);
      continue;
    }
    std::string dir = input;
    const std::string profile_dir = JoinPath(input, "plugins/profile");
    if (IsDirectory(profile_dir)) {  // A logdir: take its latest run.
      std::vector<std::string> runs;
      for (const std::string& run : ListDirectory(profile_dir)) {
        if (IsDirectory(JoinPath(profile_dir, run))) runs.push_back(run);
      }
      if (runs.empty()) {
        return absl::NotFoundError(absl::StrCat(profile_dir, ": no runs in this log directory"));
      }
      dir = JoinPath(profile_dir, runs.back());
      if (runs.size() > 1) {
        std::fprintf(stderr, "tbprof: %s has %zu runs; using the latest, %s\n", input.c_str(),
                     runs.size(), runs.back().c_str());
      }
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
    for (std::string& file : files) sources.push_back({std::move(file), ""});
  }
  if (description != nullptr && !inputs.empty()) {
    *description = inputs.size() == 1
                       ? inputs[0]
                       : absl::StrCat(inputs[0], " and ", inputs.size() - 1, " more");
  }
  return sources;
}

absl::StatusOr<views::ReportInput> LoadViewInputs(const std::vector<std::string>& inputs,
                                                  const ViewInputsOptions& options) {
  views::ReportInput report;
  TBPROF_ASSIGN_OR_RETURN(std::vector<ViewSource> sources,
                          ResolveViewInputs(inputs, &report.source));
  HostNamer namer;
  const bool keep_going = options.failed != nullptr && sources.size() > 1;
  size_t failures = 0;
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
    absl::StatusOr<LoadedInput> loaded = LoadInput(source.path, load_options);
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
    report.hosts.push_back({host, *std::move(computed)});
  }
  if (report.hosts.empty() && failures > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("none of the ", sources.size(), " inputs could be read"));
  }
  return report;
}

}  // namespace tbprof::cli
