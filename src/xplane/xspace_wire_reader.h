// Reads XSpace wire bytes straight into XSpaceData, building no protobuf
// messages: the reading half of what SerializeXSpaceData does for writing.
//
// A protobuf XSpace DOM costs 300-450 bytes per event, so parsing a file
// with XSpace::ParseFromArray needed about 9x the file in memory and could
// not open files over 2 GB at all. This reader decodes tags, varints and
// length-delimited fields itself over one contiguous buffer and appends to
// the compact model directly (events 24 B, stats 8 B, strings interned).
//
// The result is exactly what ParseFromArray + ConvertXSpaceProtoToData gives
// (same vectors, same metadata indices, same string ids; tested on real
// TensorFlow and JAX files), and the same inputs are rejected: bad tags,
// truncated or overlong varints and lengths, fields running past their
// message, invalid UTF-8 in proto3 `string` fields, field number 0, wire
// types 6/7, stray end-group tags, nesting deeper than 100 (protobuf's
// recursion limit). Unknown fields (including groups) are skipped. Only
// protobuf's 2 GB limits (on the whole input and on any length prefix) are
// not applied: larger files and planes are read. The model's own limits are
// (no real file gets near them): a plane holds at most 2^28 - 1 stat metadata
// (Stat::kMaxStatMetadata) and 2^30 - 1 event metadata
// (Event::kMaxEventMetadata), a line at most 2^32 - 1 stats.
//
// How: per plane, a first walk over the plane's own fields records the line
// spans and parses the (small) metadata maps; metadata is then sorted by key
// as the protobuf path does, so events, which usually precede their metadata
// on the wire, resolve their metadata ids to indices as they are read. Each
// line is walked twice: once over its own fields, counting its events and
// their stats (so both vectors are allocated once, at their final size:
// growing them would copy them and hold them twice for a moment), once to
// decode its events.
//
// Threads: a large input (XSpaceParseOptions) is read in two phases. First
// every plane is set up and its lines only located; then the lines, split
// into contiguous runs of about equal bytes, are decoded by one thread per
// run. A worker interns strings into its own pool, and metadata ids that no
// map holds get provisional indices; after the join, the runs' strings are
// interned into the space's pool and their implicit metadata created, run by
// run in file order, so string ids and metadata indices are exactly those of
// one thread. The first error in file order is reported, with the same
// message; a malformed input outside the lines is re-read by one thread.
//
// Long lines: when whole lines cannot share out evenly (the busiest run
// more than 1/8 over an even share: a trace whose events sit in one or two
// lines), each line over two pieces' worth of bytes (a piece: 1/(8 *
// threads) of the lines' bytes, at least 64 KB) is cut into pieces at event
// boundaries by a walk over the line's own fields on this thread. The
// pieces' stats are then counted on every thread (this thread meanwhile
// allocates the lines' events, whose number the walk found), the lines'
// stats are allocated at their final size, and the pieces join the lines
// as tasks of the runs: a piece decodes its events and stats into its
// slices of the line's vectors, interning into its run's pool as a line
// does, and its provisional indices and wide values are merged by slice.
// A split line whose own fields are malformed, whose events hold groups
// (stats after them cannot be counted ahead) or that holds more stats than
// a line can is re-read by one thread, like a malformed input outside the
// lines.
//
// Memory: the model itself (events and stats are about 1.3x the file for a
// stat-dense trace such as a converted Kineto trace), plus the file's pages
// being read: they are given back every ~1 MB as decoding passes them (a
// line's counting walk touches the whole line once before it is decoded).
#ifndef TBPROF_SRC_XPLANE_XSPACE_WIRE_READER_H_
#define TBPROF_SRC_XPLANE_XSPACE_WIRE_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "src/base/input_stream.h"
#include "src/xplane/xspace_data.h"

namespace tbprof::xplane {

// The bytes of one XSpace input, held in memory for one parse.
//
// A plain regular file is mapped read-only (nothing is copied); a gzip file,
// a pipe or a special file is read through OpenInputStream into anonymous
// memory. ReleaseBefore() hands pages the parser has finished with back to
// the OS, so a file's pages do not stay resident beside the model built from
// them. A mapped file must not be truncated by another process while it is
// being read (the read would fault).
class XSpaceInput {
 public:
  // Opens `path`. Errors are those of OpenInputStream / InputStream::Read
  // (kNotFound, kPermissionDenied, kDataLoss for damaged gzip,
  // kResourceExhausted past options.max_inflated_bytes, kUnavailable) and
  // kUnavailable when mapping or allocating fails; all name the path.
  static absl::StatusOr<std::unique_ptr<XSpaceInput>> Open(const std::string& path,
                                                           const InputStreamOptions& options = {});

