/* sl-stats-syscall.c: syscall_sum, the `nsys stats` summary of system calls, read from the
 * SYSCALL table of the trace's files.
 *
 * NVIDIA's syscall_sum.py (nsys 2024.x): SYSCALL WHERE eventClass == 107 GROUP BY nameId; the
 * time summary of their durations (Time (%), Total Time, Num Calls, Avg, Med, Min, Max,
 * StdDev), Name from StringIds (NULL where it has none); ORDER BY 2 DESC (ties: Name).
 * The table exists in newer exports of a trace made with nsys's syscall tracing; none of the
 * real traces we test on holds one, so the test writes one by the documented schema.  The
 * model keeps no syscalls (they would be a lane kind of their own), so the rows are read here:
 * each file of a merged trace with its times moved by its offset, the calls that start in
 * [t0, t1).  In a merged trace read whole (source -1) a name id is one file's: groups are per
 * file and name id.  Sizes: one row per call (10^3 … 10^7), one group per
 * syscall name (10^1 … 10^2).
 */
#include "sl-stats-private.h"

#include <sqlite3.h>

#define SYSCALL_EVENT_CLASS 107  /* ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_SYSCALL */

static gboolean
has_columns (sqlite3 *db)
{
  static const char *const needed[] = { "start", "end", "eventClass", "nameId" };
  sqlite3_stmt *stmt = NULL;
  guint found = 0;

  if (sqlite3_prepare_v2 (db, "SELECT name FROM pragma_table_info('SYSCALL')", -1, &stmt, NULL)
      != SQLITE_OK)
    return FALSE;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      for (gsize i = 0; name != NULL && i < G_N_ELEMENTS (needed); i++)
        if (g_strcmp0 (name, needed[i]) == 0)
          found |= 1u << i;
    }
  sqlite3_finalize (stmt);
  return found == (1u << G_N_ELEMENTS (needed)) - 1;
}

/* Reads one file's syscalls into `gs`; FALSE when it has no usable SYSCALL table. */
static gboolean
read_file (SlReport   *r,
           const char *path,
           SlTime      offset,
           guint       file,
           gboolean    live,
           SlTime      t0,
           SlTime      t1,
           _SlGroups  *gs)
{
  sqlite3 *db = _sl_trace_open_db (path, live, NULL);
  sqlite3_stmt *stmt = NULL;
  gboolean has_strings;

  if (db == NULL || !has_columns (db))
    {
      sqlite3_close (db);
      return FALSE;
    }
  has_strings = sqlite3_prepare_v2 (db, "SELECT 1 FROM StringIds LIMIT 0", -1, &stmt, NULL)
                == SQLITE_OK;
  sqlite3_finalize (stmt);
  stmt = NULL;
  g_autofree char *sql = g_strdup_printf (
      "SELECT s.start, s.end, s.nameId, %s FROM SYSCALL AS s %s WHERE s.eventClass = %d "
      "AND s.start IS NOT NULL AND s.end IS NOT NULL AND s.nameId IS NOT NULL",
      has_strings ? "ids.value" : "NULL",
      has_strings ? "LEFT JOIN StringIds AS ids ON ids.id = s.nameId" : "", SYSCALL_EVENT_CLASS);
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      sqlite3_close (db);
      return FALSE;
    }
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      SlTime start = _sl_time_add (sqlite3_column_int64 (stmt, 0), offset);
      SlTime end = _sl_time_add (sqlite3_column_int64 (stmt, 1), offset);
      gint64 name_id = sqlite3_column_int64 (stmt, 2);
      gboolean created;

      if (start < t0 || start >= t1)
        continue;
      /* the key: the file, then the name id (its 32 bits: ids past that are damage, kept
       * apart by their low bits at worst) */
      _SlGroup *g = _sl_groups_by_key (gs, ((guint64) file << 32) | (guint32) name_id, &created);
      if (created)
        {
          const char *name = (const char *) sqlite3_column_text (stmt, 3);
          g->name = name != NULL ? g_string_chunk_insert_const (r->strings, name) : NULL;
          g->key = (guint32) name_id;
        }
      _sl_acc_add (&g->acc, end - start);
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return TRUE;
}

SlReport *
_sl_report_compute_syscall_sum (SlTrace             *trace,
                                const _SlReportInfo *info,
                                SlTime               t0,
                                SlTime               t1,
                                gint                 source,
                                GError             **error)
{
  guint n_sources = sl_trace_get_n_sources (trace);
  gboolean any = FALSE;
  _SlGroups gs;

  _sl_groups_init (&gs);
  SlReport *r = _sl_report_new (trace, info);
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
      if (path != NULL && read_file (r, path, offset, i, trace->live != NULL, t0, t1, &gs))
        any = TRUE;
    }
  if (!any)
    {
      _sl_groups_clear (&gs);
      sl_report_free (r);
      return _sl_stats_no_data (trace, error, "syscall data"), NULL;
    }
  _sl_stats_summary_emit (r, &gs, _SL_ORDER_TOTAL_DESC);
  _sl_groups_clear (&gs);
  return r;
}
