#include "converters/views/distributed/collective_bandwidth.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tbprof::views {
namespace {

// `name` without a leading "void " and its parameter list.
absl::string_view KernelBaseName(absl::string_view name) {
  name = absl::StripAsciiWhitespace(name);
  absl::ConsumePrefix(&name, "void ");
  if (size_t paren = name.find('('); paren != absl::string_view::npos) name = name.substr(0, paren);
  return name;
}

bool ConsumePrefixIgnoreCase(absl::string_view* text, absl::string_view prefix) {
  if (!absl::StartsWithIgnoreCase(*text, prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

void EraseAll(absl::string_view part, std::string* text) {
  for (size_t at = text->find(part.data(), 0, part.size()); at != std::string::npos;
       at = text->find(part.data(), at, part.size())) {
    text->erase(at, part.size());
  }
}

}  // namespace

absl::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kSend: return "send";
    case CollectiveKind::kRecv: return "recv";
    case CollectiveKind::kSendRecv: return "send_recv";
    case CollectiveKind::kGather: return "gather";
    case CollectiveKind::kScatter: return "scatter";
    case CollectiveKind::kBarrier: return "barrier";
    case CollectiveKind::kUnknown: break;
  }
  return "unknown";
}

CollectiveKind CollectiveKindFromName(absl::string_view name) {
  std::string text = absl::AsciiStrToLower(absl::StripAsciiWhitespace(name));
  absl::string_view view = text;
  for (absl::string_view prefix : {"nccl:", "rccl:", "gloo:", "c10d::", "c10d:"}) {
    if (absl::ConsumePrefix(&view, prefix)) break;
  }
  std::string core(view);
  for (absl::string_view part : {"_coalesced", "_into_tensor", "_tensor", "_base"}) {
    EraseAll(part, &core);
  }
  EraseAll("_", &core);
  if (core == "allreduce") return CollectiveKind::kAllReduce;
  if (core == "allgather") return CollectiveKind::kAllGather;
  if (core == "reducescatter") return CollectiveKind::kReduceScatter;
  if (core == "alltoall" || core == "alltoallv") return CollectiveKind::kAllToAll;
  if (core == "broadcast") return CollectiveKind::kBroadcast;
  if (core == "reduce") return CollectiveKind::kReduce;
  if (core == "send") return CollectiveKind::kSend;
  if (core == "recv" || core == "recvanysource") return CollectiveKind::kRecv;
  if (core == "sendrecv") return CollectiveKind::kSendRecv;
  if (core == "gather") return CollectiveKind::kGather;
  if (core == "scatter") return CollectiveKind::kScatter;
  if (core == "barrier") return CollectiveKind::kBarrier;
  return CollectiveKind::kUnknown;
}

bool IsCollectiveKernelName(absl::string_view kernel_name) {
  absl::string_view name = absl::StripLeadingAsciiWhitespace(kernel_name);
  absl::ConsumePrefix(&name, "void ");
  return absl::StartsWithIgnoreCase(name, "nccl") || absl::StartsWithIgnoreCase(name, "rccl");
}

CollectiveKind CollectiveKindFromKernelName(absl::string_view kernel_name) {
  if (!IsCollectiveKernelName(kernel_name)) return CollectiveKind::kUnknown;
  absl::string_view rest = KernelBaseName(kernel_name);
  rest.remove_prefix(4);  // "nccl" / "rccl".
  // "ncclKernel_AllReduce_...", "ncclDevKernel_AllReduce_...", and the old
  // "ncclAllReduceRingLLKernel_sum_f32".
  if (!ConsumePrefixIgnoreCase(&rest, "DevKernel_")) ConsumePrefixIgnoreCase(&rest, "Kernel_");
  // Longer names first: "ReduceScatter" before "Reduce", "SendRecv" before "Send".
  static constexpr struct {
    absl::string_view prefix;
    CollectiveKind kind;
  } kPrefixes[] = {
      {"AllReduce", CollectiveKind::kAllReduce},
      {"AllGather", CollectiveKind::kAllGather},
      {"ReduceScatter", CollectiveKind::kReduceScatter},
      {"AllToAll", CollectiveKind::kAllToAll},
      {"Broadcast", CollectiveKind::kBroadcast},
      {"SendRecv", CollectiveKind::kSendRecv},
      {"Reduce", CollectiveKind::kReduce},
      {"Send", CollectiveKind::kSend},
      {"Recv", CollectiveKind::kRecv},
  };
  for (const auto& p : kPrefixes) {
    if (absl::StartsWithIgnoreCase(rest, p.prefix)) return p.kind;
  }
  return CollectiveKind::kUnknown;
}

std::string DtypeFromKernelName(absl::string_view kernel_name) {
  if (!IsCollectiveKernelName(kernel_name)) return "";
  const std::vector<absl::string_view> tokens = absl::StrSplit(KernelBaseName(kernel_name), '_');
  static constexpr absl::string_view kTypes[] = {
      "f32",   "f16",  "bf16",     "f64",   "i8",     "u8",     "i32",    "u32",    "i64",
      "u64",   "f8e4m3", "f8e5m2", "float", "double", "half",   "bfloat16"};
  static constexpr absl::string_view kIntTypes[] = {"int8",  "uint8",  "int32",
                                                    "uint32", "int64", "uint64"};
  std::string found;
  for (size_t i = 1; i < tokens.size(); ++i) {  // tokens[0] is "ncclKernel" etc.
    for (absl::string_view t : kTypes) {
      if (tokens[i] == t) found = std::string(t);
    }
    if (i + 1 < tokens.size() && tokens[i + 1] == "t") {
      for (absl::string_view t : kIntTypes) {
        if (tokens[i] == t) found = std::string(t) + "_t";
      }
    }
  }
  return found;
}

int DtypeBytes(absl::string_view dtype) {
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(dtype));
  absl::string_view v = t;
  for (absl::string_view prefix : {"c10::", "at::", "torch.", "__nv_", "hip_", "rccl_"}) {
    absl::ConsumePrefix(&v, prefix);
  }
  std::string s(v);
  EraseAll("_t", &s);  // int8_t -> int8 (also "unsigned char" stays).
  if (absl::StartsWith(s, "float8") || absl::StartsWith(s, "f8") || absl::StartsWith(s, "fp8")) {
    return 1;
  }
  static constexpr struct {
    absl::string_view name;
    int bytes;
  } kSizes[] = {
      {"double", 8},        {"float64", 8},      {"f64", 8},
      {"long", 8},          {"long int", 8},     {"long long", 8},
      {"int64", 8},         {"i64", 8},          {"uint64", 8},
      {"u64", 8},           {"unsigned long", 8}, {"complexfloat", 8},
      {"complexdouble", 16}, {"complexhalf", 4}, {"float", 4},
      {"float32", 4},       {"f32", 4},          {"int", 4},
      {"int32", 4},         {"i32", 4},          {"uint32", 4},
      {"u32", 4},           {"unsigned int", 4}, {"half", 2},
      {"float16", 2},       {"f16", 2},          {"bfloat16", 2},
      {"bf16", 2},          {"short", 2},        {"short int", 2},
      {"int16", 2},         {"i16", 2},          {"uint16", 2},
      {"char", 1},          {"signed char", 1},  {"unsigned char", 1},
      {"byte", 1},          {"bool", 1},         {"int8", 1},
      {"i8", 1},            {"uint8", 1},        {"u8", 1},
  };
  for (const auto& entry : kSizes) {
    if (s == entry.name) return entry.bytes;
  }
  return 0;
}

