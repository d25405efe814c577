/* sl-reader.c: reads an Nsight Systems SQLite export (2021 layouts … schema 3.25+) into a trace.
 *
 * Tables and columns are probed, never assumed: nsys creates tables lazily and has renamed and
 * added columns over the years (see ../shared/reference/nsys-sqlite.md).  Every value is
 * untrusted: NULL times, end < start, ids that point nowhere and non-UTF-8 names become
 * warnings and repaired rows, never a crash.  Rows are read once, in table order; a table of
 * 10^7 rows is read in a few seconds, so per-row work is a few hash-free array operations.
 */
#include "sl-trace-private.h"

#include <string.h>

#define CHECK_EVERY 65536  /* rows between progress reports and cancellation checks */

typedef struct
{
  SlLaneKind kind;
  gint32     thread;
} CpuKey;

typedef struct
{
  guint64    global_pid;
  guint32    device;
  guint32    context;
  guint32    stream;
  guint32    green_context;  /* 0 = none */
  SlLaneKind kind;
} GpuKey;

/* Progress of the two loading threads, reported as their sum, under a lock. */
typedef struct
{
  GMutex          lock;
  double          part[2];
  double          last;
  gint            failed;        /* 1 + slot of the first thread that failed; the other stops */
} Progress;

typedef struct
{
  SlTrace        *trace;
  sqlite3        *db;
  Progress       *prog;
  guint           slot;          /* which part of `prog` this reader fills */
  SlLoadFlags     flags;
  SlProgressFunc  progress;
  gpointer        user_data;
  GCancellable   *cancellable;
  double          done;          /* progress before the current table */
  double          share;         /* this table's share of the progress bar */

  /* file string id -> our id + 1 (0 = not looked up yet, G_MAXUINT32 = missing) */
  guint32        *str_map;
  gsize           str_map_len;
  GHashTable     *str_map_big;   /* for ids beyond str_map_len */
  sqlite3_stmt   *str_stmt;
  guint64         n_missing_str;
  guint64         n_bad_utf8;    /* names repaired to valid UTF-8 */

  GHashTable     *threads;       /* globalTid -> index + 1 */
  GHashTable     *processes;     /* globalPid -> index + 1 */
  GHashTable     *cpu_builders;  /* CpuKey * -> GArray of SlEvent */
  GHashTable     *gpu_lanes;     /* GpuKey * -> SlLane * (events in a GArray until finish) */
  GHashTable     *lane_arrays;   /* SlLane * -> GArray */
  GHashTable     *kernel_infos;  /* SlKernelInfo * -> index + 1 */
  GHashTable     *copy_infos;    /* SlCopyInfo * -> index + 1 */
  GHashTable     *context_gpu;   /* (globalPid, contextId) key -> GPU index + 1 */
  GHashTable     *nvtx_domains;  /* (pid bits, domainId) key -> string id */
  guint32         memcpy_names[16];

  /* small caches: rows usually come in runs of one thread or stream */
  guint64         last_tid;
  gint32          last_thread;
  GpuKey          last_gpu_key;
  GArray         *last_gpu_array;
} Reader;

/* ---- SQLite helpers ---------------------------------------------------------------------- */

/* Whether the file's schema has an object of that type ("table", "view") and name. */
static gboolean
schema_has (Reader     *r,
            const char *type,
            const char *name)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (r->db, "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?",
                          -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, type, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 2, name, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

static gboolean
table_exists (Reader     *r,
              const char *table)
{
  return schema_has (r, "table", table);
}

/* A view is never read (the loader disables them): one named like a table only earns a warning. */
static gboolean
view_exists (Reader     *r,
             const char *name)
{
  return schema_has (r, "view", name);
}

/* Column names of a table, as a set. */
static GHashTable *
table_columns (Reader     *r,
               const char *table)
{
  GHashTable *cols = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *sql = g_strdup_printf ("SELECT name FROM pragma_table_info('%s')", table);
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK)
    while (sqlite3_step (stmt) == SQLITE_ROW)
      {
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        if (name != NULL)
          g_hash_table_add (cols, g_strdup (name));
      }
  sqlite3_finalize (stmt);
  return cols;
}

/* "col" when the table has it, else the fallback expression (e.g. "NULL" or "0"). */
static const char *
col_or (GHashTable *cols,
        const char *name,
        const char *fallback)
{
  return g_hash_table_contains (cols, name) ? name : fallback;
}

static gboolean
prepare (Reader        *r,
         const char    *table,
         const char    *sql,
         sqlite3_stmt **stmt,
         GError       **error)
{
  if (sqlite3_prepare_v2 (r->db, sql, -1, stmt, NULL) != SQLITE_OK)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT, "%s: cannot read table %s: %s",
                   r->trace->path, table, sqlite3_errmsg (r->db));
      return FALSE;
    }
  return TRUE;
}

static gboolean
step_failed (Reader       *r,
             const char   *table,
             int           rc,
             GError      **error)
{
  if (rc == SQLITE_DONE)
    return FALSE;
  g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT,
               "%s: table %s is damaged (%s); the file may be truncated or corrupt",
               r->trace->path, table, sqlite3_errmsg (r->db));
  return TRUE;
}

/* An estimate of a table's rows that costs O(log n): the largest rowid. */
static gint64
table_rows_estimate (Reader     *r,
                     const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT max(rowid) FROM \"%s\"", table);
  sqlite3_stmt *stmt = NULL;
  gint64 n = 0;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return MAX (n, 1);
}

static void
report_progress (Reader     *r,
                 double      mine,
                 const char *what)
{
  if (r->progress == NULL)
    return;
  g_mutex_lock (&r->prog->lock);
  r->prog->part[r->slot] = mine;
  double total = MIN (r->prog->part[0] + r->prog->part[1], 1.0);
  if (total >= r->prog->last)
    {
      r->prog->last = total;
      r->progress (total, what, r->user_data);
    }
  g_mutex_unlock (&r->prog->lock);
}

static gboolean
tick (Reader      *r,
      const char  *what,
      gint64       row,
      gint64       rows,
      GError     **error)
{
  if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
    return FALSE;
  if (g_atomic_int_get (&r->prog->failed))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT, "%s: loading stopped", r->trace->path);
      return FALSE;
    }
  report_progress (r, r->done + r->share * MIN ((double) row / (double) rows, 1.0), what);
  return TRUE;
}

/* ---- strings ----------------------------------------------------------------------------- */

static guint32
str_from_file (Reader *r,
               gint64  file_id)
{
  guint32 cached = 0;

  if (file_id >= 0 && (guint64) file_id < r->str_map_len)
    cached = r->str_map[file_id];
  else if (r->str_map_big != NULL)
    cached = GPOINTER_TO_UINT (g_hash_table_lookup (r->str_map_big, &file_id));
  if (cached == G_MAXUINT32)
    return SL_NO_STR;
  if (cached != 0)
    return cached - 1;

  guint32 id = SL_NO_STR;
  gboolean found = FALSE;
  if (r->str_stmt != NULL)
    {
      sqlite3_reset (r->str_stmt);
      sqlite3_bind_int64 (r->str_stmt, 1, file_id);
      if (sqlite3_step (r->str_stmt) == SQLITE_ROW)
        {
          const char *text = (const char *) sqlite3_column_text (r->str_stmt, 0);
          int len = sqlite3_column_bytes (r->str_stmt, 0);
          found = text != NULL;
          if (found && !g_utf8_validate_len (text, len, NULL))
            r->n_bad_utf8++;
          id = _sl_trace_intern (r->trace, text, len);
        }
    }
  if (!found)
    r->n_missing_str++;
  cached = found ? id + 1 : G_MAXUINT32;
  if (file_id >= 0 && (guint64) file_id < r->str_map_len)
    r->str_map[file_id] = cached;
  else
    {
      if (r->str_map_big == NULL)
        r->str_map_big = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      g_hash_table_insert (r->str_map_big, g_memdup2 (&file_id, sizeof file_id), GUINT_TO_POINTER (cached));
    }
  return id;
}