  // Wraps bytes the caller owns and keeps alive; ReleaseBefore() does nothing.
  // `source` names the input in errors.
  static std::unique_ptr<XSpaceInput> FromBytes(absl::string_view bytes, absl::string_view source);

  XSpaceInput(const XSpaceInput&) = delete;
  XSpaceInput& operator=(const XSpaceInput&) = delete;
  ~XSpaceInput();

  absl::string_view bytes() const { return absl::string_view(data_, size_); }
  // The path, or the source given to FromBytes.
  const std::string& source() const { return source_; }
  // True when the file was gzip and `bytes()` are its inflated contents.
  bool is_gzip() const { return is_gzip_; }

  // Declares that bytes [0, offset) will not be read again by the parser;
  // the whole pages among them are given back to the OS. Later reads of
  // them still see the file's bytes for a mapped file (the page cache refills
  // them) but zeros for inflated or piped input.
  void ReleaseBefore(uint64_t offset);

  // Gives back the whole pages inside [begin, end), like ReleaseBefore() but
  // without recording it. Safe to call from several threads at once for
  // ranges no other thread is reading.
  void ReleaseRange(uint64_t begin, uint64_t end) const;
  // True when released pages read back as the input's bytes (a mapped file:
  // the page cache refills them), so pages can be given back between two
  // reads of them.
  bool released_pages_read_back() const { return storage_ == Storage::kMapped; }

 private:
  enum class Storage { kBorrowed, kMapped, kAnonymous };
  XSpaceInput(Storage storage, std::string source) : storage_(storage), source_(std::move(source)) {}
  absl::Status ReadStream(InputStream* stream);

  Storage storage_;
  std::string source_;
  char* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t capacity_ = 0;  // Bytes mapped (kMapped, kAnonymous).
  uint64_t released_ = 0;  // Page-aligned end of what ReleaseBefore gave back.
  bool is_gzip_ = false;
};

struct XSpaceParseOptions {
  // Called about every 1 MB of input with (bytes parsed, total bytes), and
  // once at the end with (total, total). A non-OK status stops parsing and
  // is returned as is (e.g. a memory limit).
  std::function<absl::Status(uint64_t, uint64_t)> progress;
  // Threads that decode lines: 1 = this thread only; 0 = one per core (at
  // most 4) for inputs of at least `parallel_min_bytes`, else 1. The result
  // does not depend on it. `progress` is only ever called on the calling
  // thread.
  int threads = 0;
  // Also sets the smallest piece a long line is cut into (1/128 of it, at
  // most 64 KB): tests and fuzzing lower it to split small inputs.
  uint64_t parallel_min_bytes = uint64_t{8} << 20;
  // The most event metadata a plane may hold, implicit ones (ids that events
  // use but no map entry defines) included; a file with more is rejected
  // (kDataLoss "more than N event metadata in one plane"). Values above
  // Event::kMaxEventMetadata, the most the model holds, act as it; tests
  // lower it.
  uint32_t max_event_metadata = Event::kMaxEventMetadata;
  // Streaming: when set, the lines' events are handed to this function and
  // not kept, so the model never holds them all (a caller that only
  // summarizes, such as `tbprof inspect`, needs a fraction of the memory).
  // It is called on the calling thread, in file order, for every line (lines
  // without events included), one or more times: each call's `line` holds
  // the next events of the line and only their stats (Line's invariant holds
  // for them: the first one's stats_begin is 0), `line_end` is true on the
  // line's last call. The line's other fields, the plane's metadata (those
  // the events refer to included) and `space`'s strings are final, and the
  // plane's wide_values hold the values of the stats handed over. Once
  // ParseXSpaceInput returns, every line's events and stats are empty (and
  // wide_values may hold fewer values than the full model), everything
  // else is as without it. A parse that fails may have handed over part of
  // the input first; its status is the same as without it. With several
  // threads (`threads`), lines are decoded whole and handed over, each in
  // one call, after the threads join, so memory is not saved there.
  std::function<void(const XSpaceData& space, const Plane& plane, const Line& line,
                     bool line_end)>
      line_events;
};

// Parses the XSpace in `input` and releases its pages as they are consumed.
// Errors: kDataLoss "<source>: not a valid XSpace protobuf: <what> at byte
// <offset> (<where>)", naming the first problem and the plane, line and
// event it is in; or the status returned by options.progress.
absl::StatusOr<XSpaceData> ParseXSpaceInput(XSpaceInput* input,
                                            const XSpaceParseOptions& options = {});

// True when `s` is structurally valid UTF-8 (no overlong forms, surrogates
// or code points past U+10FFFF), the check protobuf applies to `string`
// fields when parsing.
bool IsValidUtf8(absl::string_view s);

}  // namespace tbprof::xplane

#endif  // TBPROF_SRC_XPLANE_XSPACE_WIRE_READER_H_
