#include "converters/views/operators/gpu_peak_flops.h"

#include <cctype>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tbprof::views {
namespace {

// Dense FLOP (int8: OP) per clock per SM (AMD: per CU), by unit in PeakUnit
// order: fp16/bf16 tensor, tf32 tensor, fp32, fp8 tensor, int8 tensor. Each
// row reproduces the vendor's published peaks with the clock and SM count
// named in `source`.
struct ArchRates {
  const char* architecture;
  int major, minor;  // Compute capability (NVIDIA).
  double per_sm_clock[5];
  double default_clock_mhz;
  const char* source;
};

constexpr ArchRates kNvidiaArchs[] = {
    {"Volta", 7, 0, {1024, 0, 128, 0, 0}, 1530,
     "NVIDIA Tesla V100 GPU Architecture whitepaper (2017): V100 SXM2, 80 SMs at 1530 MHz: "
     "125 TFLOPS Tensor Core (FP16), 15.7 TFLOPS FP32"},
    {"Turing", 7, 5, {1024, 0, 128, 0, 2048}, 1590,
     "NVIDIA Turing GPU Architecture whitepaper (2018), T4 datasheet: 40 SMs at 1590 MHz: "
     "65 TFLOPS FP16, 130 TOPS INT8, 8.1 TFLOPS FP32"},
    {"Ampere", 8, 0, {2048, 1024, 128, 0, 4096}, 1410,
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs at 1410 MHz: "
     "312 TFLOPS FP16/BF16, 156 TF32, 19.5 FP32, 624 TOPS INT8 (dense)"},
    {"Ampere", 8, 6, {1024, 512, 256, 0, 2048}, 1740,
     "NVIDIA Ampere GA102 GPU Architecture whitepaper (2021): A40, 84 SMs at 1740 MHz: "
     "149.7 TFLOPS FP16 (FP32 accumulate), 74.8 TF32, 37.4 FP32, 299.3 TOPS INT8 (dense)"},
    {"Ada Lovelace", 8, 9, {1024, 512, 256, 2048, 2048}, 2520,
     "NVIDIA Ada GPU Architecture whitepaper (2023), L40S datasheet: 142 SMs at 2520 MHz: "
     "183 TFLOPS TF32, 733 FP8, 733 TOPS INT8, 91.6 TFLOPS FP32 (dense; the datasheet's "
     "362 TFLOPS FP16 is 1% below 1024 FLOP/clk/SM at this clock)"},
    {"Hopper", 9, 0, {4096, 2048, 256, 8192, 8192}, 1830,
     "NVIDIA H100 Tensor Core GPU datasheet (2023): H100 SXM5, 132 SMs: 989.4 TFLOPS "
     "FP16/BF16, 494.7 TF32, 1978.9 FP8, 1978.9 TOPS INT8 (dense) = 1830 MHz; 256 FP32 "
     "FLOP/clk/SM (128 FP32 cores, H100 whitepaper 2022)"},
};

constexpr ArchRates kAmdCdna3 = {
    "CDNA 3", 0, 0, {2048, 1024, 128, 4096, 4096}, 2100,
    "AMD Instinct MI300X data sheet (2023): 304 CUs at 2100 MHz: 1307.4 TFLOPS FP16/BF16, "
    "653.7 TF32, 2614.9 FP8, 2614.9 TOPS INT8 (dense), 81.7 TFLOPS FP32 vector"};

// Boost clocks of known models: the clock at which the vendor's peak
// numbers are stated (peak / (SMs x rate) of the row above).
struct ModelClock {
  const char* pattern;  // Matched as a whole word in the device name.
  const char* model;
  double clock_mhz;
  const char* source;
};

// First match wins: longer names before their prefixes.
constexpr ModelClock kModelClocks[] = {
    {"V100S", "Tesla V100S PCIe", 1597, "V100S datasheet: 130 TFLOPS FP16, 80 SMs"},
    {"V100-PCIE", "Tesla V100 PCIe", 1380, "V100 datasheet: 112 TFLOPS FP16, 80 SMs"},
    {"V100", "Tesla V100 SXM2", 1530, "V100 whitepaper"},
    {"T4", "Tesla T4", 1590, "T4 datasheet"},
    {"A100", "A100", 1410, "A100 whitepaper (SXM4 and PCIe)"},
    {"A10", "A10", 1695, "A10 datasheet: 125 TFLOPS FP16, 72 SMs"},
    {"A40", "A40", 1740, "GA102 whitepaper"},
    {"L40S", "L40S", 2520, "L40S datasheet: 91.6 TFLOPS FP32, 142 SMs"},
    {"L4", "L4", 2040, "L4 datasheet: 121 TFLOPS FP16, 58 SMs"},
    {"H100 PCIe", "H100 PCIe", 1620, "H100 datasheet: 756 TFLOPS BF16, 114 SMs"},
    {"H100", "H100 SXM5", 1830, "H100 datasheet: 989.4 TFLOPS BF16, 132 SMs"},
    {"H200", "H200", 1830, "H200 datasheet: 989 TFLOPS BF16, 132 SMs"},
    {"MI300X", "Instinct MI300X", 2100, "MI300X data sheet"},
};

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// `pattern` occurs in `name` not followed or preceded by a letter or digit
// ("A10" is not in "A100"; "H100" is in "NVIDIA H100 80GB HBM3").
bool ContainsWord(absl::string_view name, absl::string_view pattern) {
  for (size_t pos = name.find(pattern); pos != absl::string_view::npos;
       pos = name.find(pattern, pos + 1)) {
    const size_t end = pos + pattern.size();
    const bool left = pos == 0 || !IsWordChar(name[pos - 1]);
    const bool right = end == name.size() || !IsWordChar(name[end]);
    if (left && right) return true;
  }
  return false;
}

const ModelClock* FindModel(absl::string_view name) {
  for (const ModelClock& m : kModelClocks) {
    if (ContainsWord(name, m.pattern)) return &m;
  }
  return nullptr;
}

bool IsAmd(absl::string_view name) {
  return absl::StrContains(name, "AMD") || absl::StrContains(name, "Instinct") ||
         ContainsWord(name, "MI300X");
}

}  // namespace

