#include "converters/memory_snapshot/pickle_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/status_macros.h"

namespace tbprof::converters::pickle {

bool Value::AsInt64(int64_t* out) const {
  if (kind == Kind::kInt || kind == Kind::kBool) {
    *out = i;
    return true;
  }
  if (kind == Kind::kUInt) {
    *out = static_cast<int64_t>(u);
    return true;
  }
  return false;
}

bool LooksLikePickle(absl::string_view bytes) {
  return bytes.size() >= 3 && static_cast<uint8_t>(bytes[0]) == 0x80 &&
         static_cast<uint8_t>(bytes[1]) >= 2 && static_cast<uint8_t>(bytes[1]) <= 5;
}

namespace {

constexpr uint32_t kNoMemo = UINT32_MAX;
constexpr uint8_t kUndefinedFlag = 1;  // A memo slot never PUT.
// Items a reduced container's slot keeps room for when it is reused, so the
// many small dicts and lists of a snapshot allocate nothing; a larger vector
// is given back.
constexpr size_t kKeptItemCapacity = 64;
// Fewest input bytes per memo entry expected in a real snapshot (PyTorch's
// pickles memoize about one entry per 40 bytes), and the most entries
// reserved before reading (1 GiB of address space).
constexpr uint64_t kBytesPerMemoEntry = 32;
constexpr uint64_t kMaxMemoReserve = uint64_t{1} << 26;

bool IsContainer(Kind k) {
  return k == Kind::kList || k == Kind::kTuple || k == Kind::kDict || k == Kind::kSet;
}

// A container, or a memo reference that may name one: what becomes
// something else when it is consumed as a member.
bool NeedsConsume(Kind k) { return IsContainer(k) || k == Kind::kMemoRef; }

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDict: return "dict";
    case Kind::kSet: return "set";
    default: return "non-container";
  }
}

// The `n` bytes at `p` as a little-endian unsigned integer.
template <int n>
uint64_t LoadLE(const uint8_t* p) {
  uint64_t v = 0;
  for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(p[k]) << (8 * k);
  return v;
}

Value MakeScalar(Kind kind, uint64_t bits) {
  Value v;
  v.kind = kind;
  v.u = bits;
  return v;
}

Value MakeMemoRef(uint64_t index) { return MakeScalar(Kind::kMemoRef, index); }

struct Slot {
  Kind kind = Kind::kNone;
  bool live = false;
  uint32_t gen = 0;
  uint64_t memo_index = kNoMemo;
  uint64_t offset = 0;
  std::vector<Value> items;
};

// One pass over the opcodes: Run() dispatches on the opcode byte with a
// cursor, checking once per opcode that its fixed-width argument is there;
// the helpers below keep the stack, the memo and the open containers.
class Reader {
 public:
  Reader(absl::string_view bytes, absl::string_view source, PickleVisitor* visitor,
         const PickleReadOptions& options)
      : data_(reinterpret_cast<const uint8_t*>(bytes.data())),
        size_(bytes.size()),
        source_(source),
        visitor_(visitor),
        options_(options) {}

  absl::StatusOr<Value> Run();

