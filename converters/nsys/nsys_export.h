// Nsight Systems reports (`.nsys-rep`, older `.qdrep`) are a proprietary
// format: tbprof reads them through `nsys export --type sqlite` when `nsys`
// is on PATH, into a temporary folder that is removed afterwards.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::converters {

// True for names ending in ".nsys-rep" or ".qdrep" (any case).
bool IsNsysReportName(absl::string_view path);

// True if the first bytes of `head` are SQLite's file header.
bool LooksLikeSqlite(absl::string_view head);

// The `nsys` executable on $PATH, "" if none.
std::string FindNsysOnPath();

// Exports the report at `path` with `nsys export --type sqlite` into a new
// folder under $TMPDIR (or /tmp), converts the export, and removes the
// folder. Errors: kFailedPrecondition when `nsys` is not on PATH (one line
// saying how to export by hand), kInternal when the export fails (with
// nsys's last output line), and those of ConvertNsysSqliteToXSpace; each
// names `path`.
absl::StatusOr<NsysSummary> ConvertNsysReportToXSpace(const std::string& path,
                                                      const NsysOptions& options,
                                                      xplane::XSpaceData* out);

// An SQLite export (recognized by content), a report (by name), or one
// process of an export ("<export>#pid=<N>", see ExpandNsysProcesses).
absl::StatusOr<NsysSummary> ConvertNsysToXSpace(const std::string& path,
                                                const NsysOptions& options,
                                                xplane::XSpaceData* out);

// One host per process: for an SQLite export in which several processes ran
// CUDA, "<path>#pid=<N>" for each of them (in pid order); otherwise, and for
// anything that is not a readable export (its reader reports the problem
// later), {path}.
std::vector<std::string> ExpandNsysProcesses(const std::string& path);

// Splits "<file>#pid=<N>" when `path` itself is not a file and <file> is;
// false otherwise.
bool SplitNsysProcessPath(const std::string& path, std::string* file, int64_t* pid);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_
