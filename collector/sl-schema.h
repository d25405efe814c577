/* sl-schema.h: the Nsight Systems SQLite export schema (3.25.0) as Sightline writes it; no GLib. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define SL_SCHEMA_VERSION "3.25.0"
#define SL_SCHEMA_VERSION_MAJOR 3
#define SL_SCHEMA_VERSION_MINOR 25
#define SL_SCHEMA_VERSION_MICRO 0
#define SL_SCHEMA_PRODUCT_NAME "Sightline"
#define SL_SCHEMA_PRODUCT_VERSION "0.1.0"

/* globalTid = <hw:8><vm:8><pid:24><tid:24>; every real export seen has hw 0, vm 1. */
#define SL_GLOBAL_TID(vm, pid, tid)                                                                \
  ((((int64_t)(vm)&0xff) << 48) | (((int64_t)(pid)&0xffffff) << 24) | ((int64_t)(tid)&0xffffff))
#define SL_GLOBAL_PID(vm, pid) SL_GLOBAL_TID (vm, pid, 0)
#define SL_GLOBAL_PID_MASK INT64_C (0xFFFFFFFFFF000000)

/* CUPTI_ACTIVITY_KIND_GRAPH_TRACE as NVIDIA's SQLite export schema reference lists it: one row a
 * CUDA graph launch traced whole (nsys --cuda-graph-trace=graph).  Not made by
 * sl_schema_create(): nsys makes it only when a graph was launched, and so do its writers. */
#define SL_SCHEMA_GRAPH_TRACE_SQL                                                                  \
  "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (\n"                                               \
  "  start                            INTEGER  NOT NULL,\n"                                        \
  "  end                              INTEGER  NOT NULL,\n"                                        \
  "  deviceId                         INTEGER  NOT NULL,\n"                                        \
  "  contextId                        INTEGER  NOT NULL,\n"                                        \
  "  greenContextId                   INTEGER,\n"                                                  \
  "  streamId                         INTEGER  NOT NULL,\n"                                        \
  "  correlationId                    INTEGER,\n"                                                  \
  "  globalPid                        INTEGER,\n"                                                  \
  "  graphId                          INTEGER  NOT NULL,\n"                                        \
  "  graphExecId                      INTEGER  NOT NULL\n"                                         \
  ")"

/* GPU memory allocated and freed (nsys --cuda-memory-usage), nsys 2024.2's columns up to
 * correlationId; memKind ENUM_CUDA_MEM_KIND, memoryOperationType ENUM_CUDA_DEV_MEM_EVENT_OPER. */
#define SL_SCHEMA_CUDA_GPU_MEMORY_USAGE_SQL                                                        \
  "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (\n"                                                  \
  "  start                            INTEGER  NOT NULL,\n"                                        \
  "  globalPid                        INTEGER  NOT NULL,\n"                                        \
  "  deviceId                         INTEGER  NOT NULL,\n"                                        \
  "  contextId                        INTEGER  NOT NULL,\n"                                        \
  "  address                          INTEGER  NOT NULL,\n"                                        \
  "  pc                               INTEGER  NOT NULL,\n"                                        \
  "  bytes                            INTEGER  NOT NULL,\n"                                        \
  "  memKind                          INTEGER  NOT NULL,\n"                                        \
  "  memoryOperationType              INTEGER  NOT NULL,\n"                                        \
  "  name                             TEXT,\n"                                                     \
  "  correlationId                    INTEGER\n"                                                   \
  ")"

/* Unified memory's CPU page faults (nsys --cuda-um-cpu-page-faults), as NVIDIA's SQLite export
 * schema reference lists them: one row a fault, at the faulting page's address; CpuInstruction
 * (StringIds) names the instruction that faulted, module its ELF object, unresolved 1 where no
 * symbol was found (then CpuInstruction is its address in hex); sourceFile and sourceLine, which
 * nsys fills from debug information when asked, are NULL.  Made, as nsys makes it, only when a
 * fault came. */
#define SL_SCHEMA_CUDA_UM_CPU_PAGE_FAULT_SQL                                                       \
  "CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (\n"                                                 \
  "  start                            INTEGER  NOT NULL,\n"                                        \
  "  globalPid                        INTEGER  NOT NULL,\n"                                        \
  "  address                          INTEGER  NOT NULL,\n"                                        \
  "  originalFaultPc                  INTEGER,\n"                                                  \
  "  CpuInstruction                   INTEGER,\n"                                                  \
  "  module                           INTEGER,\n"                                                  \
  "  unresolved                       INTEGER,\n"                                                  \
  "  sourceFile                       INTEGER,\n"                                                  \
  "  sourceLine                       INTEGER\n"                                                   \
  ")"

