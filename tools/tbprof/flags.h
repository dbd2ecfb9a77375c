// A small command-line flag parser for the tbprof subcommands.
//
// Accepted forms: "--name=value", "--name value", "--flag" (booleans, also
// "--flag=true|false"). Flags and positional arguments may be mixed; "--"
// ends the flags and everything after it is positional. A lone "-" is
// positional. Unknown flags, missing values and malformed numbers are errors
// (kInvalidArgument, message without the command name).
#ifndef TBPROF_TOOLS_TBPROF_FLAGS_H_
#define TBPROF_TOOLS_TBPROF_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof::cli {

class FlagSet {
 public:
  // Each flag writes into `*value` when given; `*value` keeps its default
  // otherwise. `name` is given without the leading "--".
  void String(absl::string_view name, std::string* value);
  void Bool(absl::string_view name, bool* value);
  // A non-negative integer.
  void Int64(absl::string_view name, int64_t* value);
  // A byte count: digits with an optional K, M, G or T suffix (powers of
  // 1024, an optional trailing "B"/"iB" is accepted): "512M", "4GiB".
  void ByteSize(absl::string_view name, uint64_t* value);

  // Parses `args` (without the program and command names) and appends the
  // positional arguments to `*positional`.
  absl::Status Parse(const std::vector<std::string>& args,
                     std::vector<std::string>* positional) const;

 private:
  enum class Kind { kString, kBool, kInt64, kByteSize };
  struct Flag {
    std::string name;
    Kind kind;
    void* value;
  };
  const Flag* Find(absl::string_view name) const;
  static absl::Status Assign(const Flag& flag, absl::string_view text);

  std::vector<Flag> flags_;
};

// Parses "123", "64K", "512M", "4GiB", "1T" (powers of 1024).
absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text);

// True if `args` asks for help ("-h", "--help" or "help") before any "--".
bool WantsHelp(const std::vector<std::string>& args);

}  // namespace tbprof::cli

#endif  // TBPROF_TOOLS_TBPROF_FLAGS_H_