static guint32
col_str (Reader       *r,
         sqlite3_stmt *stmt,
         int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return SL_NO_STR;
  return str_from_file (r, sqlite3_column_int64 (stmt, col));
}

static guint32
col_text (Reader       *r,
          sqlite3_stmt *stmt,
          int           col)
{
  const char *text = (const char *) sqlite3_column_text (stmt, col);
  if (text == NULL)
    return SL_NO_STR;
  if (!g_utf8_validate_len (text, sqlite3_column_bytes (stmt, col), NULL))
    r->n_bad_utf8++;
  return _sl_trace_intern (r->trace, text, sqlite3_column_bytes (stmt, col));
}

static void
strings_open (Reader *r)
{
  sqlite3_stmt *stmt = NULL;
  gint64 max_id = 0;

  if (!table_exists (r, "StringIds"))
    return;
  if (sqlite3_prepare_v2 (r->db, "SELECT max(id) FROM StringIds", -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    max_id = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  /* ids are dense in real files; a hostile one with a huge id falls back to a hash table */
  r->str_map_len = (gsize) CLAMP (max_id, 0, (1 << 24) - 1) + 1;
  r->str_map = g_new0 (guint32, r->str_map_len);
  if (sqlite3_prepare_v2 (r->db, "SELECT value FROM StringIds WHERE id = ?", -1, &r->str_stmt, NULL) != SQLITE_OK)
    r->str_stmt = NULL;
}

/* ---- processes, threads, GPUs ------------------------------------------------------------ */

#define PID_OF(gtid) (((gtid) >> 24) & 0xFFFFFF)
#define TID_OF(gtid) ((gtid) & 0xFFFFFF)
#define GPID_OF(gtid) ((gtid) & G_GUINT64_CONSTANT (0xFFFFFFFFFF000000))

static guint
process_for (Reader  *r,
             guint64  global_pid)
{
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->processes, &global_pid));
  if (idx != 0)
    return idx - 1;

  SlProcess p = { global_pid, (guint32) PID_OF (global_pid), SL_NO_STR };
  g_array_append_val (r->trace->processes, p);
  idx = r->trace->processes->len;
  g_hash_table_insert (r->processes, g_memdup2 (&global_pid, sizeof global_pid), GUINT_TO_POINTER (idx));
  return idx - 1;
}

static gint32
thread_for (Reader  *r,
            guint64  global_tid)
{
  if (global_tid == r->last_tid && r->last_thread >= 0)
    return r->last_thread;

  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->threads, &global_tid));
  if (idx == 0)
    {
      SlThread t = { global_tid, (guint32) PID_OF (global_tid), (guint32) TID_OF (global_tid), SL_NO_STR, 0 };
      t.process = process_for (r, GPID_OF (global_tid));
      g_array_append_val (r->trace->threads, t);
      idx = r->trace->threads->len;
      g_hash_table_insert (r->threads, g_memdup2 (&global_tid, sizeof global_tid), GUINT_TO_POINTER (idx));
    }
  r->last_tid = global_tid;
  r->last_thread = idx - 1;
  return idx - 1;
}

static gboolean
read_processes (Reader  *r,
                GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (table_exists (r, "PROCESSES"))
    {
      if (!prepare (r, "PROCESSES", "SELECT globalPid, pid, name FROM PROCESSES", &stmt, error))
        return FALSE;
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          if (sqlite3_column_type (stmt, 0) == SQLITE_NULL)
            continue;
          guint64 gpid = GPID_OF ((guint64) sqlite3_column_int64 (stmt, 0));
          guint pi = process_for (r, gpid);
          SlProcess *p = &g_array_index (r->trace->processes, SlProcess, pi);
          guint32 name = col_text (r, stmt, 2);
          if (name != SL_NO_STR)
            p->name = name;
        }
      sqlite3_finalize (stmt);
      if (step_failed (r, "PROCESSES", rc, error))
        return FALSE;
    }

  if (table_exists (r, "ThreadNames"))
    {
      if (!prepare (r, "ThreadNames", "SELECT globalTid, nameId FROM ThreadNames", &stmt, error))
        return FALSE;
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          if (sqlite3_column_type (stmt, 0) == SQLITE_NULL)
            continue;
          guint64 gtid = (guint64) sqlite3_column_int64 (stmt, 0);
          gint32 ti = thread_for (r, gtid);
          guint32 name = col_str (r, stmt, 1);
          g_array_index (r->trace->threads, SlThread, ti).name = name;
        }
      sqlite3_finalize (stmt);
      if (step_failed (r, "ThreadNames", rc, error))
        return FALSE;
    }

  /* a process without a name takes its main thread's */
  for (guint i = 0; i < r->trace->threads->len; i++)
    {
      SlThread *t = &g_array_index (r->trace->threads, SlThread, i);
      SlProcess *p = &g_array_index (r->trace->processes, SlProcess, t->process);
      if (p->name == SL_NO_STR && t->pid == t->tid)
        p->name = t->name;
    }
  return TRUE;
}

static gint
gpu_for (Reader  *r,
         guint32  device_id)
{
  gint i = sl_trace_find_gpu (r->trace, device_id);
  if (i >= 0)
    return i;

  SlGpu gpu = { 0 };
  g_autofree char *name = g_strdup_printf ("GPU %u", device_id);
  gpu.device_id = device_id;
  gpu.name = _sl_trace_intern (r->trace, name, -1);
  g_array_append_val (r->trace->gpus, gpu);
  return r->trace->gpus->len - 1;
}

static gint
col_int (sqlite3_stmt *stmt,
         int           col)
{
  gint64 v = sqlite3_column_int64 (stmt, col);
  return (gint) CLAMP (v, 0, G_MAXINT);
}

