// Read-only access to an Nsight Systems SQLite export (`nsys export --type
// sqlite`) through the SQLite C API.
//
// Contract. The file is opened read-only and immutable (URI parameters
// `mode=ro&immutable=1`): SQLite takes no lock, writes no journal and never
// changes the user's file, and a database another process holds locked is
// still read. One connection per NsysDb, used from one thread at a time
// (opened NOMUTEX: no lock per value read). Tables and columns are looked up by name, so that exports of
// different nsys releases (whose schemas add, drop and rename columns) are
// read from the columns they have. Every error names the file and, where there
// is one, the table.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_DB_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_DB_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tbprof::converters::nsys {

// The first 16 bytes of every SQLite 3 database file.
inline constexpr absl::string_view kSqliteMagic{"SQLite format 3\0", 16};

class NsysDb;

// One prepared query. Column accessors take the index of the column in the
// SELECT list.
class NsysQuery {
 public:
  NsysQuery(NsysQuery&& other) noexcept;
  NsysQuery& operator=(NsysQuery&&) = delete;
  ~NsysQuery();

  // true: a row is ready; false: no more rows. Errors: kDataLoss (corrupt or
  // truncated file) or kInternal, naming the file and the table.
  absl::StatusOr<bool> Next();
  bool IsNull(int column) const;
  int64_t Int(int column) const;  // 0 for NULL.
  // A TEXT column as valid UTF-8 (each invalid byte of what is stored becomes
  // U+FFFD, since XSpace string fields must be UTF-8); empty for NULL. Valid
  // until the next row or the next Text() of the same column.
  absl::string_view Text(int column) const;
  // Rows read so far.
  int64_t rows() const { return rows_; }

 private:
  friend class NsysDb;
  NsysQuery(const NsysDb* db, sqlite3_stmt* stmt, std::string table)
      : db_(db), stmt_(stmt), table_(std::move(table)) {}
  const NsysDb* db_;
  sqlite3_stmt* stmt_;
  std::string table_;
  int64_t rows_ = 0;
  mutable std::vector<std::string> sanitized_;  // Per column, for Text().
};

class NsysDb {
 public:
  // Opens `path` read-only and immutable and reads its table list. Errors:
  // kNotFound (no such file), kInvalidArgument (not an SQLite database),
  // kDataLoss (truncated or corrupt), each naming `path`.
  static absl::StatusOr<std::unique_ptr<NsysDb>> Open(const std::string& path);
  ~NsysDb();
  NsysDb(const NsysDb&) = delete;
  NsysDb& operator=(const NsysDb&) = delete;

  const std::string& path() const { return path_; }
  bool HasTable(absl::string_view table) const;
  // Columns of `table` in declaration order (read once); empty if the table
  // does not exist. Errors as for NsysQuery::Next().
  absl::StatusOr<const std::vector<std::string>*> Columns(absl::string_view table);
  // Whether `table` exists and has `column`.
  bool HasColumn(absl::string_view table, absl::string_view column);

  // Prepares `sql`, which reads `table` (named in errors).
  absl::StatusOr<NsysQuery> Query(absl::string_view sql, absl::string_view table) const;

  // "<path>: table <table>: <what>" with a status code that fits SQLite's
  // result code `rc` (kDataLoss for CORRUPT/NOTADB, kInvalidArgument for
  // NOTADB on open, kInternal otherwise).
  absl::Status Error(int rc, absl::string_view table, absl::string_view what) const;

 private:
  NsysDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_;
  std::vector<std::string> tables_;
  std::map<std::string, std::vector<std::string>, std::less<>> columns_;
};

// "file:<path, percent-encoded>?mode=ro&immutable=1".
std::string ReadOnlyImmutableUri(absl::string_view path);

}  // namespace tbprof::converters::nsys

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_DB_H_
