#include "converters/chrome_json/trace_event_parser.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "converters/chrome_json/json_number.h"

namespace tbprof::converters::json {
namespace {

template <typename Word>
inline Word Load(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof(Word));
  return w;
}

// key == literal. Keys of 4 or more bytes are compared a word at a time
// (overlapping words for the tail): a libc memcmp call per candidate key was
// a visible share of parsing.
template <size_t N>
inline bool Eq(absl::string_view key, const char (&literal)[N]) {
  constexpr size_t n = N - 1;
  if (key.size() != n) return false;
  const char* k = key.data();
  if constexpr (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      if (Load<uint64_t>(k + i) != Load<uint64_t>(literal + i)) return false;
    }
    return Load<uint64_t>(k + n - 8) == Load<uint64_t>(literal + n - 8);
  } else if constexpr (n >= 4) {
    return Load<uint32_t>(k) == Load<uint32_t>(literal) &&
           Load<uint32_t>(k + n - 4) == Load<uint32_t>(literal + n - 4);
  } else {
    return std::memcmp(k, literal, n) == 0;
  }
}

Token* EventSlot(RawTraceEvent* e, absl::string_view key) {
  switch (key.size()) {
    case 1:
      if (key[0] == 's') return &e->scope;
      break;
    case 2:
      if (Eq(key, "ph")) return &e->ph;
      if (Eq(key, "ts")) return &e->ts;
      if (Eq(key, "id")) return &e->id;
      break;
    case 3:
      if (Eq(key, "cat")) return &e->cat;
      if (Eq(key, "pid")) return &e->pid;
      if (Eq(key, "tid")) return &e->tid;
      if (Eq(key, "dur")) return &e->dur;
      break;
    case 4:
      if (Eq(key, "name")) return &e->name;
      break;
  }
  return nullptr;
}

Token* ArgSlot(TraceEventArgs* a, absl::string_view key) {
  switch (key.size()) {
    case 4:
      if (Eq(key, "Addr")) return &a->addr;
      if (Eq(key, "name")) return &a->name;
      if (Eq(key, "grid")) return &a->grid;
      break;
    case 5:
      if (Eq(key, "bytes")) return &a->bytes;
      if (Eq(key, "Bytes")) return &a->mem_bytes;
      if (Eq(key, "block")) return &a->block;
      break;
    case 6:
      if (Eq(key, "device")) return &a->device;
      if (Eq(key, "stream")) return &a->stream;
      if (Eq(key, "labels")) return &a->labels;
      break;
    case 9:
      if (Eq(key, "Device Id")) return &a->mem_device_id;
      break;
    case 10:
      if (Eq(key, "Input Dims")) return &a->input_dims;
      if (Eq(key, "Input type")) return &a->input_types;
      if (Eq(key, "Call stack")) return &a->call_stack;
      break;
    case 11:
      if (Eq(key, "correlation")) return &a->correlation;
      if (Eq(key, "External id") || Eq(key, "external id")) return &a->external_id;
      if (Eq(key, "Device Type")) return &a->mem_device_type;
      break;
    case 13:
      if (Eq(key, "shared memory")) return &a->shared_memory;
      break;
    case 14:
      if (Eq(key, "Total Reserved")) return &a->total_reserved;
      if (Eq(key, "cuda_sync_kind")) return &a->sync_kind;
      break;
    case 15:
      if (Eq(key, "Total Allocated")) return &a->total_allocated;
      if (Eq(key, "Concrete Inputs")) return &a->concrete_inputs;
      break;
    case 20:
      if (Eq(key, "registers per thread")) return &a->registers;
      break;
    case 25:
      if (Eq(key, "est. achieved occupancy %")) return &a->est_occupancy;
      break;
  }
  return nullptr;
}