static gboolean
read_gpus (Reader  *r,
           GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (table_exists (r, "TARGET_INFO_GPU"))
    {
      g_autoptr (GHashTable) c = table_columns (r, "TARGET_INFO_GPU");
      g_autofree char *sql = g_strdup_printf (
        "SELECT id, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM TARGET_INFO_GPU",
        col_or (c, "name", "NULL"), col_or (c, "busLocation", "NULL"), col_or (c, "uuid", "NULL"),
        col_or (c, "chipName", "NULL"), col_or (c, "totalMemory", "0"), col_or (c, "memoryBandwidth", "0"),
        col_or (c, "clockRate", "0"), col_or (c, "smCount", "0"), col_or (c, "computeMajor", "0"),
        col_or (c, "computeMinor", "0"), col_or (c, "threadsPerWarp", "0"),
        col_or (c, "maxThreadsPerBlock", "0"), col_or (c, "maxWarpsPerSm", "0"),
        col_or (c, "maxBlocksPerSm", "0"), col_or (c, "maxRegistersPerBlock", "0"),
        col_or (c, "maxRegistersPerSm", "0"), col_or (c, "maxShmemPerBlock", "0"),
        col_or (c, "maxShmemPerBlockOptin", "0"), col_or (c, "maxShmemPerSm", "0"));
      if (!g_hash_table_contains (c, "id"))
        {
          _sl_trace_warn (r->trace, "TARGET_INFO_GPU has no id column; GPUs are not described");
          return TRUE;
        }
      if (!prepare (r, "TARGET_INFO_GPU", sql, &stmt, error))
        return FALSE;
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          gint gi = gpu_for (r, (guint32) sqlite3_column_int64 (stmt, 0));
          SlGpu *g = &g_array_index (r->trace->gpus, SlGpu, gi);
          if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
            g->name = col_text (r, stmt, 1);
          g->bus_location = col_text (r, stmt, 2);
          g->uuid = col_text (r, stmt, 3);
          g->chip_name = col_text (r, stmt, 4);
          g->total_memory = sqlite3_column_int64 (stmt, 5);
          g->memory_bandwidth = sqlite3_column_int64 (stmt, 6);
          g->clock_rate = sqlite3_column_int64 (stmt, 7);
          g->described = TRUE;
          SlGpuLimits *l = &g->limits;
          l->sm_count = col_int (stmt, 8);
          l->cc_major = col_int (stmt, 9);
          l->cc_minor = col_int (stmt, 10);
          l->warp_size = col_int (stmt, 11);
          l->max_threads_per_block = col_int (stmt, 12);
          l->max_warps_per_sm = col_int (stmt, 13);
          l->max_blocks_per_sm = col_int (stmt, 14);
          l->max_regs_per_block = col_int (stmt, 15);
          l->max_regs_per_sm = col_int (stmt, 16);
          l->max_smem_per_block = col_int (stmt, 17);
          l->max_smem_per_block_optin = col_int (stmt, 18);
          l->max_smem_per_sm = col_int (stmt, 19);
        }
      sqlite3_finalize (stmt);
      return !step_failed (r, "TARGET_INFO_GPU", rc, error);
    }

  if (table_exists (r, "TARGET_INFO_CUDA_GPU"))
    {
      /* early-2021 layout: one row per (process, device); sizes in MiB, clocks in kHz */
      g_autoptr (GHashTable) c = table_columns (r, "TARGET_INFO_CUDA_GPU");
      g_autofree char *sql = g_strdup_printf (
        "SELECT deviceId, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM TARGET_INFO_CUDA_GPU",
        col_or (c, "name", "NULL"), col_or (c, "pciBusId", "NULL"), col_or (c, "globalMemorySize", "0"),
        col_or (c, "coreClockRate", "0"), col_or (c, "numMultiprocessors", "0"),
        col_or (c, "computeCapabilityMajor", "0"), col_or (c, "computeCapabilityMinor", "0"),
        col_or (c, "numThreadsPerWarp", "0"), col_or (c, "maxThreadsPerBlock", "0"),
        col_or (c, "maxWarpsPerMultiprocessor", "0"), col_or (c, "maxBlocksPerMultiprocessor", "0"),
        col_or (c, "maxRegistersPerBlock", "0"), col_or (c, "maxRegistersPerMultiprocessor", "0"),
        col_or (c, "maxSharedMemoryPerBlock", "0"), col_or (c, "maxSharedMemoryPerMultiprocessor", "0"));
      if (!g_hash_table_contains (c, "deviceId"))
        return TRUE;
      if (!prepare (r, "TARGET_INFO_CUDA_GPU", sql, &stmt, error))
        return FALSE;
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          gint gi = gpu_for (r, (guint32) sqlite3_column_int64 (stmt, 0));
          SlGpu *g = &g_array_index (r->trace->gpus, SlGpu, gi);
          if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
            g->name = col_text (r, stmt, 1);
          g->bus_location = col_text (r, stmt, 2);
          g->total_memory = sqlite3_column_int64 (stmt, 3) * 1024 * 1024;
          g->clock_rate = sqlite3_column_int64 (stmt, 4) * 1000;
          g->described = TRUE;
          SlGpuLimits *l = &g->limits;
          l->sm_count = col_int (stmt, 5);
          l->cc_major = col_int (stmt, 6);
          l->cc_minor = col_int (stmt, 7);
          l->warp_size = col_int (stmt, 8);
          l->max_threads_per_block = col_int (stmt, 9);
          l->max_warps_per_sm = col_int (stmt, 10);
          l->max_blocks_per_sm = col_int (stmt, 11);
          l->max_regs_per_block = col_int (stmt, 12);
          l->max_regs_per_sm = col_int (stmt, 13);
          l->max_smem_per_block = col_int (stmt, 14);
          l->max_smem_per_sm = col_int (stmt, 15);
        }
      sqlite3_finalize (stmt);
      return !step_failed (r, "TARGET_INFO_CUDA_GPU", rc, error);
    }

  _sl_trace_warn (r->trace, "the trace has no GPU descriptions (TARGET_INFO_GPU); "
                            "occupancy uses no GPU limits");
  return TRUE;
}

/* ---- enums ------------------------------------------------------------------------------- */

static void
read_enum (Reader     *r,
           SlEnum      which,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT id, label FROM %s", table);
  sqlite3_stmt *stmt = NULL;

  if (!table_exists (r, table) || sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    return;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      guint32 label = col_text (r, stmt, 1);
      if (label != SL_NO_STR)
        g_hash_table_insert (r->trace->enum_labels[which], g_memdup2 (&id, sizeof id),
                             (gpointer) sl_trace_str (r->trace, label));
    }
  sqlite3_finalize (stmt);
}

static void
read_enums (Reader *r)
{
  read_enum (r, SL_ENUM_MEMCPY_OPER, "ENUM_CUDA_MEMCPY_OPER");
  read_enum (r, SL_ENUM_MEM_KIND, "ENUM_CUDA_MEM_KIND");
  read_enum (r, SL_ENUM_SYNC_TYPE, "ENUM_CUPTI_SYNC_TYPE");
  read_enum (r, SL_ENUM_EVENT_CLASS, "ENUM_NSYS_EVENT_CLASS");
  read_enum (r, SL_ENUM_LAUNCH_TYPE, "ENUM_CUDA_KERNEL_LAUNCH_TYPE");
  read_enum (r, SL_ENUM_LAUNCH_TYPE, "ENUM_CUDA_KRENEL_LAUNCH_TYPE"); /* sic, nsys 2023.1 */
  read_enum (r, SL_ENUM_THREAD_STATE, "ENUM_SAMPLING_THREAD_STATE");
}

static void
read_schema_version (Reader *r)
{
  const char *tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      sqlite3_stmt *stmt = NULL;
      if (!table_exists (r, tables[i]))
        continue;
      if (sqlite3_prepare_v2 (r->db,
                              i == 0 ? "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"
                                     : "SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_SCHEMA_VERSION'",
                              -1, &stmt, NULL) == SQLITE_OK
          && sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_text (stmt, 0) != NULL)
        {
          const char *v = (const char *) sqlite3_column_text (stmt, 0);
          r->trace->schema = g_utf8_make_valid (v, -1);
        }
      sqlite3_finalize (stmt);
      if (r->trace->schema != NULL)
        return;
    }
  r->trace->schema = g_strdup (table_exists (r, "TARGET_INFO_CUDA_GPU")
                               ? "none (early-2021 layout, TARGET_INFO_CUDA_GPU)"
                               : "none (2021 layout)");
}

/* ---- lanes under construction ------------------------------------------------------------ */

static guint
cpu_key_hash (gconstpointer p)
{
  const CpuKey *k = p;
  return k->thread * 31u + k->kind;
}

static gboolean
cpu_key_equal (gconstpointer a,
               gconstpointer b)
{
  const CpuKey *x = a, *y = b;
  return x->thread == y->thread && x->kind == y->kind;
}

static guint
gpu_key_hash (gconstpointer p)
{
  const GpuKey *k = p;
  guint64 h = k->global_pid * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  h ^= ((guint64) k->device << 40) ^ ((guint64) k->context << 20) ^ k->stream ^ ((guint64) k->kind << 60)
       ^ ((guint64) k->green_context << 30);
  return (guint) (h ^ (h >> 32));
}

static gboolean
gpu_key_equal (gconstpointer a,
               gconstpointer b)
{
  const GpuKey *x = a, *y = b;
  return x->global_pid == y->global_pid && x->device == y->device && x->context == y->context
         && x->stream == y->stream && x->kind == y->kind && x->green_context == y->green_context;
}

static GArray *
cpu_events (Reader     *r,
            gint32      thread,
            SlLaneKind  kind)
{
  CpuKey key = { kind, thread };
  GArray *a = g_hash_table_lookup (r->cpu_builders, &key);

  if (a == NULL)
    {
      a = g_array_new (FALSE, FALSE, sizeof (SlEvent));
      g_hash_table_insert (r->cpu_builders, g_memdup2 (&key, sizeof key), a);
    }
  return a;
}

