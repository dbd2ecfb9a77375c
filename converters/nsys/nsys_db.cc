#include "converters/nsys/nsys_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "converters/common/utf8.h"

namespace tbprof::converters::nsys {

std::string ReadOnlyImmutableUri(absl::string_view path) {
  std::string uri = "file:";
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : path) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
      uri.push_back(c);
    } else {
      uri.push_back('%');
      uri.push_back(kHex[u >> 4]);
      uri.push_back(kHex[u & 15]);
    }
  }
  absl::StrAppend(&uri, "?mode=ro&immutable=1");
  return uri;
}

NsysQuery::NsysQuery(NsysQuery&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), table_(std::move(other.table_)), rows_(other.rows_) {
  other.stmt_ = nullptr;
}

NsysQuery::~NsysQuery() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

absl::StatusOr<bool> NsysQuery::Next() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    ++rows_;
    return true;
  }
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, table_, absl::StrCat("reading row ", rows_ + 1));
}

bool NsysQuery::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t NsysQuery::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

absl::string_view NsysQuery::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  const absl::string_view stored(reinterpret_cast<const char*>(text),
                                 static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
  if (sanitized_.size() <= static_cast<size_t>(column)) sanitized_.resize(column + 1);
  return SanitizeUtf8(stored, &sanitized_[column]);
}

absl::StatusOr<std::unique_ptr<NsysDb>> NsysDb::Open(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    std::string message = absl::StrCat(path, ": ", std::strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
    return absl::PermissionDeniedError(message);
  }
  sqlite3* handle = nullptr;
  const int rc = sqlite3_open_v2(ReadOnlyImmutableUri(path).c_str(), &handle,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  std::unique_ptr<NsysDb> db(new NsysDb(path, handle));
  if (rc != SQLITE_OK) return db->Error(rc, "", "cannot open the database");
  absl::StatusOr<NsysQuery> q =
      db->Query("SELECT name FROM sqlite_master WHERE type IN ('table','view')", "sqlite_master");
  if (!q.ok()) return q.status();
  while (true) {
    absl::StatusOr<bool> row = q->Next();
    if (!row.ok()) return row.status();
    if (!*row) break;
    db->tables_.emplace_back(q->Text(0));
  }
  std::sort(db->tables_.begin(), db->tables_.end());
  return db;
}

NsysDb::~NsysDb() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

bool NsysDb::HasTable(absl::string_view table) const {
  return std::binary_search(tables_.begin(), tables_.end(), table,
                            [](absl::string_view a, absl::string_view b) { return a < b; });
}

absl::StatusOr<const std::vector<std::string>*> NsysDb::Columns(absl::string_view table) {
  auto it = columns_.find(table);
  if (it != columns_.end()) return &it->second;
  std::vector<std::string> columns;
  if (HasTable(table)) {
    absl::StatusOr<NsysQuery> q = Query(absl::StrCat("PRAGMA table_info(\"", table, "\")"), table);
    if (!q.ok()) return q.status();
    while (true) {
      absl::StatusOr<bool> row = q->Next();
      if (!row.ok()) return row.status();
      if (!*row) break;
      columns.emplace_back(q->Text(1));
    }
  }
  return &columns_.emplace(std::string(table), std::move(columns)).first->second;
}

bool NsysDb::HasColumn(absl::string_view table, absl::string_view column) {
  absl::StatusOr<const std::vector<std::string>*> columns = Columns(table);
  if (!columns.ok()) return false;
  return std::find((*columns)->begin(), (*columns)->end(), column) != (*columns)->end();
}

absl::StatusOr<NsysQuery> NsysDb::Query(absl::string_view sql, absl::string_view table) const {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    if (stmt != nullptr) sqlite3_finalize(stmt);
    return Error(rc, table, "cannot query");
  }
  return NsysQuery(this, stmt, std::string(table));
}

absl::Status NsysDb::Error(int rc, absl::string_view table, absl::string_view what) const {
  const int primary = rc & 0xff;
  std::string where = table.empty() ? std::string() : absl::StrCat("table ", table, ": ");
  std::string detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  std::string message = absl::StrCat(path_, ": ", where, what, ": ", detail);
  switch (primary) {
    case SQLITE_NOTADB:
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ": not an SQLite database (", detail, ")"));
    case SQLITE_CORRUPT:
    case SQLITE_IOERR:
      return absl::DataLossError(
          absl::StrCat(message, " (the file is truncated or damaged)"));
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace tbprof::converters::nsys
