#include "converters/chrome_json/json_value.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "converters/chrome_json/json_number.h"

namespace tbprof::converters::json {
namespace {

bool Parse(Cursor* c, int depth, StringArena* arena, JsonValue* out) {
  if (!c->SkipWhitespace()) return false;
  char ch = *c->pos();
  if (ch == '{' || ch == '[') {
    if (depth + 1 > kMaxNestingDepth) return c->FailTooDeep(c->pos());
    bool object = ch == '{';
    out->kind = object ? ValueKind::kObject : ValueKind::kArray;
    char close = object ? '}' : ']';
    c->set_pos(c->pos() + 1);
    if (!c->SkipWhitespace()) return false;
    if (*c->pos() == close) {
      c->set_pos(c->pos() + 1);
      return true;
    }
    while (true) {
      JsonValue* value;
      if (object) {
        if (!c->SkipWhitespace()) return false;
        if (*c->pos() != '"') return c->Fail(c->pos(), "expected a string key");
        absl::string_view key;
        if (!c->ParseString(&key, arena)) return false;
        if (!c->Expect(':', "expected ':' after key")) return false;
        out->members.emplace_back(std::string(key), JsonValue());
        value = &out->members.back().second;
      } else {
        out->elements.emplace_back();
        value = &out->elements.back();
      }
      if (!Parse(c, depth + 1, arena, value)) return false;
      if (!c->SkipWhitespace()) return false;
      char next = *c->pos();
      c->set_pos(c->pos() + 1);
      if (next == ',') continue;
      if (next == close) return true;
      return c->Fail(c->pos() - 1,
                     object ? "expected ',' or '}' in object" : "expected ',' or ']' in array");
    }
  }
  Token token;
  if (!c->ParseToken(depth, &token, arena)) return false;
  out->kind = token.kind;
  out->text = std::string(token.text);
  return true;
}

}  // namespace

const JsonValue* JsonValue::Find(absl::string_view key) const {
  const JsonValue* found = nullptr;
  for (const auto& [k, v] : members) {
    if (k == key) found = &v;
  }
  return found;
}

bool JsonValue::AsInt64(int64_t* out) const {
  if (kind != ValueKind::kNumber && kind != ValueKind::kString) return false;
  return ParseInt64(text, out);
}

bool JsonValue::AsDouble(double* out) const {
  if (kind != ValueKind::kNumber && kind != ValueKind::kString) return false;
  return ParseDouble(text, out);
}

absl::StatusOr<JsonValue> ParseJsonValue(absl::string_view json) {
  // A sentinel space lets a bare top-level number end inside the range.
  std::string padded(json);
  padded.push_back(' ');
  Cursor c(padded.data(), padded.data() + padded.size());
  StringArena arena;
  JsonValue value;
  if (!Parse(&c, 0, &arena, &value)) {
    if (c.status() == ScanStatus::kIncomplete) {
      return absl::InvalidArgumentError(
          absl::StrCat("byte ", json.size(), ": unexpected end of JSON value"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("byte ", c.error_pos() - padded.data(), ": ", c.error_message()));
  }
  const char* p = c.pos();
  while (p < padded.data() + padded.size() &&
         (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
    ++p;
  }
  if (p != padded.data() + padded.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("byte ", p - padded.data(), ": unexpected text after JSON value"));
  }
  return value;
}

}  // namespace tbprof::converters::json
