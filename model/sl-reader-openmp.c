/* sl-reader-openmp.c: OpenMP and OpenACC (nsys -t openmp,openacc; `sightline record -t openmp`)
 * into a thread's SL_LANE_OPENMP and SL_LANE_OPENACC lanes, nested by depth as NVTX ranges are
 * (a parallel region holds its primary thread's implicit task, which holds its barriers): the 18
 * OPENMP_EVENT_KIND_* tables of NVIDIA's schema and CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH and
 * _OTHER, each event's details beside it (sl-openmp.h's SlOmpEvent, in trace->omp_events).  A
 * parallel region's team is the implicit tasks (TASK rows of kind 2) of its parallelId in its
 * process; its source line, where no column gives one, is read from its name ("omp parallel: main
 * (omp.c:42)", as `sightline record` names it).  Every table and column is optional: older
 * layouts lack some, a damaged file holds NULLs or absurd values (counted, left out, warned
 * about once a table).  A program makes 10^2 … 10^6 such events a thread.  A live append
 * (sl-trace-live.c) reads the rows committed since the last, a region's team from the implicit
 * tasks read so far. */
#include "sl-openmp.h"
#include "sl-reader-private.h"

#include <string.h>

/* Where a table's own column goes in SlOmpEvent. */
typedef enum
{
  SLOT_PARALLEL,
  SLOT_TASK,
  SLOT_OTHER,
  SLOT_COUNT,
  SLOT_KIND,
  SLOT_STATUS,
  SLOT_LINE,
  SLOT_END_LINE,
  SLOT_CONSTRUCT,
  SLOT_FILE,
  SLOT_FUNC,
  SLOT_VAR,
  SLOT_GANGS,
  SLOT_WORKERS,
  SLOT_VECTOR,
  SLOT_NONE
} Slot;

typedef struct
{
  const char *column;
  Slot        slot;
} SlotColumn;

#define MAX_SLOTS 12

/* Each table's own columns, as NVIDIA's schema names them (OpenACC: CUPTI's record fields, the
 * names nsys's tables and its openacc scripts use). */
