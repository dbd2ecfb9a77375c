#include "converters/nsys/nsys_to_xspace.h"

#include <sqlite3.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "converters/nsys/nsys_test_db.h"
#include "src/xplane/xspace_schema.h"
#include "src/xplane/xspace_visitor.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::converters {
namespace {

using ::testing::HasSubstr;
using namespace nsys_test;  // NOLINT

struct SeenEvent {
  std::string line, name;
  int64_t begin_ps = 0, duration_ps = 0;
  mutable std::map<std::string, std::string> stats;  // operator[] in checks
};

std::vector<SeenEvent> Events(const xplane::XSpaceData& space, absl::string_view plane_name) {
  std::vector<SeenEvent> out;
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, plane_name);
  if (plane == nullptr) return out;
  xplane::XPlaneVisitor pv(&space, plane, xplane::SpaceBaseNs(space));
  pv.ForEachLine([&](const xplane::XLineVisitor& line) {
    line.ForEachEvent([&](const xplane::XEventVisitor& ev) {
      SeenEvent e;
      e.line = std::string(line.name());
      e.name = std::string(ev.name());
      e.begin_ps = ev.begin_ps();
      e.duration_ps = ev.duration_ps();
      ev.ForEachStat([&](const xplane::XStatVisitor& s) {
        e.stats[std::string(s.name())] = s.ToString();
      });
      out.push_back(e);
    });
  });
  return out;
}