 private:
  // Errors name the byte where the current opcode starts (op_at_).
  ABSL_ATTRIBUTE_NOINLINE absl::Status Bad(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": byte ", op_at_, ": ", what));
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status Truncated(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(source_, ": byte ", op_at_, ": truncated pickle: ",
                                            what, " runs past the end of the input (", size_,
                                            " bytes)"));
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status NeedError(size_t n, const char* op) const {
    return Bad(absl::StrCat(op, " needs ", n, " value(s) on the stack"));
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status RefusedOpcode(uint8_t op) const;

  // Stack index of the first item above the latest MARK.
  size_t MarkBase() const { return marks_.empty() ? 0 : marks_.back(); }
  // Items above the latest MARK.
  size_t Available() const { return stack_.size() - MarkBase(); }

  Value NewContainer(Kind kind);
  // The live slot of container value `v`, or nullptr if it was reduced.
  Slot* LiveSlot(const Value& v) {
    if (v.u >= slots_.size()) return nullptr;
    Slot& s = slots_[v.u];
    return (s.live && s.gen == v.len) ? &s : nullptr;
  }
  // The defined memo entry `index`, or nullptr.
  Value* FindMemo(uint64_t index) {
    if (index < memo_.size()) {
      Value& v = memo_[index];
      return (v.flags & kUndefinedFlag) ? nullptr : &v;
    }
    auto it = sparse_memo_.find(index);
    return it == sparse_memo_.end() ? nullptr : &it->second;
  }
  // Replaces memo reference `*v` by what it stands for (one alias level).
  absl::Status Resolve(Value* v) {
    if (v->kind != Kind::kMemoRef) return absl::OkStatus();
    const Value* entry = FindMemo(v->u);
    if (ABSL_PREDICT_TRUE(entry != nullptr && entry->kind != Kind::kMemoRef)) {
      *v = *entry;  // The common case: no alias.
      return absl::OkStatus();
    }
    return ResolveAlias(v);
  }
  ABSL_ATTRIBUTE_NOINLINE absl::Status ResolveAlias(Value* v);
  // Replaces `*v`, a member of a container, by what it stands for: a
  // container is reduced (once).
  absl::Status Consume(Value* v);
  // Consumes stack_[begin..] in place.
  absl::Status ConsumeTail(size_t begin) {
    for (size_t k = begin; k < stack_.size(); ++k) {
      if (NeedsConsume(stack_[k].kind)) TBPROF_RETURN_IF_ERROR(Consume(&stack_[k]));
    }
    return absl::OkStatus();
  }
  // stack_[begin..] (consumed) become a new container of `kind` in their place.
  absl::Status MakeContainer(Kind kind, size_t begin);
  // stack_[begin..] (consumed) are added to the live container of kind
  // `want` at stack_[begin - 1] (APPEND(S), SETITEM(S), ADDITEMS `op`).
  absl::Status AddItems(Kind want, const char* op, size_t begin);
  // Pops the latest MARK into `*begin`.
  absl::Status PopMark(const char* op, size_t* begin) {
    if (marks_.empty()) return Bad(absl::StrCat(op, " without a MARK"));
    *begin = marks_.back();
    marks_.pop_back();
    return absl::OkStatus();
  }
  absl::Status Put(uint64_t index);
  // Memo entry `index` (if defined and still naming container `c`) becomes
  // `reduced`.
  void UpdateMemo(uint64_t index, const Value& c, const Value& reduced) {
    if (index == kNoMemo) return;
    Value* entry = FindMemo(index);
    if (entry != nullptr && entry->kind == c.kind && entry->u == c.u && entry->len == c.len) {
      *entry = reduced;
    }
  }
  absl::Status Get(uint64_t index) {
    const Value* entry = FindMemo(index);
    if (entry == nullptr) return Bad(absl::StrCat("memo key ", index, " is not defined"));
    stack_.push_back(IsContainer(entry->kind) ? MakeMemoRef(index) : *entry);
    return absl::OkStatus();
  }
  // The integer of `length` bytes at `p` (checked to be in the input).
  void PushLong(const uint8_t* p, uint64_t length, const uint8_t* end);
  absl::Status Stop();

  const uint8_t* data_;
  uint64_t size_;
  absl::string_view source_;
  PickleVisitor* visitor_;
  const PickleReadOptions& options_;
  uint64_t op_at_ = 0;
  Value result_;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_;
  absl::flat_hash_map<uint64_t, Value> sparse_memo_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
};

absl::Status Reader::RefusedOpcode(uint8_t op) const {
  switch (op) {
    case 'c': case 0x93: case 'R': case 'b': case 'i': case 'o': case 0x81: case 0x92:
    case 0x82: case 0x83: case 0x84: case 'P': case 'Q':
      return Bad(absl::StrFormat("opcode 0x%02x: %s", op, kRunsCodeMessage));
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g':
      return Bad(absl::StrFormat(
          "opcode 0x%02x ('%c') is a text opcode of pickle protocol 0/1, which tbprof does not "
          "read (memory snapshots use protocol 2 or later)", op, op));
    case 0x97:
      return Bad("out-of-band buffer (NEXT_BUFFER): the data is not in this file");
    default:
      return Bad(absl::StrFormat("unknown pickle opcode 0x%02x", op));
  }
}

