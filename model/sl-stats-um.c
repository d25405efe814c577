/* sl-stats-um.c: the unified-memory reports of `nsys stats` (um_sum, um_total_sum,
 * um_cpu_page_faults_sum), read from the trace's file.
 *
 * The model's rows of the page-fault tables (CUDA_UM_CPU_PAGE_FAULT_EVENTS,
 * CUDA_UM_GPU_PAGE_FAULT_EVENTS: written only with nsys --cuda-um-cpu-page-faults /
 * --cuda-um-gpu-page-faults; sl-um-faults.h, for the timeline) leave out what these reports
 * group by (a CPU fault's instruction, module and source line) and the rows with NULLs, whose
 * groups nsys reports all the same, so these reports read the rows
 * from the file (each file of a merged trace, its times moved by its offset) and aggregate them
 * here, with the semantics of NVIDIA's um_sum.py, um_total_sum.py and um_cpu_page_faults_sum.py
 * (nsys 2024.x): the same groups, the same NULLs (a sum over no rows, a join that finds nothing,
 * SQLite's min()/max() of several arguments being NULL when one is), the same integer division in
 * the throughput, the same order, where we break ties as the header of sl-stats-reports.c says.
 * Like NVIDIA's scripts they need the tables to exist (their table_checks), not to hold rows.
 * Sizes: a fault or migration row per page group, 10^2 … 10^6 in a trace; one group per faulting
 * address (10^1 … 10^4); each row is read once.
 */
#include "sl-stats-private.h"

#include <string.h>

#define UVM_HTOD 11 /* ENUM_CUDA_MEMCPY_OPER: Unified Host-to-Device */
#define UVM_DTOH 12 /* Unified Device-to-Host */
#define UM_SUM_ROWS 10 /* um_sum's default rows=<limit> */

/* ---------------------------------------------------------------------------------------- */
/* Reading the files                                                                        */

/* A nullable SQL integer: sum() of no non-NULL values is NULL, count() never is. */
typedef struct
{
  gint64   v;
  gboolean set;
} Num;

static inline void
num_add (Num   *n,
         gint64 v)
{
  n->v = n->set ? _sl_time_add (n->v, v) : v;
  n->set = TRUE;
}

static inline void
num_min (Num   *n,
         gint64 v)
{
  if (!n->set || v < n->v)
    n->v = v;
  n->set = TRUE;
}

static inline void
num_max (Num   *n,
         gint64 v)
{
  if (!n->set || v > n->v)
    n->v = v;
  n->set = TRUE;
}

static void
add_num (SlReport  *r,
         const Num *n)
{
  if (n->set)
    _sl_report_add_int (r, n->v);
  else
    _sl_report_add_null (r);
}

/* One file of the trace, opened, with what its times need to be on the trace's axis. */
typedef struct
{
  sqlite3 *db;
  SlTime   offset;
} UmFile;

static gboolean
file_has_table (sqlite3    *db,
                const char *table)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
                          &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, table, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

static gboolean
file_has_column (sqlite3    *db,
                 const char *table,
                 const char *column)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &stmt,
                          NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, table, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 2, column, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

typedef GArray UmFiles;  /* UmFile */