static const SlotColumn source_columns[SL_OMP_N_SOURCES][MAX_SLOTS] = {
  [SL_OMP_THREAD] = { { "threadId", SLOT_OTHER }, { "threadType", SLOT_KIND } },
  [SL_OMP_PARALLEL] = { { "parallelId", SLOT_PARALLEL }, { "parentTaskId", SLOT_OTHER } },
  [SL_OMP_SYNC_REGION_WAIT] = { { "parallelId", SLOT_PARALLEL }, { "taskId", SLOT_TASK },
                                { "kind", SLOT_KIND } },
  [SL_OMP_SYNC_REGION] = { { "parallelId", SLOT_PARALLEL }, { "taskId", SLOT_TASK },
                           { "kind", SLOT_KIND } },
  [SL_OMP_TASK] = { { "parallelId", SLOT_PARALLEL }, { "taskId", SLOT_TASK },
                    { "kind", SLOT_KIND } },
  [SL_OMP_MASTER] = { { "parallelId", SLOT_PARALLEL }, { "taskId", SLOT_TASK } },
  [SL_OMP_REDUCTION] = { { "parallelId", SLOT_PARALLEL }, { "taskId", SLOT_TASK } },
  [SL_OMP_TASK_CREATE] = { { "parentTaskId", SLOT_OTHER }, { "newTaskId", SLOT_TASK } },
  [SL_OMP_TASK_SCHEDULE] = { { "parallelId", SLOT_PARALLEL }, { "priorTaskId", SLOT_OTHER },
                             { "priorTaskStatus", SLOT_STATUS }, { "nextTaskId", SLOT_TASK } },
  [SL_OMP_CANCEL] = { { "taskId", SLOT_TASK } },
  [SL_OMP_MUTEX_WAIT] = { { "kind", SLOT_KIND }, { "waitId", SLOT_OTHER },
                          { "taskId", SLOT_TASK } },
  [SL_OMP_CRITICAL_SECTION] = { { "kind", SLOT_KIND }, { "waitId", SLOT_OTHER } },
  [SL_OMP_MUTEX_RELEASED] = { { "kind", SLOT_KIND }, { "waitId", SLOT_OTHER },
                              { "taskId", SLOT_TASK } },
  [SL_OMP_LOCK_INIT] = { { "kind", SLOT_KIND }, { "waitId", SLOT_OTHER } },
  [SL_OMP_LOCK_DESTROY] = { { "kind", SLOT_KIND }, { "waitId", SLOT_OTHER } },
  [SL_OMP_WORKSHARE] = { { "kind", SLOT_KIND }, { "parallelId", SLOT_PARALLEL },
                         { "taskId", SLOT_TASK }, { "count", SLOT_COUNT } },
  [SL_OMP_DISPATCH] = { { "kind", SLOT_KIND }, { "parallelId", SLOT_PARALLEL },
                        { "taskId", SLOT_TASK } },
  [SL_OMP_FLUSH] = { { "threadId", SLOT_OTHER } },
#define ACC_COMMON                                                                                 \
  { "eventKind", SLOT_KIND }, { "parentConstruct", SLOT_CONSTRUCT }, { "lineNo", SLOT_LINE },      \
  { "endLineNo", SLOT_END_LINE }, { "srcFile", SLOT_FILE }, { "funcName", SLOT_FUNC }
  [SL_ACC_DATA] = { ACC_COMMON, { "bytes", SLOT_COUNT }, { "varName", SLOT_VAR } },
  [SL_ACC_LAUNCH] = { ACC_COMMON, { "numGangs", SLOT_GANGS }, { "numWorkers", SLOT_WORKERS },
                      { "vectorLength", SLOT_VECTOR } },
  [SL_ACC_OTHER] = { ACC_COMMON },
#undef ACC_COMMON
};

/* Where a region's name says it is (sl_omp_parse_where), looked up once a name. */
typedef struct
{
  gboolean found;
  gint32   line;
  guint32  file;
  guint32  func;
} NameWhere;

typedef struct
{
  SlOmpSource  source;
  guint        n_slots;
  Slot         slots[MAX_SLOTS];   /* column 4 + i holds slots[i] */
  GHashTable  *teams;              /* "pid:parallelId" -> implicit tasks << 1 | TEAM_READ
                                    * (PARALLEL only; a live load's kept across appends) */
  GHashTable  *wheres;             /* name string id -> NameWhere (OpenMP only) */
  guint64      bad;                /* rows with an absurd detail (a kind past 32 bits, negative
                                    * bytes …): kept, that detail left out */
} OmpRows;

static void
omp_done (SlReader  *r,
          SlRowLoop *loop)
{
  OmpRows *rows = loop->data;
  /* a live load's count is the table's so far, as a fresh load counts */
  guint64 bad = _sl_live_bad_details (r, loop->table, rows->bad);

  if (bad > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows hold a kind, line, id or size no "
                              "OpenMP or OpenACC event can have; those details were left out",
                    loop->table, bad);
}

/* An integer column into a field of `o`, with its flag: nothing when NULL, not an integer or
 * outside `min`…`max` (then counted as absurd). */
static void
take_i64 (sqlite3_stmt *stmt,
          int           col,
          gint64        min,
          gint64        max,
          gint64       *field,
          guint32       flag,
          SlOmpEvent   *o,
          OmpRows      *rows)
{
  gint64 v;
  if (_sl_reader_col_int (stmt, col, min, max, &v, &rows->bad))
    {
      *field = v;
      o->flags |= flag;
    }
}

static void
take_i32 (sqlite3_stmt *stmt,
          int           col,
          gint64        min,
          gint32       *field,
          guint32       flag,
          SlOmpEvent   *o,
          OmpRows      *rows)
{
  gint64 v;
  if (_sl_reader_col_int (stmt, col, min, G_MAXINT32, &v, &rows->bad))
    {
      *field = (gint32) v;
      o->flags |= flag;
    }
}