static GArray *
gpu_events (Reader  *r,
            GpuKey  *key)
{
  if (r->last_gpu_array != NULL && gpu_key_equal (key, &r->last_gpu_key))
    return r->last_gpu_array;

  SlLane *lane = g_hash_table_lookup (r->gpu_lanes, key);
  GArray *a;
  if (lane == NULL)
    {
      lane = _sl_trace_add_lane (r->trace, key->kind);
      lane->global_pid = key->global_pid;
      lane->gpu = gpu_for (r, key->device);
      lane->context_id = key->context;
      lane->stream_id = key->stream;
      lane->green_context_id = key->green_context;
      a = g_array_new (FALSE, FALSE, sizeof (SlEvent));
      g_hash_table_insert (r->gpu_lanes, g_memdup2 (key, sizeof *key), lane);
      g_hash_table_insert (r->lane_arrays, lane, a);
    }
  else
    a = g_hash_table_lookup (r->lane_arrays, lane);
  r->last_gpu_key = *key;
  r->last_gpu_array = a;
  return a;
}

/* Moves an array's contents into a lane as an exactly-sized block. */
static void
lane_take (SlLane *lane,
           GArray *a)
{
  lane->n_events = a->len;
  lane->events = (SlEvent *) g_array_free (a, FALSE);
  if (lane->n_events > 0)
    lane->events = g_renew (SlEvent, lane->events, lane->n_events);
}

/*
 * A thread's ranges become one lane per nesting depth.  With a stack of open ranges, a range
 * goes one below the innermost range still open at its start; push/pop ranges then land at
 * their true nesting depth, and no two ranges of one depth ever overlap (so those lanes need no
 * interval tree).
 */
static void
split_by_depth (Reader     *r,
                gint32      thread,
                SlLaneKind  kind,
                GArray     *a)
{
  SlEvent *ev = (SlEvent *) a->data;
  gsize n = a->len;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_autofree guint16 *depth = g_new (guint16, MAX (n, 1));
  g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (gsize));
  const SlThread *t = &g_array_index (r->trace->threads, SlThread, thread);

  _sl_events_sort (ev, n);
  for (gsize i = 0; i < n; i++)
    {
      while (stack->len > 0 && g_array_index (stack, SlTime, stack->len - 1) <= ev[i].start)
        g_array_set_size (stack, stack->len - 1);
      guint d = MIN (stack->len, 1023);
      depth[i] = d;
      if (d >= counts->len)
        g_array_set_size (counts, d + 1);
      g_array_index (counts, gsize, d)++;
      /* a zero-length event is closed at once, but still occupies its instant at this depth */
      SlTime close = ev[i].end > ev[i].start ? ev[i].end : ev[i].start + (ev[i].start < G_MAXINT64);
      if (stack->len < 1023)
        g_array_append_val (stack, close);
    }

  /* one lane per depth, filled in one pass (a hostile file may nest 1023 deep) */
  g_autofree SlLane **by_depth = g_new0 (SlLane *, counts->len);
  g_autofree gsize *fill = g_new0 (gsize, counts->len);
  for (guint d = 0; d < counts->len; d++)
    {
      gsize count = g_array_index (counts, gsize, d);
      if (count == 0)
        continue;
      SlLane *lane = by_depth[d] = _sl_trace_add_lane (r->trace, kind);
      lane->thread = thread;
      lane->global_pid = GPID_OF (t->global_tid);
      lane->depth = d;
      lane->n_events = count;
      lane->events = g_new (SlEvent, count);
    }
  for (gsize i = 0; i < n; i++)
    by_depth[depth[i]]->events[fill[depth[i]]++] = ev[i];
}

static void
flush_cpu_builders (Reader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const CpuKey *k = key;
      GArray *a = value;

      if (k->kind == SL_LANE_SAMPLES)
        {
          SlLane *lane = _sl_trace_add_lane (r->trace, k->kind);
          const SlThread *t = &g_array_index (r->trace->threads, SlThread, k->thread);
          lane->thread = k->thread;
          lane->global_pid = GPID_OF (t->global_tid);
          lane_take (lane, a);
        }
      else
        {
          split_by_depth (r, k->thread, k->kind, a);
          g_array_free (a, TRUE);
        }
      g_hash_table_iter_steal (&iter);
      g_free (key);
    }
}

/* ---- event rows -------------------------------------------------------------------------- */

typedef struct
{
  guint64 null_time;
  guint64 bad_type;
  guint64 bad_range;
  guint64 bad_order;
  guint64 null_owner;
} RowTrouble;

/* Times beyond ±2^61 ns (±73 years) are clamped to it, so that any duration, and the trace's
 * span, fits in an SlTime with room to add a few together. */
#define TIME_LIMIT (G_GINT64_CONSTANT (1) << 61)

static inline SlTime
clamp_time (SlTime      t,
            RowTrouble *trouble)
{
  if (G_UNLIKELY (t < -TIME_LIMIT || t > TIME_LIMIT))
    {
      trouble->bad_range++;
      return CLAMP (t, -TIME_LIMIT, TIME_LIMIT);
    }
  return t;
}

/* Reads start/end from columns 0 and 1; FALSE when the row must be skipped. */
static inline gboolean
row_times (sqlite3_stmt *stmt,
           SlTime       *start,
           SlTime       *end,
           gboolean      end_may_be_null,
           RowTrouble   *trouble)
{
  int start_type = sqlite3_column_type (stmt, 0), end_type = sqlite3_column_type (stmt, 1);

  if (G_UNLIKELY (start_type == SQLITE_NULL))
    {
      trouble->null_time++;
      return FALSE;
    }
  /* text or a blob where nsys writes integers would read as time 0: skip the row instead */
  if (G_UNLIKELY ((start_type != SQLITE_INTEGER && start_type != SQLITE_FLOAT)
                  || end_type == SQLITE_TEXT || end_type == SQLITE_BLOB))
    {
      trouble->bad_type++;
      return FALSE;
    }
  *start = clamp_time (sqlite3_column_int64 (stmt, 0), trouble);
  if (end_type == SQLITE_NULL)
    {
      if (!end_may_be_null)
        {
          trouble->null_time++;
          return FALSE;
        }
      *end = G_MININT64;
      return TRUE;
    }
  *end = clamp_time (sqlite3_column_int64 (stmt, 1), trouble);
  if (G_UNLIKELY (*end < *start))
    {
      trouble->bad_order++;
      *end = *start;
    }
  return TRUE;
}

static void
report_trouble (Reader           *r,
                const char       *table,
                const RowTrouble *t)
{
  if (t->null_time > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows with a NULL start or end were skipped",
                    table, t->null_time);
  if (t->bad_type > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows whose start or end is not a number were skipped",
                    table, t->bad_type);
  if (t->bad_range > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " times lie more than 73 years from time 0 and were clamped",
                    table, t->bad_range);
  if (t->bad_order > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows end before they start; their end was set to their start",
                    table, t->bad_order);
  if (t->null_owner > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows name no thread or process and were skipped",
                    table, t->null_owner);
}

static guint32
clamp_u32 (gint64 v)
{
  return (guint32) CLAMP (v, 0, (gint64) G_MAXUINT32);
}

static gboolean
read_runtime (Reader  *r,
              GError **error)
{
  const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = g_strdup_printf (
    "SELECT start, end, globalTid, %s, %s, %s, %s FROM %s",
    col_or (c, "correlationId", "0"), col_or (c, "nameId", "NULL"), col_or (c, "eventClass", "0"),
    col_or (c, "returnValue", "0"), table);
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  gint64 rows = table_rows_estimate (r, table), row = 0;
  GArray *a = NULL;
  gint32 a_thread = -1;
  int rc;

  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && !tick (r, "CUDA API calls", row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble))
        continue;
      if (G_UNLIKELY (sqlite3_column_type (stmt, 2) == SQLITE_NULL))
        {
          trouble.null_owner++;
          continue;
        }
      gint32 thread = thread_for (r, (guint64) sqlite3_column_int64 (stmt, 2));
      if (thread != a_thread)
        {
          a = cpu_events (r, thread, SL_LANE_CUDA_API);
          a_thread = thread;
        }
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 3));
      ev.name = col_str (r, stmt, 4);
      ev.link = SL_NO_LINK;
      ev.aux = (guint32) (sqlite3_column_int64 (stmt, 5) & 0xFF)
               | (guint32) (MIN ((guint64) sqlite3_column_int64 (stmt, 6), 0xFFFFFFu) << 8);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

