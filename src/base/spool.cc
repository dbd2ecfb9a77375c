#include "src/base/spool.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tbprof {

Spool::~Spool() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::Status Spool::Spill() {
  file_ = std::tmpfile();
  if (file_ == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot create a temporary file for the output: ", std::strerror(errno)));
  }
  if (!memory_.empty() && std::fwrite(memory_.data(), 1, memory_.size(), file_) != memory_.size()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot write a temporary file for the output: ", std::strerror(errno)));
  }
  std::string().swap(memory_);
  return absl::OkStatus();
}

absl::Status Spool::Append(absl::string_view bytes) {
  if (!error_.ok()) return error_;
  size_ += bytes.size();
  if (file_ == nullptr && memory_.size() + bytes.size() <= memory_bytes_) {
    memory_.append(bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  if (file_ == nullptr) {
    error_ = Spill();
    if (!error_.ok()) return error_;
  }
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    error_ = absl::ResourceExhaustedError(
        absl::StrCat("cannot write a temporary file for the output: ", std::strerror(errno)));
  }
  return error_;
}

absl::Status Spool::CopyTo(const std::function<absl::Status(absl::string_view)>& sink) {
  if (!error_.ok()) return error_;
  if (file_ == nullptr) return memory_.empty() ? absl::OkStatus() : sink(memory_);
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) {
    return absl::DataLossError(
        absl::StrCat("cannot read back a temporary file of the output: ", std::strerror(errno)));
  }
  std::vector<char> buffer(size_t{4} << 20);
  size_t copied = 0;
  while (copied < size_) {
    const size_t n = std::fread(buffer.data(), 1, buffer.size(), file_);
    if (n == 0) {
      return absl::DataLossError(absl::StrCat(
          "cannot read back a temporary file of the output: ",
          std::ferror(file_) ? std::strerror(errno) : "it is shorter than written"));
    }
    copied += n;
    if (absl::Status status = sink(absl::string_view(buffer.data(), n)); !status.ok()) {
      return status;
    }
  }
  // Appending after a copy goes on at the end.
  std::fseek(file_, 0, SEEK_END);
  return absl::OkStatus();
}

}  // namespace tbprof
