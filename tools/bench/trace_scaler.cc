#include "tools/bench/trace_scaler.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/input_stream.h"
#include "src/base/status_macros.h"
#include "tools/bench/trace_splitter.h"

namespace tbprof::bench {
namespace {

constexpr size_t kFlushBytes = 1 << 20;
constexpr absl::string_view kEventSeparator = ",\n  ";

// First pass: extent of the events and the other top-level members.
class AnalysisVisitor : public TraceVisitor {
 public:
  absl::Status OnStart(bool bare_array) override {
    bare_array_ = bare_array;
    return absl::OkStatus();
  }
  absl::Status OnMember(absl::string_view raw_key, absl::string_view raw_value) override {
    std::string& members = events_seen_ ? members_after_ : members_before_;
    absl::StrAppend(&members, "  ", raw_key, ": ", raw_value, ",\n");
    return absl::OkStatus();
  }
  absl::Status OnEventsBegin() override {
    events_seen_ = true;
    return absl::OkStatus();
  }
  absl::Status OnEvent(absl::string_view raw_event) override {
    uint64_t before = extent_.num_metadata_events;
    ScanEvent(raw_event, &extent_);
    uint64_t bytes = raw_event.size() + kEventSeparator.size();
    event_bytes_ += bytes;
    if (extent_.num_metadata_events != before) metadata_bytes_ += bytes;
    return absl::OkStatus();
  }

  bool bare_array_ = false;
  bool events_seen_ = false;
  std::string members_before_;
  std::string members_after_;
  TraceExtent extent_;
  uint64_t event_bytes_ = 0;
  uint64_t metadata_bytes_ = 0;
};

// Buffers output text and hands it to the sink in large chunks.
class Writer {
 public:
  explicit Writer(const TextSink& sink) : sink_(sink) { buffer_.reserve(2 * kFlushBytes); }
  std::string* buffer() { return &buffer_; }
  absl::Status MaybeFlush() { return buffer_.size() >= kFlushBytes ? Flush() : absl::OkStatus(); }
  absl::Status Flush() {
    if (buffer_.empty()) return absl::OkStatus();
    total_ += buffer_.size();
    absl::Status status = sink_(buffer_);
    buffer_.clear();
    return status;
  }
  uint64_t total() const { return total_ + buffer_.size(); }

 private:
  const TextSink& sink_;
  std::string buffer_;
  uint64_t total_ = 0;
};

// Later passes: writes copy `copy` of every event.
class CopyVisitor : public TraceVisitor {
 public:
  CopyVisitor(int64_t copy, const CopyStrides& strides, bool* first_event, Writer* writer)
      : copy_(copy), strides_(strides), first_event_(first_event), writer_(writer) {}

  absl::Status OnEvent(absl::string_view raw_event) override {
    std::string* out = writer_->buffer();
    const size_t mark = out->size();
    if (!*first_event_) out->append(kEventSeparator.data(), kEventSeparator.size());
    if (!RewriteEvent(raw_event, copy_, strides_, out)) {
      out->resize(mark);
      return absl::OkStatus();
    }
    *first_event_ = false;
    return writer_->MaybeFlush();
  }

 private:
  int64_t copy_;
  CopyStrides strides_;
  bool* first_event_;
  Writer* writer_;
};

int64_t CopiesForTarget(uint64_t target_bytes, uint64_t fixed_bytes, uint64_t first_copy_bytes,
                        uint64_t later_copy_bytes) {
  uint64_t have = fixed_bytes + first_copy_bytes;
  if (target_bytes <= have || later_copy_bytes == 0) return 1;
  uint64_t missing = target_bytes - have;
  return 1 + static_cast<int64_t>((missing + later_copy_bytes - 1) / later_copy_bytes);
}

}  // namespace

absl::StatusOr<ScaleResult> ScaleTrace(const std::string& input_path,
                                       const ScaleOptions& options, const TextSink& sink) {
  if (options.copies < 0 || (options.copies == 0 && options.target_bytes == 0)) {
    return absl::InvalidArgumentError("scale: give a number of copies >= 1 or a target size");
  }
  if (options.gap_us < 0) return absl::InvalidArgumentError("scale: gap must be >= 0");

  AnalysisVisitor analysis;
  {
    TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> input, OpenInputStream(input_path));
    TBPROF_RETURN_IF_ERROR(SplitTrace(input.get(), &analysis));
  }

  ScaleResult result;
  result.extent = analysis.extent_;
  result.strides = ComputeStrides(analysis.extent_, options.gap_us);
  const std::string header = analysis.bare_array_
                                 ? std::string("[\n  ")
                                 : absl::StrCat("{\n", analysis.members_before_,
                                                "  \"traceEvents\": [\n  ");
  std::string footer = analysis.bare_array_ ? "\n]\n" : "\n  ]";
  if (!analysis.bare_array_) {
    if (!analysis.members_after_.empty()) {
      // Members were stored with a trailing ",\n"; the last one loses its comma.
      std::string after = analysis.members_after_;
      after.resize(after.size() - 2);
      absl::StrAppend(&footer, ",\n", after);
    }
    absl::StrAppend(&footer, "\n}\n");
  }
  result.copies = options.copies > 0
                      ? options.copies
                      : CopiesForTarget(options.target_bytes, header.size() + footer.size(),
                                        analysis.event_bytes_,
                                        analysis.event_bytes_ - analysis.metadata_bytes_);
  const int64_t max_int = std::numeric_limits<int64_t>::max();
  if (result.copies > 1 &&
      (result.strides.id_stride > max_int / result.copies ||
       result.strides.time_stride_us > (max_int - result.extent.max_end_us) / result.copies)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scale: ", result.copies, " copies of ", input_path, " would overflow int64 ids or times"));
  }

  Writer writer(sink);
  writer.buffer()->append(header);
  bool first_event = true;
  for (int64_t copy = 0; copy < result.copies; ++copy) {
    TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> input, OpenInputStream(input_path));
    CopyVisitor visitor(copy, result.strides, &first_event, &writer);
    TBPROF_RETURN_IF_ERROR(SplitTrace(input.get(), &visitor));
  }
  writer.buffer()->append(footer);
  TBPROF_RETURN_IF_ERROR(writer.Flush());
  result.output_bytes = writer.total();
  return result;
}

}  // namespace tbprof::bench
