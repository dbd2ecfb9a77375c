#include "converters/output/gzip_output_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>

#ifdef TBPROF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::views {
namespace {

constexpr size_t kOutChunk = 256 * 1024;
// zlib and ISA-L take 32-bit lengths; feed large inputs in slices.
constexpr size_t kMaxInSlice = 1u << 30;

}  // namespace

// Compresses input slices; `emit` receives the output in order.
class GzipOutputStream::Engine {
 public:
  using Emitter = std::function<absl::Status(absl::string_view)>;
  virtual ~Engine() = default;
  // Consumes all of `data`; with `finish`, also ends the gzip stream.
  virtual absl::Status Compress(absl::string_view data, bool finish, const Emitter& emit) = 0;

 protected:
  std::string out_buffer_ = std::string(kOutChunk, '\0');
};

namespace {

class ZlibEngine : public GzipOutputStream::Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Create(int level) {
    auto engine = std::unique_ptr<ZlibEngine>(new ZlibEngine());
    // windowBits 16 + MAX_WBITS: gzip wrapper.
    if (deflateInit2(&engine->zs_, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      return absl::InternalError("zlib deflateInit2 failed");
    }
    engine->initialized_ = true;
    return std::unique_ptr<Engine>(std::move(engine));
  }
  ~ZlibEngine() override {
    if (initialized_) deflateEnd(&zs_);
  }

  absl::Status Compress(absl::string_view data, bool finish, const Emitter& emit) override {
    const int flush = finish ? Z_FINISH : Z_NO_FLUSH;
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs_.avail_in = static_cast<uInt>(data.size());
    while (true) {
      zs_.next_out = reinterpret_cast<Bytef*>(&out_buffer_[0]);
      zs_.avail_out = static_cast<uInt>(out_buffer_.size());
      const int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) return absl::InternalError("zlib deflate failed");
      const size_t produced = out_buffer_.size() - zs_.avail_out;
      if (produced > 0) TBPROF_RETURN_IF_ERROR(emit(absl::string_view(out_buffer_.data(), produced)));
      if (zs_.avail_out != 0) {  // deflate() did not fill the buffer: done for now.
        if (finish && rc != Z_STREAM_END) {
          return absl::InternalError("zlib deflate did not finish the stream");
        }
        return absl::OkStatus();
      }
    }
  }

 private:
  ZlibEngine() { std::memset(&zs_, 0, sizeof(zs_)); }
  z_stream zs_;
  bool initialized_ = false;
};

#ifdef TBPROF_HAVE_ISAL
class IsalEngine : public GzipOutputStream::Engine {
 public:
  IsalEngine() : level_buf_(ISAL_DEF_LVL1_DEFAULT) {
    isal_deflate_init(&zs_);
    zs_.gzip_flag = IGZIP_GZIP;
    zs_.level = 1;
    zs_.level_buf = level_buf_.data();
    zs_.level_buf_size = static_cast<uint32_t>(level_buf_.size());
    zs_.flush = NO_FLUSH;
  }

  absl::Status Compress(absl::string_view data, bool finish, const Emitter& emit) override {
    zs_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data.data()));
    zs_.avail_in = static_cast<uint32_t>(data.size());
    zs_.end_of_stream = finish ? 1 : 0;
    while (true) {
      zs_.next_out = reinterpret_cast<uint8_t*>(&out_buffer_[0]);
      zs_.avail_out = static_cast<uint32_t>(out_buffer_.size());
      const int rc = isal_deflate(&zs_);
      if (rc != COMP_OK) return absl::InternalError(absl::StrCat("isal_deflate failed: ", rc));
      const size_t produced = out_buffer_.size() - zs_.avail_out;
      if (produced > 0) TBPROF_RETURN_IF_ERROR(emit(absl::string_view(out_buffer_.data(), produced)));
      const bool input_done = zs_.avail_in == 0;
      if (!finish && input_done && zs_.avail_out != 0) return absl::OkStatus();
      if (finish && zs_.internal_state.state == ZSTATE_END) return absl::OkStatus();
    }
  }

 private:
  isal_zstream zs_;
  std::vector<uint8_t> level_buf_;
};
#endif  // TBPROF_HAVE_ISAL

}  // namespace

absl::StatusOr<std::unique_ptr<GzipOutputStream>> GzipOutputStream::Create(ByteSink sink,
                                                                           int level) {
  if (level < -1 || level > 9) {
    return absl::InvalidArgumentError(absl::StrCat("gzip level must be -1..9, got ", level));
  }
  std::unique_ptr<Engine> engine;
#ifdef TBPROF_HAVE_ISAL
  if (level == 1) engine = std::make_unique<IsalEngine>();
#endif
  if (engine == nullptr) {
    TBPROF_ASSIGN_OR_RETURN(engine, ZlibEngine::Create(level));
  }
  return std::unique_ptr<GzipOutputStream>(new GzipOutputStream(std::move(sink), std::move(engine)));
}

GzipOutputStream::GzipOutputStream(ByteSink sink, std::unique_ptr<Engine> engine)
    : sink_(std::move(sink)), engine_(std::move(engine)) {}

GzipOutputStream::~GzipOutputStream() = default;

absl::Status GzipOutputStream::Emit(absl::string_view bytes) {
  bytes_out_ += bytes.size();
  return sink_(bytes);
}

absl::Status GzipOutputStream::Append(absl::string_view data) {
  if (done_) return absl::FailedPreconditionError("gzip stream already finished or failed");
  bytes_in_ += data.size();
  auto emit = [this](absl::string_view bytes) { return Emit(bytes); };
  while (!data.empty()) {
    const size_t slice = std::min(data.size(), kMaxInSlice);
    absl::Status status = engine_->Compress(data.substr(0, slice), /*finish=*/false, emit);
    if (!status.ok()) {
      done_ = true;
      return status;
    }
    data.remove_prefix(slice);
  }
  return absl::OkStatus();
}

absl::Status GzipOutputStream::Finish() {
  if (done_) return absl::FailedPreconditionError("gzip stream already finished or failed");
  done_ = true;
  return engine_->Compress({}, /*finish=*/true,
                           [this](absl::string_view bytes) { return Emit(bytes); });
}

}  // namespace tbprof::views
