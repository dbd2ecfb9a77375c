#include "src/xplane/xspace_wire_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace tbprof::xplane {

// ---- XSpaceInput -------------------------------------------------------------------------------

namespace {

uint64_t PageSize() {
  static const uint64_t size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::string ErrnoText(absl::string_view what, const std::string& path) {
  return absl::StrCat(path, ": ", what, ": ", std::strerror(errno));
}

}  // namespace

XSpaceInput::~XSpaceInput() {
  if (storage_ != Storage::kBorrowed && data_ != nullptr) ::munmap(data_, capacity_);
}

std::unique_ptr<XSpaceInput> XSpaceInput::FromBytes(absl::string_view bytes,
                                                    absl::string_view source) {
  std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kBorrowed, std::string(source)));
  input->data_ = const_cast<char*>(bytes.data());
  input->size_ = bytes.size();
  return input;
}

absl::StatusOr<std::unique_ptr<XSpaceInput>> XSpaceInput::Open(const std::string& path,
                                                               const InputStreamOptions& options) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenInputStream(path, options));
  struct stat st;
  const bool regular = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (!stream->is_gzip() && regular) {
    std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kMapped, path));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::UnavailableError(ErrnoText("cannot open", path));
    struct stat fst;
    if (::fstat(fd, &fst) != 0) {
      absl::Status status = absl::UnavailableError(ErrnoText("cannot stat", path));
      ::close(fd);
      return status;
    }
    input->size_ = static_cast<uint64_t>(fst.st_size);
    if (input->size_ > 0) {
      void* map = ::mmap(nullptr, input->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED) {
        absl::Status status = absl::UnavailableError(ErrnoText("cannot map", path));
        ::close(fd);
        return status;
      }
      input->data_ = static_cast<char*>(map);
      input->capacity_ = input->size_;
    }
    ::close(fd);
    return input;
  }
  std::unique_ptr<XSpaceInput> input(new XSpaceInput(Storage::kAnonymous, path));
  input->is_gzip_ = stream->is_gzip();
  TBPROF_RETURN_IF_ERROR(input->ReadStream(stream.get()));
  return input;
}

absl::Status XSpaceInput::ReadStream(InputStream* stream) {
  const uint64_t page = PageSize();
  uint64_t want = std::clamp<uint64_t>(stream->file_size() * (is_gzip_ ? 8 : 1), uint64_t{4} << 20,
                                       uint64_t{1} << 30);
  capacity_ = (want + page - 1) / page * page;
  void* map = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) {
    capacity_ = 0;
    return absl::UnavailableError(ErrnoText("cannot allocate a read buffer", source_));
  }
  data_ = static_cast<char*>(map);
  for (;;) {
    if (size_ == capacity_) {
      void* grown = ::mremap(data_, capacity_, capacity_ * 2, MREMAP_MAYMOVE);
      if (grown == MAP_FAILED) {
        return absl::UnavailableError(ErrnoText("cannot grow the read buffer", source_));
      }
      data_ = static_cast<char*>(grown);
      capacity_ *= 2;
    }
    TBPROF_ASSIGN_OR_RETURN(size_t n, stream->Read(data_ + size_, capacity_ - size_));
    if (n == 0) break;
    size_ += n;
  }
  return absl::OkStatus();
}

void XSpaceInput::ReleaseBefore(uint64_t offset) {
  if (storage_ == Storage::kBorrowed || data_ == nullptr) return;
  const uint64_t page = PageSize();
  uint64_t end = std::min(offset, size_) / page * page;
  if (end <= released_) return;
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

void XSpaceInput::ReleaseRange(uint64_t begin, uint64_t end) const {
  if (storage_ == Storage::kBorrowed || data_ == nullptr) return;
  const uint64_t page = PageSize();
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end <= begin) return;
  ::madvise(data_ + begin, end - begin, MADV_DONTNEED);
}

// ---- UTF-8 -------------------------------------------------------------------------------------