static void
um_files_free (UmFiles *files)
{
  for (guint i = 0; i < files->len; i++)
    sqlite3_close (g_array_index (files, UmFile, i).db);
  g_array_unref (files);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (UmFiles, um_files_free)

/* The files of `source` (-1: every one) that have all of `tables` (NULL-terminated), opened;
 * NULL and the first missing table's `whats` entry in SL_STATS_ERROR_NO_DATA when none has them
 * (a Kineto JSON file has none).  The message names the trace, as the other reports' do. */
static UmFiles *
um_files_open (SlTrace            *trace,
               gint                source,
               const char *const  *tables,
               const char *const  *whats,
               GError            **error)
{
  UmFiles *files = g_array_new (FALSE, TRUE, sizeof (UmFile));
  guint n_sources = sl_trace_get_n_sources (trace);
  gsize missing = G_MAXSIZE;

  for (guint i = 0; i < MAX (n_sources, 1); i++)
    {
      const char *path;
      SlTime offset = 0;

      if (source >= 0 && (guint) source != i)
        continue;
      if (n_sources <= 1)
        path = trace->is_json ? NULL : trace->path;
      else
        {
          path = sl_trace_get_source (trace, i)->path;
          offset = sl_trace_get_source (trace, i)->offset;
        }
      sqlite3 *db = path != NULL ? _sl_trace_open_db (path, trace->live != NULL, NULL) : NULL;
      gsize k = 0;
      while (db != NULL && tables[k] != NULL && file_has_table (db, tables[k]))
        k++;
      if (db == NULL || tables[k] != NULL)
        {
          /* the first table a file lacks, in the scripts' table_checks order */
          missing = MIN (missing, db == NULL ? 0 : k);
          sqlite3_close (db);
          continue;
        }
      UmFile f = { db, offset };
      g_array_append_val (files, f);
    }
  if (files->len == 0)
    {
      um_files_free (files);
      _sl_stats_no_data (trace, error, whats[missing == G_MAXSIZE ? 0 : missing]);
      return NULL;
    }
  return files;
}

/* A nullable integer column (NULL where the column is absent: `col` < 0). */
static inline gboolean
column_int (sqlite3_stmt *stmt,
            int           col,
            gint64       *v)
{
  if (col < 0 || sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return FALSE;
  *v = sqlite3_column_int64 (stmt, col);
  return TRUE;
}

/* Calls `row` with each row of `table` whose start plus its file's offset is in [t0, t1):
 * "SELECT start, <columns> FROM table<where>", a column NULL where a file lacks it (older exports
 * have no virtualAddress, sourceFile, sourceLine).  `file_index`, when not NULL, says whose rows
 * come. */
typedef void (*UmRowFunc) (sqlite3_stmt *stmt,
                           gpointer      data);

static void
um_query (UmFiles           *files,
          const char        *table,
          const char *const *columns,
          const char        *where,
          SlTime             t0,
          SlTime             t1,
          guint             *file_index,
          UmRowFunc          row,
          gpointer           data)
{
  for (guint i = 0; i < files->len; i++)
    {
      const UmFile *f = &g_array_index (files, UmFile, i);
      g_autoptr (GString) sql = g_string_new ("SELECT start");
      sqlite3_stmt *stmt = NULL;

      for (gsize c = 0; columns[c] != NULL; c++)
        g_string_append_printf (sql, ", %s",
                                file_has_column (f->db, table, columns[c]) ? columns[c] : "NULL");
      g_string_append_printf (sql, " FROM %s%s", table, where);
      if (file_index != NULL)
        *file_index = i;
      if (sqlite3_prepare_v2 (f->db, sql->str, -1, &stmt, NULL) != SQLITE_OK)
        continue;
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          SlTime start = _sl_time_add (sqlite3_column_int64 (stmt, 0), f->offset);
          if (start >= t0 && start < t1)
            row (stmt, data);
        }
      sqlite3_finalize (stmt);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* um_sum and um_total_sum                                                                  */

/* One faulting or migrated address: the four summaries of NVIDIA's query for it.  A group with
 * a NULL address is one of its own in each summary and never joins another (SQL's USING). */
typedef struct
{
  gint64   address;
  gboolean null_address;
  gboolean cpu, gpu, d2h, h2d;   /* whether the summary has the group */
  gint64   cpu_n;                /* count(*) */
  Num      gpu_n;                /* sum(numberOfPageFaults) */
  Num      d2h_bytes, d2h_dur, h2d_bytes, h2d_dur;
} UmAddr;

typedef struct
{
  GHashTable *by_address;  /* gint64 * -> UmAddr * (owned) */
  /* the NULL-address group of each summary: they stay apart */
  UmAddr     *null_cpu, *null_gpu, *null_d2h, *null_h2d;
  /* um_total_sum's aggregates */
  gint64      cpu_count;
  Num         gpu_sum, h2d_sum, d2h_sum;
  Num         cpu_min, cpu_max, gpu_min, gpu_max, h2d_min, h2d_max, d2h_min, d2h_max;
} UmData;

static UmAddr *
um_addr (UmData   *d,
         gboolean  has_address,
         gint64    address,
         UmAddr  **null_slot)
{
  if (!has_address)
    {
      if (*null_slot == NULL)
        {
          *null_slot = g_new0 (UmAddr, 1);
          (*null_slot)->null_address = TRUE;
        }
      return *null_slot;
    }
  UmAddr *a = g_hash_table_lookup (d->by_address, &address);
  if (a == NULL)
    {
      a = g_new0 (UmAddr, 1);
      a->address = address;
      g_hash_table_insert (d->by_address, &a->address, a);
    }
  return a;
}

static void
cpu_fault_row (sqlite3_stmt *stmt,
               gpointer      data)
{
  UmData *d = data;
  gint64 address = 0;
  gboolean has = column_int (stmt, 1, &address);
  UmAddr *a = um_addr (d, has, address, &d->null_cpu);

  a->cpu = TRUE;
  a->cpu_n++;
  d->cpu_count++;
  if (has)
    {
      num_min (&d->cpu_min, address);
      num_max (&d->cpu_max, address);
    }
}

static void
gpu_fault_row (sqlite3_stmt *stmt,
               gpointer      data)
{
  UmData *d = data;
  gint64 address = 0, n = 0;
  gboolean has = column_int (stmt, 1, &address);
  UmAddr *a = um_addr (d, has, address, &d->null_gpu);

  a->gpu = TRUE;
  if (column_int (stmt, 2, &n))
    {
      num_add (&a->gpu_n, n);
      num_add (&d->gpu_sum, n);
    }
  if (has)
    {
      num_min (&d->gpu_min, address);
      num_max (&d->gpu_max, address);
    }
}

static void
migration_row (sqlite3_stmt *stmt,
               gpointer      data)
{
  UmData *d = data;
  gint64 kind = 0, address = 0, end = 0, bytes = 0;

  if (!column_int (stmt, 1, &kind) || (kind != UVM_HTOD && kind != UVM_DTOH))
    return;
  gboolean h2d = kind == UVM_HTOD;
  gboolean has = column_int (stmt, 2, &address);
  UmAddr *a = um_addr (d, has, address, h2d ? &d->null_h2d : &d->null_d2h);
  gboolean has_end = column_int (stmt, 3, &end);
  gboolean has_bytes = column_int (stmt, 4, &bytes);
  gint64 start = sqlite3_column_int64 (stmt, 0);
  gboolean has_start = sqlite3_column_type (stmt, 0) != SQLITE_NULL;

  if (h2d)
    a->h2d = TRUE;
  else
    a->d2h = TRUE;
  gint64 dur;
  if (has_end && has_start)
    {
      /* a damaged file's times: saturate as the model's sums do */
      if (__builtin_sub_overflow (end, start, &dur))
        dur = end > start ? G_MAXINT64 : G_MININT64;
      num_add (h2d ? &a->h2d_dur : &a->d2h_dur, dur);
    }
  if (has_bytes)
    {
      num_add (h2d ? &a->h2d_bytes : &a->d2h_bytes, bytes);
      num_add (h2d ? &d->h2d_sum : &d->d2h_sum, bytes);
    }
  if (has)
    {
      num_min (h2d ? &d->h2d_min : &d->d2h_min, address);
      num_max (h2d ? &d->h2d_max : &d->d2h_max, address);
    }
}

static const char *const um_tables[] = {
  "CUPTI_ACTIVITY_KIND_MEMCPY", "CUDA_UM_CPU_PAGE_FAULT_EVENTS", "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
  NULL,
};
static const char *const um_whats[] = {
  "CUDA memory transfers data",
  "CUDA Unified Memory CPU page faults data",
  "CUDA Unified Memory GPU page faults data",
};

/* Reads the three tables of the files in [t0, t1) into `d`; FALSE (and the error) when the trace
 * has no file with all three. */
static gboolean
um_data_read (SlTrace  *trace,
              SlTime    t0,
              SlTime    t1,
              gint      source,
              UmData   *d,
              GError  **error)
{
  g_autoptr (UmFiles) files = um_files_open (trace, source, um_tables, um_whats, error);
  static const char *const cpu_cols[] = { "address", NULL };
  static const char *const gpu_cols[] = { "address", "numberOfPageFaults", NULL };
  static const char *const copy_cols[] = { "copyKind", "virtualAddress", "end", "bytes", NULL };

  memset (d, 0, sizeof *d);
  d->by_address = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  if (files == NULL)
    return FALSE;
  um_query (files, "CUDA_UM_CPU_PAGE_FAULT_EVENTS", cpu_cols, "", t0, t1, NULL, cpu_fault_row, d);
  um_query (files, "CUDA_UM_GPU_PAGE_FAULT_EVENTS", gpu_cols, "", t0, t1, NULL, gpu_fault_row, d);
  um_query (files, "CUPTI_ACTIVITY_KIND_MEMCPY", copy_cols, " WHERE copyKind IN (11, 12)", t0,
            t1, NULL, migration_row, d);
  return TRUE;
}

static void
um_data_clear (UmData *d)
{
  g_clear_pointer (&d->by_address, g_hash_table_unref);
  g_clear_pointer (&d->null_cpu, g_free);
  g_clear_pointer (&d->null_gpu, g_free);
  g_clear_pointer (&d->null_d2h, g_free);
  g_clear_pointer (&d->null_h2d, g_free);
}

/* A um_sum row: the address, HtoD and DtoH bytes, CPU and GPU faults (NULL where a side has no
 * group), the throughput: an integer, a double where SQLite's integer arithmetic overflowed, or
 * NULL (no migration, or durations that sum to 0: SQL's division by zero). */
typedef struct
{
  Num      address;
  Num      h2d, d2h, cpu, gpu;
  gboolean tput_set, tput_real;
  gint64   tput_i;
  double   tput_d;
} UmRow;

static double
tput_value (const UmRow *r)
{
  return r->tput_real ? r->tput_d : (double) r->tput_i;
}

/* (ifnull(D2H, 0) + ifnull(H2D, 0)) * (1000000000 / (ifnull(d2hDur, 0) + ifnull(h2dDur, 0))),
 * in SQLite's arithmetic: integer division, overflow turning the result into a double. */
static void
row_set_tput (UmRow        *row,
              const UmAddr *d2h,
              const UmAddr *h2d)
{
  gint64 bytes_a = d2h != NULL && d2h->d2h_bytes.set ? d2h->d2h_bytes.v : 0;
  gint64 bytes_b = h2d != NULL && h2d->h2d_bytes.set ? h2d->h2d_bytes.v : 0;
  gint64 dur_a = d2h != NULL && d2h->d2h_dur.set ? d2h->d2h_dur.v : 0;
  gint64 dur_b = h2d != NULL && h2d->h2d_dur.set ? h2d->h2d_dur.v : 0;
  gint64 bytes, dur, prod;

  row->tput_set = FALSE;
  if (__builtin_add_overflow (dur_a, dur_b, &dur))
    {
      /* a real divisor: the division is a real one too */
      row->tput_set = TRUE;
      row->tput_real = TRUE;
      row->tput_d = ((double) bytes_a + (double) bytes_b) * (1e9 / ((double) dur_a + (double) dur_b));
      return;
    }
  if (dur == 0)
    return;
  gint64 per = G_GINT64_CONSTANT (1000000000) / dur;
  row->tput_set = TRUE;
  if (__builtin_add_overflow (bytes_a, bytes_b, &bytes))
    {
      row->tput_real = TRUE;
      row->tput_d = ((double) bytes_a + (double) bytes_b) * (double) per;
    }
  else if (__builtin_mul_overflow (bytes, per, &prod))
    {
      row->tput_real = TRUE;
      row->tput_d = (double) bytes * (double) per;
    }
  else
    row->tput_i = prod;
}

static int
compare_num_asc (const Num *a,
                 const Num *b)
{
  if (a->set != b->set)
    return a->set ? 1 : -1;  /* NULL first */
  if (!a->set)
    return 0;
  return (a->v > b->v) - (a->v < b->v);
}

/* ORDER BY "Migration Throughput" DESC (NULLs last), then the other columns ascending with NULLs
 * first, to settle the ties nsys leaves to SQLite. */
static int
compare_um_rows (gconstpointer pa,
                 gconstpointer pb)
{
  const UmRow *a = pa, *b = pb;

  if (a->tput_set != b->tput_set)
    return a->tput_set ? -1 : 1;
  if (a->tput_set)
    {
      double x = tput_value (a), y = tput_value (b);
      if (!a->tput_real && !b->tput_real)
        {
          if (a->tput_i != b->tput_i)
            return a->tput_i > b->tput_i ? -1 : 1;
        }
      else if (x != y)
        return x > y ? -1 : 1;
    }
  int c = compare_num_asc (&a->address, &b->address);
  if (c == 0)
    c = compare_num_asc (&a->h2d, &b->h2d);
  if (c == 0)
    c = compare_num_asc (&a->d2h, &b->d2h);
  if (c == 0)
    c = compare_num_asc (&a->cpu, &b->cpu);
  if (c == 0)
    c = compare_num_asc (&a->gpu, &b->gpu);
  return c;
}

/* The migration half of a row: its bytes and throughput from the DtoH and HtoD groups. */
static void
row_set_migration (UmRow        *row,
                   const UmAddr *d2h,
                   const UmAddr *h2d)
{
  if (d2h != NULL)
    row->d2h = d2h->d2h_bytes;
  if (h2d != NULL)
    row->h2d = h2d->h2d_bytes;
  row_set_tput (row, d2h, h2d);
}

static void
row_set_faults (UmRow        *row,
                const UmAddr *cpu,
                const UmAddr *gpu)
{
  if (cpu != NULL)
    row->cpu = (Num) { cpu->cpu_n, TRUE };
  if (gpu != NULL)
    row->gpu = gpu->gpu_n;
}

const _SlColumn _sl_um_sum_columns[6] = {
  { "Virtual Address", SL_UNIT_NONE },
  { "HtoD Migration size (MB)", SL_UNIT_MEM_B },
  { "DtoH Migration size (MB)", SL_UNIT_MEM_B },
  { "CPU Page Faults", SL_UNIT_NONE },
  /* sic: NVIDIA's alias begins with a space */
  { " GPU Page Faults", SL_UNIT_NONE },
  { "Migration Throughput (MBps)", SL_UNIT_THRU_B },
};

/* um_sum ("Unified Memory Analysis Summary"): per virtual address, the page faults (CPU: a row
 * each; GPU: their numberOfPageFaults) and the UVM migrations (HtoD: copyKind 11, DtoH: 12) with
 * their throughput, the full outer join of the two on the address; the first 10 by throughput. */
SlReport *
_sl_report_compute_um_sum (SlTrace             *trace,
                           const _SlReportInfo *info,
                           SlTime               t0,
                           SlTime               t1,
                           gint                 source,
                           GError             **error)
{
  UmData d;

  if (!um_data_read (trace, t0, t1, source, &d, error))
    {
      um_data_clear (&d);
      return NULL;
    }
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (UmRow));
  GHashTableIter it;
  UmAddr *a;

  /* a non-NULL address: one row, its faults and migrations side by side */
  g_hash_table_iter_init (&it, d.by_address);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &a))
    {
      UmRow row = { .address = { a->address, TRUE } };
      row_set_faults (&row, a->cpu ? a : NULL, a->gpu ? a : NULL);
      if (a->d2h || a->h2d)
        row_set_migration (&row, a->d2h ? a : NULL, a->h2d ? a : NULL);
      g_array_append_val (rows, row);
    }
  /* the NULL-address groups join nothing: a row each */
  if (d.null_cpu != NULL)
    {
      UmRow row = { 0 };
      row_set_faults (&row, d.null_cpu, NULL);
      g_array_append_val (rows, row);
    }
  if (d.null_gpu != NULL)
    {
      UmRow row = { 0 };
      row_set_faults (&row, NULL, d.null_gpu);
      g_array_append_val (rows, row);
    }
  if (d.null_d2h != NULL)
    {
      UmRow row = { 0 };
      row_set_migration (&row, d.null_d2h, NULL);
      g_array_append_val (rows, row);
    }
  if (d.null_h2d != NULL)
    {
      UmRow row = { 0 };
      row_set_migration (&row, NULL, d.null_h2d);
      g_array_append_val (rows, row);
    }
  um_data_clear (&d);

  g_array_sort (rows, compare_um_rows);
  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < MIN (rows->len, UM_SUM_ROWS); i++)
    {
      const UmRow *row = &g_array_index (rows, UmRow, i);
      add_num (r, &row->address);
      add_num (r, &row->h2d);
      add_num (r, &row->d2h);
      add_num (r, &row->cpu);
      add_num (r, &row->gpu);
      if (!row->tput_set)
        _sl_report_add_null (r);
      else if (row->tput_real)
        _sl_report_add_double (r, row->tput_d);
      else
        _sl_report_add_int (r, row->tput_i);
    }
  return r;
}

