#include "converters/views/gzip_output_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

constexpr size_t kOutChunk = 256 * 1024;
// zlib takes uInt lengths; feed large inputs in slices.
constexpr size_t kMaxInSlice = 1u << 30;

}  // namespace

absl::StatusOr<std::unique_ptr<GzipOutputStream>> GzipOutputStream::Create(ByteSink sink,
                                                                           int level) {
  if (level < -1 || level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("gzip level must be -1..9, got ", level));
  }
  auto stream = std::make_unique<z_stream_s>();
  std::memset(stream.get(), 0, sizeof(z_stream_s));
  // windowBits 16 + MAX_WBITS: gzip wrapper.
  if (deflateInit2(stream.get(), level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::InternalError("zlib deflateInit2 failed");
  }
  return std::unique_ptr<GzipOutputStream>(
      new GzipOutputStream(std::move(sink), std::move(stream)));
}

GzipOutputStream::GzipOutputStream(ByteSink sink, std::unique_ptr<z_stream_s> stream)
    : sink_(std::move(sink)), stream_(std::move(stream)) {
  out_buffer_.resize(kOutChunk);
}

GzipOutputStream::~GzipOutputStream() { deflateEnd(stream_.get()); }

absl::Status GzipOutputStream::Deflate(int flush) {
  while (true) {
    stream_->next_out = reinterpret_cast<Bytef*>(&out_buffer_[0]);
    stream_->avail_out = static_cast<uInt>(out_buffer_.size());
    const int rc = deflate(stream_.get(), flush);
    if (rc == Z_STREAM_ERROR) {
      done_ = true;
      return absl::InternalError("zlib deflate failed");
    }
    const size_t produced = out_buffer_.size() - stream_->avail_out;
    if (produced > 0) {
      bytes_out_ += produced;
      absl::Status status = sink_(absl::string_view(out_buffer_.data(), produced));
      if (!status.ok()) {
        done_ = true;
        return status;
      }
    }
    // deflate() filled the buffer: there may be more to take out.
    if (stream_->avail_out != 0) {
      if (flush == Z_FINISH && rc != Z_STREAM_END) {
        done_ = true;
        return absl::InternalError("zlib deflate did not finish the stream");
      }
      return absl::OkStatus();
    }
  }
}

absl::Status GzipOutputStream::Append(absl::string_view data) {
  if (done_) return absl::FailedPreconditionError("gzip stream already finished or failed");
  bytes_in_ += data.size();
  while (!data.empty()) {
    const size_t slice = std::min(data.size(), kMaxInSlice);
    stream_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_->avail_in = static_cast<uInt>(slice);
    TBPROF_RETURN_IF_ERROR(Deflate(Z_NO_FLUSH));
    data.remove_prefix(slice);
  }
  return absl::OkStatus();
}

absl::Status GzipOutputStream::Finish() {
  if (done_) return absl::FailedPreconditionError("gzip stream already finished or failed");
  stream_->next_in = nullptr;
  stream_->avail_in = 0;
  TBPROF_RETURN_IF_ERROR(Deflate(Z_FINISH));
  done_ = true;
  return absl::OkStatus();
}

}  // namespace tbprof::views
