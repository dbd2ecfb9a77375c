// Crash-safe file output: write to a hidden temporary file beside the target,
// then publish it with one rename.
//
// A reader of the directory sees either no file or the complete file, never
// a partial one: an interrupted process leaves at most a hidden
// ".<name>.tmp-<pid>-<n>" file, which Abandon()/the destructor removes when
// the process survives long enough.
#ifndef TBPROF_SRC_BASE_OUTPUT_FILE_H_
#define TBPROF_SRC_BASE_OUTPUT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tbprof {

class AtomicOutputFile {
 public:
  // How Commit() treats an existing target.
  enum class Overwrite { kRefuse, kReplace };

  // Creates the temporary file in the target's directory (which must exist).
  // Errors: kPermissionDenied / kUnavailable naming `target_path`.
  static absl::StatusOr<std::unique_ptr<AtomicOutputFile>> Create(
      const std::string& target_path);

  ~AtomicOutputFile();  // Removes the temporary file unless committed.
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  // Appends bytes (buffered). Errors: kResourceExhausted when the disk is
  // full, kUnavailable otherwise; the message names the target.
  absl::Status Append(absl::string_view data);

  // Flushes, fsyncs and renames the temporary file onto the target.
  // With kRefuse an existing target is left untouched and kAlreadyExists is
  // returned (checked atomically with link(2), so two writers cannot both win).
  absl::Status Commit(Overwrite overwrite);

  // Deletes the temporary file; later calls fail.
  void Abandon();

  const std::string& target_path() const { return target_path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  AtomicOutputFile(int fd, std::string target_path, std::string temp_path);
  // Writes `data` to the file, unbuffered.
  absl::Status WriteAll(absl::string_view data);
  absl::Status FlushBuffer();

  int fd_;
  std::string target_path_;
  std::string temp_path_;
  std::string buffer_;
  uint64_t bytes_written_ = 0;
  bool done_ = false;
};

// Writes `contents` to `path` atomically (see AtomicOutputFile).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents,
                                 AtomicOutputFile::Overwrite overwrite);

// Gzip-compresses `data` (gzip wrapper, default level).
absl::StatusOr<std::string> GzipCompress(absl::string_view data);

}  // namespace tbprof

#endif  // TBPROF_SRC_BASE_OUTPUT_FILE_H_