/* Unified memory's GPU page faults (nsys --cuda-um-gpu-page-faults): one row a group of faults
 * on one page (numberOfPageFaults of them), from the driver's start of their handling to the
 * replay of the faulting accesses; faultAccessType ENUM_CUDA_UNIF_MEM_ACCESS_TYPE.  Made only
 * when a fault came. */
#define SL_SCHEMA_CUDA_UM_GPU_PAGE_FAULT_SQL                                                       \
  "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (\n"                                                 \
  "  start                            INTEGER  NOT NULL,\n"                                        \
  "  end                              INTEGER  NOT NULL,\n"                                        \
  "  globalPid                        INTEGER  NOT NULL,\n"                                        \
  "  deviceId                         INTEGER  NOT NULL,\n"                                        \
  "  address                          INTEGER  NOT NULL,\n"                                        \
  "  numberOfPageFaults               INTEGER  NOT NULL,\n"                                        \
  "  faultAccessType                  INTEGER  NOT NULL\n"                                         \
  ")"

/* GPU metrics (nsys --gpu-metrics-devices; sightline record --gpu-metrics) as NVIDIA's SQLite
 * export schema reference (3.28) lists them: TARGET_INFO_GPU_METRICS names each GPU's metrics
 * (typeId = <hw:8><vm:8><source:16><type:32>, the GPU the type's low byte), GPU_METRICS holds one
 * row per metric per sample, its value an integer.  Made only when a sample came. */
#define SL_SCHEMA_TARGET_INFO_GPU_METRICS_SQL                                                      \
  "CREATE TABLE TARGET_INFO_GPU_METRICS (\n"                                                       \
  "  typeId                           INTEGER  NOT NULL,\n"                                        \
  "  sourceId                         INTEGER  NOT NULL,\n"                                        \
  "  typeName                         TEXT     NOT NULL,\n"                                        \
  "  metricId                         INTEGER  NOT NULL,\n"                                        \
  "  metricName                       TEXT     NOT NULL\n"                                         \
  ")"
#define SL_SCHEMA_GPU_METRICS_SQL                                                                  \
  "CREATE TABLE GPU_METRICS (\n"                                                                   \
  "  rawTimestamp                     INTEGER  NOT NULL,\n"                                        \
  "  timestamp                        INTEGER  NOT NULL,\n"                                        \
  "  typeId                           INTEGER  NOT NULL,\n"                                        \
  "  metricId                         INTEGER  NOT NULL,\n"                                        \
  "  value                            INTEGER  NOT NULL\n"                                         \
  ")"

/* CUPTI_ACTIVITY_KIND_CUDA_EVENT as nsys 2025.5 (schema 3.24) writes it: one row a
 * cudaEventRecord; eventSyncId ties it to the CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows that
 * waited for it.  Made, as nsys makes it, only when an event was recorded. */
#define SL_SCHEMA_CUDA_EVENT_SQL                                                                   \
  "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (\n"                                                \
  "  timestamp                        INTEGER,\n"                                                  \
  "  deviceId                         INTEGER  NOT NULL,\n"                                        \
  "  contextId                        INTEGER  NOT NULL,\n"                                        \
  "  greenContextId                   INTEGER,\n"                                                  \
  "  streamId                         INTEGER  NOT NULL,\n"                                        \
  "  correlationId                    INTEGER,\n"                                                  \
  "  globalPid                        INTEGER,\n"                                                  \
  "  eventId                          INTEGER  NOT NULL,\n"                                        \
  "  eventSyncId                      INTEGER\n"                                                   \
  ")"

/* DIAGNOSTIC_EVENT as NVIDIA's SQLite export schema reference lists it: what the collection says
 * about itself (CUPTI refused a kind, graph launches lost their exec ids).  Made only when there
 * is something to say, as nsys does. */
#define SL_SCHEMA_DIAGNOSTIC_EVENT_SQL                                                             \
  "CREATE TABLE DIAGNOSTIC_EVENT (\n"                                                              \
  "  timestamp                        INTEGER  NOT NULL,\n"                                        \
  "  timestampType                    INTEGER  NOT NULL,\n"                                        \
  "  source                           INTEGER  NOT NULL,\n"                                        \
  "  severity                         INTEGER  NOT NULL,\n"                                        \
  "  text                             TEXT     NOT NULL,\n"                                        \
  "  globalPid                        INTEGER\n"                                                   \
  ")"

