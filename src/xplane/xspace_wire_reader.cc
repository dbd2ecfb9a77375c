#include "src/xplane/xspace_wire_reader.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_wire_parser.h"

namespace tbprof::xplane {
namespace wire_internal {

bool WireParser::Checkpoint(const uint8_t* p) {
  const uint64_t done = static_cast<uint64_t>(p - base_);
  next_checkpoint_ = p + std::min<uint64_t>(kCheckpointBytes, size_ - done);
  if (next_checkpoint_ == p) next_checkpoint_ = base_ + size_ + 1;
  if (group_ > 0) {  // A worker: publishes its progress, gives back what it passed.
    shared_->done[static_cast<size_t>(group_)].store(
        tasks_done_bytes_ + static_cast<uint64_t>(p - task_begin_), std::memory_order_relaxed);
    input_->ReleaseRange(release_from_, done);
    release_from_ = std::max(release_from_, done / PageSize() * PageSize());
    if (shared_->cancel.load(std::memory_order_relaxed)) {
      stop_ = absl::CancelledError("stopped");
      return false;
    }
    return true;
  }
  // Group 0 decodes the first lines: everything before it has been read.
  input_->ReleaseBefore(done);
  if (options_.progress) {
    uint64_t reported = done;
    if (group_ == 0) {
      shared_->done[0].store(tasks_done_bytes_ + static_cast<uint64_t>(p - task_begin_),
                             std::memory_order_relaxed);
      reported = LineBytesDone();
    }
    stop_ = options_.progress(reported, size_);
    if (!stop_.ok()) return false;
  }
  return true;
}

absl::Status WireParser::Error() const {
  if (!stop_.ok()) return stop_;
  std::string where;
  if (plane_number_ >= 0) {
    absl::StrAppend(&where, " (plane ", plane_number_);
    if (line_number_ >= 0) absl::StrAppend(&where, ", line ", line_number_);
    if (event_number_ >= 0) absl::StrAppend(&where, ", event ", event_number_);
    absl::StrAppend(&where, "; counted from 0)");
  }
  return absl::DataLossError(absl::StrCat(input_->source(), ": not a valid XSpace protobuf: ",
                                          error_, " at byte ", error_offset_, where,
                                          size_ > 0 ? absl::StrCat("; the file has ", size_, " bytes")
                                                    : std::string()));
}

bool WireParser::ParseSpace() {
  const uint8_t* end = base_ + size_;
  next_checkpoint_ = base_ + std::min<uint64_t>(kCheckpointBytes, size_);
  if (size_ == 0) next_checkpoint_ = end + 1;
  return ForEachField(base_, end, kMaxDepth, [&](uint32_t tag, const uint8_t*& p) {
    Span field;
    switch (tag) {
      case Tag(1, kLen):
        if (!ReadLen(p, end, &field)) return Field::kFailed;
        plane_number_ = planes_;
        if (!ParsePlane(field, kMaxDepth - 1)) return Field::kFailed;
        plane_number_ = -1;
        ++planes_;
        return ReadOrFailed(collect_tasks_ || p < next_checkpoint_ || Checkpoint(p));
      case Tag(2, kLen):
      case Tag(3, kLen):
      case Tag(4, kLen): {
        const int field_number = static_cast<int>(tag >> 3);
        static constexpr absl::string_view kNames[] = {"", "", "XSpace.errors", "XSpace.warnings",
                                                       "XSpace.hostnames"};
        if (!ReadUtf8(p, end, kNames[field_number], &field)) return Field::kFailed;
        std::vector<std::string>& list = field_number == 2   ? out_->errors
                                         : field_number == 3 ? out_->warnings
                                                             : out_->hostnames;
        list.emplace_back(field.view());
        return Field::kRead;
      }
      default:
        return Field::kUnknown;
    }
  });
}

absl::Status WireParser::Parse() {
  if (!ParseSpace()) {
    if (error_.empty() && !stop_.ok()) return stop_;
    return Error();
  }
  input_->ReleaseBefore(size_);
  if (options_.progress) TBPROF_RETURN_IF_ERROR(options_.progress(size_, size_));
  return absl::OkStatus();
}

}  // namespace wire_internal

using wire_internal::WireParser;

absl::StatusOr<XSpaceData> ParseXSpaceInput(XSpaceInput* input, const XSpaceParseOptions& options) {
  int threads = options.threads;
  if (threads <= 0) {
    threads = input->bytes().size() >= options.parallel_min_bytes
                  ? static_cast<int>(std::min(std::thread::hardware_concurrency(), 4u))
                  : 1;
  }
  if (threads > 1) {
    XSpaceData data;
    absl::StatusOr<bool> parsed = WireParser(input, options, &data).ParseInParallel(threads);
    if (!parsed.ok()) return parsed.status();
    if (*parsed) return data;
    // Malformed outside the lines: one thread finds the first error.
  }
  XSpaceData data;
  TBPROF_RETURN_IF_ERROR(WireParser(input, options, &data).Parse());
  return data;
}

}  // namespace tbprof::xplane
