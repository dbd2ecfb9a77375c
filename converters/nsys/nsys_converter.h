// Internal: the state of one Nsight Systems export -> XSpace conversion,
// shared by nsys_to_xspace.cc (metadata, host threads, NVTX) and
// nsys_device_events.cc (GPU tables). See nsys_to_xspace.h for the mapping.
#ifndef TBPROF_CONVERTERS_NSYS_NSYS_CONVERTER_H_
#define TBPROF_CONVERTERS_NSYS_NSYS_CONVERTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "converters/common/gpu_occupancy.h"
#include "converters/nsys/nsys_db.h"
#include "converters/nsys/nsys_to_xspace.h"
#include "src/xplane/xspace_builder.h"

namespace tbprof::converters::nsys {

class NsysConverter {
 public:
  NsysConverter(NsysDb* db, const NsysOptions& options, xplane::XSpaceData* out)
      : db_(db), options_(options), space_(out), builder_(out) {}
  absl::StatusOr<NsysSummary> Run();

  // Reads metadata, strings, processes and threads only.
  absl::Status ReadCommon();
  // Fills summary().processes with queries of their own (ListNsysProcesses;
  // Run() counts while it reads).
  absl::Status CountProcesses();
  const NsysSummary& summary() const { return summary_; }

 private:
  struct GpuPlane {
    xplane::XPlaneBuilder* plane = nullptr;
    xplane::XPlaneBuilder* annotations = nullptr;  // Syncs, graph launches.
    const GpuDeviceProperties* props = nullptr;
    int64_t device = 0;
    std::map<int64_t, xplane::XLineBuilder*> lines;  // Stream and annotation lines.
    absl::flat_hash_map<int64_t, uint32_t> kernel_metadata;  // StringIds id -> metadata.
    absl::flat_hash_map<std::string, uint32_t> details_metadata;
    absl::flat_hash_map<uint32_t, uint32_t> op_metadata;  // op name id -> stat metadata
    uint32_t correlation = 0, kernel_details = 0, occupancy = 0, memcpy_details = 0,
             memset_details = 0, graph_id = 0, tf_op = 0, a_correlation = 0, a_graph_id = 0;
  };
  // A host event that may enclose CUDA launches (an NVTX op range).
  struct OpRange {
    int64_t tid, start_ns, end_ns;
    uint32_t name_id;  // In space_->strings.
  };
  struct Launch {
    int64_t tid, start_ns;
    uint64_t key;  // CorrelationKey().
  };

  // `column` quoted when `table` has it, else "NULL"; a missing column is
  // recorded with `consequence` for one warning.
  std::string Col(absl::string_view table, absl::string_view column,
                  absl::string_view consequence);
  // Runs SELECT `columns` FROM `table` [WHERE ...] and calls `row` per row.
  template <typename Fn>
  absl::Status ForEachRow(absl::string_view table, const std::vector<std::string>& columns,
                          Fn&& row);
  bool Span(const NsysQuery& q, int start_col, int end_col, int64_t* offset_ps,
            int64_t* duration_ps);
  bool KeepPid(int64_t pid) const { return options_.pid < 0 || pid == options_.pid; }
  // Records that `pid` has events in the XSpace.
  void SeePid(int64_t pid) {
    if (pid == last_seen_pid_) return;
    pids_seen_[pid] = true;
    last_seen_pid_ = pid;
  }
  static uint64_t CorrelationKey(int64_t pid, int64_t correlation) {
    return (static_cast<uint64_t>(pid) << 32) ^ static_cast<uint64_t>(correlation & 0xFFFFFFFF);
  }
  absl::string_view String(int64_t id) const;

  absl::Status ReadMetadata();
  absl::Status ReadStrings();
  absl::Status ReadProcessesAndThreads();
  absl::Status ReadApi(absl::string_view table);
  absl::Status ReadNvtx();
  // The line of host thread `tid` (global id `gtid`), made on first use.
  xplane::XLineBuilder* HostLine(int64_t tid, int64_t gtid);
  void AttributeLaunchesToOps();
  void NameHostLines();
  void FillProcesses();