const _SlColumn _sl_um_total_sum_columns[6] = {
  { "Total HtoD Migration Size (MB)", SL_UNIT_MEM_B },
  { "Total DtoH Migration Size (MB)", SL_UNIT_MEM_B },
  { "Total CPU Page Faults", SL_UNIT_NONE },
  /* sic: NVIDIA's alias has no space in "PageFaults" */
  { "Total GPU PageFaults", SL_UNIT_NONE },
  { "Minimum Virtual Address", SL_UNIT_NONE },
  { "Maximum Virtual Address", SL_UNIT_NONE },
};

/* SQLite's min(a, b, c, d) / max(…): NULL when any argument is. */
static Num
num_min4 (const Num *a,
          const Num *b,
          const Num *c,
          const Num *e,
          gboolean   want_max)
{
  const Num *all[] = { a, b, c, e };
  Num out = { 0, FALSE };

  for (gsize i = 0; i < G_N_ELEMENTS (all); i++)
    {
      if (!all[i]->set)
        return (Num) { 0, FALSE };
      if (want_max)
        num_max (&out, all[i]->v);
      else
        num_min (&out, all[i]->v);
    }
  return out;
}

/* um_total_sum ("Unified Memory Totals Summary"): one row of totals; the address range is NULL
 * unless CPU faults, GPU faults, HtoD and DtoH migrations all have an address. */