const SeenEvent* Find(const std::vector<SeenEvent>& events, absl::string_view name) {
  for (const SeenEvent& e : events) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

int64_t ProfileStartNs(const xplane::XSpaceData& space) {
  const xplane::Plane* env = xplane::FindPlaneWithName(space, xplane::kTaskEnvPlaneName);
  if (env == nullptr) return -1;
  xplane::XPlaneVisitor pv(&space, env, 0);
  std::optional<xplane::XStatVisitor> s = pv.GetStat(xplane::StatType::kProfileStartTime);
  return s.has_value() ? s->IntValue() : -1;
}

TEST(NsysToXSpaceTest, HostDeviceAndAnnotationEvents) {
  const std::string path = WriteDb("example.sqlite", ExampleSql());
  xplane::XSpaceData space;
  NsysOptions options;
  options.pid = 100;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, options, &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->schema_version, "3.25.0");
  EXPECT_EQ(summary->product_version, "2026.2.1.210");
  EXPECT_EQ(summary->hostname, "node7");
  EXPECT_EQ(summary->kernels, 2);
  EXPECT_EQ(summary->memcpys, 1);
  EXPECT_EQ(summary->memsets, 1);
  EXPECT_EQ(summary->syncs, 1);
  EXPECT_EQ(summary->graph_launches, 1);
  EXPECT_EQ(summary->api_calls, 3);
  EXPECT_EQ(summary->nvtx_ranges, 3);  // The mark is not a range.
  EXPECT_EQ(summary->ops, 1);
  EXPECT_EQ(summary->step_roots, 1);
  EXPECT_EQ(summary->rows_bad_time, 1);  // The inverted runtime row.
  ASSERT_EQ(summary->processes.size(), 2u);
  EXPECT_EQ(summary->processes[0].pid, 100);
  EXPECT_EQ(summary->processes[0].kernels, 2);
  EXPECT_EQ(summary->processes[1].pid, 200);
  ASSERT_EQ(space.hostnames.size(), 1u);
  EXPECT_EQ(space.hostnames[0], "node7_pid100");
  // Absolute times: the earliest event (ProfilerStep#4 at 800 ns).
  EXPECT_EQ(ProfileStartNs(space), kEpochNs + 800);

  std::vector<SeenEvent> host = Events(space, xplane::kHostThreadsPlaneName);
  const SeenEvent* step = Find(host, "ProfilerStep#4");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->line, "main (101)");
  EXPECT_EQ(step->stats["_r"], "1");
  EXPECT_EQ(step->stats["step_num"], "4");
  EXPECT_EQ(step->stats.count("tf_op"), 0u);
  const SeenEvent* mm = Find(host, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->stats["tf_op"], "aten::mm");
  EXPECT_EQ(mm->begin_ps - step->begin_ps, 100000);
  EXPECT_EQ(mm->duration_ps, 1100000);
  ASSERT_NE(Find(host, "my_range"), nullptr);  // Text from StringIds (textId).
  EXPECT_EQ(Find(host, "a mark"), nullptr);
  const SeenEvent* launch = Find(host, "cudaLaunchKernel");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->stats["correlation_id"], "7");
  ASSERT_NE(Find(host, "cudaMemcpyAsync"), nullptr);
  for (const SeenEvent& e : host) EXPECT_NE(e.line, "worker (201)") << "pid 200 filtered out";

  std::vector<SeenEvent> gpu = Events(space, "/device:GPU:0");
  const SeenEvent* k = Find(gpu, "void k<int>(int)");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->line, "Stream #7");
  EXPECT_EQ(k->stats["correlation_id"], "7");
  EXPECT_EQ(k->stats["tf_op"], "aten::mm");
  EXPECT_THAT(k->stats["kernel_details"],
              HasSubstr("regs:32 static_shared:0 dynamic_shared:1024 grid:4,1,1 block:256,1,1 "
                        "occ_pct:"));
  EXPECT_EQ(k->stats.count("theoretical_occupancy_pct"), 1u);
  EXPECT_EQ(k->begin_ps - step->begin_ps, 1200000);
  EXPECT_EQ(k->duration_ps, 600000);
  const SeenEvent* nccl = Find(gpu, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long)");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->stats["tf_op"], "my_range");
  EXPECT_EQ(nccl->stats["cuda_graph_id"], "5");
  const SeenEvent* copy = Find(gpu, "MemcpyHToD");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->stats["memcpy_details"], "num_bytes:4096 kind_src:pageable kind_dst:device");
  const SeenEvent* memset = Find(gpu, "Memset");
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(memset->stats["Memset_details"], "num_bytes:512 kind:device");
  EXPECT_EQ(memset->stats.count("correlation_id"), 0u);
  EXPECT_EQ(Find(gpu, "cuStreamSynchronize"), nullptr);  // Not stream work.

  std::vector<SeenEvent> notes = Events(space, xplane::GpuAnnotationPlaneName(0));
  const SeenEvent* sync = Find(notes, "cuStreamSynchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->line, "CUDA sync (stream 7)");
  const SeenEvent* graph = Find(notes, "CUDA graph 5");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->line, "CUDA graph (stream 7)");
  EXPECT_EQ(graph->stats["correlation_id"], "8");
  EXPECT_EQ(xplane::FindPlaneWithName(space, "/device:GPU:1"), nullptr);

  // Device stats from TARGET_INFO_GPU.
  const xplane::Plane* plane = xplane::FindPlaneWithName(space, "/device:GPU:0");
  xplane::XPlaneVisitor pv(&space, plane, 0);
  std::optional<xplane::XStatVisitor> sms = pv.GetStat(xplane::StatType::kDevCapCoreCount);
  ASSERT_TRUE(sms.has_value());
  EXPECT_EQ(sms->IntOrUintValue(), 132);
}

TEST(NsysToXSpaceTest, AllProcessesOneSpaceWithProcessNamesOnLines) {
  const std::string path = WriteDb("all.sqlite", ExampleSql());
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->kernels, 3);
  EXPECT_EQ(space.hostnames[0], "node7");
  std::vector<SeenEvent> gpu1 = Events(space, "/device:GPU:1");
  const SeenEvent* k = Find(gpu1, "scale2(float*, int)");  // Demangled mangledName.
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->line, "Stream #13");
  // Correlation ids are per process: pid 200's 7 is not pid 100's aten::mm.
  EXPECT_EQ(k->stats.count("tf_op"), 0u);
  EXPECT_THAT(absl::StrJoin(space.warnings, "\n"), HasSubstr("no TARGET_INFO_GPU row"));
  std::vector<SeenEvent> host = Events(space, xplane::kHostThreadsPlaneName);
  bool worker = false;
  for (const SeenEvent& e : host) worker = worker || e.line == "python3 [200] worker (201)";
  EXPECT_TRUE(worker);
}

