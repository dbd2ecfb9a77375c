#include "tools/tbprof/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/tbprof/commands.h"
#include "tools/tbprof/flags.h"

namespace tbprof::cli {
namespace {

// The subcommands, in the order `tbprof --help` lists them.
const CommandSpec* const kCommands[] = {
    &kConvertCommand,
    &kInspectCommand,
    &kReportCommand,
    &kDiffCommand,
    &kWatchCommand,
    &kRecordCommand,
    &kServeCommand,
    &kCaptureCommand,
};

constexpr char kVersion[] = "0.1.0";

const CommandSpec* FindCommand(const std::string& name) {
  for (const CommandSpec* command : kCommands) {
    if (name == command->name) return command;
  }
  return nullptr;
}

void PrintMainHelp(FILE* out) {
  std::string text =
      "tbprof: turn GPU profiles into TensorBoard profile-plugin data.\n"
      "\n"
      "Usage: tbprof <command> [flags] [args]\n"
      "\n"
      "Commands:\n";
  for (const CommandSpec* command : kCommands) {
    absl::StrAppend(&text, "  ", command->name, std::string(10 - std::string(command->name).size(), ' '),
                    command->summary, "\n");
  }
  absl::StrAppend(
      &text,
      "\n"
      "Run 'tbprof <command> --help' for the flags and examples of one command.\n"
      "\n"
      "Examples:\n"
      "  tbprof convert trace.pt.trace.json.gz --logdir tb     # Kineto/PyTorch trace\n"
      "  tbprof convert traces_dir/ --logdir tb --run job42    # one file per rank -> one run\n"
      "  tbprof inspect trace.json.gz                          # what TensorBoard will show, and why not\n"
      "  tbprof diff base.json new.json --fail-if-slower 5     # compare two profiles, fail if >5% slower\n"
      "  tbprof watch ./log --logdir tb                        # convert traces as training writes them\n"
      "  tbprof record --serve 8466 -- python train.py         # TensorBoard's \"Capture profile\" for PyTorch\n"
      "  tbprof capture localhost:8466 --logdir tb             # the same capture, from the command line\n"
      "  tensorboard --logdir tb                               # open the result\n"
      "\n"
      "Exit status: 0 success, 1 failure, 2 usage error, 3 diff: slower than --fail-if-slower,\n"
      "4 some inputs failed (each named on stderr), the others were converted or shown.\n");
  std::fputs(text.c_str(), out);
}

}  // namespace

int ReportFailure(const absl::Status& status) {
  std::string message = absl::StrReplaceAll(status.message(), {{"\n", "; "}});
  if (message.empty()) message = status.ToString();
  std::fprintf(stderr, "tbprof: error: %s\n", message.c_str());
  return kExitFailure;
}

int ReportUsageError(absl::string_view command, absl::string_view message) {
  std::string text = command.empty()
                         ? absl::StrCat("tbprof: error: ", message, " (see 'tbprof --help')\n")
                         : absl::StrCat("tbprof: error: ", command, ": ", message,
                                        " (see 'tbprof ", command, " --help')\n");
  std::fputs(text.c_str(), stderr);
  return kExitUsage;
}

int RunMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintMainHelp(stderr);
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "-h" || first == "--help") {
    PrintMainHelp(stdout);
    return kExitOk;
  }
  if (first == "--version" || first == "version") {
    std::printf("tbprof %s\n", kVersion);
    return kExitOk;
  }
  if (first == "help") {
    if (args.size() == 1) {
      PrintMainHelp(stdout);
      return kExitOk;
    }
    const CommandSpec* command = FindCommand(args[1]);
    if (command == nullptr) {
      return ReportUsageError("", absl::StrCat("unknown command '", args[1], "'"));
    }
    std::fputs(command->help, stdout);
    return kExitOk;
  }
  const CommandSpec* command = FindCommand(first);
  if (command == nullptr) {
    return ReportUsageError("", absl::StrCat("unknown command '", first, "'"));
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    std::fputs(command->help, stdout);
    return kExitOk;
  }
  return command->run(rest);
}

}  // namespace tbprof::cli