/* A string id column (StringIds of the file): SL_NO_STR when NULL or not an id. */
static guint32
take_str (SlReader     *r,
          sqlite3_stmt *stmt,
          int           col)
{
  return sqlite3_column_type (stmt, col) == SQLITE_INTEGER ? _sl_reader_col_str (r, stmt, col)
                                                           : SL_NO_STR;
}

static void
fill_slot (SlReader     *r,
           sqlite3_stmt *stmt,
           int           col,
           Slot          slot,
           SlOmpEvent   *o,
           OmpRows      *rows)
{
  gint32 construct = 0;

  switch (slot)
    {
    case SLOT_PARALLEL:
      take_i64 (stmt, col, G_MININT64, G_MAXINT64, &o->parallel_id, SL_OMP_HAS_PARALLEL, o, rows);
      break;
    case SLOT_TASK:
      take_i64 (stmt, col, G_MININT64, G_MAXINT64, &o->task_id, SL_OMP_HAS_TASK, o, rows);
      break;
    case SLOT_OTHER:
      take_i64 (stmt, col, G_MININT64, G_MAXINT64, &o->other_id, SL_OMP_HAS_OTHER, o, rows);
      break;
    case SLOT_COUNT:
      take_i64 (stmt, col, 0, G_MAXINT64, &o->count, SL_OMP_HAS_COUNT, o, rows);
      break;
    case SLOT_GANGS:
      take_i64 (stmt, col, 0, G_MAXINT64, &o->gangs, SL_OMP_HAS_GANGS, o, rows);
      break;
    case SLOT_WORKERS:
      take_i64 (stmt, col, 0, G_MAXINT64, &o->workers, SL_OMP_HAS_WORKERS, o, rows);
      break;
    case SLOT_VECTOR:
      take_i64 (stmt, col, 0, G_MAXINT64, &o->vector, SL_OMP_HAS_VECTOR, o, rows);
      break;
    case SLOT_KIND:
      take_i32 (stmt, col, G_MININT32, &o->kind, SL_OMP_HAS_KIND, o, rows);
      break;
    case SLOT_STATUS:
      take_i32 (stmt, col, G_MININT32, &o->status, SL_OMP_HAS_STATUS, o, rows);
      break;
    case SLOT_LINE:
      /* kept as it is (openacc_sum names a group by it); CUPTI: "a negative or zero value means
       * the line number is not known", and sl_omp_where shows none */
      take_i32 (stmt, col, G_MININT32, &o->line, SL_OMP_HAS_LINE, o, rows);
      break;
    case SLOT_END_LINE:
      take_i32 (stmt, col, G_MININT32, &o->end_line, SL_OMP_HAS_END_LINE, o, rows);
      break;
    case SLOT_CONSTRUCT:
      take_i32 (stmt, col, 0, &construct, SL_OMP_HAS_CONSTRUCT, o, rows);
      o->construct = (guint32) construct;
      break;
    case SLOT_FILE:
      o->file = take_str (r, stmt, col);
      break;
    case SLOT_FUNC:
      o->func = take_str (r, stmt, col);
      break;
    case SLOT_VAR:
      o->var = take_str (r, stmt, col);
      break;
    case SLOT_NONE:
    default:
      break;
    }
}

/* Where the region named `name` is, parsed once a name: the table of strings is read under the
 * trace's lock (the other loading thread may add strings meanwhile). */
