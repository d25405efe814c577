/* sl-reader-meta.c: what a trace says about itself: StringIds, processes and ThreadNames,
 * TARGET_INFO_* GPUs, ENUM_* labels and the META_DATA_* schema version.
 *
 * These tables are small (tens to thousands of rows) except StringIds, which is not read
 * whole: a name is looked up once, when a row first names it, and cached by its id.
 */
#include "sl-reader-private.h"

/* ---- strings ----------------------------------------------------------------------------- */

guint32
_sl_reader_str_lookup (SlReader *r,
                       gint64    file_id)
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
      g_hash_table_insert (r->str_map_big, g_memdup2 (&file_id, sizeof file_id),
                           GUINT_TO_POINTER (cached));
    }
  return id;
}

guint32
_sl_reader_col_text (SlReader     *r,
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

void
_sl_reader_strings_open (SlReader *r)
{
  sqlite3_stmt *stmt = NULL;
  gint64 max_id = 0;

  if (!_sl_reader_table_exists (r, "StringIds"))
    return;
  if (sqlite3_prepare_v2 (r->db, "SELECT max(id) FROM StringIds", -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    max_id = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  /* ids are dense in real files; a hostile one with a huge id falls back to a hash table */
  r->str_map_len = (gsize) CLAMP (max_id, 0, (1 << 24) - 1) + 1;
  r->str_map = g_new0 (guint32, r->str_map_len);
  if (sqlite3_prepare_v2 (r->db, "SELECT value FROM StringIds WHERE id = ?", -1, &r->str_stmt,
                          NULL) != SQLITE_OK)
    r->str_stmt = NULL;
}

void
_sl_reader_strings_close (SlReader *r)
{
  if (r->str_stmt != NULL)
    sqlite3_finalize (r->str_stmt);
  r->str_stmt = NULL;
  g_clear_pointer (&r->str_map, g_free);
  r->str_map_len = 0;
  g_clear_pointer (&r->str_map_big, g_hash_table_unref);
}

/* ---- processes, threads ------------------------------------------------------------------ */

static guint
process_for (SlReader *r,
             guint64   global_pid)
{
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->processes, &global_pid));
  if (idx != 0)
    return idx - 1;

  SlProcess p = { global_pid, (guint32) PID_OF (global_pid), SL_NO_STR, 0, SL_NO_STR, -1, 0 };
  g_array_append_val (r->trace->processes, p);
  idx = r->trace->processes->len;
  g_hash_table_insert (r->processes, g_memdup2 (&global_pid, sizeof global_pid),
                       GUINT_TO_POINTER (idx));
  return idx - 1;
}

gint32
_sl_reader_thread_lookup (SlReader *r,
                          guint64   global_tid)
{
  guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (r->threads, &global_tid));
  if (idx == 0)
    {
      SlThread t = { global_tid, (guint32) PID_OF (global_tid), (guint32) TID_OF (global_tid),
                     SL_NO_STR, 0, SL_NO_PRIORITY, 0 };
      t.process = process_for (r, GPID_OF (global_tid));
      g_array_append_val (r->trace->threads, t);
      idx = r->trace->threads->len;
      g_hash_table_insert (r->threads, g_memdup2 (&global_tid, sizeof global_tid),
                           GUINT_TO_POINTER (idx));
    }
  r->last_tid = global_tid;
  r->last_thread = idx - 1;
  return idx - 1;
}

static void
process_row (SlReader     *r,
             sqlite3_stmt *stmt,
             SlEvent      *ev G_GNUC_UNUSED,
             SlRowLoop    *loop)
{
  if (sqlite3_column_type (stmt, 0) == SQLITE_NULL)
    {
      loop->trouble.null_owner++;
      return;
    }
  guint64 gpid = GPID_OF ((guint64) sqlite3_column_int64 (stmt, 0));
  guint pi = process_for (r, gpid);
  SlProcess *p = &g_array_index (r->trace->processes, SlProcess, pi);
  guint32 name = _sl_reader_col_text (r, stmt, 2);
  if (name != SL_NO_STR)
    p->name = name;
}