/* CUDA API calls' backtraces (nsys --cudabacktrace), one row per frame, leaf first; a
 * CUPTI_ACTIVITY_KIND_RUNTIME row's callchainId names its id.  Made only by the writers that have
 * some, as nsys does. */
#define SL_SCHEMA_CUDA_CALLCHAINS_SQL                                                              \
  "CREATE TABLE CUDA_CALLCHAINS (\n"                                                              \
  "  id                               INTEGER  NOT NULL,\n"                                        \
  "  symbol                           INTEGER  NOT NULL,\n"                                        \
  "  module                           INTEGER  NOT NULL,\n"                                        \
  "  unresolved                       INTEGER,\n"                                                  \
  "  originalIP                       INTEGER,\n"                                                  \
  "  stackDepth                       INTEGER  NOT NULL,\n"                                        \
  "  PRIMARY KEY (id, stackDepth)\n"                                                           \
  ")"

/* "None" in streamId / eventId columns of CUPTI_ACTIVITY_KIND_SYNCHRONIZATION. */
#define SL_SCHEMA_ID_NONE INT64_C (4294967295)

  /* ENUM_NSYS_EVENT_CLASS */
  enum
  {
    SL_EVENT_CLASS_CUDA_RUNTIME = 0,
    SL_EVENT_CLASS_CUDA_DRIVER = 1,
    SL_EVENT_CLASS_OS_RUNTIME = 27,
  };

  /* ENUM_NSYS_EVENT_TYPE, the NVTX part */
  enum
  {
    SL_EVENT_TYPE_NVTX_MARK = 34,
    SL_EVENT_TYPE_NVTX_PUSH_RANGE = 35,
    SL_EVENT_TYPE_NVTX_POP_RANGE = 36,
    SL_EVENT_TYPE_NVTX_START_RANGE = 37,
    SL_EVENT_TYPE_NVTX_END_RANGE = 38,
    SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE = 59,
    SL_EVENT_TYPE_NVTX_START_END_RANGE = 60,
    SL_EVENT_TYPE_NVTX_DOMAIN_CREATE = 75,
  };

  /* ENUM_CUDA_MEMCPY_OPER */
  enum
  {
    SL_MEMCPY_UNKNOWN = 0,
    SL_MEMCPY_HTOD = 1,
    SL_MEMCPY_DTOH = 2,
    SL_MEMCPY_DTOD = 8,
    SL_MEMCPY_HTOH = 9,
    SL_MEMCPY_PTOP = 10,
    SL_MEMCPY_UVM_HTOD = 11, /* unified memory's migrations */
    SL_MEMCPY_UVM_DTOH = 12,
  };

  /* ENUM_CUDA_MEM_KIND */
  enum
  {
    SL_MEM_KIND_PAGEABLE = 0,
    SL_MEM_KIND_PINNED = 1,
    SL_MEM_KIND_DEVICE = 2,
    SL_MEM_KIND_ARRAY = 3,
    SL_MEM_KIND_MANAGED = 4,
    SL_MEM_KIND_DEVICE_STATIC = 5,
    SL_MEM_KIND_MANAGED_STATIC = 6,
    SL_MEM_KIND_UNKNOWN = 7,
  };

  /* ENUM_CUDA_DEV_MEM_EVENT_OPER: CUDA_GPU_MEMORY_USAGE_EVENTS.memoryOperationType */
  enum
  {
    SL_MEM_OPER_ALLOCATION = 0,
    SL_MEM_OPER_DEALLOCATION = 1,
  };

  /* GPU_METRICS.metricId: the metrics nsys samples on a Hopper-class GPU, in its order and by
   * its names (sl_schema_gpu_metric_name); a GPU that lacks one has no rows of it */
  enum
  {
    SL_GPU_METRIC_GPC_CLOCK,
    SL_GPU_METRIC_SYS_CLOCK,
    SL_GPU_METRIC_GR_ACTIVE,
    SL_GPU_METRIC_SYNC_COMPUTE,
    SL_GPU_METRIC_ASYNC_COMPUTE,
    SL_GPU_METRIC_SMS_ACTIVE,
    SL_GPU_METRIC_SM_ISSUE,
    SL_GPU_METRIC_TENSOR_ACTIVE,
    SL_GPU_METRIC_WARPS_IN_FLIGHT,
    SL_GPU_METRIC_UNALLOCATED_WARPS,
    SL_GPU_METRIC_DRAM_READ,
    SL_GPU_METRIC_DRAM_WRITE,
    SL_GPU_METRIC_PCIE_RX,
    SL_GPU_METRIC_PCIE_TX,
    SL_GPU_METRIC_PCIE_BAR1_READS,
    SL_GPU_METRIC_PCIE_BAR1_WRITES,
    SL_GPU_METRIC_NVLINK_RX,
    SL_GPU_METRIC_NVLINK_TX,
    SL_GPU_METRIC_N
  };

  /* GPU_METRICS' sourceId and typeId's event tag, as sightline-gen writes them */