/* Columns 2..5 of GPU tables: deviceId, contextId, streamId, globalPid; column 6 correlationId;
 * greenContextId in column `green_col` (NULL or 0 when none). */
static gboolean
gpu_row_key (sqlite3_stmt *stmt,
             SlLaneKind    kind,
             int           green_col,
             GpuKey       *key,
             RowTrouble   *trouble)
{
  if (G_UNLIKELY (sqlite3_column_type (stmt, 5) == SQLITE_NULL && sqlite3_column_type (stmt, 2) == SQLITE_NULL))
    {
      trouble->null_owner++;
      return FALSE;
    }
  memset (key, 0, sizeof *key);
  key->device = clamp_u32 (sqlite3_column_int64 (stmt, 2));
  key->context = clamp_u32 (sqlite3_column_int64 (stmt, 3));
  key->stream = clamp_u32 (sqlite3_column_int64 (stmt, 4));
  key->global_pid = GPID_OF ((guint64) sqlite3_column_int64 (stmt, 5));
  key->green_context = clamp_u32 (sqlite3_column_int64 (stmt, green_col));
  key->kind = kind;
  return TRUE;
}

static guint32
intern_kernel_info (Reader             *r,
                    const SlKernelInfo *info)
{
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->kernel_infos, info));
  if (idx != 0)
    return idx - 1;
  g_array_append_val (r->trace->kernel_infos, *info);
  idx = r->trace->kernel_infos->len;
  g_hash_table_insert (r->kernel_infos, g_memdup2 (info, sizeof *info), GUINT_TO_POINTER (idx));
  return idx - 1;
}

static guint32
intern_copy_info (Reader           *r,
                  const SlCopyInfo *info)
{
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->copy_infos, info));
  if (idx != 0)
    return idx - 1;
  g_array_append_val (r->trace->copy_infos, *info);
  idx = r->trace->copy_infos->len;
  g_hash_table_insert (r->copy_infos, g_memdup2 (info, sizeof *info), GUINT_TO_POINTER (idx));
  return idx - 1;
}

static guint
bytes_hash (gconstpointer p, gsize n)
{
  const guchar *b = p;
  guint32 h = 2166136261u;
  for (gsize i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

/* called once per kernel row (10^6 … 10^7): mix whole words, not bytes */
static guint
kinfo_hash (gconstpointer p)
{
  const guint32 *w = p;
  guint64 h = 0x9E3779B97F4A7C15u;

  G_STATIC_ASSERT (sizeof (SlKernelInfo) % sizeof (guint32) == 0);
  for (gsize i = 0; i < sizeof (SlKernelInfo) / sizeof (guint32); i++)
    h = (h ^ w[i]) * 0xFF51AFD7ED558CCDu;
  return (guint) (h ^ (h >> 32));
}
static gboolean kinfo_equal (gconstpointer a, gconstpointer b) { return memcmp (a, b, sizeof (SlKernelInfo)) == 0; }
static guint cinfo_hash (gconstpointer p) { return bytes_hash (p, sizeof (SlCopyInfo)); }
static gboolean cinfo_equal (gconstpointer a, gconstpointer b) { return memcmp (a, b, sizeof (SlCopyInfo)) == 0; }

static gboolean
read_kernels (Reader  *r,
              GError **error)
{
  const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = g_strdup_printf (
    "SELECT start, end, deviceId, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, gridX, gridY, gridZ, "
    "blockX, blockY, blockZ, %s, %s, %s, %s, %s FROM %s",
    col_or (c, "contextId", "0"), col_or (c, "streamId", "0"), col_or (c, "globalPid", "NULL"),
    col_or (c, "correlationId", "0"), col_or (c, "demangledName", "NULL"),
    col_or (c, "shortName", "NULL"), col_or (c, "mangledName", "NULL"),
    col_or (c, "launchType", "0"), col_or (c, "cacheConfig", "0"),
    col_or (c, "registersPerThread", "0"), col_or (c, "staticSharedMemory", "0"),
    col_or (c, "dynamicSharedMemory", "0"), col_or (c, "localMemoryPerThread", "0"),
    col_or (c, "sharedMemoryExecuted", "0"), col_or (c, "greenContextId", "0"), table);
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  gint64 rows = table_rows_estimate (r, table), row = 0;
  int rc;

  if (!g_hash_table_contains (c, "gridX"))
    {
      _sl_trace_warn (r->trace, "%s lacks launch configuration columns and was skipped", table);
      return TRUE;
    }
  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;
      GpuKey key;
      SlKernelInfo info;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && !tick (r, "kernels", row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble)
          || !gpu_row_key (stmt, SL_LANE_KERNELS, 23, &key, &trouble))
        continue;
      memset (&info, 0, sizeof info);
      info.demangled_name = col_str (r, stmt, 7);
      info.short_name = col_str (r, stmt, 8);
      info.mangled_name = col_str (r, stmt, 9);
      if (info.demangled_name == SL_NO_STR)
        info.demangled_name = info.short_name;
      if (info.short_name == SL_NO_STR)
        info.short_name = info.demangled_name;
      info.launch_type = (guint16) CLAMP (sqlite3_column_int64 (stmt, 10), 0, G_MAXUINT16);
      info.cache_config = (guint16) CLAMP (sqlite3_column_int64 (stmt, 11), 0, G_MAXUINT16);
      info.registers_per_thread = clamp_u32 (sqlite3_column_int64 (stmt, 12));
      for (int i = 0; i < 3; i++)
        {
          info.grid[i] = clamp_u32 (sqlite3_column_int64 (stmt, 13 + i));
          info.block[i] = clamp_u32 (sqlite3_column_int64 (stmt, 16 + i));
        }
      info.static_shared = clamp_u32 (sqlite3_column_int64 (stmt, 19));
      info.dynamic_shared = clamp_u32 (sqlite3_column_int64 (stmt, 20));
      info.local_per_thread = clamp_u32 (sqlite3_column_int64 (stmt, 21));
      info.shared_executed = clamp_u32 (sqlite3_column_int64 (stmt, 22));

      ev.name = info.demangled_name;
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 6));
      ev.link = SL_NO_LINK;
      ev.aux = intern_kernel_info (r, &info);
      GArray *a = gpu_events (r, &key);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

static guint32
memcpy_name (Reader *r,
             gint64  kind)
{
  if (kind >= 0 && kind < (gint64) G_N_ELEMENTS (r->memcpy_names) && r->memcpy_names[kind] != 0)
    return r->memcpy_names[kind];
  g_autofree char *name = g_strdup_printf ("[CUDA memcpy %s]",
                                           sl_trace_enum_label (r->trace, SL_ENUM_MEMCPY_OPER, kind));
  guint32 id = _sl_trace_intern (r->trace, name, -1);
  if (kind >= 0 && kind < (gint64) G_N_ELEMENTS (r->memcpy_names))
    r->memcpy_names[kind] = id;
  return id;
}

static guint8
mem_kind (sqlite3_stmt *stmt,
          int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return SL_MEM_KIND_NONE;
  return (guint8) CLAMP (sqlite3_column_int64 (stmt, col), 0, 0xFE);
}

static gint16
device_or_none (sqlite3_stmt *stmt,
                int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return -1;
  return (gint16) CLAMP (sqlite3_column_int64 (stmt, col), -1, G_MAXINT16);
}