static const NameWhere *
name_where (SlReader *r,
            OmpRows  *rows,
            guint32   name)
{
  NameWhere *w = g_hash_table_lookup (rows->wheres, GUINT_TO_POINTER (name));
  if (w != NULL)
    return w;
  w = g_new0 (NameWhere, 1);
  g_autofree char *file = NULL, *func = NULL;
  g_mutex_lock (&r->trace->lock);
  g_autofree char *text = g_strdup (sl_trace_str (r->trace, name));
  g_mutex_unlock (&r->trace->lock);
  if (sl_omp_parse_where (text, &file, &func, &w->line))
    {
      w->found = TRUE;
      w->file = _sl_trace_intern (r->trace, file, -1);
      w->func = func != NULL ? _sl_trace_intern (r->trace, func, -1) : SL_NO_STR;
    }
  g_hash_table_insert (rows->wheres, GUINT_TO_POINTER (name), w);
  return w;
}

static char *
team_key (gint64 gpid,
          gint64 parallel_id)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, gpid, parallel_id);
}

/* A team's entry in OmpRows.teams: set once a region of its parallelId was read (a live load:
 * implicit tasks committed after it change what a fresh load gives it). */
#define TEAM_READ 1u

/* Columns: start, end, globalTid, nameId, then rows->slots. */
static void
omp_row (SlReader     *r,
         sqlite3_stmt *stmt,
         SlEvent      *ev,
         SlRowLoop    *loop)
{
  OmpRows *rows = loop->data;
  SlTrace *trace = r->trace;
  SlOmpEvent o;

  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  memset (&o, 0, sizeof o);
  ev->name = take_str (r, stmt, 3);
  for (guint i = 0; i < rows->n_slots; i++)
    fill_slot (r, stmt, 4 + (int) i, rows->slots[i], &o, rows);
  if (rows->source == SL_OMP_PARALLEL && rows->teams != NULL && (o.flags & SL_OMP_HAS_PARALLEL))
    {
      g_autofree char *key = team_key ((gint64) GPID_OF ((guint64) sqlite3_column_int64 (stmt, 2)),
                                       o.parallel_id);
      gsize v = GPOINTER_TO_SIZE (g_hash_table_lookup (rows->teams, key));
      if (v >> 1 > 0 && v >> 1 <= G_MAXINT32)
        {
          o.threads = (gint32) (v >> 1);
          o.flags |= SL_OMP_HAS_THREADS;
        }
      if (r->trace->live != NULL && !(v & TEAM_READ))
        g_hash_table_replace (rows->teams, g_steal_pointer (&key),
                              GSIZE_TO_POINTER (v | TEAM_READ));
    }
  if (rows->wheres != NULL && !(o.flags & SL_OMP_HAS_LINE) && ev->name != SL_NO_STR)
    {
      const NameWhere *w = name_where (r, rows, ev->name);
      if (w->found)
        {
          o.line = w->line;
          o.file = w->file;
          o.func = w->func;
          o.flags |= SL_OMP_HAS_LINE | SL_OMP_LINE_OF_NAME;
        }
    }

  if (trace->omp_events == NULL)
    trace->omp_events = g_array_new (FALSE, FALSE, sizeof (SlOmpEvent));
  if (trace->omp_events->len >= G_MAXUINT32 - 1)
    return;
  ev->corr = trace->omp_events->len;
  ev->link = SL_NO_LINK;
  ev->aux = (guint32) rows->source;
  g_array_append_val (trace->omp_events, o);
  GArray *a = _sl_reader_cpu_events (r, thread, SL_OMP_IS_ACC (rows->source) ? SL_LANE_OPENACC
                                                                             : SL_LANE_OPENMP);
  g_array_append_val (a, *ev);
}

/* The team of each parallel region: OPENMP_EVENT_KIND_TASK's implicit tasks (kind 2, NVIDIA's
 * ENUM_OPENMP_TASK_FLAG; every task where the table has no kind) by process and parallelId,
 * added to `teams`.  A few rows a region.  A live load counts the rows it reads of the table
 * (those committed since the last), adding to the counts kept; the teams of regions read before
 * that grew go into `grown`.  FALSE when the table cannot say. */
