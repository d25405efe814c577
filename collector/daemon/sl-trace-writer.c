/* sl-trace-writer.c: wire records → nsys-schema rows, committed in batches.
 *
 * The daemon's writer thread calls this for every record and commits about every 100 ms, so the
 * file on disk is a whole, openable trace after each commit (rollback journal: a writer killed
 * mid-commit leaves a hot journal that SQLite rolls back on the next read-write open).
 * Typical load: 10^5 … 2·10^6 records a second; rows go through prepared statements, strings are
 * interned once in StringIds through a hash table.
 *
 * CPU samples' call chains: each distinct chain is written once, to SIGHTLINE_CHAIN_FRAMES, and
 * each sample names its chain in SIGHTLINE_SAMPLE_CHAINS; sl_trace_writer_finish() expands them
 * into SAMPLING_CALLCHAINS (a row per sample and frame, as nsys has it) with one INSERT … SELECT
 * and drops them.  A file read before that (the live view), or left so by a daemon that died,
 * has the side tables, which the model reads (model/sl-reader-host.c).  Writing a 40-frame
 * sample's rows one by one cost the daemon ≈ 80 µs, on a busy machine taken from the target.
 */
#include "sl-trace-writer.h"
#include "sl-chains.h"
#include "sl-python.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sl-daemon-private.h"
#include "sl-demangle.h"
#include "sl-schema.h"
#include "sl-symbols.h"

#define VM_ID 1
#define NO_ID INT64_C (4294967295)

/* ---- string interning: open addressing, FNV-1a ---- */
typedef struct
{
  char    *s;
  uint32_t hash;
  int64_t  id;
} StrSlot;

typedef struct
{
  StrSlot *slots;
  size_t   cap, n;
} StrTable;

static uint32_t
fnv1a (const char *s)
{
  uint32_t h = 2166136261u;

  for (; *s != '\0'; s++)
    h = (h ^ (uint8_t) *s) * 16777619u;
  return h;
}

/* ---- per-process state ---- */
typedef struct
{
  uint64_t start;
  int64_t  text_id;
  uint32_t color, category;
  int      has_color;
  int64_t  domain_id;
} OpenRange;

typedef struct
{
  uint32_t   tid;
  OpenRange *stack;
  size_t     depth, cap;
} ThreadStack;

typedef struct
{
  uint64_t  range_id;
  uint32_t  tid;
  OpenRange r;
} StartedRange;

typedef struct
{
  uint64_t handle;
  int64_t  id;
} Domain;

typedef struct
{
  int32_t       pid;
  char         *name;
  char         *label; /* what it runs, from its Python stack: "multiprocessing: f", … */
  ThreadStack  *threads;
  size_t        n_threads, cap_threads;
  StartedRange *started;
  size_t        n_started, cap_started;
  Domain       *domains;
  size_t        n_domains, cap_domains;
  uint64_t      last_time;
  bool          hello;
  bool          listed;    /* has its PROCESSES and SL_PROCESS_INFO rows */
  uint32_t      native_gen; /* its MODULE records so far: native frames named before the
                             * last one may have changed */
  uint32_t      py_gen;     /* its PYCODE records so far: the same for Python frames (a
                             * worker describes code objects as its samples first meet them) */
  uint64_t      info_time; /* when what they say was true (HELLO or /proc) */
  int32_t       ppid;      /* its HELLO's parent: a forked child describes no code object its
                            * parent had (sl-inject-python.c), python_frame() asks the parent */
  bool          has_mpi_rank; /* its MPI_COMM_WORLD rank came (SL_WIRE_MPI_COMM) */
  int32_t       mpi_rank;
  uint32_t     *mpi_tids;     /* threads with an MPI_RANKS row */
  size_t        n_mpi_tids, cap_mpi_tids;
} Process;

/* A stack waiting for its symbols: a CPU sample's, an OS runtime call's backtrace (`chain` is
 * then its OSRT_CALLCHAINS id) or a CUDA call's (`cuda`: its CUDA_CALLCHAINS id). */
typedef struct
{
  int32_t  pid;
  uint32_t tid;
  uint64_t time;
  uint32_t state;
  uint32_t n_frames;
  size_t   first_frame;
  int64_t  chain;
  bool     cuda;
} PendingSample;

/* A CUDA call's backtrace and its CUPTI_ACTIVITY_KIND_RUNTIME row meet by (process, event class,
 * correlation id): the backtrace comes first from the calling thread as a rule, the row from
 * CUPTI's buffers up to a second later; when the row came first, its rowid waits here for an
 * UPDATE.  Direct-mapped, SL_CUDA_LINKS slots (1 MiB): a slot taken again before its pair came
 * (more than that many calls in flight) loses only that call's link. */
#define SL_CUDA_LINKS 32768
typedef struct
{
  int32_t  pid;
  uint32_t correlation;
  uint32_t event_class;
  uint32_t pad;
  int64_t  chain; /* CUDA_CALLCHAINS id waiting for its row; 0: none */
  int64_t  rowid; /* a row waiting for its backtrace; 0: none */
} CudaLink;

/* An OpenMP region's code address and its name's StringIds id (omp_region_name()) */
typedef struct
{
  int32_t  pid;
  uint64_t codeptr;
  int64_t  name;
} OmpName;

enum
{
  ST_STRING,
  ST_THREAD_NAME,
  ST_THREAD_RENAME,
  ST_PROCESS,
  ST_OSRT,
  ST_NVTX,
  ST_SAMPLE,
  ST_SAMPLE_CHAIN,
  ST_CHAIN_FRAME,
  ST_OSRT_CHAIN,
  ST_SCHED,
  ST_PROCESS_INFO,
  ST_PROCESS_EXEC,
  ST_PROCESS_EXEC_NAME,
  ST_PROCESS_LABEL,
  ST_API,
  ST_KERNEL,
  ST_MEMCPY,
  ST_MEMSET,
  ST_SYNC,
  ST_GPU,
  ST_CONTEXT,
  ST_STREAM,
  ST_DROPPED,
  ST_ANALYSIS,
  N_STMTS,
  /* tables nsys makes only when it has a row for them: created, and their statement prepared,
   * on the first such row (lazy_stmt) */
  ST_CUDA_EVENT = N_STMTS,
  ST_GRAPH,
  ST_CUDA_CHAIN,
  ST_API_CHAIN,
  ST_DIAGNOSTIC,
  ST_MEMORY_USAGE,
  ST_UM_MIGRATION, /* into CUPTI_ACTIVITY_KIND_MEMCPY, which is always there */
  ST_UM_CPU_FAULT,
  ST_UM_GPU_FAULT,
  ST_GPU_METRIC_INFO,
  ST_GPU_METRIC,
  ST_MPI_P2P,
  ST_MPI_COLL,
  ST_MPI_WAIT,
  ST_MPI_OTHER,
  ST_MPI_RANKS,
  ST_MPI_COMM,
  ST_OMP_PARALLEL,
  ST_OMP_TASK,
  N_ALL_STMTS
};

