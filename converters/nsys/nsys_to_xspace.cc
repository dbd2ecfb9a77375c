#include "converters/nsys/nsys_to_xspace.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "converters/nsys/nsys_converter.h"
#include "converters/nsys/nsys_names.h"
#include "src/base/status_macros.h"
#include "src/xplane/xspace_schema.h"

namespace tbprof::converters {
namespace nsys {
namespace {

using xplane::StatType;

// Export schema majors this importer was written against (2.x: nsys
// 2021-2023, 3.x: 2024 on).
constexpr int64_t kKnownSchemaMajors[] = {2, 3};

// Tables of which one must exist for the file to be an nsys export.
constexpr absl::string_view kNsysTables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
    "TARGET_INFO_SESSION_START_TIME", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_DRIVER"};

}  // namespace

std::string NsysConverter::Col(absl::string_view table, absl::string_view column,
                               absl::string_view consequence) {
  if (db_->HasColumn(table, column)) return absl::StrCat("\"", column, "\"");
  if (!consequence.empty()) missing_.push_back(absl::StrCat(table, ".", column, " (", consequence, ")"));
  return "NULL";
}

absl::string_view NsysConverter::String(int64_t id) const {
  auto it = strings_.find(id);
  return it == strings_.end() ? absl::string_view() : absl::string_view(it->second);
}

bool NsysConverter::Span(const NsysQuery& q, int start_col, int end_col, int64_t* offset_ps,
                         int64_t* duration_ps) {
  constexpr int64_t kMaxNs = (int64_t{1} << 61) / 1000;
  const int64_t start = q.Int(start_col), end = q.Int(end_col);
  // Int() reads NULL as 0: a NULL time is a zero start or end.
  if ((start == 0 || end == 0) && (q.IsNull(start_col) || q.IsNull(end_col))) {
    ++summary_.rows_bad_time;
    return false;
  }
  if (end < start || start < -kMaxNs || start > kMaxNs || end - start > kMaxNs) {
    ++summary_.rows_bad_time;
    return false;
  }
  *offset_ps = start * 1000;
  *duration_ps = (end - start) * 1000;
  return true;
}

absl::Status NsysConverter::ReadMetadata() {
  bool nsys = false;
  for (absl::string_view t : kNsysTables) nsys = nsys || db_->HasTable(t);
  if (!nsys || !db_->HasTable("StringIds")) {
    return absl::InvalidArgumentError(absl::StrCat(
        db_->path(), ": an SQLite database but not an Nsight Systems export (no StringIds, "
                     "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS or TARGET_INFO_SESSION_START_TIME "
                     "tables)"));
  }
  // META_DATA_EXPORT (2024 on) or EXPORT_META_DATA (before); neither in
  // the oldest exports.
  absl::string_view meta_table = db_->HasTable("META_DATA_EXPORT")    ? "META_DATA_EXPORT"
                                 : db_->HasTable("EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                                      : "";
  if (!meta_table.empty() && db_->HasColumn(meta_table, "name") &&
      db_->HasColumn(meta_table, "value")) {
    TBPROF_RETURN_IF_ERROR(ForEachRow(meta_table, {"name", "value"}, [&](const NsysQuery& q) {
      if (q.Text(0) == "EXPORT_SCHEMA_VERSION") summary_.schema_version = std::string(q.Text(1));
      if (q.Text(0) == "EXPORT_PRODUCT_VERSION") summary_.product_version = std::string(q.Text(1));
    }));
  }
  if (summary_.schema_version.empty()) {
    builder_.AddWarning(absl::StrCat(
        db_->path(), ": the export records no schema version (no META_DATA_EXPORT table); read "
                     "from the columns that exist"));
  } else {
    int64_t major = -1;
    absl::SimpleAtoi(summary_.schema_version.substr(0, summary_.schema_version.find('.')), &major);
    if (std::find(std::begin(kKnownSchemaMajors), std::end(kKnownSchemaMajors), major) ==
        std::end(kKnownSchemaMajors)) {
      builder_.AddWarning(absl::StrCat(db_->path(), ": unknown export schema version ",
                                       summary_.schema_version,
                                       " (known: 2.x, 3.x); read from the columns that exist"));
    }
  }
  const absl::string_view start_table = "TARGET_INFO_SESSION_START_TIME";
  if (db_->HasColumn(start_table, "utcEpochNs")) {
    TBPROF_RETURN_IF_ERROR(ForEachRow(start_table, {"utcEpochNs"}, [&](const NsysQuery& q) {
      if (!q.IsNull(0) && !has_session_start_) {
        epoch_ns_ = q.Int(0);
        has_session_start_ = true;
      }
    }));
  }
  if (!has_session_start_) {
    builder_.AddWarning(absl::StrCat(
        db_->path(), ": no TARGET_INFO_SESSION_START_TIME.utcEpochNs: times are relative to "
                     "the start of the capture, not wall-clock times"));
  }
  summary_.session_start_epoch_ns = epoch_ns_;
  const absl::string_view env = "TARGET_INFO_SYSTEM_ENV";
  if (db_->HasColumn(env, "name") && db_->HasColumn(env, "value")) {
    TBPROF_RETURN_IF_ERROR(ForEachRow(env, {"name", "value"}, [&](const NsysQuery& q) {
      if (q.Text(0) == "Hostname" && summary_.hostname.empty()) {
        summary_.hostname = std::string(q.Text(1));
      }
    }));
  }
  return absl::OkStatus();
}

absl::Status NsysConverter::ReadStrings() {
  if (!db_->HasColumn("StringIds", "id") || !db_->HasColumn("StringIds", "value")) {
    return absl::InvalidArgumentError(absl::StrCat(
        db_->path(), ": table StringIds has no id/value columns: not an export tbprof can read"));
  }
  return ForEachRow("StringIds", {"id", "value"}, [&](const NsysQuery& q) {
    strings_.emplace(q.Int(0), std::string(q.Text(1)));
  });
}

absl::Status NsysConverter::ReadProcessesAndThreads() {
  if (db_->HasColumn("PROCESSES", "pid") && db_->HasColumn("PROCESSES", "name")) {
    TBPROF_RETURN_IF_ERROR(ForEachRow("PROCESSES", {"pid", "name"}, [&](const NsysQuery& q) {
      process_names_.emplace(q.Int(0), std::string(q.Text(1)));
    }));
  }
  if (db_->HasColumn("ThreadNames", "globalTid") && db_->HasColumn("ThreadNames", "nameId")) {
    TBPROF_RETURN_IF_ERROR(
        ForEachRow("ThreadNames", {"globalTid", "nameId"}, [&](const NsysQuery& q) {
          thread_name_ids_.emplace(q.Int(0), q.Int(1));
        }));
  }
  return absl::OkStatus();
}

void NsysConverter::FillProcesses() {
  summary_.processes.clear();
  for (const auto& [pid, count] : pid_kernels_) {
    NsysProcess p;
    p.pid = pid;
    auto name = process_names_.find(pid);
    if (name != process_names_.end()) p.name = name->second;
    p.kernels = count;
    summary_.processes.push_back(std::move(p));
  }
}

absl::Status NsysConverter::CountProcesses() {
  // Which processes ran kernels (for ListNsysProcesses and one host per
  // process).
  const absl::string_view kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (db_->HasColumn(kernels, "globalPid")) {
    absl::StatusOr<NsysQuery> q =
        db_->Query("SELECT globalPid, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1", kernels);
    if (!q.ok()) return q.status();
    while (true) {
      absl::StatusOr<bool> more = q->Next();
      if (!more.ok()) return more.status();
      if (!*more) break;
      pid_kernels_[PidOfGlobalId(q->Int(0))] += q->Int(1);
    }
  }
  for (absl::string_view api : {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"}) {
    if (!db_->HasColumn(api, "globalTid")) continue;
    absl::StatusOr<NsysQuery> q =
        db_->Query(absl::StrCat("SELECT DISTINCT globalTid >> 24 FROM ", api), api);
    if (!q.ok()) return q.status();
    while (true) {
      absl::StatusOr<bool> more = q->Next();
      if (!more.ok()) return more.status();
      if (!*more) break;
      pid_kernels_.try_emplace(q->Int(0) & 0xFFFFFF, 0);
    }
  }
  FillProcesses();
  return absl::OkStatus();
}

absl::Status NsysConverter::ReadCommon() {
  TBPROF_RETURN_IF_ERROR(ReadMetadata());
  TBPROF_RETURN_IF_ERROR(ReadStrings());
  return ReadProcessesAndThreads();
}

absl::Status NsysConverter::ReadApi(absl::string_view table) {
  if (!db_->HasTable(table)) return absl::OkStatus();
  if (!db_->HasColumn(table, "start") || !db_->HasColumn(table, "end") ||
      !db_->HasColumn(table, "globalTid")) {
    skipped_tables_.push_back(absl::StrCat(table, " (no start/end/globalTid)"));
    return absl::OkStatus();
  }
  const std::vector<std::string> columns = {
      "start", "end", "globalTid", Col(table, "correlationId", "no launch-to-kernel flows"),
      Col(table, "nameId", "API calls unnamed")};
  return ForEachRow(table, columns, [&](const NsysQuery& q) {
    const int64_t gtid = q.Int(2);
    const int64_t pid = PidOfGlobalId(gtid), tid = TidOfGlobalId(gtid);
    if (pid != last_api_pid_) {
      pid_kernels_.try_emplace(pid, 0);  // A process that called CUDA.
      last_api_pid_ = pid;
    }
    if (!KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    SeePid(pid);
    int64_t name_id = q.Int(4);
    if (name_id == 0 && q.IsNull(4)) name_id = -1;
    auto [md, inserted] = api_metadata_.try_emplace(name_id, 0);
    if (inserted) {
      absl::string_view name = StripApiVersionSuffix(String(md->first));
      md->second = host_->GetOrCreateEventMetadata(
          name.empty() ? absl::StrCat(table == "CUPTI_ACTIVITY_KIND_DRIVER" ? "CUDA driver"
                                                                             : "CUDA runtime",
                                      " call")
                       : std::string(name));
    }
    xplane::XEventBuilder ev = HostLine(tid, gtid)->AddEvent(md->second, offset, duration);
    const int64_t correlation = q.Int(3);
    if (correlation != 0 || !q.IsNull(3)) {
      ev.AddInt64(s_correlation_, correlation);
      launches_.push_back({tid, offset / 1000, CorrelationKey(pid, correlation)});
    }
    ++summary_.api_calls;
  });
}

absl::Status NsysConverter::ReadNvtx() {
  const absl::string_view table = "NVTX_EVENTS";
  if (!db_->HasTable(table)) return absl::OkStatus();
  if (!db_->HasColumn(table, "start") || !db_->HasColumn(table, "end") ||
      !db_->HasColumn(table, "globalTid")) {
    skipped_tables_.push_back(absl::StrCat(table, " (no start/end/globalTid)"));
    return absl::OkStatus();
  }
  const std::vector<std::string> columns = {
      "start", "end", "globalTid", Col(table, "text", ""), Col(table, "textId", ""),
      Col(table, "eventType", "")};
  std::string name_buffer;
  return ForEachRow(table, columns, [&](const NsysQuery& q) {
    // Ranges only: push/pop (59) and start/end (60) have an end; marks (34,
    // 39), domain and category records have none.
    if (q.IsNull(1)) return;
    const int64_t type = q.IsNull(5) ? 59 : q.Int(5);
    if (type != 59 && type != 60) return;
    const int64_t gtid = q.Int(2);
    const int64_t pid = PidOfGlobalId(gtid), tid = TidOfGlobalId(gtid);
    if (!KeepPid(pid)) return;
    int64_t offset, duration;
    if (!Span(q, 0, 1, &offset, &duration)) return;
    SeePid(pid);
    absl::string_view text = q.IsNull(3) ? String(q.Int(4)) : q.Text(3);
    NvtxRangeName parsed = ParseNvtxRangeName(text);
    const absl::string_view name =
        parsed.name.empty() ? absl::string_view("<unnamed range>") : parsed.name;
    name_buffer.assign(name.data(), name.size());
    const uint32_t md = host_->GetOrCreateEventMetadata(name_buffer);
    xplane::XEventBuilder ev = HostLine(tid, gtid)->AddEvent(md, offset, duration);
    ++summary_.nvtx_ranges;
    if (parsed.is_step) {
      ev.AddInt64(s_is_root_, 1);
      ev.AddInt64(s_step_num_, parsed.step);
      ++summary_.step_roots;
      return;
    }
    // Every other range is a framework op (PyTorch's) or a user annotation:
    // it names the kernels launched inside it, and a tf_op with its own name
    // makes the plugin's framework op stats count its host time.
    const uint32_t name_id = host_->event_metadata(md).name;
    if (md >= tf_op_of_metadata_.size()) tf_op_of_metadata_.resize(md + 1, UINT32_MAX - 1);
    uint32_t& tf_op = tf_op_of_metadata_[md];
    if (tf_op == UINT32_MAX - 1) {
      tf_op = XprofParsesAsOpName(name_buffer) ? UINT32_MAX
                                               : host_->GetOrCreateStatMetadataForName(name_id);
    }
    if (tf_op != UINT32_MAX) ev.AddRefToMetadata(s_tf_op_, tf_op);
    ops_.push_back({tid, offset / 1000, (offset + duration) / 1000, name_id});
    if (parsed.pytorch_op) ++summary_.ops;
  });
}

xplane::XLineBuilder* NsysConverter::HostLine(int64_t tid, int64_t gtid) {
  if (tid == last_tid_) return last_line_;
  auto [line, new_line] = host_lines_.try_emplace(tid, gtid, nullptr);
  if (new_line) {
    line->second.second = host_->GetOrCreateLine(tid);
    line->second.second->SetTimestampNs(epoch_ns_);
  }
  last_tid_ = tid;
  last_line_ = line->second.second;
  return last_line_;
}

void NsysConverter::AttributeLaunchesToOps() {
  // Per thread, sweep the API calls in time order with a stack of the op
  // ranges open at that time: the top one is the innermost.
  // Exports list rows mostly in time order: check before sorting.
  auto op_less = [](const OpRange& a, const OpRange& b) {
    if (a.tid != b.tid) return a.tid < b.tid;
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  };
  if (!std::is_sorted(ops_.begin(), ops_.end(), op_less)) {
    std::sort(ops_.begin(), ops_.end(), op_less);
  }
  auto launch_less = [](const Launch& a, const Launch& b) {
    return a.tid != b.tid ? a.tid < b.tid : a.start_ns < b.start_ns;
  };
  if (!std::is_sorted(launches_.begin(), launches_.end(), launch_less)) {
    std::sort(launches_.begin(), launches_.end(), launch_less);
  }
  std::vector<const OpRange*> open;
  size_t next = 0;
  int64_t tid = -1;
  for (const Launch& l : launches_) {
    if (l.tid != tid) {
      tid = l.tid;
      open.clear();
      while (next < ops_.size() && ops_[next].tid < tid) ++next;
    }
    while (next < ops_.size() && ops_[next].tid == tid && ops_[next].start_ns <= l.start_ns) {
      while (!open.empty() && open.back()->end_ns < ops_[next].start_ns) open.pop_back();
      open.push_back(&ops_[next++]);
    }
    while (!open.empty() && open.back()->end_ns < l.start_ns) open.pop_back();
    if (!open.empty()) launch_op_[l.key] = open.back()->name_id;
  }
  std::vector<OpRange>().swap(ops_);
  std::vector<Launch>().swap(launches_);
}

void NsysConverter::NameHostLines() {
  const bool several = pids_seen_.size() > 1;
  for (auto& [tid, entry] : host_lines_) {
    const int64_t gtid = entry.first;
    std::string name;
    auto name_id = thread_name_ids_.find(gtid);
    if (name_id != thread_name_ids_.end()) name = std::string(String(name_id->second));
    if (name.empty()) name = absl::StrCat("thread ", tid);
    if (several) {
      const int64_t pid = PidOfGlobalId(gtid);
      auto process = process_names_.find(pid);
      name = absl::StrCat(process != process_names_.end() ? process->second : "process", " [",
                          pid, "] ", name);
    }
    entry.second->SetName(absl::StrCat(name, " (", tid, ")"));
  }
}

absl::StatusOr<NsysSummary> NsysConverter::Run() {
  TBPROF_RETURN_IF_ERROR(ReadCommon());
  host_ = builder_.GetOrCreatePlane(xplane::kHostThreadsPlaneName);
  s_correlation_ = host_->GetOrCreateStatMetadata(StatType::kCorrelationId);
  s_is_root_ = host_->GetOrCreateStatMetadata(StatType::kIsRoot);
  s_step_num_ = host_->GetOrCreateStatMetadata(StatType::kStepNum);
  s_tf_op_ = host_->GetOrCreateStatMetadata(StatType::kTfOp);
  TBPROF_RETURN_IF_ERROR(ReadApi("CUPTI_ACTIVITY_KIND_RUNTIME"));
  TBPROF_RETURN_IF_ERROR(ReadApi("CUPTI_ACTIVITY_KIND_DRIVER"));
  TBPROF_RETURN_IF_ERROR(ReadNvtx());
  AttributeLaunchesToOps();
  TBPROF_RETURN_IF_ERROR(ReadGpus());
  TBPROF_RETURN_IF_ERROR(ReadKernels());
  TBPROF_RETURN_IF_ERROR(ReadMemcpys());
  TBPROF_RETURN_IF_ERROR(ReadMemsets());
  TBPROF_RETURN_IF_ERROR(ReadSyncs());
  TBPROF_RETURN_IF_ERROR(ReadGraphTrace());
  NameHostLines();
  FillProcesses();
  AddWarnings();
  xplane::FinalizeOptions finalize;
  finalize.epoch_ns_of_zero = 0;  // Line timestamps are epoch ns.
  summary_.events_moved = builder_.Finalize(finalize).events_moved;
  std::string host = summary_.hostname;
  if (host.empty()) host = "nsys";
  if (options_.pid >= 0 && summary_.processes.size() > 1) {
    absl::StrAppend(&host, "_pid", options_.pid);
  }
  builder_.AddHostname(host);
  return summary_;
}

void NsysConverter::AddWarnings() {
  if (!missing_.empty()) {
    builder_.AddWarning(absl::StrCat(db_->path(), ": columns missing from this export: ",
                                     absl::StrJoin(missing_, "; ")));
  }
  if (!skipped_tables_.empty()) {
    builder_.AddWarning(absl::StrCat(db_->path(), ": tables skipped: ",
                                     absl::StrJoin(skipped_tables_, "; ")));
  }
  if (summary_.rows_bad_time > 0) {
    builder_.AddWarning(absl::StrCat(summary_.rows_bad_time,
                                     " rows with NULL or inverted start/end were skipped"));
  }
  if (kernels_without_props_ > 0) {
    builder_.AddWarning(absl::StrCat(
        kernels_without_props_,
        " kernels ran on GPUs the export has no properties for (no TARGET_INFO_GPU row): their "
        "occupancy (occ_pct) is not computed"));
  }
}

}  // namespace nsys

absl::StatusOr<NsysSummary> ConvertNsysSqliteToXSpace(const std::string& path,
                                                      const NsysOptions& options,
                                                      xplane::XSpaceData* out) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<nsys::NsysDb> db, nsys::NsysDb::Open(path));
  return nsys::NsysConverter(db.get(), options, out).Run();
}

absl::StatusOr<std::vector<NsysProcess>> ListNsysProcesses(const std::string& path) {
  TBPROF_ASSIGN_OR_RETURN(std::unique_ptr<nsys::NsysDb> db, nsys::NsysDb::Open(path));
  xplane::XSpaceData unused;
  nsys::NsysConverter converter(db.get(), NsysOptions(), &unused);
  TBPROF_RETURN_IF_ERROR(converter.ReadCommon());
  TBPROF_RETURN_IF_ERROR(converter.CountProcesses());
  return converter.summary().processes;
}

}  // namespace tbprof::converters
