/* sl-export-sqlite.c: a trace written as an nsys-schema SQLite file (the tables and columns of
 * collector/sl-schema.c, the daemon's own DDL), so that nsys-SQLite scripts and `sightline stats`
 * run on any trace Sightline opens, a Kineto JSON one included.
 *
 * Each model table goes back to its nsys table: strings keep their ids (StringIds), threads and
 * processes their global ids, GPU work its device, context, stream and correlation id, NVTX
 * ranges their domain (a NvtxDomainCreate row per process and domain) and kind (push/pop,
 * start/end, mark), OS runtime calls their backtraces, CPU samples their call chains, and the
 * ENUM_* tables the labels the trace was read with, so that names made from them (memcpy kinds,
 * sync types) come back the same.  Thread states read from SCHED_EVENTS become switches again
 * (an in and an out around each Running span, the out saying what state follows); states the
 * reader derived from samples and OS runtime calls are left out (it derives them again).
 * nsys's diagnostics go to a DIAGNOSTIC_EVENT table as nsys has it.  MPI calls go back to the
 * MPI_* table they came from, with the MPI_RANKS and MPI_COMMUNICATORS rows that give them their
 * ranks and communicators again.
 *
 * One transaction, prepared statements, journal off: 10^7 rows take seconds, not minutes.
 */
#include "sl-export-private.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sl-metrics.h"
#include "sl-mpi.h"
#include "sl-schema.h"
#include "sl-stats-private.h"

typedef struct
{
  SlTrace    *trace;
  sqlite3    *db;
  SlTime      t0, t1;
  const char *path;          /* the output, named in errors */
  GError    **error;
  gboolean    failed;
} Sql;

static gboolean
sql_fail (Sql        *s,
          const char *what)
{
  if (!s->failed)
    g_set_error (s->error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s: %s",
                 s->path, what, sqlite3_errmsg (s->db));
  s->failed = TRUE;
  return FALSE;
}