Value Reader::NewContainer(Kind kind) {
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[index];
  s.kind = kind;
  s.live = true;
  s.memo_index = kNoMemo;
  s.offset = op_at_;
  Value v;
  v.kind = kind;
  v.u = index;
  v.len = s.gen;
  return v;
}

absl::Status Reader::ResolveAlias(Value* v) {
  for (int depth = 0; v->kind == Kind::kMemoRef; ++depth) {
    if (depth == 2) return Bad("memo alias chain");
    const Value* entry = FindMemo(v->u);
    if (entry == nullptr) return Bad(absl::StrCat("memo key ", v->u, " is not defined"));
    *v = *entry;
    if (entry->kind != Kind::kMemoRef) break;
  }
  return absl::OkStatus();
}

absl::Status Reader::Consume(Value* member) {
  Value v = *member;
  uint64_t memo_index = kNoMemo;
  if (v.kind == Kind::kMemoRef) {
    memo_index = v.u;
    TBPROF_RETURN_IF_ERROR(Resolve(&v));
  }
  if (!IsContainer(v.kind)) {
    *member = v;
    return absl::OkStatus();
  }
  Slot* slot = LiveSlot(v);
  if (slot == nullptr) return Bad("a container is used again after it was complete");
  absl::StatusOr<Value> reduced = visitor_->Reduce(slot->kind, slot->items, slot->offset);
  if (!reduced.ok()) return reduced.status();
  if (NeedsConsume(reduced->kind)) {
    return absl::InternalError("pickle visitor returned a container");
  }
  // Every memo entry naming this container now names its reduction.
  UpdateMemo(slot->memo_index, v, *reduced);
  if (memo_index != slot->memo_index) UpdateMemo(memo_index, v, *reduced);
  slot->items.clear();
  if (slot->items.capacity() > kKeptItemCapacity) std::vector<Value>().swap(slot->items);
  slot->live = false;
  ++slot->gen;
  free_.push_back(static_cast<uint32_t>(v.u));
  *member = *reduced;
  return absl::OkStatus();
}

absl::Status Reader::MakeContainer(Kind kind, size_t begin) {
  TBPROF_RETURN_IF_ERROR(ConsumeTail(begin));
  Value c = NewContainer(kind);
  slots_[c.u].items.assign(stack_.begin() + begin, stack_.end());
  stack_.resize(begin);
  stack_.push_back(c);
  return absl::OkStatus();
}

