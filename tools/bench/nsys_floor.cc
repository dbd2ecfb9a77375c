#include "tools/bench/nsys_floor.h"

#include <sqlite3.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tbprof::bench {
namespace {

// The tables and columns converters/nsys reads.
struct TableColumns {
  const char* table;
  std::vector<const char*> columns;
};
const std::vector<TableColumns>& ImportedColumns() {
  static const auto* tables = new std::vector<TableColumns>{
      {"StringIds", {"id", "value"}},
      {"PROCESSES", {"pid", "name"}},
      {"ThreadNames", {"globalTid", "nameId"}},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"}},
      {"CUPTI_ACTIVITY_KIND_DRIVER", {"start", "end", "globalTid", "correlationId", "nameId"}},
      {"NVTX_EVENTS", {"start", "end", "globalTid", "text", "textId", "eventType"}},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "demangledName",
        "mangledName", "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY",
        "blockZ", "staticSharedMemory", "dynamicSharedMemory", "graphId"}},
      {"CUPTI_ACTIVITY_KIND_MEMCPY",
       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
        "copyKind", "srcKind", "dstKind", "graphId"}},
      {"CUPTI_ACTIVITY_KIND_MEMSET",
       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes",
        "memKind"}},
      {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "syncType"}},
      {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "graphId"}},
  };
  return *tables;
}

// Tables whose rows the scaler repeats.
constexpr const char* kActivityTables[] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
    "NVTX_EVENTS",                 "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",  "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"};

class Db {
 public:
  ~Db() {
    if (db_ != nullptr) sqlite3_close(db_);
  }
  absl::Status Open(const std::string& path, bool read_only) {
    path_ = path;
    const std::string uri = read_only ? absl::StrCat("file:", path, "?mode=ro&immutable=1") : path;
    // NOMUTEX as the importer: one thread, no lock per column read.
    const int flags = (read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE) |
                      SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(uri.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", sqlite3_errmsg(db_)));
    }
    return absl::OkStatus();
  }
  // Column names of `table`, empty if it does not exist.
  std::vector<std::string> Columns(const std::string& table) {
    std::vector<std::string> out;
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, absl::StrCat("PRAGMA table_info(\"", table, "\")").c_str(), -1,
                           &s, nullptr) == SQLITE_OK) {
      while (sqlite3_step(s) == SQLITE_ROW) {
        out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
      }
    }
    sqlite3_finalize(s);
    return out;
  }
  absl::Status Exec(const std::string& sql, const std::string& table) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      absl::Status s = absl::InternalError(absl::StrCat(path_, ": table ", table, ": ",
                                                        error != nullptr ? error : "error"));
      sqlite3_free(error);
      return s;
    }
    return absl::OkStatus();
  }
  int64_t Int(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
      v = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return v;
  }
  sqlite3* get() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

bool Has(const std::vector<std::string>& columns, const std::string& c) {
  for (const std::string& x : columns) {
    if (x == c) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<NsysScan> ScanNsysExport(const std::string& path) {
  Db db;
  if (absl::Status s = db.Open(path, true); !s.ok()) return s;
  NsysScan scan;
  for (const TableColumns& t : ImportedColumns()) {
    const std::vector<std::string> present = db.Columns(t.table);
    if (present.empty()) continue;
    std::vector<std::string> select;
    for (const char* c : t.columns) {
      if (Has(present, c)) select.push_back(absl::StrCat("\"", c, "\""));
    }
    const std::string sql =
        absl::StrCat("SELECT ", absl::StrJoin(select, ", "), " FROM \"", t.table, "\"");
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      return absl::InternalError(
          absl::StrCat(path, ": table ", t.table, ": ", sqlite3_errmsg(db.get())));
    }
    const int n = static_cast<int>(select.size());
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      ++scan.rows;
      for (int i = 0; i < n; ++i) {
        if (sqlite3_column_type(s, i) == SQLITE_TEXT) {
          scan.checksum += static_cast<uint64_t>(sqlite3_column_bytes(s, i));
          scan.checksum += sqlite3_column_text(s, i)[0];
        } else {
          scan.checksum += static_cast<uint64_t>(sqlite3_column_int64(s, i));
        }
        ++scan.values;
      }
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
      return absl::DataLossError(
          absl::StrCat(path, ": table ", t.table, ": ", sqlite3_errstr(rc)));
    }
  }
  return scan;
}

absl::Status ScaleNsysExport(const std::string& in, const std::string& out, int copies) {
  {
    std::ifstream src(in, std::ios::binary);
    if (!src) return absl::NotFoundError(absl::StrCat(in, ": cannot read"));
    std::ofstream dst(out, std::ios::binary | std::ios::trunc);
    dst << src.rdbuf();
    if (!dst) return absl::InternalError(absl::StrCat(out, ": cannot write"));
  }
  Db db;
  if (absl::Status s = db.Open(out, false); !s.ok()) return s;
  if (absl::Status s = db.Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", out);
      !s.ok()) {
    return s;
  }
  int64_t span = 0, max_correlation = 0;
  for (const char* t : kActivityTables) {
    const std::vector<std::string> cols = db.Columns(t);
    if (!Has(cols, "start") || !Has(cols, "end")) continue;
    span = std::max(span, db.Int(absl::StrCat("SELECT max(\"end\") FROM \"", t, "\"")));
    if (Has(cols, "correlationId")) {
      max_correlation = std::max(
          max_correlation, db.Int(absl::StrCat("SELECT max(correlationId) FROM \"", t, "\"")));
    }
  }
  span += 1000;
  max_correlation += 1;
  for (const char* t : kActivityTables) {
    const std::vector<std::string> cols = db.Columns(t);
    if (!Has(cols, "start") || !Has(cols, "end")) continue;
    const std::string orig = absl::StrCat("orig_", t);
    if (absl::Status s = db.Exec(
            absl::StrCat("CREATE TEMP TABLE \"", orig, "\" AS SELECT * FROM \"", t, "\""), t);
        !s.ok()) {
      return s;
    }
    for (int k = 1; k < copies; ++k) {
      std::vector<std::string> exprs;
      for (const std::string& c : cols) {
        if (c == "start" || c == "end") {
          exprs.push_back(absl::StrCat("\"", c, "\" + ", k * span));
        } else if (c == "correlationId") {
          exprs.push_back(absl::StrCat("correlationId + ", k * max_correlation));
        } else {
          exprs.push_back(absl::StrCat("\"", c, "\""));
        }
      }
      if (absl::Status s = db.Exec(absl::StrCat("INSERT INTO \"", t, "\" SELECT ",
                                                absl::StrJoin(exprs, ", "), " FROM \"", orig,
                                                "\""),
                                   t);
          !s.ok()) {
        return s;
      }
    }
  }
  return db.Exec("COMMIT", out);
}

}  // namespace tbprof::bench