static void
thread_name_row (SlReader     *r,
                 sqlite3_stmt *stmt,
                 SlEvent      *ev G_GNUC_UNUSED,
                 SlRowLoop    *loop)
{
  if (sqlite3_column_type (stmt, 0) == SQLITE_NULL)
    {
      loop->trouble.null_owner++;
      return;
    }
  gint32 ti = _sl_reader_thread_for (r, (guint64) sqlite3_column_int64 (stmt, 0));
  SlThread *t = &g_array_index (r->trace->threads, SlThread, ti);
  t->name = _sl_reader_col_str (r, stmt, 1);
  if (sqlite3_column_type (stmt, 2) == SQLITE_INTEGER)
    t->priority = sqlite3_column_int64 (stmt, 2);
}

/* SL_PROCESS_INFO, Sightline's own table (nsys has no command line or parent): a row per process
 * of the recorded tree.  A process it names that no other table has is added (it may have run
 * no traced code, yet be the parent of those that did). */
static void
process_info_row (SlReader     *r,
                  sqlite3_stmt *stmt,
                  SlEvent      *ev G_GNUC_UNUSED,
                  SlRowLoop    *loop)
{
  if (sqlite3_column_type (stmt, 0) != SQLITE_INTEGER)
    {
      loop->trouble.null_owner++;
      return;
    }
  guint pi = process_for (r, GPID_OF ((guint64) sqlite3_column_int64 (stmt, 0)));
  SlProcess *p = &g_array_index (r->trace->processes, SlProcess, pi);
  gint64 parent = sqlite3_column_type (stmt, 1) == SQLITE_INTEGER ? sqlite3_column_int64 (stmt, 1)
                                                                   : 0;
  /* a pid is 1 … 2^22 on Linux; the pid bits of a global pid hold 24 */
  if (parent > 0 && parent <= 0xFFFFFF && (guint32) parent != p->pid)
    p->parent_pid = (guint32) parent;
  if (sqlite3_column_type (stmt, 2) == SQLITE_TEXT)
    {
      guint32 cmd = _sl_reader_col_text (r, stmt, 2);
      if (cmd != SL_NO_STR)
        p->command_line = cmd;
    }
  /* a rank: a whole number 0 … 2^31 - 1; anything else is counted (loop->data) and left out */
  if (sqlite3_column_type (stmt, 3) == SQLITE_INTEGER && sqlite3_column_int64 (stmt, 3) >= 0
      && sqlite3_column_int64 (stmt, 3) <= G_MAXINT32)
    p->rank = (gint32) sqlite3_column_int64 (stmt, 3);
  else if (sqlite3_column_type (stmt, 3) != SQLITE_NULL)
    (*(guint64 *) loop->data)++;
}

/* A rank from an environment variable's value: a whole number, 0 … 2^31 - 1; -1 otherwise. */
static gint64
rank_of_text (const char *text)
{
  guint64 v = 0;

  if (text == NULL || !g_ascii_isdigit (*text)
      || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT32, &v, NULL))
    return -1;
  return (gint64) v;
}

/* The trace's rank (sl_trace_get_rank): the recorded environment of an nsys export's program
 * (META_DATA_CAPTURE: PROCESS_0:ENVIRONMENT_VARIABLE rows, `NAME="value"`; nsys's
 * TARGET_INFO_SYSTEM_ENV holds the machine's properties, not the program's environment), else the
 * one rank a Sightline recording's processes share. */
static void
read_rank (SlReader *r)
{
  static const char *const ranks[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                       "PMI_RANK" };
  static const char *const sizes[] = { "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE",
                                       "PMI_SIZE" };
  sqlite3_stmt *stmt = NULL;
  gint64 rank_by[G_N_ELEMENTS (ranks)] = { -1, -1, -1, -1 };
  gint64 size_by[G_N_ELEMENTS (sizes)] = { -1, -1, -1, -1 };

  if (_sl_reader_table_exists (r, "META_DATA_CAPTURE")
      && sqlite3_prepare_v2 (r->db, "SELECT value FROM META_DATA_CAPTURE "
                                    "WHERE name = 'PROCESS_0:ENVIRONMENT_VARIABLE'",
                             -1, &stmt, NULL) == SQLITE_OK)
    while (sqlite3_step (stmt) == SQLITE_ROW)
      {
        const char *v = (const char *) sqlite3_column_text (stmt, 0);
        const char *eq = v != NULL ? strchr (v, '=') : NULL;
        if (eq == NULL)
          continue;
        /* the value is quoted: RANK="3" */
        g_autofree char *value = g_strdup (eq + 1);
        gsize len = strlen (value);
        if (len >= 2 && value[0] == '"' && value[len - 1] == '"')
          {
            value[len - 1] = '\0';
            memmove (value, value + 1, len - 1);
          }
        for (guint i = 0; i < G_N_ELEMENTS (ranks); i++)
          {
            if ((gsize) (eq - v) == strlen (ranks[i]) && strncmp (v, ranks[i], eq - v) == 0)
              rank_by[i] = rank_of_text (value);
            if ((gsize) (eq - v) == strlen (sizes[i]) && strncmp (v, sizes[i], eq - v) == 0)
              size_by[i] = rank_of_text (value);
          }
      }
  sqlite3_finalize (stmt);
  for (guint i = 0; i < G_N_ELEMENTS (ranks) && r->trace->rank < 0; i++)
    if (rank_by[i] >= 0)
      {
        r->trace->rank = rank_by[i];
        r->trace->world_size = MAX (size_by[i], 0);
      }
  if (r->trace->rank >= 0)
    return;

  /* a recording: the rank all its ranked processes share */
  gint64 shared = -1;
  for (guint i = 0; i < r->trace->processes->len; i++)
    {
      const SlProcess *p = &g_array_index (r->trace->processes, SlProcess, i);
      if (p->rank < 0)
        continue;
      if (shared >= 0 && shared != p->rank)
        return;
      shared = p->rank;
    }
  r->trace->rank = shared;
}

