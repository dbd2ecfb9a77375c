#include "converters/memory_snapshot/pickle_reader.h"

#include <cstring>
#include <utility>
#include <vector>

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

bool IsContainer(Kind k) {
  return k == Kind::kList || k == Kind::kTuple || k == Kind::kDict || k == Kind::kSet;
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDict: return "dict";
    case Kind::kSet: return "set";
    default: return "non-container";
  }
}

struct Slot {
  Kind kind = Kind::kNone;
  bool live = false;
  uint32_t gen = 0;
  uint64_t memo_index = kNoMemo;
  uint64_t offset = 0;
  std::vector<Value> items;
};

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
  absl::Status Bad(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": byte ", op_at_, ": ", what));
  }
  absl::Status Truncated(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(source_, ": byte ", op_at_, ": truncated pickle: ",
                                            what, " runs past the end of the input (", size_,
                                            " bytes)"));
  }
  bool Has(uint64_t n) const { return n <= size_ - pos_; }
  uint64_t ReadLE(int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(data_[pos_ + k]) << (8 * k);
    pos_ += n;
    return v;
  }

  // Items above the latest MARK.
  size_t Available() const { return stack_.size() - (marks_.empty() ? 0 : marks_.back()); }
  absl::Status Need(size_t n, const char* op) const {
    if (Available() < n) return Bad(absl::StrCat(op, " needs ", n, " value(s) on the stack"));
    return absl::OkStatus();
  }

  Value NewContainer(Kind kind) {
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

  // The live slot of container value `v`, or nullptr if it was reduced.
  Slot* LiveSlot(const Value& v) {
    if (v.u >= slots_.size()) return nullptr;
    Slot& s = slots_[v.u];
    return (s.live && s.gen == v.len) ? &s : nullptr;
  }

  absl::StatusOr<Value*> MemoEntry(uint64_t index) {
    if (index < memo_.size() && !(memo_[index].flags & kUndefinedFlag)) return &memo_[index];
    Value* v = nullptr;
    if (index < memo_.size()) {
      v = &memo_[index];
    } else {
      auto it = sparse_memo_.find(index);
      if (it != sparse_memo_.end()) v = &it->second;
    }
    if (v == nullptr || (v->kind == Kind::kNone && (v->flags & kUndefinedFlag))) {
      return Bad(absl::StrCat("memo key ", index, " is not defined"));
    }
    return v;
  }

  // What `v` stands for now: a memo reference is looked up (one alias level).
  absl::StatusOr<Value> Resolve(Value v) {
    for (int depth = 0; v.kind == Kind::kMemoRef; ++depth) {
      if (depth == 2) return Bad("memo alias chain");
      TBPROF_ASSIGN_OR_RETURN(Value * entry, MemoEntry(v.u));
      if (entry->kind == Kind::kMemoRef) {
        v = *entry;
        continue;
      }
      return *entry;
    }
    return v;
  }

  // `v` as a member of a container: a container is reduced (once).
  absl::StatusOr<Value> Consume(Value v);
  absl::Status ConsumeRange(size_t begin);  // stack_[begin..] -> scratch_, popped.
  // The live container of kind `want` at the stack top (not popped).
  absl::StatusOr<Slot*> TopTarget(Kind want, const char* op);
  absl::StatusOr<size_t> PopMark(const char* op);
  absl::Status Put(uint64_t index);
  absl::Status Get(uint64_t index);
  absl::Status PushString(Kind kind, uint64_t length);
  absl::Status PushLong(uint64_t length);
  absl::Status Step(uint8_t op);

  const uint8_t* data_;
  uint64_t size_;
  absl::string_view source_;
  PickleVisitor* visitor_;
  const PickleReadOptions& options_;
  uint64_t pos_ = 0;
  uint64_t op_at_ = 0;
  bool stopped_ = false;
  Value result_;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_;
  absl::flat_hash_map<uint64_t, Value> sparse_memo_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::vector<Value> scratch_;
};

