// What every tbprof subcommand provides, and the conventions they share.
//
// A subcommand lives in one file, `<name>_command.cc`, which defines one
// `const CommandSpec k<Name>Command` and declares it in commands.h; cli.cc
// lists it in its command table. The runner receives the arguments after the
// command name, with "--help" already handled by the caller.
//
// Exit codes: 0 success, 1 failure (one line on stderr:
// "tbprof: error: <file>: <what>"), 2 usage error, 3 `diff` slower than its
// gate, 4 some inputs failed and the others were used (kExitPartial).
#ifndef TBPROF_TOOLS_TBPROF_COMMAND_H_
#define TBPROF_TOOLS_TBPROF_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tbprof::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// Some inputs of several failed (each named on stderr); the others were
// converted or shown. `--strict` makes such a failure kExitFailure instead.
inline constexpr int kExitPartial = 4;

struct CommandSpec {
  const char* name;     // "convert"
  const char* summary;  // One line for `tbprof --help`.
  const char* help;     // Full text for `tbprof <name> --help`: usage, flags, examples.
  int (*run)(const std::vector<std::string>& args);
};

// Prints "tbprof: error: <message>" (one line: newlines in `message` become
// "; ") to stderr and returns kExitFailure.
int ReportFailure(const absl::Status& status);
// Prints "tbprof: error: <command>: <message> (see 'tbprof <command> --help')"
// to stderr and returns kExitUsage.
int ReportUsageError(absl::string_view command, absl::string_view message);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_COMMAND_H_