gboolean
_sl_reader_read_processes (SlReader *r,
                           GError  **error)
{
  guint64 bad_ranks = 0;
  SlRowLoop info = { .table = "SL_PROCESS_INFO",
                     .sql = "SELECT globalPid, {parentPid:NULL}, {commandLine:NULL}, "
                            "{rank:NULL} FROM SL_PROCESS_INFO",
                     .row = process_info_row,
                     .data = &bad_ranks };

  SlRowLoop processes = { .table = "PROCESSES", .sql = "SELECT globalPid, pid, name FROM PROCESSES",
                          .row = process_row };
  SlRowLoop names = { .table = "ThreadNames",
                      .sql = "SELECT globalTid, nameId, {priority:NULL} FROM ThreadNames",
                      .row = thread_name_row };

  if (_sl_reader_table_exists (r, "PROCESSES") && !_sl_reader_each_row (r, &processes, error))
    return FALSE;
  if (_sl_reader_table_exists (r, "ThreadNames") && !_sl_reader_each_row (r, &names, error))
    return FALSE;
  if (_sl_reader_table_exists (r, "SL_PROCESS_INFO") && _sl_reader_has_column (r, "SL_PROCESS_INFO",
                                                                               "globalPid")
      && !_sl_reader_each_row (r, &info, error))
    return FALSE;
  if (bad_ranks > 0)
    _sl_trace_warn (r->trace, "SL_PROCESS_INFO: %" G_GUINT64_FORMAT " ranks are not whole "
                              "numbers from 0 to 2^31 - 1 and were left out", bad_ranks);

  /* a process without a name takes its main thread's */
  for (guint i = 0; i < r->trace->threads->len; i++)
    {
      SlThread *t = &g_array_index (r->trace->threads, SlThread, i);
      SlProcess *p = &g_array_index (r->trace->processes, SlProcess, t->process);
      if (p->name == SL_NO_STR && t->pid == t->tid)
        p->name = t->name;
    }
  read_rank (r);
  return TRUE;
}

/* ---- GPUs -------------------------------------------------------------------------------- */

gint
_sl_reader_gpu_for (SlReader *r,
                    guint32   device_id)
{
  gint i = sl_trace_find_gpu (r->trace, device_id);
  if (i >= 0)
    return i;

  SlGpu gpu;
  /* padding too (after the ids): the model cache stores the table as bytes */
  memset (&gpu, 0, sizeof gpu);
  g_autofree char *name = g_strdup_printf ("GPU %u", device_id);
  gpu.device_id = device_id;
  gpu.name = _sl_trace_intern (r->trace, name, -1);
  g_array_append_val (r->trace->gpus, gpu);
  return r->trace->gpus->len - 1;
}

/* The GPU a row describes (column 0), named by column 1 when the row has a name. */
static SlGpu *
described_gpu (SlReader     *r,
               sqlite3_stmt *stmt)
{
  gint gi = _sl_reader_gpu_for (r, (guint32) sqlite3_column_int64 (stmt, 0));
  SlGpu *g = &g_array_index (r->trace->gpus, SlGpu, gi);
  if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
    g->name = _sl_reader_col_text (r, stmt, 1);
  g->described = TRUE;
  return g;
}