// Iterates the members of the object at the cursor ('{'), calling
// on_member(key) with the cursor after the ':'; on_member must consume the
// value.
template <typename OnMember>
bool ParseObject(Cursor* c, int depth, StringArena* arena, OnMember&& on_member) {
  if (depth > kMaxNestingDepth) return c->FailTooDeep(c->pos());
  c->set_pos(c->pos() + 1);
  if (!c->SkipWhitespace()) return false;
  if (*c->pos() == '}') {
    c->set_pos(c->pos() + 1);
    return true;
  }
  while (true) {
    if (!c->SkipWhitespace()) return false;
    if (*c->pos() != '"') return c->Fail(c->pos(), "expected a string key");
    absl::string_view key;
    if (!c->ParseString(&key, arena)) return false;
    if (!c->Expect(':', "expected ':' after key")) return false;
    if (!on_member(key)) return false;
    if (!c->SkipWhitespace()) return false;
    char ch = *c->pos();
    c->set_pos(c->pos() + 1);
    if (ch == ',') continue;
    if (ch == '}') return true;
    return c->Fail(c->pos() - 1, "expected ',' or '}' in object");
  }
}

}  // namespace

static_assert(std::is_trivially_copyable_v<Token> && std::is_standard_layout_v<RawTraceEvent>,
              "RawTraceEvent's tokens are addressed by index");
static_assert(offsetof(RawTraceEvent, args) == 9 * sizeof(Token) &&
                  sizeof(TraceEventArgs) == 23 * sizeof(Token) &&
                  offsetof(RawTraceEvent, has_args) ==
                      RawTraceEvent::kNumTokens * sizeof(Token) &&
                  RawTraceEvent::kNumTokens <= 32,
              "tokens must come first in RawTraceEvent, args last among them");

namespace {

// Records that `slot` (a token of *e) is about to be written.
inline void MarkSet(RawTraceEvent* e, const Token* slot) {
  const size_t index = static_cast<size_t>(reinterpret_cast<const char*>(slot) -
                                           reinterpret_cast<const char*>(e)) /
                       sizeof(Token);
  e->set_tokens |= uint32_t{1} << index;
}

}  // namespace

void RawTraceEvent::Reset() {
  // Only the tokens the last parse wrote (a few of the 32) are cleared:
  // clearing all of them wrote 768 bytes per event, more than most events
  // are long.
  for (uint32_t m = set_tokens; m != 0; m &= m - 1) *TokenAt(__builtin_ctz(m)) = Token();
  set_tokens = 0;
  has_args = false;
  byte_offset = 0;
  raw = absl::string_view();
}

bool ParseTraceEvent(Cursor* c, int depth, StringArena* arena, RawTraceEvent* event) {
  event->Reset();
  const char* begin = c->pos();
  bool ok = ParseObject(c, depth, arena, [&](absl::string_view key) {
    if (key.size() == 4 && std::memcmp(key.data(), "args", 4) == 0) {
      if (!c->SkipWhitespace()) return false;
      if (*c->pos() != '{') return c->SkipValue(depth);  // Not an object: ignored.
      event->has_args = true;
      return ParseObject(c, depth + 1, arena, [&](absl::string_view arg_key) {
        if (Token* slot = ArgSlot(&event->args, arg_key)) {
          MarkSet(event, slot);
          return c->ParseToken(depth + 1, slot, arena);
        }
        return c->SkipValue(depth + 1);
      });
    }
    if (Token* slot = EventSlot(event, key)) {
      MarkSet(event, slot);
      return c->ParseToken(depth, slot, arena);
    }
    return c->SkipValue(depth);
  });
  if (ok) event->raw = absl::string_view(begin, static_cast<size_t>(c->pos() - begin));
  return ok;
}

bool ParseDim3(absl::string_view json_array, int64_t dims[3]) {
  Cursor c(json_array.data(), json_array.data() + json_array.size());
  if (!c.SkipWhitespace() || *c.pos() != '[') return false;
  c.set_pos(c.pos() + 1);
  int64_t parsed[3] = {1, 1, 1};
  int n = 0;
  if (!c.SkipWhitespace()) return false;
  if (*c.pos() == ']') {
    c.set_pos(c.pos() + 1);
  } else {
    while (true) {
      if (!c.SkipWhitespace()) return false;
      absl::string_view text;
      if (n == 3 || !c.ParseNumber(&text) || !ParseInt64(text, &parsed[n])) return false;
      ++n;
      if (!c.SkipWhitespace()) return false;
      char ch = *c.pos();
      c.set_pos(c.pos() + 1);
      if (ch == ']') break;
      if (ch != ',') return false;
    }
  }
  for (int i = 0; i < 3; ++i) dims[i] = parsed[i];
  return true;
}

}  // namespace tbprof::converters::json
