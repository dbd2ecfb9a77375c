#include "converters/nsys/nsys_test_db.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gtest/gtest.h"
#include "tests/temp_path_test_util.h"

namespace tbprof::converters::nsys_test {

std::string SchemaSql() {
  return R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,
  name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  computeMajor INTEGER, computeMinor INTEGER, smCount INTEGER, maxThreadsPerBlock INTEGER,
  maxWarpsPerSm INTEGER, threadsPerWarp INTEGER, maxRegistersPerBlock INTEGER,
  maxRegistersPerSm INTEGER, maxShmemPerBlock INTEGER, maxShmemPerSm INTEGER,
  maxShmemPerBlockOptin INTEGER, totalMemory INTEGER, clockRate INTEGER,
  memoryBandwidth INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER,
  returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
  mangledName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER,
  staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, graphNodeId INTEGER,
  graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER, bytes INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,
  end INTEGER NOT NULL, deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, graphId INTEGER, graphExecId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
)sql";
}

std::string ExampleSql() {
  const int64_t t100 = kPid100 + 101, t200 = kPid200 + 201;
  return absl::StrCat(SchemaSql(), absl::Substitute(R"sql(
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'void k<int>(int)'),
  (3, 'main'), (4, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long)'),
  (5, 'cudaMemcpyAsync_v3020'), (6, 'my_range'), (7, '_Z6scale2Pfi'), (8, 'worker');
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2026.2.1.210'),
  ('EXPORT_SCHEMA_VERSION', '3.25.0');
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ($0, '2023-11-14T22:13:20', '');
INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Host', 'Hostname', 1, 'node7');
INSERT INTO PROCESSES VALUES ($1, 100, 'python3'), ($2, 200, 'python3'), (0, 1, 'systemd');
INSERT INTO ThreadNames VALUES (3, 20, $3), (8, 20, $4);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3', 9, 0, 132, 1024, 64, 32,
  65536, 65536, 49152, 233472, 232448, 85000000000, 1980000000, 3350000000000);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, $3, 7, 1, 0, NULL),
  (3000, 3400, 0, $3, 8, 1, 0, NULL), (5000, 5200, 0, $3, 9, 5, 0, NULL),
  (1000, 1300, 0, $4, 7, 1, 0, NULL), (6000, 5000, 0, $3, 11, 1, 0, NULL);
INSERT INTO NVTX_EVENTS VALUES
  (900, 2000, 59, NULL, NULL, NULL, 'aten::mm, seq = 3, op_id = 17, sizes = [[2, 2]]', $3,
   NULL, NULL, 0),
  (800, 5800, 59, NULL, NULL, NULL, 'ProfilerStep#4', $3, NULL, NULL, 0),
  (2900, 3500, 59, NULL, NULL, NULL, NULL, $3, NULL, 6, 0),
  (950, NULL, 34, NULL, NULL, NULL, 'a mark', $3, NULL, NULL, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000, 2600, 0, 1, 7, 7, $1, 2, 2, 2, 32, 4, 1, 1, 256, 1, 1, 0, 1024, NULL, NULL),
  (3500, 4500, 0, 1, 7, 8, $1, 4, 4, 4, 64, 2, 1, 1, 128, 1, 1, 4096, 0, 3, 5),
  (2100, 2300, 1, 2, 13, 7, $2, NULL, NULL, 7, 16, 1, 1, 1, 32, 1, 1, 0, 0, NULL, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5300, 5400, 0, 7, 9, $1, 4096, 1, 1, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (5500, 5550, 0, 7, NULL, $1, 0, 512, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (5600, 5700, 0, 7, 10, $1, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (3450, 4600, 0, 7, 8, $1, 5, 1);
)sql", kEpochNs, kPid100, kPid200, t100, t200));
}

std::string WriteDb(const std::string& name, const std::string& sql) {
  std::string path = testing_util::TempFilePath(name);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  sqlite3_exec(db, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return path;
}

}  // namespace tbprof::converters::nsys_test