/* Occupancy limits from consecutive columns from `col` on, in the order of SlGpuLimits; the
 * early-2021 layout has no opt-in shared memory per block. */
static void
read_limits (SlGpuLimits  *l,
             sqlite3_stmt *stmt,
             int           col,
             gboolean      optin)
{
  l->sm_count = _sl_col_int (stmt, col++);
  l->cc_major = _sl_col_int (stmt, col++);
  l->cc_minor = _sl_col_int (stmt, col++);
  l->warp_size = _sl_col_int (stmt, col++);
  l->max_threads_per_block = _sl_col_int (stmt, col++);
  l->max_warps_per_sm = _sl_col_int (stmt, col++);
  l->max_blocks_per_sm = _sl_col_int (stmt, col++);
  l->max_regs_per_block = _sl_col_int (stmt, col++);
  l->max_regs_per_sm = _sl_col_int (stmt, col++);
  l->max_smem_per_block = _sl_col_int (stmt, col++);
  if (optin)
    l->max_smem_per_block_optin = _sl_col_int (stmt, col++);
  l->max_smem_per_sm = _sl_col_int (stmt, col);
}

static void
gpu_row (SlReader     *r,
         sqlite3_stmt *stmt,
         SlEvent      *ev G_GNUC_UNUSED,
         SlRowLoop    *loop G_GNUC_UNUSED)
{
  SlGpu *g = described_gpu (r, stmt);
  g->bus_location = _sl_reader_col_text (r, stmt, 2);
  g->uuid = _sl_reader_col_text (r, stmt, 3);
  g->chip_name = _sl_reader_col_text (r, stmt, 4);
  g->total_memory = sqlite3_column_int64 (stmt, 5);
  g->memory_bandwidth = sqlite3_column_int64 (stmt, 6);
  g->clock_rate = sqlite3_column_int64 (stmt, 7);
  read_limits (&g->limits, stmt, 8, TRUE);
}

/* early-2021 layout: one row per (process, device); clocks in kHz.  globalMemorySize is MiB in
 * some exports (32510 for a 32 GB V100) and bytes in others (42505273344 for a 40 GB A100): no
 * GPU of the time had 2^20 MiB, so a value from 2^20 on is bytes. */
static void
cuda_gpu_row (SlReader     *r,
              sqlite3_stmt *stmt,
              SlEvent      *ev G_GNUC_UNUSED,
              SlRowLoop    *loop G_GNUC_UNUSED)
{
  SlGpu *g = described_gpu (r, stmt);
  gint64 memory = MAX (sqlite3_column_int64 (stmt, 3), 0);

  g->bus_location = _sl_reader_col_text (r, stmt, 2);
  g->total_memory = memory < (1 << 20) ? memory * 1024 * 1024 : memory;
  g->clock_rate = CLAMP (sqlite3_column_int64 (stmt, 4), 0, G_MAXINT64 / 1000) * 1000;
  read_limits (&g->limits, stmt, 5, FALSE);
}

/* TARGET_INFO_GPU as written between early 2021 and 2021.3.1: keyed by deviceId, only a name,
 * a bus location and whether the GPU is discrete.  Fills what TARGET_INFO_CUDA_GPU (read first,
 * when the file has it) left out; nsys named a device from that table then, so its name wins. */
static void
early_gpu_row (SlReader     *r,
               sqlite3_stmt *stmt,
               SlEvent      *ev G_GNUC_UNUSED,
               SlRowLoop    *loop G_GNUC_UNUSED)
{
  gint gi = _sl_reader_gpu_for (r, (guint32) sqlite3_column_int64 (stmt, 0));
  SlGpu *g = &g_array_index (r->trace->gpus, SlGpu, gi);

  if (!g->described && sqlite3_column_type (stmt, 1) != SQLITE_NULL)
    g->name = _sl_reader_col_text (r, stmt, 1);
  /* the early table's pciBusId is often "<UNKNOWN_BUS_ID>" where this one has the address */
  if (sqlite3_column_type (stmt, 2) != SQLITE_NULL)
    g->bus_location = _sl_reader_col_text (r, stmt, 2);
  g->described = TRUE;
}