static gboolean
read_copies (Reader     *r,
             gboolean    memset_table,
             GError    **error)
{
  const char *table = memset_table ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  gint64 rows = table_rows_estimate (r, table), row = 0;
  guint32 memset_name = _sl_trace_intern (r->trace, "[CUDA memset]", -1);
  int rc;

  if (memset_table)
    sql = g_strdup_printf ("SELECT start, end, deviceId, %s, %s, %s, %s, %s, %s, %s, %s FROM %s",
                           col_or (c, "contextId", "0"), col_or (c, "streamId", "0"),
                           col_or (c, "globalPid", "NULL"), col_or (c, "correlationId", "0"),
                           col_or (c, "bytes", "0"), col_or (c, "value", "0"), col_or (c, "memKind", "NULL"),
                           col_or (c, "greenContextId", "0"), table);
  else
    sql = g_strdup_printf ("SELECT start, end, deviceId, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM %s",
                           col_or (c, "contextId", "0"), col_or (c, "streamId", "0"),
                           col_or (c, "globalPid", "NULL"), col_or (c, "correlationId", "0"),
                           col_or (c, "bytes", "0"), col_or (c, "copyKind", "0"),
                           col_or (c, "srcKind", "NULL"), col_or (c, "dstKind", "NULL"),
                           col_or (c, "srcDeviceId", "NULL"), col_or (c, "dstDeviceId", "NULL"),
                           col_or (c, "greenContextId", "0"), table);
  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;
      GpuKey key;
      SlCopyInfo info;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && !tick (r, "memory operations", row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble)
          || !gpu_row_key (stmt, memset_table ? SL_LANE_MEMSET : SL_LANE_MEMCPY, memset_table ? 10 : 13,
                           &key, &trouble))
        continue;
      memset (&info, 0, sizeof info);
      info.bytes = (guint64) MAX (sqlite3_column_int64 (stmt, 7), 0);
      info.src_kind = info.dst_kind = info.mem_kind = SL_MEM_KIND_NONE;
      info.src_device = info.dst_device = -1;
      if (memset_table)
        {
          info.value = (guint32) sqlite3_column_int64 (stmt, 8);
          info.mem_kind = mem_kind (stmt, 9);
          ev.name = memset_name;
        }
      else
        {
          gint64 kind = sqlite3_column_int64 (stmt, 8);
          info.copy_kind = (guint8) CLAMP (kind, 0, 0xFF);
          info.src_kind = mem_kind (stmt, 9);
          info.dst_kind = mem_kind (stmt, 10);
          info.src_device = device_or_none (stmt, 11);
          info.dst_device = device_or_none (stmt, 12);
          ev.name = memcpy_name (r, kind);
        }
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 6));
      ev.link = SL_NO_LINK;
      ev.aux = intern_copy_info (r, &info);
      GArray *a = gpu_events (r, &key);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

static guint64
context_key (guint64 global_pid,
             guint32 context)
{
  return (global_pid >> 24) << 24 ^ context;
}

/* Sync rows carry deviceId 0 even for other devices' streams (seen in real 2-GPU exports):
 * place them by (process, context) where a kernel or copy tells us the context's device. */
static void
map_contexts (Reader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->gpu_lanes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const GpuKey *k = key;
      guint64 ck = context_key (k->global_pid, k->context);
      if (!g_hash_table_contains (r->context_gpu, &ck))
        g_hash_table_insert (r->context_gpu, g_memdup2 (&ck, sizeof ck), GUINT_TO_POINTER (k->device + 1));
    }
}

static gboolean
read_sync (Reader  *r,
           GError **error)
{
  const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = g_strdup_printf ("SELECT start, end, deviceId, %s, %s, %s, %s, %s, %s FROM %s",
                                          col_or (c, "contextId", "0"), col_or (c, "streamId", "0"),
                                          col_or (c, "globalPid", "NULL"), col_or (c, "correlationId", "0"),
                                          col_or (c, "syncType", "0"), col_or (c, "greenContextId", "0"),
                                          table);
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  guint32 names[5] = { 0 };
  int rc;

  map_contexts (r);
  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;
      GpuKey key;

      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble)
          || !gpu_row_key (stmt, SL_LANE_SYNC, 8, &key, &trouble))
        continue;
      guint64 ck = context_key (key.global_pid, key.context);
      guint dev = GPOINTER_TO_UINT (g_hash_table_lookup (r->context_gpu, &ck));
      if (dev != 0)
        key.device = dev - 1;
      gint64 type = sqlite3_column_int64 (stmt, 7);
      guint t = (guint) CLAMP (type, 0, 4);
      if (t != type)
        ev.name = _sl_trace_intern (r->trace, sl_trace_enum_label (r->trace, SL_ENUM_SYNC_TYPE, type), -1);
      else
        {
          if (names[t] == 0)
            names[t] = _sl_trace_intern (r->trace, sl_trace_enum_label (r->trace, SL_ENUM_SYNC_TYPE, type), -1);
          ev.name = names[t];
        }
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 6));
      ev.link = SL_NO_LINK;
      ev.aux = (guint32) t;
      GArray *a = gpu_events (r, &key);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

/* NVTX event types (ENUM_NSYS_EVENT_TYPE) */
enum
{
  NVTX_MARK = 34,
  NVTX_PUSH_POP = 59,
  NVTX_START_END = 60,
  NVTXT_PUSH_POP = 70,
  NVTXT_START_END = 71,
  NVTX_DOMAIN_CREATE = 75,
};

static guint64
domain_key (guint64 global_tid,
            gint64  domain)
{
  return (PID_OF (global_tid) << 40) ^ (guint64) (domain & 0xFFFFFFFFFF);
}