absl::StatusOr<Value> Reader::Consume(Value v) {
  uint64_t memo_index = kNoMemo;
  if (v.kind == Kind::kMemoRef) {
    memo_index = v.u;
    TBPROF_ASSIGN_OR_RETURN(v, Resolve(v));
  }
  if (!IsContainer(v.kind)) return v;
  Slot* slot = LiveSlot(v);
  if (slot == nullptr) return Bad("a container is used again after it was complete");
  TBPROF_ASSIGN_OR_RETURN(Value reduced, visitor_->Reduce(slot->kind, slot->items, slot->offset));
  if (IsContainer(reduced.kind) || reduced.kind == Kind::kMemoRef) {
    return absl::InternalError("pickle visitor returned a container");
  }
  // Every memo entry naming this container now names its reduction.
  for (uint64_t index : {slot->memo_index, memo_index}) {
    if (index == kNoMemo) continue;
    absl::StatusOr<Value*> entry = MemoEntry(index);
    if (entry.ok() && (*entry)->kind == v.kind && (*entry)->u == v.u && (*entry)->len == v.len) {
      **entry = reduced;
    }
  }
  std::vector<Value>().swap(slot->items);
  slot->live = false;
  ++slot->gen;
  free_.push_back(static_cast<uint32_t>(v.u));
  return reduced;
}

absl::Status Reader::ConsumeRange(size_t begin) {
  scratch_.clear();
  scratch_.reserve(stack_.size() - begin);
  for (size_t k = begin; k < stack_.size(); ++k) {
    const Value& v = stack_[k];
    if (v.kind != Kind::kMemoRef && !IsContainer(v.kind)) {  // Scalars: as they are.
      scratch_.push_back(v);
      continue;
    }
    TBPROF_ASSIGN_OR_RETURN(Value r, Consume(v));
    scratch_.push_back(r);
  }
  stack_.resize(begin);
  return absl::OkStatus();
}

absl::StatusOr<Slot*> Reader::TopTarget(Kind want, const char* op) {
  TBPROF_RETURN_IF_ERROR(Need(1, op));
  TBPROF_ASSIGN_OR_RETURN(Value target, Resolve(stack_.back()));
  Slot* slot = IsContainer(target.kind) ? LiveSlot(target) : nullptr;
  if (slot == nullptr || slot->kind != want) {
    return Bad(absl::StrCat(op, " needs a ", KindName(want), " under its items, found ",
                            slot == nullptr ? "a complete or non-container value"
                                            : KindName(slot->kind)));
  }
  return slot;
}

absl::StatusOr<size_t> Reader::PopMark(const char* op) {
  if (marks_.empty()) return Bad(absl::StrCat(op, " without a MARK"));
  size_t begin = marks_.back();
  marks_.pop_back();
  return begin;
}