int64_t CollectiveMessageBytes(CollectiveKind kind, int64_t in_nelems, int64_t out_nelems,
                               int dtype_bytes) {
  if (dtype_bytes <= 0) return 0;
  int64_t nelems = -1;
  switch (kind) {
    case CollectiveKind::kAllGather:
      nelems = out_nelems;
      break;
    case CollectiveKind::kReduceScatter:
      nelems = in_nelems;
      break;
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
    case CollectiveKind::kSendRecv:
      nelems = std::max(in_nelems, out_nelems);
      break;
    default:
      nelems = in_nelems >= 0 ? in_nelems : out_nelems;
      break;
  }
  if (nelems <= 0) return 0;
  // Beyond 2^62 bytes a count is nonsense; keep the product exact.
  if (nelems > (int64_t{1} << 62) / dtype_bytes) return 0;
  return nelems * dtype_bytes;
}

double BusBandwidthFactor(CollectiveKind kind, int64_t group_size) {
  if (group_size < 1) return 0;
  const double n = static_cast<double>(group_size);
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return (n - 1) / n;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
    case CollectiveKind::kSendRecv:
      return 1;
    default:
      return 0;
  }
}

double AlgorithmBandwidthGBps(int64_t bytes, int64_t time_ps) {
  if (bytes <= 0 || time_ps <= 0) return 0;
  // bytes / (time_ps * 1e-12 s) / 1e9 = bytes * 1000 / time_ps.
  return static_cast<double>(bytes) * 1000.0 / static_cast<double>(time_ps);
}

double BusBandwidthGBps(CollectiveKind kind, int64_t group_size, int64_t bytes, int64_t time_ps) {
  return AlgorithmBandwidthGBps(bytes, time_ps) * BusBandwidthFactor(kind, group_size);
}

}  // namespace tbprof::views
