// Entry point of the tbprof command-line tool: dispatches to subcommands.
#ifndef TBPROF_TOOLS_TBPROF_CLI_H_
#define TBPROF_TOOLS_TBPROF_CLI_H_

namespace tbprof::cli {

// Runs `tbprof <command> [args...]` and returns the process exit code
// (0 success, 1 failure, 2 usage error). Output goes to stdout/stderr.
int RunMain(int argc, char** argv);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_CLI_H_