gboolean
_sl_reader_read_gpus (SlReader *r,
                      GError  **error)
{
  gboolean gpu_table = _sl_reader_table_exists (r, "TARGET_INFO_GPU");
  gboolean cuda_table = _sl_reader_table_exists (r, "TARGET_INFO_CUDA_GPU")
                        && _sl_reader_has_column (r, "TARGET_INFO_CUDA_GPU", "deviceId");

  if (gpu_table && _sl_reader_has_column (r, "TARGET_INFO_GPU", "id"))
    {
      SlRowLoop loop = {
        .table = "TARGET_INFO_GPU",
        .sql = "SELECT id, {name:NULL}, {busLocation:NULL}, {uuid:NULL}, {chipName:NULL}, "
               "{totalMemory:0}, {memoryBandwidth:0}, {clockRate:0}, {smCount:0}, "
               "{computeMajor:0}, {computeMinor:0}, {threadsPerWarp:0}, {maxThreadsPerBlock:0}, "
               "{maxWarpsPerSm:0}, {maxBlocksPerSm:0}, {maxRegistersPerBlock:0}, "
               "{maxRegistersPerSm:0}, {maxShmemPerBlock:0}, {maxShmemPerBlockOptin:0}, "
               "{maxShmemPerSm:0} FROM TARGET_INFO_GPU",
        .row = gpu_row,
      };
      return _sl_reader_each_row (r, &loop, error);
    }

  /* early 2021: TARGET_INFO_CUDA_GPU has the limits, a TARGET_INFO_GPU beside it (keyed by
   * deviceId, not id) the bus address; either may be missing */
  if (cuda_table)
    {
      SlRowLoop loop = {
        .table = "TARGET_INFO_CUDA_GPU",
        .sql = "SELECT deviceId, {name:NULL}, {pciBusId:NULL}, {globalMemorySize:0}, "
               "{coreClockRate:0}, {numMultiprocessors:0}, {computeCapabilityMajor:0}, "
               "{computeCapabilityMinor:0}, {numThreadsPerWarp:0}, {maxThreadsPerBlock:0}, "
               "{maxWarpsPerMultiprocessor:0}, {maxBlocksPerMultiprocessor:0}, "
               "{maxRegistersPerBlock:0}, {maxRegistersPerMultiprocessor:0}, "
               "{maxSharedMemoryPerBlock:0}, {maxSharedMemoryPerMultiprocessor:0} "
               "FROM TARGET_INFO_CUDA_GPU",
        .row = cuda_gpu_row,
      };
      if (!_sl_reader_each_row (r, &loop, error))
        return FALSE;
    }
  if (gpu_table && _sl_reader_has_column (r, "TARGET_INFO_GPU", "deviceId"))
    {
      SlRowLoop loop = {
        .table = "TARGET_INFO_GPU",
        .sql = "SELECT deviceId, {name:NULL}, {busLocation:NULL} FROM TARGET_INFO_GPU",
        .row = early_gpu_row,
      };
      return _sl_reader_each_row (r, &loop, error);
    }
  if (gpu_table)
    _sl_trace_warn (r->trace, "TARGET_INFO_GPU has neither an id nor a deviceId column; %s",
                    cuda_table ? "GPUs are described by TARGET_INFO_CUDA_GPU"
                               : "GPUs are not described");
  else if (!cuda_table)
    _sl_trace_warn (r->trace, "the trace has no GPU descriptions (TARGET_INFO_GPU); "
                              "occupancy uses no GPU limits");
  return TRUE;
}

/* ---- enums and the schema version -------------------------------------------------------- */

/* A missing or unreadable ENUM_* table only leaves numbers unlabelled: no error. */
static void
read_enum (SlReader   *r,
           SlEnum      which,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT id, label FROM %s", table);
  sqlite3_stmt *stmt = NULL;

  if (!_sl_reader_table_exists (r, table)
      || sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    return;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      guint32 label = _sl_reader_col_text (r, stmt, 1);
      if (label != SL_NO_STR)
        g_hash_table_insert (r->trace->enum_labels[which], g_memdup2 (&id, sizeof id),
                             (gpointer) sl_trace_str (r->trace, label));
    }
  sqlite3_finalize (stmt);
}

/* More diagnostics than this are not kept: nsys writes tens; a damaged file could hold millions. */
#define MAX_DIAGNOSTICS 10000

/* nsys's own messages about the collection ("No CUDA events collected"): DIAGNOSTIC_EVENT
 * (timestamp, timestampType, source, severity, text, globalPid), in the order of time; a row
 * without text says nothing and is left out.  A missing table or column leaves none; an
 * unreadable one is a warning, not an error.  The inventory (sl-inventory.c) lists these. */