TEST(NsysToXSpaceTest, LegacySchemaWithoutMetadataOrColumnsWarns) {
  // An export without META_DATA_EXPORT, session start, demangledName, grid
  // or block columns: read what exists, say what is missing.
  const std::string sql = absl::StrCat(R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
  streamId INTEGER, correlationId INTEGER, shortName INTEGER);
INSERT INTO StringIds VALUES (1, 'saxpy');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 30, 0, 7, 1, 1), (40, 45, 0, 7, 2, 1),
  (50, NULL, 0, 7, 3, 1);
)sql");
  const std::string path = WriteDb("legacy.sqlite", sql);
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->kernels, 2);
  EXPECT_EQ(summary->rows_bad_time, 1);
  const std::string warnings = absl::StrJoin(space.warnings, "\n");
  EXPECT_THAT(warnings, HasSubstr("records no schema version"));
  EXPECT_THAT(warnings, HasSubstr("no TARGET_INFO_SESSION_START_TIME"));
  EXPECT_THAT(warnings, HasSubstr("CUPTI_ACTIVITY_KIND_KERNEL.gridX (kernel_details incomplete)"));
  EXPECT_THAT(warnings, HasSubstr("1 rows with NULL or inverted start/end"));
  std::vector<SeenEvent> gpu = Events(space, "/device:GPU:0");
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu[0].name, "saxpy");
  EXPECT_EQ(gpu[0].stats["kernel_details"],
            "regs:0 static_shared:0 dynamic_shared:0 grid:1,1,1 block:1,1,1");
}

TEST(NsysToXSpaceTest, UnknownSchemaVersionWarns) {
  const std::string sql = absl::StrCat(SchemaSql(), R"sql(
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '7.0.1');
)sql");
  xplane::XSpaceData space;
  ASSERT_TRUE(ConvertNsysSqliteToXSpace(WriteDb("v7.sqlite", sql), NsysOptions(), &space).ok());
  EXPECT_THAT(absl::StrJoin(space.warnings, "\n"), HasSubstr("unknown export schema version 7.0.1"));
}

TEST(NsysToXSpaceTest, SqliteThatIsNotAnExport) {
  const std::string path = WriteDb("other.sqlite", "CREATE TABLE t (a INTEGER);");
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(summary.status().message(), HasSubstr(path));
  EXPECT_THAT(summary.status().message(), HasSubstr("not an Nsight Systems export"));
}

TEST(NsysToXSpaceTest, TruncatedDatabaseIsDataLossNamingFileAndTable) {
  const std::string path = WriteDb("whole.sqlite", ExampleSql());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 8192u);
  const std::string cut = testing_util::TempFilePath("cut.sqlite");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), bytes.size() / 2);
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(cut, NsysOptions(), &space);
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr(cut));
  EXPECT_THAT(summary.status().message(), HasSubstr("table "));
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kDataLoss) << summary.status();
}

TEST(NsysToXSpaceTest, NotSqliteAndMissingFile) {
  const std::string text = testing_util::TempFilePath("text.sqlite");
  std::ofstream(text) << std::string(2048, 'x');
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> s = ConvertNsysSqliteToXSpace(text, NsysOptions(), &space);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  EXPECT_THAT(s.status().message(), HasSubstr(text));
  s = ConvertNsysSqliteToXSpace(text + ".none", NsysOptions(), &space);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
}

TEST(NsysToXSpaceTest, LockedDatabaseIsReadAndNeverWritten) {
  const std::string path = WriteDb("locked.sqlite", ExampleSql());
  std::ifstream in(path, std::ios::binary);
  std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  xplane::XSpaceData space;
  absl::StatusOr<NsysSummary> summary = ConvertNsysSqliteToXSpace(path, NsysOptions(), &space);
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->kernels, 3);
  std::ifstream again(path, std::ios::binary);
  std::string after((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  EXPECT_EQ(before, after);
}

TEST(NsysToXSpaceTest, ListProcesses) {
  absl::StatusOr<std::vector<NsysProcess>> processes =
      ListNsysProcesses(WriteDb("list.sqlite", ExampleSql()));
  ASSERT_TRUE(processes.ok()) << processes.status();
  ASSERT_EQ(processes->size(), 2u);
  EXPECT_EQ((*processes)[1].pid, 200);
  EXPECT_EQ((*processes)[1].name, "python3");
  EXPECT_EQ((*processes)[1].kernels, 1);
}

}  // namespace
}  // namespace tbprof::converters