static gboolean
sql_exec (Sql        *s,
          const char *sql)
{
  if (s->failed)
    return FALSE;
  if (sqlite3_exec (s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return sql_fail (s, sql);
  return TRUE;
}

static sqlite3_stmt *
sql_prepare (Sql        *s,
             const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  if (s->failed)
    return NULL;
  if (sqlite3_prepare_v2 (s->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      sql_fail (s, sql);
      return NULL;
    }
  return stmt;
}

/* Steps a bound statement and resets it for the next row. */
static inline gboolean
sql_step (Sql          *s,
          sqlite3_stmt *stmt,
          const char   *table)
{
  if (G_UNLIKELY (sqlite3_step (stmt) != SQLITE_DONE))
    {
      sql_fail (s, table);
      sqlite3_reset (stmt);
      return FALSE;
    }
  sqlite3_reset (stmt);
  return TRUE;
}

static inline void
bind_str_or_null (sqlite3_stmt *stmt,
                  int           col,
                  guint32       id)
{
  if (id == SL_NO_STR)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, id);
}

/* ---- strings, processes, threads, GPUs ------------------------------------------------------ */

static void
write_strings (Sql *s)
{
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO StringIds (id, value) VALUES (?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < sl_trace_get_n_strs (s->trace) && !s->failed; i++)
    {
      sqlite3_bind_int64 (stmt, 1, i);
      sqlite3_bind_text (stmt, 2, sl_trace_str (s->trace, i), -1, SQLITE_STATIC);
      sql_step (s, stmt, "StringIds");
    }
  sqlite3_finalize (stmt);
}

static void
write_processes (Sql *s)
{
  SlTrace *trace = s->trace;
  gboolean info = FALSE;
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO PROCESSES (globalPid, pid, name) "
                                       "VALUES (?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < sl_trace_get_n_processes (trace) && !s->failed; i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, i);
      sqlite3_bind_int64 (stmt, 1, (gint64) p->global_pid);
      sqlite3_bind_int64 (stmt, 2, p->pid);
      sqlite3_bind_text (stmt, 3, sl_trace_str (trace, p->name), -1, SQLITE_STATIC);
      sql_step (s, stmt, "PROCESSES");
      info |= p->parent_pid != 0 || p->command_line != SL_NO_STR || p->rank >= 0;
    }
  sqlite3_finalize (stmt);

  /* Sightline's own table (collector/daemon/sl-trace-writer.c): parents, command lines, ranks */
  if (info && sql_exec (s, "CREATE TABLE SL_PROCESS_INFO (\n"
                           "  globalPid                        INTEGER  NOT NULL,\n"
                           "  pid                              INTEGER  NOT NULL,\n"
                           "  parentPid                        INTEGER,\n"
                           "  commandLine                      TEXT,\n"
                           "  rank                             INTEGER\n"
                           ")")
      && (stmt = sql_prepare (s, "INSERT INTO SL_PROCESS_INFO (globalPid, pid, parentPid, "
                                 "commandLine, rank) VALUES (?, ?, ?, ?, ?)")) != NULL)
    {
      for (guint i = 0; i < sl_trace_get_n_processes (trace) && !s->failed; i++)
        {
          const SlProcess *p = sl_trace_get_process (trace, i);
          sqlite3_bind_int64 (stmt, 1, (gint64) p->global_pid);
          sqlite3_bind_int64 (stmt, 2, p->pid);
          if (p->parent_pid != 0)
            sqlite3_bind_int64 (stmt, 3, p->parent_pid);
          else
            sqlite3_bind_null (stmt, 3);
          if (p->command_line != SL_NO_STR)
            sqlite3_bind_text (stmt, 4, sl_trace_str (trace, p->command_line), -1,
                               SQLITE_STATIC);
          else
            sqlite3_bind_null (stmt, 4);
          if (p->rank >= 0)
            sqlite3_bind_int64 (stmt, 5, p->rank);
          else
            sqlite3_bind_null (stmt, 5);
          sql_step (s, stmt, "SL_PROCESS_INFO");
        }
      sqlite3_finalize (stmt);
    }

  stmt = sql_prepare (s, "INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES (?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < sl_trace_get_n_threads (trace) && !s->failed; i++)
    {
      const SlThread *t = sl_trace_get_thread (trace, i);
      if (t->name == SL_NO_STR)
        continue;
      sqlite3_bind_int64 (stmt, 1, t->name);
      if (t->priority == SL_NO_PRIORITY)
        sqlite3_bind_null (stmt, 2);
      else
        sqlite3_bind_int64 (stmt, 2, t->priority);
      sqlite3_bind_int64 (stmt, 3, (gint64) t->global_tid);
      sql_step (s, stmt, "ThreadNames");
    }
  sqlite3_finalize (stmt);
}

static void
bind_text_or_null (sqlite3_stmt *stmt,
                   int           col,
                   SlTrace      *trace,
                   guint32       id)
{
  if (id == SL_NO_STR)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_text (stmt, col, sl_trace_str (trace, id), -1, SQLITE_STATIC);
}

static void
write_gpus (Sql *s)
{
  sqlite3_stmt *stmt = sql_prepare (
      s, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, uuid, chipName, totalMemory, "
         "memoryBandwidth, clockRate, smCount, computeMajor, computeMinor, threadsPerWarp, "
         "maxThreadsPerBlock, maxWarpsPerSm, maxBlocksPerSm, maxRegistersPerBlock, "
         "maxRegistersPerSm, maxShmemPerBlock, maxShmemPerBlockOptin, maxShmemPerSm) "
         "VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < sl_trace_get_n_gpus (s->trace) && !s->failed; i++)
    {
      const SlGpu *g = sl_trace_get_gpu (s->trace, i);
      const SlGpuLimits *l = &g->limits;
      int col = 1;
      if (!g->described)
        continue;   /* the reader names it "GPU n" again */
      sqlite3_bind_int64 (stmt, col++, g->device_id);
      bind_text_or_null (stmt, col++, s->trace, g->name);
      bind_text_or_null (stmt, col++, s->trace, g->bus_location);
      bind_text_or_null (stmt, col++, s->trace, g->uuid);
      bind_text_or_null (stmt, col++, s->trace, g->chip_name);
      sqlite3_bind_int64 (stmt, col++, g->total_memory);
      sqlite3_bind_int64 (stmt, col++, g->memory_bandwidth);
      sqlite3_bind_int64 (stmt, col++, g->clock_rate);
      const gint v[] = { l->sm_count, l->cc_major, l->cc_minor, l->warp_size,
                         l->max_threads_per_block, l->max_warps_per_sm, l->max_blocks_per_sm,
                         l->max_regs_per_block, l->max_regs_per_sm, l->max_smem_per_block,
                         l->max_smem_per_block_optin, l->max_smem_per_sm };
      for (guint k = 0; k < G_N_ELEMENTS (v); k++)
        sqlite3_bind_int64 (stmt, col++, v[k]);
      sql_step (s, stmt, "TARGET_INFO_GPU");
    }
  sqlite3_finalize (stmt);
}

/* The labels the trace was read with replace the schema's (an older export's words). */
static void
write_enum_labels (Sql *s)
{
  static const char *const tables[SL_N_ENUMS] = {
    [SL_ENUM_MEMCPY_OPER] = "ENUM_CUDA_MEMCPY_OPER",
    [SL_ENUM_MEM_KIND] = "ENUM_CUDA_MEM_KIND",
    [SL_ENUM_SYNC_TYPE] = "ENUM_CUPTI_SYNC_TYPE",
    [SL_ENUM_EVENT_CLASS] = "ENUM_NSYS_EVENT_CLASS",
    [SL_ENUM_LAUNCH_TYPE] = "ENUM_CUDA_KERNEL_LAUNCH_TYPE",
    [SL_ENUM_THREAD_STATE] = "ENUM_SAMPLING_THREAD_STATE",
    [SL_ENUM_THREAD_BLOCK] = "ENUM_SCHEDULING_THREAD_BLOCK",
    [SL_ENUM_DIAGNOSTIC_SEVERITY] = "ENUM_DIAGNOSTIC_SEVERITY_LEVEL",
    [SL_ENUM_DIAGNOSTIC_SOURCE] = NULL,
    [SL_ENUM_UM_MIGRATION] = "ENUM_CUDA_UNIF_MEM_MIGRATION",
  };

  for (guint e = 0; e < SL_N_ENUMS && !s->failed; e++)
    {
      GHashTable *labels = s->trace->enum_labels[e];
      if (tables[e] == NULL || labels == NULL || g_hash_table_size (labels) == 0)
        continue;
      g_autofree char *sql = g_strdup_printf ("INSERT INTO %s (id, name, label) VALUES (?, ?, ?) "
                                              "ON CONFLICT (id) DO UPDATE SET label = "
                                              "excluded.label", tables[e]);
      sqlite3_stmt *stmt = sql_prepare (s, sql);
      if (stmt == NULL)
        return;
      GHashTableIter iter;
      gpointer key, value;
      g_hash_table_iter_init (&iter, labels);
      while (g_hash_table_iter_next (&iter, &key, &value) && !s->failed)
        {
          sqlite3_bind_int64 (stmt, 1, *(const gint64 *) key);
          sqlite3_bind_text (stmt, 2, value, -1, SQLITE_STATIC);
          sqlite3_bind_text (stmt, 3, value, -1, SQLITE_STATIC);
          sql_step (s, stmt, tables[e]);
        }
      sqlite3_finalize (stmt);
    }
}

/* ---- events ------------------------------------------------------------------------------- */

enum
{
  ST_RUNTIME,
  ST_KERNEL,
  ST_MEMCPY,
  ST_MEMSET,
  ST_SYNC,
  ST_NVTX,
  ST_NVTX_DOMAIN,
  ST_OSRT,
  ST_SAMPLE,
  ST_SAMPLE_FRAME,
  ST_GRAPH,          /* prepared only when the trace has graph launches (the table is made then) */
  N_ST
};

static const char *const st_sql[N_ST] = {
  [ST_RUNTIME] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
                 "correlationId, nameId, returnValue, callchainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, demangledName, shortName, "
                "mangledName, launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, "
                "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
                "localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, "
                "tensorSizeMinusOneElements, graphNodeId, graphId) VALUES (?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, '', ?, ?)",
  [ST_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
                "dstKind, srcDeviceId, dstDeviceId, migrationCause, virtualAddress) VALUES (?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                "greenContextId, streamId, correlationId, globalPid, value, bytes, memKind) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [ST_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, "
              "greenContextId, streamId, correlationId, globalPid, syncType, eventId, eventSyncId) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  /* rowid: nsys's RangeId in nvtx_gpu_proj_trace, kept from the source file */
  [ST_NVTX] = "INSERT INTO NVTX_EVENTS (rowid, start, end, eventType, color, globalTid, textId, "
              "domainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  /* eventType 75: SL_EVENT_TYPE_NVTX_DOMAIN_CREATE */
  [ST_NVTX_DOMAIN] = "INSERT INTO NVTX_EVENTS (rowid, start, end, eventType, text, globalTid, "
                     "domainId) VALUES (?, ?, NULL, 75, ?, ?, ?)",
  /* eventClass 27: SL_EVENT_CLASS_OS_RUNTIME */
  [ST_OSRT] = "INSERT INTO OSRT_API (start, end, eventClass, globalTid, nameId, returnValue, "
              "callchainId, argumentsId) VALUES (?, ?, 27, ?, ?, ?, ?, 0)",
  [ST_SAMPLE] = "INSERT INTO COMPOSITE_EVENTS (id, start, threadState, globalTid, cpuCycles) "
                "VALUES (?, ?, ?, ?, 0)",
  [ST_SAMPLE_FRAME] = "INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, stackDepth) "
                      "VALUES (?, ?, ?, ?)",
  [ST_GRAPH] = "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start, end, deviceId, contextId, "
               "greenContextId, streamId, correlationId, globalPid, graphId, graphExecId) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};

typedef struct
{
  Sql          *s;
  sqlite3_stmt *st[N_ST];
  GHashTable   *domain_ids;   /* domain string id -> domainId */
  GHashTable   *domains_made; /* (pid << 32 | domainId) of the NvtxDomainCreate rows written */
  gint64        sample_id;
  gboolean      by_rowid;     /* NVTX rows keep the source file's rowids (_sl_nvtx_range_id) */
  gint64        next_rowid;   /* past every range's: for rows that have none */
  GHashTable   *cuda_chains;  /* chain index + 1 (the callchainId written) of the CUDA calls' */
} Rows;

static void
bind_gpu (sqlite3_stmt  *stmt,
          SlTrace       *trace,
          const SlLane  *lane,
          const SlEvent *ev)
{
  sqlite3_bind_int64 (stmt, 1, ev->start);
  sqlite3_bind_int64 (stmt, 2, ev->end);
  sqlite3_bind_int64 (stmt, 3, lane->gpu >= 0 ? sl_trace_get_gpu (trace, lane->gpu)->device_id
                                              : 0);
  sqlite3_bind_int64 (stmt, 4, lane->context_id);
  if (lane->green_context_id != 0)
    sqlite3_bind_int64 (stmt, 5, lane->green_context_id);
  else
    sqlite3_bind_null (stmt, 5);
  sqlite3_bind_int64 (stmt, 6, lane->stream_id);
  sqlite3_bind_int64 (stmt, 7, ev->corr);
  sqlite3_bind_int64 (stmt, 8, (gint64) lane->global_pid);
}

static void
bind_mem_kind (sqlite3_stmt *stmt,
               int           col,
               guint8        kind)
{
  if (kind == SL_MEM_KIND_NONE)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, kind);
}

static void
bind_device (sqlite3_stmt *stmt,
             int           col,
             gint16        device)
{
  if (device < 0)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, device);
}

static gboolean
write_gpu_event (Rows          *rows,
                 const SlLane  *lane,
                 const SlEvent *ev)
{
  SlTrace *trace = rows->s->trace;
  sqlite3_stmt *stmt;

  switch (lane->kind)
    {
    case SL_LANE_KERNELS:
      {
        const SlKernelInfo *k = sl_trace_get_kernel_info (trace, ev->aux);
        stmt = rows->st[ST_KERNEL];
        bind_gpu (stmt, trace, lane, ev);
        if (k == NULL)
          return TRUE;
        sqlite3_bind_int64 (stmt, 9, k->demangled_name);
        sqlite3_bind_int64 (stmt, 10, k->short_name);
        bind_str_or_null (stmt, 11, k->mangled_name);
        sqlite3_bind_int64 (stmt, 12, k->launch_type);
        sqlite3_bind_int64 (stmt, 13, k->cache_config);
        sqlite3_bind_int64 (stmt, 14, k->registers_per_thread);
        for (int i = 0; i < 3; i++)
          {
            sqlite3_bind_int64 (stmt, 15 + i, k->grid[i]);
            sqlite3_bind_int64 (stmt, 18 + i, k->block[i]);
          }
        sqlite3_bind_int64 (stmt, 21, k->static_shared);
        sqlite3_bind_int64 (stmt, 22, k->dynamic_shared);
        sqlite3_bind_int64 (stmt, 23, k->local_per_thread);
        sqlite3_bind_int64 (stmt, 24, k->shared_executed);
        /* a graph's node (--cuda-graph-trace=node); NULL for a kernel launched on its own */
        if (k->graph_id != 0)
          {
            sqlite3_bind_int64 (stmt, 25, (gint64) MIN (k->graph_node_id, G_MAXINT64));
            sqlite3_bind_int64 (stmt, 26, k->graph_id);
          }
        else
          {
            sqlite3_bind_null (stmt, 25);
            sqlite3_bind_null (stmt, 26);
          }
        return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_KERNEL");
      }
    case SL_LANE_GRAPHS:
      {
        const SlKernelInfo *k = sl_trace_get_kernel_info (trace, ev->aux);
        stmt = rows->st[ST_GRAPH];
        g_assert (stmt != NULL);
        bind_gpu (stmt, trace, lane, ev);
        sqlite3_bind_int64 (stmt, 9, k != NULL ? k->graph_id : 0);
        sqlite3_bind_int64 (stmt, 10, k != NULL ? k->graph_exec_id : 0);
        return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
      }
    case SL_LANE_MEMCPY:
    case SL_LANE_MEMSET:
      {
        const SlCopyInfo *info = ev->aux < trace->copy_infos->len
                                 ? sl_trace_get_copy_info (trace, ev->aux) : NULL;
        SlCopyInfo none = { 0, 0, 0, SL_MEM_KIND_NONE, SL_MEM_KIND_NONE, SL_MEM_KIND_NONE, -1, -1,
                            SL_MIGRATION_NONE, { 0 }, 0 };
        if (info == NULL)
          info = &none;
        if (lane->kind == SL_LANE_MEMCPY)
          {
            stmt = rows->st[ST_MEMCPY];
            bind_gpu (stmt, trace, lane, ev);
            sqlite3_bind_int64 (stmt, 9, (gint64) MIN (info->bytes, G_MAXINT64));
            sqlite3_bind_int64 (stmt, 10, info->copy_kind);
            bind_mem_kind (stmt, 11, info->src_kind);
            bind_mem_kind (stmt, 12, info->dst_kind);
            bind_device (stmt, 13, info->src_device);
            bind_device (stmt, 14, info->dst_device);
            if (info->migration_cause == SL_MIGRATION_NONE)
              sqlite3_bind_null (stmt, 15);
            else
              sqlite3_bind_int64 (stmt, 15, info->migration_cause);
            if (SL_COPY_KIND_IS_UNIFIED (info->copy_kind))
              sqlite3_bind_int64 (stmt, 16, (gint64) info->address);
            else
              sqlite3_bind_null (stmt, 16);
            return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_MEMCPY");
          }
        stmt = rows->st[ST_MEMSET];
        bind_gpu (stmt, trace, lane, ev);
        sqlite3_bind_int64 (stmt, 9, info->value);
        sqlite3_bind_int64 (stmt, 10, (gint64) MIN (info->bytes, G_MAXINT64));
        bind_mem_kind (stmt, 11, info->mem_kind);
        return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_MEMSET");
      }
    case SL_LANE_SYNC:
      stmt = rows->st[ST_SYNC];
      {
        bind_gpu (stmt, trace, lane, ev);
        sqlite3_bind_int64 (stmt, 9, ev->aux);
        /* the event it waited for, where it names one (SL_SCHEMA_ID_NONE: none) */
        const SlCudaWaitRow *w = _sl_trace_find_wait_row (trace, lane->global_pid, ev->corr,
                                                          ev->start);
        sqlite3_bind_int64 (stmt, 10, w != NULL && w->event_id != SL_NO_LINK ? w->event_id
                                                                             : SL_SCHEMA_ID_NONE);
        sqlite3_bind_int64 (stmt, 11, w != NULL && w->sync_id != SL_NO_LINK ? w->sync_id
                                                                            : SL_SCHEMA_ID_NONE);
        return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
      }
    default:
      return TRUE;
    }
}

/* The domainId of an NVTX domain (by its name) in the thread's process, its NvtxDomainCreate
 * row written the first time. */
static gint64
nvtx_domain (Rows           *rows,
             const SlThread *t,
             const SlEvent  *ev)
{
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (rows->domain_ids,
                                                    GUINT_TO_POINTER (ev->corr)));
  if (id == 0)
    {
      id = g_hash_table_size (rows->domain_ids) + 1;
      g_hash_table_insert (rows->domain_ids, GUINT_TO_POINTER (ev->corr), GUINT_TO_POINTER (id));
    }
  gint64 made = (gint64) (((guint64) t->pid << 32) | id);
  if (!g_hash_table_contains (rows->domains_made, &made))
    {
      sqlite3_stmt *stmt = rows->st[ST_NVTX_DOMAIN];
      g_hash_table_add (rows->domains_made, g_memdup2 (&made, sizeof made));
      sqlite3_bind_int64 (stmt, 1, rows->next_rowid++);
      sqlite3_bind_int64 (stmt, 2, ev->start);
      sqlite3_bind_text (stmt, 3, sl_trace_str (rows->s->trace, ev->corr), -1, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt, 4, (gint64) t->global_tid);
      sqlite3_bind_int64 (stmt, 5, id);
      sql_step (rows->s, stmt, "NVTX_EVENTS");
    }
  return id;
}

static gboolean
write_cpu_event (Rows           *rows,
                 const SlLane   *lane,
                 const SlThread *t,
                 const SlEvent  *ev)
{
  SlTrace *trace = rows->s->trace;
  sqlite3_stmt *stmt;

  switch (lane->kind)
    {
    case SL_LANE_CUDA_API:
      stmt = rows->st[ST_RUNTIME];
      sqlite3_bind_int64 (stmt, 1, ev->start);
      sqlite3_bind_int64 (stmt, 2, ev->end);
      sqlite3_bind_int64 (stmt, 3, ev->aux & 0xFF);
      sqlite3_bind_int64 (stmt, 4, (gint64) t->global_tid);
      sqlite3_bind_int64 (stmt, 5, ev->corr);
      sqlite3_bind_int64 (stmt, 6, ev->name);
      sqlite3_bind_int64 (stmt, 7, ev->aux >> 8);
      if (rows->cuda_chains != NULL)
        {
          /* the backtrace's id is its chain's index + 1 (calls with one stack share it; 0 is
           * no chain in the 2021 layout) */
          guint32 chain = _sl_trace_find_cuda_chain (trace, lane, ev);
          guint id = chain != G_MAXUINT32 ? chain + 1 : 0;
          if (id != 0)
            {
              g_hash_table_add (rows->cuda_chains, GUINT_TO_POINTER (id));
              sqlite3_bind_int64 (stmt, 8, id);
            }
          else
            sqlite3_bind_null (stmt, 8);
        }
      else
        sqlite3_bind_null (stmt, 8);
      return sql_step (rows->s, stmt, "CUPTI_ACTIVITY_KIND_RUNTIME");
    case SL_LANE_NVTX:
      {
        gint64 domain = ev->corr != SL_NO_STR ? nvtx_domain (rows, t, ev) : 0;
        stmt = rows->st[ST_NVTX];
        guint32 rowid = _sl_nvtx_range_id (lane, (gsize) (ev - lane->events), rows->by_rowid);
        sqlite3_bind_int64 (stmt, 1, rowid != 0 ? (gint64) rowid : rows->next_rowid++);
        sqlite3_bind_int64 (stmt, 2, ev->start);
        if (ev->link & SL_NVTX_MARK)
          {
            sqlite3_bind_null (stmt, 3);
            sqlite3_bind_int64 (stmt, 4, SL_EVENT_TYPE_NVTX_MARK);
          }
        else
          {
            sqlite3_bind_int64 (stmt, 3, ev->end);
            sqlite3_bind_int64 (stmt, 4, (ev->link & SL_NVTX_START_END)
                                         ? SL_EVENT_TYPE_NVTX_START_END_RANGE
                                         : SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE);
          }
        if (ev->aux != 0)
          sqlite3_bind_int64 (stmt, 5, ev->aux);
        else
          sqlite3_bind_null (stmt, 5);
        sqlite3_bind_int64 (stmt, 6, (gint64) t->global_tid);
        sqlite3_bind_int64 (stmt, 7, ev->name);
        sqlite3_bind_int64 (stmt, 8, domain);
        return sql_step (rows->s, stmt, "NVTX_EVENTS");
      }
    case SL_LANE_OSRT:
      stmt = rows->st[ST_OSRT];
      sqlite3_bind_int64 (stmt, 1, ev->start);
      sqlite3_bind_int64 (stmt, 2, ev->end);
      sqlite3_bind_int64 (stmt, 3, (gint64) t->global_tid);
      sqlite3_bind_int64 (stmt, 4, ev->name);
      sqlite3_bind_int64 (stmt, 5, (gint32) ev->aux);
      sqlite3_bind_int64 (stmt, 6, ev->corr);
      return sql_step (rows->s, stmt, "OSRT_API");
    case SL_LANE_SAMPLES:
      {
        gint64 id = ++rows->sample_id;
        const guint32 *syms, *mods;
        guint n = ev->aux != G_MAXUINT32 ? sl_trace_get_callchain (trace, ev->aux, &syms, &mods)
                                         : 0;
        stmt = rows->st[ST_SAMPLE];
        sqlite3_bind_int64 (stmt, 1, id);
        sqlite3_bind_int64 (stmt, 2, ev->start);
        sqlite3_bind_int64 (stmt, 3, ev->corr);
        sqlite3_bind_int64 (stmt, 4, (gint64) t->global_tid);
        if (!sql_step (rows->s, stmt, "COMPOSITE_EVENTS"))
          return FALSE;
        stmt = rows->st[ST_SAMPLE_FRAME];
        for (guint f = 0; f < n; f++)
          {
            sqlite3_bind_int64 (stmt, 1, id);
            sqlite3_bind_int64 (stmt, 2, syms[f]);
            sqlite3_bind_int64 (stmt, 3, mods[f]);
            sqlite3_bind_int64 (stmt, 4, f);
            if (!sql_step (rows->s, stmt, "SAMPLING_CALLCHAINS"))
              return FALSE;
          }
        return TRUE;
      }
    default:
      return TRUE;
    }
}

/* ---- thread states ----------------------------------------------------------------------- */

/* ENUM_SAMPLING_THREAD_STATE values the reader (sl-reader-sched.c) turns back into these states */
#define TS_UNKNOWN       0
#define TS_RUNNING       1
#define TS_INTERRUPTIBLE 2
#define TS_TERMINATED    5

static gboolean
sched_row (Sql          *s,
           sqlite3_stmt *stmt,
           SlTime        t,
           gint64        cpu,
           gboolean      in,
           gint64        state,    /* -1: NULL */
           gint64        block,    /* -1: NULL */
           guint64       global_tid)
{
  sqlite3_bind_int64 (stmt, 1, t);
  sqlite3_bind_int64 (stmt, 2, cpu);
  sqlite3_bind_int64 (stmt, 3, in);
  sqlite3_bind_int64 (stmt, 4, (gint64) global_tid);
  if (state >= 0)
    sqlite3_bind_int64 (stmt, 5, state);
  else
    sqlite3_bind_null (stmt, 5);
  if (block >= 0)
    sqlite3_bind_int64 (stmt, 6, block);
  else
    sqlite3_bind_null (stmt, 6);
  return sql_step (s, stmt, "SCHED_EVENTS");
}

/* The switch out that starts a state span: the thread's state and block reason it reads as. */
static gboolean
sched_out (Sql           *s,
           sqlite3_stmt  *stmt,
           SlTime         t,
           gint64         cpu,
           const SlEvent *next,      /* the span after it, NULL when the thread is done */
           guint64        global_tid)
{
  gint64 why = next != NULL && next->link != SL_NO_LINK ? (gint64) next->link : -1;
  if (next == NULL)
    return sched_row (s, stmt, t, cpu, FALSE, TS_TERMINATED, -1, global_tid);
  switch (SL_STATE_OF (next->aux))
    {
    case SL_STATE_RUNNING:
    case SL_STATE_RUNNABLE:
      return sched_row (s, stmt, t, cpu, FALSE, TS_RUNNING, why, global_tid);
    case SL_STATE_BLOCKED:
      return sched_row (s, stmt, t, cpu, FALSE, TS_INTERRUPTIBLE, why, global_tid);
    default:
      return sched_row (s, stmt, t, cpu, FALSE, TS_UNKNOWN, -1, global_tid);
    }
}

/* One thread's states (tiling its time, sorted) as SCHED_EVENTS rows. */
static void
write_sched_lane (Sql            *s,
                  sqlite3_stmt   *stmt,
                  const SlLane   *lane,
                  const SlThread *t)
{
  const SlEvent *prev = NULL;

  for (gsize k = 0; !s->failed && _sl_export_next (lane, &k, s->t0, s->t1); k++)
    {
      const SlEvent *ev = &lane->events[k];
      if (ev->aux & SL_STATE_DERIVED)
        return;
      const SlEvent *next = k + 1 < lane->n_events && lane->events[k + 1].start == ev->end
                            && lane->events[k + 1].start < s->t1
                            ? &lane->events[k + 1] : NULL;
      if (SL_STATE_OF (ev->aux) == SL_STATE_RUNNING)
        {
          gint64 cpu = ev->corr != SL_NO_LINK ? (gint64) ev->corr : -1;
          sched_row (s, stmt, ev->start, cpu, TRUE, -1, -1, t->global_tid);
          sched_out (s, stmt, ev->end, cpu, next, t->global_tid);
        }
      else if (prev == NULL || prev->end != ev->start
               || SL_STATE_OF (prev->aux) != SL_STATE_RUNNING)
        /* a state no Running span's switch out began */
        sched_out (s, stmt, ev->start, -1, ev, t->global_tid);
      prev = ev;
    }
}

static void
write_sched (Sql *s)
{
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO SCHED_EVENTS (start, cpu, isSchedIn, "
                                       "globalTid, threadState, threadBlock) "
                                       "VALUES (?, ?, ?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < sl_trace_get_n_lanes (s->trace) && !s->failed; i++)
    {
      const SlLane *lane = sl_trace_get_lane (s->trace, i);
      if (lane->kind == SL_LANE_SCHED && lane->thread >= 0)
        write_sched_lane (s, stmt, lane, sl_trace_get_thread (s->trace, lane->thread));
    }
  sqlite3_finalize (stmt);
}

/* nsys's messages about the collection, in nsys's own table (not one of the daemon's). */
static void
write_diagnostics (Sql *s)
{
  guint n = sl_trace_get_n_diagnostics (s->trace);
  sqlite3_stmt *stmt;

  if (n == 0
      || !sql_exec (s, "CREATE TABLE DIAGNOSTIC_EVENT (\n"
                       "  timestamp                        INTEGER  NOT NULL,\n"
                       "  timestampType                    INTEGER  NOT NULL,\n"
                       "  source                           INTEGER  NOT NULL,\n"
                       "  severity                         INTEGER  NOT NULL,\n"
                       "  text                             TEXT     NOT NULL,\n"
                       "  globalPid                        INTEGER\n"
                       ")")
      || (stmt = sql_prepare (s, "INSERT INTO DIAGNOSTIC_EVENT (timestamp, timestampType, source, "
                                 "severity, text, globalPid) VALUES (?, 0, ?, ?, ?, ?)")) == NULL)
    return;
  for (guint i = 0; i < n && !s->failed; i++)
    {
      const SlDiagnostic *d = sl_trace_get_diagnostic (s->trace, i);
      sqlite3_bind_int64 (stmt, 1, d->timestamp);
      sqlite3_bind_int64 (stmt, 2, d->source);
      sqlite3_bind_int64 (stmt, 3, d->severity);
      sqlite3_bind_text (stmt, 4, sl_trace_str (s->trace, d->text), -1, SQLITE_STATIC);
      if (d->global_pid != 0)
        sqlite3_bind_int64 (stmt, 5, (gint64) d->global_pid);
      else
        sqlite3_bind_null (stmt, 5);
      sql_step (s, stmt, "DIAGNOSTIC_EVENT");
    }
  sqlite3_finalize (stmt);
}

/* OSRT_CALLCHAINS: every backtrace the trace has, by its id. */
/* One call chain's frames as rows of `stmt` (id, symbol, module, stackDepth) of `table`. */
static void
write_chain_frames (Sql          *s,
                    sqlite3_stmt *stmt,
                    const char   *table,
                    gint64        id,
                    guint         chain)
{
  const guint32 *syms, *mods;
  guint n = sl_trace_get_callchain (s->trace, chain, &syms, &mods);

  for (guint f = 0; f < n && !s->failed; f++)
    {
      sqlite3_bind_int64 (stmt, 1, id);
      sqlite3_bind_int64 (stmt, 2, syms[f]);
      sqlite3_bind_int64 (stmt, 3, mods[f]);
      sqlite3_bind_int64 (stmt, 4, f);
      sql_step (s, stmt, table);
    }
}

static void
write_osrt_chains (Sql *s)
{
  GArray *ids = s->trace->osrt_chains;
  if (ids == NULL || ids->len == 0)
    return;
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO OSRT_CALLCHAINS (id, symbol, module, "
                                       "stackDepth) VALUES (?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < ids->len && !s->failed; i++)
    {
      const SlChainId *c = &g_array_index (ids, SlChainId, i);
      write_chain_frames (s, stmt, "OSRT_CALLCHAINS", c->id, c->chain);
    }
  sqlite3_finalize (stmt);
}

/* CUPTI_ACTIVITY_KIND_CUDA_EVENT: every event record as read (they have no time of their own
 * to range them by; a record whose call is outside the range links nothing). */
static void
write_cuda_events (Sql *s)
{
  GArray *events = s->trace->cuda_events;
  if (events->len == 0 || !sql_exec (s, SL_SCHEMA_CUDA_EVENT_SQL))
    return;
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp, "
                                       "deviceId, contextId, streamId, correlationId, globalPid, "
                                       "eventId, eventSyncId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < events->len && !s->failed; i++)
    {
      const SlCudaEventRow *e = &g_array_index (events, SlCudaEventRow, i);
      sqlite3_bind_int64 (stmt, 1, e->timestamp);
      sqlite3_bind_int64 (stmt, 2, e->device);
      sqlite3_bind_int64 (stmt, 3, e->context);
      sqlite3_bind_int64 (stmt, 4, e->stream);
      sqlite3_bind_int64 (stmt, 5, e->corr);
      sqlite3_bind_int64 (stmt, 6, (gint64) e->global_pid);
      sqlite3_bind_int64 (stmt, 7, e->event_id);
      sqlite3_bind_int64 (stmt, 8, e->sync_id != SL_NO_LINK ? e->sync_id : SL_SCHEMA_ID_NONE);
      sql_step (s, stmt, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
    }
  sqlite3_finalize (stmt);
}

/* CUDA_GPU_MEMORY_USAGE_EVENTS: every allocation and free before the end of the range (those
 * before its start too, so that the bytes in use at any instant of it stay what they were). */
static void
write_mem_usage (Sql *s)
{
  guint n = sl_trace_get_n_mem_usage (s->trace);
  if (n == 0 || !sql_exec (s, SL_SCHEMA_CUDA_GPU_MEMORY_USAGE_SQL))
    return;
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, "
                                       "globalPid, deviceId, contextId, address, pc, bytes, "
                                       "memKind, memoryOperationType, name, correlationId) "
                                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  for (guint i = 0; i < n && !s->failed; i++)
    {
      const SlMemUsage *m = sl_trace_get_mem_usage (s->trace, i);
      if (m->start >= s->t1)
        break;
      sqlite3_bind_int64 (stmt, 1, m->start);
      sqlite3_bind_int64 (stmt, 2, (gint64) m->global_pid);
      sqlite3_bind_int64 (stmt, 3, sl_trace_get_gpu (s->trace, (guint) m->gpu)->device_id);
      sqlite3_bind_int64 (stmt, 4, m->context);
      sqlite3_bind_int64 (stmt, 5, (gint64) m->address);
      sqlite3_bind_int64 (stmt, 6, (gint64) m->pc);
      sqlite3_bind_int64 (stmt, 7, (gint64) MIN (m->bytes, (guint64) G_MAXINT64));
      sqlite3_bind_int64 (stmt, 8, m->mem_kind);
      sqlite3_bind_int64 (stmt, 9, m->op);
      if (m->name != SL_NO_STR)
        sqlite3_bind_text (stmt, 10, sl_trace_str (s->trace, m->name), -1, SQLITE_STATIC);
      else
        sqlite3_bind_null (stmt, 10);
      sqlite3_bind_int64 (stmt, 11, m->corr);
      sql_step (s, stmt, "CUDA_GPU_MEMORY_USAGE_EVENTS");
    }
  sqlite3_finalize (stmt);
}

/* CUDA_UM_GPU_PAGE_FAULT_EVENTS and CUDA_UM_CPU_PAGE_FAULT_EVENTS: the faults kept by the range
 * as its events are, each in its own table (made only when it has one); a CPU fault with its
 * instruction and source line (string ids, as the StringIds written), its program counters and
 * module (not in the model) NULL. */
static void
write_um_faults (Sql *s)
{
  guint n = sl_trace_get_n_um_faults (s->trace);
  sqlite3_stmt *st[2] = { NULL, NULL };
  static const char *const tables[2] = { "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
                                         "CUDA_UM_CPU_PAGE_FAULT_EVENTS" };

  for (guint i = 0; i < n && !s->failed; i++)
    {
      const SlUmFault *f = sl_trace_get_um_fault (s->trace, i);
      gboolean gpu = f->side == SL_UM_FAULT_GPU;
      if (!sl_export_keeps (f->start, f->end, s->t0, s->t1) || (gpu && f->gpu < 0))
        continue;
      if (st[!gpu] == NULL)
        {
          if (!sql_exec (s, gpu ? SL_SCHEMA_CUDA_UM_GPU_PAGE_FAULT_SQL
                                : SL_SCHEMA_CUDA_UM_CPU_PAGE_FAULT_SQL))
            break;
          st[!gpu] = sql_prepare (s, gpu ? "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS (start, end, "
                                           "globalPid, deviceId, address, numberOfPageFaults, "
                                           "faultAccessType) VALUES (?, ?, ?, ?, ?, ?, ?)"
                                         : "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS (start, "
                                           "globalPid, address, CpuInstruction, sourceFile, "
                                           "sourceLine) VALUES (?, ?, ?, ?, ?, ?)");
          if (st[!gpu] == NULL)
            break;
        }
      sqlite3_stmt *stmt = st[!gpu];
      int c = 1;
      sqlite3_bind_int64 (stmt, c++, f->start);
      if (gpu)
        sqlite3_bind_int64 (stmt, c++, f->end);
      sqlite3_bind_int64 (stmt, c++, (gint64) f->global_pid);
      if (gpu)
        sqlite3_bind_int64 (stmt, c++, sl_trace_get_gpu (s->trace, (guint) f->gpu)->device_id);
      sqlite3_bind_int64 (stmt, c++, (gint64) f->address);
      if (gpu)
        {
          sqlite3_bind_int64 (stmt, c++, f->n_faults);
          sqlite3_bind_int64 (stmt, c++, f->access);
        }
      else
        {
          guint32 strs[2] = { f->instruction, f->source_file };
          for (guint k = 0; k < 2; k++, c++)
            if (strs[k] != SL_NO_STR)
              sqlite3_bind_int64 (stmt, c, strs[k]);
            else
              sqlite3_bind_null (stmt, c);
          if (f->source_line != 0)
            sqlite3_bind_int64 (stmt, c, f->source_line);
          else
            sqlite3_bind_null (stmt, c);
        }
      sql_step (s, stmt, tables[!gpu]);
    }
  sqlite3_finalize (st[0]);
  sqlite3_finalize (st[1]);
}

/* GPU_METRICS' typeId of a GPU's metrics as `sightline record` and sightline-gen write it:
 * <hw:8><vm:8><source:16><type:32>, the type's low byte the GPU's device id, which the reader
 * takes it for. */
static gint64
gpu_metrics_type (guint32 device_id)
{
  return ((gint64) 1 << 48) | ((gint64) SL_GPU_METRICS_SOURCE << 32)
         | ((gint64) SL_GPU_METRICS_TAG << 8) | (gint64) (device_id & 0xFF);
}

/* GPU_METRICS and TARGET_INFO_GPU_METRICS: every series' name, and its samples in effect for some
 * of the range (the one in effect at its start too, so that every instant of it keeps its
 * value).  Values as the model holds them: nsys's integers stay integers (the column's
 * affinity), others are written as they are. */
static void
write_metrics (Sql *s)
{
  guint n = sl_metrics_get_n_series (s->trace);
  if (n == 0 || !sql_exec (s, SL_SCHEMA_TARGET_INFO_GPU_METRICS_SQL)
      || !sql_exec (s, SL_SCHEMA_GPU_METRICS_SQL))
    return;
  sqlite3_stmt *info = sql_prepare (s, "INSERT INTO TARGET_INFO_GPU_METRICS (typeId, sourceId, "
                                       "typeName, metricId, metricName) VALUES (?, ?, ?, ?, ?)");
  sqlite3_stmt *row = sql_prepare (s, "INSERT INTO GPU_METRICS (rawTimestamp, timestamp, "
                                      "typeId, metricId, value) VALUES (?, ?, ?, ?, ?)");
  for (guint i = 0; i < n && info != NULL && row != NULL && !s->failed; i++)
    {
      const SlMetricSeries *series = sl_metrics_get_series (s->trace, i);
      guint32 device = sl_trace_get_gpu (s->trace, (guint) series->gpu)->device_id;
      gint64 type = gpu_metrics_type (device);
      g_autofree char *type_name = g_strdup_printf ("GPU %u", device);
      const SlTime *times = sl_metrics_get_times (s->trace, i);
      const double *values = sl_metrics_get_values (s->trace, i);

      sqlite3_bind_int64 (info, 1, type);
      sqlite3_bind_int (info, 2, SL_GPU_METRICS_SOURCE);
      sqlite3_bind_text (info, 3, type_name, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (info, 4, series->metric_id);
      sqlite3_bind_text (info, 5, sl_metrics_get_name (s->trace, i), -1, SQLITE_STATIC);
      sql_step (s, info, "TARGET_INFO_GPU_METRICS");
      for (guint64 k = 0; k < series->count && !s->failed; k++)
        {
          if (times[k] >= s->t1)
            break;
          if (sl_metrics_sample_end (s->trace, i, k) <= s->t0)
            continue;
          sqlite3_bind_int64 (row, 1, times[k]);
          sqlite3_bind_int64 (row, 2, times[k]);
          sqlite3_bind_int64 (row, 3, type);
          sqlite3_bind_int64 (row, 4, series->metric_id);
          sqlite3_bind_double (row, 5, values[k]);
          sql_step (s, row, "GPU_METRICS");
        }
    }
  sqlite3_finalize (info);
  sqlite3_finalize (row);
}

/* CUDA_CALLCHAINS: the backtraces of the CUDA calls written, by the id their rows name. */
static void
write_cuda_chains (Sql        *s,
                   GHashTable *ids)
{
  if (ids == NULL || g_hash_table_size (ids) == 0)
    return;
  sqlite3_stmt *stmt = sql_prepare (s, "INSERT INTO CUDA_CALLCHAINS (id, symbol, module, "
                                       "stackDepth) VALUES (?, ?, ?, ?)");
  if (stmt == NULL)
    return;
  GHashTableIter iter;
  gpointer key;
  g_hash_table_iter_init (&iter, ids);
  while (g_hash_table_iter_next (&iter, &key, NULL) && !s->failed)
    {
      guint id = GPOINTER_TO_UINT (key);
      write_chain_frames (s, stmt, "CUDA_CALLCHAINS", id, id - 1);
    }
  sqlite3_finalize (stmt);
}

/* ---- MPI ------------------------------------------------------------------------------------ */

/* One statement a table, by SlMpiSource (SL_MPI_NVTX's calls are NVTX ranges: NVTX_EVENTS) */
static const char *const mpi_sql[SL_MPI_NVTX] = {
  [SL_MPI_P2P] = "INSERT INTO MPI_P2P_EVENTS (start, end, globalTid, textId, commHandle, tag, "
                 "remoteRank, size, requestHandle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [SL_MPI_COLLECTIVE] = "INSERT INTO MPI_COLLECTIVES_EVENTS (start, end, globalTid, textId, "
                        "commHandle, rootRank, size, recvSize, requestHandle) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [SL_MPI_START_WAIT] = "INSERT INTO MPI_START_WAIT_EVENTS (start, end, globalTid, textId, "
                        "requestHandle) VALUES (?, ?, ?, ?, ?)",
  [SL_MPI_OTHER] = "INSERT INTO MPI_OTHER_EVENTS (start, end, globalTid, textId) "
                   "VALUES (?, ?, ?, ?)",
};

static void
bind_i64_if (sqlite3_stmt *stmt,
             int           col,
             gboolean      has,
             gint64        v)
{
  if (has)
    sqlite3_bind_int64 (stmt, col, v);
  else
    sqlite3_bind_null (stmt, col);
}

/* A call's row in its table */
static gboolean
write_mpi_call (Sql             *s,
                sqlite3_stmt    *stmt,
                SlMpiSource      source,
                const SlThread  *t,
                const SlEvent   *ev,
                const SlMpiCall *c)
{
  static const char *const tables[SL_MPI_NVTX] = {
    "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS",
  };
  guint32 f = c->flags;

  sqlite3_bind_int64 (stmt, 1, ev->start);
  sqlite3_bind_int64 (stmt, 2, ev->end);
  sqlite3_bind_int64 (stmt, 3, (gint64) t->global_tid);
  bind_str_or_null (stmt, 4, ev->name);
  switch (source)
    {
    case SL_MPI_P2P:
      bind_i64_if (stmt, 5, f & SL_MPI_HAS_COMM, c->comm);
      bind_i64_if (stmt, 6, f & SL_MPI_HAS_TAG, c->tag);
      bind_i64_if (stmt, 7, f & SL_MPI_HAS_PEER, c->peer);
      bind_i64_if (stmt, 8, f & SL_MPI_HAS_SIZE, c->size);
      bind_i64_if (stmt, 9, f & SL_MPI_HAS_REQUEST, c->request);
      break;
    case SL_MPI_COLLECTIVE:
      bind_i64_if (stmt, 5, f & SL_MPI_HAS_COMM, c->comm);
      bind_i64_if (stmt, 6, f & SL_MPI_HAS_ROOT, c->root);
      bind_i64_if (stmt, 7, f & SL_MPI_HAS_SIZE, c->size);
      bind_i64_if (stmt, 8, f & SL_MPI_HAS_RECV_SIZE, c->recv_size);
      bind_i64_if (stmt, 9, f & SL_MPI_HAS_REQUEST, c->request);
      break;
    case SL_MPI_START_WAIT:
      bind_i64_if (stmt, 5, f & SL_MPI_HAS_REQUEST, c->request);
      break;
    default:
      break;
    }
  return sql_step (s, stmt, tables[source]);
}

/* The MPI calls kept by the range, each in the table it came from, and what gives them their
 * ranks and communicators again: an MPI_RANKS row for each thread whose calls had one (for a
 * process whose rank came from another thread's row, a row for its main thread), and an
 * MPI_COMMUNICATORS row for each (rank, communicator) the calls use, commHandle and commUid both
 * the job-wide id the model holds (the file's own handles are not kept), localRank the caller's
 * rank in it.  Read back, every call has the same details, so the MPI reports over the range are
 * the source's.  The tables are made when the trace has MPI calls, kept by the range or not. */
/* A row of MPI_COMMUNICATORS: a communicator as a rank sees it */
typedef struct
{
  gint64 rank;
  gint64 comm;
  gint64 local_rank;
} MpiCommRow;

static void
write_mpi_rows (Sql           *s,
                sqlite3_stmt **st)
{
  SlTrace *trace = s->trace;
  g_autoptr (GHashTable) tid_rank = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  g_autoptr (GHashTable) pid_rank = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  g_autoptr (GHashTable) comms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) comm_rows = g_array_new (FALSE, FALSE, sizeof (MpiCommRow));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && !s->failed; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MPI || lane->thread < 0)
        continue;
      const SlThread *t = sl_trace_get_thread (trace, lane->thread);
      for (gsize k = 0; _sl_export_next (lane, &k, s->t0, s->t1) && !s->failed; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
          SlMpiSource source = SL_MPI_SOURCE_OF (ev->aux);
          if (c == NULL)
            continue;
          if (c->flags & SL_MPI_HAS_RANK)
            {
              /* the NVTX ranges' calls too: their ranks come from MPI_RANKS as well */
              guint64 main_tid = (t->global_tid & ~(guint64) 0xFFFFFF) | (t->pid & 0xFFFFFF);
              gint64 key = (gint64) ((c->flags & SL_MPI_RANK_OF_PROCESS) ? main_tid
                                                                          : t->global_tid);
              GHashTable *h = (c->flags & SL_MPI_RANK_OF_PROCESS) ? pid_rank : tid_rank;
              if (!g_hash_table_contains (h, &key))
                g_hash_table_insert (h, g_memdup2 (&key, sizeof key),
                                     GINT_TO_POINTER (c->rank + 1));
            }
          if (source >= SL_MPI_NVTX)
            continue;
          guint32 both = SL_MPI_HAS_COMM | SL_MPI_HAS_RANK;
          if ((c->flags & both) == both)
            {
              char key[48];
              g_snprintf (key, sizeof key, "%d:%" G_GINT64_FORMAT, c->rank, c->comm);
              if (!g_hash_table_contains (comms, key))
                {
                  MpiCommRow row = { c->rank, c->comm, c->local_rank };
                  g_hash_table_add (comms, g_strdup (key));
                  g_array_append_val (comm_rows, row);
                }
            }
          write_mpi_call (s, st[source], source, t, ev, c);
        }
    }

  sqlite3_stmt *ranks = sql_prepare (s, "INSERT INTO MPI_RANKS (globalTid, rank) VALUES (?, ?)");
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr (GHashTable) pids_done = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                            NULL);
  for (int pass = 0; pass < 2 && ranks != NULL; pass++)
    {
      /* the threads' own rows, then the processes' that none of their threads' rows gives */
      g_hash_table_iter_init (&iter, pass == 0 ? tid_rank : pid_rank);
      while (g_hash_table_iter_next (&iter, &key, &value) && !s->failed)
        {
          gint64 gtid = *(const gint64 *) key;
          gint64 gpid = (gint64) ((guint64) gtid & ~(guint64) 0xFFFFFF);
          if (pass == 1 && g_hash_table_contains (pids_done, &gpid))
            continue;
          if (pass == 0 && !g_hash_table_contains (pids_done, &gpid))
            g_hash_table_add (pids_done, g_memdup2 (&gpid, sizeof gpid));
          sqlite3_bind_int64 (ranks, 1, gtid);
          sqlite3_bind_int64 (ranks, 2, GPOINTER_TO_INT (value) - 1);
          sql_step (s, ranks, "MPI_RANKS");
        }
    }
  sqlite3_finalize (ranks);

  sqlite3_stmt *comm = sql_prepare (s, "INSERT INTO MPI_COMMUNICATORS (rank, commHandle, "
                                       "localRank, commUid) VALUES (?, ?, ?, ?)");
  for (guint i = 0; comm != NULL && i < comm_rows->len && !s->failed; i++)
    {
      const MpiCommRow *row = &g_array_index (comm_rows, MpiCommRow, i);
      sqlite3_bind_int64 (comm, 1, row->rank);
      sqlite3_bind_int64 (comm, 2, row->comm);
      sqlite3_bind_int64 (comm, 3, row->local_rank);
      sqlite3_bind_int64 (comm, 4, row->comm);
      sql_step (s, comm, "MPI_COMMUNICATORS");
    }
  sqlite3_finalize (comm);
}

static void
write_mpi (Sql *s)
{
  sqlite3_stmt *st[SL_MPI_NVTX] = { NULL };
  gboolean any = FALSE, prepared = TRUE;

  for (guint i = 0; i < sl_trace_get_n_lanes (s->trace) && !any; i++)
    any = sl_trace_get_lane (s->trace, i)->kind == SL_LANE_MPI
          && sl_trace_get_lane (s->trace, i)->n_events > 0;
  for (guint k = 0; k < SL_SCHEMA_N_MPI_TABLES && any; k++)
    any = sql_exec (s, sl_schema_mpi_sql[k]);
  if (!any)
    return;
  for (guint k = 0; k < SL_MPI_NVTX && prepared; k++)
    prepared = (st[k] = sql_prepare (s, mpi_sql[k])) != NULL;
  if (prepared)
    write_mpi_rows (s, st);
  for (guint k = 0; k < SL_MPI_NVTX; k++)
    sqlite3_finalize (st[k]);
}

static void
write_events (Sql *s)
{
  Rows rows = { .s = s };
  gboolean graphs = FALSE;

  /* graph launches: their table, made as nsys makes it, only when there are some */
  for (guint i = 0; i < sl_trace_get_n_lanes (s->trace) && !graphs; i++)
    graphs = sl_trace_get_lane (s->trace, i)->kind == SL_LANE_GRAPHS;
  if (graphs && !sql_exec (s, SL_SCHEMA_GRAPH_TRACE_SQL))
    return;
  /* CUDA calls' backtraces: the same, when the trace has some */
  if (sl_trace_get_n_cuda_callchains (s->trace) > 0)
    {
      if (!sql_exec (s, SL_SCHEMA_CUDA_CALLCHAINS_SQL))
        return;
      rows.cuda_chains = g_hash_table_new (g_direct_hash, g_direct_equal);
    }
  for (guint i = 0; i < N_ST; i++)
    if ((i != ST_GRAPH || graphs) && (rows.st[i] = sql_prepare (s, st_sql[i])) == NULL)
      goto out;
  rows.domain_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  rows.domains_made = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  /* each NVTX row's rowid is its range's RangeId in nvtx_gpu_proj_trace (the source file's
   * rowid, or the id the report gives where there is none), so the report of the export is the
   * trace's; marks without one, and the domains' rows, are numbered past the largest */
  rows.by_rowid = _sl_nvtx_ranges_have_rowids (s->trace);
  rows.next_rowid = 1;
  for (guint i = 0; i < sl_trace_get_n_lanes (s->trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (s->trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_NVTX && k < lane->n_events; k++)
        rows.next_rowid = MAX (rows.next_rowid,
                               (gint64) _sl_nvtx_range_id (lane, k, rows.by_rowid) + 1);
    }

  for (guint i = 0; i < sl_trace_get_n_lanes (s->trace) && !s->failed; i++)
    {
      const SlLane *lane = sl_trace_get_lane (s->trace, i);
      gboolean gpu = lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
                     || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_SYNC
                     || lane->kind == SL_LANE_GRAPHS;
      const SlThread *t = NULL;
      if (lane->kind == SL_LANE_SCHED)
        continue;
      if (!gpu)
        {
          if (lane->thread < 0)
            continue;
          t = sl_trace_get_thread (s->trace, lane->thread);
        }
      for (gsize k = 0; _sl_export_next (lane, &k, s->t0, s->t1); k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (!(gpu ? write_gpu_event (&rows, lane, ev) : write_cpu_event (&rows, lane, t, ev)))
            break;
        }
    }
  write_osrt_chains (s);
  write_cuda_chains (s, rows.cuda_chains);
  write_cuda_events (s);
  write_mem_usage (s);
  write_um_faults (s);
  write_metrics (s);

out:
  for (guint i = 0; i < N_ST; i++)
    if (rows.st[i] != NULL)
      sqlite3_finalize (rows.st[i]);
  g_clear_pointer (&rows.domain_ids, g_hash_table_unref);
  g_clear_pointer (&rows.domains_made, g_hash_table_unref);
  g_clear_pointer (&rows.cuda_chains, g_hash_table_unref);
}

gboolean
sl_export_sqlite (SlTrace     *trace,
                  const char  *path,
                  SlTime       t0,
                  SlTime       t1,
                  GError     **error)
{
  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  g_autofree char *part = NULL;
  g_autofree char *target = _sl_export_target (path, &part, error);
  Sql s = { trace, NULL, t0, t1, path, error, FALSE };
  char *msg = NULL;

  if (target == NULL)
    return FALSE;
  if (part == NULL)
    {
      /* SQLite needs a file it can seek in and lock */
      g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE,
                   "cannot write %s: not a regular file; an SQLite export needs one", path);
      return FALSE;
    }
  if (g_unlink (part) != 0 && errno != ENOENT)
    {
      _sl_export_set_error (error, path, NULL, errno);
      return FALSE;
    }
  if (sqlite3_open_v2 (part, &s.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)
      != SQLITE_OK)
    {
      int errsv = errno;
      g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s%s%s", path,
                   s.db != NULL ? sqlite3_errmsg (s.db) : "out of memory",
                   errsv != 0 ? ": " : "", errsv != 0 ? g_strerror (errsv) : "");
      sqlite3_close (s.db);
      g_unlink (part);
      return FALSE;
    }
  if (sql_exec (&s, "PRAGMA journal_mode = OFF") && sql_exec (&s, "PRAGMA synchronous = OFF")
      && sql_exec (&s, "BEGIN"))
    {
      if (!sl_schema_create (s.db, &msg))
        {
          g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s", path,
                       msg != NULL ? msg : "cannot create the schema");
          sqlite3_free (msg);
          s.failed = TRUE;
        }
      write_strings (&s);
      write_processes (&s);
      write_gpus (&s);
      write_enum_labels (&s);
      write_events (&s);
      write_mpi (&s);
      write_sched (&s);
      write_diagnostics (&s);
      sql_exec (&s, "COMMIT");
    }
  if (sqlite3_close (s.db) != SQLITE_OK && !s.failed)
    {
      g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s", path,
                   sqlite3_errmsg (s.db));
      s.failed = TRUE;
    }
  if (s.failed)
    {
      g_unlink (part);
      return FALSE;
    }
  return _sl_export_finish (part, target, error);
}