static void
read_diagnostics (SlReader *r)
{
  static const char *const cols[] = { "timestamp", "source", "severity", "text" };
  sqlite3_stmt *stmt = NULL;
  gboolean pid;

  if (!_sl_reader_table_exists (r, "DIAGNOSTIC_EVENT"))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cols); i++)
    if (!_sl_reader_has_column (r, "DIAGNOSTIC_EVENT", cols[i]))
      {
        _sl_trace_warn (r->trace, "DIAGNOSTIC_EVENT has no %s column; nsys's diagnostics are not "
                                  "shown", cols[i]);
        return;
      }
  pid = _sl_reader_has_column (r, "DIAGNOSTIC_EVENT", "globalPid");
  if (sqlite3_prepare_v2 (r->db,
                          pid ? "SELECT timestamp, source, severity, text, globalPid FROM "
                                "DIAGNOSTIC_EVENT ORDER BY timestamp"
                              : "SELECT timestamp, source, severity, text, NULL FROM "
                                "DIAGNOSTIC_EVENT ORDER BY timestamp",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      _sl_trace_warn (r->trace, "DIAGNOSTIC_EVENT cannot be read: %s", sqlite3_errmsg (r->db));
      return;
    }
  while (r->trace->diagnostics->len < MAX_DIAGNOSTICS && sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (stmt, 3);
      if (text == NULL)
        continue;
      g_autofree char *valid = g_utf8_make_valid (text, -1);
      SlDiagnostic d = {
        sqlite3_column_int64 (stmt, 0), sqlite3_column_int (stmt, 2),
        sqlite3_column_int (stmt, 1), _sl_trace_intern (r->trace, g_strstrip (valid), -1),
        (guint64) sqlite3_column_int64 (stmt, 4),
      };
      g_array_append_val (r->trace->diagnostics, d);
    }
  sqlite3_finalize (stmt);
}

/* The enums that label numbers, and nsys's diagnostics (whose severity and source they name). */
void
_sl_reader_read_enums (SlReader *r)
{
  read_enum (r, SL_ENUM_MEMCPY_OPER, "ENUM_CUDA_MEMCPY_OPER");
  read_enum (r, SL_ENUM_MEM_KIND, "ENUM_CUDA_MEM_KIND");
  read_enum (r, SL_ENUM_SYNC_TYPE, "ENUM_CUPTI_SYNC_TYPE");
  read_enum (r, SL_ENUM_EVENT_CLASS, "ENUM_NSYS_EVENT_CLASS");
  read_enum (r, SL_ENUM_LAUNCH_TYPE, "ENUM_CUDA_KERNEL_LAUNCH_TYPE");
  read_enum (r, SL_ENUM_LAUNCH_TYPE, "ENUM_CUDA_KRENEL_LAUNCH_TYPE"); /* sic, nsys 2023.1 */
  read_enum (r, SL_ENUM_THREAD_STATE, "ENUM_SAMPLING_THREAD_STATE");
  read_enum (r, SL_ENUM_THREAD_BLOCK, "ENUM_SCHEDULING_THREAD_BLOCK");
  read_enum (r, SL_ENUM_DIAGNOSTIC_SEVERITY, "ENUM_DIAGNOSTIC_SEVERITY_LEVEL");
  read_enum (r, SL_ENUM_DIAGNOSTIC_SOURCE, "ENUM_DIAGNOSTIC_SOURCE_TYPE");
  read_enum (r, SL_ENUM_UM_MIGRATION, "ENUM_CUDA_UNIF_MEM_MIGRATION");
  read_diagnostics (r);
}

void
_sl_reader_read_schema_version (SlReader *r)
{
  const char *tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      sqlite3_stmt *stmt = NULL;
      if (!_sl_reader_table_exists (r, tables[i]))
        continue;
      if (sqlite3_prepare_v2 (r->db,
                              i == 0 ? "SELECT value FROM META_DATA_EXPORT "
                                       "WHERE name = 'EXPORT_SCHEMA_VERSION'"
                                     : "SELECT value FROM EXPORT_META_DATA "
                                       "WHERE name = 'EXPORT_SCHEMA_VERSION'",
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
  r->trace->schema = g_strdup (_sl_reader_table_exists (r, "TARGET_INFO_CUDA_GPU")
                               ? "none (early-2021 layout, TARGET_INFO_CUDA_GPU)"
                               : "none (2021 layout)");
}