static gboolean
count_teams (SlReader   *r,
             GHashTable *teams,
             GHashTable *grown)
{
  static const char task[] = "OPENMP_EVENT_KIND_TASK";
  sqlite3_stmt *stmt = NULL;

  if (!_sl_reader_table_exists (r, task) || !_sl_reader_has_column (r, task, "globalTid")
      || !_sl_reader_has_column (r, task, "parallelId"))
    return FALSE;
  g_autofree char *sql = g_strdup_printf (
      "SELECT globalTid & 0xFFFFFFFFFF000000, parallelId, count(*) FROM %s "
      "WHERE globalTid IS NOT NULL AND parallelId IS NOT NULL%s GROUP BY 1, 2",
      task, _sl_reader_has_column (r, task, "kind") ? " AND kind = 2" : "");
  if (r->trace->live != NULL)
    {
      char *live = _sl_live_sql (r, task, sql);
      g_free (sql);
      sql = live;
    }
  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      sqlite3_finalize (stmt);
      return FALSE;
    }
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 n = sqlite3_column_int64 (stmt, 2);
      if (sqlite3_column_type (stmt, 1) != SQLITE_INTEGER || n <= 0 || n > G_MAXINT32)
        continue;
      char *key = team_key (sqlite3_column_int64 (stmt, 0), sqlite3_column_int64 (stmt, 1));
      gsize v = GPOINTER_TO_SIZE (g_hash_table_lookup (teams, key));
      gsize total = MIN ((v >> 1) + (gsize) n, (gsize) G_MAXINT32 + 1);
      if ((v & TEAM_READ) && grown != NULL)
        g_hash_table_add (grown, g_strdup (key));
      g_hash_table_replace (teams, key, GSIZE_TO_POINTER (total << 1 | (v & TEAM_READ)));
    }
  sqlite3_finalize (stmt);
  return TRUE;
}

/* The teams of regions read before that grew (`grown`), in the copy of the previous trace's
 * OpenMP events the append holds (sl-trace-live.c): as a fresh load counts them. */
static void
correct_teams (SlReader   *r,
               GHashTable *teams,
               GHashTable *grown)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlCpuKey *k = key;
      const GArray *a = value;
      if (k->kind != SL_LANE_OPENMP)
        continue;
      gint64 gpid = (gint64) GPID_OF (g_array_index (r->trace->threads, SlThread,
                                                     k->thread).global_tid);
      for (guint e = 0; e < a->len; e++)
        {
          const SlEvent *ev = &g_array_index (a, SlEvent, e);
          if (ev->aux != SL_OMP_PARALLEL || ev->corr >= r->trace->omp_events->len)
            continue;
          SlOmpEvent *o = &g_array_index (r->trace->omp_events, SlOmpEvent, ev->corr);
          if (!(o->flags & SL_OMP_HAS_PARALLEL))
            continue;
          g_autofree char *tk = team_key (gpid, o->parallel_id);
          if (!g_hash_table_contains (grown, tk))
            continue;
          gsize n = GPOINTER_TO_SIZE (g_hash_table_lookup (teams, tk)) >> 1;
          if (n > 0 && n <= G_MAXINT32)
            {
              o->threads = (gint32) n;
              o->flags |= SL_OMP_HAS_THREADS;
            }
        }
    }
}

/* The teams a PARALLEL read names (rows->teams), NULL when the table cannot say.  An append
 * whose new implicit tasks belong to a region read before corrects that region in its copy of
 * the previous trace, or, adding to the previous trace's lanes (which it shares), cannot. */
static void
read_teams (SlReader *r,
            OmpRows  *rows)
{
  GHashTable *live = _sl_live_omp_teams (r);

  if (live == NULL)
    {
      rows->teams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      if (!count_teams (r, rows->teams, NULL))
        g_clear_pointer (&rows->teams, g_hash_table_unref);
      return;
    }
  g_autoptr (GHashTable) grown = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!count_teams (r, live, grown))
    return;
  rows->teams = g_hash_table_ref (live);
  if (g_hash_table_size (grown) == 0 || r->prev == NULL)
    return;
  if (r->trace->extend)
    _sl_live_no_extend (r, "implicit tasks of OpenMP regions read before came (their teams)");
  else if (r->trace->omp_events != NULL)
    correct_teams (r, live, grown);
}