SlReport *
_sl_report_compute_um_total_sum (SlTrace             *trace,
                                 const _SlReportInfo *info,
                                 SlTime               t0,
                                 SlTime               t1,
                                 gint                 source,
                                 GError             **error)
{
  UmData d;

  if (!um_data_read (trace, t0, t1, source, &d, error))
    {
      um_data_clear (&d);
      return NULL;
    }
  SlReport *r = _sl_report_new (trace, info);
  Num min = num_min4 (&d.cpu_min, &d.gpu_min, &d.h2d_min, &d.d2h_min, FALSE);
  Num max = num_min4 (&d.cpu_max, &d.gpu_max, &d.h2d_max, &d.d2h_max, TRUE);

  add_num (r, &d.h2d_sum);
  add_num (r, &d.d2h_sum);
  _sl_report_add_int (r, d.cpu_count);
  add_num (r, &d.gpu_sum);
  add_num (r, &min);
  add_num (r, &max);
  um_data_clear (&d);
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* um_cpu_page_faults_sum                                                                   */

typedef struct
{
  Num    instr, file, line;  /* CpuInstruction, sourceFile (StringIds ids), sourceLine */
  gint64 n;
  guint  file_index;         /* the file its ids are of */
} FaultSite;

typedef struct
{
  GHashTable *sites;  /* FaultSite * -> itself (owned) */
  guint       file_index;
} SiteData;

static guint
site_hash (gconstpointer p)
{
  const FaultSite *s = p;
  guint h = s->file_index;
  const Num *k[] = { &s->instr, &s->file, &s->line };

  for (gsize i = 0; i < G_N_ELEMENTS (k); i++)
    h = h * 31 + (k[i]->set ? (guint) (k[i]->v ^ (k[i]->v >> 32)) + 1 : 0);
  return h;
}

static gboolean
site_equal (gconstpointer pa,
            gconstpointer pb)
{
  const FaultSite *a = pa, *b = pb;
  return a->file_index == b->file_index && compare_num_asc (&a->instr, &b->instr) == 0
         && compare_num_asc (&a->file, &b->file) == 0 && compare_num_asc (&a->line, &b->line) == 0;
}

static void
site_row (sqlite3_stmt *stmt,
          gpointer      data)
{
  SiteData *d = data;
  FaultSite key = { .file_index = d->file_index };

  key.instr.set = column_int (stmt, 1, &key.instr.v);
  key.file.set = column_int (stmt, 2, &key.file.v);
  key.line.set = column_int (stmt, 3, &key.line.v);
  FaultSite *s = g_hash_table_lookup (d->sites, &key);
  if (s == NULL)
    {
      s = g_memdup2 (&key, sizeof key);
      g_hash_table_add (d->sites, s);
    }
  s->n++;
}

/* The StringIds value of `id` in `db`, in the report's chunk; NULL when there is none (the
 * script's LEFT JOIN). */
static const char *
string_value (SlReport     *r,
              sqlite3_stmt *lookup,
              const Num    *id)
{
  const char *value = NULL;

  if (!id->set)
    return NULL;
  sqlite3_reset (lookup);
  sqlite3_bind_int64 (lookup, 1, id->v);
  if (sqlite3_step (lookup) == SQLITE_ROW && sqlite3_column_type (lookup, 0) != SQLITE_NULL)
    value = g_string_chunk_insert_const (r->strings, (const char *) sqlite3_column_text (lookup, 0));
  return value;
}

typedef struct
{
  gint64      n;
  const char *instr, *file;
  Num         line;
} SiteRow;

static int
compare_null_str (const char *a,
                  const char *b)
{
  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);  /* NULL first */
  return strcmp (a, b);
}