#define SL_GPU_METRICS_SOURCE 2
#define SL_GPU_METRICS_TAG    1

  /* ENUM_CUPTI_SYNC_TYPE */
  enum
  {
    SL_SYNC_UNKNOWN = 0,
    SL_SYNC_EVENT = 1,
    SL_SYNC_STREAM_WAIT_EVENT = 2,
    SL_SYNC_STREAM = 3,
    SL_SYNC_CONTEXT = 4,
  };

  /* ENUM_CUDA_KERNEL_LAUNCH_TYPE */
  enum
  {
    SL_LAUNCH_TYPE_UNKNOWN = 0,
    SL_LAUNCH_TYPE_REGULAR = 1,
  };

  /* ENUM_CUPTI_STREAM_TYPE */
  enum
  {
    SL_STREAM_TYPE_UNKNOWN = 0,
    SL_STREAM_TYPE_DEFAULT = 1,
    SL_STREAM_TYPE_NON_BLOCKING = 2,
    SL_STREAM_TYPE_NULL = 3,
  };

  /* ENUM_SAMPLING_THREAD_STATE */
  enum
  {
    SL_THREAD_STATE_UNKNOWN = 0,
    SL_THREAD_STATE_RUNNING = 1,
    SL_THREAD_STATE_WAITING = 7,
    SL_THREAD_STATE_OS_RUNTIME = 8,
  };

  /* ENUM_STACK_UNWIND_METHOD */
  enum
  {
    SL_UNWIND_FRAME_POINTER = 1,
    SL_UNWIND_TABLE = 2,
  };

  typedef struct
  {
    const char *name; /* table name, e.g. "CUPTI_ACTIVITY_KIND_KERNEL" */
    const char *sql;  /* its CREATE TABLE statement */
  } SlSchemaTable;

  typedef struct
  {
    int64_t id;
    const char *name;
    const char *label;
  } SlSchemaEnumValue;

  typedef struct
  {
    const char *table; /* e.g. "ENUM_CUDA_MEMCPY_OPER" */
    const SlSchemaEnumValue *values;
    size_t n_values;
  } SlSchemaEnum;

  /* The event and information tables, in creation order (ENUM_* tables not included). */
  const SlSchemaTable *sl_schema_get_tables (size_t *n_tables);

  /* The ENUM_* tables and their rows, as a 3.25.0 export has them. */
  const SlSchemaEnum *sl_schema_get_enums (size_t *n_enums);

  /* Creates every table of sl_schema_get_tables() and every ENUM_* table with its rows in @db, plus
   * the META_DATA_EXPORT rows that say Sightline wrote the file in schema 3.25.0.  All or nothing
   * (runs inside a savepoint, so it also works inside the caller's transaction).  On failure
   * returns false and, if @errmsg is not NULL, sets it to a message to be freed with
   * sqlite3_free(). */
  bool sl_schema_create (sqlite3 *db, char **errmsg);

  /* TARGET_INFO_GPU_METRICS.metricName of SL_GPU_METRIC_* `id` ("SMs Active [Throughput %]");
   * NULL for any other id. */
  const char *sl_schema_gpu_metric_name (unsigned id);

  /* The MPI tables (nsys -t mpi, NVIDIA's "SQLite Export Schema Reference"; model/sl-reader-mpi.c
   * reads them), in this order: MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS,
   * MPI_OTHER_EVENTS, MPI_RANKS, MPI_COMMUNICATORS.  Not made by sl_schema_create(): nsys has them
   * only when it traced MPI.  One "CREATE TABLE IF NOT EXISTS" statement each: the daemon makes
   * each with its first row, sightline-gen and `sightline export` all six. */
#define SL_SCHEMA_N_MPI_TABLES 6
  extern const char *const sl_schema_mpi_sql[SL_SCHEMA_N_MPI_TABLES];

  /* Adds a name/value row to META_DATA_EXPORT or META_DATA_CAPTURE (@table). */
  bool sl_schema_add_meta (
      sqlite3 *db, const char *table, const char *name, const char *value, char **errmsg);

#ifdef __cplusplus
}
#endif