static gboolean
read_source (SlReader    *r,
             SlOmpSource  source,
             GError     **error)
{
  const char *table = sl_omp_source_table (source);
  OmpRows rows = { .source = source };
  GString *sql = g_string_new ("SELECT start, end, globalTid, {nameId:NULL}");

  if (!_sl_reader_has_column (r, table, "start") || !_sl_reader_has_column (r, table, "end")
      || !_sl_reader_has_column (r, table, "globalTid"))
    {
      _sl_reader_not_read (r, table, "it lacks start, end or globalTid");
      g_string_free (sql, TRUE);
      return TRUE;
    }
  for (guint i = 0; i < MAX_SLOTS && source_columns[source][i].column != NULL; i++)
    {
      g_string_append_printf (sql, ", {%s:NULL}", source_columns[source][i].column);
      rows.slots[rows.n_slots++] = source_columns[source][i].slot;
    }
  g_string_append_printf (sql, " FROM %s", table);
  if (source == SL_OMP_PARALLEL)
    read_teams (r, &rows);
  if (!SL_OMP_IS_ACC (source))
    rows.wheres = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  SlRowLoop loop = {
    .table = table, .what = NULL, .times = TRUE, .sql = sql->str,
    .row = omp_row, .done = omp_done, .data = &rows,
  };
  gboolean ok = _sl_reader_each_row (r, &loop, error);
  g_clear_pointer (&rows.teams, g_hash_table_unref);
  g_clear_pointer (&rows.wheres, g_hash_table_unref);
  g_string_free (sql, TRUE);
  return ok;
}

#define READER(fn, source)                                                                        \
  gboolean fn (SlReader *r, GError **error)                                                        \
  {                                                                                                \
    return read_source (r, source, error);                                                         \
  }

READER (_sl_reader_read_omp_thread, SL_OMP_THREAD)
READER (_sl_reader_read_omp_parallel, SL_OMP_PARALLEL)
READER (_sl_reader_read_omp_sync_wait, SL_OMP_SYNC_REGION_WAIT)
READER (_sl_reader_read_omp_sync, SL_OMP_SYNC_REGION)
READER (_sl_reader_read_omp_task, SL_OMP_TASK)
READER (_sl_reader_read_omp_master, SL_OMP_MASTER)
READER (_sl_reader_read_omp_reduction, SL_OMP_REDUCTION)
READER (_sl_reader_read_omp_task_create, SL_OMP_TASK_CREATE)
READER (_sl_reader_read_omp_task_schedule, SL_OMP_TASK_SCHEDULE)
READER (_sl_reader_read_omp_cancel, SL_OMP_CANCEL)
READER (_sl_reader_read_omp_mutex_wait, SL_OMP_MUTEX_WAIT)
READER (_sl_reader_read_omp_critical, SL_OMP_CRITICAL_SECTION)
READER (_sl_reader_read_omp_mutex_released, SL_OMP_MUTEX_RELEASED)
READER (_sl_reader_read_omp_lock_init, SL_OMP_LOCK_INIT)
READER (_sl_reader_read_omp_lock_destroy, SL_OMP_LOCK_DESTROY)
READER (_sl_reader_read_omp_workshare, SL_OMP_WORKSHARE)
READER (_sl_reader_read_omp_dispatch, SL_OMP_DISPATCH)
READER (_sl_reader_read_omp_flush, SL_OMP_FLUSH)
READER (_sl_reader_read_acc_data, SL_ACC_DATA)
READER (_sl_reader_read_acc_launch, SL_ACC_LAUNCH)
READER (_sl_reader_read_acc_other, SL_ACC_OTHER)