absl::Status Reader::Put(uint64_t index) {
  TBPROF_RETURN_IF_ERROR(Need(1, "PUT"));
  Value& top = stack_.back();
  Value stored = top;
  if (IsContainer(top.kind)) {
    Slot* slot = LiveSlot(top);
    if (slot != nullptr && slot->memo_index == kNoMemo) slot->memo_index = index;
    Value ref;
    ref.kind = Kind::kMemoRef;
    ref.u = index;
    top = ref;
  }
  if (index < memo_.size()) {
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

absl::Status Reader::Get(uint64_t index) {
  TBPROF_ASSIGN_OR_RETURN(Value * entry, MemoEntry(index));
  if (IsContainer(entry->kind)) {
    Value ref;
    ref.kind = Kind::kMemoRef;
    ref.u = index;
    stack_.push_back(ref);
  } else {
    stack_.push_back(*entry);
  }
  return absl::OkStatus();
}

absl::Status Reader::PushString(Kind kind, uint64_t length) {
  if (!Has(length)) return Truncated(absl::StrCat("a string of ", length, " bytes"));
  if (length > UINT32_MAX) return Bad("string longer than 4 GiB");
  Value v;
  v.kind = kind;
  v.str = reinterpret_cast<const char*>(data_ + pos_);
  v.len = static_cast<uint32_t>(length);
  pos_ += length;
  stack_.push_back(v);
  return absl::OkStatus();
}

absl::Status Reader::PushLong(uint64_t length) {
  if (!Has(length)) return Truncated(absl::StrCat("an integer of ", length, " bytes"));
  const uint8_t* p = data_ + pos_;
  pos_ += length;
  Value v;
  if (length == 0) {
    v.kind = Kind::kInt;
    v.i = 0;
  } else if (length <= 8) {
    uint64_t u = 0;
    for (uint64_t k = 0; k < length; ++k) u |= static_cast<uint64_t>(p[k]) << (8 * k);
    if (length < 8 && (p[length - 1] & 0x80)) u |= ~uint64_t{0} << (8 * length);
    v.kind = Kind::kInt;
    v.i = static_cast<int64_t>(u);
  } else if (length == 9 && p[8] == 0) {
    uint64_t u = 0;
    for (int k = 0; k < 8; ++k) u |= static_cast<uint64_t>(p[k]) << (8 * k);
    v.kind = Kind::kUInt;
    v.u = u;
  } else {
    v.kind = Kind::kBigInt;
  }
  stack_.push_back(v);
  return absl::OkStatus();
}

absl::StatusOr<Value> Reader::Run() {
  uint64_t next_progress = options_.progress_bytes;
  while (!stopped_) {
    if (pos_ >= size_) {
      op_at_ = pos_;
      return Truncated("the pickle (no STOP opcode)");
    }
    op_at_ = pos_;
    if (options_.progress && pos_ >= next_progress) {
      options_.progress(pos_);
      next_progress = pos_ + options_.progress_bytes;
    }
    uint8_t op = data_[pos_++];
    TBPROF_RETURN_IF_ERROR(Step(op));
  }
  if (pos_ != size_) {
    op_at_ = pos_;
    return Bad(absl::StrCat(size_ - pos_, " bytes after the end of the pickle (STOP)"));
  }
  return result_;
}

absl::Status Reader::Step(uint8_t op) {
  auto fixed = [&](uint64_t n, const char* what) -> absl::Status {
    return Has(n) ? absl::OkStatus() : Truncated(what);
  };
  switch (op) {
    case 0x80: {  // PROTO
      TBPROF_RETURN_IF_ERROR(fixed(1, "PROTO"));
      uint8_t version = data_[pos_++];
      if (version > 5) return Bad(absl::StrCat("pickle protocol ", int{version}, " is unknown"));
      return absl::OkStatus();
    }
    case 0x95: {  // FRAME
      TBPROF_RETURN_IF_ERROR(fixed(8, "FRAME"));
      uint64_t length = ReadLE(8);
      if (!Has(length)) return Truncated(absl::StrCat("a frame of ", length, " bytes"));
      return absl::OkStatus();
    }
    case '.': {  // STOP
      if (!marks_.empty()) return Bad("STOP inside a MARK");
      if (stack_.size() != 1) {
        return Bad(absl::StrCat("STOP with ", stack_.size(), " values on the stack (want 1)"));
      }
      TBPROF_ASSIGN_OR_RETURN(result_, Consume(stack_.back()));
      stack_.clear();
      stopped_ = true;
      return absl::OkStatus();
    }
    case 'N': stack_.emplace_back(); return absl::OkStatus();
    case 0x88:
    case 0x89: {  // NEWTRUE, NEWFALSE
      Value v;
      v.kind = Kind::kBool;
      v.i = op == 0x88 ? 1 : 0;
      stack_.push_back(v);
      return absl::OkStatus();
    }
    case 'J':
    case 'K':
    case 'M': {  // BININT, BININT1, BININT2
      int n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      TBPROF_RETURN_IF_ERROR(fixed(n, "an integer"));
      uint64_t u = ReadLE(n);
      Value v;
      v.kind = Kind::kInt;
      v.i = op == 'J' ? static_cast<int64_t>(static_cast<int32_t>(u)) : static_cast<int64_t>(u);
      stack_.push_back(v);
      return absl::OkStatus();
    }
    case 0x8a:  // LONG1
      TBPROF_RETURN_IF_ERROR(fixed(1, "LONG1"));
      return PushLong(ReadLE(1));
    case 0x8b: {  // LONG4
      TBPROF_RETURN_IF_ERROR(fixed(4, "LONG4"));
      int32_t n = static_cast<int32_t>(ReadLE(4));
      if (n < 0) return Bad("LONG4 with a negative length");
      return PushLong(static_cast<uint64_t>(n));
    }
    case 'G': {  // BINFLOAT, big-endian
      TBPROF_RETURN_IF_ERROR(fixed(8, "BINFLOAT"));
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) bits = (bits << 8) | data_[pos_ + k];
      pos_ += 8;
      Value v;
      v.kind = Kind::kFloat;
      std::memcpy(&v.d, &bits, sizeof(double));
      stack_.push_back(v);
      return absl::OkStatus();
    }
    case 0x8c:  // SHORT_BINUNICODE
    case 'U':   // SHORT_BINSTRING
    case 'C':   // SHORT_BINBYTES
      TBPROF_RETURN_IF_ERROR(fixed(1, "a string length"));
      return PushString(op == 'C' ? Kind::kBytes : Kind::kString, ReadLE(1));
    case 'X':  // BINUNICODE
    case 'T':  // BINSTRING
    case 'B':  // BINBYTES
      TBPROF_RETURN_IF_ERROR(fixed(4, "a string length"));
      return PushString(op == 'B' ? Kind::kBytes : Kind::kString, ReadLE(4));
    case 0x8d:  // BINUNICODE8
    case 0x8e:  // BINBYTES8
    case 0x96:  // BYTEARRAY8
      TBPROF_RETURN_IF_ERROR(fixed(8, "a string length"));
      return PushString(op == 0x8d ? Kind::kString : Kind::kBytes, ReadLE(8));
    case 0x97:  // NEXT_BUFFER
      return Bad("out-of-band buffer (NEXT_BUFFER): the data is not in this file");
    case 0x98:  // READONLY_BUFFER
      return Need(1, "READONLY_BUFFER");
    case '(':
      marks_.push_back(stack_.size());
      return absl::OkStatus();
    case '0':  // POP
      if (Available() > 0) {
        stack_.pop_back();
      } else {
        TBPROF_RETURN_IF_ERROR(PopMark("POP").status());
      }
      return absl::OkStatus();
    case '1': {  // POP_MARK
      TBPROF_ASSIGN_OR_RETURN(size_t begin, PopMark("POP_MARK"));
      stack_.resize(begin);
      return absl::OkStatus();
    }
    case '2':  // DUP
      TBPROF_RETURN_IF_ERROR(Need(1, "DUP"));
      stack_.push_back(stack_.back());
      return absl::OkStatus();
    case 'q':
      TBPROF_RETURN_IF_ERROR(fixed(1, "BINPUT"));
      return Put(ReadLE(1));
    case 'r':
      TBPROF_RETURN_IF_ERROR(fixed(4, "LONG_BINPUT"));
      return Put(ReadLE(4));
    case 0x94:  // MEMOIZE
      return Put(memo_.size());
    case 'h':
      TBPROF_RETURN_IF_ERROR(fixed(1, "BINGET"));
      return Get(ReadLE(1));
    case 'j':
      TBPROF_RETURN_IF_ERROR(fixed(4, "LONG_BINGET"));
      return Get(ReadLE(4));
    case ']': stack_.push_back(NewContainer(Kind::kList)); return absl::OkStatus();
    case '}': stack_.push_back(NewContainer(Kind::kDict)); return absl::OkStatus();
    case ')': stack_.push_back(NewContainer(Kind::kTuple)); return absl::OkStatus();
    case 0x8f: stack_.push_back(NewContainer(Kind::kSet)); return absl::OkStatus();
    case 0x85:
    case 0x86:
    case 0x87: {  // TUPLE1..3
      size_t n = op - 0x84;
      TBPROF_RETURN_IF_ERROR(Need(n, "TUPLE1/2/3"));
      TBPROF_RETURN_IF_ERROR(ConsumeRange(stack_.size() - n));
      Value t = NewContainer(Kind::kTuple);
      slots_[t.u].items.assign(scratch_.begin(), scratch_.end());
      stack_.push_back(t);
      return absl::OkStatus();
    }
    case 't':     // TUPLE
    case 'l':     // LIST
    case 'd':     // DICT
    case 0x91: {  // FROZENSET
      const Kind kind = op == 't' ? Kind::kTuple : op == 'l' ? Kind::kList
                        : op == 'd' ? Kind::kDict : Kind::kSet;
      TBPROF_ASSIGN_OR_RETURN(size_t begin, PopMark("TUPLE/LIST/DICT/FROZENSET"));
      if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
        return Bad("DICT with an odd number of items");
      }
      TBPROF_RETURN_IF_ERROR(ConsumeRange(begin));
      Value c = NewContainer(kind);
      slots_[c.u].items.assign(scratch_.begin(), scratch_.end());
      stack_.push_back(c);
      return absl::OkStatus();
    }
    case 'a':  // APPEND
    case 's':  // SETITEM
    {
      const size_t n = op == 'a' ? 1 : 2;
      TBPROF_RETURN_IF_ERROR(Need(n + 1, op == 'a' ? "APPEND" : "SETITEM"));
      TBPROF_RETURN_IF_ERROR(ConsumeRange(stack_.size() - n));
      TBPROF_ASSIGN_OR_RETURN(Slot * target, TopTarget(op == 'a' ? Kind::kList : Kind::kDict,
                                                       op == 'a' ? "APPEND" : "SETITEM"));
      if (op == 'a' && visitor_->TakeListItems(target->offset, scratch_)) {
        return absl::OkStatus();
      }
      target->items.insert(target->items.end(), scratch_.begin(), scratch_.end());
      return absl::OkStatus();
    }
    case 'e':     // APPENDS
    case 'u':     // SETITEMS
    case 0x90: {  // ADDITEMS
      const Kind kind = op == 'e' ? Kind::kList : op == 'u' ? Kind::kDict : Kind::kSet;
      const char* name = op == 'e' ? "APPENDS" : op == 'u' ? "SETITEMS" : "ADDITEMS";
      TBPROF_ASSIGN_OR_RETURN(size_t begin, PopMark(name));
      if (kind == Kind::kDict && (stack_.size() - begin) % 2 != 0) {
        return Bad("SETITEMS with an odd number of items");
      }
      TBPROF_RETURN_IF_ERROR(ConsumeRange(begin));
      TBPROF_ASSIGN_OR_RETURN(Slot * target, TopTarget(kind, name));
      if (kind == Kind::kList && visitor_->TakeListItems(target->offset, scratch_)) {
        return absl::OkStatus();
      }
      target->items.insert(target->items.end(), scratch_.begin(), scratch_.end());
      return absl::OkStatus();
    }
    case 'c': case 0x93: case 'R': case 'b': case 'i': case 'o': case 0x81: case 0x92:
    case 0x82: case 0x83: case 0x84: case 'P': case 'Q':
      return Bad(absl::StrFormat("opcode 0x%02x: %s", op, kRunsCodeMessage));
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'p': case 'g':
      return Bad(absl::StrFormat(
          "opcode 0x%02x ('%c') is a text opcode of pickle protocol 0/1, which tbprof does not "
          "read (memory snapshots use protocol 2 or later)", op, op));
    default:
      return Bad(absl::StrFormat("unknown pickle opcode 0x%02x", op));
  }
}

}  // namespace

absl::StatusOr<Value> ReadPickle(absl::string_view bytes, absl::string_view source,
                                 PickleVisitor* visitor, const PickleReadOptions& options) {
  Reader reader(bytes, source, visitor, options);
  return reader.Run();
}

}  // namespace tbprof::converters::pickle