static const char *const stmt_sql[N_ALL_STMTS] = {
  [ST_STRING] = "INSERT INTO StringIds (id, value) VALUES (?, ?)",
  [ST_THREAD_NAME] = "INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES (?, 0, ?)",
  [ST_THREAD_RENAME] = "UPDATE ThreadNames SET nameId = ? WHERE globalTid = ?",
  [ST_PROCESS] = "INSERT INTO PROCESSES (globalPid, pid, name) VALUES (?, ?, ?)",
  [ST_OSRT] = "INSERT INTO OSRT_API (start, end, eventClass, globalTid, nameId, returnValue, "
              "nestingLevel, callchainId, argumentsId) VALUES (?, ?, 27, ?, ?, ?, 0, ?, 0)",
  [ST_NVTX] = "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, "
              "globalTid, endGlobalTid, textId, domainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_SAMPLE] = "INSERT INTO COMPOSITE_EVENTS (id, start, cpu, threadState, globalTid, cpuCycles) "
                "VALUES (?, ?, NULL, ?, ?, 0)",
  [ST_SAMPLE_CHAIN] = "INSERT INTO SIGHTLINE_SAMPLE_CHAINS (sampleId, chainId) VALUES (?, ?)",
  [ST_CHAIN_FRAME] = "INSERT INTO SIGHTLINE_CHAIN_FRAMES (chainId, stackDepth, symbol, module, "
                     "unresolved, originalIP, unwindMethod) VALUES (?, ?, ?, ?, ?, ?, ?)",
  [ST_OSRT_CHAIN] = "INSERT INTO OSRT_CALLCHAINS (id, stackDepth, symbol, module, unresolved, "
                    "originalIP, unwindMethod, kernelMode, thumbCode, specialEntry) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0)",
  [ST_SCHED] = "INSERT INTO SCHED_EVENTS (start, cpu, isSchedIn, globalTid, threadState, "
               "threadBlock) VALUES (?, ?, ?, ?, ?, NULL)",
  [ST_PROCESS_INFO] = "INSERT INTO SL_PROCESS_INFO (globalPid, pid, parentPid, commandLine) "
                      "VALUES (?, ?, ?, ?)",
  [ST_PROCESS_EXEC] = "UPDATE SL_PROCESS_INFO SET commandLine = ?, parentPid = ? "
                      "WHERE globalPid = ?",
  [ST_PROCESS_EXEC_NAME] = "UPDATE PROCESSES SET name = ? WHERE globalPid = ?",
  [ST_PROCESS_LABEL] = "UPDATE PROCESSES SET name = name || ' (' || ? || ')' WHERE globalPid = ?",
  [ST_API] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
             "correlationId, nameId, returnValue, callchainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, demangledName, shortName, "
                "mangledName, launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, "
                "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
                "localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, "
                "graphNodeId, graphId, clusterX, clusterY, clusterZ, tensorSizeMinusOneElements) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, '[]')",
  [ST_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
                "dstKind, srcDeviceId, srcContextId, dstDeviceId, dstContextId) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, value, bytes, memKind) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
  [ST_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, "
              "greenContextId, streamId, correlationId, globalPid, syncType, eventId, eventSyncId) "
              "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
  [ST_GPU] = "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, l2CacheSize, "
             "totalMemory, memoryBandwidth, clockRate, smCount, uuid, cuDevice, "
             "maxRegistersPerBlock, maxShmemPerBlock, maxShmemPerBlockOptin, maxShmemPerSm, "
             "maxRegistersPerSm, threadsPerWarp, asyncEngines, maxWarpsPerSm, maxBlocksPerSm, "
             "maxThreadsPerBlock, maxBlockDimX, maxBlockDimY, maxBlockDimZ, maxGridDimX, "
             "maxGridDimY, maxGridDimZ, computeMajor, computeMinor, smMajor, smMinor) "
             "VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
             "?, ?, ?, ?, ?, ?, ?)",
  [ST_CONTEXT] = "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId, hwId, vmId, processId, "
                 "deviceId, contextId, parentContextId, isGreenContext) "
                 "VALUES (?, 0, 1, ?, ?, ?, 0, 0)",
  [ST_STREAM] = "INSERT INTO TARGET_INFO_CUDA_STREAM (streamId, hwId, vmId, processId, contextId, "
                "priority, flag) VALUES (?, 0, 1, ?, ?, ?, ?)",
  [ST_DROPPED] = "INSERT INTO SIGHTLINE_DROPPED_RECORDS (time, globalPid, source, count) "
                 "VALUES (?, ?, ?, ?)",
  [ST_ANALYSIS] = "INSERT OR REPLACE INTO ANALYSIS_DETAILS (rowid, globalVid, duration, startTime, "
                  "stopTime) VALUES (1, ?, ?, ?, ?)",
  [ST_CUDA_EVENT] = "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp, deviceId, contextId, "
                    "greenContextId, streamId, correlationId, globalPid, eventId, eventSyncId) "
                    "VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?)",
  [ST_GRAPH] = "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start, end, deviceId, contextId, "
               "greenContextId, streamId, correlationId, globalPid, graphId, graphExecId) "
               "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
  /* the columns in frame_row()'s order (it binds a 7th, unwindMethod, that this table lacks) */
  [ST_CUDA_CHAIN] = "INSERT INTO CUDA_CALLCHAINS (id, stackDepth, symbol, module, unresolved, "
                    "originalIP) VALUES (?, ?, ?, ?, ?, ?)",
  [ST_API_CHAIN] = "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = ? WHERE rowid = ?",
  /* timestampType 0 as the export writes it; source 1: the injection library (nsys's
   * ENUM_DIAGNOSTIC_SOURCE_TYPE) */
  [ST_DIAGNOSTIC] = "INSERT INTO DIAGNOSTIC_EVENT (timestamp, timestampType, source, severity, "
                    "text, globalPid) VALUES (?, 0, 1, ?, ?, ?)",
  [ST_MEMORY_USAGE] = "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, "
                      "contextId, address, pc, bytes, memKind, memoryOperationType, name, "
                      "correlationId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  /* as nsys 2023+ writes a migration: no context, stream or call (0), memory kinds Unknown (7),
   * no source or destination device or context (NULL); the cause and the pages' address */
  [ST_UM_MIGRATION] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                      "greenContextId, streamId, correlationId, globalPid, bytes, copyKind, "
                      "srcKind, dstKind, migrationCause, virtualAddress) "
                      "VALUES (?, ?, ?, 0, NULL, 0, 0, ?, ?, ?, 7, 7, ?, ?)",
  [ST_UM_CPU_FAULT] = "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS (start, globalPid, address, "
                      "originalFaultPc, CpuInstruction, module, unresolved, sourceFile, "
                      "sourceLine) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
  [ST_UM_GPU_FAULT] = "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS (start, end, globalPid, deviceId, "
                      "address, numberOfPageFaults, faultAccessType) VALUES (?, ?, ?, ?, ?, ?, ?)",
  [ST_GPU_METRIC_INFO] = "INSERT INTO TARGET_INFO_GPU_METRICS (typeId, sourceId, typeName, "
                         "metricId, metricName) VALUES (?, ?, ?, ?, ?)",
  [ST_GPU_METRIC] = "INSERT INTO GPU_METRICS (rawTimestamp, timestamp, typeId, metricId, value) "
                    "VALUES (?, ?, ?, ?, ?)",
  [ST_MPI_P2P] = "INSERT INTO MPI_P2P_EVENTS (start, end, globalTid, textId, commHandle, tag, "
                 "remoteRank, size, requestHandle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_MPI_COLL] = "INSERT INTO MPI_COLLECTIVES_EVENTS (start, end, globalTid, textId, commHandle, "
                  "rootRank, size, recvSize, requestHandle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_MPI_WAIT] = "INSERT INTO MPI_START_WAIT_EVENTS (start, end, globalTid, textId, "
                  "requestHandle) VALUES (?, ?, ?, ?, ?)",
  [ST_MPI_OTHER] = "INSERT INTO MPI_OTHER_EVENTS (start, end, globalTid, textId) "
                   "VALUES (?, ?, ?, ?)",
  [ST_MPI_RANKS] = "INSERT INTO MPI_RANKS (globalTid, rank) VALUES (?, ?)",
  [ST_MPI_COMM] = "INSERT INTO MPI_COMMUNICATORS (rank, timestamp, commHandle, parentHandle, "
                  "localRank, size, groupRoot, groupRootUid, members, commUid) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
  /* eventClass 78: TRACE_PROCESS_EVENT_OPENMP; eventKind 28: OPENMP_EVENT_KIND_PARALLEL, 31:
   * OPENMP_EVENT_KIND_TASK (kind 2: ompt_task_implicit) */
  [ST_OMP_PARALLEL] = "INSERT INTO OPENMP_EVENT_KIND_PARALLEL (start, end, eventClass, globalTid, "
                      "correlationId, nameId, eventKind, parallelId, parentTaskId) "
                      "VALUES (?, ?, 78, ?, 0, ?, 28, ?, ?)",
  [ST_OMP_TASK] = "INSERT INTO OPENMP_EVENT_KIND_TASK (start, end, eventClass, globalTid, "
                  "correlationId, nameId, eventKind, parallelId, taskId, kind) "
                  "VALUES (?, ?, 78, ?, 0, ?, 31, ?, ?, 2)",
};

/* OPENMP_EVENT_KIND_PARALLEL and _TASK as NVIDIA documents them (/tmp/openmp-schema.sql of the
 * issue: the columns every OPENMP_EVENT_KIND_* table starts with, then the table's own) */
#define OMP_EVENT_COLUMNS                                                                          \
  "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "                    \
  "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, eventKind INTEGER"
static const char omp_parallel_sql[] = "CREATE TABLE OPENMP_EVENT_KIND_PARALLEL ("
                                       OMP_EVENT_COLUMNS ", parallelId INTEGER, "
                                       "parentTaskId INTEGER)";
static const char omp_task_sql[] = "CREATE TABLE OPENMP_EVENT_KIND_TASK (" OMP_EVENT_COLUMNS
                                   ", parallelId INTEGER, taskId INTEGER, kind INTEGER)";

/* SlMpiFunc's names, as the program called them */
static const char *const mpi_names[SL_MPI_N_FUNCS] = {
  [SL_MPI_SEND] = "MPI_Send",
  [SL_MPI_SSEND] = "MPI_Ssend",
  [SL_MPI_RSEND] = "MPI_Rsend",
  [SL_MPI_BSEND] = "MPI_Bsend",
  [SL_MPI_ISEND] = "MPI_Isend",
  [SL_MPI_ISSEND] = "MPI_Issend",
  [SL_MPI_RECV] = "MPI_Recv",
  [SL_MPI_IRECV] = "MPI_Irecv",
  [SL_MPI_SENDRECV] = "MPI_Sendrecv",
  [SL_MPI_BARRIER] = "MPI_Barrier",
  [SL_MPI_BCAST] = "MPI_Bcast",
  [SL_MPI_REDUCE] = "MPI_Reduce",
  [SL_MPI_ALLREDUCE] = "MPI_Allreduce",
  [SL_MPI_GATHER] = "MPI_Gather",
  [SL_MPI_ALLGATHER] = "MPI_Allgather",
  [SL_MPI_SCATTER] = "MPI_Scatter",
  [SL_MPI_ALLTOALL] = "MPI_Alltoall",
  [SL_MPI_REDUCE_SCATTER] = "MPI_Reduce_scatter",
  [SL_MPI_SCAN] = "MPI_Scan",
  [SL_MPI_IBARRIER] = "MPI_Ibarrier",
  [SL_MPI_IBCAST] = "MPI_Ibcast",
  [SL_MPI_IALLREDUCE] = "MPI_Iallreduce",
  [SL_MPI_WAIT] = "MPI_Wait",
  [SL_MPI_WAITALL] = "MPI_Waitall",
  [SL_MPI_WAITANY] = "MPI_Waitany",
  [SL_MPI_TEST] = "MPI_Test",
  [SL_MPI_TESTALL] = "MPI_Testall",
  [SL_MPI_INIT] = "MPI_Init",
  [SL_MPI_INIT_THREAD] = "MPI_Init_thread",
  [SL_MPI_FINALIZE] = "MPI_Finalize",
  [SL_MPI_COMM_RANK] = "MPI_Comm_rank",
  [SL_MPI_COMM_SIZE] = "MPI_Comm_size",
  [SL_MPI_COMM_DUP] = "MPI_Comm_dup",
  [SL_MPI_COMM_SPLIT] = "MPI_Comm_split",
  [SL_MPI_COMM_FREE] = "MPI_Comm_free",
};

struct _SlTraceWriter
{
  sqlite3       *db;
  char          *path;
  sqlite3_stmt  *stmts[N_ALL_STMTS];
  StrTable       strings;
  int64_t        next_string;
  Process       *procs;
  size_t         n_procs, cap_procs;
  int64_t       *named;      /* globalTids that have a ThreadNames row */
  uint64_t      *named_time; /* when that name was given */
  size_t         n_named, cap_named, cap_named_time;
  PendingSample *samples;
  size_t         n_samples, cap_samples;
  uint64_t      *frames;
  size_t         n_frames, cap_frames;
  int64_t        next_sample_id;
  int64_t        next_osrt_chain; /* OSRT_CALLCHAINS ids from 1; OSRT_API.callchainId 0: none */
  int64_t        next_chain;      /* SIGHTLINE_CHAIN_FRAMES ids from 1 */
  int64_t        next_cuda_chain; /* CUDA_CALLCHAINS ids from 1 */
  CudaLink      *cuda_links;      /* SL_CUDA_LINKS, made with the first backtrace */
  SlFrameNames   frame_names;     /* (pid, address) → names, each looked up once */
  SlChains       chains;          /* chains written, by hash */
  SlSymbolizer  *symbols;
  SlPyCodes     *py_codes;
  uint64_t       n_py_unread[3]; /* samples whose Python stack the library could not read, by why:
                                  * SL_DROP_PYTHON, _TORN, _CODE */
  uint64_t       n_graph_exec_lost; /* graph launches written with graphExecId 0 for want of room
                                     * in the library's table (SL_DROP_GRAPH_EXEC) */
  bool           in_tx;
  uint64_t       t_min, t_max;
  uint64_t       from_ns, to_ns;
  uint64_t       n_events, n_dropped, n_bad;
  uint64_t       n_committed; /* n_events at the last commit: a rolled-back batch is not in */
  int64_t        osrt_name[SL_OSRT_N_FUNCS]; /* StringIds of the OS runtime names, 0: not yet */
  int64_t        mpi_name[SL_MPI_N_FUNCS];   /* the same for MPI's */
  OmpName       *omp_names;
  size_t         n_omp_names, cap_omp_names;
  int64_t       *kernel_names; /* by the mangled name's string id: demangled id, short id */
  size_t         cap_kernel_names;
  uint64_t       gpu_metrics_named[256]; /* by GPU: the SL_GPU_METRIC_* bits named in
                                          * TARGET_INFO_GPU_METRICS */
  int64_t        session_start; /* TARGET_INFO_SESSION_START_TIME.systemClockNs: time 0 */
  uint64_t       keep_ns;       /* --keep-last: the window kept; 0: everything */
  uint64_t       chunk_ns;      /* what the window's start moves by (see prune()) */
  uint64_t       cut;           /* events that ended before it are gone; 0: none yet */
  uint64_t       max_size;      /* --max-size in bytes; 0: none */
  uint32_t       size_due;      /* records until the size is looked at inside a commit */
  char          *stop_reason;   /* --max-size stopped the recording: why, for a person */
};

bool
_sl_grow (void  **p,
          size_t *cap,
          size_t  need,
          size_t  elem)
{
  if (need <= *cap)
    return true;
  size_t c = *cap ? *cap : 16;
  while (c < need)
    c *= 2;
  void *q = realloc (*p, c * elem);
  if (q == NULL)
    return false;
  *p = q;
  *cap = c;
  return true;
}

static char *
fmt (const char *format,
     ...) __attribute__ ((format (printf, 1, 2)));

static char *
fmt (const char *format,
     ...)
{
  va_list ap;
  char *s = NULL;

  va_start (ap, format);
  if (vasprintf (&s, format, ap) < 0)
    s = NULL;
  va_end (ap);
  return s;
}

static inline int64_t
gtid (int32_t  pid,
      uint32_t tid)
{
  return SL_GLOBAL_TID (VM_ID, pid, tid);
}

static inline int64_t
gpid (int32_t pid)
{
  return SL_GLOBAL_PID (VM_ID, pid);
}

/* A string's StringIds id, inserting it the first time.  Invalid UTF-8 is kept as it is: the
 * reader replaces it when it displays it. */
static int64_t
intern (SlTraceWriter *w,
        const char    *s)
{
  StrTable *t = &w->strings;
  uint32_t h;
  size_t i;

  if (s == NULL)
    s = "";
  if (t->n * 2 >= t->cap)
    {
      size_t cap = t->cap ? t->cap * 2 : 1024;
      StrSlot *slots = calloc (cap, sizeof *slots);
      if (slots == NULL)
        return 0;
      for (size_t k = 0; k < t->cap; k++)
        if (t->slots[k].s != NULL)
          {
            size_t j = t->slots[k].hash & (cap - 1);
            while (slots[j].s != NULL)
              j = (j + 1) & (cap - 1);
            slots[j] = t->slots[k];
          }
      free (t->slots);
      t->slots = slots;
      t->cap = cap;
    }
  h = fnv1a (s);
  for (i = h & (t->cap - 1); t->slots[i].s != NULL; i = (i + 1) & (t->cap - 1))
    if (t->slots[i].hash == h && strcmp (t->slots[i].s, s) == 0)
      return t->slots[i].id;
  t->slots[i].s = strdup (s);
  t->slots[i].hash = h;
  t->slots[i].id = w->next_string++;
  t->n++;
  sqlite3_stmt *st = w->stmts[ST_STRING];
  sqlite3_bind_int64 (st, 1, t->slots[i].id);
  sqlite3_bind_text (st, 2, s, -1, SQLITE_STATIC);
  sqlite3_step (st);
  sqlite3_reset (st);
  return t->slots[i].id;
}

static Process *
process_get (SlTraceWriter *w,
             int32_t        pid)
{
  for (size_t i = 0; i < w->n_procs; i++)
    if (w->procs[i].pid == pid)
      return &w->procs[i];
  if (!_sl_grow ((void **) &w->procs, &w->cap_procs, w->n_procs + 1, sizeof (Process)))
    return NULL;
  Process *p = &w->procs[w->n_procs++];
  memset (p, 0, sizeof *p);
  p->pid = pid;
  return p;
}

static ThreadStack *
thread_get (Process  *p,
            uint32_t  tid)
{
  for (size_t i = 0; i < p->n_threads; i++)
    if (p->threads[i].tid == tid)
      return &p->threads[i];
  if (!_sl_grow ((void **) &p->threads, &p->cap_threads, p->n_threads + 1, sizeof (ThreadStack)))
    return NULL;
  ThreadStack *t = &p->threads[p->n_threads++];
  memset (t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

/* Why writing `path` failed, when a file-size limit or a full disk may be why ("" otherwise):
 * SQLite says only "disk I/O error" for EFBIG, and its errno is gone by the time COMMIT fails. */
static const char *
write_limit_reason (const char *path)
{
  static __thread char reason[128];
  struct rlimit rl;
  struct statvfs fs;

  if (getrlimit (RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    {
      /* a write past it fails, and SQLite may leave the file shorter than what it tried */
      snprintf (reason, sizeof reason,
                ": the daemon's file-size limit (ulimit -f) is %" PRIu64 " KiB",
                (uint64_t) rl.rlim_cur / 1024);
      return reason;
    }
  if (statvfs (path, &fs) == 0 && (uint64_t) fs.f_bavail * fs.f_frsize < 65536 * 16)
    return ": the disk is full";
  return "";
}

static bool
exec_sql (SlTraceWriter *w,
          const char    *sql,
          char         **error)
{
  char *msg = NULL;

  if (sqlite3_exec (w->db, sql, NULL, NULL, &msg) == SQLITE_OK)
    return true;
  if (error != NULL)
    *error = fmt ("%s: %s%s", w->path, msg != NULL ? msg : sqlite3_errmsg (w->db),
                  write_limit_reason (w->path));
  sqlite3_free (msg);
  return false;
}

/* Steps an INSERT into an event table; the row counts as an event only once SQLite took it, so
 * that the summary's count is the rows of the event tables in the file. */
static void
step_event (SlTraceWriter *w,
            sqlite3_stmt  *st)
{
  if (sqlite3_step (st) == SQLITE_DONE)
    w->n_events++;
  sqlite3_reset (st);
}

static bool
begin_tx (SlTraceWriter *w)
{
  if (w->in_tx)
    return true;
  w->in_tx = sqlite3_exec (w->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
  return w->in_tx;
}

/* The session's start as nsys writes it: the wall clock now (utcEpochNs, and as text), and now
 * on the trace's clock (CLOCK_MONOTONIC, systemClockNs): before any event of the recording. */
static void
session_start_time (SlTraceWriter *w)
{
  struct timespec m0, real, m1;
  char sql[320], utc[40] = "", local[40] = "";
  struct tm tm;

  clock_gettime (CLOCK_MONOTONIC, &m0);
  clock_gettime (CLOCK_REALTIME, &real);
  clock_gettime (CLOCK_MONOTONIC, &m1);
  int64_t mono = ((int64_t) m0.tv_sec * 1000000000 + m0.tv_nsec
                  + (int64_t) m1.tv_sec * 1000000000 + m1.tv_nsec) / 2;
  if (gmtime_r (&real.tv_sec, &tm) != NULL)
    strftime (utc, sizeof utc, "%Y-%m-%dT%H:%M:%S", &tm);
  if (localtime_r (&real.tv_sec, &tm) != NULL)
    strftime (local, sizeof local, "%Y-%m-%dT%H:%M:%S", &tm);
  w->session_start = mono;
  snprintf (sql, sizeof sql,
            "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs, utcTime, localTime, "
            "systemClockNs) VALUES (%" PRId64 ", '%s.%09ldZ', '%s', %" PRId64 ")",
            (int64_t) real.tv_sec * 1000000000 + real.tv_nsec, utc, (long) real.tv_nsec, local,
            mono);
  sqlite3_exec (w->db, sql, NULL, NULL, NULL);
}

SlTraceWriter *
sl_trace_writer_open (const char *path,
                      bool        force,
                      char      **error)
{
  SlTraceWriter *w;
  char *msg = NULL;
  struct stat st;

  if (!force && lstat (path, &st) == 0)
    {
      *error = fmt ("%s: already exists (use --force to overwrite it)", path);
      return NULL;
    }
  if (force)
    unlink (path);
  w = calloc (1, sizeof *w);
  if (w == NULL)
    {
      *error = fmt ("%s: out of memory", path);
      return NULL;
    }
  w->path = strdup (path);
  w->next_string = 1;
  w->next_sample_id = 1;
  w->next_osrt_chain = 1;
  w->next_chain = 1;
  w->next_cuda_chain = 1;
  w->t_min = UINT64_MAX;
  /* NOMUTEX: a writer is used by one thread at a time (the session's, then its writer thread),
   * and SQLite's own lock around every bind and step was an eighth of the daemon's profile */
  if (sqlite3_open_v2 (path, &w->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE
                         | SQLITE_OPEN_NOMUTEX,
                       NULL) != SQLITE_OK)
    {
      *error = fmt ("%s: cannot create: %s", path,
                    w->db ? sqlite3_errmsg (w->db) : "out of memory");
      goto fail;
    }
  /* a live view reads while we write: wait for its shared lock at commit rather than fail */
  sqlite3_busy_timeout (w->db, 10000);
  /* the file is whole after each commit; losing the last batch to a power cut is acceptable.
   * temp_store: an INSERT into a table with a key keeps a statement journal of the pages it
   * touches; on disk (the default) one 64 KiB page is past its 64 KiB spill, so every such row
   * created, wrote and deleted a temporary file (stat of each temp dir, open, unlink): a quarter
   * of the daemon's profile in one perf --call-graph dwarf run under bench-pytorch.  Those
   * journals hold one statement's pages: memory is the place for them.  page_size before
   * cache_size: set after it, the 64 MiB became 65536 pages of 64 KiB (SQLite 3.40), and the
   * daemon held the whole file in its cache (220 MB a minute at 100 k events/s). */
  if (!exec_sql (w, "PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; "
                    "PRAGMA page_size = 65536; PRAGMA cache_size = -65536; "
                    "PRAGMA temp_store = MEMORY",
                 error))
    goto fail;
  if (!exec_sql (w, "BEGIN", error))
    goto fail;
  if (!sl_schema_create (w->db, &msg))
    {
      *error = fmt ("%s: cannot create the schema: %s%s", path, msg ? msg : "?",
                    write_limit_reason (path));
      sqlite3_free (msg);
      goto fail;
    }
  /* what nsys has no table for lives in SIGHTLINE_* tables */
  if (!exec_sql (w, "CREATE TABLE SIGHTLINE_DROPPED_RECORDS (\n"
                    "  time                             INTEGER  NOT NULL,\n"
                    "  globalPid                        INTEGER  NOT NULL,\n"
                    "  source                           TEXT     NOT NULL,\n"
                    "  count                            INTEGER  NOT NULL\n"
                    ")",
                 error)
      /* nsys records no command line nor parent: every process of the recording, from the
       * library's HELLO (commandLine: /proc/PID/cmdline, NULs as spaces) */
      || !exec_sql (w, "CREATE TABLE SL_PROCESS_INFO (\n"
                       "  globalPid                        INTEGER  NOT NULL,\n"
                       "  pid                              INTEGER  NOT NULL,\n"
                       "  parentPid                        INTEGER,\n"
                       "  commandLine                      TEXT,\n"
                       /* from RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK (the
                        * library's HELLO); NULL when none */
                       "  rank                             INTEGER\n"
                       ")",
                    error)
      /* CPU samples' call chains until the end of the recording (see the head of the file):
       * each distinct chain's frames, as SAMPLING_CALLCHAINS has them; each sample's chain */
      || !exec_sql (w, "CREATE TABLE SIGHTLINE_CHAIN_FRAMES (\n"
                       "  chainId                          INTEGER  NOT NULL,\n"
                       "  stackDepth                       INTEGER  NOT NULL,\n"
                       "  symbol                           INTEGER  NOT NULL,\n"
                       "  module                           INTEGER  NOT NULL,\n"
                       "  unresolved                       INTEGER,\n"
                       "  originalIP                       INTEGER,\n"
                       "  unwindMethod                     INTEGER,\n"
                       "  PRIMARY KEY (chainId, stackDepth)\n"
                       ") WITHOUT ROWID",
                    error)
      || !exec_sql (w, "CREATE TABLE SIGHTLINE_SAMPLE_CHAINS (\n"
                       "  sampleId                         INTEGER  NOT NULL PRIMARY KEY,\n"
                       "  chainId                          INTEGER  NOT NULL\n"
                       ")",
                    error)
      || !exec_sql (w, "COMMIT", error))
    goto fail;
  for (int i = 0; i < N_STMTS; i++)
    if (sqlite3_prepare_v3 (w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->stmts[i], NULL)
        != SQLITE_OK)
      {
        *error = fmt ("%s: cannot prepare (%s): %s", path, stmt_sql[i], sqlite3_errmsg (w->db));
        goto fail;
      }
  session_start_time (w);
  w->symbols = sl_symbolizer_new ();
  return w;

fail:
  for (int i = 0; i < N_STMTS; i++)
    sqlite3_finalize (w->stmts[i]);
  sqlite3_close (w->db);
  free (w->path);
  free (w);
  return NULL;
}

void
sl_trace_writer_add_meta (SlTraceWriter *w,
                          const char    *name,
                          const char    *value)
{
  sl_schema_add_meta (w->db, "META_DATA_CAPTURE", name, value, NULL);
}

void
sl_trace_writer_set_window (SlTraceWriter *w,
                            uint64_t       from_ns,
                            uint64_t       to_ns)
{
  w->from_ns = from_ns;
  w->to_ns = to_ns;
}

static void
seen_time (SlTraceWriter *w,
           Process       *p,
           uint64_t       a,
           uint64_t       b)
{
  if (a < w->t_min)
    w->t_min = a;
  if (b > w->t_max)
    w->t_max = b;
  if (p != NULL && b > p->last_time)
    p->last_time = b;
}

/* Checks that the text after `fixed` bytes is NUL-terminated inside the record. */
static const char *
record_text (const SlWireHeader *h,
             size_t              fixed)
{
  const char *s = (const char *) h + fixed;

  if (h->size <= fixed || memchr (s, '\0', h->size - fixed) == NULL)
    return NULL;
  return s;
}

/* A thread's name.  Records of different threads arrive in any order (each thread has its own
 * ring), so the name given last (by time) wins, whoever sent it. */
static void
thread_name (SlTraceWriter *w,
             int32_t        pid,
             uint32_t       tid,
             uint64_t       time,
             const char    *name)
{
  int64_t g = gtid (pid, tid);
  size_t i;

  for (i = 0; i < w->n_named; i++)
    if (w->named[i] == g)
      break;
  if (i < w->n_named && time < w->named_time[i])
    return;
  int64_t id = intern (w, name);
  sqlite3_stmt *st = w->stmts[i < w->n_named ? ST_THREAD_RENAME : ST_THREAD_NAME];
  if (i == w->n_named)
    {
      if (!_sl_grow ((void **) &w->named, &w->cap_named, w->n_named + 1, sizeof (int64_t))
          || !_sl_grow ((void **) &w->named_time, &w->cap_named_time, w->n_named + 1,
                    sizeof (uint64_t)))
        return;
      w->named[w->n_named++] = g;
    }
  w->named_time[i] = time;
  sqlite3_bind_int64 (st, 1, id);
  sqlite3_bind_int64 (st, 2, g);
  sqlite3_step (st);
  sqlite3_reset (st);
}

static void
nvtx_row (SlTraceWriter   *w,
          int32_t          pid,
          uint32_t         tid,
          uint32_t         end_tid,
          int              type,
          uint64_t         start,
          const uint64_t  *end,
          const OpenRange *r)
{
  sqlite3_stmt *st = w->stmts[ST_NVTX];

  sqlite3_bind_int64 (st, 1, (int64_t) start);
  if (end != NULL)
    sqlite3_bind_int64 (st, 2, (int64_t) *end);
  else
    sqlite3_bind_null (st, 2);
  sqlite3_bind_int (st, 3, type);
  sqlite3_bind_null (st, 4);
  if (r->category != 0)
    sqlite3_bind_int64 (st, 5, r->category);
  else
    sqlite3_bind_null (st, 5);
  if (r->has_color)
    sqlite3_bind_int64 (st, 6, r->color);
  else
    sqlite3_bind_null (st, 6);
  sqlite3_bind_int64 (st, 7, gtid (pid, tid));
  if (type == SL_EVENT_TYPE_NVTX_START_END_RANGE)
    sqlite3_bind_int64 (st, 8, gtid (pid, end_tid));
  else
    sqlite3_bind_null (st, 8);
  sqlite3_bind_int64 (st, 9, r->text_id);
  sqlite3_bind_int64 (st, 10, r->domain_id);
  step_event (w, st);
}

static int64_t
domain_id (Process  *p,
           uint64_t handle,
           bool     create)
{
  if (handle == 0)
    return 0;
  for (size_t i = 0; i < p->n_domains; i++)
    if (p->domains[i].handle == handle)
      return p->domains[i].id;
  if (!create || !_sl_grow ((void **) &p->domains, &p->cap_domains, p->n_domains + 1, sizeof (Domain)))
    return 0;
  p->domains[p->n_domains] = (Domain) { handle, (int64_t) p->n_domains + 1 };
  return p->domains[p->n_domains++].id;
}

static bool
add_nvtx (SlTraceWriter      *w,
          Process            *p,
          const SlWireHeader *h)
{
  const SlWireNvtx *n = (const SlWireNvtx *) h;
  const char *text = record_text (h, sizeof *n);
  OpenRange r = { n->time_ns, 0, n->color, n->category, n->has_color != 0, 0 };
  ThreadStack *t;

  if (text == NULL)
    return false;
  r.domain_id = domain_id (p, n->domain, n->op == SL_NVTX_DOMAIN_CREATE);
  switch (n->op)
    {
    case SL_NVTX_MARK:
      r.text_id = intern (w, text);
      seen_time (w, p, n->time_ns, n->time_ns);
      nvtx_row (w, p->pid, h->tid, h->tid, SL_EVENT_TYPE_NVTX_MARK, n->time_ns, NULL, &r);
      return true;
    case SL_NVTX_DOMAIN_CREATE:
      r.text_id = intern (w, text);
      nvtx_row (w, p->pid, h->tid, h->tid, SL_EVENT_TYPE_NVTX_DOMAIN_CREATE, n->time_ns, NULL, &r);
      return true;
    case SL_NVTX_PUSH:
      t = thread_get (p, h->tid);
      if (t == NULL || !_sl_grow ((void **) &t->stack, &t->cap, t->depth + 1, sizeof (OpenRange)))
        return false;
      r.text_id = intern (w, text);
      t->stack[t->depth++] = r;
      return true;
    case SL_NVTX_POP:
      t = thread_get (p, h->tid);
      if (t == NULL || t->depth == 0)
        return false; /* a pop without a push: nvtx itself ignores it */
      t->depth--;
      seen_time (w, p, t->stack[t->depth].start, n->time_ns);
      nvtx_row (w, p->pid, h->tid, h->tid, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE,
                t->stack[t->depth].start, &n->time_ns, &t->stack[t->depth]);
      return true;
    case SL_NVTX_START:
      if (!_sl_grow ((void **) &p->started, &p->cap_started, p->n_started + 1, sizeof (StartedRange)))
        return false;
      r.text_id = intern (w, text);
      p->started[p->n_started++] = (StartedRange) { n->range_id, h->tid, r };
      return true;
    case SL_NVTX_END:
      for (size_t i = p->n_started; i-- > 0;)
        if (p->started[i].range_id == n->range_id)
          {
            StartedRange s = p->started[i];
            p->started[i] = p->started[--p->n_started];
            seen_time (w, p, s.r.start, n->time_ns);
            nvtx_row (w, p->pid, s.tid, h->tid, SL_EVENT_TYPE_NVTX_START_END_RANGE, s.r.start,
                      &n->time_ns, &s.r);
            return true;
          }
      return false;
    case SL_NVTX_THREAD_NAME:
      thread_name (w, p->pid, (uint32_t) n->range_id, n->time_ns, text);
      return true;
    default:
      return false;
    }
}

static bool
add_sample (SlTraceWriter      *w,
            Process            *p,
            const SlWireHeader *h)
{
  const SlWireSample *s = (const SlWireSample *) h;
  const uint64_t *frames = (const uint64_t *) (s + 1);

  if (s->n_frames > SL_WIRE_MAX_FRAMES || sizeof *s + s->n_frames * 8u > h->size)
    return false;
  if (!_sl_grow ((void **) &w->samples, &w->cap_samples, w->n_samples + 1, sizeof (PendingSample))
      || !_sl_grow ((void **) &w->frames, &w->cap_frames, w->n_frames + s->n_frames, sizeof (uint64_t)))
    return false;
  w->samples[w->n_samples++] = (PendingSample) { p->pid, h->tid, s->time_ns, s->thread_state,
                                                  s->n_frames, w->n_frames, 0, false };
  if (s->n_frames > 0)   /* a sample without a stack: `w->frames` may still be NULL */
    memcpy (w->frames + w->n_frames, frames, s->n_frames * 8u);
  w->n_frames += s->n_frames;
  seen_time (w, p, s->time_ns, s->time_ns);
  return true;
}

/* An OS runtime call's backtrace (frame 0: the function's entry, then return addresses), to be
 * written with the samples at commit; returns its OSRT_CALLCHAINS id, 0 when there is none. */
static int64_t
add_osrt_chain (SlTraceWriter      *w,
                Process            *p,
                const SlWireHeader *h)
{
  const SlWireOsrt *o = (const SlWireOsrt *) h;

  if (o->n_frames == 0 || o->n_frames > SL_WIRE_MAX_FRAMES
      || sizeof *o + o->n_frames * 8u > h->size)
    return 0;
  if (!_sl_grow ((void **) &w->samples, &w->cap_samples, w->n_samples + 1, sizeof (PendingSample))
      || !_sl_grow ((void **) &w->frames, &w->cap_frames, w->n_frames + o->n_frames, sizeof (uint64_t)))
    return 0;
  int64_t chain = w->next_osrt_chain++;
  w->samples[w->n_samples++] = (PendingSample) { p->pid, h->tid, o->start_ns, 0, o->n_frames,
                                                  w->n_frames, chain, false };
  memcpy (w->frames + w->n_frames, o + 1, o->n_frames * 8u);
  w->n_frames += o->n_frames;
  return chain;
}

static sqlite3_stmt *lazy_stmt (SlTraceWriter *w, int stmt, const char *create_sql);

static CudaLink *
cuda_link (SlTraceWriter *w,
           int32_t        pid,
           uint32_t       event_class,
           uint32_t       correlation)
{
  if (w->cuda_links == NULL)
    return NULL;
  uint32_t h = (correlation * 2654435761u) ^ ((uint32_t) pid * 40503u) ^ event_class;
  return &w->cuda_links[h % SL_CUDA_LINKS];
}

static bool
cuda_link_is (const CudaLink *l,
              int32_t         pid,
              uint32_t        event_class,
              uint32_t        correlation)
{
  return l->pid == pid && l->event_class == event_class && l->correlation == correlation;
}

/* A CUDA call's backtrace (nsys --cudabacktrace): its frames to be written with the samples at
 * commit into CUDA_CALLCHAINS under a new id, which its CUPTI_ACTIVITY_KIND_RUNTIME row names:
 * the row to come is bound to it (add_gpu_record), a row already written is updated. */
static bool
add_cuda_backtrace (SlTraceWriter      *w,
                    Process            *p,
                    const SlWireHeader *h)
{
  const SlWireCudaBacktrace *b = (const SlWireCudaBacktrace *) h;

  if (b->n_frames == 0 || b->n_frames > SL_WIRE_MAX_FRAMES
      || sizeof *b + b->n_frames * 8u > h->size)
    return false;
  if (w->cuda_links == NULL && (w->cuda_links = calloc (SL_CUDA_LINKS, sizeof (CudaLink))) == NULL)
    return false;
  if (!_sl_grow ((void **) &w->samples, &w->cap_samples, w->n_samples + 1, sizeof (PendingSample))
      || !_sl_grow ((void **) &w->frames, &w->cap_frames, w->n_frames + b->n_frames,
                    sizeof (uint64_t)))
    return false;
  int64_t chain = w->next_cuda_chain++;
  w->samples[w->n_samples++] = (PendingSample) { p->pid, h->tid, b->time_ns, 0, b->n_frames,
                                                  w->n_frames, chain, true };
  memcpy (w->frames + w->n_frames, b + 1, b->n_frames * 8u);
  w->n_frames += b->n_frames;

  CudaLink *l = cuda_link (w, p->pid, b->event_class, b->correlation_id);
  if (cuda_link_is (l, p->pid, b->event_class, b->correlation_id) && l->rowid != 0)
    {
      sqlite3_stmt *st = lazy_stmt (w, ST_API_CHAIN, NULL);
      if (st != NULL)
        {
          sqlite3_bind_int64 (st, 1, chain);
          sqlite3_bind_int64 (st, 2, l->rowid);
          sqlite3_step (st);
          sqlite3_reset (st);
        }
      *l = (CudaLink) { 0 };
    }
  else
    *l = (CudaLink) { p->pid, b->correlation_id, b->event_class, 0, chain, 0 };
  return true;
}

/* A Python frame as SAMPLING_CALLCHAINS / OSRT_CALLCHAINS has it: symbol the function's qualified
 * name, module "file.py:line" (the file as the interpreter knows it).  nsys's own Python
 * backtraces are CUDA-API-only; this keeps the call tree's symbol/module columns meaningful. */
static bool
python_frame (SlTraceWriter *w,
              int32_t        pid,
              uint64_t       addr,
              char          *where,
              size_t         max,
              const char   **sym,
              const char   **mod,
              const char   **file)
{
  int line;
  bool found = sl_py_codes_lookup (w->py_codes, pid, addr, sym, file, &line);

  /* a forked child's code objects from before the fork were described by its parent (or the
   * parent's parent: a worker's worker) */
  for (int up = 0; !found && up < 4; up++)
    {
      int32_t ppid = 0;
      for (size_t i = 0; i < w->n_procs && ppid == 0; i++)
        if (w->procs[i].pid == pid)
          ppid = w->procs[i].ppid;
      if (ppid <= 0 || ppid == pid)
        break;
      pid = ppid;
      found = sl_py_codes_lookup (w->py_codes, pid, addr, sym, file, &line);
    }
  snprintf (where, max, "%s:%d", *file, line);
  *mod = where;
  return found;
}

/* Samples and backtraces are symbolized at commit: by then the module records of the same flush
 * are in. */
static bool
ends_with (const char *s,
           const char *tail)
{
  size_t n = strlen (s), m = strlen (tail);

  return n >= m && strcmp (s + n - m, tail) == 0;
}

static void process_label (SlTraceWriter *w, int32_t pid, const char *label);

/* What a process runs, told by a Python frame (`callee`: the Python function it called, NULL for
 * none yet): a multiprocessing child by its target (BaseProcess.run calls it), a PyTorch
 * DataLoader worker by _worker_loop.  NULL when the frame says nothing. */
static const char *
python_role (const char *sym,
             const char *file,
             const char *callee,
             char       *buf,
             size_t      max)
{
  if (strcmp (sym, "_worker_loop") == 0 && ends_with (file, "torch/utils/data/_utils/worker.py"))
    return "DataLoader worker";
  /* (before 3.11 code objects have no qualified name: "run") */
  if (callee != NULL && (strcmp (sym, "BaseProcess.run") == 0 || strcmp (sym, "run") == 0)
      && ends_with (file, "multiprocessing/process.py"))
    {
      snprintf (buf, max, "multiprocessing: %s", callee);
      return buf;
    }
  return NULL;
}

/* A frame of a stack, named: what its SAMPLING_CALLCHAINS / OSRT_CALLCHAINS row holds, and for a
 * Python frame what the process-role test reads. */
typedef struct
{
  int64_t     symbol, module;
  bool        found, python;
  const char *py_name, *py_file;
} NamedFrame;

/* Frame `k` of a stack of process `pid` (at generation `gen` of its kind of frame) named: from
 * the cache, else looked up and interned once (≈ 3,600 distinct (process, address) pairs in the
 * 200,000 frames of a 5-second PyTorch recording). */
static void
name_frame (SlTraceWriter *w,
            int32_t        pid,
            uint32_t       gen,
            uint64_t       addr,
            uint32_t       k,
            NamedFrame    *out)
{
  bool python = (addr & SL_WIRE_PYFRAME_BIT) != 0, fresh = true;
  /* frame 0 is exact: the interrupted instruction, or the called function */
  SlFrameName scratch = { 0 };
  SlFrameName *e = sl_frame_names_get (&w->frame_names, pid, addr, k == 0 && !python, gen, &fresh);

  if (e == NULL)
    e = &scratch; /* out of memory: named, not kept */
  if (fresh)
    {
      const char *sym = NULL, *mod = NULL, *file = NULL;
      char where[1100];
      e->python = python;
      if (python)
        {
          e->found = python_frame (w, pid, addr, where, sizeof where, &sym, &mod, &file);
          e->py_name = sym;
          e->py_file = file;
        }
      else
        e->found = sl_symbolizer_lookup_frame (w->symbols, pid, addr, k == 0, &sym, &mod);
      e->symbol = intern (w, sym);
      e->module = intern (w, mod);
    }
  *out = (NamedFrame) { e->symbol, e->module, e->found, e->python, e->py_name, e->py_file };
}

/* What a stack's Python frames (leaf first) say its process runs, or NULL: the first frame that
 * tells, given the Python function it called. */
static const char *
stack_role (const NamedFrame *f,
            uint32_t          n,
            char             *buf,
            size_t            max)
{
  char callee[256] = "";

  for (uint32_t k = 0; k < n; k++)
    if (f[k].python && f[k].found)
      {
        const char *role = python_role (f[k].py_name, f[k].py_file,
                                        callee[0] != '\0' ? callee : NULL, buf, max);
        if (role != NULL)
          return role;
        snprintf (callee, sizeof callee, "%s", f[k].py_name);
      }
  return NULL;
}

/* A frame's row of SIGHTLINE_CHAIN_FRAMES or OSRT_CALLCHAINS (the same columns, in that order
 * after the id). */
static void
frame_row (sqlite3_stmt     *st,
           int64_t           id,
           uint32_t          k,
           uint64_t          addr,
           const NamedFrame *f)
{
  sqlite3_bind_int64 (st, 1, id);
  sqlite3_bind_int (st, 2, (int) k);
  sqlite3_bind_int64 (st, 3, f->symbol);
  sqlite3_bind_int64 (st, 4, f->module);
  sqlite3_bind_int (st, 5, f->found ? 0 : 1);
  sqlite3_bind_int64 (st, 6, (int64_t) addr);
  sqlite3_bind_int (st, 7, SL_UNWIND_TABLE);
  sqlite3_step (st);
  sqlite3_reset (st);
}

/* A sample's chain: the one written before with the same frames, else written now.  0 when it
 * cannot be kept (out of memory). */
static int64_t
sample_chain (SlTraceWriter      *w,
              const PendingSample *s,
              const NamedFrame   *f,
              const char        **role)
{
  const uint64_t *addrs = w->frames + s->first_frame;
  SlChainHash h;
  bool fresh;

  sl_chain_hash_init (&h);
  for (uint32_t k = 0; k < s->n_frames; k++)
    sl_chain_hash_frame (&h, addrs[k], f[k].symbol, f[k].module, !f[k].found);
  sl_chain_hash_end (&h);
  SlChain *c = sl_chains_get (&w->chains, &h, &fresh);
  if (c == NULL)
    return 0;
  if (fresh)
    {
      char buf[300];
      const char *r = stack_role (f, s->n_frames, buf, sizeof buf);
      c->id = w->next_chain++;
      c->role = r != NULL ? strdup (r) : NULL;
      for (uint32_t k = 0; k < s->n_frames; k++)
        frame_row (w->stmts[ST_CHAIN_FRAME], c->id, k, addrs[k], &f[k]);
    }
  *role = c->role;
  return c->id;
}

static void
flush_samples (SlTraceWriter *w)
{
  NamedFrame f[SL_WIRE_MAX_FRAMES]; /* 5 KiB; not static: sessions write on threads of their own */
  int32_t last_pid = 0;
  uint32_t native_gen = 0, py_gen = 0;

  for (size_t i = 0; i < w->n_samples; i++)
    {
      const PendingSample *s = &w->samples[i];
      const char *role = NULL;
      char role_buf[300];
      sqlite3_stmt *st;

      if (i == 0 || s->pid != last_pid)
        {
          Process *p = process_get (w, s->pid);
          native_gen = p != NULL ? p->native_gen : 0;
          py_gen = p != NULL ? p->py_gen : 0;
          last_pid = s->pid;
        }
      for (uint32_t k = 0; k < s->n_frames; k++)
        {
          uint64_t addr = w->frames[s->first_frame + k];
          /* a CUDA backtrace's frame 0 is a return address (into CUDA), not an exact one */
          name_frame (w, s->pid, (addr & SL_WIRE_PYFRAME_BIT) != 0 ? py_gen : native_gen, addr,
                      s->cuda ? k + 1 : k, &f[k]);
        }
      if (s->cuda)
        {
          /* a CUDA call's backtrace: CUDA_CALLCHAINS, made with the first, as nsys makes it */
          sqlite3_stmt *cst = lazy_stmt (w, ST_CUDA_CHAIN, SL_SCHEMA_CUDA_CALLCHAINS_SQL);
          for (uint32_t k = 0; cst != NULL && k < s->n_frames; k++)
            frame_row (cst, s->chain, k, w->frames[s->first_frame + k], &f[k]);
          role = stack_role (f, s->n_frames, role_buf, sizeof role_buf);
        }
      else if (s->chain != 0)
        {
          /* an OS runtime call's backtrace: its own rows, as nsys has them */
          for (uint32_t k = 0; k < s->n_frames; k++)
            frame_row (w->stmts[ST_OSRT_CHAIN], s->chain, k, w->frames[s->first_frame + k], &f[k]);
          role = stack_role (f, s->n_frames, role_buf, sizeof role_buf);
        }
      else
        {
          int64_t id = w->next_sample_id++;
          st = w->stmts[ST_SAMPLE];
          sqlite3_bind_int64 (st, 1, id);
          sqlite3_bind_int64 (st, 2, (int64_t) s->time);
          sqlite3_bind_int (st, 3, (int) (s->state ? s->state : SL_THREAD_STATE_RUNNING));
          sqlite3_bind_int64 (st, 4, gtid (s->pid, s->tid));
          step_event (w, st);
          int64_t chain = s->n_frames > 0 ? sample_chain (w, s, f, &role) : 0;
          if (chain != 0)
            {
              st = w->stmts[ST_SAMPLE_CHAIN];
              sqlite3_bind_int64 (st, 1, id);
              sqlite3_bind_int64 (st, 2, chain);
              sqlite3_step (st);
              sqlite3_reset (st);
            }
        }
      if (role != NULL)
        process_label (w, s->pid, role);
    }
  w->n_samples = 0;
  w->n_frames = 0;
}

static void
bind_u32_or_none (sqlite3_stmt *st,
                  int           col,
                  uint32_t      v)
{
  sqlite3_bind_int64 (st, col, v == UINT32_MAX ? NO_ID : (int64_t) v);
}

/* The statement of a table made on its first row (ST_CUDA_EVENT, ST_GRAPH, ST_CUDA_CHAIN): the
 * table is created in the open transaction (`create_sql`; NULL: it is there), then the statement
 * prepared; NULL when SQLite refuses either. */
static sqlite3_stmt *
lazy_stmt (SlTraceWriter *w,
           int            stmt,
           const char    *create_sql)
{
  if (w->stmts[stmt] != NULL)
    return w->stmts[stmt];
  if ((create_sql != NULL && sqlite3_exec (w->db, create_sql, NULL, NULL, NULL) != SQLITE_OK)
      || sqlite3_prepare_v3 (w->db, stmt_sql[stmt], -1, SQLITE_PREPARE_PERSISTENT, &w->stmts[stmt],
                             NULL)
           != SQLITE_OK)
    {
      sqlite3_finalize (w->stmts[stmt]);
      w->stmts[stmt] = NULL;
    }
  return w->stmts[stmt];
}

/* eventSyncId: CUPTI's "none" (32 bits wide in this 64-bit column) as nsys writes it,
 * 4294967295; NULL where the running CUPTI's record has no such field (SL_WIRE_ABSENT_ID). */
static void
bind_sync_id (sqlite3_stmt *st,
              int           col,
              uint64_t      v)
{
  if (v == SL_WIRE_ABSENT_ID)
    sqlite3_bind_null (st, col);
  else
    sqlite3_bind_int64 (st, col, v >= UINT32_MAX ? NO_ID : (int64_t) v);
}

/* A DIAGNOSTIC_EVENT row (the table made with the first); `pid` 0: of no process. */
static bool
write_diagnostic (SlTraceWriter *w,
                  uint64_t       time_ns,
                  uint32_t       severity,
                  const char    *text,
                  int32_t        pid)
{
  sqlite3_stmt *st;

  if (!begin_tx (w) || (st = lazy_stmt (w, ST_DIAGNOSTIC, SL_SCHEMA_DIAGNOSTIC_EVENT_SQL)) == NULL)
    return false;
  sqlite3_bind_int64 (st, 1, (int64_t) time_ns);
  sqlite3_bind_int (st, 2, severity <= SL_DIAG_ERROR ? (int) severity : 0);
  sqlite3_bind_text (st, 3, text, -1, SQLITE_TRANSIENT);
  if (pid != 0)
    sqlite3_bind_int64 (st, 4, gpid (pid));
  else
    sqlite3_bind_null (st, 4);
  bool ok = sqlite3_step (st) == SQLITE_DONE;
  sqlite3_reset (st);
  return ok;
}

/* What the library says about the collection: a DIAGNOSTIC_EVENT row, or the CUDA graph mode in
 * effect, which replaces the requested one the daemon wrote at the start (CUPTI may refuse
 * GRAPH_TRACE: graphs are then traced by node). */
static bool
add_diagnostic (SlTraceWriter          *w,
                int32_t                 pid,
                const SlWireDiagnostic *d)
{
  const char *text = record_text (&d->h, sizeof *d);

  if (text == NULL)
    return false;
  if (d->kind == SL_DIAG_CUDA_GRAPH_MODE)
    {
      static const char name[] = "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE";
      sqlite3_stmt *st = NULL;
      if (strcmp (text, "Graph") != 0 && strcmp (text, "Node") != 0)
        return false;
      if (sqlite3_prepare_v2 (w->db, "UPDATE META_DATA_CAPTURE SET value = ? WHERE name = ?", -1,
                              &st, NULL)
          != SQLITE_OK)
        return false;
      sqlite3_bind_text (st, 1, text, -1, SQLITE_STATIC);
      sqlite3_bind_text (st, 2, name, -1, SQLITE_STATIC);
      bool ok = sqlite3_step (st) == SQLITE_DONE;
      sqlite3_finalize (st);
      if (ok && sqlite3_changes (w->db) == 0)
        sl_trace_writer_add_meta (w, name, text);
      return ok;
    }
  if (d->kind != SL_DIAG_MESSAGE || *text == '\0')
    return false;
  return write_diagnostic (w, d->time_ns, d->severity, text, pid);
}

/* The columns every GPU activity table starts with: start, end, deviceId, contextId, (green
 * context: 0 in the SQL), streamId, correlationId, globalPid.  Returns the statement with 1…7
 * bound; the caller binds the rest. */
static sqlite3_stmt *
gpu_op_bind (SlTraceWriter *w,
             int            stmt,
             const Process *p,
             uint64_t       start,
             uint64_t       end,
             uint32_t       device,
             uint32_t       context,
             uint32_t       stream,
             uint32_t       correlation)
{
  sqlite3_stmt *st = w->stmts[stmt];

  sqlite3_bind_int64 (st, 1, (int64_t) start);
  sqlite3_bind_int64 (st, 2, (int64_t) end);
  sqlite3_bind_int64 (st, 3, device);
  sqlite3_bind_int64 (st, 4, context);
  bind_u32_or_none (st, 5, stream);
  sqlite3_bind_int64 (st, 6, correlation);
  sqlite3_bind_int64 (st, 7, gpid (p->pid));
  seen_time (w, NULL, start, end);
  return st;
}

static bool
add_gpu_record (SlTraceWriter      *w,
                Process            *p,
                const SlWireHeader *h)
{
  sqlite3_stmt *st;

  switch (h->type)
    {
    case SL_WIRE_CUDA_API:
      {
        const SlWireCudaApi *a = (const SlWireCudaApi *) h;
        const char *name = record_text (h, sizeof *a);
        if (name == NULL || a->end_ns < a->start_ns)
          return false;
        st = w->stmts[ST_API];
        sqlite3_bind_int64 (st, 1, (int64_t) a->start_ns);
        sqlite3_bind_int64 (st, 2, (int64_t) a->end_ns);
        sqlite3_bind_int (st, 3, (int) a->event_class);
        sqlite3_bind_int64 (st, 4, gtid (p->pid, h->tid));
        sqlite3_bind_int64 (st, 5, a->correlation_id);
        sqlite3_bind_int64 (st, 6, intern (w, name));
        sqlite3_bind_int (st, 7, a->return_value);
        seen_time (w, p, a->start_ns, a->end_ns);
        if (w->cuda_links == NULL)
          w->cuda_links = calloc (SL_CUDA_LINKS, sizeof (CudaLink));
        CudaLink *l = cuda_link (w, p->pid, a->event_class, a->correlation_id);
        bool linked = l != NULL && cuda_link_is (l, p->pid, a->event_class, a->correlation_id)
                      && l->chain != 0;
        if (linked)
          {
            sqlite3_bind_int64 (st, 8, l->chain);
            *l = (CudaLink) { 0 };
          }
        else
          sqlite3_bind_null (st, 8);
        step_event (w, st);
        /* its backtrace may still come (CUPTI's thread flushed before the caller's): the row
         * waits in a free slot, never in one a backtrace waits in */
        if (!linked && l != NULL && l->chain == 0)
          *l = (CudaLink) { p->pid, a->correlation_id, a->event_class, 0, 0,
                            sqlite3_last_insert_rowid (w->db) };
        return true;
      }
    case SL_WIRE_KERNEL:
      {
        const SlWireKernel *k = (const SlWireKernel *) h;
        const char *name = record_text (h, sizeof *k);
        if (name == NULL || k->end_ns < k->start_ns)
          return false;
        /* a program launches a few hundred distinct kernels 10^6 times: demangle each once */
        int64_t mangled = intern (w, name);
        size_t slot = (size_t) mangled * 2;
        if (slot + 2 > w->cap_kernel_names)
          {
            size_t old = w->cap_kernel_names;
            if (!_sl_grow ((void **) &w->kernel_names, &w->cap_kernel_names, slot + 2,
                       sizeof (int64_t)))
              return false;
            memset (w->kernel_names + old, 0, (w->cap_kernel_names - old) * sizeof (int64_t));
          }
        if (w->kernel_names[slot] == 0)
          {
            char *short_name = NULL, *demangled = sl_kernel_names (name, &short_name);
            w->kernel_names[slot] = intern (w, demangled != NULL ? demangled : name);
            w->kernel_names[slot + 1] = intern (w, short_name != NULL ? short_name : name);
            free (demangled);
            free (short_name);
          }
        st = gpu_op_bind (w, ST_KERNEL, p, k->start_ns, k->end_ns, k->device_id, k->context_id,
                          k->stream_id, k->correlation_id);
        int c = 8;
        sqlite3_bind_int64 (st, c++, w->kernel_names[slot]);
        sqlite3_bind_int64 (st, c++, w->kernel_names[slot + 1]);
        sqlite3_bind_int64 (st, c++, mangled);
        sqlite3_bind_int (st, c++, (int) k->launch_type);
        sqlite3_bind_int (st, c++, (int) k->cache_config);
        sqlite3_bind_int (st, c++, k->registers_per_thread);
        sqlite3_bind_int (st, c++, k->grid_x);
        sqlite3_bind_int (st, c++, k->grid_y);
        sqlite3_bind_int (st, c++, k->grid_z);
        sqlite3_bind_int (st, c++, k->block_x);
        sqlite3_bind_int (st, c++, k->block_y);
        sqlite3_bind_int (st, c++, k->block_z);
        sqlite3_bind_int (st, c++, k->static_shared_memory);
        sqlite3_bind_int (st, c++, k->dynamic_shared_memory);
        sqlite3_bind_int64 (st, c++, k->local_memory_per_thread);
        sqlite3_bind_int64 (st, c++, (int64_t) k->local_memory_total);
        sqlite3_bind_int64 (st, c++, k->grid_id);
        sqlite3_bind_int64 (st, c++, k->shared_memory_executed);
        uint64_t node = (uint64_t) k->graph_node_id_hi << 32 | k->graph_node_id_lo;
        if (node != 0)
          sqlite3_bind_int64 (st, c++, (int64_t) node);
        else
          sqlite3_bind_null (st, c++);
        if (k->graph_id != 0)
          sqlite3_bind_int64 (st, c++, k->graph_id);
        else
          sqlite3_bind_null (st, c++);
        const int32_t cluster[3] = { k->cluster_x, k->cluster_y, k->cluster_z };
        for (int i = 0; i < 3; i++)
          if ((k->flags & SL_WIRE_KERNEL_NO_CLUSTER) != 0)
            sqlite3_bind_null (st, c++); /* an older CUPTI's record has none */
          else
            sqlite3_bind_int (st, c++, cluster[i]);
        break;
      }
    case SL_WIRE_MEMCPY:
      {
        const SlWireMemcpy *m = (const SlWireMemcpy *) h;
        if (m->end_ns < m->start_ns)
          return false;
        st = gpu_op_bind (w, ST_MEMCPY, p, m->start_ns, m->end_ns, m->device_id, m->context_id,
                          m->stream_id, m->correlation_id);
        sqlite3_bind_int64 (st, 8, (int64_t) m->bytes);
        sqlite3_bind_int (st, 9, (int) m->copy_kind);
        sqlite3_bind_int (st, 10, (int) m->src_kind);
        sqlite3_bind_int (st, 11, (int) m->dst_kind);
        sqlite3_bind_int64 (st, 12, m->src_device_id);
        sqlite3_bind_int64 (st, 13, m->context_id);
        sqlite3_bind_int64 (st, 14, m->dst_device_id);
        sqlite3_bind_int64 (st, 15, m->context_id);
        break;
      }
    case SL_WIRE_MEMSET:
      {
        const SlWireMemset *m = (const SlWireMemset *) h;
        if (m->end_ns < m->start_ns)
          return false;
        st = gpu_op_bind (w, ST_MEMSET, p, m->start_ns, m->end_ns, m->device_id, m->context_id,
                          m->stream_id, m->correlation_id);
        sqlite3_bind_int64 (st, 8, m->value);
        sqlite3_bind_int64 (st, 9, (int64_t) m->bytes);
        sqlite3_bind_int (st, 10, (int) m->mem_kind);
        break;
      }
    case SL_WIRE_SYNC:
      {
        const SlWireSync *s = (const SlWireSync *) h;
        if (s->end_ns < s->start_ns)
          return false;
        st = gpu_op_bind (w, ST_SYNC, p, s->start_ns, s->end_ns, s->device_id, s->context_id,
                          s->stream_id, s->correlation_id);
        sqlite3_bind_int (st, 8, (int) s->sync_type);
        bind_u32_or_none (st, 9, s->event_id);
        /* CUPTI's "none" is 32 bits wide in this 64-bit field: nsys writes 4294967295 */
        bind_sync_id (st, 10, s->event_sync_id);
        break;
      }
    case SL_WIRE_CUDA_EVENT:
      {
        const SlWireCudaEvent *e = (const SlWireCudaEvent *) h;
        st = lazy_stmt (w, ST_CUDA_EVENT, SL_SCHEMA_CUDA_EVENT_SQL);
        if (st == NULL)
          return false;
        sqlite3_bind_int64 (st, 1, (int64_t) e->timestamp_ns);
        sqlite3_bind_int64 (st, 2, e->device_id);
        sqlite3_bind_int64 (st, 3, e->context_id);
        bind_u32_or_none (st, 4, e->stream_id);
        sqlite3_bind_int64 (st, 5, e->correlation_id);
        sqlite3_bind_int64 (st, 6, gpid (p->pid));
        sqlite3_bind_int64 (st, 7, e->event_id);
        bind_sync_id (st, 8, e->event_sync_id);
        if (e->timestamp_ns != 0)
          seen_time (w, NULL, e->timestamp_ns, e->timestamp_ns);
        break;
      }
    case SL_WIRE_GRAPH:
      {
        const SlWireGraph *g = (const SlWireGraph *) h;
        if (g->end_ns < g->start_ns || lazy_stmt (w, ST_GRAPH, SL_SCHEMA_GRAPH_TRACE_SQL) == NULL)
          return false;
        st = gpu_op_bind (w, ST_GRAPH, p, g->start_ns, g->end_ns, g->device_id, g->context_id,
                          g->stream_id, g->correlation_id);
        sqlite3_bind_int64 (st, 8, g->graph_id);
        sqlite3_bind_int64 (st, 9, g->graph_exec_id);
        break;
      }
    case SL_WIRE_GPU:
      {
        const SlWireGpu *g = (const SlWireGpu *) h;
        const char *name = record_text (h, sizeof *g);
        char bus[32], uuid[64];
        if (name == NULL)
          return false;
        snprintf (bus, sizeof bus, "%04x:%02x:%02x.0", g->pci_domain, g->pci_bus, g->pci_device);
        int n = snprintf (uuid, sizeof uuid, "GPU-");
        for (int i = 0; i < 16; i++)
          n += snprintf (uuid + n, sizeof uuid - (size_t) n, "%02x%s", g->uuid[i],
                         i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
        st = w->stmts[ST_GPU];
        int c = 1;
        sqlite3_bind_int64 (st, c++, INT64_C (1) << 48);
        sqlite3_bind_int64 (st, c++, g->device_id);
        sqlite3_bind_text (st, c++, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text (st, c++, bus, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int (st, c++, g->l2_cache_size);
        sqlite3_bind_int64 (st, c++, (int64_t) g->total_memory);
        sqlite3_bind_int64 (st, c++, (int64_t) g->memory_bandwidth);
        sqlite3_bind_int64 (st, c++, (int64_t) g->clock_rate_khz * 1000);
        sqlite3_bind_int (st, c++, g->sm_count);
        sqlite3_bind_text (st, c++, uuid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64 (st, c++, g->device_id);
        sqlite3_bind_int (st, c++, g->max_registers_per_block);
        sqlite3_bind_int (st, c++, g->max_shmem_per_block);
        sqlite3_bind_int (st, c++, g->max_shmem_per_block_optin);
        sqlite3_bind_int (st, c++, g->max_shmem_per_sm);
        sqlite3_bind_int (st, c++, g->max_registers_per_sm);
        sqlite3_bind_int (st, c++, g->threads_per_warp);
        sqlite3_bind_int (st, c++, g->async_engines);
        sqlite3_bind_int (st, c++, g->max_warps_per_sm);
        sqlite3_bind_int (st, c++, g->max_blocks_per_sm);
        sqlite3_bind_int (st, c++, g->max_threads_per_block);
        for (int i = 0; i < 3; i++)
          sqlite3_bind_int (st, c++, g->max_block_dim[i]);
        for (int i = 0; i < 3; i++)
          sqlite3_bind_int (st, c++, g->max_grid_dim[i]);
        sqlite3_bind_int (st, c++, g->compute_major);
        sqlite3_bind_int (st, c++, g->compute_minor);
        sqlite3_bind_int (st, c++, g->compute_major);
        sqlite3_bind_int (st, c++, g->compute_minor);
        sqlite3_step (st);
        sqlite3_reset (st);
        return true; /* not an event */
      }
    case SL_WIRE_CONTEXT:
      {
        const SlWireContext *x = (const SlWireContext *) h;
        st = w->stmts[ST_CONTEXT];
        sqlite3_bind_int64 (st, 1, x->null_stream_id);
        sqlite3_bind_int64 (st, 2, p->pid);
        sqlite3_bind_int64 (st, 3, x->device_id);
        sqlite3_bind_int64 (st, 4, x->context_id);
        sqlite3_step (st);
        sqlite3_reset (st);
        return true;
      }
    case SL_WIRE_STREAM:
      {
        const SlWireStream *x = (const SlWireStream *) h;
        st = w->stmts[ST_STREAM];
        sqlite3_bind_int64 (st, 1, x->stream_id);
        sqlite3_bind_int64 (st, 2, p->pid);
        sqlite3_bind_int64 (st, 3, x->context_id);
        sqlite3_bind_int64 (st, 4, (int64_t) (uint32_t) x->priority);
        sqlite3_bind_int (st, 5, (int) x->flag);
        sqlite3_step (st);
        sqlite3_reset (st);
        return true;
      }
    default:
      return false;
    }
  step_event (w, st);
  return true;
}

/* GPU memory allocated or freed (nsys --cuda-memory-usage): a row of CUDA_GPU_MEMORY_USAGE_EVENTS,
 * the table made with the first. */
static bool
add_cuda_memory (SlTraceWriter      *w,
                 Process            *p,
                 const SlWireHeader *h)
{
  const SlWireCudaMemory *m = (const SlWireCudaMemory *) h;
  const char *name = record_text (h, sizeof *m);
  sqlite3_stmt *st;

  if (name == NULL || m->operation > SL_MEM_OPER_DEALLOCATION || m->mem_kind > SL_MEM_KIND_UNKNOWN
      || (st = lazy_stmt (w, ST_MEMORY_USAGE, SL_SCHEMA_CUDA_GPU_MEMORY_USAGE_SQL)) == NULL)
    return false;
  sqlite3_bind_int64 (st, 1, (int64_t) m->time_ns);
  sqlite3_bind_int64 (st, 2, gpid (p->pid));
  sqlite3_bind_int64 (st, 3, m->device_id);
  sqlite3_bind_int64 (st, 4, m->context_id);
  sqlite3_bind_int64 (st, 5, (int64_t) m->address);
  sqlite3_bind_int64 (st, 6, (int64_t) m->pc);
  sqlite3_bind_int64 (st, 7, (int64_t) m->bytes);
  sqlite3_bind_int (st, 8, (int) m->mem_kind);
  sqlite3_bind_int (st, 9, (int) m->operation);
  /* a variable's name for static memory; NULL for the rest, as nsys writes it */
  if (*name != '\0')
    sqlite3_bind_text (st, 10, name, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 10);
  sqlite3_bind_int64 (st, 11, m->correlation_id);
  seen_time (w, p, m->time_ns, m->time_ns);
  step_event (w, st);
  return true;
}

/* A unified-memory migration (a CUPTI_ACTIVITY_KIND_MEMCPY row, copyKind 11 or 12) or page fault
 * (CUDA_UM_CPU_PAGE_FAULT_EVENTS, CUDA_UM_GPU_PAGE_FAULT_EVENTS, each made with its first). */
static bool
add_um (SlTraceWriter      *w,
        Process            *p,
        const SlWireHeader *h)
{
  const SlWireUm *u = (const SlWireUm *) h;
  sqlite3_stmt *st;

  if (u->end_ns < u->start_ns)
    return false;
  switch (u->kind)
    {
    case SL_UM_HTOD:
    case SL_UM_DTOH:
      if ((st = lazy_stmt (w, ST_UM_MIGRATION, NULL)) == NULL)
        return false;
      sqlite3_bind_int64 (st, 1, (int64_t) u->start_ns);
      sqlite3_bind_int64 (st, 2, (int64_t) u->end_ns);
      sqlite3_bind_int64 (st, 3, u->device_id);
      sqlite3_bind_int64 (st, 4, gpid (p->pid));
      sqlite3_bind_int64 (st, 5, (int64_t) u->value);
      sqlite3_bind_int (st, 6, u->kind == SL_UM_HTOD ? SL_MEMCPY_UVM_HTOD : SL_MEMCPY_UVM_DTOH);
      sqlite3_bind_int (st, 7, (int) u->flags);
      sqlite3_bind_int64 (st, 8, (int64_t) u->address);
      break;
    case SL_UM_CPU_FAULT:
      {
        NamedFrame f;
        if ((st = lazy_stmt (w, ST_UM_CPU_FAULT, SL_SCHEMA_CUDA_UM_CPU_PAGE_FAULT_SQL)) == NULL)
          return false;
        /* the faulting instruction, named as a sample's leaf frame (exact, not a return
         * address); unresolved, its address in hex */
        name_frame (w, p->pid, p->native_gen, u->value, 0, &f);
        sqlite3_bind_int64 (st, 1, (int64_t) u->start_ns);
        sqlite3_bind_int64 (st, 2, gpid (p->pid));
        sqlite3_bind_int64 (st, 3, (int64_t) u->address);
        sqlite3_bind_int64 (st, 4, (int64_t) u->value);
        sqlite3_bind_int64 (st, 5, f.symbol);
        sqlite3_bind_int64 (st, 6, f.module);
        sqlite3_bind_int (st, 7, f.found ? 0 : 1);
        break;
      }
    case SL_UM_GPU_FAULT:
      if ((st = lazy_stmt (w, ST_UM_GPU_FAULT, SL_SCHEMA_CUDA_UM_GPU_PAGE_FAULT_SQL)) == NULL)
        return false;
      sqlite3_bind_int64 (st, 1, (int64_t) u->start_ns);
      sqlite3_bind_int64 (st, 2, (int64_t) u->end_ns);
      sqlite3_bind_int64 (st, 3, gpid (p->pid));
      sqlite3_bind_int64 (st, 4, u->device_id);
      sqlite3_bind_int64 (st, 5, (int64_t) u->address);
      sqlite3_bind_int64 (st, 6, (int64_t) u->value);
      sqlite3_bind_int (st, 7, (int) u->flags);
      break;
    default:
      return false;
    }
  /* a process's own times are its host's: a CPU fault's */
  seen_time (w, u->kind == SL_UM_CPU_FAULT ? p : NULL, u->start_ns, u->end_ns);
  step_event (w, st);
  return true;
}

/* GPU_METRICS.typeId of a GPU's metrics: <hw:8><vm:8><source:16><type:32>, the type's low byte
 * the GPU (nsys's schema documentation; sightline-gen writes the same) */
static int64_t
gpu_metrics_type (uint32_t device_id)
{
  return ((int64_t) 1 << 48) | ((int64_t) SL_GPU_METRICS_SOURCE << 32)
         | ((int64_t) SL_GPU_METRICS_TAG << 8) | (int64_t) device_id;
}

/* A GPU's metric set (--gpu-metrics): a TARGET_INFO_GPU_METRICS row per metric not yet named for
 * that GPU ("GPU 0: GH100"), the table made with the first. */
static bool
add_gpu_metric_set (SlTraceWriter      *w,
                    const SlWireHeader *h)
{
  const SlWireGpuMetricSet *m = (const SlWireGpuMetricSet *) h;
  const char *chip = record_text (h, sizeof *m);
  sqlite3_stmt *st;
  char type_name[96];

  if (chip == NULL || m->device_id > 255)
    return false;
  snprintf (type_name, sizeof type_name, "GPU %u: %s", m->device_id, chip);
  for (unsigned i = 0; i < SL_GPU_METRIC_N; i++)
    {
      if ((m->metrics & (UINT64_C (1) << i)) == 0
          || (w->gpu_metrics_named[m->device_id] & (UINT64_C (1) << i)) != 0)
        continue;
      if ((st = lazy_stmt (w, ST_GPU_METRIC_INFO, SL_SCHEMA_TARGET_INFO_GPU_METRICS_SQL)) == NULL)
        return false;
      sqlite3_bind_int64 (st, 1, gpu_metrics_type (m->device_id));
      sqlite3_bind_int (st, 2, SL_GPU_METRICS_SOURCE);
      sqlite3_bind_text (st, 3, type_name, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int (st, 4, (int) i);
      sqlite3_bind_text (st, 5, sl_schema_gpu_metric_name (i), -1, SQLITE_STATIC);
      sqlite3_step (st);
      sqlite3_reset (st);
      w->gpu_metrics_named[m->device_id] |= UINT64_C (1) << i;
    }
  return true;
}

/* One PM sample of a GPU: a GPU_METRICS row per metric, the table made with the first.  Values
 * of metrics the GPU's set did not name are refused (the reader could not name them). */
static bool
add_gpu_metrics (SlTraceWriter      *w,
                 const SlWireHeader *h)
{
  const SlWireGpuMetrics *m = (const SlWireGpuMetrics *) h;
  const SlWireGpuMetricValue *v = (const SlWireGpuMetricValue *) (m + 1);
  sqlite3_stmt *st;
  bool ok = true;

  if (m->device_id > 255 || m->n_values > (h->size - sizeof *m) / sizeof *v
      || (st = lazy_stmt (w, ST_GPU_METRIC, SL_SCHEMA_GPU_METRICS_SQL)) == NULL)
    return false;
  for (uint32_t i = 0; i < m->n_values; i++)
    {
      if (v[i].metric_id >= SL_GPU_METRIC_N
          || (w->gpu_metrics_named[m->device_id] & (UINT64_C (1) << v[i].metric_id)) == 0)
        {
          ok = false;
          continue;
        }
      sqlite3_bind_int64 (st, 1, (int64_t) m->raw_ns);
      sqlite3_bind_int64 (st, 2, (int64_t) m->time_ns);
      sqlite3_bind_int64 (st, 3, gpu_metrics_type (m->device_id));
      sqlite3_bind_int (st, 4, (int) v[i].metric_id);
      sqlite3_bind_int64 (st, 5, v[i].value);
      step_event (w, st);
    }
  seen_time (w, NULL, m->time_ns, m->time_ns);
  return ok;
}

_Static_assert (ST_MPI_COMM - ST_MPI_P2P + 1 == SL_SCHEMA_N_MPI_TABLES,
                "ST_MPI_* are sl_schema_mpi_sql's tables, in its order");

/* The MPI table statement `stmt` (ST_MPI_*), the table made with its first row */
static sqlite3_stmt *
mpi_stmt (SlTraceWriter *w,
          int            stmt)
{
  return lazy_stmt (w, stmt, sl_schema_mpi_sql[stmt - ST_MPI_P2P]);
}

static void
bind_if (sqlite3_stmt *st,
         int           col,
         bool          has,
         int64_t       v)
{
  if (has)
    sqlite3_bind_int64 (st, col, v);
  else
    sqlite3_bind_null (st, col);
}

/* The MPI_RANKS row of the thread that made an MPI call, once its process's rank is known */
static void
mpi_rank_row (SlTraceWriter *w,
              Process       *p,
              uint32_t       tid)
{
  sqlite3_stmt *st;

  if (!p->has_mpi_rank)
    return;
  for (size_t i = 0; i < p->n_mpi_tids; i++)
    if (p->mpi_tids[i] == tid)
      return;
  if (!_sl_grow ((void **) &p->mpi_tids, &p->cap_mpi_tids, p->n_mpi_tids + 1, sizeof (uint32_t))
      || (st = mpi_stmt (w, ST_MPI_RANKS)) == NULL)
    return;
  p->mpi_tids[p->n_mpi_tids++] = tid;
  sqlite3_bind_int64 (st, 1, gtid (p->pid, tid));
  sqlite3_bind_int (st, 2, p->mpi_rank);
  sqlite3_step (st);
  sqlite3_reset (st);
}

/* One MPI call: a row of the table its function belongs to (sl-wire.h's SlMpiFunc), from the
 * words of a batch at *w (*w moved past it).  false when the words cannot be a call's (the rest
 * of the batch is not read then) */
static bool
add_mpi_call (SlTraceWriter   *w,
              Process         *p,
              uint32_t         tid,
              const uint64_t **words,
              const uint64_t  *end)
{
  const uint64_t *c = *words;
  sqlite3_stmt *st;
  int stmt;

  if (end - c < 2)
    return false;
  uint32_t func = (uint32_t) (c[0] & 0xFF), f = (uint32_t) (c[0] >> 8) & 0xFF;
  size_t n = 2 + !!(f & SL_MPI_LONG) + !!(f & SL_MPI_HAS_COMM)
             + !!(f & (SL_MPI_HAS_PEER | SL_MPI_HAS_TAG)) + !!(f & SL_MPI_HAS_SIZE)
             + !!(f & SL_MPI_HAS_RECV_SIZE) + !!(f & SL_MPI_HAS_REQUEST);
  if ((size_t) (end - c) < n || func >= SL_MPI_N_FUNCS || (c[0] & 0xFFFF0000u) != 0)
    return false;
  *words = c + n;
  const uint64_t *v = c + 2;
  uint64_t start = c[1], stop = (f & SL_MPI_LONG) ? *v++ : start + (c[0] >> 32);
  uint64_t comm = (f & SL_MPI_HAS_COMM) ? *v++ : 0;
  uint64_t peer_tag = (f & (SL_MPI_HAS_PEER | SL_MPI_HAS_TAG)) ? *v++ : 0;
  int64_t size = (f & SL_MPI_HAS_SIZE) ? (int64_t) *v++ : 0;
  int64_t recv_size = (f & SL_MPI_HAS_RECV_SIZE) ? (int64_t) *v++ : 0;
  uint64_t request = (f & SL_MPI_HAS_REQUEST) ? *v++ : 0;
  int32_t peer = (int32_t) (uint32_t) peer_tag, tag = (int32_t) (uint32_t) (peer_tag >> 32);

  if (stop < start)
    return false;
  /* --delay and --duration, call by call (outside_window() sees the batch) */
  if ((w->from_ns != 0 && start < w->from_ns) || (w->to_ns != 0 && start >= w->to_ns))
    return true;
  stmt = func < SL_MPI_N_P2P    ? ST_MPI_P2P
         : func < SL_MPI_N_COLL ? ST_MPI_COLL
         : func < SL_MPI_N_WAIT ? ST_MPI_WAIT
                                : ST_MPI_OTHER;
  if ((st = mpi_stmt (w, stmt)) == NULL)
    return false;
  if (w->mpi_name[func] == 0)
    w->mpi_name[func] = intern (w, mpi_names[func]);
  sqlite3_bind_int64 (st, 1, (int64_t) start);
  sqlite3_bind_int64 (st, 2, (int64_t) stop);
  sqlite3_bind_int64 (st, 3, gtid (p->pid, tid));
  sqlite3_bind_int64 (st, 4, w->mpi_name[func]);
  switch (stmt)
    {
    case ST_MPI_P2P:
      bind_if (st, 5, f & SL_MPI_HAS_COMM, (int64_t) comm);
      bind_if (st, 6, f & SL_MPI_HAS_TAG, tag);
      bind_if (st, 7, f & SL_MPI_HAS_PEER, peer);
      bind_if (st, 8, f & SL_MPI_HAS_SIZE, size);
      bind_if (st, 9, f & SL_MPI_HAS_REQUEST, (int64_t) request);
      break;
    case ST_MPI_COLL:
      bind_if (st, 5, f & SL_MPI_HAS_COMM, (int64_t) comm);
      bind_if (st, 6, f & SL_MPI_HAS_PEER, peer);
      bind_if (st, 7, f & SL_MPI_HAS_SIZE, size);
      bind_if (st, 8, f & SL_MPI_HAS_RECV_SIZE, recv_size);
      bind_if (st, 9, f & SL_MPI_HAS_REQUEST, (int64_t) request);
      break;
    case ST_MPI_WAIT:
      bind_if (st, 5, f & SL_MPI_HAS_REQUEST, (int64_t) request);
      break;
    default:
      break;
    }
  step_event (w, st);
  seen_time (w, p, start, stop);
  return true;
}

/* A batch of one thread's MPI calls (SlWireMpiCalls): ~200 rows */
static bool
add_mpi (SlTraceWriter      *w,
         Process            *p,
         const SlWireHeader *h)
{
  const SlWireMpiCalls *b = (const SlWireMpiCalls *) h;
  const uint64_t *c = (const uint64_t *) (b + 1);
  const uint64_t *end = (const uint64_t *) ((const char *) h + h->size);
  uint32_t i;

  for (i = 0; i < b->n_calls; i++)
    if (!add_mpi_call (w, p, b->tid, &c, end))
      break;
  if (i > 0)
    mpi_rank_row (w, p, b->tid);
  return i == b->n_calls && c == end;
}

/* A communicator as one rank sees it: a row of MPI_COMMUNICATORS; the first tells the process's
 * world rank (MPI_RANKS) */
static bool
add_mpi_comm (SlTraceWriter      *w,
              Process            *p,
              const SlWireHeader *h)
{
  const SlWireMpiComm *c = (const SlWireMpiComm *) h;
  const char *members = record_text (h, sizeof *c);
  sqlite3_stmt *st;

  if (members == NULL || c->world_rank < 0 || c->size < 0
      || (st = mpi_stmt (w, ST_MPI_COMM)) == NULL)
    return false;
  if (!p->has_mpi_rank)
    {
      p->has_mpi_rank = true;
      p->mpi_rank = c->world_rank;
      mpi_rank_row (w, p, h->tid);
    }
  sqlite3_bind_int (st, 1, c->world_rank);
  sqlite3_bind_int64 (st, 2, (int64_t) c->time_ns);
  sqlite3_bind_int64 (st, 3, (int64_t) c->comm);
  bind_if (st, 4, c->parent != 0, (int64_t) c->parent);
  sqlite3_bind_int (st, 5, c->local_rank);
  sqlite3_bind_int (st, 6, c->size);
  bind_if (st, 7, c->group_root >= 0, c->group_root);
  if (*members != '\0')
    sqlite3_bind_text (st, 8, members, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 8);
  sqlite3_bind_int64 (st, 9, (int64_t) (c->uid & INT64_MAX));
  sqlite3_step (st);
  sqlite3_reset (st);
  return true;
}

/* Function and "file:line" of `offset` in the ELF file `path` by addr2line (binutils; DWARF
 * needs -g): "main (omp.c:42)", or NULL when it cannot tell.  Run once per region's code
 * address a process, a few ms each.  malloc'd. */
static char *
addr2line (const char *path,
           uint64_t    offset)
{
  char addr[32];
  char buf[4096];
  size_t len = 0;
  int fds[2];
  pid_t pid;
  posix_spawn_file_actions_t fa;
  char *argv[] = { "addr2line", "-f", "-C", "-e", (char *) path, addr, NULL };
  char *out = NULL;

  snprintf (addr, sizeof addr, "0x%" PRIx64, offset);
  if (pipe2 (fds, O_CLOEXEC) != 0)
    return NULL;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen (&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  bool spawned = posix_spawnp (&pid, "addr2line", &fa, NULL, argv, environ) == 0;
  posix_spawn_file_actions_destroy (&fa);
  close (fds[1]);
  while (spawned && len < sizeof buf - 1)
    {
      ssize_t n = read (fds[0], buf + len, sizeof buf - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  close (fds[0]);
  if (spawned)
    while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
      ;
  buf[len] = '\0';
  char *nl = strchr (buf, '\n');
  if (nl == NULL)
    return NULL;
  *nl = '\0';
  char *where = nl + 1;
  where[strcspn (where, "\n")] = '\0';
  char *slash = strrchr (where, '/');
  if (slash != NULL)
    where = slash + 1;
  /* "??" and "??:0" / "??:?": nothing known */
  if (strncmp (buf, "??", 2) == 0 && strncmp (where, "??", 2) == 0)
    return NULL;
  if (strncmp (where, "??", 2) == 0 || strchr (where, ':') == NULL)
    return asprintf (&out, "%s", buf) < 0 ? NULL : out;
  return asprintf (&out, "%s (%s)", buf, where) < 0 ? NULL : out;
}

/* A parallel region's name: "omp parallel", then where in the program it is when the record
 * says which module its code address is in (the first of that address a process sends):
 * "omp parallel: main (omp.c:42)".  Cached by (process, address). */
static int64_t
omp_region_name (SlTraceWriter      *w,
                 Process            *p,
                 const SlWireOpenmp *o)
{
  const char *path = record_text (&o->h, sizeof *o);

  for (size_t i = 0; i < w->n_omp_names; i++)
    if (w->omp_names[i].pid == p->pid && w->omp_names[i].codeptr == o->codeptr)
      return w->omp_names[i].name;
  if (path == NULL || *path == '\0' || o->codeptr == 0)
    return intern (w, "omp parallel");
  char *where = addr2line (path, o->code_offset);
  char *name = NULL;
  if (where == NULL || asprintf (&name, "omp parallel: %s", where) < 0)
    name = NULL;
  int64_t id = intern (w, name != NULL ? name : "omp parallel");
  free (name);
  free (where);
  if (_sl_grow ((void **) &w->omp_names, &w->cap_omp_names, w->n_omp_names + 1,
                sizeof *w->omp_names))
    w->omp_names[w->n_omp_names++] = (OmpName) { p->pid, o->codeptr, id };
  return id;
}

/* An OpenMP region or implicit task (sl-inject-ompt.c) */
static bool
add_openmp (SlTraceWriter      *w,
            Process            *p,
            const SlWireHeader *h)
{
  const SlWireOpenmp *o = (const SlWireOpenmp *) h;
  sqlite3_stmt *st;

  if (o->end_ns < o->start_ns || o->kind > SL_OMP_IMPLICIT_TASK)
    return false;
  if (o->kind == SL_OMP_PARALLEL)
    {
      if ((st = lazy_stmt (w, ST_OMP_PARALLEL, omp_parallel_sql)) == NULL)
        return false;
      sqlite3_bind_int64 (st, 1, (int64_t) o->start_ns);
      sqlite3_bind_int64 (st, 2, (int64_t) o->end_ns);
      sqlite3_bind_int64 (st, 3, gtid (p->pid, h->tid));
      sqlite3_bind_int64 (st, 4, omp_region_name (w, p, o));
      sqlite3_bind_int64 (st, 5, (int64_t) o->parallel_id);
      sqlite3_bind_int64 (st, 6, (int64_t) o->task_id);
    }
  else
    {
      if ((st = lazy_stmt (w, ST_OMP_TASK, omp_task_sql)) == NULL)
        return false;
      sqlite3_bind_int64 (st, 1, (int64_t) o->start_ns);
      sqlite3_bind_int64 (st, 2, (int64_t) o->end_ns);
      sqlite3_bind_int64 (st, 3, gtid (p->pid, h->tid));
      sqlite3_bind_int64 (st, 4, intern (w, "omp implicit task"));
      sqlite3_bind_int64 (st, 5, (int64_t) o->parallel_id);
      sqlite3_bind_int64 (st, 6, (int64_t) o->task_id);
    }
  step_event (w, st);
  seen_time (w, p, o->start_ns, o->end_ns);
  return true;
}

/* Minimal fixed size of each record type: anything shorter is refused. */
static size_t
fixed_size (uint16_t type)
{
  switch (type)
    {
    case SL_WIRE_HELLO: return sizeof (SlWireHello);
    case SL_WIRE_THREAD_NAME: return sizeof (SlWireThreadName);
    case SL_WIRE_OSRT: return sizeof (SlWireOsrt);
    case SL_WIRE_NVTX: return sizeof (SlWireNvtx);
    case SL_WIRE_SAMPLE: return sizeof (SlWireSample);
    case SL_WIRE_MODULE: return sizeof (SlWireModule);
    case SL_WIRE_CUDA_API: return sizeof (SlWireCudaApi);
    case SL_WIRE_KERNEL: return sizeof (SlWireKernel);
    case SL_WIRE_MEMCPY: return sizeof (SlWireMemcpy);
    case SL_WIRE_MEMSET: return sizeof (SlWireMemset);
    case SL_WIRE_SYNC: return sizeof (SlWireSync);
    case SL_WIRE_GPU: return sizeof (SlWireGpu);
    case SL_WIRE_CONTEXT: return sizeof (SlWireContext);
    case SL_WIRE_STREAM: return sizeof (SlWireStream);
    case SL_WIRE_DROPPED: return sizeof (SlWireDropped);
    case SL_WIRE_BYE: return sizeof (SlWireBye);
    case SL_WIRE_SCHED: return sizeof (SlWireSched);
    case SL_WIRE_PROCESS: return sizeof (SlWireProcess);
    case SL_WIRE_PYCODE: return sizeof (SlWirePyCode);
    case SL_WIRE_CUDA_EVENT: return sizeof (SlWireCudaEvent);
    case SL_WIRE_GRAPH: return sizeof (SlWireGraph);
    case SL_WIRE_CUDA_BACKTRACE: return sizeof (SlWireCudaBacktrace);
    case SL_WIRE_DIAGNOSTIC: return sizeof (SlWireDiagnostic);
    case SL_WIRE_CUDA_MEMORY: return sizeof (SlWireCudaMemory);
    case SL_WIRE_UM: return sizeof (SlWireUm);
    case SL_WIRE_GPU_METRIC_SET: return sizeof (SlWireGpuMetricSet);
    case SL_WIRE_GPU_METRICS: return sizeof (SlWireGpuMetrics);
    case SL_WIRE_MPI: return sizeof (SlWireMpiCalls);
    case SL_WIRE_MPI_COMM: return sizeof (SlWireMpiComm);
    case SL_WIRE_OPENMP: return sizeof (SlWireOpenmp);
    default: return SIZE_MAX;
    }
}

/* PROCESSES.name: the program's base name, as nsys has it (the command line's first word). */
static char *
program_name (const char *cmd)
{
  const char *space = strchr (cmd, ' ');
  char *exe = strndup (cmd, space != NULL ? (size_t) (space - cmd) : strlen (cmd));
  const char *slash = exe != NULL ? strrchr (exe, '/') : NULL;
  char *base = slash != NULL ? strdup (slash + 1) : NULL;

  if (base == NULL)
    return exe;
  free (exe);
  return base;
}

static void
bind_pid_or_null (sqlite3_stmt *st,
                  int           col,
                  int32_t       pid)
{
  if (pid > 0)
    sqlite3_bind_int64 (st, col, pid);
  else
    sqlite3_bind_null (st, col);
}

/* PROCESSES.name: the program's name, then what it runs where its stacks told ("python3
 * (multiprocessing: worker_main)"); takes `name`. */
static char *
labelled_name (const Process *p,
               char          *name)
{
  char *full;

  if (p->label == NULL || name == NULL
      || asprintf (&full, "%s (%s)", name, p->label) < 0)
    return name;
  free (name);
  return full;
}

/* The first role a process's Python stack shows is its label, on its PROCESSES row from now on. */
static void
process_label (SlTraceWriter *w,
               int32_t        pid,
               const char    *label)
{
  Process *p = process_get (w, pid);

  if (p == NULL || p->label != NULL || (p->label = strdup (label)) == NULL || !p->listed)
    return; /* not listed yet: process_info() labels it */
  sqlite3_stmt *st = w->stmts[ST_PROCESS_LABEL];
  sqlite3_bind_text (st, 1, label, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 2, gpid (pid));
  sqlite3_step (st);
  sqlite3_reset (st);
}

/* A process's PROCESSES and SL_PROCESS_INFO rows: made the first time, then kept to what was
 * true last (`time`): a HELLO after an exec, /proc read by the daemon after one. */
static void
process_info (SlTraceWriter *w,
              Process       *p,
              uint64_t       time,
              int32_t        ppid,
              const char    *cmd)
{
  char *name = labelled_name (p, program_name (cmd));
  sqlite3_stmt *st;

  if (p->listed && time < p->info_time)
    {
      free (name);
      return;
    }
  st = w->stmts[p->listed ? ST_PROCESS_EXEC_NAME : ST_PROCESS];
  if (p->listed)
    {
      sqlite3_bind_text (st, 1, name != NULL ? name : "", -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (st, 2, gpid (p->pid));
    }
  else
    {
      sqlite3_bind_int64 (st, 1, gpid (p->pid));
      sqlite3_bind_int64 (st, 2, p->pid);
      sqlite3_bind_text (st, 3, name != NULL ? name : "", -1, SQLITE_TRANSIENT);
    }
  sqlite3_step (st);
  sqlite3_reset (st);
  if (p->listed)
    {
      st = w->stmts[ST_PROCESS_EXEC];
      sqlite3_bind_text (st, 1, cmd, -1, SQLITE_TRANSIENT);
      bind_pid_or_null (st, 2, ppid);
      sqlite3_bind_int64 (st, 3, gpid (p->pid));
    }
  else
    {
      st = w->stmts[ST_PROCESS_INFO];
      sqlite3_bind_int64 (st, 1, gpid (p->pid));
      sqlite3_bind_int64 (st, 2, p->pid);
      bind_pid_or_null (st, 3, ppid);
      sqlite3_bind_text (st, 4, cmd, -1, SQLITE_TRANSIENT);
    }
  sqlite3_step (st);
  sqlite3_reset (st);
  p->listed = true;
  p->info_time = time;
  free (name);
}

/* A context switch the daemon saw (it has no process record of its own: any pid of the tree). */
static bool
add_sched (SlTraceWriter     *w,
           const SlWireSched *r)
{
  sqlite3_stmt *st = w->stmts[ST_SCHED];

  if (r->pid <= 0)
    {
      w->n_bad++;
      return false;
    }
  sqlite3_bind_int64 (st, 1, (int64_t) r->time_ns);
  sqlite3_bind_int (st, 2, r->cpu);
  sqlite3_bind_int (st, 3, r->is_in != 0);
  sqlite3_bind_int64 (st, 4, gtid (r->pid, r->h.tid));
  sqlite3_bind_int (st, 5, r->state);
  step_event (w, st);
  seen_time (w, NULL, r->time_ns, r->time_ns);
  return true;
}

/* Records that start before the --delay window (or after --duration) are left out. */
static bool
outside_window (const SlTraceWriter *w,
                const SlWireHeader  *h)
{
  uint64_t t;

  switch (h->type)
    {
    case SL_WIRE_OSRT: t = ((const SlWireOsrt *) h)->start_ns; break;
    case SL_WIRE_SAMPLE: t = ((const SlWireSample *) h)->time_ns; break;
    case SL_WIRE_CUDA_API: t = ((const SlWireCudaApi *) h)->start_ns; break;
    case SL_WIRE_KERNEL: t = ((const SlWireKernel *) h)->start_ns; break;
    case SL_WIRE_MEMCPY: t = ((const SlWireMemcpy *) h)->start_ns; break;
    case SL_WIRE_MEMSET: t = ((const SlWireMemset *) h)->start_ns; break;
    case SL_WIRE_SYNC: t = ((const SlWireSync *) h)->start_ns; break;
    case SL_WIRE_GRAPH: t = ((const SlWireGraph *) h)->start_ns; break;
    case SL_WIRE_CUDA_BACKTRACE: t = ((const SlWireCudaBacktrace *) h)->time_ns; break;
    case SL_WIRE_CUDA_MEMORY: t = ((const SlWireCudaMemory *) h)->time_ns; break;
    case SL_WIRE_UM: t = ((const SlWireUm *) h)->start_ns; break;
    case SL_WIRE_GPU_METRICS: t = ((const SlWireGpuMetrics *) h)->time_ns; break;
    case SL_WIRE_OPENMP: t = ((const SlWireOpenmp *) h)->start_ns; break;
    case SL_WIRE_SCHED: t = ((const SlWireSched *) h)->time_ns; break;
    default: return false; /* NVTX pairs, names, modules: always */
    }
  return (w->from_ns != 0 && t < w->from_ns) || (w->to_ns != 0 && t >= w->to_ns);
}

static uint64_t db_size (sqlite3 *db,
                         bool     used_only);
static void     stop_recording (SlTraceWriter *w,
                                uint64_t       size);

bool
sl_trace_writer_add (SlTraceWriter      *w,
                     int32_t             pid,
                     const SlWireHeader *h)
{
  Process *p;
  bool ok = false;

  if (h->size < fixed_size (h->type) || (h->size & 7) != 0 || !begin_tx (w))
    {
      w->n_bad++;
      return false;
    }
  if (outside_window (w, h) || w->stop_reason != NULL)
    return true; /* left out: before --delay, after --duration, past --max-size */
  /* --max-size alone: looked at every 4096 records too, not only after a commit, whose 100 ms
   * of a fast program's OS calls are megabytes */
  if (w->max_size != 0 && w->keep_ns == 0 && ++w->size_due >= 4096)
    {
      w->size_due = 0;
      uint64_t size = db_size (w->db, false);
      if (size >= w->max_size)
        {
          stop_recording (w, size);
          return true;
        }
    }
  if (h->type == SL_WIRE_SCHED)
    return add_sched (w, (const SlWireSched *) h);
  if (h->type == SL_WIRE_PROCESS)
    {
      const SlWireProcess *r = (const SlWireProcess *) h;
      const char *cmd = record_text (h, sizeof *r);
      p = r->pid > 0 && cmd != NULL ? process_get (w, r->pid) : NULL;
      if (p == NULL)
        {
          w->n_bad++;
          return false;
        }
      process_info (w, p, r->time_ns, r->ppid, cmd);
      return true;
    }
  p = process_get (w, pid);
  if (p == NULL)
    return false;
  switch (h->type)
    {
    case SL_WIRE_HELLO:
      {
        const SlWireHello *hello = (const SlWireHello *) h;
        const char *cmd = record_text (h, sizeof *hello);
        if (cmd == NULL || hello->magic != SL_WIRE_MAGIC)
          break;
        /* a second HELLO of the same pid: it ran exec, and is the new program from now on.
         * PROCESSES.name is the program's name, as nsys has it; the command line goes into
         * META_DATA_CAPTURE and SL_PROCESS_INFO */
        process_info (w, p, hello->start_ns, hello->ppid, cmd);
        p->ppid = hello->ppid;
        {
          /* "rank=N" after the command line (sl-wire.h): once a process, and again after an
           * exec, whatever /proc said since */
          const char *rank = cmd + strlen (cmd) + 1;
          const char *end = (const char *) h + h->size;
          char *num_end = NULL;
          if (rank + 5 < end && strncmp (rank, "rank=", 5) == 0 && memchr (rank, '\0', end - rank))
            {
              long r = strtol (rank + 5, &num_end, 10);
              char sql[160];
              if (*num_end == '\0' && r >= 0 && r <= INT32_MAX)
                {
                  snprintf (sql, sizeof sql, "UPDATE SL_PROCESS_INFO SET rank = %ld"
                            " WHERE globalPid = %" PRId64, r, gpid (p->pid));
                  sqlite3_exec (w->db, sql, NULL, NULL, NULL);
                }
            }
        }
        if (p->hello)
          {
            ok = true;
            break;
          }
        p->hello = true;
        p->name = strdup (cmd);
        ok = true;
        break;
      }
    case SL_WIRE_THREAD_NAME:
      {
        const char *name = record_text (h, sizeof (SlWireThreadName));
        if (name != NULL)
          {
            thread_name (w, pid, h->tid, ((const SlWireThreadName *) h)->time_ns, name);
            ok = true;
          }
        break;
      }
    case SL_WIRE_OSRT:
      {
        const SlWireOsrt *o = (const SlWireOsrt *) h;
        if (o->end_ns < o->start_ns || o->func >= SL_OSRT_N_FUNCS)
          break;
        sqlite3_stmt *st = w->stmts[ST_OSRT];
        sqlite3_bind_int64 (st, 1, (int64_t) o->start_ns);
        sqlite3_bind_int64 (st, 2, (int64_t) o->end_ns);
        sqlite3_bind_int64 (st, 3, gtid (pid, h->tid));
        if (w->osrt_name[o->func] == 0)
          w->osrt_name[o->func] = intern (w, sl_wire_osrt_name (o->func));
        sqlite3_bind_int64 (st, 4, w->osrt_name[o->func]);
        sqlite3_bind_int64 (st, 5, o->ret);
        sqlite3_bind_int64 (st, 6, add_osrt_chain (w, p, h));
        step_event (w, st);
        seen_time (w, p, o->start_ns, o->end_ns);
        ok = true;
        break;
      }
    case SL_WIRE_NVTX:
      ok = add_nvtx (w, p, h);
      break;
    case SL_WIRE_SAMPLE:
      ok = add_sample (w, p, h);
      break;
    case SL_WIRE_MODULE:
      {
        const SlWireModule *m = (const SlWireModule *) h;
        const char *path = record_text (h, sizeof *m);
        if (path != NULL && m->end > m->start)
          {
            sl_symbolizer_add_module (w->symbols, pid, m->base, m->start, m->end, path);
            p->native_gen++;
            ok = true;
          }
        break;
      }
    case SL_WIRE_PYCODE:
      ok = (w->py_codes != NULL || (w->py_codes = sl_py_codes_new ()) != NULL)
           && sl_py_codes_add (w->py_codes, pid, h);
      p->py_gen++;
      break;
    case SL_WIRE_DROPPED:
      {
        const SlWireDropped *d = (const SlWireDropped *) h;
        if (d->source >= SL_DROP_PYTHON && d->source <= SL_DROP_PYTHON_CODE)
          {
            /* not lost: samples kept with their native frames only */
            w->n_py_unread[d->source - SL_DROP_PYTHON] += d->count;
            ok = true;
            break;
          }
        if (d->source == SL_DROP_GRAPH_EXEC)
          {
            /* not lost either: rows with graphExecId 0, said once at the end */
            w->n_graph_exec_lost += d->count;
            ok = true;
            break;
          }
        static const char *const sources[] = { "ring buffer full", "CUPTI", "samples" };
        sqlite3_stmt *st = w->stmts[ST_DROPPED];
        sqlite3_bind_int64 (st, 1, (int64_t) d->time_ns);
        sqlite3_bind_int64 (st, 2, gpid (pid));
        sqlite3_bind_text (st, 3, d->source < 3 ? sources[d->source] : "unknown", -1,
                           SQLITE_STATIC);
        sqlite3_bind_int64 (st, 4, (int64_t) d->count);
        sqlite3_step (st);
        sqlite3_reset (st);
        w->n_dropped += d->count;
        ok = true;
        break;
      }
    case SL_WIRE_DIAGNOSTIC:
      ok = add_diagnostic (w, pid, (const SlWireDiagnostic *) h);
      break;
    case SL_WIRE_BYE:
      ok = true;
      break;
    case SL_WIRE_CUDA_BACKTRACE:
      ok = add_cuda_backtrace (w, p, h);
      break;
    case SL_WIRE_CUDA_MEMORY:
      ok = add_cuda_memory (w, p, h);
      break;
    case SL_WIRE_UM:
      ok = add_um (w, p, h);
      break;
    case SL_WIRE_GPU_METRIC_SET:
      ok = add_gpu_metric_set (w, h);
      break;
    case SL_WIRE_GPU_METRICS:
      ok = add_gpu_metrics (w, h);
      break;
    case SL_WIRE_MPI:
      ok = add_mpi (w, p, h);
      break;
    case SL_WIRE_MPI_COMM:
      ok = add_mpi_comm (w, p, h);
      break;
    case SL_WIRE_OPENMP:
      ok = add_openmp (w, p, h);
      break;
    default:
      ok = add_gpu_record (w, p, h);
      break;
    }
  if (!ok)
    w->n_bad++;
  return ok;
}

void
sl_trace_writer_process_ended (SlTraceWriter *w,
                               int32_t        pid,
                               int            wait_status,
                               bool           known)
{
  Process *p = process_get (w, pid);

  (void) wait_status;
  (void) known;
  if (p == NULL || w->stop_reason != NULL || !begin_tx (w))
    return;
  /* ranges still open when the process ended (it crashed inside them) end with it, as nsys
   * draws them */
  for (size_t t = 0; t < p->n_threads; t++)
    while (p->threads[t].depth > 0)
      {
        ThreadStack *ts = &p->threads[t];
        ts->depth--;
        uint64_t end = p->last_time > ts->stack[ts->depth].start ? p->last_time
                                                                  : ts->stack[ts->depth].start;
        nvtx_row (w, pid, ts->tid, ts->tid, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE,
                  ts->stack[ts->depth].start, &end, &ts->stack[ts->depth]);
      }
  for (size_t i = 0; i < p->n_started; i++)
    {
      StartedRange *s = &p->started[i];
      uint64_t end = p->last_time > s->r.start ? p->last_time : s->r.start;
      nvtx_row (w, pid, s->tid, s->tid, SL_EVENT_TYPE_NVTX_START_END_RANGE, s->r.start, &end,
                &s->r);
    }
  p->n_started = 0;
}

/* ---- a flight recorder (--keep-last) and a bounded trace (--max-size) ----
 *
 * --keep-last keeps the events of the last DURATION, so that every report of that window (`stats
 * --range`, which takes the events that START in it, model/sl-stats.h) is the same in a keep-last
 * file and in a full recording cut to it.  Rows go in whole chunks: the window's start (`cut`)
 * moves in steps of DURATION/8 (at least 100 ms) on multiples of the step, so between steps the
 * file holds DURATION to DURATION + a chunk, and at the end (and in a snapshot) exactly DURATION
 * before the last event.  Each step is one transaction of DELETEs through an index on the column
 * each table is cut by (SIGHTLINE_KEEP_*, made by the first step; on a column that grows with
 * the rowid an index costs an insert little): a step costs the rows it deletes, not the window.
 *
 * What goes: an event with a duration when it ENDED before the cut, an instant (a sample, a
 * context switch, a mark, an allocation, a metric sample) when it happened before.  So an event
 * that overlaps the window's start stays: reports that clip busy time to the window (rank_sum,
 * GPU utilization) see what the full recording has there, and those that count what starts in it
 * leave it out in both files.  Besides, what stays:
 *  - the CUDA API call that launched GPU work still there (same process and correlationId),
 *    however early it ended: a kernel keeps its launch, as cuda_kern_exec_sum reads a window
 *    ("the kernels, with their launch calls wherever those start");
 *  - NVTX ranges that end after the earliest call kept, so that the range around a kept launch
 *    stays (nvtx_kern_sum, nvtx_gpu_proj_sum project ranges through their calls);
 *  - for such a range that started before the cut, the earliest piece of its GPU work that
 *    started before too, with its launch (protect_projections(): one per range), so that its
 *    projection starts before the window here as in the full recording;
 *  - what is not an event: processes, threads and their names, StringIds, TARGET_INFO_*, the
 *    session's start (TARGET_INFO_SESSION_START_TIME: time 0 stays the recording's start, so a
 *    keep-last file's times are the full recording's and `stats --range A:B` means the same in
 *    both), NVTX domain names (eventType 75), DIAGNOSTIC_EVENT and SIGHTLINE_DROPPED_RECORDS
 *    (a few rows);
 *  - the distinct call chains of samples (SIGHTLINE_CHAIN_FRAMES: as many as the program has
 *    distinct stacks, however long it runs).
 * The call-chain rows of rows that go (OSRT_CALLCHAINS, CUDA_CALLCHAINS, SIGHTLINE_SAMPLE_CHAINS)
 * go with them.  ANALYSIS_DETAILS.startTime is the cut.  SQLite reuses the freed pages, so the
 * file grows to the window's size and stays there; so does the daemon's memory (the writer keeps
 * no row, only names, chains and open NVTX ranges). */
static const struct
{
  const char *table, *column; /* cut by: the end, or an instant's time */
} keep_tables[] = {
  { "CUPTI_ACTIVITY_KIND_KERNEL", "end" },
  { "CUPTI_ACTIVITY_KIND_MEMCPY", "end" },
  { "CUPTI_ACTIVITY_KIND_MEMSET", "end" },
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "end" },
  { "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "end" },
  { "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "timestamp" },
  { "OSRT_API", "end" },
  { "COMPOSITE_EVENTS", "start" },
  { "SCHED_EVENTS", "start" },
  { "CUDA_GPU_MEMORY_USAGE_EVENTS", "start" },
  { "CUDA_UM_CPU_PAGE_FAULT_EVENTS", "start" },
  { "CUDA_UM_GPU_PAGE_FAULT_EVENTS", "end" },
  { "GPU_METRICS", "timestamp" },
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "end" },          /* but the launches (launch_kept) */
  { "NVTX_EVENTS", "coalesce(end, start)" },         /* marks have no end; ranges: nvtx_cut */
};

/* The GPU tables whose rows keep their launch call. */
static const char *const launch_tables[] = {
  "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
};

static bool
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  return sqlite3_table_column_metadata (db, "main", table, column, NULL, NULL, NULL, NULL, NULL)
         == SQLITE_OK;
}

/* (process, correlationId) sets of one prune, in temporary tables with a key: sl_keep_work, of
 * the GPU work that stays for its own sake (it ends at or after the cut), and sl_keep_ops, of
 * that kept for the NVTX projection (protect_projections()).  The rows that go are tested
 * against them by key: a row-valued NOT IN of a subquery cost SQLite a scan of the list per row
 * (two minutes a prune for 10^5 CUDA calls). */
#define KEEP_SET(set, pid, corr)                                                                    \
  "EXISTS (SELECT 1 FROM temp." set " k WHERE k.pid = " pid " AND k.corr = " corr ")"
#define CALL_PID "(globalTid & -16777216)" /* SL_GLOBAL_PID_MASK */
_Static_assert ((int64_t) SL_GLOBAL_PID_MASK == -16777216, "CALL_PID's mask is SL_GLOBAL_PID_MASK");

static bool
work_kept (sqlite3 *db,
           uint64_t cut,
           char   **msg)
{
  char sql[320];

  if (sqlite3_exec (db, "CREATE TEMP TABLE IF NOT EXISTS sl_keep_work (pid INTEGER NOT NULL, "
                        "corr INTEGER NOT NULL, PRIMARY KEY (pid, corr)) WITHOUT ROWID; "
                        "CREATE TEMP TABLE IF NOT EXISTS sl_keep_ops (pid INTEGER NOT NULL, "
                        "corr INTEGER NOT NULL, PRIMARY KEY (pid, corr)) WITHOUT ROWID; "
                        "DELETE FROM temp.sl_keep_work; DELETE FROM temp.sl_keep_ops",
                    NULL, NULL, msg)
      != SQLITE_OK)
    return false;
  for (size_t i = 0; i < sizeof launch_tables / sizeof launch_tables[0]; i++)
    {
      if (!has_column (db, launch_tables[i], "correlationId"))
        continue;
      snprintf (sql, sizeof sql, "INSERT OR IGNORE INTO temp.sl_keep_work (pid, corr) SELECT "
                                 "globalPid, correlationId FROM %s WHERE end >= %" PRIu64
                                 " AND globalPid IS NOT NULL AND correlationId IS NOT NULL",
                launch_tables[i], cut);
      if (sqlite3_exec (db, sql, NULL, NULL, msg) != SQLITE_OK)
        return false;
    }
  return true;
}

/* The GPU work kept for the NVTX projection (temp.sl_keep_ops): nvtx_gpu_proj_* take a range by
 * the start of the work launched inside it, over the whole trace.  A range open at the cut, or
 * one around a launch kept, whose work started before the cut must keep some of that work, or it
 * would seem to start its work in the window: the earliest piece of it that would go stays, with
 * its launch (one per such range: an epoch-long range keeps one kernel, not its hour).  Which
 * ranges need it is decided without the pieces kept so, so that they never keep each other. */
static bool
protect_projections (sqlite3 *db,
                     uint64_t cut,
                     char   **msg)
{
  static const char *const ops[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                     "CUPTI_ACTIVITY_KIND_MEMSET" };
  char going[768], sql[4096];
  size_t len = 0;

  if (!has_column (db, "NVTX_EVENTS", "endGlobalTid")
      || !has_column (db, "CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId"))
    return true;
  /* a launch found from its work by key, not by a scan of the window's calls */
  if (sqlite3_exec (db, "CREATE INDEX IF NOT EXISTS SIGHTLINE_KEEP_RUNTIME_CORRELATION ON "
                        "CUPTI_ACTIVITY_KIND_RUNTIME (correlationId)",
                    NULL, NULL, msg)
      != SQLITE_OK)
    return false;
  /* the work that would go (it ended before the cut) */
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (has_column (db, ops[i], "correlationId"))
      len += (size_t) snprintf (going + len, sizeof going - len,
                                "%sSELECT globalPid, correlationId, start FROM %s WHERE end < %"
                                PRIu64,
                                len > 0 ? " UNION ALL " : "", ops[i], cut);
  if (len == 0 || len >= sizeof going)
    return len == 0;
  len = (size_t) snprintf (
      sql, sizeof sql,
      "INSERT OR IGNORE INTO temp.sl_keep_ops (pid, corr) SELECT pid, corr FROM ("
      /* per range, the earliest such piece launched inside it (SQLite takes the bare columns
       * from the row of min()) */
      "SELECT c.pid AS pid, c.corr AS corr, min(c.os) FROM NVTX_EVENTS n JOIN ("
      "SELECT o.globalPid AS pid, o.correlationId AS corr, o.start AS os, r.globalTid AS tid, "
      /* each piece's launch by key (CROSS JOIN keeps that order; LIMIT -1 keeps the subquery
       * whole rather than flattened into a scan of the window's calls per range) */
      "r.start AS ls, r.end AS le FROM (%s) o CROSS JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
      "ON r.correlationId = o.correlationId AND (r.globalTid & %" PRId64 ") = o.globalPid "
      "WHERE r.start < %" PRIu64 " LIMIT -1) c ON c.tid = n.globalTid AND c.ls >= n.start "
      "AND c.le <= n.end "
      /* ranges on one thread, open at the cut or around a launch of work that stays */
      "WHERE n.eventType IN (59, 60) AND n.start < %" PRIu64 " AND (n.endGlobalTid IS NULL OR "
      "n.endGlobalTid = n.globalTid) AND (n.end >= %" PRIu64 " OR EXISTS (SELECT 1 FROM "
      "CUPTI_ACTIVITY_KIND_RUNTIME l WHERE l.end < %" PRIu64 " AND l.end >= n.start AND "
      "l.globalTid = n.globalTid AND l.start >= n.start AND l.end <= n.end AND " KEEP_SET ("sl_keep_work", "(l.globalTid & "
      "-16777216)", "l.correlationId") ")) GROUP BY n.rowid)",
      going, SL_GLOBAL_PID_MASK, cut, cut, cut, cut);
  if (len >= sizeof sql)
    return true; /* cannot be: the tables' names are ours */
  return sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK;
}

/* The earliest start of the CUDA calls kept before `cut` (launches of work that stays for its
 * own sake, not those kept for the projection), or `cut`. */
static uint64_t
nvtx_cut (sqlite3 *db,
          uint64_t cut)
{
  char sql[320];
  sqlite3_stmt *st = NULL;
  uint64_t at = cut;

  snprintf (sql, sizeof sql, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE end < %"
                             PRIu64 " AND NOT " KEEP_SET ("sl_keep_ops", CALL_PID, "correlationId"),
            cut);
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW
      && sqlite3_column_type (st, 0) == SQLITE_INTEGER
      && (uint64_t) sqlite3_column_int64 (st, 0) < cut)
    at = (uint64_t) sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return at;
}

/* Deletes the events that ended before `cut` from `db` (the recording, or a snapshot's copy) in
 * one transaction; `*n_deleted` the event rows gone.  false with SQLite's message in *msg. */
static bool
prune (sqlite3  *db,
       uint64_t  cut,
       uint64_t *n_deleted,
       char    **msg)
{
  /* a CUDA call that launched work that stays stays with it */
  static const char kept[] = " AND NOT " KEEP_SET ("sl_keep_work", CALL_PID, "correlationId")
                             " AND NOT " KEEP_SET ("sl_keep_ops", CALL_PID, "correlationId");
  static const char protected[] = " AND NOT " KEEP_SET ("sl_keep_ops", "globalPid",
                                                        "correlationId");
  char sql[2048];
  bool ok = sqlite3_exec (db, "BEGIN", NULL, NULL, msg) == SQLITE_OK;

  *n_deleted = 0;
  ok = ok && work_kept (db, cut, msg) && protect_projections (db, cut, msg);
  for (size_t i = 0; ok && i < sizeof keep_tables / sizeof keep_tables[0]; i++)
    {
      const char *t = keep_tables[i].table, *c = keep_tables[i].column;
      const char *also = strcmp (t, "CUPTI_ACTIVITY_KIND_RUNTIME") == 0 ? kept
                         : strcmp (t, "CUPTI_ACTIVITY_KIND_KERNEL") == 0
                             || strcmp (t, "CUPTI_ACTIVITY_KIND_MEMCPY") == 0
                             || strcmp (t, "CUPTI_ACTIVITY_KIND_MEMSET") == 0
                           ? protected
                           : "";
      uint64_t at = cut;
      if (!has_column (db, t, strcmp (t, "NVTX_EVENTS") == 0 ? "end" : c))
        continue;
      if (strcmp (t, "NVTX_EVENTS") == 0)
        {
          /* after the calls' rows went: those left before the cut are launches kept */
          at = nvtx_cut (db, cut);
          also = " AND eventType IN (34, 59, 60)"; /* marks and ranges, not domains' names */
        }
      snprintf (sql, sizeof sql, "CREATE INDEX IF NOT EXISTS SIGHTLINE_KEEP_%s ON %s (%s)", t, t,
                c);
      ok = sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK;
      /* the rows that point at those that go, first */
      if (ok && strcmp (t, "COMPOSITE_EVENTS") == 0
          && has_column (db, "SIGHTLINE_SAMPLE_CHAINS", "sampleId"))
        {
          snprintf (sql, sizeof sql, "DELETE FROM SIGHTLINE_SAMPLE_CHAINS WHERE sampleId IN "
                                     "(SELECT id FROM COMPOSITE_EVENTS WHERE start < %" PRIu64 ")",
                    at);
          ok = sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK;
        }
      const char *chains = strcmp (t, "OSRT_API") == 0 ? "OSRT_CALLCHAINS"
                           : strcmp (t, "CUPTI_ACTIVITY_KIND_RUNTIME") == 0 ? "CUDA_CALLCHAINS"
                                                                             : NULL;
      if (ok && chains != NULL && has_column (db, chains, "id"))
        {
          snprintf (sql, sizeof sql, "DELETE FROM %s WHERE id IN (SELECT callchainId FROM %s "
                                     "WHERE %s < %" PRIu64 " AND callchainId > 0%s)",
                    chains, t, c, at, also);
          ok = sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK;
        }
      if (ok)
        {
          snprintf (sql, sizeof sql, "DELETE FROM %s WHERE %s < %" PRIu64 "%s", t, c, at, also);
          ok = sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK;
          *n_deleted += (uint64_t) sqlite3_changes (db);
        }
    }
  if (ok)
    {
      /* where the window starts now, for a reader (the live view: rows were deleted, not only
       * at the start of each table, when this grew since it last read) */
      char value[32];
      snprintf (sql, sizeof sql, "UPDATE ANALYSIS_DETAILS SET startTime = %" PRIu64 ", "
                                 "duration = max(stopTime - %" PRIu64 ", 0) "
                                 "WHERE startTime < %" PRIu64 "; "
                                 "UPDATE META_DATA_CAPTURE SET value = '%" PRIu64 "' "
                                 "WHERE name = 'KEEP_LAST_FROM'",
                cut, cut, cut, cut);
      snprintf (value, sizeof value, "%" PRIu64, cut);
      ok = sqlite3_exec (db, sql, NULL, NULL, msg) == SQLITE_OK
           && (sqlite3_changes (db) > 0
               || sl_schema_add_meta (db, "META_DATA_CAPTURE", "KEEP_LAST_FROM", value, msg))
           && sqlite3_exec (db, "COMMIT", NULL, NULL, msg) == SQLITE_OK;
    }
  if (!ok)
    sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
  return ok;
}

/* The recording's events before `cut` go (between commits: no transaction is open). */
static bool
prune_to (SlTraceWriter *w,
          uint64_t       cut,
          char         **error)
{
  uint64_t n = 0;
  char *msg = NULL;

  if (cut <= w->cut)
    return true;
  if (!prune (w->db, cut, &n, &msg))
    {
      if (error != NULL)
        *error = fmt ("%s: cannot drop the events before the --keep-last window: %s%s", w->path,
                      msg != NULL ? msg : sqlite3_errmsg (w->db), write_limit_reason (w->path));
      sqlite3_free (msg);
      return false;
    }
  w->cut = cut;
  if (w->t_min < cut)
    w->t_min = cut;
  w->n_events = w->n_events > n ? w->n_events - n : 0;
  w->n_committed = w->n_events;
  return true;
}

/* The window's exact start at the end and in a snapshot: DURATION before the last event; 0 when
 * the recording is not longer than that. */
static uint64_t
exact_cut (const SlTraceWriter *w)
{
  if (w->keep_ns == 0 || w->t_min == UINT64_MAX || w->t_max < w->t_min
      || w->t_max - w->t_min <= w->keep_ns)
    return 0;
  return w->t_max - w->keep_ns;
}

/* A size from PRAGMA page_count (or freelist_count) times page_size. */
static uint64_t
pragma_pages (sqlite3    *db,
              const char *pragma)
{
  sqlite3_stmt *st = NULL;
  uint64_t n = 0;

  if (sqlite3_prepare_v2 (db, pragma, -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    n = (uint64_t) sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return n;
}

static uint64_t
db_size (sqlite3 *db,
         bool     used_only)
{
  uint64_t pages = pragma_pages (db, "PRAGMA page_count");
  uint64_t free_pages = used_only ? pragma_pages (db, "PRAGMA freelist_count") : 0;

  return (pages > free_pages ? pages - free_pages : 0) * pragma_pages (db, "PRAGMA page_size");
}

/* "20 MiB" */
static void
format_size (uint64_t bytes,
             char    *out,
             size_t   size)
{
  static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
  int u = 0;
  double v = (double) bytes;

  while (v >= 1024 && u < 5)
    {
      v /= 1024;
      u++;
    }
  snprintf (out, size, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
}

/* --max-size without --keep-last: the file reached it.  One diagnostic says where, committed;
 * what comes after is not written (sl_trace_writer_add() takes and drops it). */
static void
stop_recording (SlTraceWriter *w,
                uint64_t       size)
{
  char limit[32], now[32], text[320];
  uint64_t at = w->t_max != 0 ? w->t_max : (uint64_t) w->session_start;
  int64_t rel = (int64_t) at - w->session_start;

  format_size (w->max_size, limit, sizeof limit);
  format_size (size, now, sizeof now);
  snprintf (text, sizeof text,
            "recording stopped at %" PRId64 ".%03" PRId64 " s: the trace reached --max-size %s "
            "(%s); the program went on unrecorded",
            rel / 1000000000, (rel < 0 ? -rel : rel) % 1000000000 / 1000000, limit, now);
  w->stop_reason = strdup (text);
  if (write_diagnostic (w, at, SL_DIAG_WARNING, text, 0))
    sl_trace_writer_add_meta (w, "MAX_SIZE_REACHED", text);
  if (sqlite3_exec (w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    sqlite3_exec (w->db, "ROLLBACK", NULL, NULL, NULL);
  w->in_tx = false;
}

/* After each commit: the --keep-last window moves on by whole chunks, and --max-size either
 * drops the oldest chunks (with --keep-last: the newest events under SIZE) or stops. */
static bool
bound (SlTraceWriter *w,
       char         **error)
{
  if (w->keep_ns != 0 && w->t_min != UINT64_MAX && w->t_max > w->keep_ns + w->chunk_ns)
    {
      uint64_t cut = (w->t_max - w->keep_ns) / w->chunk_ns * w->chunk_ns;
      if (cut > w->t_min && !prune_to (w, cut, error))
        return false;
    }
  if (w->max_size == 0 || w->stop_reason != NULL)
    return true;
  if (w->keep_ns == 0)
    {
      uint64_t size = db_size (w->db, false);
      if (size >= w->max_size)
        stop_recording (w, size);
      return true;
    }
  /* room for the next commits in pages already freed: down to 7/8 of SIZE, an eighth of what is
   * kept at a time (the window's chunks may be longer than all the file holds) */
  for (int i = 0; i < 64 && db_size (w->db, true) > w->max_size - w->max_size / 8; i++)
    {
      uint64_t from = w->cut > w->t_min ? w->cut : w->t_min;
      if (w->t_min == UINT64_MAX || w->t_max <= from + 8)
        break;
      if (!prune_to (w, from + (w->t_max - from) / 8, error))
        return false;
    }
  return true;
}

void
sl_trace_writer_set_keep_last (SlTraceWriter *w,
                               uint64_t       keep_ns)
{
  w->keep_ns = keep_ns;
  w->chunk_ns = keep_ns / 8 > 100000000 ? keep_ns / 8 : 100000000;
}

void
sl_trace_writer_set_max_size (SlTraceWriter *w,
                              uint64_t       bytes)
{
  w->max_size = bytes;
}

const char *
sl_trace_writer_stop_reason (const SlTraceWriter *w)
{
  return w->stop_reason;
}

uint64_t
sl_trace_writer_kept_from (const SlTraceWriter *w)
{
  return w->cut;
}

static bool expand_chains_db (sqlite3 *db, const char *path, uint64_t max_size, char **error);

bool
sl_trace_writer_snapshot (SlTraceWriter *w,
                          const char    *path,
                          bool           force,
                          char         **error)
{
  struct stat st;
  sqlite3 *dst = NULL;
  char *msg = NULL;
  uint64_t n;
  bool ok;

  if (!sl_trace_writer_commit (w, error))
    return false;
  if (!force && lstat (path, &st) == 0)
    {
      *error = fmt ("%s: already exists (use --force to overwrite it)", path);
      return false;
    }
  if (force)
    unlink (path);
  /* the committed state, page by page: no transaction of ours is open, and a backup of a database
   * is a consistent copy of one state of it */
  if (sqlite3_open_v2 (path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    {
      *error = fmt ("%s: cannot create: %s", path, dst ? sqlite3_errmsg (dst) : "out of memory");
      sqlite3_close (dst);
      return false;
    }
  sqlite3_backup *b = sqlite3_backup_init (dst, "main", w->db, "main");
  ok = b != NULL && sqlite3_backup_step (b, -1) == SQLITE_DONE;
  if (b != NULL)
    ok = sqlite3_backup_finish (b) == SQLITE_OK && ok;
  if (!ok)
    *error = fmt ("%s: cannot copy the recording: %s%s", path, sqlite3_errmsg (dst),
                  write_limit_reason (path));
  /* then, on the copy, what the end of a recording does: the exact window, the call stacks */
  sqlite3_exec (dst, "PRAGMA synchronous = OFF", NULL, NULL, NULL);
  if (ok && exact_cut (w) > w->cut && !prune (dst, exact_cut (w), &n, &msg))
    {
      *error = fmt ("%s: %s", path, msg != NULL ? msg : sqlite3_errmsg (dst));
      ok = false;
    }
  sqlite3_free (msg);
  if (ok && !expand_chains_db (dst, path, w->max_size, error))
    ok = false;
  if (sqlite3_close (dst) != SQLITE_OK && ok)
    {
      *error = fmt ("%s: cannot close", path);
      ok = false;
    }
  if (!ok)
    unlink (path);
  return ok;
}

bool
sl_trace_writer_commit (SlTraceWriter *w,
                        char         **error)
{
  if (!begin_tx (w))
    {
      *error = fmt ("%s: cannot write: %s", w->path, sqlite3_errmsg (w->db));
      return false;
    }
  flush_samples (w);
  if (w->t_max >= w->t_min && w->t_min != UINT64_MAX)
    {
      sqlite3_stmt *st = w->stmts[ST_ANALYSIS];
      sqlite3_bind_int64 (st, 1, INT64_C (1) << 48);
      sqlite3_bind_int64 (st, 2, (int64_t) (w->t_max - w->t_min));
      sqlite3_bind_int64 (st, 3, (int64_t) w->t_min);
      sqlite3_bind_int64 (st, 4, (int64_t) w->t_max);
      sqlite3_step (st);
      sqlite3_reset (st);
    }
  int rc = sqlite3_exec (w->db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      /* SQLITE_FULL: the disk is full; EFBIG (an I/O error to SQLite): the file-size limit.
       * Roll back this batch; what was committed stays. */
      const char *limit = write_limit_reason (w->path);
      bool full = rc == SQLITE_FULL || *limit != '\0';
      *error = fmt ("%s: cannot write (%s)%s%s", w->path, sqlite3_errmsg (w->db),
                    *limit != '\0' ? limit : rc == SQLITE_FULL ? ": the disk is full" : "",
                    full ? "; the trace keeps what was recorded before" : "");
      sqlite3_exec (w->db, "ROLLBACK", NULL, NULL, NULL);
      w->in_tx = false;
      w->n_events = w->n_committed;
      /* the chains first written in this batch went with it: write each again when next met */
      sl_chains_clear (&w->chains);
      return false;
    }
  w->in_tx = false;
  w->n_committed = w->n_events;
  return bound (w, error);
}

bool
sl_trace_writer_end (SlTraceWriter *w,
                     char         **error)
{
  for (size_t i = 0; i < w->n_procs; i++)
    sl_trace_writer_process_ended (w, w->procs[i].pid, 0, false);
  uint64_t *why = w->n_py_unread;
  if (why[0] + why[1] + why[2] > 0)
    {
      /* the total, and what made them unreadable (a test's failure names it) */
      char n[32], text[160];
      snprintf (n, sizeof n, "%" PRIu64, why[0] + why[1] + why[2]);
      sl_trace_writer_add_meta (w, "PythonStacksUnread", n);
      snprintf (text, sizeof text,
                "interpreter not known: %" PRIu64 ", stack being changed: %" PRIu64
                ", code object unreadable: %" PRIu64, why[0], why[1], why[2]);
      sl_trace_writer_add_meta (w, "PythonStacksUnreadWhy", text);
      memset (why, 0, sizeof w->n_py_unread); /* once, whether ended by _end() or _finish() */
    }
  if (w->n_graph_exec_lost > 0)
    {
      char text[320];
      snprintf (text, sizeof text,
                "%" PRIu64 " CUDA graph launches have graphExecId 0 in "
                "CUPTI_ACTIVITY_KIND_GRAPH_TRACE: more launches were in flight than the "
                "injection library's table of launches holds (%u), and theirs were overwritten",
                w->n_graph_exec_lost, (unsigned) SL_WIRE_GRAPH_EXEC_SLOTS);
      write_diagnostic (w, w->t_max, SL_DIAG_WARNING, text, 0);
      w->n_graph_exec_lost = 0;
    }
  if (!sl_trace_writer_commit (w, error))
    return false;
  /* a flight recorder's file ends DURATION after its window's start, exactly */
  return exact_cut (w) <= w->cut || prune_to (w, exact_cut (w), error);
}

/* The samples' chains into SAMPLING_CALLCHAINS, a row per sample and frame in (id, stackDepth)
 * order as they were written one by one before, in one transaction with the side tables' drop:
 * a reader sees either.  Samples in id order (the rowid), each one's frames by the key of
 * SIGHTLINE_CHAIN_FRAMES: CROSS JOIN keeps that nesting, so no sort.  ≈ 0.1 s for 200,000 rows.
 * On failure (disk full) the side tables stay, and the model reads them. */
static bool
expand_chains_db (sqlite3    *db,
                  const char *path,
                  uint64_t    max_size,
                  char      **error)
{
  char *msg = NULL;
  uint64_t before = max_size != 0 ? db_size (db, false) : 0;

  if (!has_column (db, "SIGHTLINE_SAMPLE_CHAINS", "chainId"))
    return true; /* expanded already */
  if (sqlite3_exec (db, "BEGIN; "
                        "INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, kernelMode, "
                        "thumbCode, unresolved, specialEntry, originalIP, unwindMethod, "
                        "stackDepth) "
                        "SELECT s.sampleId, f.symbol, f.module, 0, 0, f.unresolved, 0, "
                        "f.originalIP, f.unwindMethod, f.stackDepth FROM SIGHTLINE_SAMPLE_CHAINS s "
                        "CROSS JOIN SIGHTLINE_CHAIN_FRAMES f ON f.chainId = s.chainId "
                        "ORDER BY s.sampleId, f.stackDepth; "
                        "DROP TABLE SIGHTLINE_SAMPLE_CHAINS; DROP TABLE SIGHTLINE_CHAIN_FRAMES",
                    NULL, NULL, &msg)
      == SQLITE_OK)
    {
      /* --max-size: a row per sample and frame may not take the file past SIZE (or past what it
       * holds when a last commit took it there); the side tables, which Sightline reads, stay */
      uint64_t after = max_size != 0 ? db_size (db, false) : 0;
      if (max_size != 0 && after > (before > max_size ? before : max_size))
        {
          sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
          sl_schema_add_meta (db, "META_DATA_CAPTURE", "SAMPLE_CHAINS_NOT_EXPANDED",
                              "SAMPLING_CALLCHAINS would take the trace past --max-size: the "
                              "samples' call stacks are in SIGHTLINE_SAMPLE_CHAINS and "
                              "SIGHTLINE_CHAIN_FRAMES",
                              NULL);
          return true;
        }
      if (sqlite3_exec (db, "COMMIT", NULL, NULL, &msg) == SQLITE_OK)
        return true;
    }
  if (error != NULL)
    *error = fmt ("%s: %s%s", path, msg != NULL ? msg : sqlite3_errmsg (db),
                  write_limit_reason (path));
  sqlite3_free (msg);
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
  if (error != NULL && *error != NULL)
    {
      char *e = fmt ("%s (the samples' call stacks stay in SIGHTLINE_SAMPLE_CHAINS and "
                     "SIGHTLINE_CHAIN_FRAMES, which Sightline reads; SAMPLING_CALLCHAINS is empty)",
                     *error);
      if (e != NULL)
        {
          free (*error);
          *error = e;
        }
    }
  return false;
}

bool
sl_trace_writer_finish (SlTraceWriter *w,
                        char         **error)
{
  bool ok = sl_trace_writer_end (w, error);

  for (int i = 0; i < N_ALL_STMTS; i++)
    sqlite3_finalize (w->stmts[i]);
  /* after the statements that name the side tables are gone */
  if (ok)
    ok = expand_chains_db (w->db, w->path, w->max_size, error);
  else
    expand_chains_db (w->db, w->path, w->max_size, NULL);
  if (sqlite3_close (w->db) != SQLITE_OK && ok)
    {
      *error = fmt ("%s: cannot close: %s", w->path, sqlite3_errmsg (w->db));
      ok = false;
    }
  for (size_t i = 0; i < w->strings.cap; i++)
    free (w->strings.slots[i].s);
  free (w->strings.slots);
  for (size_t i = 0; i < w->n_procs; i++)
    {
      Process *p = &w->procs[i];
      for (size_t t = 0; t < p->n_threads; t++)
        free (p->threads[t].stack);
      free (p->threads);
      free (p->started);
      free (p->domains);
      free (p->name);
      free (p->label);
      free (p->mpi_tids);
    }
  free (w->procs);
  free (w->omp_names);
  free (w->named);
  free (w->named_time);
  free (w->kernel_names);
  free (w->samples);
  free (w->frames);
  free (w->cuda_links);
  sl_symbolizer_free (w->symbols);
  sl_py_codes_free (w->py_codes);
  sl_frame_names_clear (&w->frame_names);
  sl_chains_clear (&w->chains);
  free (w->stop_reason);
  free (w->path);
  free (w);
  return ok;
}

uint64_t
sl_trace_writer_n_events (const SlTraceWriter *w)
{
  return w->n_events;
}

uint64_t
sl_trace_writer_n_dropped (const SlTraceWriter *w)
{
  return w->n_dropped;
}

uint64_t
sl_trace_writer_n_bad (const SlTraceWriter *w)
{
  return w->n_bad;
}
