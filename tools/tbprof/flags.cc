#include "tools/tbprof/flags.h"

#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tbprof::cli {

void FlagSet::String(absl::string_view name, std::string* value) {
  flags_.push_back({std::string(name), Kind::kString, value});
}
void FlagSet::Bool(absl::string_view name, bool* value) {
  flags_.push_back({std::string(name), Kind::kBool, value});
}
void FlagSet::Int64(absl::string_view name, int64_t* value) {
  flags_.push_back({std::string(name), Kind::kInt64, value});
}
void FlagSet::ByteSize(absl::string_view name, uint64_t* value) {
  flags_.push_back({std::string(name), Kind::kByteSize, value});
}

const FlagSet::Flag* FlagSet::Find(absl::string_view name) const {
  for (const Flag& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

absl::Status FlagSet::Assign(const Flag& flag, absl::string_view text) {
  switch (flag.kind) {
    case Kind::kString:
      *static_cast<std::string*>(flag.value) = std::string(text);
      return absl::OkStatus();
    case Kind::kBool: {
      std::string lower = absl::AsciiStrToLower(text);
      if (lower == "true" || lower == "1" || lower == "yes") {
        *static_cast<bool*>(flag.value) = true;
      } else if (lower == "false" || lower == "0" || lower == "no") {
        *static_cast<bool*>(flag.value) = false;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("--", flag.name, ": expected true or false, got '", text, "'"));
      }
      return absl::OkStatus();
    }
    case Kind::kInt64: {
      int64_t n;
      if (!absl::SimpleAtoi(text, &n) || n < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", flag.name, ": expected a non-negative integer, got '", text, "'"));
      }
      *static_cast<int64_t*>(flag.value) = n;
      return absl::OkStatus();
    }
    case Kind::kByteSize: {
      absl::StatusOr<uint64_t> n = ParseByteSize(text);
      if (!n.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--", flag.name, ": ", n.status().message()));
      }
      *static_cast<uint64_t*>(flag.value) = *n;
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unknown flag kind");
}

absl::Status FlagSet::Parse(const std::vector<std::string>& args,
                            std::vector<std::string>* positional) const {
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") {
      positional->insert(positional->end(), args.begin() + i + 1, args.end());
      return absl::OkStatus();
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional->push_back(args[i]);
      continue;
    }
    absl::string_view body = arg;
    if (!absl::ConsumePrefix(&body, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", arg, "' (options start with --)"));
    }
    absl::string_view name = body;
    absl::string_view value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != absl::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '--", name, "'"));
    }
    if (flag->kind == Kind::kBool) {
      if (!has_value) {
        *static_cast<bool*>(flag->value) = true;
        continue;
      }
    } else if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = args[++i];
    }
    absl::Status status = Assign(*flag, value);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text) {
  absl::string_view digits = absl::StripAsciiWhitespace(text);
  size_t end = 0;
  while (end < digits.size() && absl::ascii_isdigit(static_cast<unsigned char>(digits[end]))) {
    ++end;
  }
  absl::string_view suffix = digits.substr(end);
  digits = digits.substr(0, end);
  uint64_t n;
  if (digits.empty() || !absl::SimpleAtoi(digits, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a byte count such as 1000000, 512M or 4G, got '", text, "'"));
  }
  // "4G", "4GB" and "4GiB" all mean 4 * 2^30; "100B" means 100.
  std::string unit = absl::AsciiStrToUpper(suffix);
  if (absl::EndsWith(unit, "IB") && unit.size() == 3) {
    unit.resize(1);
  } else if (absl::EndsWith(unit, "B")) {
    unit.pop_back();
  }
  int shift = 0;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "K") {
    shift = 10;
  } else if (unit == "M") {
    shift = 20;
  } else if (unit == "G") {
    shift = 30;
  } else if (unit == "T") {
    shift = 40;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown size suffix in '", text, "' (use K, M, G or T)"));
  }
  if (shift > 0 && n > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return absl::InvalidArgumentError(absl::StrCat("size '", text, "' is too large"));
  }
  return n << shift;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") return false;
    if (arg == "-h" || arg == "--help" || arg == "-help") return true;
  }
  return false;
}

}  // namespace tbprof::cli