bool IsValidUtf8(absl::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t* end = p + s.size();
  while (p < end) {
    // ASCII runs, 8 bytes at a time.
    while (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if (word & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p == end) break;
    uint8_t c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;  // Continuation byte, overlong lead (C0, C1) or past F4.
    }
    if (end - p < len) return false;
    for (int i = 1; i < len; ++i) {
      uint8_t cc = p[i];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    p += len;
  }
  return true;
}

// ---- The parser --------------------------------------------------------------------------------

namespace {

// protobuf's default recursion limit: nested messages and groups together.
constexpr int kMaxDepth = 100;
constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kCheckpointBytes = uint64_t{8} << 20;

// Tags (field << 3 | wire type) of the fields we read.
constexpr uint32_t Tag(uint32_t field, uint32_t wire_type) { return (field << 3) | wire_type; }
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4,
                   kFixed32 = 5;

struct Span {
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  absl::string_view view() const {
    return absl::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
  }
};

// An XStat as read, before its metadata id and string are resolved.
struct RawStat {
  int64_t metadata_id = 0;
  StatKind kind = StatKind::kNone;
  uint64_t bits = 0;  // Numeric value (double as bits).
  Span str;           // kStr, kBytes, kCompressedStr.
  const uint8_t* at = nullptr;  // Where the XStat starts, for errors.
};

struct RawStatMetadata {
  int64_t key = 0;
  int64_t id = 0;
  Span name, description;
};

struct RawEventMetadata {
  int64_t key = 0;
  int64_t id = 0;
  Span name, display_name, metadata;
  std::vector<RawStat> stats;
  std::vector<int64_t> child_ids;
};

// Metadata id -> index into the plane's vector: a flat table for the usual
// small ids, a hash map for the others.
class IdIndex {
 public:
  void Reset(int64_t max_id, size_t count) {
    dense_.clear();
    sparse_.clear();
    if (max_id >= 0 && static_cast<uint64_t>(max_id) <= 4 * count + 4096) {
      dense_.assign(static_cast<size_t>(max_id) + 1, kNoIndex);
    }
  }
  uint32_t Find(int64_t id) const {
    if (static_cast<uint64_t>(id) < dense_.size()) return dense_[static_cast<size_t>(id)];
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNoIndex : it->second;
  }
  void Insert(int64_t id, uint32_t index) {
    if (static_cast<uint64_t>(id) < dense_.size()) {
      dense_[static_cast<size_t>(id)] = index;
    } else {
      sparse_[id] = index;
    }
  }

 private:
  std::vector<uint32_t> dense_;
  absl::flat_hash_map<int64_t, uint32_t> sparse_;
};

// Metadata ids that a line-decoding group found in no map of a plane, in the
// order of their first use. While lines are decoded in parallel the plane's
// indices are read-only: such an id gets the provisional index
// known_* + k, and the implicit metadata are created after the threads
// join, group by group in file order, exactly as a single thread would have
// created them.
struct Provisional {
  std::vector<int64_t> stat_ids, event_ids;
  std::vector<const uint8_t*> stat_at;  // Where each stat id was first used, for errors.
  // Where each event id was first used (byte, line and event numbers), for errors.
  struct Use {
    const uint8_t* at;
    int64_t line_number, event_number;
  };
  std::vector<Use> event_use;
  absl::flat_hash_map<int64_t, uint32_t> stat_k, event_k;
  bool empty() const { return stat_ids.empty() && event_ids.empty(); }
};

// What decoding a plane's lines needs besides the bytes.
struct PlaneState {
  Plane* plane = nullptr;
  int64_t number = -1;  // Position among the planes, for errors.
  IdIndex stat_index;
  IdIndex event_index;
  uint32_t known_stats = 0;   // Metadata counts before the lines were decoded.
  uint32_t known_events = 0;
  std::vector<Provisional> provisional;  // Per group (parallel decoding only).
  // Parallel decoding only. String ids must come out in the order one
  // thread interns strings: a plane's own strings, then its lines', plane
  // after plane. So the strings of all but the first plane's setup, and of
  // every run of lines but the first group's in the first plane, go to
  // pools of their own, merged in that order after the join.
  std::unique_ptr<StringPool> setup_pool;
  std::vector<std::unique_ptr<StringPool>> line_pools;  // Per group.
  // Likewise the wide values (Stat) of the lines of groups 1, 2, ...; group
  // 0 appends to the plane's own, which come first.
  std::vector<WideValues> line_wide;  // Per group.
};

// One line to decode: its bytes and where the result goes.
struct LineTask {
  PlaneState* plane;
  int64_t line_number;  // Within its plane, for errors.
  Span span;
  int depth;
  Line* line;
};

// Shared by the threads that decode lines in parallel.
struct ParallelShared {
  explicit ParallelShared(size_t groups) : done(new std::atomic<uint64_t>[groups]) {
    for (size_t g = 0; g < groups; ++g) done[g].store(0, std::memory_order_relaxed);
  }
  std::atomic<bool> cancel{false};
  std::unique_ptr<std::atomic<uint64_t>[]> done;  // Line bytes decoded, per group.
  std::mutex mutex;
  std::condition_variable finished_cv;
  size_t running = 0;  // Worker threads not yet finished (guarded by mutex).
};

// Number of stats (field 4) an XEvent holds, by a walk that only skips
// fields; a malformed event stops the count (the parse reports it later).
size_t CountEventStats(Span event) {
  size_t count = 0;
  const uint8_t* p = event.p;
  const uint8_t* end = event.end;
  while (p < end) {
    uint32_t tag = *p++;
    if (tag >= 0x80) {
      tag &= 0x7f;
      for (int shift = 7; p < end && shift < 35; shift += 7) {
        uint8_t b = *p++;
        tag |= static_cast<uint32_t>(b & 0x7f) << shift;  // Bits past 32 drop, as in ReadTag.
        if (b < 0x80) break;
      }
    }
    switch (tag & 7) {
      case kVarint:
        while (p < end && *p++ >= 0x80) {
        }
        break;
      case kFixed64:
        if (end - p < 8) return count;
        p += 8;
        break;
      case kLen: {
        uint64_t len = 0;
        for (int shift = 0; p < end && shift < 64; shift += 7) {
          uint8_t b = *p++;
          len |= static_cast<uint64_t>(b & 0x7f) << shift;
          if (b < 0x80) break;
        }
        if (len > static_cast<uint64_t>(end - p)) return count;
        p += len;
        count += tag == Tag(4, kLen);
        break;
      }
      case kFixed32:
        if (end - p < 4) return count;
        p += 4;
        break;
      default:
        return count;  // Groups and bad wire types: rare or an error.
    }
  }
  return count;
}

class WireParser {
 public:
  WireParser(XSpaceInput* input, const XSpaceParseOptions& options, XSpaceData* out)
      : input_(input),
        options_(options),
        out_(out),
        base_(reinterpret_cast<const uint8_t*>(input->bytes().data())),
        size_(input->bytes().size()),
        strings_(&out->strings) {}

  // A worker of ParseInParallel(): decodes the lines of group `group` into
  // the planes `main` has set up, interning strings into the planes'
  // line_pools.
  WireParser(const WireParser& main, int group, ParallelShared* shared)
      : input_(main.input_),
        options_(main.options_),
        out_(nullptr),
        base_(main.base_),
        size_(main.size_),
        strings_(nullptr),
        group_(group),
        shared_(shared) {}

  // One thread, everything in file order.
  absl::Status Parse();

  // Locates every line first, then decodes the lines on up to `threads`
  // threads, each taking a contiguous run of lines (in bytes, about equal).
  // The result is identical to Parse()'s, errors included. Returns false,
  // having released no pages and called no progress, when anything outside
  // the lines is malformed (the caller then runs Parse() on a fresh parser,
  // which reports the first error in file order) or when the lines make
  // only one run (nothing to share).
  absl::StatusOr<bool> ParseInParallel(int threads);

 private:
  // -- Primitives: each returns false after recording the error. --

  // The most event metadata a plane may hold (options, at most
  // Event::kMaxEventMetadata).
  uint32_t MaxEventMetadata() const {
    return std::min(options_.max_event_metadata, Event::kMaxEventMetadata);
  }
  bool FailTooManyEventMetadata(const uint8_t* at) {
    return Fail(at, absl::StrCat("more than ", MaxEventMetadata(),
                                 " event metadata in one plane (the most tbprof holds)"));
  }

  bool Fail(const uint8_t* at, absl::string_view what) {
    if (error_.empty()) {
      error_ = std::string(what);
      error_offset_ = static_cast<uint64_t>(at - base_);
    }
    return false;
  }

  bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
    if (__builtin_expect(p < end && *p < 0x80, 1)) {
      *value = *p++;
      return true;
    }
    return ReadVarintSlow(p, end, value, 10);
  }

  // Up to `max_bytes` bytes; bits past 64 are dropped, as protobuf does.
  bool ReadVarintSlow(const uint8_t*& p, const uint8_t* end, uint64_t* value, int max_bytes) {
    const uint8_t* start = p;
    uint64_t result = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (p == end) {
        return Fail(start, end == base_ + size_ ? "the file ends inside a varint (truncated?)"
                                                : "varint runs past the end of its enclosing message");
      }
      uint8_t b = *p++;
      if (i < 10) result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (b < 0x80) {
        *value = result;
        return true;
      }
    }
    return Fail(start, "varint longer than its maximum size");
  }

  bool ReadTag(const uint8_t*& p, const uint8_t* end, uint32_t* tag) {
    if (__builtin_expect(*p < 0x80, 1)) {  // Callers check p < end.
      *tag = *p++;
    } else {
      uint64_t v = 0;
      if (!ReadVarintSlow(p, end, &v, 5)) return false;
      *tag = static_cast<uint32_t>(v);  // protobuf drops the bits past 32 too.
    }
    if (__builtin_expect(*tag < 8, 0)) return Fail(p - 1, "field number 0");
    return true;
  }

  // Reads a length prefix and the span it covers.
  bool ReadLen(const uint8_t*& p, const uint8_t* end, Span* span) {
    const uint8_t* start = p;
    uint64_t len = 0;
    if (!ReadVarint(p, end, &len)) return false;
    if (__builtin_expect(len > static_cast<uint64_t>(end - p), 0)) {
      return Fail(start, absl::StrCat("length ", len, " runs past the end of ",
                                      end == base_ + size_ ? "the file" : "its enclosing message",
                                      " (", end - p, " bytes left",
                                      end == base_ + size_ ? ": truncated?)" : ")"));
    }
    span->p = p;
    span->end = p + len;
    p += len;
    return true;
  }

  bool ReadFixed64(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
    if (end - p < 8) return Fail(p, "truncated 64-bit field");
    std::memcpy(value, p, 8);
    p += 8;
    return true;
  }

  // Skips the value of a field we do not read; `depth` is the nesting budget
  // left inside the current message.
  bool SkipField(const uint8_t*& p, const uint8_t* end, uint32_t tag, int depth) {
    uint64_t ignored = 0;
    Span span;
    switch (tag & 7) {
      case kVarint:
        return ReadVarint(p, end, &ignored);
      case kFixed64:
        return ReadFixed64(p, end, &ignored);
      case kLen:
        return ReadLen(p, end, &span);
      case kStartGroup:
        return SkipGroup(p, end, tag >> 3, depth - 1);
      case kEndGroup:
        return Fail(p, absl::StrCat("end-group tag of field ", tag >> 3, " outside a group"));
      case kFixed32:
        if (end - p < 4) return Fail(p, "truncated 32-bit field");
        p += 4;
        return true;
      default:
        return Fail(p, absl::StrCat("invalid wire type ", tag & 7, " of field ", tag >> 3));
    }
  }

  bool SkipGroup(const uint8_t*& p, const uint8_t* end, uint32_t field, int depth) {
    if (depth < 0) return Fail(p, "nesting deeper than 100 levels");
    while (p < end) {
      uint32_t tag = 0;
      if (!ReadTag(p, end, &tag)) return false;
      if ((tag & 7) == kEndGroup) {
        if ((tag >> 3) == field) return true;
        return Fail(p, absl::StrCat("end-group tag of field ", tag >> 3, " closes group ", field));
      }
      if (!SkipField(p, end, tag, depth)) return false;
    }
    return Fail(p, absl::StrCat("group of field ", field, " is not closed"));
  }

  // Reads a length-delimited string field, checking UTF-8 (proto3 `string`).
  bool ReadUtf8(const uint8_t*& p, const uint8_t* end, absl::string_view field, Span* span) {
    if (!ReadLen(p, end, span)) return false;
    if (!IsValidUtf8(span->view())) return Fail(span->p, absl::StrCat("invalid UTF-8 in ", field));
    return true;
  }

  // -- Model building. --

  uint32_t Intern(Span s) { return strings_->Intern(s.view()); }

  void UsePool(StringPool* pool) {
    strings_ = pool;
    utf8_checked_.clear();
  }

  // Interns a string whose UTF-8 is not yet checked; each distinct string is
  // checked once.
  bool InternUtf8(Span s, absl::string_view field, uint32_t* id) {
    *id = Intern(s);
    if (*id >= utf8_checked_.size()) utf8_checked_.resize(strings_->size(), 0);
    if (!utf8_checked_[*id]) {
      if (!IsValidUtf8(s.view())) return Fail(s.p, absl::StrCat("invalid UTF-8 in ", field));
      utf8_checked_[*id] = 1;
    }
    return true;
  }

  // The index of stat metadata `id` in the current plane, creating implicit
  // metadata for an id no map holds (provisional while lines are decoded in
  // parallel; `at` is where the id is used).
  uint32_t StatIndex(int64_t id, const uint8_t* at) {
    uint32_t index = ps_->stat_index.Find(id);
    if (__builtin_expect(index != kNoIndex, 1)) return index;
    if (group_ >= 0) {
      Provisional& pv = ps_->provisional[static_cast<size_t>(group_)];
      auto [it, inserted] = pv.stat_k.try_emplace(id, static_cast<uint32_t>(pv.stat_ids.size()));
      if (inserted) {
        pv.stat_ids.push_back(id);
        pv.stat_at.push_back(at);
      }
      // Past 2^28 distinct ids this may fail where one thread would not
      // (or the reverse); no file gets near.
      return static_cast<uint32_t>(
          std::min<uint64_t>(uint64_t{ps_->known_stats} + it->second, kNoIndex - 1));
    }
    StatMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    index = static_cast<uint32_t>(ps_->plane->stat_metadata.size());
    ps_->plane->stat_metadata.push_back(md);
    ps_->stat_index.Insert(id, index);
    return index;
  }

  // The index of event metadata `id` in the current plane, creating implicit
  // metadata as StatIndex() does. The caller rejects an index >=
  // MaxEventMetadata() (provisional ones saturate at kNoIndex - 1).
  uint32_t EventIndex(int64_t id, const uint8_t* at) {
    uint32_t index = ps_->event_index.Find(id);
    if (__builtin_expect(index != kNoIndex, 1)) return index;
    if (group_ >= 0) {
      Provisional& pv = ps_->provisional[static_cast<size_t>(group_)];
      auto [it, inserted] = pv.event_k.try_emplace(id, static_cast<uint32_t>(pv.event_ids.size()));
      if (inserted) {
        pv.event_ids.push_back(id);
        pv.event_use.push_back({at, line_number_, event_number_});
      }
      // Past the limit this fails (ParseInParallel then finds where one
      // thread fails: at this event or before).
      return static_cast<uint32_t>(
          std::min<uint64_t>(uint64_t{ps_->known_events} + it->second, kNoIndex - 1));
    }
    EventMetadata md;
    md.key = md.id = id;
    md.implicit = true;
    index = static_cast<uint32_t>(ps_->plane->event_metadata.size());
    ps_->plane->event_metadata.push_back(std::move(md));
    ps_->event_index.Insert(id, index);
    return index;
  }

  // -- Messages. `depth` is the nesting budget left for the message's own
  // children (protobuf counts the message itself before parsing it). --

  bool ParseStat(const uint8_t* p, const uint8_t* end, int depth, RawStat* s);
  bool ResolveStat(const RawStat& raw, Stat* out);
  bool ParseStatMetadataEntry(Span entry, int depth, RawStatMetadata* md);
  bool ParseEventMetadataEntry(Span entry, int depth, RawEventMetadata* md);
  bool ParseEventMetadata(Span value, int depth, RawEventMetadata* md);
  bool ParseEvent(const uint8_t* p, const uint8_t* end, int depth, Line* line);
  bool ParseLine(Span span, int depth, Line* line);
  bool ParsePlane(Span span, int depth);
  // The XSpace's own fields, planes included (see collect_tasks_).
  bool ParseSpace();

  // -- Parallel line decoding (ParseInParallel). --

  // Decodes tasks_[begin, end) in order as group `group_`.
  bool DecodeTasks(size_t begin, size_t end);
  // Group boundaries: groups g = [bounds[g], bounds[g + 1]) of tasks_.
  std::vector<size_t> SplitTasks(int threads) const;
  // After the threads joined: interns the strings of the pools of
  // PlaneState into the space's pool and appends the groups' wide values to
  // their planes', in the order one thread would have, and rewrites the ids
  // and indices that referred to them.
  void MergeStrings(const std::vector<size_t>& bounds);
  // Creates the implicit metadata group `group` used, in order, and rewrites
  // its provisional indices.
  bool ResolveProvisional(size_t group, size_t begin, size_t end);
  uint64_t LineBytesDone() const;

  bool Checkpoint(const uint8_t* p);
  absl::Status Error() const;

  XSpaceInput* input_;
  const XSpaceParseOptions& options_;
  XSpaceData* out_;  // Null in a worker.
  const uint8_t* base_;
  uint64_t size_;
  StringPool* strings_;  // The space's pool, or a worker's own.
  WideValues* wide_ = nullptr;  // Where wide stat values go.

  PlaneState own_state_;         // The plane being read, in Parse().
  PlaneState* ps_ = nullptr;     // The plane whose lines are being decoded.
  std::vector<uint8_t> utf8_checked_;  // By string id (of strings_).

  // ParseInParallel(): planes are set up and their lines only located.
  bool collect_tasks_ = false;
  std::deque<PlaneState> states_;
  std::vector<LineTask> tasks_;
  uint64_t line_bytes_ = 0;  // Of all tasks.
  // While decoding lines in parallel: this thread's group (-1: not in
  // parallel decoding), the state shared by the groups, the line bytes of
  // this group's finished tasks and where its current task and its first
  // task begin.
  int group_ = -1;
  ParallelShared* shared_ = nullptr;
  uint64_t tasks_done_bytes_ = 0;
  const uint8_t* task_begin_ = nullptr;
  uint64_t release_from_ = 0;
  size_t groups_ = 0;

  // Where we are, for error messages.
  int64_t planes_ = 0;  // Planes read so far.
  int64_t plane_number_ = -1, line_number_ = -1, event_number_ = -1;
  std::string error_;
  uint64_t error_offset_ = 0;
  absl::Status stop_;  // From options.progress.
  const uint8_t* next_checkpoint_ = nullptr;
};

