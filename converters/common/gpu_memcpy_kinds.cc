#include "converters/common/gpu_memcpy_kinds.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tbprof::converters {
namespace {

MemcpyDirection DirectionFromCode(absl::string_view code) {
  // CUPTI memcpy kinds: H(ost), D(evice), A(rray, device side), P(eer).
  if (code.size() != 4 || absl::AsciiStrToLower(code.substr(1, 2)) != "to") {
    return MemcpyDirection::kUnknown;
  }
  auto side = [](char c) -> char {
    switch (absl::ascii_toupper(static_cast<unsigned char>(c))) {
      case 'H':
        return 'H';
      case 'D':
      case 'A':
        return 'D';
      case 'P':
        return 'P';
      default:
        return '?';
    }
  };
  char from = side(code[0]), to = side(code[3]);
  if (from == 'P' || to == 'P') return MemcpyDirection::kPToP;
  if (from == 'H' && to == 'D') return MemcpyDirection::kHToD;
  if (from == 'D' && to == 'H') return MemcpyDirection::kDToH;
  if (from == 'D' && to == 'D') return MemcpyDirection::kDToD;
  if (from == 'H' && to == 'H') return MemcpyDirection::kHToH;
  return MemcpyDirection::kUnknown;
}

void AppendKind(absl::string_view key, absl::string_view kind, std::string* out) {
  kind = absl::StripAsciiWhitespace(kind);
  if (kind.empty()) return;
  absl::StrAppend(out, " ", key, ":");
  for (char c : kind) {
    out->push_back(c == ' ' ? '_' : absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
}

}  // namespace

absl::string_view MemcpyEventName(MemcpyDirection direction) {
  switch (direction) {
    case MemcpyDirection::kHToD:
      return "MemcpyHToD";
    case MemcpyDirection::kDToH:
      return "MemcpyDToH";
    case MemcpyDirection::kDToD:
      return "MemcpyDToD";
    case MemcpyDirection::kHToH:
      return "MemcpyHToH";
    case MemcpyDirection::kPToP:
      return "MemcpyPToP";
    case MemcpyDirection::kUnknown:
      break;
  }
  return "MemcpyOther";
}

MemcpyNameInfo ParseMemcpyName(absl::string_view name) {
  MemcpyNameInfo info;
  absl::string_view rest = absl::StripAsciiWhitespace(name);
  if (absl::ConsumePrefix(&rest, "Memcpy ") || absl::ConsumePrefix(&rest, "memcpy ")) {
    size_t end = rest.find_first_of(" (");
    absl::string_view code = rest.substr(0, end);
    if (absl::EqualsIgnoreCase(code, "PtoP") || absl::EqualsIgnoreCase(code, "Peer")) {
      info.direction = MemcpyDirection::kPToP;
    } else {
      info.direction = DirectionFromCode(code);
    }
    size_t open = rest.find('(');
    size_t close = rest.rfind(')');
    if (open != absl::string_view::npos && close != absl::string_view::npos && close > open) {
      absl::string_view kinds = rest.substr(open + 1, close - open - 1);
      size_t arrow = kinds.find("->");
      if (arrow != absl::string_view::npos) {
        info.src_kind = absl::StripAsciiWhitespace(kinds.substr(0, arrow));
        info.dst_kind = absl::StripAsciiWhitespace(kinds.substr(arrow + 2));
      }
    }
    return info;
  }
  // HIP / roctracer style names.
  struct Alias {
    absl::string_view name;
    MemcpyDirection direction;
  };
  static constexpr Alias kAliases[] = {
      {"CopyHostToDevice", MemcpyDirection::kHToD},   {"CopyDeviceToHost", MemcpyDirection::kDToH},
      {"CopyDeviceToDevice", MemcpyDirection::kDToD}, {"CopyHostToHost", MemcpyDirection::kHToH},
      {"CopyDeviceToPeer", MemcpyDirection::kPToP},   {"CopyPeerToPeer", MemcpyDirection::kPToP},
  };
  for (const Alias& alias : kAliases) {
    if (absl::StartsWithIgnoreCase(rest, alias.name)) {
      info.direction = alias.direction;
      break;
    }
  }
  return info;
}

void AppendMemcpyDetails(uint64_t num_bytes, absl::string_view src_kind, absl::string_view dst_kind,
                         std::string* out) {
  absl::StrAppend(out, "num_bytes:", num_bytes);
  AppendKind("kind_src", src_kind, out);
  AppendKind("kind_dst", dst_kind, out);
}

void AppendMemsetDetails(uint64_t num_bytes, absl::string_view kind, std::string* out) {
  absl::StrAppend(out, "num_bytes:", num_bytes);
  AppendKind("kind", kind, out);
}

}  // namespace tbprof::converters
