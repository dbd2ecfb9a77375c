// Nsight Systems reports (`.nsys-rep`, older `.qdrep`) are a proprietary
// format: tbprof reads them through `nsys export --type sqlite` when `nsys`
// is on PATH, into a temporary folder that is removed afterwards.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_

#include <string>

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

// An SQLite export (recognized by content) or a report (by name).
absl::StatusOr<NsysSummary> ConvertNsysToXSpace(const std::string& path,
                                                const NsysOptions& options,
                                                xplane::XSpaceData* out);

}  // namespace tbprof::converters

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_EXPORT_H_
