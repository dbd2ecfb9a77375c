// tbprof_scale_trace: repeats a real Chrome/Kineto trace N times with shifted
// timestamps and unique ids, for benchmarks.
//
//   tbprof_scale_trace [--copies N | --target-mb M] [--gap-us G] [--force]
//                      [--gzip-level L] INPUT OUTPUT
//
// INPUT may be gzip. OUTPUT "-" writes to stdout; a name ending in ".gz" is
// gzip-compressed. The output appears atomically (temp file + rename).
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/output_file.h"
#include "src/base/status_macros.h"
#include "tools/bench/trace_scaler.h"

namespace tbprof::bench {
namespace {

constexpr char kUsage[] =
    "usage: tbprof_scale_trace [--copies N | --target-mb M] [--gap-us G] [--force]\n"
    "                          [--gzip-level L] INPUT OUTPUT\n"
    "Repeats the events of a Chrome/Kineto trace (plain or gzip) N times; copy k is\n"
    "shifted by k x (trace span + gap) and gets unique correlation/external/flow/\n"
    "python ids and ProfilerStep numbers. OUTPUT '-' is stdout; '.gz' compresses.\n";

struct Flags {
  ScaleOptions scale;
  bool force = false;
  int gzip_level = 6;
  std::string input;
  std::string output;
};

absl::Status ParseFlags(int argc, char** argv, Flags* flags) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](int64_t* out) -> absl::Status {
      if (i + 1 >= argc || !absl::SimpleAtoi(argv[i + 1], out)) {
        return absl::InvalidArgumentError(absl::StrCat(arg, " needs an integer value"));
      }
      ++i;
      return absl::OkStatus();
    };
    if (arg == "--copies") {
      TBPROF_RETURN_IF_ERROR(value(&flags->scale.copies));
      if (flags->scale.copies < 1) return absl::InvalidArgumentError("--copies must be >= 1");
    } else if (arg == "--target-mb") {
      int64_t mb = 0;
      TBPROF_RETURN_IF_ERROR(value(&mb));
      if (mb < 1) return absl::InvalidArgumentError("--target-mb must be >= 1");
      flags->scale.target_bytes = static_cast<uint64_t>(mb) * 1000 * 1000;
    } else if (arg == "--gap-us") {
      TBPROF_RETURN_IF_ERROR(value(&flags->scale.gap_us));
    } else if (arg == "--gzip-level") {
      int64_t level = 0;
      TBPROF_RETURN_IF_ERROR(value(&level));
      if (level < 1 || level > 9) return absl::InvalidArgumentError("--gzip-level is 1..9");
      flags->gzip_level = static_cast<int>(level);
    } else if (arg == "--force") {
      flags->force = true;
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg));
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2) return absl::InvalidArgumentError("need INPUT and OUTPUT");
  if (flags->scale.copies == 0 && flags->scale.target_bytes == 0) flags->scale.copies = 1;
  flags->input = positional[0];
  flags->output = positional[1];
  return absl::OkStatus();
}

// Streams gzip output into an AtomicOutputFile.
class GzipWriter {
 public:
  GzipWriter(AtomicOutputFile* file, int level) : file_(file), out_(1 << 20, '\0') {
    stream_.zalloc = Z_NULL;
    stream_.zfree = Z_NULL;
    stream_.opaque = Z_NULL;
    ok_ = deflateInit2(&stream_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~GzipWriter() { deflateEnd(&stream_); }

  absl::Status Write(absl::string_view data) { return Deflate(data, Z_NO_FLUSH); }
  absl::Status Finish() { return Deflate({}, Z_FINISH); }

 private:
  absl::Status Deflate(absl::string_view data, int flush) {
    if (!ok_) return absl::InternalError("zlib deflateInit2 failed");
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    int rc;
    do {
      stream_.next_out = reinterpret_cast<Bytef*>(out_.data());
      stream_.avail_out = static_cast<uInt>(out_.size());
      rc = deflate(&stream_, flush);
      if (rc == Z_STREAM_ERROR) return absl::InternalError("zlib deflate failed");
      TBPROF_RETURN_IF_ERROR(file_->Append(
          absl::string_view(out_.data(), out_.size() - stream_.avail_out)));
    } while (stream_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return absl::OkStatus();
  }

  AtomicOutputFile* file_;
  std::string out_;
  z_stream stream_{};
  bool ok_ = false;
};

absl::Status Run(const Flags& flags) {
  if (flags.output == "-") {
    TBPROF_ASSIGN_OR_RETURN(ScaleResult result,
                            ScaleTrace(flags.input, flags.scale, [](absl::string_view text) {
                              if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
                                return absl::UnavailableError("writing to stdout failed");
                              }
                              return absl::OkStatus();
                            }));
    std::fflush(stdout);
    std::fprintf(stderr, "wrote %lld copies, %llu bytes of JSON\n",
                 static_cast<long long>(result.copies),
                 static_cast<unsigned long long>(result.output_bytes));
    return absl::OkStatus();
  }
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<AtomicOutputFile> file,
                          AtomicOutputFile::Create(flags.output));
  const bool gzip = absl::EndsWith(flags.output, ".gz");
  GzipWriter gzip_writer(file.get(), flags.gzip_level);
  TBPROF_ASSIGN_OR_RETURN(
      ScaleResult result, ScaleTrace(flags.input, flags.scale, [&](absl::string_view text) {
        return gzip ? gzip_writer.Write(text) : file->Append(text);
      }));
  if (gzip) TBPROF_RETURN_IF_ERROR(gzip_writer.Finish());
  TBPROF_RETURN_IF_ERROR(file->Commit(flags.force ? AtomicOutputFile::Overwrite::kReplace
                                                  : AtomicOutputFile::Overwrite::kRefuse));
  const TraceExtent& e = result.extent;
  std::fprintf(stderr,
               "%s: %lld copies of %llu events (%llu metadata, %llu malformed), "
               "%.1f MB of JSON%s; time stride %lld us, id stride %lld, step stride %lld\n",
               flags.output.c_str(), static_cast<long long>(result.copies),
               static_cast<unsigned long long>(e.num_events),
               static_cast<unsigned long long>(e.num_metadata_events),
               static_cast<unsigned long long>(e.num_malformed_events),
               static_cast<double>(result.output_bytes) / 1e6, gzip ? " (gzip)" : "",
               static_cast<long long>(result.strides.time_stride_us),
               static_cast<long long>(result.strides.id_stride),
               static_cast<long long>(result.strides.step_stride));
  return absl::OkStatus();
}

}  // namespace
}  // namespace tbprof::bench

int main(int argc, char** argv) {
  tbprof::bench::Flags flags;
  absl::Status status = tbprof::bench::ParseFlags(argc, argv, &flags);
  if (!status.ok()) {
    std::fprintf(stderr, "tbprof_scale_trace: %s\n%s", std::string(status.message()).c_str(),
                 tbprof::bench::kUsage);
    return 2;
  }
  status = tbprof::bench::Run(flags);
  if (!status.ok()) {
    std::fprintf(stderr, "tbprof_scale_trace: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