  absl::Status ReadGpus();
  GpuPlane& Gpu(int64_t device);
  xplane::XLineBuilder* GpuLine(GpuPlane& gp, int64_t stream, int kind);
  void AddOp(GpuPlane& gp, int64_t pid, const NsysQuery& q, int corr_col,
             xplane::XEventBuilder* ev);
  absl::Status ReadKernels();
  absl::Status ReadMemcpys();
  absl::Status ReadMemsets();
  absl::Status ReadSyncs();
  absl::Status ReadGraphTrace();
  // Rows of an annotation table (start, end, deviceId, streamId,
  // correlationId, globalPid and `extra`) on the device's `line_kind` line:
  // annotate(plane, line, offset_ps, duration_ps, extra, correlation) adds
  // the event. A table without start/end/deviceId is skipped with a note.
  template <typename Fn>
  absl::Status ReadAnnotationTable(absl::string_view table, absl::string_view extra,
                                   int line_kind, Fn&& annotate);
  void AddWarnings();

  NsysDb* db_;
  const NsysOptions& options_;
  xplane::XSpaceData* space_;
  xplane::XSpaceBuilder builder_;
  NsysSummary summary_;
  int64_t epoch_ns_ = 0;
  bool has_session_start_ = false;
  absl::flat_hash_map<int64_t, std::string> strings_;
  absl::flat_hash_map<int64_t, std::string> process_names_;  // pid -> name
  absl::flat_hash_map<int64_t, int64_t> thread_name_ids_;    // globalTid -> StringIds id
  std::map<int64_t, int64_t> pid_kernels_;  // pid -> kernels, for every pid that ran CUDA
  int64_t last_api_pid_ = -1;
  std::map<int64_t, bool> pids_seen_;                        // pids with kept events
  int64_t last_seen_pid_ = -1;
  std::vector<std::string> missing_;                         // "table.column (consequence)"
  std::vector<std::string> skipped_tables_;

  xplane::XPlaneBuilder* host_ = nullptr;
  // tid -> (gtid, line); the last one looked up is cached.
  absl::flat_hash_map<int64_t, std::pair<int64_t, xplane::XLineBuilder*>> host_lines_;
  int64_t last_tid_ = -1;
  xplane::XLineBuilder* last_line_ = nullptr;
  uint32_t s_correlation_ = 0, s_is_root_ = 0, s_step_num_ = 0, s_tf_op_ = 0;
  absl::flat_hash_map<int64_t, uint32_t> api_metadata_;  // StringIds id -> metadata
  std::vector<OpRange> ops_;                             // NVTX op ranges
  std::vector<Launch> launches_;                         // API calls with correlation
  std::vector<uint32_t> tf_op_of_metadata_;              // host event metadata -> tf_op ref
  absl::flat_hash_map<uint64_t, uint32_t> launch_op_;    // correlation key -> op name id

  std::vector<GpuDeviceProperties> props_;
  std::map<int64_t, GpuPlane> gpus_;
  int64_t kernels_without_props_ = 0;
  std::string details_;
};

template <typename Fn>
absl::Status NsysConverter::ForEachRow(absl::string_view table,
                                       const std::vector<std::string>& columns, Fn&& row) {
  std::string sql = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += columns[i];
  }
  sql += " FROM \"";
  sql.append(table.data(), table.size());
  sql += "\"";
  absl::StatusOr<NsysQuery> q = db_->Query(sql, table);
  if (!q.ok()) return q.status();
  while (true) {
    absl::StatusOr<bool> more = q->Next();
    if (!more.ok()) return more.status();
    if (!*more) return absl::OkStatus();
    row(*q);
  }
}

}  // namespace tbprof::converters::nsys

#endif  // TBPROF_CONVERTERS_NSYS_NSYS_CONVERTER_H_
