#include "converters/nsys/nsys_names.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace tbprof::converters::nsys {

NvtxRangeName ParseNvtxRangeName(absl::string_view text) {
  NvtxRangeName out;
  out.name = text;
  size_t cut = absl::string_view::npos;
  for (absl::string_view marker : {", seq = ", ", op_id = ", ", sizes = "}) {
    cut = std::min(cut, text.find(marker));
  }
  if (cut != absl::string_view::npos && cut > 0) {
    out.name = text.substr(0, cut);
    out.pytorch_op = true;
  }
  constexpr absl::string_view kStep = "ProfilerStep#";
  if (absl::StartsWith(out.name, kStep) &&
      absl::SimpleAtoi(out.name.substr(kStep.size()), &out.step) && out.step >= 0) {
    out.is_step = true;
    out.pytorch_op = false;
  }
  return out;
}

absl::string_view StripApiVersionSuffix(absl::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == absl::string_view::npos || v == 0 || v + 2 == name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(name[i]))) return name;
  }
  return name.substr(0, v);
}

MemcpyDirection MemcpyDirectionOfCopyKind(int64_t copy_kind) {
  switch (copy_kind) {
    case 1:  // HTOD
    case 3:  // HTOA
      return MemcpyDirection::kHToD;
    case 2:  // DTOH
    case 4:  // ATOH
      return MemcpyDirection::kDToH;
    case 5:  // ATOA
    case 6:  // ATOD
    case 7:  // DTOA
    case 8:  // DTOD
      return MemcpyDirection::kDToD;
    case 9:
      return MemcpyDirection::kHToH;
    case 10:
      return MemcpyDirection::kPToP;
    default:
      return MemcpyDirection::kUnknown;
  }
}

absl::string_view MemoryKindName(int64_t kind) {
  static constexpr absl::string_view kNames[] = {"unknown", "pageable", "pinned",
                                                 "device",  "array",    "managed",
                                                 "device_static", "managed_static"};
  return kind >= 0 && kind < 8 ? kNames[kind] : kNames[0];
}

absl::string_view SyncTypeName(int64_t sync_type) {
  switch (sync_type) {
    case 1: return "cuEventSynchronize";
    case 2: return "cuStreamWaitEvent";
    case 3: return "cuStreamSynchronize";
    case 4: return "cuCtxSynchronize";
    default: return "CUDA synchronization";
  }
}

bool XprofParsesAsOpName(absl::string_view name) {
  const size_t colon = name.find(':');
  if (colon == absl::string_view::npos || colon == 0 || colon + 1 >= name.size()) return false;
  const absl::string_view type = name.substr(colon + 1);
  if (type[0] == ':') return false;  // "aten::mm".
  for (char c : type) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return absl::ascii_isalpha(static_cast<unsigned char>(type[0])) || type[0] == '_';
}

}  // namespace tbprof::converters::nsys