absl::Status Reader::AddItems(Kind want, const char* op, size_t begin) {
  TBPROF_RETURN_IF_ERROR(ConsumeTail(begin));
  if (begin <= MarkBase()) return NeedError(1, op);
  Value target = stack_[begin - 1];
  TBPROF_RETURN_IF_ERROR(Resolve(&target));
  Slot* slot = IsContainer(target.kind) ? LiveSlot(target) : nullptr;
  if (slot == nullptr || slot->kind != want) {
    return Bad(absl::StrCat(op, " needs a ", KindName(want), " under its items, found ",
                            slot == nullptr ? "a complete or non-container value"
                                            : KindName(slot->kind)));
  }
  absl::Span<const Value> items(stack_.data() + begin, stack_.size() - begin);
  if (want != Kind::kList || !visitor_->TakeListItems(slot->offset, items)) {
    slot->items.insert(slot->items.end(), items.begin(), items.end());
  }
  stack_.resize(begin);
  return absl::OkStatus();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Reader::Put(uint64_t index) {
  if (stack_.size() == MarkBase()) return NeedError(1, "PUT");
  Value& top = stack_.back();
  const Value stored = top;
  if (IsContainer(top.kind)) {
    Slot* slot = LiveSlot(top);
    if (slot != nullptr && slot->memo_index == kNoMemo) slot->memo_index = index;
    top = MakeMemoRef(index);
  }
  if (index == memo_.size()) {
    memo_.push_back(stored);
  } else if (index < memo_.size()) {
    memo_[index] = stored;
  } else if (index - memo_.size() < 256) {
    Value undefined;
    undefined.flags = kUndefinedFlag;
    memo_.resize(index, undefined);
    memo_.push_back(stored);
  } else {
    sparse_memo_[index] = stored;
  }
  if (stored.kind == Kind::kMemoRef && stored.u == index) {
    return Bad("a memo entry refers to itself");
  }
  return absl::OkStatus();
}

void Reader::PushLong(const uint8_t* p, uint64_t length, const uint8_t* end) {
  Value v;
  v.kind = Kind::kInt;
  if (length == 0) {
    v.i = 0;
  } else if (length <= 8) {
    uint64_t u;
    if (end - p >= 8) {
      u = LoadLE<8>(p);
      if (length < 8) u &= ~(~uint64_t{0} << (8 * length));
    } else {
      u = 0;
      for (uint64_t k = 0; k < length; ++k) u |= static_cast<uint64_t>(p[k]) << (8 * k);
    }
    if (length < 8 && (p[length - 1] & 0x80)) u |= ~uint64_t{0} << (8 * length);
    v.i = static_cast<int64_t>(u);
  } else if (length == 9 && p[8] == 0) {
    v.kind = Kind::kUInt;
    v.u = LoadLE<8>(p);
  } else {
    v.kind = Kind::kBigInt;
  }
  stack_.push_back(v);
}

absl::Status Reader::Stop() {
  if (!marks_.empty()) return Bad("STOP inside a MARK");
  if (stack_.size() != 1) {
    return Bad(absl::StrCat("STOP with ", stack_.size(), " values on the stack (want 1)"));
  }
  result_ = stack_.back();
  if (NeedsConsume(result_.kind)) TBPROF_RETURN_IF_ERROR(Consume(&result_));
  stack_.clear();
  return absl::OkStatus();
}

absl::StatusOr<Value> Reader::Run() {
  const uint8_t* p = data_;
  const uint8_t* const end = data_ + size_;
  uint64_t next_progress = options_.progress ? options_.progress_bytes : UINT64_MAX;
  // Python memoizes nearly every container and string it writes: room for
  // the memo of a typical pickle up front (address space only until used),
  // so that the largest vector of the read does not regrow and copy itself.
  memo_.reserve(std::min<uint64_t>(size_ / kBytesPerMemoEntry, kMaxMemoReserve));
  // Fewer than `n` bytes left after the opcode.
  auto short_of = [&p, end](uint64_t n) { return static_cast<uint64_t>(end - p) < n; };
  // One compare per opcode for both the end and the next progress call.
  uint64_t check_at = std::min<uint64_t>(next_progress, size_);
  for (;;) {
    op_at_ = static_cast<uint64_t>(p - data_);
    if (ABSL_PREDICT_FALSE(op_at_ >= check_at)) {
      if (p == end) return Truncated("the pickle (no STOP opcode)");
      options_.progress(op_at_);
      next_progress = op_at_ + options_.progress_bytes;
      check_at = std::min<uint64_t>(next_progress, size_);
    }
    const uint8_t op = *p++;
    switch (op) {
      // The opcodes of a real snapshot first, by frequency.
      case 'j': {  // LONG_BINGET
        if (short_of(4)) return Truncated("LONG_BINGET");
        const uint64_t index = LoadLE<4>(p);
        p += 4;
        TBPROF_RETURN_IF_ERROR(Get(index));
        break;
      }
      case 'h': {  // BINGET
        if (short_of(1)) return Truncated("BINGET");
        const uint64_t index = *p++;
        TBPROF_RETURN_IF_ERROR(Get(index));
        break;
      }
      case '(':  // MARK
        marks_.push_back(stack_.size());
        break;
      case 0x94:  // MEMOIZE
        TBPROF_RETURN_IF_ERROR(Put(memo_.size()));
        break;
      case 0x8a: {  // LONG1
        if (short_of(1)) return Truncated("LONG1");
        const uint64_t length = *p++;
        if (short_of(length)) return Truncated(absl::StrCat("an integer of ", length, " bytes"));
        PushLong(p, length, end);
        p += length;
        break;
      }
      case 0x8b: {  // LONG4
        if (short_of(4)) return Truncated("LONG4");
        const int32_t length = static_cast<int32_t>(LoadLE<4>(p));
        p += 4;
        if (length < 0) return Bad("LONG4 with a negative length");
        if (short_of(length)) return Truncated(absl::StrCat("an integer of ", length, " bytes"));
        PushLong(p, length, end);
        p += length;
        break;
      }
      case ']': stack_.push_back(NewContainer(Kind::kList)); break;
      case '}': stack_.push_back(NewContainer(Kind::kDict)); break;
      case ')': stack_.push_back(NewContainer(Kind::kTuple)); break;
      case 0x8f: stack_.push_back(NewContainer(Kind::kSet)); break;
      case 'e':     // APPENDS
      case 'u':     // SETITEMS
      case 0x90: {  // ADDITEMS
        const Kind kind = op == 'e' ? Kind::kList : op == 'u' ? Kind::kDict : Kind::kSet;
        const char* name = op == 'e' ? "APPENDS" : op == 'u' ? "SETITEMS" : "ADDITEMS";
        size_t begin = 0;
        TBPROF_RETURN_IF_ERROR(PopMark(name, &begin));
        if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
          return Bad("SETITEMS with an odd number of items");
        }
        TBPROF_RETURN_IF_ERROR(AddItems(kind, name, begin));
        break;
      }
      case 'a':    // APPEND
      case 's': {  // SETITEM
        const size_t n = op == 'a' ? 1 : 2;
        const char* name = op == 'a' ? "APPEND" : "SETITEM";
        if (Available() < n + 1) return NeedError(n + 1, name);
        TBPROF_RETURN_IF_ERROR(
            AddItems(op == 'a' ? Kind::kList : Kind::kDict, name, stack_.size() - n));
        break;
      }
      case 'K': {  // BININT1
        if (short_of(1)) return Truncated("an integer");
        stack_.push_back(MakeScalar(Kind::kInt, *p++));
        break;
      }
      case 'M': {  // BININT2
        if (short_of(2)) return Truncated("an integer");
        stack_.push_back(MakeScalar(Kind::kInt, LoadLE<2>(p)));
        p += 2;
        break;
      }
      case 'J': {  // BININT
        if (short_of(4)) return Truncated("an integer");
        const int64_t i = static_cast<int32_t>(static_cast<uint32_t>(LoadLE<4>(p)));
        stack_.push_back(MakeScalar(Kind::kInt, static_cast<uint64_t>(i)));
        p += 4;
        break;
      }
      case 0x8c:  // SHORT_BINUNICODE
      case 'U':   // SHORT_BINSTRING
      case 'C':   // SHORT_BINBYTES
      case 'X':   // BINUNICODE
      case 'T':   // BINSTRING
      case 'B':   // BINBYTES
      case 0x8d:  // BINUNICODE8
      case 0x8e:  // BINBYTES8
      case 0x96: {  // BYTEARRAY8
        const bool is_short = op == 0x8c || op == 'U' || op == 'C';
        const bool is_8 = op == 0x8d || op == 0x8e || op == 0x96;
        const int width = is_short ? 1 : is_8 ? 8 : 4;
        if (short_of(width)) return Truncated("a string length");
        const uint64_t length = is_short ? *p : is_8 ? LoadLE<8>(p) : LoadLE<4>(p);
        p += width;
        if (short_of(length)) return Truncated(absl::StrCat("a string of ", length, " bytes"));
        if (length > UINT32_MAX) return Bad("string longer than 4 GiB");
        const bool is_bytes = op == 'C' || op == 'B' || op == 0x8e || op == 0x96;
        Value v;
        v.kind = is_bytes ? Kind::kBytes : Kind::kString;
        v.str = reinterpret_cast<const char*>(p);
        v.len = static_cast<uint32_t>(length);
        stack_.push_back(v);
        p += length;
        break;
      }
      case 'N': stack_.emplace_back(); break;
      case 0x88:  // NEWTRUE
      case 0x89:  // NEWFALSE
        stack_.push_back(MakeScalar(Kind::kBool, op == 0x88 ? 1 : 0));
        break;
      case 'G': {  // BINFLOAT, big-endian
        if (short_of(8)) return Truncated("BINFLOAT");
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | p[k];
        p += 8;
        Value v;
        v.kind = Kind::kFloat;
        std::memcpy(&v.d, &bits, sizeof(double));
        stack_.push_back(v);
        break;
      }
      case 'q': {  // BINPUT
        if (short_of(1)) return Truncated("BINPUT");
        const uint64_t index = *p++;
        TBPROF_RETURN_IF_ERROR(Put(index));
        break;
      }
      case 'r': {  // LONG_BINPUT
        if (short_of(4)) return Truncated("LONG_BINPUT");
        const uint64_t index = LoadLE<4>(p);
        p += 4;
        TBPROF_RETURN_IF_ERROR(Put(index));
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t n = op - 0x84;
        if (Available() < n) return NeedError(n, "TUPLE1/2/3");
        TBPROF_RETURN_IF_ERROR(MakeContainer(Kind::kTuple, stack_.size() - n));
        break;
      }
      case 't':     // TUPLE
      case 'l':     // LIST
      case 'd':     // DICT
      case 0x91: {  // FROZENSET
        const Kind kind = op == 't' ? Kind::kTuple : op == 'l' ? Kind::kList
                          : op == 'd' ? Kind::kDict : Kind::kSet;
        size_t begin = 0;
        TBPROF_RETURN_IF_ERROR(PopMark("TUPLE/LIST/DICT/FROZENSET", &begin));
        if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
          return Bad("DICT with an odd number of items");
        }
        TBPROF_RETURN_IF_ERROR(MakeContainer(kind, begin));
        break;
      }
      case 0x80: {  // PROTO
        if (short_of(1)) return Truncated("PROTO");
        const uint8_t version = *p++;
        if (version > 5) return Bad(absl::StrCat("pickle protocol ", int{version}, " is unknown"));
        break;
      }
      case 0x95: {  // FRAME
        if (short_of(8)) return Truncated("FRAME");
        const uint64_t length = LoadLE<8>(p);
        p += 8;
        if (short_of(length)) return Truncated(absl::StrCat("a frame of ", length, " bytes"));
        break;
      }
      case 0x98:  // READONLY_BUFFER
        if (Available() < 1) return NeedError(1, "READONLY_BUFFER");
        break;
      case '0': {  // POP
        if (Available() > 0) {
          stack_.pop_back();
        } else {
          size_t begin = 0;
          TBPROF_RETURN_IF_ERROR(PopMark("POP", &begin));
        }
        break;
      }
      case '1': {  // POP_MARK
        size_t begin = 0;
        TBPROF_RETURN_IF_ERROR(PopMark("POP_MARK", &begin));
        stack_.resize(begin);
        break;
      }
      case '2':  // DUP
        if (Available() < 1) return NeedError(1, "DUP");
        stack_.push_back(stack_.back());
        break;
      case '.': {  // STOP
        TBPROF_RETURN_IF_ERROR(Stop());
        if (p != end) {
          op_at_ = static_cast<uint64_t>(p - data_);
          return Bad(absl::StrCat(end - p, " bytes after the end of the pickle (STOP)"));
        }
        return result_;
      }
      default:
        return RefusedOpcode(op);
    }
  }
}

}  // namespace

absl::StatusOr<Value> ReadPickle(absl::string_view bytes, absl::string_view source,
                                 PickleVisitor* visitor, const PickleReadOptions& options) {
  Reader reader(bytes, source, visitor, options);
  return reader.Run();
}

}  // namespace tbprof::converters::pickle