/* ORDER BY "CPU Page Faults" DESC; ties by the other columns, NULLs first. */
static int
compare_site_rows (gconstpointer pa,
                   gconstpointer pb)
{
  const SiteRow *a = pa, *b = pb;

  if (a->n != b->n)
    return a->n > b->n ? -1 : 1;
  int c = compare_null_str (a->instr, b->instr);
  if (c == 0)
    c = compare_null_str (a->file, b->file);
  if (c == 0)
    c = compare_num_asc (&a->line, &b->line);
  return c;
}

const _SlColumn _sl_um_cpu_page_faults_sum_columns[4] = {
  { "CPU Page Faults", SL_UNIT_NONE },
  { "CPU Instruction Address", SL_UNIT_NONE },
  { "Source File", SL_UNIT_NONE },
  { "Source Line", SL_UNIT_NONE },
};

/* um_cpu_page_faults_sum ("Unified Memory CPU Page Faults Summary"): the CPU page faults GROUP
 * BY CpuInstruction, sourceFile, sourceLine (ids; NULLs group together), their text from
 * StringIds (NULL where an id has none). */
SlReport *
_sl_report_compute_um_cpu_page_faults_sum (SlTrace             *trace,
                                           const _SlReportInfo *info,
                                           SlTime               t0,
                                           SlTime               t1,
                                           gint                 source,
                                           GError             **error)
{
  static const char *const tables[] = { "StringIds", "CUDA_UM_CPU_PAGE_FAULT_EVENTS", NULL };
  static const char *const whats[] = { "StringIds table",
                                       "CUDA Unified Memory CPU page faults data" };
  static const char *const cols[] = { "CpuInstruction", "sourceFile", "sourceLine", NULL };
  g_autoptr (UmFiles) files = um_files_open (trace, source, tables, whats, error);

  if (files == NULL)
    return NULL;
  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (SiteRow));
  SiteData d = { g_hash_table_new_full (site_hash, site_equal, g_free, NULL), 0 };

  /* groups of each file apart: their ids are the file's own */
  um_query (files, "CUDA_UM_CPU_PAGE_FAULT_EVENTS", cols, "", t0, t1, &d.file_index, site_row,
            &d);
  for (guint i = 0; i < files->len; i++)
    {
      sqlite3_stmt *lookup = NULL;
      sqlite3 *db = g_array_index (files, UmFile, i).db;
      if (sqlite3_prepare_v2 (db, "SELECT value FROM StringIds WHERE id = ?", -1, &lookup, NULL)
          == SQLITE_OK)
        {
          GHashTableIter it;
          FaultSite *s;
          g_hash_table_iter_init (&it, d.sites);
          while (g_hash_table_iter_next (&it, (gpointer *) &s, NULL))
            if (s->file_index == i)
              {
                SiteRow row = { s->n, string_value (r, lookup, &s->instr),
                                string_value (r, lookup, &s->file), s->line };
                g_array_append_val (rows, row);
              }
        }
      sqlite3_finalize (lookup);
    }
  g_hash_table_unref (d.sites);
  g_array_sort (rows, compare_site_rows);
  for (guint i = 0; i < rows->len; i++)
    {
      const SiteRow *row = &g_array_index (rows, SiteRow, i);
      _sl_report_add_int (r, row->n);
      _sl_report_add_text (r, row->instr);
      _sl_report_add_text (r, row->file);
      add_num (r, &row->line);
    }
  return r;
}