absl::string_view PeakUnitName(PeakUnit unit) {
  switch (unit) {
    case PeakUnit::kFp16Tensor:
      return "fp16/bf16 tensor";
    case PeakUnit::kTf32Tensor:
      return "tf32 tensor";
    case PeakUnit::kFp32:
      return "fp32";
    case PeakUnit::kFp8Tensor:
      return "fp8 tensor";
    case PeakUnit::kInt8Tensor:
      return "int8 tensor";
  }
  return "";
}

std::optional<GpuPeak> PeakFlopsOf(const GpuSpec& gpu, std::string* why_not) {
  const ArchRates* arch = nullptr;
  if (IsAmd(gpu.name)) {
    if (ContainsWord(gpu.name, "MI300X")) arch = &kAmdCdna3;
  } else {
    for (const ArchRates& a : kNvidiaArchs) {
      if (a.major == gpu.compute_major && a.minor == gpu.compute_minor) arch = &a;
    }
  }
  if (arch == nullptr) {
    *why_not = IsAmd(gpu.name) || gpu.compute_major == 0
                   ? absl::StrCat("no peak table entry for \"", gpu.name, "\"")
                   : absl::StrCat("no peak table entry for compute capability ",
                                  gpu.compute_major, ".", gpu.compute_minor, " (", gpu.name, ")");
    return std::nullopt;
  }
  if (gpu.sm_count <= 0) {
    *why_not = absl::StrCat("the trace does not give the SM count of \"", gpu.name, "\"");
    return std::nullopt;
  }
  GpuPeak peak;
  peak.architecture =
      arch == &kAmdCdna3
          ? std::string(arch->architecture)
          : absl::StrCat(arch->architecture, " (sm_", arch->major, arch->minor, ")");
  peak.sm_count = gpu.sm_count;
  peak.source = arch->source;
  if (gpu.clock_khz > 0) {
    peak.clock_mhz = gpu.clock_khz / 1000.0;
    peak.clock_source = "deviceProperties";
  } else if (const ModelClock* model = FindModel(gpu.name)) {
    peak.clock_mhz = model->clock_mhz;
    peak.clock_source = absl::StrCat("table: ", model->model, " (", model->source, ")");
  } else {
    peak.clock_mhz = arch->default_clock_mhz;
    peak.clock_source = absl::StrFormat("assumed: %.0f MHz, the %s reference clock (model \"%s\" "
                                        "not in the table, no clock in the trace)",
                                        arch->default_clock_mhz, arch->architecture, gpu.name);
  }
  for (int i = 0; i < 5; ++i) {
    peak.tflops[i] = static_cast<double>(gpu.sm_count) * arch->per_sm_clock[i] *
                     peak.clock_mhz * 1e6 / 1e12;
  }
  return peak;
}

std::optional<PeakUnit> PeakUnitForDtype(absl::string_view dtype, bool uses_tensor_cores) {
  if (dtype == "fp16" || dtype == "bf16") return PeakUnit::kFp16Tensor;
  if (dtype == "fp32") return uses_tensor_cores ? PeakUnit::kTf32Tensor : PeakUnit::kFp32;
  if (dtype == "fp8") return PeakUnit::kFp8Tensor;
  if (dtype == "int8") return PeakUnit::kInt8Tensor;
  return std::nullopt;
}

}  // namespace tbprof::views