bool WireParser::ParseStat(const uint8_t* p, const uint8_t* end, int depth, RawStat* s) {
  if (depth < 0) return Fail(p, "nesting deeper than 100 levels");
  s->at = p;
  // A str_value replaced by a later value is still checked, as protobuf does.
  auto replace_value = [&]() {
    if (s->kind == StatKind::kStr && !IsValidUtf8(s->str.view())) {
      return Fail(s->str.p, "invalid UTF-8 in XStat.str_value");
    }
    return true;
  };
  while (p < end) {
    uint32_t tag = 0;
    if (!ReadTag(p, end, &tag)) return false;
    uint64_t v = 0;
    switch (tag) {
      case Tag(1, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        s->metadata_id = static_cast<int64_t>(v);
        continue;
      case Tag(2, kFixed64):
        if (!ReadFixed64(p, end, &v) || !replace_value()) return false;
        s->kind = StatKind::kDouble;
        s->bits = v;
        continue;
      case Tag(3, kVarint):
      case Tag(4, kVarint):
      case Tag(7, kVarint):
        if (!ReadVarint(p, end, &v) || !replace_value()) return false;
        s->kind = tag == Tag(3, kVarint)   ? StatKind::kUint64
                  : tag == Tag(4, kVarint) ? StatKind::kInt64
                                           : StatKind::kRef;
        s->bits = v;
        continue;
      case Tag(5, kLen):
      case Tag(6, kLen):
      case Tag(8, kLen): {
        Span str;
        if (!ReadLen(p, end, &str) || !replace_value()) return false;
        s->kind = tag == Tag(5, kLen)   ? StatKind::kStr
                  : tag == Tag(6, kLen) ? StatKind::kBytes
                                        : StatKind::kCompressedStr;
        s->str = str;
        s->bits = 0;
        continue;
      }
      default:
        if (!SkipField(p, end, tag, depth)) return false;
    }
  }
  return true;
}

bool WireParser::ResolveStat(const RawStat& raw, Stat* out) {
  const uint32_t index = StatIndex(raw.metadata_id, raw.at);
  if (__builtin_expect(index > Stat::kMaxStatMetadata, 0)) {
    return Fail(raw.at, absl::StrCat("more than ", Stat::kMaxStatMetadata,
                                     " stat metadata in one plane (the most tbprof holds)"));
  }
  out->set_metadata_index(index);
  out->set_kind(raw.kind);
  out->set_uint64_value(raw.bits, wide_);
  switch (raw.kind) {
    case StatKind::kStr: {
      uint32_t id = 0;
      if (!InternUtf8(raw.str, "XStat.str_value", &id)) return false;
      out->set_str_id(id);
      return true;
    }
    case StatKind::kBytes:
    case StatKind::kCompressedStr:
      out->set_str_id(Intern(raw.str));
      return true;
    default:
      return true;
  }
}

bool WireParser::ParseStatMetadataEntry(Span entry, int depth, RawStatMetadata* md) {
  if (depth < 0) return Fail(entry.p, "nesting deeper than 100 levels");
  const uint8_t* p = entry.p;
  while (p < entry.end) {
    uint32_t tag = 0;
    if (!ReadTag(p, entry.end, &tag)) return false;
    uint64_t v = 0;
    if (tag == Tag(1, kVarint)) {
      if (!ReadVarint(p, entry.end, &v)) return false;
      md->key = static_cast<int64_t>(v);
    } else if (tag == Tag(2, kLen)) {
      Span value;
      if (!ReadLen(p, entry.end, &value)) return false;
      if (depth - 1 < 0) return Fail(value.p, "nesting deeper than 100 levels");
      // Repeated occurrences of the value merge, as protobuf parses them.
      const uint8_t* q = value.p;
      while (q < value.end) {
        if (!ReadTag(q, value.end, &tag)) return false;
        if (tag == Tag(1, kVarint)) {
          if (!ReadVarint(q, value.end, &v)) return false;
          md->id = static_cast<int64_t>(v);
        } else if (tag == Tag(2, kLen)) {
          if (!ReadUtf8(q, value.end, "XStatMetadata.name", &md->name)) return false;
        } else if (tag == Tag(3, kLen)) {
          if (!ReadUtf8(q, value.end, "XStatMetadata.description", &md->description)) return false;
        } else if (!SkipField(q, value.end, tag, depth - 1)) {
          return false;
        }
      }
    } else if (!SkipField(p, entry.end, tag, depth)) {
      return false;
    }
  }
  return true;
}

bool WireParser::ParseEventMetadataEntry(Span entry, int depth, RawEventMetadata* md) {
  if (depth < 0) return Fail(entry.p, "nesting deeper than 100 levels");
  const uint8_t* p = entry.p;
  while (p < entry.end) {
    uint32_t tag = 0;
    if (!ReadTag(p, entry.end, &tag)) return false;
    if (tag == Tag(1, kVarint)) {
      uint64_t v = 0;
      if (!ReadVarint(p, entry.end, &v)) return false;
      md->key = static_cast<int64_t>(v);
    } else if (tag == Tag(2, kLen)) {
      Span value;
      if (!ReadLen(p, entry.end, &value) || !ParseEventMetadata(value, depth - 1, md)) return false;
    } else if (!SkipField(p, entry.end, tag, depth)) {
      return false;
    }
  }
  return true;
}

bool WireParser::ParseEventMetadata(Span value, int depth, RawEventMetadata* md) {
  if (depth < 0) return Fail(value.p, "nesting deeper than 100 levels");
  const uint8_t* p = value.p;
  const uint8_t* end = value.end;
  while (p < end) {
    uint32_t tag = 0;
    if (!ReadTag(p, end, &tag)) return false;
    uint64_t v = 0;
    switch (tag) {
      case Tag(1, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        md->id = static_cast<int64_t>(v);
        break;
      case Tag(2, kLen):
        if (!ReadUtf8(p, end, "XEventMetadata.name", &md->name)) return false;
        break;
      case Tag(3, kLen):
        if (!ReadLen(p, end, &md->metadata)) return false;
        break;
      case Tag(4, kLen):
        if (!ReadUtf8(p, end, "XEventMetadata.display_name", &md->display_name)) return false;
        break;
      case Tag(5, kLen): {
        Span stat;
        if (!ReadLen(p, end, &stat)) return false;
        RawStat& s = md->stats.emplace_back();
        if (!ParseStat(stat.p, stat.end, depth - 1, &s)) return false;
        break;
      }
      case Tag(6, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        md->child_ids.push_back(static_cast<int64_t>(v));
        break;
      case Tag(6, kLen): {  // Packed.
        Span packed;
        if (!ReadLen(p, end, &packed)) return false;
        for (const uint8_t* q = packed.p; q < packed.end;) {
          if (!ReadVarint(q, packed.end, &v)) return false;
          md->child_ids.push_back(static_cast<int64_t>(v));
        }
        break;
      }
      default:
        if (!SkipField(p, end, tag, depth)) return false;
    }
  }
  return true;
}

bool WireParser::ParseEvent(const uint8_t* p, const uint8_t* end, int depth, Line* line) {
  if (depth < 0) return Fail(p, "nesting deeper than 100 levels");
  const uint8_t* const start = p;
  Event e;
  e.stats_begin = static_cast<uint32_t>(line->stats.size());  // Stats are appended in order.
  int64_t metadata_id = 0;
  while (p < end) {
    uint32_t tag = 0;
    if (!ReadTag(p, end, &tag)) return false;
    uint64_t v = 0;
    switch (tag) {
      case Tag(1, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        metadata_id = static_cast<int64_t>(v);
        break;
      case Tag(2, kVarint):
      case Tag(5, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        e.offset_ps = static_cast<int64_t>(v);
        e.set_has_data(true);
        e.set_is_aggregate(tag == Tag(5, kVarint));
        break;
      case Tag(3, kVarint):
        if (!ReadVarint(p, end, &v)) return false;
        e.duration_ps = static_cast<int64_t>(v);
        break;
      case Tag(4, kLen): {
        Span span;
        if (!ReadLen(p, end, &span)) return false;
        RawStat raw;
        if (!ParseStat(span.p, span.end, depth - 1, &raw)) return false;
        if (!ResolveStat(raw, &line->stats.emplace_back())) return false;
        break;
      }
      default:
        if (!SkipField(p, end, tag, depth)) return false;
    }
  }
  const uint32_t index = EventIndex(metadata_id, start);
  if (__builtin_expect(index >= MaxEventMetadata(), 0)) return FailTooManyEventMetadata(start);
  e.set_metadata_index(index);
  line->events.push_back(e);
  return true;
}

bool WireParser::ParseLine(Span span, int depth, Line* line) {
  if (depth < 0) return Fail(span.p, "nesting deeper than 100 levels");
  // Walk 1: the line's own fields; events are only counted.
  Span name, display_name;
  size_t events = 0, stats = 0;
  const uint8_t* p = span.p;
  while (p < span.end) {
    uint32_t tag = 0;
    if (!ReadTag(p, span.end, &tag)) return false;
    uint64_t v = 0;
    Span skipped;
    switch (tag) {
      case Tag(1, kVarint):
        if (!ReadVarint(p, span.end, &v)) return false;
        line->id = static_cast<int64_t>(v);
        break;
      case Tag(2, kLen):
        if (!ReadUtf8(p, span.end, "XLine.name", &name)) return false;
        break;
      case Tag(3, kVarint):
        if (!ReadVarint(p, span.end, &v)) return false;
        line->timestamp_ns = static_cast<int64_t>(v);
        break;
      case Tag(4, kLen):
        if (!ReadLen(p, span.end, &skipped)) return false;
        ++events;
        stats += CountEventStats(skipped);
        break;
      case Tag(9, kVarint):
        if (!ReadVarint(p, span.end, &v)) return false;
        line->duration_ps = static_cast<int64_t>(v);
        break;
      case Tag(10, kVarint):
        if (!ReadVarint(p, span.end, &v)) return false;
        line->display_id = static_cast<int64_t>(v);
        break;
      case Tag(11, kLen):
        if (!ReadUtf8(p, span.end, "XLine.display_name", &display_name)) return false;
        break;
      default:
        if (!SkipField(p, span.end, tag, depth)) return false;
    }
  }
  line->name = Intern(name);
  line->display_name = Intern(display_name);
  // Walk 2: the events (fields were checked by walk 1).
  // Exact sizes: growing the vectors would copy them and, for a moment,
  // hold them twice.
  // Event::stats_begin is 32 bits.
  if (stats > std::numeric_limits<uint32_t>::max() - line->stats.size()) {
    return Fail(span.p, "more than 4294967295 stats in one line (the most tbprof holds)");
  }
  line->events.reserve(events);
  line->stats.reserve(line->stats.size() + stats);
  event_number_ = 0;
  p = span.p;
  while (p < span.end) {
    uint32_t tag = 0;
    ReadTag(p, span.end, &tag);
    Span event;
    if (tag != Tag(4, kLen)) {
      SkipField(p, span.end, tag, depth);
      continue;
    }
    ReadLen(p, span.end, &event);
    if (!ParseEvent(event.p, event.end, depth - 1, line)) return false;
    ++event_number_;
    if (__builtin_expect(p >= next_checkpoint_, 0) && !Checkpoint(p)) return false;
  }
  event_number_ = -1;
  return true;
}

bool WireParser::ParsePlane(Span span, int depth) {
  if (depth < 0) return Fail(span.p, "nesting deeper than 100 levels");
  Plane& plane = out_->planes.emplace_back();
  PlaneState* ps = collect_tasks_ ? &states_.emplace_back() : &own_state_;
  ps->plane = &plane;
  ps->number = plane_number_;
  ps_ = ps;
  wide_ = &plane.wide_values;
  if (collect_tasks_) {
    if (ps->number == 0) {
      UsePool(&out_->strings);
    } else {
      ps->setup_pool = std::make_unique<StringPool>();
      UsePool(ps->setup_pool.get());
    }
  }
  // Walk 1: everything but the lines, which are only located.
  int64_t id = 0;
  Span name;
  std::vector<Span> lines, stats;
  std::vector<RawStatMetadata> stat_md;
  std::vector<RawEventMetadata> event_md;
  const uint8_t* p = span.p;
  while (p < span.end) {
    uint32_t tag = 0;
    if (!ReadTag(p, span.end, &tag)) return false;
    uint64_t v = 0;
    Span field;
    switch (tag) {
      case Tag(1, kVarint):
        if (!ReadVarint(p, span.end, &v)) return false;
        id = static_cast<int64_t>(v);
        break;
      case Tag(2, kLen):
        if (!ReadUtf8(p, span.end, "XPlane.name", &name)) return false;
        break;
      case Tag(3, kLen):
        if (!ReadLen(p, span.end, &field)) return false;
        lines.push_back(field);
        break;
      case Tag(4, kLen):
        if (!ReadLen(p, span.end, &field) ||
            !ParseEventMetadataEntry(field, depth - 1, &event_md.emplace_back())) {
          return false;
        }
        break;
      case Tag(5, kLen):
        if (!ReadLen(p, span.end, &field) ||
            !ParseStatMetadataEntry(field, depth - 1, &stat_md.emplace_back())) {
          return false;
        }
        break;
      case Tag(6, kLen):
        if (!ReadLen(p, span.end, &field)) return false;
        stats.push_back(field);
        break;
      default:
        if (!SkipField(p, span.end, tag, depth)) return false;
    }
  }

  // Metadata as protobuf's maps hold it: the last entry of a key wins, in
  // key order.
  auto last_per_key = [](auto& entries) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    size_t kept = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;
      if (kept != i) entries[kept] = std::move(entries[i]);
      ++kept;
    }
    entries.resize(kept);
  };
  last_per_key(stat_md);
  last_per_key(event_md);
  if (stat_md.size() > Stat::kMaxStatMetadata) {
    return Fail(span.p, absl::StrCat("more than ", Stat::kMaxStatMetadata,
                                     " stat metadata in one plane (the most tbprof holds)"));
  }
  if (event_md.size() > MaxEventMetadata()) return FailTooManyEventMetadata(span.p);
  plane.id = id;
  plane.name = Intern(name);
  int64_t max_key = -1;
  for (const RawStatMetadata& md : stat_md) max_key = std::max(max_key, md.key);
  ps->stat_index.Reset(max_key, stat_md.size());
  plane.stat_metadata.reserve(stat_md.size());
  for (const RawStatMetadata& raw : stat_md) {
    StatMetadata& md = plane.stat_metadata.emplace_back();
    md.key = raw.key;
    md.id = raw.id;
    md.name = Intern(raw.name);
    md.description = Intern(raw.description);
    ps->stat_index.Insert(raw.key, static_cast<uint32_t>(plane.stat_metadata.size() - 1));
  }
  max_key = -1;
  for (const RawEventMetadata& md : event_md) max_key = std::max(max_key, md.key);
  ps->event_index.Reset(max_key, event_md.size());
  plane.event_metadata.resize(event_md.size());
  for (size_t i = 0; i < event_md.size(); ++i) {
    ps->event_index.Insert(event_md[i].key, static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < event_md.size(); ++i) {
    const RawEventMetadata& raw = event_md[i];
    EventMetadata& md = plane.event_metadata[i];
    md.key = raw.key;
    md.id = raw.id;
    md.name = Intern(raw.name);
    md.display_name = Intern(raw.display_name);
    md.metadata = Intern(raw.metadata);
    md.stats.resize(raw.stats.size());
    for (size_t j = 0; j < raw.stats.size(); ++j) {
      if (!ResolveStat(raw.stats[j], &md.stats[j])) return false;
    }
    md.child_ids = raw.child_ids;
  }
  plane.stats.reserve(stats.size());
  for (Span s : stats) {
    RawStat raw;
    if (!ParseStat(s.p, s.end, depth - 1, &raw) || !ResolveStat(raw, &plane.stats.emplace_back())) {
      return false;
    }
  }

  ps->known_stats = static_cast<uint32_t>(plane.stat_metadata.size());
  ps->known_events = static_cast<uint32_t>(plane.event_metadata.size());
  if (collect_tasks_) {  // Decoded later, by ParseInParallel().
    for (size_t i = 0; i < lines.size(); ++i) {
      tasks_.push_back({ps, static_cast<int64_t>(i), lines[i], depth - 1, &plane.lines.emplace_back()});
      line_bytes_ += static_cast<uint64_t>(lines[i].end - lines[i].p);
    }
    ps_ = nullptr;
    return true;
  }

  // Walk 2: the lines, in file order.
  line_number_ = 0;
  for (Span line : lines) {
    if (!ParseLine(line, depth - 1, &plane.lines.emplace_back())) return false;
    ++line_number_;
  }
  line_number_ = -1;
  ps_ = nullptr;
  return true;
}

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
  const uint8_t* p = base_;
  const uint8_t* end = base_ + size_;
  next_checkpoint_ = base_ + std::min<uint64_t>(kCheckpointBytes, size_);
  if (size_ == 0) next_checkpoint_ = end + 1;
  bool ok = true;
  while (ok && p < end) {
    uint32_t tag = 0;
    if (!ReadTag(p, end, &tag)) {
      ok = false;
      break;
    }
    Span field;
    switch (tag) {
      case Tag(1, kLen):
        if (!ReadLen(p, end, &field)) {
          ok = false;
          break;
        }
        plane_number_ = planes_;
        ok = ParsePlane(field, kMaxDepth - 1);
        if (!ok) break;
        plane_number_ = -1;
        ++planes_;
        if (!collect_tasks_ && p >= next_checkpoint_) ok = Checkpoint(p);
        break;
      case Tag(2, kLen):
      case Tag(3, kLen):
      case Tag(4, kLen): {
        const int field_number = static_cast<int>(tag >> 3);
        static constexpr absl::string_view kNames[] = {"", "", "XSpace.errors", "XSpace.warnings",
                                                       "XSpace.hostnames"};
        ok = ReadUtf8(p, end, kNames[field_number], &field);
        if (ok) {
          std::vector<std::string>& list = field_number == 2   ? out_->errors
                                           : field_number == 3 ? out_->warnings
                                                               : out_->hostnames;
          list.emplace_back(field.view());
        }
        break;
      }
      default:
        ok = SkipField(p, end, tag, kMaxDepth);
    }
  }
  return ok;
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

uint64_t WireParser::LineBytesDone() const {
  // The bytes outside the lines were all read before the lines.
  uint64_t done = size_ - line_bytes_;
  for (size_t g = 0; g < groups_; ++g) done += shared_->done[g].load(std::memory_order_relaxed);
  return std::min(done, size_);
}

bool WireParser::DecodeTasks(size_t begin, size_t end) {
  if (begin == end) return true;
  release_from_ = static_cast<uint64_t>(tasks_[begin].span.p - base_);
  next_checkpoint_ = tasks_[begin].span.p +
                     std::min<uint64_t>(kCheckpointBytes, size_ - release_from_);
  for (size_t i = begin; i < end; ++i) {
    const LineTask& task = tasks_[i];
    ps_ = task.plane;
    StringPool* pool = out_ != nullptr && group_ == 0 && task.plane->number == 0
                           ? &out_->strings
                           : nullptr;
    if (pool == nullptr) {
      std::unique_ptr<StringPool>& own = task.plane->line_pools[static_cast<size_t>(group_)];
      if (own == nullptr) own = std::make_unique<StringPool>();
      pool = own.get();
    }
    if (pool != strings_) UsePool(pool);
    wide_ = group_ <= 0 ? &task.plane->plane->wide_values
                        : &task.plane->line_wide[static_cast<size_t>(group_)];
    plane_number_ = task.plane->number;
    line_number_ = task.line_number;
    task_begin_ = task.span.p;
    if (!ParseLine(task.span, task.depth, task.line)) return false;
    tasks_done_bytes_ += static_cast<uint64_t>(task.span.end - task.span.p);
  }
  if (shared_ != nullptr) {
    shared_->done[static_cast<size_t>(group_)].store(tasks_done_bytes_, std::memory_order_relaxed);
  }
  ps_ = nullptr;
  plane_number_ = line_number_ = -1;
  return true;
}

std::vector<size_t> WireParser::SplitTasks(int threads) const {
  // Cut where the bytes before come closest to g/threads of all line bytes.
  std::vector<size_t> bounds = {0};
  uint64_t before = 0;  // Line bytes of tasks_[0, i).
  size_t i = 0;
  for (int g = 1; g < threads; ++g) {
    const uint64_t target = line_bytes_ / static_cast<uint64_t>(threads) * static_cast<uint64_t>(g);
    while (i < tasks_.size()) {
      const uint64_t next = before + static_cast<uint64_t>(tasks_[i].span.end - tasks_[i].span.p);
      if (next > target && next - target > target - before) break;
      before = next;
      ++i;
    }
    if (i > bounds.back() && i < tasks_.size()) bounds.push_back(i);
  }
  bounds.push_back(tasks_.size());
  return bounds;
}

namespace {

bool IsStringStat(const Stat& stat) {
  const StatKind kind = stat.kind();
  return kind == StatKind::kStr || kind == StatKind::kBytes || kind == StatKind::kCompressedStr;
}

void RemapStats(const std::vector<uint32_t>& id, std::vector<Stat>* stats) {
  for (Stat& stat : *stats) {
    if (IsStringStat(stat)) stat.set_str_id(id[stat.str_id()]);
  }
}

// New ids of `pool`'s strings in `strings`, interned in id order.
std::vector<uint32_t> InternAll(const StringPool& pool, StringPool* strings) {
  std::vector<uint32_t> id(pool.size());
  for (uint32_t i = 0; i < pool.size(); ++i) id[i] = strings->Intern(pool.Get(i));
  return id;
}

}  // namespace

void WireParser::MergeStrings(const std::vector<size_t>& bounds) {
  for (PlaneState& ps : states_) {
    Plane& plane = *ps.plane;
    if (ps.setup_pool != nullptr) {
      const std::vector<uint32_t> id = InternAll(*ps.setup_pool, &out_->strings);
      plane.name = id[plane.name];
      for (StatMetadata& md : plane.stat_metadata) {
        md.name = id[md.name];
        md.description = id[md.description];
      }
      for (EventMetadata& md : plane.event_metadata) {
        md.name = id[md.name];
        md.display_name = id[md.display_name];
        md.metadata = id[md.metadata];
        RemapStats(id, &md.stats);
      }
      RemapStats(id, &plane.stats);
      ps.setup_pool.reset();
    }
    for (size_t g = 0; g < ps.line_pools.size(); ++g) {
      // This group's wide values follow the plane's so far.
      WideValues& wide = ps.line_wide[g];
      const uint32_t wide_offset = static_cast<uint32_t>(plane.wide_values.size());
      plane.wide_values.insert(plane.wide_values.end(), wide.begin(), wide.end());
      if (ps.line_pools[g] == nullptr && wide.empty()) continue;
      std::vector<uint32_t> id;
      if (ps.line_pools[g] != nullptr) id = InternAll(*ps.line_pools[g], &out_->strings);
      for (size_t t = bounds[g]; t < bounds[g + 1]; ++t) {
        if (tasks_[t].plane != &ps) continue;
        Line* line = tasks_[t].line;
        if (!id.empty()) {
          line->name = id[line->name];
          line->display_name = id[line->display_name];
        }
        for (Stat& stat : line->stats) {
          if (!id.empty() && IsStringStat(stat)) {
            stat.set_str_id(id[stat.str_id()]);
          } else if (!wide.empty() && stat.is_wide()) {
            stat.set_wide_index(stat.wide_index() + wide_offset);
          }
        }
      }
      ps.line_pools[g].reset();
      WideValues().swap(wide);
    }
  }
}

bool WireParser::ResolveProvisional(size_t group, size_t begin, size_t end) {
  for (PlaneState& ps : states_) {
    const Provisional& pv = ps.provisional[group];
    if (pv.empty()) continue;
    ps_ = &ps;
    plane_number_ = ps.number;
    std::vector<uint32_t> stat_index(pv.stat_ids.size()), event_index(pv.event_ids.size());
    for (size_t k = 0; k < pv.stat_ids.size(); ++k) {
      stat_index[k] = StatIndex(pv.stat_ids[k], pv.stat_at[k]);
      if (stat_index[k] > Stat::kMaxStatMetadata) {
        return Fail(pv.stat_at[k], absl::StrCat("more than ", Stat::kMaxStatMetadata,
                                                " stat metadata in one plane (the most tbprof holds)"));
      }
    }
    for (size_t k = 0; k < pv.event_ids.size(); ++k) {
      const Provisional::Use& use = pv.event_use[k];
      event_index[k] = EventIndex(pv.event_ids[k], use.at);
      if (event_index[k] >= MaxEventMetadata()) {
        line_number_ = use.line_number;
        event_number_ = use.event_number;
        return FailTooManyEventMetadata(use.at);
      }
    }
    for (size_t t = begin; t < end; ++t) {
      if (tasks_[t].plane != &ps) continue;
      Line* line = tasks_[t].line;
      for (Event& event : line->events) {
        if (event.metadata_index() >= ps.known_events) {
          event.set_metadata_index(event_index[event.metadata_index() - ps.known_events]);
        }
      }
      for (Stat& stat : line->stats) {
        if (stat.metadata_index() >= ps.known_stats) {
          stat.set_metadata_index(stat_index[stat.metadata_index() - ps.known_stats]);
        }
      }
    }
  }
  ps_ = nullptr;
  plane_number_ = -1;
  return true;
}

absl::StatusOr<bool> WireParser::ParseInParallel(int threads) {
  collect_tasks_ = true;
  const bool located = ParseSpace();
  collect_tasks_ = false;
  if (!located) {
    if (error_.empty() && !stop_.ok()) return stop_;
    return false;
  }
  UsePool(&out_->strings);
  const std::vector<size_t> bounds = SplitTasks(threads);
  groups_ = bounds.size() - 1;
  if (groups_ <= 1) return false;  // One run of lines: nothing to share.
  bool ok = true;
  {
    ParallelShared shared(groups_);
    for (PlaneState& ps : states_) {
      ps.provisional.resize(groups_);
      ps.line_pools.resize(groups_);
      ps.line_wide.resize(groups_);
    }
    std::vector<std::unique_ptr<WireParser>> workers;
    for (size_t g = 1; g < groups_; ++g) {
      workers.push_back(
          std::make_unique<WireParser>(*this, static_cast<int>(g), &shared));
      workers.back()->tasks_ = tasks_;  // Small: one entry per line.
    }
    shared.running = workers.size();
    std::vector<std::thread> threads_running;
    for (size_t g = 1; g < groups_; ++g) {
      WireParser* worker = workers[g - 1].get();
      threads_running.emplace_back([worker, &shared, &bounds, g] {
        worker->DecodeTasks(bounds[g], bounds[g + 1]);
        std::lock_guard<std::mutex> lock(shared.mutex);
        --shared.running;
        shared.finished_cv.notify_all();
      });
    }
    group_ = 0;
    shared_ = &shared;
    ok = DecodeTasks(bounds[0], bounds[1]);
    if (!ok) shared.cancel.store(true);
    // Wait for the others, still reporting progress (and so still checking
    // the caller's limits, which see the memory of every thread).
    {
      std::unique_lock<std::mutex> lock(shared.mutex);
      while (shared.running > 0) {
        shared.finished_cv.wait_for(lock, std::chrono::milliseconds(50));
        if (ok && shared.running > 0 && options_.progress) {
          lock.unlock();
          stop_ = options_.progress(LineBytesDone(), size_);
          lock.lock();
          if (!stop_.ok()) {
            ok = false;
            shared.cancel.store(true);
          }
        }
      }
    }
    for (std::thread& thread : threads_running) thread.join();
    group_ = -1;
    // The first error in file order: groups are in file order.
    if (ok) {
      for (size_t g = 1; g < groups_; ++g) {
        WireParser& worker = *workers[g - 1];
        if (!worker.error_.empty() || !worker.stop_.ok()) {
          if (worker.error_.empty()) return worker.stop_;
          // The implicit metadata of runs 0..g may pass a limit before the
          // worker's error (one thread would report that).
          for (size_t h = 0; h <= g; ++h) {
            if (!ResolveProvisional(h, bounds[h], bounds[h + 1])) return Error();
          }
          return worker.Error();
        }
      }
      MergeStrings(bounds);
      for (size_t g = 0; g < groups_ && ok; ++g) ok = ResolveProvisional(g, bounds[g], bounds[g + 1]);
    }
    shared_ = nullptr;
  }
  if (!ok) {
    if (error_.empty() && !stop_.ok()) return stop_;
    return Error();
  }
  input_->ReleaseBefore(size_);
  if (options_.progress) TBPROF_RETURN_IF_ERROR(options_.progress(size_, size_));
  return true;
}

}  // namespace

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