static gboolean
read_nvtx (Reader  *r,
           GError **error)
{
  const char *table = "NVTX_EVENTS";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = g_strdup_printf (
    "SELECT start, end, eventType, %s, %s, %s, %s, %s, %s FROM %s",
    col_or (c, "globalTid", "NULL"), col_or (c, "endGlobalTid", "NULL"), col_or (c, "textId", "NULL"),
    col_or (c, "text", "NULL"), col_or (c, "color", "NULL"), col_or (c, "domainId", "0"), table);
  g_autofree char *dsql = g_strdup_printf ("SELECT globalTid, %s, %s, %s FROM %s WHERE eventType = %d",
                                           col_or (c, "domainId", "0"), col_or (c, "textId", "NULL"),
                                           col_or (c, "text", "NULL"), table, NVTX_DOMAIN_CREATE);
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  gint64 rows = table_rows_estimate (r, table), row = 0;
  SlTime max_time = G_MININT64;
  g_autoptr (GPtrArray) open_ended = g_ptr_array_new ();
  guint64 unterminated = 0;
  int rc;

  if (!g_hash_table_contains (c, "eventType"))
    {
      _sl_trace_warn (r->trace, "%s has no eventType column and was skipped", table);
      return TRUE;
    }

  /* domains first: ranges name them by (process, domainId) */
  if (!prepare (r, table, dsql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      guint64 key = domain_key ((guint64) sqlite3_column_int64 (stmt, 0), sqlite3_column_int64 (stmt, 1));
      guint32 name = col_str (r, stmt, 2);
      if (name == SL_NO_STR)
        name = col_text (r, stmt, 3);
      g_hash_table_insert (r->nvtx_domains, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (name));
    }
  sqlite3_finalize (stmt);
  if (step_failed (r, table, rc, error))
    return FALSE;

  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && !tick (r, "NVTX ranges", row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (sqlite3_column_type (stmt, 0) != SQLITE_NULL)
        max_time = MAX (max_time, CLAMP (sqlite3_column_int64 (stmt, 0), -TIME_LIMIT, TIME_LIMIT));
      if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
        max_time = MAX (max_time, CLAMP (sqlite3_column_int64 (stmt, 1), -TIME_LIMIT, TIME_LIMIT));

      gint64 type = sqlite3_column_int64 (stmt, 2);
      guint32 flags;
      switch (type)
        {
        case NVTX_PUSH_POP:
        case NVTXT_PUSH_POP:
          flags = 0;
          break;
        case NVTX_START_END:
        case NVTXT_START_END:
          flags = SL_NVTX_START_END;
          break;
        case NVTX_MARK:
          flags = SL_NVTX_MARK;
          break;
        default:
          continue;   /* domain creation, categories, thread names … are not ranges */
        }
      if (!row_times (stmt, &ev.start, &ev.end, TRUE, &trouble))
        continue;
      int owner = sqlite3_column_type (stmt, 3) != SQLITE_NULL ? 3 : 4;
      if (sqlite3_column_type (stmt, owner) == SQLITE_NULL)
        {
          trouble.null_owner++;
          continue;
        }
      guint64 gtid = (guint64) sqlite3_column_int64 (stmt, owner);
      ev.name = col_str (r, stmt, 5);
      if (ev.name == SL_NO_STR)
        ev.name = col_text (r, stmt, 6);
      ev.aux = sqlite3_column_type (stmt, 7) == SQLITE_NULL ? 0 : (guint32) sqlite3_column_int64 (stmt, 7);
      gint64 domain = sqlite3_column_int64 (stmt, 8);
      ev.corr = SL_NO_STR;
      if (domain != 0)
        {
          guint64 key = domain_key (gtid, domain);
          ev.corr = GPOINTER_TO_UINT (g_hash_table_lookup (r->nvtx_domains, &key));
        }
      if (flags & SL_NVTX_MARK)
        ev.end = ev.start;
      else if (ev.end == G_MININT64)
        flags |= SL_NVTX_UNTERMINATED;
      ev.link = flags;
      GArray *a = cpu_events (r, thread_for (r, gtid), SL_LANE_NVTX);
      if (flags & SL_NVTX_UNTERMINATED)
        {
          /* clamp once the table's last timestamp is known, as nvtx_sum does */
          g_ptr_array_add (open_ended, a);
          g_ptr_array_add (open_ended, GSIZE_TO_POINTER (a->len));
          unterminated++;
        }
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  for (guint i = 0; i < open_ended->len; i += 2)
    {
      GArray *a = g_ptr_array_index (open_ended, i);
      SlEvent *ev = &g_array_index (a, SlEvent, GPOINTER_TO_SIZE (g_ptr_array_index (open_ended, i + 1)));
      ev->end = MAX (max_time, ev->start);
    }
  if (unterminated > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " ranges were never closed; they end at the last NVTX timestamp",
                    table, unterminated);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

static gboolean
read_osrt (Reader  *r,
           GError **error)
{
  const char *table = "OSRT_API";
  g_autoptr (GHashTable) c = table_columns (r, table);
  g_autofree char *sql = g_strdup_printf ("SELECT start, end, globalTid, %s, %s, %s FROM %s WHERE %s = 27",
                                          col_or (c, "nameId", "NULL"), col_or (c, "returnValue", "0"),
                                          col_or (c, "callchainId", "0"), table,
                                          col_or (c, "eventClass", "27"));
  sqlite3_stmt *stmt = NULL;
  RowTrouble trouble = { 0 };
  gint64 rows = table_rows_estimate (r, table), row = 0;
  int rc;

  if (!prepare (r, table, sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && !tick (r, "OS runtime calls", row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble))
        continue;
      if (sqlite3_column_type (stmt, 2) == SQLITE_NULL)
        {
          trouble.null_owner++;
          continue;
        }
      gint32 thread = thread_for (r, (guint64) sqlite3_column_int64 (stmt, 2));
      ev.name = col_str (r, stmt, 3);
      ev.aux = (guint32) sqlite3_column_int64 (stmt, 4);
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 5));
      ev.link = SL_NO_LINK;
      GArray *a = cpu_events (r, thread, SL_LANE_OSRT);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, table, &trouble);
  return !step_failed (r, table, rc, error);
}

static gboolean
read_samples (Reader  *r,
              GError **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autoptr (GHashTable) chain_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  RowTrouble trouble = { 0 };
  int rc;

  if (table_exists (r, "SAMPLING_CALLCHAINS"))
    {
      gint64 current = G_MININT64;
      guint32 chain = 0;

      if (!prepare (r, "SAMPLING_CALLCHAINS",
                    "SELECT id, symbol, module FROM SAMPLING_CALLCHAINS ORDER BY id, stackDepth", &stmt, error))
        return FALSE;
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          gint64 id = sqlite3_column_int64 (stmt, 0);
          if (id != current)
            {
              if (current != G_MININT64)
                {
                  guint32 end = r->trace->chain_symbols->len;
                  g_array_append_val (r->trace->chain_offsets, end);
                }
              current = id;
              chain = r->trace->chain_offsets->len - 1;
              g_hash_table_insert (chain_of, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (chain + 1));
            }
          guint32 sym = col_str (r, stmt, 1), mod = col_str (r, stmt, 2);
          g_array_append_val (r->trace->chain_symbols, sym);
          g_array_append_val (r->trace->chain_modules, mod);
        }
      if (current != G_MININT64)
        {
          guint32 end = r->trace->chain_symbols->len;
          g_array_append_val (r->trace->chain_offsets, end);
        }
      sqlite3_finalize (stmt);
      if (step_failed (r, "SAMPLING_CALLCHAINS", rc, error))
        return FALSE;
    }

  g_autoptr (GHashTable) c = table_columns (r, "COMPOSITE_EVENTS");
  g_autofree char *sql = g_strdup_printf ("SELECT start, start, globalTid, %s, %s FROM COMPOSITE_EVENTS",
                                          col_or (c, "id", "NULL"), col_or (c, "threadState", "0"));
  if (!prepare (r, "COMPOSITE_EVENTS", sql, &stmt, error))
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;

      if (!row_times (stmt, &ev.start, &ev.end, FALSE, &trouble))
        continue;
      if (sqlite3_column_type (stmt, 2) == SQLITE_NULL)
        {
          trouble.null_owner++;
          continue;
        }
      gint32 thread = thread_for (r, (guint64) sqlite3_column_int64 (stmt, 2));
      gint64 id = sqlite3_column_int64 (stmt, 3);
      guint chain = GPOINTER_TO_UINT (g_hash_table_lookup (chain_of, &id));
      ev.aux = chain != 0 ? chain - 1 : G_MAXUINT32;
      ev.name = SL_NO_STR;
      if (chain != 0)
        {
          const guint32 *syms, *mods;
          if (sl_trace_get_callchain (r->trace, chain - 1, &syms, &mods) > 0)
            ev.name = syms[0];
        }
      ev.corr = clamp_u32 (sqlite3_column_int64 (stmt, 4));
      ev.link = SL_NO_LINK;
      GArray *a = cpu_events (r, thread, SL_LANE_SAMPLES);
      g_array_append_val (a, ev);
    }
  sqlite3_finalize (stmt);
  report_trouble (r, "COMPOSITE_EVENTS", &trouble);
  return !step_failed (r, "COMPOSITE_EVENTS", rc, error);
}

/* ---- the whole file ---------------------------------------------------------------------- */

static void
free_gpu_arrays (Reader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->lane_arrays);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_array_free (value, TRUE);
  g_hash_table_remove_all (r->lane_arrays);
}

static void
free_cpu_builders (Reader *r)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_free (value, TRUE);
  g_hash_table_remove_all (r->cpu_builders);
}

typedef gboolean (*ReadFunc) (Reader *r, GError **error);

typedef struct
{
  SlLoadFlags flag;
  const char *table;
  gboolean    gpu;       /* read by the second thread */
  ReadFunc    read;
  double      weight;
} TableStep;

/* The tables one thread reads, in order. */
static gboolean
run_steps (Reader          *r,
           const TableStep *steps,
           guint            n_steps,
           gboolean         gpu,
           GError         **error)
{
  for (guint i = 0; i < n_steps; i++)
    {
      if (steps[i].gpu != gpu)
        continue;
      r->share = steps[i].weight;
      if ((r->flags & steps[i].flag) && table_exists (r, steps[i].table))
        {
          report_progress (r, r->done, steps[i].table);
          if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
            return FALSE;
          r->last_gpu_array = NULL;
          if (!steps[i].read (r, error))
            return FALSE;
        }
      else if ((r->flags & steps[i].flag) && view_exists (r, steps[i].table))
        _sl_trace_warn (r->trace, "%s is a view, not a table; it was not read", steps[i].table);
      r->done += steps[i].weight;
    }
  return TRUE;
}

