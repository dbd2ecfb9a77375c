// A reader for the plain-data subset of Python pickles (protocols 2 to 5):
// dicts, lists, tuples, sets, strings, bytes, ints, floats, booleans, None
// and the memo. Opcodes that would import or call anything (GLOBAL,
// STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT*, PERSID,
// BINPERSID) stop the read with "this pickle asks to run code; tbprof reads
// only plain data"; text opcodes of protocols 0/1 and out-of-band buffers
// (NEXT_BUFFER) are refused as unsupported.
//
// Streaming, bottom-up: the reader never builds a tree of the whole pickle.
// Each container is handed to a PickleVisitor once, when it is complete
// (when it becomes a member of another container, or is the result), and the
// visitor returns the small Value that stands for it from then on (typically
// a handle into the visitor's own compact records). A container shared
// through the memo is reduced once; later references see the same result.
//
// Every length is checked against the remaining input before it is used: a
// claimed length past the end is an error naming the byte offset, never an
// allocation. Errors are kInvalidArgument (malformed or refused pickle) or
// kDataLoss (truncated), with text "<source>: byte <offset>: <what>".
#ifndef TBPROF_CONVERTERS_MEMORY_SNAPSHOT_PICKLE_READER_H_
#define TBPROF_CONVERTERS_MEMORY_SNAPSHOT_PICKLE_READER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tbprof::converters::pickle {

enum class Kind : uint8_t {
  kNone,
  kBool,
  kInt,     // Fits int64 (`i`).
  kUInt,    // Positive, above INT64_MAX, fits uint64 (`u`).
  kBigInt,  // Does not fit 64 bits; no value kept.
  kFloat,
  kString,  // UTF-8 as stored (`str`, `len`); points into the input.
  kBytes,   // Points into the input.
  kList,
  kTuple,
  kDict,
  kSet,
  kHandle,  // What a PickleVisitor returned for a container (`tag`, `u`).
  kMemoRef,  // Internal to the reader; never seen by a visitor.
};

// 16 bytes. Strings and bytes point into the input, which must outlive them.
struct Value {
  Kind kind = Kind::kNone;
  uint8_t flags = 0;
  uint16_t tag = 0;  // kHandle: the visitor's type tag.
  uint32_t len = 0;  // kString / kBytes length; container generation.
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char* str;
  };
  Value() : u(0) {}

  static Value Handle(uint16_t tag, uint64_t id) {
    Value v;
    v.kind = Kind::kHandle;
    v.tag = tag;
    v.u = id;
    return v;
  }
  absl::string_view string() const { return absl::string_view(str, len); }
  bool IsHandle(uint16_t t) const { return kind == Kind::kHandle && tag == t; }
  // The value as int64 for kInt / kBool, or kUInt reinterpreted (two's
  // complement; addresses above 2^63). False otherwise.
  bool AsInt64(int64_t* out) const;
};
static_assert(sizeof(Value) == 16, "Value is meant to stay small");

class PickleVisitor {
 public:
  virtual ~PickleVisitor() = default;
  // A complete container: `kind` is kList, kTuple, kSet or kDict; `items`
  // are its elements in order (a dict's as key, value, key, value, ...),
  // containers among them already replaced by their reduction. Returns the
  // Value standing for it; must not be a container kind. `offset` is the
  // byte where the container was created, for error messages. An error
  // stops the read (the reader adds nothing to its message).
  virtual absl::StatusOr<Value> Reduce(Kind kind, absl::Span<const Value> items,
                                       uint64_t offset) = 0;
  // Called when APPEND / APPENDS add `items` (containers among them already
  // reduced) to the list created at byte `list_offset`. Returning true
  // takes them: the reader does not keep them, and Reduce() of that list
  // later sees only the items not taken (so a long list of records need not
  // be held twice). The default takes nothing.
  virtual bool TakeListItems(uint64_t list_offset, absl::Span<const Value> items) {
    return false;
  }
};

struct PickleReadOptions {
  // Called every `progress_bytes` of input with the offset reached; no
  // string before that offset that is not in the memo is read again.
  std::function<void(uint64_t offset)> progress;
  uint64_t progress_bytes = uint64_t{16} << 20;
};

// Reads one pickle from `bytes` (the whole input; bytes after STOP are an
// error). Returns the result: a scalar, or the visitor's reduction of the
// outermost container. `source` names the input in errors.
absl::StatusOr<Value> ReadPickle(absl::string_view bytes, absl::string_view source,
                                 PickleVisitor* visitor, const PickleReadOptions& options = {});

// Message fragment of the refusal of code opcodes (for tests and callers).
inline constexpr absl::string_view kRunsCodeMessage =
    "this pickle asks to run code; tbprof reads only plain data";

// True when `bytes` starts like a pickle of protocol 2 or later (PROTO 2..5).
bool LooksLikePickle(absl::string_view bytes);

}  // namespace tbprof::converters::pickle

#endif  // TBPROF_CONVERTERS_MEMORY_SNAPSHOT_PICKLE_READER_H_