typedef struct
{
  Reader          *r;
  const TableStep *steps;
  guint            n_steps;
  GError          *error;
  gboolean         ok;
} GpuJob;

static gpointer
gpu_job_run (gpointer data)
{
  GpuJob *job = data;
  job->ok = run_steps (job->r, job->steps, job->n_steps, TRUE, &job->error);
  if (!job->ok)
    g_atomic_int_compare_and_exchange (&job->r->prog->failed, 0, 2);
  return NULL;
}

static gboolean read_memcpy (Reader *r, GError **error) { return read_copies (r, FALSE, error); }
static gboolean read_memset (Reader *r, GError **error) { return read_copies (r, TRUE, error); }

gboolean
_sl_reader_read (SlTrace        *trace,
                 sqlite3        *db,
                 SlLoadFlags     flags,
                 SlProgressFunc  progress,
                 gpointer        user_data,
                 GCancellable   *cancellable,
                 GError        **error)
{
  /* CPU-side tables on this thread, GPU-side tables on a second one (each with its own
   * connection): on two cores a load costs about the larger half, not the sum */
  static const TableStep steps[] = {
    { SL_LOAD_CUDA_API, "CUPTI_ACTIVITY_KIND_RUNTIME", FALSE, read_runtime, 0.35 },
    { SL_LOAD_KERNELS, "CUPTI_ACTIVITY_KIND_KERNEL", TRUE, read_kernels, 0.35 },
    { SL_LOAD_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", TRUE, read_memcpy, 0.04 },
    { SL_LOAD_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", TRUE, read_memset, 0.02 },
    { SL_LOAD_SYNC, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", TRUE, read_sync, 0.02 },
    { SL_LOAD_NVTX, "NVTX_EVENTS", FALSE, read_nvtx, 0.15 },
    { SL_LOAD_OSRT, "OSRT_API", FALSE, read_osrt, 0.04 },
    { SL_LOAD_SAMPLES, "COMPOSITE_EVENTS", FALSE, read_samples, 0.03 },
  };
  Reader r = { 0 };
  gboolean ok = FALSE, any_table = FALSE;
  sqlite3_stmt *probe = NULL;
  int rc;

  Progress prog = { 0 };
  g_mutex_init (&prog.lock);
  r.trace = trace;
  r.db = db;
  r.prog = &prog;
  r.flags = flags;
  r.progress = progress;
  r.user_data = user_data;
  r.cancellable = cancellable;
  r.last_thread = -1;

  /* The first read of the schema tells a SQLite file from anything else. */
  rc = sqlite3_prepare_v2 (db, "SELECT count(*) FROM sqlite_master", -1, &probe, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (probe);
  if (rc != SQLITE_ROW)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: not a readable SQLite trace: %s",
                   trace->path, sqlite3_errmsg (db));
      sqlite3_finalize (probe);
      return FALSE;
    }
  sqlite3_finalize (probe);

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    any_table |= table_exists (&r, steps[i].table);
  if (!table_exists (&r, "StringIds") && !any_table)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_NOT_TRACE,
                   "%s: not an Nsight Systems trace: it has neither a StringIds table nor any event table "
                   "(CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API, COMPOSITE_EVENTS)", trace->path);
      return FALSE;
    }

  r.threads = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r.processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r.cpu_builders = g_hash_table_new_full (cpu_key_hash, cpu_key_equal, g_free, NULL);
  r.gpu_lanes = g_hash_table_new_full (gpu_key_hash, gpu_key_equal, g_free, NULL);
  r.lane_arrays = g_hash_table_new (g_direct_hash, g_direct_equal);
  r.kernel_infos = g_hash_table_new_full (kinfo_hash, kinfo_equal, g_free, NULL);
  r.copy_infos = g_hash_table_new_full (cinfo_hash, cinfo_equal, g_free, NULL);
  r.context_gpu = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r.nvtx_domains = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  if (!table_exists (&r, "StringIds"))
    _sl_trace_warn (trace, view_exists (&r, "StringIds")
                           ? "StringIds is a view, not a table; it was not read: names are missing"
                           : "the trace has no StringIds table: names are missing");
  strings_open (&r);
  read_schema_version (&r);
  read_enums (&r);
  if (!read_processes (&r, error) || !read_gpus (&r, error))
    goto out;

  /* the GPU side gets its own reader: own connection, string cache and row caches; it shares
   * only the GPU-side tables, which the CPU side never touches */
  Reader g = r;
  GpuJob job = { &g, steps, G_N_ELEMENTS (steps), NULL, TRUE };
  GThread *worker = NULL;
  gboolean want_gpu = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    want_gpu |= steps[i].gpu && (flags & steps[i].flag) && table_exists (&r, steps[i].table);
  g.slot = 1;
  g.str_map = NULL;
  g.str_map_big = NULL;
  g.str_stmt = NULL;
  g.n_missing_str = g.n_bad_utf8 = 0;
  g.last_thread = -1;
  g.last_gpu_array = NULL;
  memset (g.memcpy_names, 0, sizeof g.memcpy_names);
  g.db = want_gpu ? _sl_trace_open_db (trace->path, (flags & SL_LOAD_LIVE) != 0, NULL) : NULL;
  if (g.db != NULL)
    {
      strings_open (&g);
      worker = g_thread_new ("sl-load-gpu", gpu_job_run, &job);
    }
  else if (want_gpu)
    job.ok = run_steps (&r, steps, G_N_ELEMENTS (steps), TRUE, &job.error);

  gboolean cpu_ok = run_steps (&r, steps, G_N_ELEMENTS (steps), FALSE, error);
  if (!cpu_ok)
    g_atomic_int_compare_and_exchange (&prog.failed, 0, 1);
  if (worker != NULL)
    g_thread_join (worker);
  if (g.db != NULL)
    {
      if (g.str_stmt != NULL)
        sqlite3_finalize (g.str_stmt);
      sqlite3_close (g.db);
      g_free (g.str_map);
      g_clear_pointer (&g.str_map_big, g_hash_table_unref);
      r.n_missing_str += g.n_missing_str;
      r.n_bad_utf8 += g.n_bad_utf8;
    }
  /* report the first failure; the other side only stopped because of it */
  if (!cpu_ok || !job.ok)
    {
      if (!job.ok && (cpu_ok || g_atomic_int_get (&prog.failed) == 2))
        {
          g_clear_error (error);
          g_propagate_error (error, job.error);
        }
      else
        g_clear_error (&job.error);
      goto out;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  flush_cpu_builders (&r);

  /* GPU lanes: hand the arrays over */
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, r.lane_arrays);
  while (g_hash_table_iter_next (&iter, &key, &value))
    lane_take (key, value);
  g_hash_table_remove_all (r.lane_arrays);

  if (r.n_missing_str > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " string ids point nowhere in StringIds; those names are empty",
                    r.n_missing_str);
  gsize n_events = 0;
  for (guint i = 0; i < trace->lanes->len; i++)
    n_events += ((SlLane *) g_ptr_array_index (trace->lanes, i))->n_events;
  if (n_events == 0)
    _sl_trace_warn (trace, "the trace holds no events: its event tables are empty or were not loaded");
  if (r.n_bad_utf8 > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " names are not valid UTF-8; unreadable bytes were replaced",
                    r.n_bad_utf8);
  ok = TRUE;

out:
  free_gpu_arrays (&r);
  free_cpu_builders (&r);
  if (r.str_stmt != NULL)
    sqlite3_finalize (r.str_stmt);
  g_free (r.str_map);
  g_clear_pointer (&r.str_map_big, g_hash_table_unref);
  g_hash_table_unref (r.threads);
  g_hash_table_unref (r.processes);
  g_hash_table_unref (r.cpu_builders);
  g_hash_table_unref (r.gpu_lanes);
  g_hash_table_unref (r.lane_arrays);
  g_hash_table_unref (r.kernel_infos);
  g_hash_table_unref (r.copy_infos);
  g_hash_table_unref (r.context_gpu);
  g_hash_table_unref (r.nvtx_domains);
  g_mutex_clear (&prog.lock);
  return ok;
}
